#!/bin/bash
# mountctl list and info as a person reads them, against the tools people
# already trust: `mountctl list` prints what findmnt prints for the same
# namespace (same mounts, order, sources, options; its filters and columns),
# `mountctl info` shows magic numbers, UUIDs, fsids, flags and sizes as
# stat -f, blkid and findmnt do.  Like 40-mountctl, the test runs in a
# private mount namespace with its own mountd.
set -u
TOP=${MOUNTD_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${MOUNTD_BUILD:-$TOP/build}
. "$TOP/tests/guest/lib.sh"

. "$TOP/tests/guest/mountctl-lib.sh"
export LC_ALL=C.UTF-8
# findmnt fits its table to the terminal; wide enough that it does not wrap.
export COLUMNS=1000

# same NAME CMD1 -- CMD2: both print the same (CMD1 is mountctl's side).
same() {
	local name=$1 a=() b=()
	shift
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	check "$name" bash -c 'diff -u <("${@:2:$1}" 2>&1; echo "exit $?") <("${@:$(($1 + 2))}" 2>&1; echo "exit $?")' \
		_ "${#a[@]}" "${a[@]}" "${b[@]}"
}

# same_json NAME CMD1 -- CMD2: both print the same JSON (findmnt indents its
# own way).
same_json() {
	local name=$1 a=()
	shift
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	"${a[@]}" >"$work/a.json" 2>&1
	"$@" >"$work/b.json" 2>&1
	check "$name" python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
if a != b:
    print(json.dumps(a, indent=1)); print("--- findmnt:"); print(json.dumps(b, indent=1))
    sys.exit(1)' "$work/a.json" "$work/b.json"
}

# ---- a namespace with the cases findmnt and a naive list differ on ------------
mountctl mount -t tmpfs --mkdir none /mnt/t
for d in a b c; do mountctl mount -t tmpfs -o size=1M --mkdir none /mnt/t/$d; done
# d is mounted last, but gets the old (mountinfo) ID a had: findmnt shows it
# first among its siblings.
mountctl umount /mnt/t/a
mountctl mount -t tmpfs --mkdir none /mnt/t/d
id_of() { findmnt -no ID "$1"; }
check "  (the new mount reused an older mount ID)" test "$(id_of /mnt/t/d)" -lt "$(id_of /mnt/t/b)"
# A read-only superblock under a read-write mount.
mountctl reconfigure -o ro /mnt/t/c
# A subtree of a filesystem: its source is SOURCE[ROOT].
mkdir -p /mnt/t/b/sub
mountctl bind --mkdir /mnt/t/b/sub /mnt/t/sub
# Propagation: a slave of a shared mount; attributes in the kernel's order.
mountctl set --propagation shared /mnt/t/b
mountctl bind --no-recursive --mkdir /mnt/t/b /mnt/t/bs
mountctl set --propagation slave /mnt/t/bs
mountctl set -o nosymfollow,noatime,nodiratime,nosuid /mnt/t/d

# ---- item 8: list is findmnt ------------------------------------------------
check_output "mountinfo calls the root device /dev/root" '^[0-9]+ [0-9]+ [0-9:]+ / / .* - [^ ]+ /dev/root ' \
	cat /proc/self/mountinfo
check_output "list names the real device, as findmnt does" \
	"^/ +$(findmnt -no SOURCE /) " mountctl list /
check_fails "  ... and no /dev/root" bash -c 'mountctl list | grep -q /dev/root'
same "list prints what findmnt prints (the whole namespace)" mountctl list -- findmnt
same_json "list --json (findmnt's columns) is findmnt --json" \
	mountctl --json list -o TARGET,SOURCE,FSTYPE,OPTIONS -- findmnt --json -o TARGET,SOURCE,FSTYPE,OPTIONS
cols=TARGET,SOURCE,FSTYPE,OPTIONS,VFS-OPTIONS,FS-OPTIONS,FSROOT,ID,PARENT,MAJ:MIN,PROPAGATION
same "list -o $cols is findmnt's" mountctl list -o $cols -- findmnt -o $cols
same_json "  ... and as JSON" mountctl --json list -o $cols -- findmnt --json -o $cols
same_json "list --json --list -o $cols (flat)" mountctl --json list --list -o $cols -- \
	findmnt --json --list -o $cols
same_json "UNIQ-ID as findmnt --kernel=listmount gives it" \
	mountctl --json list --list -o TARGET,ID,UNIQ-ID -- \
	findmnt --kernel=listmount --json --list -o TARGET,ID,UNIQ-ID
same "list --list -o +ID,PARENT (flat, in mountinfo order)" \
	mountctl list --list -o +ID,PARENT -- findmnt --list -o +ID,PARENT
same "list -t tmpfs (a tree of the tmpfs mounts)" mountctl list -t tmpfs -- findmnt -t tmpfs
same "list -t notmpfs,proc (all other types)" mountctl list -t notmpfs,proc -- findmnt -t notmpfs,proc
same "list /mnt/t (that mount point)" mountctl list /mnt/t -- findmnt /mnt/t
same "list /mnt/t/ (the same path spelt otherwise)" mountctl list /mnt/t/ -- findmnt /mnt/t/
same "list -R /mnt/t (with the mounts below it)" mountctl list -R /mnt/t -- findmnt -R /mnt/t
same "list -S none (by source)" mountctl list -S none -- findmnt -S none
same "list -S MAJ:MIN" mountctl list -S "$(findmnt -rno MAJ:MIN /mnt/t/c)" -- \
	findmnt -S "$(findmnt -rno MAJ:MIN /mnt/t/c)"
same "list relative path from the working directory" \
	bash -c 'cd /mnt/t && mountctl list d' -- bash -c 'cd /mnt/t && findmnt d'
same "list of a mount point that is none: nothing, exit 1" \
	mountctl list /mnt/t/b/sub -- findmnt /mnt/t/b/sub
check_output "the read-only superblock under a rw mount shows as ro" '^ro,' \
	mountctl list -o OPTIONS /mnt/t/c
check_output "  ... in FS-OPTIONS too, VFS-OPTIONS stays rw" '^rw,relatime +ro,size=1024k$' \
	mountctl list -o VFS-OPTIONS,FS-OPTIONS /mnt/t/c
check_output "the subtree's source names its root" '^none\[/sub\]$' mountctl list -o SOURCE /mnt/t/sub
check_output "the slave's propagation" 'private,slave' mountctl list -o PROPAGATION /mnt/t/bs
expect_usage() { "$@" >"$work/out" 2>&1; [ $? = 2 ] && cat "$work/out"; }
check_output "an unknown -o column is a usage error" "unknown column 'BOGUS'" \
	expect_usage mountctl list -o TARGET,BOGUS

# ---- item 7: info for people ------------------------------------------------
mountctl info / >"$work/info" 2>&1
check "info / succeeds" test $? = 0
check_fails "  ... without the attributes ext4 does not have" \
	grep -qE '^[a-z_]+: (none|not supported)$' "$work/info"
check_output "  ... which --all shows" '^cell_name: not supported$' mountctl info --all /
value() { sed -nE "s/^    $2 +(.*)$/\\1/p" "$1" | head -1; }
check_output "the magic number in hex with the fs name, as stat -f" \
	"^0x$(stat -f -c %t /) \\($(findmnt -no FSTYPE /)\\)$" value "$work/info" f_fstype
check_output "the fsid as stat -f prints it" "^$(stat -f -c %i /)$" value "$work/info" f_fsid
root_dev=$(findmnt -no SOURCE /)
check_output "the volume UUID as blkid prints it" \
	"^$(blkid -s UUID -o value "$root_dev")$" value "$work/info" uuid
flags=$(python3 -c '
import os
f = os.statvfs("/").f_flag
names = [("ro", os.ST_RDONLY), ("nosuid", os.ST_NOSUID), ("nodev", os.ST_NODEV),
         ("noexec", os.ST_NOEXEC), ("sync", os.ST_SYNCHRONOUS), ("mand", os.ST_MANDLOCK),
         ("write", os.ST_WRITE), ("append", os.ST_APPEND), ("noatime", os.ST_NOATIME),
         ("nodiratime", os.ST_NODIRATIME), ("relatime", os.ST_RELATIME)]
print(",".join(n for n, b in names if f & b))')
check_output "the flags as words, those statvfs() gives (${flags})" "^0x[0-9a-f]+ \\(${flags}\\)$" \
	value "$work/info" f_flags
mountctl mount -t tmpfs -o size=16M,nr_inodes=100 --mkdir none /mnt/sz
mountctl info /mnt/sz statfs >"$work/sz"
check_output "block counts with their size, as findmnt's SIZE" \
	"^$(stat -f -c %b /mnt/sz) \\($(findmnt -no SIZE /mnt/sz | tr -d ' ')\\)$" value "$work/sz" f_blocks
check_output "  ... and AVAIL" "^$(stat -f -c %a /mnt/sz) \\($(findmnt -no AVAIL /mnt/sz | tr -d ' ')\\)$" \
	value "$work/sz" f_bavail
check_output "a size in K" '^4K$' value "$work/sz" f_bsize
mountctl info --bytes /mnt/sz statfs >"$work/szb"
check_output "--bytes: sizes in bytes, as findmnt -b" \
	"^$(stat -f -c %b /mnt/sz) \\($(findmnt -bno SIZE /mnt/sz | tr -d ' ') bytes\\)$" value "$work/szb" f_blocks
check_output "  ... the block size too" '^4096$' value "$work/szb" f_bsize
mountctl --json info / ids volume_uuid >"$work/info.json"
check "--json keeps the raw numbers and hex" python3 -c '
import json, os, sys
d = json.load(open(sys.argv[1]))
ids, uuid = d["attributes"][0]["values"], d["attributes"][1]["values"]
assert ids["f_fstype"] == int(sys.argv[2], 16), ids
assert ids["f_flags"] & 0x1f == os.statvfs("/").f_flag & 0x1f, ids
assert uuid["uuid"] == sys.argv[3].replace("-", ""), uuid' "$work/info.json" "$(stat -f -c %t /)" \
	"$(blkid -s UUID -o value "$root_dev")"

# ---- item 5: every option is in --help and in the bash completion -------------
# The completion offers what "mountctl __complete options" lists (see
# completion/mountctl.bash; 43-mountctl-docs presses Tab for real).
words() { awk '{ if ($1 != "-") print $1; print $2 }'; }
for cmd in info list; do
	opts=$(mountctl __complete options "$cmd" | words)
	check "completion has options for $cmd" test -n "$opts"
	for o in $opts; do
		check_output "mountctl $cmd --help lists $o" "(^| |,)$o([ ,=]|$)" mountctl $cmd --help
	done
	# and the other way round: each option --help names is completed
	common=$(mountctl __complete options | words)
	for o in $(mountctl $cmd --help | grep -oE '(^| )--?[a-z][a-z-]*' | sort -u); do
		check "completion offers $cmd $o" grep -qw -- "$o" <<<" $opts $common "
	done
done

check "mountd is still running" kill -0 "$mountd"
done_testing
