#!/bin/bash
# mountd List against /proc/PID/mountinfo, mount by mount, in a namespace of
# 10000 mounts: named by pid, by nsfs fd, and a namespace no process is in
# (kept by a bind mount of its nsfs file), which has sources too.  With
# "more" the mounts come in parts; a List larger than mountd sends at once
# (made so here by a memory limit: 4 MiB) is ReplyTooLarge without "more",
# and whole with it and through mountctl.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

start_mountd
ns=$(new_mntns)
CMP="python3 $TOP/tests/guest/list-vs-mountinfo.py"
# What findmnt shows for the kernel's "/dev/root".
devroot=/dev/$(basename "$(readlink "/sys/dev/block/$(mountpoint -d /)")")

# 10000 tmpfs mounts with their own sources; some paths and sources with
# spaces and a backslash (mountinfo escapes them), some nosuid/read-only/
# noatime/strictatime, some shared or slave.
check "10000 tmpfs mounts in the namespace" nsenter -t "$ns" -m python3 - <<'PY'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
os.makedirs("/mnt/many", exist_ok=True)
for i in range(10000):
    odd = i % 1000 == 7
    path = f"/mnt/many/m {i}\\x" if odd else f"/mnt/many/m{i}"
    src = f"src {i}" if odd else f"src{i}"
    os.mkdir(path)
    flags = (2 if i % 3 == 0 else 0) | (1 if i % 5 == 0 else 0)  # MS_NOSUID, MS_RDONLY
    flags |= 1024 if i % 7 == 0 else 1 << 24 if i % 11 == 0 else 0  # NOATIME, STRICTATIME
    if libc.mount(src.encode(), path.encode(), b"tmpfs", flags, b"size=1m") != 0:
        raise OSError(ctypes.get_errno(), path)
    # MS_SHARED, then for some a bind of it made MS_SLAVE
    if i % 13 == 0 and libc.mount(None, path.encode(), None, 1 << 20, None) != 0:
        raise OSError(ctypes.get_errno(), path)
    if i % 26 == 0:
        os.mkdir(path + "s")
        if libc.mount(path.encode(), (path + "s").encode(), None, 4096, None) != 0 or \
                libc.mount(None, (path + "s").encode(), None, 1 << 19, None) != 0:
            raise OSError(ctypes.get_errno(), path + "s")
PY
check "List by pid" call bypid List "{\"namespace\":{\"pid\":$ns}}"
check "  equals the namespace's mountinfo, mount by mount" \
	$CMP "$work/bypid" "/proc/$ns/mountinfo" "$devroot"
check "  its IDs, parents, attributes and propagation are statmount()'s" \
	nsenter -t "$ns" -m python3 "$TOP/tests/guest/list-vs-statmount.py" "$work/bypid"
check "List by mntnsFd" call byfd List '{"namespace":{"mntnsFd":0}}' --fd "/proc/$ns/ns/mnt"
check "  equals it too, sources included" $CMP "$work/byfd" "/proc/$ns/mountinfo" "$devroot"
check "  a source with a space is given unescaped" \
	jtest "$work/byfd" 'any(m.get("source") == "src 1007" and m["mountPoint"] == "/mnt/many/m 1007\\x" for m in p["mounts"])'

# A namespace without a process: its nsfs file bind-mounted (on a private
# mount, as ip-netns does it: a shared one would propagate into the copy).
mkdir -p /run/list-ns && mount --bind /run/list-ns /run/list-ns && mount --make-private /run/list-ns
touch /run/list-ns/mnt
check "a namespace kept by a bind mount of its nsfs file" \
	unshare --mount=/run/list-ns/mnt --propagation private mount -t tmpfs lonely-src /mnt
check "List of it by mntnsFd" call lonely List '{"namespace":{"mntnsFd":0}}' --fd /run/list-ns/mnt
check "  has the source of its tmpfs and of every mount" \
	jtest "$work/lonely" 'any(m.get("source") == "lonely-src" and m["mountPoint"] == "/mnt" for m in p["mounts"]) and all("source" in m for m in p["mounts"])'
umount -l /run/list-ns/mnt
umount -l /run/list-ns

# "more": parts of whole mounts, in order, each far below what a client
# reads, together every mount once.
n_info=$(wc -l <"/proc/$ns/mountinfo")
check "List by pid with more" call parts List "{\"namespace\":{\"pid\":$ns}}" --more
check "  in parts (a 4 MB answer), each at most 1.2 MB, the last alone without continues" \
	python3 -c 'import json,sys
lines=[l for l in open(sys.argv[1]) if l.strip()]
rs=[json.loads(l) for l in lines]
assert len(rs) >= 3, len(rs)
assert all(len(l) < 1200000 for l in lines), max(map(len, lines))
assert all(r.get("continues") for r in rs[:-1]) and not rs[-1].get("continues")
ids=[m["id"] for r in rs for m in r["parameters"]["mounts"]]
assert len(ids) == len(set(ids)) == int(sys.argv[2]), (len(ids), len(set(ids)))' \
	"$work/parts" "$n_info"
check "  together equal the namespace's mountinfo, mount by mount" \
	$CMP "$work/parts" "/proc/$ns/mountinfo" "$devroot"
check "  and statmount()'s IDs, parents, attributes and propagation" \
	nsenter -t "$ns" -m python3 "$TOP/tests/guest/list-vs-statmount.py" "$work/parts"

# Only List comes in parts: other methods called with "more" answer once,
# Unmount too, whose reply is one array (its steps).
mkdir -p /run/list-more
check "Create with more: one reply" call cmore Create \
	'{"fsType":"tmpfs","placement":{"path":"/run/list-more"}}' --more
check "  without continues" jtest "$work/cmore" 'len(rs) == 1 and "continues" not in r and p["mountId"] > 0'
check "Unmount with more: one reply" call umore Unmount '{"path":"/run/list-more"}' --more
check "  without continues, its steps whole" \
	jtest "$work/umore" 'len(rs) == 1 and "continues" not in r and "error" not in r and any(s["step"] == "umount" for s in p["steps"])'
check_fails "  and the mount is gone" mountpoint -q /run/list-more

# Under MemoryMax=128M mountd sends at most 4 MiB a message (daemon/mountd.c),
# and the namespace's List is made larger than that.  A sanitizer build
# keeps freed memory in ASan's quarantine (256 MB by default): it is kept
# small here, or the limit OOM-kills that build's worker after a few Lists.
check "3000 more tmpfs mounts" nsenter -t "$ns" -m python3 - <<'PY'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
os.makedirs("/mnt/more", exist_ok=True)
for i in range(3000):
    path = f"/mnt/more/m{i}"
    os.mkdir(path)
    if libc.mount(f"more{i}".encode(), path.encode(), b"tmpfs", 0, b"size=1m") != 0:
        raise OSError(ctypes.get_errno(), path)
PY
n_info=$(wc -l <"/proc/$ns/mountinfo")
stop_mountd
rm -f $SOCK
MOUNTD_WORKER_IDLE_SEC=2 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=4" \
	systemd-run --scope --quiet -p MemoryMax=128M -p MemorySwapMax=0 "$BUILD/mountd" \
	2>"$work/mountd.log" &
mountd=$!
for _ in $(seq 100); do [ -S $SOCK ] && break; sleep 0.1; done
check_output "mountd under MemoryMax=128M sends at most 4 MiB" "messages up to 4194304 bytes" \
	cat "$work/mountd.log"
check_fails "List without more: refused" call toolarge List "{\"namespace\":{\"pid\":$ns}}"
check "  ReplyTooLarge, with the answer's size and the limit" \
	jtest "$work/toolarge" 'r.get("error") == "io.mountd.Mount.ReplyTooLarge" and p["size"] > p["limit"] == 4194304'
check "  mountd says why" grep -q "is larger than 4194304, sending io.mountd.Mount.ReplyTooLarge" \
	"$work/mountd.log"
check "with more: every mount" call parts2 List "{\"namespace\":{\"pid\":$ns}}" --more
check "  equal to the namespace's mountinfo" \
	$CMP "$work/parts2" "/proc/$ns/mountinfo" "$devroot"
check_output "mountctl list: a line for every mount" "^$((n_info + 1))\$" \
	bash -c "$BUILD/mountctl list -p $ns --list | wc -l"
check_output "  the last of them too" "^/mnt/many/m9999 +src9999 " \
	bash -c "$BUILD/mountctl list -p $ns --list -S src9999"
# A client that leaves mid-stream: the stream ends with it.  mountd's fds
# are counted in one state, with no worker alive: a worker holds a socket
# and a pidfd in mountd until it has been idle MOUNTD_WORKER_IDLE_SEC (2 s
# here), and how long the List's worker lives depends on the machine's load.
# What is left over once the workers are gone is what the client left.
# mountd's fd count once no worker is alive and it held still for half a
# second; fails after 60 s.
settled_fds() {
	local end=$((SECONDS + 60)) a b
	while [ $SECONDS -lt $end ]; do
		if ! pgrep -P "$mountd" >/dev/null; then
			a=$(ls /proc/$mountd/fd | wc -l)
			sleep 0.5
			b=$(ls /proc/$mountd/fd | wc -l)
			[ "$a" = "$b" ] && ! pgrep -P "$mountd" >/dev/null && { echo "$b"; return 0; }
		fi
		sleep 0.2
	done
	return 1
}
fds_back_to() {
	local want=$1 end=$((SECONDS + 60)) n=unknown
	while [ $SECONDS -lt $end ]; do
		n=$(settled_fds) && [ "$n" = "$want" ] && return 0
		sleep 1
	done
	echo "mountd holds $n fds, $want before:"
	ls -l /proc/$mountd/fd
	return 1
}
fds_before=$(settled_fds)
check "a client that reads one part and leaves" call onepart List \
	"{\"namespace\":{\"pid\":$ns}}" --more --count 1
check "  mountd holds no more fds than before, once its workers are idle and gone" \
	fds_back_to "$fds_before"
check "  and serves the next" call after Info '{"path":"/"}'
check "mountd is the same process" kill -0 "$mountd"

stop_mountd
kill "$ns" 2>/dev/null
# What it left on the root filesystem: the mount points of its namespace,
# gone with it, so that the test runs again in the same boot.
wait "$ns" 2>/dev/null
rm -rf "$work" /mnt/many /mnt/more /run/list-ns /run/list-more
done_testing
