#!/bin/bash
# mountd's executor: a change into a namespace mountd has served before runs
# in the worker that already sits there — no fork, no clone, no setns per
# request — and a worker ends with the process that named its namespace.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

check "mountd starts" start_mountd
ns=$(new_mntns)

# N Create+Unmount pairs into $ns over one connection; prints the count of
# pairs that succeeded.
pairs() {
	python3 - "$SOCK" "$1" "$2" <<'EOF'
import json, socket, sys
sock, ns, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sock)
buf = b""
def call(method, params):
    global buf
    s.sendall(json.dumps({"method": "io.mountd.Mount." + method, "parameters": params}).encode() + b"\0")
    while b"\0" not in buf:
        buf += s.recv(65536)
    msg, buf = buf.split(b"\0", 1)
    return json.loads(msg)
good = 0
target = {"namespace": {"pid": ns}, "path": "/mnt/executor", "create": "directory"}
for i in range(n):
    a = call("Create", {"fsType": "tmpfs", "placement": target})
    b = call("Unmount", {"namespace": {"pid": ns}, "path": "/mnt/executor"})
    good += "error" not in a and "error" not in b
print(good)
EOF
}

check_output "a first pair forks the worker for that namespace" "^1$" pairs "$ns" 1
workers() { pgrep -P "$mountd" | sort; }
workers >"$work/before"
check_output "  one worker serves it" "^1$" bash -c "wc -l <$work/before"

# strace every process of mountd (the main one and its workers, -f for any
# new one) while 100 more pairs go into the same namespace.
strace -f -qq -o "$work/strace" -e trace=clone,clone3,fork,vfork,setns,unshare \
	-p "$mountd" $(sed 's/^/-p /' "$work/before") &
st=$!
sleep 2
check_output "100 Create+Unmount pairs into the namespace all succeed" "^100$" pairs "$ns" 100
sleep 0.5
kill -INT $st
wait $st 2>/dev/null
check_output "  strace saw them (it was attached)" "." bash -c "pgrep -P $mountd; cat $work/strace; echo attached"
check_output "  no clone, fork or vfork in mountd or its workers" "^0$" \
	bash -c "grep -cE '(clone|clone3|fork|vfork)\\(' $work/strace || true"
check_output "  no setns either: the worker joined the namespace once" "^0$" \
	bash -c "grep -c 'setns(' $work/strace || true"
workers >"$work/after"
check "  and the same worker served them all" cmp "$work/before" "$work/after"
check_output "  no mount left behind" "^0$" \
	bash -c "nsenter -t $ns -m findmnt -n /mnt/executor | wc -l"

# The worker must not keep the namespace alive after its process is gone.
kill "$ns"
for _ in $(seq 50); do [ -z "$(workers)" ] && break; sleep 0.1; done
check_output "the worker ends with the process that named its namespace" "^0$" \
	bash -c "pgrep -P $mountd | wc -l"

check "mountd stops cleanly" stop_mountd
done_testing
