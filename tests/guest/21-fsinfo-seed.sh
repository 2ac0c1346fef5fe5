#!/bin/bash
# The seed's test-fsinfo (samples/statx/test-fsinfo.c from the 2018 fsinfo()
# posting, built unchanged into $MOUNTD_BUILD/kernel/test-fsinfo) on /, /proc,
# a tmpfs and an ext4 mount: it must walk every attribute and exit 0, and the
# statfs and ids values it prints must agree with statvfs(), stat -f and
# statx (stat(1)) for the same path.
set -u
. "$MOUNTD_TOP/tests/guest/lib.sh"

# Our mounts live in a private mount namespace that goes away with us.
if [ -z "${FSINFO_SEED_NS:-}" ]; then
	FSINFO_SEED_NS=1 exec unshare -m --propagation private "$0" "$@"
fi

seed=$MOUNTD_BUILD/kernel/test-fsinfo
work=$(mktemp -d /tmp/fsinfo-seed.XXXXXX)
out=$work/out
mkdir -p "$work/tmp" "$work/ext4" "$out"

# Compare what test-fsinfo printed for PATH (file $1) with what statvfs(),
# stat(2) and the magic/fs name from stat -f / findmnt say.  Free counts are
# compared exactly unless $3 is "live" (the root fs is being written to).
compare() {
	local log=$1 path=$2 mode=$3
	python3 - "$log" "$path" "$mode" "$(stat -f -c %t "$path")" \
		"$(findmnt -n -o FSTYPE -M "$path")" "$(stat -c %Hd:%Ld "$path")" <<'PY'
import os, re, sys
log, path, mode, magic, fstype, devnum = sys.argv[1:]
# The seed prints attributes it has no printer for (those added since)
# as raw strings, so the log is not all UTF-8.
text = re.sub(r"\x1b\[[0-9;]*m", "", open(log, errors="replace").read())
def field(pat, base=10):
    m = re.search(pat, text)
    if not m:
        sys.exit(f"no match for {pat!r} in test-fsinfo output")
    return [int(g, base) if base else g for g in m.groups()]
blocks, bfree, bavail = field(r"blocks: n=(\d+) fr=(\d+) av=(\d+)")
files, ffree, favail = field(r"files : n=(\d+) fr=(\d+) av=(\d+)")
(bsize,) = field(r"bsize : (\d+)")
(frsize,) = field(r"frsize: (\d+)")
dmaj, dmin = field(r"dev   : ([0-9a-f]+):([0-9a-f]+)", 16)
(ftype,) = field(r"fs    : type=([0-9a-f]+) ", 16)
(name,) = field(r"fs    : type=[0-9a-f]+ name=(\S+)", 0)
(flags,) = field(r"flags : ([0-9a-f]+)", 16)
(fsid,) = field(r"fsid  : ([0-9a-f]+)", 16)

sv = os.statvfs(path)
st = os.stat(path)
bad = []
def eq(what, got, want):
    if got != want:
        bad.append(f"{what}: test-fsinfo {got} != {want}")
eq("f_blocks", blocks, sv.f_blocks)
eq("f_files", files, sv.f_files)
eq("f_bsize", bsize, sv.f_bsize)
eq("f_frsize", frsize, sv.f_frsize)
if mode == "exact":
    eq("f_bfree", bfree, sv.f_bfree)
    eq("f_bavail", bavail, sv.f_bavail)
    eq("f_ffree", ffree, sv.f_ffree)
    eq("f_favail", favail, sv.f_favail)
elif not (bavail <= bfree <= blocks and ffree <= files):
    bad.append("free counts exceed totals")
# glibc's statvfs() drops ST_VALID (0x20) from the kernel's f_flags.
eq("f_flags", flags & ~0x20, sv.f_flag)
eq("f_fsid", fsid, sv.f_fsid)
eq("magic (stat -f %t)", ftype, int(magic, 16))
eq("fs name (findmnt)", name, fstype)
eq("device (stat(2))", (dmaj, dmin), (os.major(st.st_dev), os.minor(st.st_dev)))
eq("device (statx, stat -c %Hd:%Ld)", f"{dmaj}:{dmin}", devnum)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
}

run_seed() {
	local path=$1 log=$2
	"$seed" "$path" >"$log" 2>&1
	local rc=$?
	cat "$log"
	return $rc
}

mount -t tmpfs -o size=8m,nosuid,nodev seed-tmpfs "$work/tmp"
# The ext4 image lives outside that tmpfs: its loop device writes behind
# the test's back (the journal, lazy inode table init), which would move
# the tmpfs's free counts between test-fsinfo and statvfs().
mkfs.ext4 -q -F -L seed-label "$work/img" 16M
mount -o loop,noexec "$work/img" "$work/ext4"
echo data >"$work/ext4/file"
sync

for t in /:/:live /proc:proc:exact "$work/tmp":tmpfs:exact "$work/ext4":ext4:exact; do
	IFS=: read -r path name mode <<<"$t"
	log=$out/$name.log
	check "test-fsinfo $name exits 0" run_seed "$path" "$log"
	check "$name: statfs/ids agree with statvfs, stat -f, statx" \
		compare "$log" "$path" "$mode"
done

check_output "tmpfs: source is the mount's" 'source\[0\]: seed-tmpfs$' \
	sed 's/\x1b\[[0-9;]*m//g' "$out/tmpfs.log"
check_output "tmpfs: nosuid among the parameters" '^parameter\[[0-9]+\]: nosuid$' \
	sed 's/\x1b\[[0-9;]*m//g' "$out/tmpfs.log"
check_output "ext4: volume name is the label" '^volume_name: seed-label$' \
	sed 's/\x1b\[[0-9;]*m//g' "$out/ext4.log"
check_output "ext4: journal capability" '^	- journal$' \
	sed 's/\x1b\[[0-9;]*m//g' "$out/ext4.log"
check_output "proc: kernel fs capability" '^	- is_kernel_fs$' \
	sed 's/\x1b\[[0-9;]*m//g' "$out/proc.log"

umount "$work/ext4"
umount "$work/tmp"
rm -rf "$work"
done_testing
