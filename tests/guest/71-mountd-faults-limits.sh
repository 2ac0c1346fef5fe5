#!/bin/bash
# Faults that are not mountd's death (issue 15): the client leaves before
# its answer, the target namespace's last process dies mid-request, mountd
# runs out of fds (LimitNOFILE=), /run is full.  Each ends in a clear
# answer, mountd keeps serving a second client, and afterwards mountinfo
# (pid 1's, the namespaces') and mountd's and its workers' fds are as
# before.  MOUNTD_TEST_STOP_AT (daemon/test-hook.h) holds a request in its
# worker while the fault is made.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/units-lib.sh"
. "$(dirname "$0")/faults-lib.sh"

faults_namespace
nsenter -t $ns -m mkdir -p /mnt/plain
keep_workers

# --- the client leaves before the answer -----------------------------------
# Decided: a change whose client went away is finished, not undone (half a
# change is worse than one nobody hears about), and audited like any other.
fresh_units
dropin "Environment=MOUNTD_TEST_STOP_AT=fsmount"
check "client gone: mountd serves before" bind_unmount
snapshot
$V io.mountd.Mount.Create '{"fsType":"tmpfs","placement":{"namespace":{"pid":'$ns'},"path":"/mnt/orphan","create":"directory"}}' \
	>"$work/orphan.out" 2>&1 &
client=$!
worker=
check "client gone: the worker stops at fsmount" wait_for 30 stopped_in_mountd
worker=$(stopped_in_mountd)
kill -KILL $client
wait $client 2>/dev/null
kill -CONT "$worker"
check "client gone: the mount is finished all the same" \
	wait_for 10 bash -c "awk '\$5 == \"/mnt/orphan\"' /proc/$ns/mountinfo | grep -q ."
journalctl --sync
check_output "client gone: and audited" "^Create tmpfs on /mnt/orphan in namespace .* by uid 0 .*: done$" \
	journalctl -b -u mountd.service -o cat MOUNTD_PATH=/mnt/orphan MOUNTD_RESULT=ok
check "client gone: unmount it" \
	$V io.mountd.Mount.Unmount '{"namespace":{"pid":'$ns'},"path":"/mnt/orphan"}'
nsenter -t $ns -m rmdir /mnt/orphan
as_before "client gone"

# --- the target namespace's last process dies mid-request ------------------
# The worker holds the namespace until it answers.  The mount was made, and
# lasts as long as anything holds the namespace (an fd of it, here the
# test's): the answer says it was made, never that it failed.  No worker and
# no fd of mountd may keep the dead namespace.
unshare -m --propagation private sleep infinity &
dying=$!
wait_for 5 test "$(readlink /proc/$dying/ns/mnt)" != "$(readlink /proc/self/ns/mnt)"
dead_ns=$(readlink /proc/$dying/ns/mnt)
exec {held_ns}</proc/$dying/ns/mnt
$V io.mountd.Mount.Create '{"fsType":"tmpfs","placement":{"namespace":{"pid":'$dying'},"path":"/mnt/dying","create":"directory"}}' \
	>"$work/dying.out" 2>&1 &
client=$!
check "namespace dies: the worker stops at fsmount" wait_for 30 stopped_in_mountd
worker=$(stopped_in_mountd)
kill -KILL $dying
wait $dying 2>/dev/null
kill -CONT "$worker"
check "namespace dies: the client gets its answer" wait_for 30 bash -c "! kill -0 $client"
check_output "namespace dies: the answer is the mount made, not a failure" \
	'"mountId"' tr -d '\n' <"$work/dying.out"
check_output "  and the mount is there in the namespace still held" '^tmpfs$' \
	nsenter --mount=/proc/self/fd/$held_ns findmnt -n -o FSTYPE /mnt/dying
check "  mountd says in the journal that the namespace had no process left" \
	wait_for 10 bash -c "journalctl -u mountd.service -o cat --since -5min | grep -q 'last process exited'"
check_output "namespace dies: its steps are the worker's, up to the mount placed" \
	'"steps": \[.*"step": "fsmount".*"step": "move_mount"' tr -d '\n' <"$work/dying.out"
echo "# namespace dies: the answer: $(head -c 400 "$work/dying.out")"
no_dead_ns() {
	local cg p
	cg=$(systemctl show -P ControlGroup mountd.service)
	for p in $(cat /sys/fs/cgroup"$cg"/cgroup.procs); do
		[ "$(readlink /proc/"$p"/ns/mnt)" != "$dead_ns" ] || return 1
		! ls -l /proc/"$p"/fd | grep -qF "$dead_ns" || return 1
	done
}
exec {held_ns}<&-
check "namespace dies: no process of mountd keeps it" wait_for 10 no_dead_ns
as_before "namespace dies"
rm -f "$DROPIN"
systemctl daemon-reload

# --- out of fds --------------------------------------------------------------
# A request that needs an fd gets an error naming EMFILE; connections
# beyond the limit wait in the backlog (accepting pauses instead of
# spinning) and are served once fds free up.
fresh_units
dropin "LimitNOFILE=48"
check "fd limit: mountd serves before" bind_unmount
snapshot
cat >"$work/hold.py" <<'PY'
import json, socket, sys, time
conns = []
for i in range(80):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("/run/mountd/io.mountd.Mount")
    conns.append(s)
time.sleep(3)  # mountd accepts what it can
call = {"method": "io.mountd.Mount.Bind",
        "parameters": {"sourcePath": sys.argv[1],
                       "placement": {"namespace": {"pid": int(sys.argv[2])},
                                     "path": "/mnt/warm"}}}
conns[0].sendall(json.dumps(call).encode() + b"\0")
buf = b""
while not buf.endswith(b"\0"):
    d = conns[0].recv(65536)
    if not d:
        break
    buf += d
print(buf.rstrip(b"\0").decode(), flush=True)
sys.stdin.readline()  # hold them until told
PY
coproc HOLD { python3 "$work/hold.py" "$work/src" $ns 2>&1; }
read -r -t 60 reply <&"${HOLD[0]}"
echo "$reply" >"$work/emfile.out"
echo "# fd limit: the answer: $(head -c 400 "$work/emfile.out")"
check_output "fd limit: the request gets an error naming EMFILE" '"error".*EMFILE' cat "$work/emfile.out"
check "fd limit: mountd is still running" systemctl is-active -q mountd.service
echo >&"${HOLD[1]}"
wait $HOLD_PID 2>/dev/null
journalctl --sync
# A pause per time the fds ran out (once, or a few times when one frees up
# while the connections are held), not one per readable wakeup: spinning
# would log hundreds.
check_output "fd limit: accepting paused, not spinning (1-19 pauses)" "^(1[0-9]?|[2-9])$" \
	bash -c "journalctl -b -u mountd.service -o cat _PID=$(main_pid) | grep -c 'accept failed: Too many open files'"
as_before "fd limit"
check_output "fd limit: accepting resumed" "accepting again" \
	journalctl -b -u mountd.service -o cat _PID="$(main_pid)"

# --- /run full -----------------------------------------------------------------
# mountd writes one thing there per request: the record of a mount point it
# is about to make (daemon/ops-leftovers.c).  Without room for it, it makes none:
# MountFailed at step record:target, ENOSPC; a placement that needs no mount
# point still works (also when it asks for one to be created, and one is
# there), and so does everything once there is room again.
fresh_units
check "/run full: mountd serves before" bind_unmount
snapshot
fallocate -l "$(($(stat -f -c '%a * %S' /run)))" /run/faults-filler 2>/dev/null
dd if=/dev/zero of=/run/faults-filler2 bs=4k 2>/dev/null
check_output "/run full: creating a mount point fails at the record, ENOSPC" \
	'"step": "record:target".*"errnoName": "ENOSPC"|"errnoName": "ENOSPC".*"step": "record:target"' \
	bash -c "$V io.mountd.Mount.Create '{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/full\",\"create\":\"directory\"}}'; true"
check_fails "/run full: and made none" nsenter -t $ns -m test -e /mnt/full
check "/run full: a placement on an existing directory still works" \
	$V io.mountd.Mount.Create '{"fsType":"tmpfs","placement":{"namespace":{"pid":'$ns'},"path":"/mnt/plain"}}'
check "/run full: unmount it" \
	$V io.mountd.Mount.Unmount '{"namespace":{"pid":'$ns'},"path":"/mnt/plain"}'
check "/run full: create on a directory already there works too: nothing to make, no record" \
	$V io.mountd.Mount.Create '{"fsType":"tmpfs","placement":{"namespace":{"pid":'$ns'},"path":"/mnt/plain","create":"directory"}}'
check "/run full: unmount it" \
	$V io.mountd.Mount.Unmount '{"namespace":{"pid":'$ns'},"path":"/mnt/plain"}'
rm -f /run/faults-filler /run/faults-filler2
check "/run full: with room again, the mount point is made" \
	$V io.mountd.Mount.Create '{"fsType":"tmpfs","placement":{"namespace":{"pid":'$ns'},"path":"/mnt/full","create":"directory"}}'
check "/run full: unmount it" \
	$V io.mountd.Mount.Unmount '{"namespace":{"pid":'$ns'},"path":"/mnt/full"}'
nsenter -t $ns -m rmdir /mnt/full
as_before "/run full"

kill $ns
no_keep_workers
fresh_units
rm -rf "$work"
done_testing
