#!/bin/bash
# `systemctl restart mountd` under load: on SIGTERM mountd stops accepting,
# answers every request it already read and exits; connections waiting on
# the socket are served by the next instance.  A client sends a stream of
# Create calls, each with its own mount point, over one connection at a
# time; a connection closed before the answer means "not read", so the
# client sends that request again on a new one.  Afterwards every mount
# point must carry exactly one mount: none lost, none made twice.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/units-lib.sh"

fresh_units
N=400
dir=/run/units-restart
mkdir -p $dir

cat >"$work/client.py" <<'PY'
import json, socket, sys, time

sock_path, base, n, method = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
done = retries = errors = 0
conn = None
buf = b""

def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock_path)
    return s

i = 0
while i < n:
    if conn is None:
        try:
            conn = connect()
        except OSError:
            time.sleep(0.05)  # only if the socket itself were gone
            continue
        buf = b""
    if method == "Create":
        params = {"fsType": "tmpfs",
                  "placement": {"path": f"{base}/{i}", "create": "directory"}}
    else:
        params = {"path": f"{base}/{i}"}
    req = {"method": "io.mountd.Mount." + method, "parameters": params}
    try:
        conn.sendall(json.dumps(req).encode() + b"\0")
        while b"\0" not in buf:
            data = conn.recv(65536)
            if not data:
                raise EOFError
            buf += data
    except (OSError, EOFError):
        # Closed before an answer: the request was not read; resend.
        conn.close()
        conn = None
        retries += 1
        continue
    msg, _, buf = buf.partition(b"\0")
    if method == "Create":
        time.sleep(0.02)  # a steady stream, so the restarts fall inside it
    reply = json.loads(msg)
    if "error" in reply:
        errors += 1
        print("error for", i, reply, file=sys.stderr)
    else:
        done += 1
    i += 1
print(json.dumps({"done": done, "retries": retries, "errors": errors}))
PY

python3 "$work/client.py" $SOCK $dir $N Create >"$work/result" 2>"$work/client.err" &
client=$!
pids=()
# Three restarts while the client runs.
for _ in 1 2 3; do
	# Somewhere 10 to 40 requests further on.
	target=$(($(ls $dir | wc -l) + 10 + RANDOM % 30))
	wait_for 30 bash -c "[ \$(ls $dir | wc -l) -ge $target ]"
	pids+=("$(main_pid)")
	systemctl restart mountd.service
	sleep 0.5
done
wait $client
cat "$work/client.err" | sed 's/^/# /'
sed 's/^/# client: /' "$work/result"

check_output "the client got an answer for every request, no errors" \
	"\"done\": $N, \"retries\": [0-9]+, \"errors\": 0" cat "$work/result"
check "there were three different instances during the run" \
	test "$(printf '%s\n' "${pids[@]}" | sort -u | grep -vc '^0$')" = 3
check "the restarts cut connections (the client had to resend)" \
	python3 -c "import json,sys; sys.exit(0 if json.load(open('$work/result'))['retries'] > 0 else 1)"
bad=$(awk -v d="$dir/" -v n=$N '
	index($5, d) == 1 { c[substr($5, length(d) + 1)]++ }
	END { for (i = 0; i < n; i++) if (c[i] != 1) printf "%d:%d ", i, c[i] }' /proc/self/mountinfo)
check "every mount point has exactly one mount (none lost, none twice)" test -z "$bad"
[ -n "$bad" ] && echo "# wrong counts (index:mounts): $(echo $bad | head -c 400)"
check_output "no other mounts appeared below $dir" "^$N$" bash -c "awk '\$5 ~ \"^$dir/\"' /proc/self/mountinfo | wc -l"
check "the restarted mountd is active" systemctl is-active mountd.service

# Unmount them all through mountd, then nothing may be left.
check_output "every unmount succeeded" "\"done\": $N, \"retries\": 0, \"errors\": 0" \
	python3 "$work/client.py" $SOCK $dir $N Unmount
check_output "no mount is left below $dir" "^0$" bash -c "awk '\$5 ~ \"^$dir/\"' /proc/self/mountinfo | wc -l"
check_output "no mountd process other than the service's" "^1$" bash -c "pgrep -xc mountd"
rm -rf $dir

# Run by hand beside the socket unit, mountd leaves systemd's socket alone.
fresh_units
check "mountd.socket listens" systemctl is-active -q mountd.socket
ino=$(stat -c %i $SOCK)
check_output "mountd --help prints its usage and starts nothing" '^Usage: mountd' \
	/usr/libexec/mountd --help
check_output "mountd --version" '^mountd [0-9]' /usr/libexec/mountd --version
check_output "an unknown argument is a usage error" "exit 2" \
	bash -c '/usr/libexec/mountd --bogus 2>&1; echo "exit $?"'
check_output "started by hand, mountd refuses the socket systemd serves" \
	'served by another process.*\(exit 1\)' \
	bash -c 'out=$(MOUNTD_POLICY=/nonexistent timeout 10 /usr/libexec/mountd 2>&1); echo "$out (exit $?)"'
check "  the socket file is systemd's still" test "$(stat -c %i $SOCK)" = "$ino"
check "  and clients are still served" $V org.varlink.service.GetInfo

fresh_units
rm -rf "$work"
done_testing
