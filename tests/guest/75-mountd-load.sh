#!/bin/bash
# mountd under load (issue 15): 32 clients at once, root and two users, each
# its own varlink connection, making tmpfs mounts in turn (Create, Info,
# List, Unmount) in one target namespace while a Watch stream of each user
# follows it; the third user floods (more clients, going on until the
# others are done).  The load generator is bench/load-bench (-g); this test
# judges what it reports and what a person sees of mountd in /proc.  Nothing
# is asserted about time.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

LOAD=$BUILD/bench/load-bench
U1=$USER_ID # 1000
U2=1001
dir=/run/mountd-load
# How much more mountd's idle RSS may be after the load than after the
# warm-up of the same shape (heap fragmentation; runs gave +76 to +108 KiB).
RSS_TOLERANCE_KIB=512

export MOUNTD_POLICY=$work/policy
cat >"$MOUNTD_POLICY" <<POLICY
allow user=$U1 method=Create fstype=tmpfs namespace=any
allow user=$U1 method=Unmount,Info,List,Watch namespace=any
allow user=$U2 method=Create fstype=tmpfs namespace=any
allow user=$U2 method=Unmount,Info,List,Watch namespace=any
POLICY
mkdir -m 1777 -p $dir
# A rate (daemon/request-ratelimit.c) the flood goes past and uid $U1's 864
# requests (warm-up and load) stay under, refilled fast enough (5 a
# second) for the flood's refused Unmounts, which load-bench asks again, to
# get through.
export MOUNTD_RATE_LIMIT_BURST=900 MOUNTD_RATE_LIMIT_INTERVAL_SEC=180
check "mountd starts" start_mountd
chmod 0666 $SOCK
ns=$(new_mntns)

# The same shape of load twice: a short warm-up, then the load itself.
# Groups are COUNT:UID:REQUESTS[:flood]; -w 1: one Watch stream per group.
load() {
	"$LOAD" -p "$ns" -d $dir -g "8:0:$1" -g "8:$U1:$1" -g "16:$U2:$2:flood" -w 1 \
		>"$work/$3.out"
}
# A number of the load's report: val GROUP KEY.
val() { sed -n "s/^group=$1 .* $2=\([0-9]*\).*/\1/p" "$work/load.out"; }
workers() { pgrep -P "$mountd" | wc -l; }
# Idle workers end after 10 s (EXEC_IDLE_USEC); 60 s bounds the wait.  Then
# 2 s more: mountd gives freed heap back 1 s after its last request.
wait_idle() {
	for _ in $(seq 600); do [ "$(workers)" = 0 ] && sleep 2 && return 0; sleep 0.1; done
	echo "workers still running: $(pgrep -a -P "$mountd")"
	return 1
}
rss() { awk '/^VmRSS:/ { print $2 }' /proc/$mountd/status; }
fds() { ls /proc/$mountd/fd | wc -l; }

cp /proc/1/mountinfo "$work/mountinfo-1.before"
cp /proc/$ns/mountinfo "$work/mountinfo-ns.before"

check "warm-up load ran" load 8 8 warmup
check "workers end when idle after the warm-up" wait_idle
rss0=$(rss) fds0=$(fds)
echo "# after warm-up, idle: mountd VmRSS ${rss0} KiB, ${fds0} fds"

check "load ran (32 clients, 3 uids, 3 Watch streams)" load 100 2000 load
sed 's/^/# /' "$work/load.out"
check_output "root: all 800 requests answered, no error" \
	'^group=0 uid=0 clients=8 flood=0 requests=800 ok=800 limit=0 other=0 transport=0 finished=8$' \
	cat "$work/load.out"
check_output "uid $U1: all 800 requests answered, no error" \
	"^group=1 uid=$U1 clients=8 flood=0 requests=800 ok=800 limit=0 other=0 transport=0 finished=8\$" \
	cat "$work/load.out"
# What a client may get beyond its answers: LimitExceeded, and only where
# the per-uid limits (8 running, 64 waiting, the rate; mountd(8)) can
# apply: to the flood's uid, which goes past its rate here.  (A varlink
# connection has one call running at a time, so 16 connections stay under
# the others.)
check_output "uid $U2 (flood): went past its rate, every error is LimitExceeded, all 16 clients ended" \
	"^group=2 uid=$U2 clients=16 flood=1 requests=[0-9]+ ok=[0-9]+ limit=[1-9][0-9]* other=0 transport=0 finished=16\$" \
	cat "$work/load.out"
check "uid $U2 (flood): answered + LimitExceeded = requests made" \
	test $(($(val 2 ok) + $(val 2 limit))) = "$(val 2 requests)"
check_fails "no client saw any other error" grep '^error' "$work/load.out"
check_output "the flood did not starve root or uid $U1: they finished while it still ran" \
	'^flood requests_when_others_done=[1-9][0-9]* still_running=yes$' cat "$work/load.out"
for g in 0 1 2; do
	check_output "Watch of group $g: ready, saw mounts added and removed, still streaming" \
		"^watch group=$g uid=[0-9]+ ready=1 added=[1-9][0-9]* removed=[1-9][0-9]* changed=[0-9]+ gone=0 other=0 transport=0 ended=0\$" \
		cat "$work/load.out"
done

check "workers end when idle after the load" wait_idle
rss1=$(rss) fds1=$(fds)
echo "# after the load, idle: mountd VmRSS ${rss1} KiB, ${fds1} fds"
check "mountd's RSS is flat: ${rss1} KiB after the load <= ${rss0} + $RSS_TOLERANCE_KIB KiB after warm-up" \
	test "$rss1" -le $((rss0 + RSS_TOLERANCE_KIB))
check "mountd's fd count is flat: $fds1 after the load = $fds0 after warm-up" test "$fds1" = "$fds0"
check "no mount left behind in pid 1's namespace" \
	diff -u "$work/mountinfo-1.before" /proc/1/mountinfo
check "no mount left behind in the target namespace" \
	diff -u "$work/mountinfo-ns.before" /proc/$ns/mountinfo

kill $ns
check "mountd exits cleanly" stop_mountd
rm -rf "$work" $dir
done_testing
