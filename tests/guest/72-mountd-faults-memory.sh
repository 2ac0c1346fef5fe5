#!/bin/bash
# Memory tight (issue 15): under MemoryMax= mountd reads no message larger
# than a 32nd of it (daemon/mountd.c), so a large request is answered with
# MessageTooLarge naming the limit instead of the kernel's OOM killer taking
# mountd, and every request in flight with it (what a 12 MB request under
# MemoryMax=8M did before).  mountd stays the same process, serves a second
# client, and mountinfo and its fds are as before.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/units-lib.sh"
. "$(dirname "$0")/faults-lib.sh"

faults_namespace
keep_workers
fresh_units
dropin "MemoryMax=8M" "MemorySwapMax=0"
check "MemoryMax=8M: mountd serves" bind_unmount
check_output "it says what it reads at most" "memory.max .*: messages up to 262144 bytes" \
	journalctl -b -u mountd.service -o cat _PID="$(main_pid)"
snapshot
pid=$(main_pid)

cat >"$work/big.py" <<'PY'
import json, socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("/run/mountd/io.mountd.Mount")
call = {"method": "io.mountd.Mount.Create",
        "parameters": {"fsType": "tmpfs",
                       "parameters": [{"key": "k%d" % i, "type": "string", "value": "x" * 1000}
                                      for i in range(12000)]}}
try:
    s.sendall(json.dumps(call).encode() + b"\0")
except (BrokenPipeError, ConnectionResetError):
    pass  # mountd stopped reading; its answer is in the socket
buf = b""
while not buf.endswith(b"\0"):
    d = s.recv(65536)
    if not d:
        break
    buf += d
print(buf.rstrip(b"\0").decode())
PY
check_output "a 12 MB request: MessageTooLarge with the limit" \
	'"error": ?"io.mountd.Mount.MessageTooLarge".*"limit": ?262144' python3 "$work/big.py"
check_output "mountd is the same process" "^$pid$" main_pid
check_fails "no OOM kill" bash -c "journalctl -b -u mountd.service -o cat | grep -q oom-kill"
as_before "MemoryMax=8M"

# A slice's limit binds the services in it as much as their own: mountd in
# a slice with MemoryMax=8M, and no limit of its own, reads the same at most.
printf '[Slice]\nMemoryMax=8M\nMemorySwapMax=0\n' >/run/systemd/system/mountdtest.slice
fresh_units
dropin "Slice=mountdtest.slice"
check "in a slice with MemoryMax=8M: mountd serves" bind_unmount
check_output "  ... its own cgroup has no limit" "^max$" \
	cat /sys/fs/cgroup/mountdtest.slice/mountd.service/memory.max
check_output "  ... it takes the slice's" "memory.max /mountdtest.slice: messages up to 262144 bytes" \
	journalctl -b -u mountd.service -o cat _PID="$(main_pid)"
check_output "  ... a 12 MB request: MessageTooLarge with the limit" \
	'"error": ?"io.mountd.Mount.MessageTooLarge".*"limit": ?262144' python3 "$work/big.py"
check_fails "  ... no OOM kill" bash -c "journalctl -b -u mountd.service -o cat | grep -q oom-kill"

kill $ns
no_keep_workers
fresh_units
rm -f /run/systemd/system/mountdtest.slice
systemctl daemon-reload
rm -rf "$work"
done_testing
