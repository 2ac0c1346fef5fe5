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

# --- issue 48 class 9: counted until reaped ---------------------------------
# A user's own FUSE server in its rootless container reads every lookup and
# never answers it: the helpers that resolve an overlay's lowerdir there as
# the user wait (in D state, but the one whose lookup the server holds) for
# as long as the server wants, their workers killed at the deadline.  Wave after wave the user asks again, each request given up at its
# deadline (5 s here).  Every task mountd starts for the user counts until
# the kernel has let it die and mountd has reaped it: the unit's tasks (the
# cgroup's count, which a task reparented anywhere still adds to) stay
# within the user's limit (16 workers, each with at most one helper) over
# several deadlines, the user's requests past it are answered with a clear
# error, root is served meanwhile, and when the server goes every task is
# reaped.
RUSER=1000
getent passwd $RUSER >/dev/null ||
	echo "mountdtest:x:$RUSER:$RUSER::/nonexistent:/usr/sbin/nologin" >>/etc/passwd
as_ruser() { setpriv --reuid=$RUSER --regid=$RUSER --clear-groups "$@"; }
fresh_units
echo "allow user=$RUSER method=* namespace=owned" >/run/mountd-reap-policy
dropin "Environment=MOUNTD_POLICY=/run/mountd-reap-policy" "Environment=MOUNTD_REQUEST_TIMEOUT_SEC=5"
check "reap: mountd serves before" bind_unmount
rm -rf /tmp/reap && mkdir -p /tmp/reap/fz /tmp/reap/o && chown -R $RUSER:$RUSER /tmp/reap
# The server is the container's process itself (root of its own user and
# mount namespace): its pid names the namespace.
coproc FUSE {
	setpriv --reuid=$RUSER --regid=$RUSER --clear-groups unshare -Ur --mount \
		--propagation private python3 - /tmp/reap/fz <"$TOP/tests/guest/fuse-hold.py" 2>&1
}
fuse_job=$FUSE_PID
ctr=
read -r -t 60 line ctr <&"${FUSE[0]}"
ctr=${ctr:-0}
check_output "reap: the user's FUSE server is mounted in its own rootless container" \
	'^mounted [0-9]+ user:' echo "$line $ctr $(readlink /proc/$ctr/ns/user)"
check "  whose user namespace is not the host's" \
	test "$(readlink /proc/$ctr/ns/user)" != "$(readlink /proc/self/ns/user)"
cat >"$work/waves.py" <<'PY'
import json, socket, sys
n, ctr = int(sys.argv[1]), int(sys.argv[2])
call = {"method": "io.mountd.Mount.Create", "parameters": {
    "fsType": "overlay", "source": "reap",
    "parameters": [{"key": "lowerdir", "type": "string", "value": "/tmp/reap/fz/low"}],
    "placement": {"namespace": {"pid": ctr}, "path": "/tmp/reap/o"}}}
conns = []
for i in range(n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("/run/mountd/io.mountd.Mount")
    s.sendall(json.dumps(call).encode() + b"\0")
    conns.append(s)
for s in conns:
    buf = b""
    while not buf.endswith(b"\0"):
        d = s.recv(65536)
        if not d:
            break
        buf += d
    r = json.loads(buf.rstrip(b"\0") or b"{}")
    p = r.get("parameters", {})
    print(r.get("error", "ok"), p.get("errnoName", ""), flush=True)
PY
cg=/sys/fs/cgroup$(systemctl show -P ControlGroup mountd.service)
export cg RUSER
# The kernel's count of the unit's tasks, zombies included.
unit_tasks() { cat "$cg/pids.current" 2>/dev/null || wc -l <"$cg/cgroup.procs"; }
# Of the unit's processes, those in state $1 (D), or run by uid $2.
unit_procs() {
	local p n=0
	for p in $(cat "$cg/cgroup.procs"); do
		if [ -n "${2:-}" ]; then
			[ "$(awk '/^Uid:/ { print $2 }' /proc/"$p"/status 2>/dev/null)" = "$2" ] && n=$((n + 1))
		else
			grep -q "^State:.*$1" /proc/"$p"/status 2>/dev/null && n=$((n + 1))
		fi
	done
	echo $n
}
export -f unit_tasks unit_procs
wave() { as_ruser python3 - 10 $ctr <"$work/waves.py" >"$work/wave.$1" 2>&1; }
# mountd itself and root's worker(s) so far, and the user's 16 workers
# with a helper each.
base=$(unit_tasks)
limit=$((base + 2 * 16))
max=0
for i in 1 2 3 4 5 6; do
	wave $i
	n=$(unit_tasks)
	echo "# reap: after wave $i (its deadline past): $n tasks, $(unit_procs - $RUSER) of them the user's helpers, $(unit_procs D) in D state"
	[ "$n" -gt "$max" ] && max=$n
	if [ $i = 1 ]; then
		# The first lookup waits for the server's answer, any other for
		# the first (the same name): in D state.  One caller's changes
		# run one at a time (executor-serial.c), so a wave holds few.
		check "reap: the user's helpers are held past their deadline, in D state but one" \
			bash -c 'h=$(unit_procs - $RUSER); [ "$h" -ge 1 ] && [ "$(unit_procs D)" -ge $((h - 1)) ]'
	fi
	if [ $i = 3 ]; then
		check "reap: root is served while the user is at its limit" bind_unmount
	fi
done
check "reap: the unit's tasks stayed within the user's limit over 6 deadlines ($max <= $limit)" \
	test "$max" -le "$limit"
sort "$work/wave.6" | uniq -c | sed 's/^/# reap: wave 6: /'
check_output "reap: past it the user's requests are answered with a clear error" \
	'^io\.mountd\.Mount\.[A-Za-z]+ ETIMEDOUT$|^io\.mountd\.Mount\.LimitExceeded' cat "$work/wave.6"
check_fails "  none of them was done" grep -q '^ok' "$work/wave.6"
check "reap: root is still served" bind_unmount
kill -KILL "$ctr"
wait "$fuse_job" 2>/dev/null
# Once the server is gone the held lookups fail, and each task is reaped:
# mountd and root's worker(s) are left.
check "reap: with the server gone, every task of the user's is reaped" \
	wait_for 30 bash -c "[ \"\$(unit_procs - $RUSER)\" = 0 ] && [ \"\$(unit_tasks)\" -le $base ]"
zombies() {
	local c
	for c in $(cat /proc/"$(main_pid)"/task/*/children); do
		grep -q '^State:.*Z' /proc/"$c"/status 2>/dev/null && echo "$c"
	done
	true
}
export -f zombies
check "  and mountd has no zombie child" bash -c '[ -z "$(zombies)" ]'
check "reap: mountd serves after" bind_unmount
rm -f /run/mountd-reap-policy "$DROPIN"
rm -rf /tmp/reap
systemctl daemon-reload

kill $ns
no_keep_workers
fresh_units
rm -rf "$work"
done_testing
