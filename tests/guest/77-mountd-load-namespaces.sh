#!/bin/bash
# One user with 500 mount namespaces of its own (issue 31): it asks mountd
# about every one over pipelined calls that carry the namespace's fd, on a
# connection straight (answered in turn, a worker per namespace), then on
# another behind a Watch stream, where they stay queued.  Meanwhile root and a second
# user are served with no error, and afterwards mountd holds what it held
# before: its workers end, its fds are as many, nothing stays mounted.
# Judged by what the clients got and by /proc, never by time.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

N=${MOUNTD_NS_LOAD:-500}
U2=1001
getent passwd $U2 >/dev/null ||
	echo "mountdtest2:x:$U2:$U2::/nonexistent:/usr/sbin/nologin" >>/etc/passwd

# Idle workers go after 1 s, so that "as before" comes soon.
export MOUNTD_WORKER_IDLE_SEC=1
export MOUNTD_POLICY=$work/policy
cat >"$MOUNTD_POLICY" <<POLICY
allow user=$USER_ID method=Info,Watch namespace=owned
allow user=$U2 method=Create fstype=tmpfs namespace=own
allow user=$U2 method=Unmount namespace=own
POLICY
check "mountd starts" start_mountd
chmod 0666 $SOCK
ns=$(new_mntns)
mkdir -p /tmp/u2 && chown $U2:$U2 /tmp/u2

workers() { pgrep -P "$mountd" | wc -l; }
fds() { ls /proc/$mountd/fd | wc -l; }
wait_idle() {
	for _ in $(seq 600); do [ "$(workers)" = 0 ] && return 0; sleep 0.1; done
	echo "workers still running: $(pgrep -a -P "$mountd" | wc -l)"
	return 1
}
# What mountd opens once, on its first request (the journal's socket),
# before counting.
$V io.mountd.Mount.Info '{"path":"/","attribute":"statfs"}' >/dev/null
check "no worker before" wait_idle
fds0=$(fds)
cp /proc/$ns/mountinfo "$work/mountinfo-ns.before"

# The user's load, held open (its stdin) until the others are done.
# (Where the user may write: $work is root's alone.)
mkfifo "$work/hold"
ready=$(mktemp -d /tmp/ns-load.XXXXXX) && chmod 0777 "$ready"
as_user python3 "$TOP/tests/guest/ns-load.py" $SOCK $N "$ready/ready" <"$work/hold" \
	>"$work/load.out" 2>&1 &
loader=$!
exec {hold}>"$work/hold"
# Ready, or the loader is gone (its output says why).
loaded() { test -e "$ready/ready" || ! kill -0 $loader 2>/dev/null; }
wait_for 450 loaded
check "the user's $N namespaces were asked about" test -e "$ready/ready"
sed 's/^\([^#]\)/# \1/' "$work/load.out"
check_output "  every call answered in turn, none failed but with LimitExceeded" \
	"^answered [0-9]+ [0-9]+$" grep '^answered' "$work/load.out"
check "  and those add up to $N" \
	test "$(awk '/^answered/ {print $2 + $3}' "$work/load.out")" = $N
check_fails "  no other error" grep -q '^error' "$work/load.out"
check "  mountd's workers stayed under the user's limit (16)" test "$(workers)" -le 16
# The calls behind the stream carry $N fds; mountd reads a user's queued
# calls up to 256 fds (varlink-connection.c), the rest wait in the socket, the user's.
# Besides: its connections and two fds per worker.
check "  mountd holds no more than 256 of the queued calls' fds: $(fds) now, $fds0 before" \
	test "$(fds)" -le $((fds0 + 256 + 2 * 16 + 4))

# Root and the second user, while the first holds its stream and queue.
root_round() {
	local i
	for i in $(seq 20); do
		$V io.mountd.Mount.Create "{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/r$i\",\"create\":\"directory\"}}" >/dev/null &&
			$V io.mountd.Mount.Info "{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/r$i\",\"attribute\":\"statfs\"}" >/dev/null &&
			$V io.mountd.Mount.Unmount "{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/r$i\"}" >/dev/null ||
			{ echo "round $i failed"; return 1; }
	done
}
u2_round() {
	local i
	for i in $(seq 20); do
		mkdir -p /tmp/u2/m$i && chown $U2:$U2 /tmp/u2/m$i
		setpriv --reuid=$U2 --regid=$U2 --clear-groups varlinkctl call $SOCK io.mountd.Mount.Create \
			"{\"fsType\":\"tmpfs\",\"placement\":{\"path\":\"/tmp/u2/m$i\"}}" >/dev/null &&
			setpriv --reuid=$U2 --regid=$U2 --clear-groups varlinkctl call $SOCK io.mountd.Mount.Unmount \
				"{\"path\":\"/tmp/u2/m$i\"}" >/dev/null ||
			{ echo "round $i failed"; return 1; }
	done
}
check "root is served meanwhile: 20 rounds of Create, Info, Unmount, no error" root_round
check "so is the second user: 20 rounds of Create, Unmount in its own namespace" u2_round

exec {hold}>&-
check "the user's load ends when told" wait $loader
check "workers end when idle" wait_idle
same_fds() { [ "$(fds)" = $fds0 ]; }
wait_for 30 same_fds
check "mountd holds as many fds as before: $(fds) now, $fds0 before" same_fds
# (Not the whole table: logind may add /run/user/0 meanwhile.)
check_fails "no mount left in pid 1's namespace under /tmp/u2" grep ' /tmp/u2/' /proc/1/mountinfo
check "no mount left in root's namespace" diff "$work/mountinfo-ns.before" /proc/$ns/mountinfo
check "mountd exits cleanly" stop_mountd
kill $ns 2>/dev/null
rm -rf /tmp/u2 "$ready" "$work"
done_testing
