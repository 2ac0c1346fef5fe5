#!/bin/bash
# Each user's call rate (daemon/request-ratelimit.c), by what it leaves behind: a
# user who floods mountd gets LimitExceeded past its burst while root and
# another user are served in full; every call the flooder made is in the
# journal, one record each or counted into a record, with few records for
# many refusals; a change it asks for while refused changes nothing, and a
# change another user makes meanwhile is recorded.  (mountd.service and
# journald's own limit: tests/guest/56-units-journal-rate.sh.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

U=$USER_ID # 1000
U2=1001
BURST=40
# No refill within the test (one call per 2160 s): what passes is the
# burst, exactly, whatever the guest's speed.
INTERVAL=86400
FLOOD_CONNECTIONS=4
FLOOD_CALLS=150 # per connection
LIMIT_ERROR=io.mountd.Mount.LimitExceeded

export MOUNTD_POLICY=$work/policy
cat >"$MOUNTD_POLICY" <<POLICY
allow user=$U method=Info,List namespace=own
allow user=$U method=Create,Unmount fstype=tmpfs namespace=any
allow user=$U2 method=Create,Unmount fstype=tmpfs namespace=any
allow user=$U2 method=Info namespace=own
POLICY
export MOUNTD_RATE_LIMIT_BURST=$BURST MOUNTD_RATE_LIMIT_INTERVAL_SEC=$INTERVAL
check "mountd starts with a burst of $BURST calls per $INTERVAL s" start_mountd
chmod 0666 $SOCK
ns=$(new_mntns)
mkdir -p /tmp/rl-user /tmp/rl-other
chmod 0777 /tmp/rl-user /tmp/rl-other

# rate-flood.py as uid $1 (read from stdin: the checkout may be closed to
# the user); prints ok=A limit=B other=C seconds=S.
flood_as() {
	local uid=$1
	shift
	setpriv --reuid=$uid --regid=$uid --clear-groups \
		python3 - "$@" <"$TOP/tests/guest/rate-flood.py"
}
# A number from a flood's report: num FILE KEY
num() { sed -n "s/.*\b$2=\([0-9]*\).*/\1/p" "$1"; }
# Mounts at exactly PATH in the mount namespace of PID.
count_mounts() { awk -v p="$2" '$5 == p { n++ } END { print n + 0 }' /proc/"$1"/mountinfo; }
create_json() {
	printf '{"fsType":"tmpfs","placement":{"namespace":{"pid":%s},"path":"%s"}}' "$1" "$2"
}

cp /proc/1/mountinfo "$work/mountinfo-1.before"

# The flood, with root and the other user calling at the same time.
flood_as $U --connections $FLOOD_CONNECTIONS --calls $FLOOD_CALLS Info '{"path":"/"}' \
	>"$work/flood" 2>&1 &
f1=$!
flood_as 0 --connections 2 --calls 100 Info '{"path":"/"}' >"$work/root" 2>&1 &
f2=$!
flood_as $U2 --connections 1 --calls 30 Info '{"path":"/"}' >"$work/other" 2>&1 &
f3=$!
check "the flood ran" wait $f1
check "root's calls ran" wait $f2
check "the other user's calls ran" wait $f3
sed 's/^/# flood:  /' "$work/flood"
sed 's/^/# root:   /' "$work/root"
sed "s/^/# uid $U2: /" "$work/other"

total=$((FLOOD_CONNECTIONS * FLOOD_CALLS))
ok=$(num "$work/flood" ok) limited=$(num "$work/flood" limit)
check_output "the flood: exactly the burst ($BURST) answered, the other $((total - BURST)) LimitExceeded, no other error" \
	"^ok=$BURST limit=$((total - BURST)) other=0 " cat "$work/flood"
check_output "root meanwhile: all 200 answered" '^ok=200 limit=0 other=0 ' cat "$work/root"
check_output "uid $U2 meanwhile: all 30 answered (its own burst)" '^ok=30 limit=0 other=0 ' \
	cat "$work/other"

# Still refused: a change, proved by the mount tables.
cp /proc/$ns/mountinfo "$work/mountinfo-ns.before"
check_output "uid $U's Create while over its rate: LimitExceeded" "$LIMIT_ERROR" \
	vdenied Create "$(create_json $ns /tmp/rl-user)"
check "... and nothing was mounted in the target namespace" \
	diff -u "$work/mountinfo-ns.before" /proc/$ns/mountinfo
check "... nor in pid 1's" diff -u "$work/mountinfo-1.before" /proc/1/mountinfo
limited=$((limited + 1))

# The D-Bus front end counts against the same rate.
bus_list() { as_user busctl --system call io.mountd1 /io/mountd1 io.mountd1.Manager List 'a{sv}' 0 2>&1 || true; }
check_output "uid $U over D-Bus while over its rate: refused, the user's limit" \
	'made too many lately' bus_list
limited=$((limited + 1))

# Meanwhile another user's change goes through, and is recorded.
check_output "uid $U2's Create meanwhile: made" '"mountId"' \
	setpriv --reuid=$U2 --regid=$U2 --clear-groups \
	varlinkctl call --json=short $SOCK io.mountd.Mount.Create "$(create_json $ns /tmp/rl-other)"
check_output "... in the target namespace" '^1$' count_mounts $ns /tmp/rl-other
check_output "root unmounts it (root has no rate)" '\{' \
	varlinkctl call --json=short $SOCK io.mountd.Mount.Unmount \
	"{\"namespace\":{\"pid\":$ns},\"path\":\"/tmp/rl-other\"}"

# The journal.  The count of the last refusals is sent when their report
# period (1 s) ends: wait for the sums to add up, 10 s at most.
refused_in_journal() {
	records MOUNTD_CALLER_UID=$U MOUNTD_RESULT=$LIMIT_ERROR | python3 -c 'import json,sys
rs = [json.loads(l) for l in sys.stdin]
print(sum(int(r.get("MOUNTD_REFUSED_CALLS", "1")) for r in rs), len(rs))'
}
for _ in $(seq 50); do
	[ "$(refused_in_journal | cut -d' ' -f1)" = "$limited" ] && break
	sleep 0.2
done
read -r refused n_refusal_records < <(refused_in_journal)
echo "# journal: $refused refusals of uid $U in $n_refusal_records records"
check_output "every answered call of uid $U has its own record ($ok)" "^$ok\$" \
	bash -c "records MOUNTD_CALLER_UID=$U MOUNTD_RESULT=ok | wc -l"
check "every refusal of uid $U is in the journal: $refused = $limited" \
	test "$refused" = "$limited"
check "... in few records: $n_refusal_records for $limited refusals (at most one in 10)" \
	test $((n_refusal_records * 10)) -le "$limited"
check_output "a refusal's record says which limit" "^rate limit: $BURST calls per $INTERVAL s\$" \
	bash -c "records MOUNTD_CALLER_UID=$U MOUNTD_RESULT=$LIMIT_ERROR | fields MOUNTD_POLICY | sort -u"
check_output "root's 200 calls and its Unmount are recorded one by one" '^201$' \
	bash -c "records MOUNTD_CALLER_UID=0 MOUNTD_RESULT=ok | wc -l"
check_output "uid $U2's Create is recorded, with its path" '^Create /tmp/rl-other ok$' \
	bash -c "records MOUNTD_CALLER_UID=$U2 MOUNTD_METHOD=Create | fields MOUNTD_METHOD MOUNTD_PATH MOUNTD_RESULT"

kill $ns
check "mountd exits cleanly" stop_mountd
check "no mount left behind in pid 1's namespace" \
	diff -u "$work/mountinfo-1.before" /proc/1/mountinfo
rm -rf "$work" /tmp/rl-user /tmp/rl-other
done_testing
