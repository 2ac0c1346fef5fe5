#!/bin/bash
# mountd List against /proc/PID/mountinfo, mount by mount, in a namespace of
# 10000 mounts: named by pid, by nsfs fd, and a namespace no process is in
# (kept by a bind mount of its nsfs file), which has sources too.
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

stop_mountd
kill "$ns" 2>/dev/null
rm -rf "$work"
done_testing
