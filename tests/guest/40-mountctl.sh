#!/bin/bash
# mountctl against the real mountd: every subcommand, namespaces named by
# --pid/--pidfd/--ns, --json, apply, the error output people read, and the
# README's examples as printed.  The whole test runs in a private mount
# namespace with its own mountd (and a tmpfs on /run for its socket), so it
# leaves nothing behind; tests/unit/test-mountctl-live.sh runs it on the host.
set -u
TOP=${MOUNTD_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${MOUNTD_BUILD:-$TOP/build}
. "$TOP/tests/guest/lib.sh"

. "$TOP/tests/guest/mountctl-lib.sh"
export LC_ALL=C

new_mntns() {
	unshare -m --propagation private sleep infinity >/dev/null 2>&1 &
	local pid=$!
	for _ in $(seq 50); do
		[ "$(readlink /proc/$pid/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ] && break
		sleep 0.1
	done
	echo $pid
}

# expect_fail NAME RC PATTERN CMD...: CMD exits with RC and prints PATTERN.
expect_fail() {
	local name=$1 rc=$2 pattern=$3
	shift 3
	check_output "$name" "$pattern" bash -c '"$@" 2>&1; r=$?; echo "exit $r"; [ $r = '"$rc"' ]' _ "$@"
}
opts() { findmnt -n -o OPTIONS "$1"; }
json_ok() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)" "$@"; }

# ---- mount -------------------------------------------------------------
check "mount tmpfs with fs options and attributes" \
	mountctl mount -t tmpfs -o size=1M,mode=0700,nosuid,nodev none /mnt/t --mkdir
check_output "findmnt shows the fsconfig parameters" 'size=1024k,mode=700' opts /mnt/t
check_output "findmnt shows the mount attributes" 'nosuid,nodev' opts /mnt/t
expect_fail "a bad option value prints the kernel's message and MountFailed" 1 \
	"fsconfig:size failed: EINVAL .*tmpfs: Bad value for 'size' \[io.mountd.Mount.MountFailed\]" \
	mountctl mount -t tmpfs -o size=lots none /mnt/bad --mkdir
expect_fail "an unknown option prints the kernel's message" 1 \
	"tmpfs: Unknown parameter 'bogus'" mountctl mount -t tmpfs -o bogus none /mnt/bad
expect_fail "an unknown filesystem type fails at fsopen" 1 \
	"fsopen failed: ENODEV" mountctl mount -t nosuchfs none /mnt/bad
check "--json mount gives the new mount's ID" \
	bash -c 'mountctl --json mount -t tmpfs -o size=64k none /mnt/j --mkdir >'"$work"'/m.json'
check "  ... with findmnt's keys" json_ok "$work/m.json" 'd["target"] == "/mnt/j" and d["fstype"] == "tmpfs" and d["uniq-id"] > 0'
# trace_of FILE: a -v trace as one line of STEP:WHAT ("fsopen:ok",
# "fsconfig:size:error", "fsconfig:size:failed").
trace_of() {
	sed -nE 's/^mountctl: ([^ ]+): (ok|error|warning|info|failed)( .*|:.*)?$/\1:\2/p' "$1" | paste -sd' '
}
check "-v mount" bash -c "mountctl -v mount -t tmpfs -o size=64k none /mnt/v --mkdir 2>$work/v"
check_output "  ... shows the call" '^mountctl: -> io.mountd.Mount.Create \{"fsType":"tmpfs"' cat "$work/v"
check_output "  ... shows each step as it succeeded, in order, with its time" \
	'^fsopen:ok fsconfig:source:ok fsconfig:size:ok fsconfig:CMD_CREATE:ok fsmount:ok setns:ok create:target:ok resolve:target:ok move_mount:ok$' \
	trace_of "$work/v"
check_output "  ... a step's time" '^mountctl: fsmount: ok \([0-9.]+(us|ms|s)\)$' cat "$work/v"
check "  ... as they happen: streamed through traceFd, so before the reply" bash -c \
	"grep -q '\"traceFd\":' $work/v && awk '/: fsopen: ok/ { s = NR } /<- io.mountd.Mount.Create/ { r = NR } END { exit !(s && r && s < r) }' $work/v"
mountctl -v mount -t tmpfs -o size=lots none /mnt/bad --mkdir 2>"$work/vbad"
check "-v of a failing mount exits 1" test $? = 1
check_output "  ... the steps, the kernel's message under its step, then the failed step" \
	'^fsopen:ok fsconfig:source:ok fsconfig:size:error fsconfig:size:failed$' trace_of "$work/vbad"
# A request that hangs: its placement is inside a FUSE mount whose /dev/fuse
# nobody serves, so the lookup waits.  -v shows the steps it got past while
# it waits; closing the FUSE fd aborts the connection and ends it.
mkdir -p /mnt/stall
exec 7<>/dev/fuse
# -i: the syscall itself, not mount.fuse3 (which would run "stall").
mount -i -t fuse -o fd=7,rootmode=40000,user_id=0,group_id=0 stall /mnt/stall
mountctl -v mount -t tmpfs none /mnt/stall/x 2>"$work/stall" 7>&- &
stalled=$!
mountctl info /mnt/stall statfs >"$work/stall-info" 2>&1 7>&- &
stalled_info=$!
for _ in $(seq 100); do grep -q '^mountctl: setns: ok' "$work/stall" && break; sleep 0.1; done
check_output "-v of a request that hangs shows the steps it got past, as they happen" \
	'^fsopen:ok fsconfig:source:ok fsconfig:CMD_CREATE:ok fsmount:ok setns:ok$' trace_of "$work/stall"
check "  ... while it still runs" kill -0 $stalled
check_fails "  ... before any reply" grep -q '<- io.mountd.Mount.Create' "$work/stall"
check "  ... while other clients are served meanwhile (list, a mount)" bash -c \
	"timeout 10 mountctl list >/dev/null 7>&- && timeout 10 mountctl mount -t tmpfs none /mnt/meanwhile --mkdir 7>&-"
check "  ... and the request still hangs" kill -0 $stalled
check "  ... as does an Info of the FUSE mount (statfs waits for its server)" kill -0 $stalled_info
exec 7>&-
wait $stalled
check "  ... and fails once the FUSE connection is gone" test $? = 1
check_output "  ... at the step that hung" '^mountctl: resolve:target: failed: ENOTCONN$' cat "$work/stall"
wait $stalled_info
check "  ... and the Info fails then too" test $? = 1
umount -l /mnt/stall /mnt/meanwhile
check "-v umount" bash -c "mountctl -v umount /mnt/v 2>$work/v"
check_output "  ... shows the unmount's steps" '^setns:ok resolve:path:ok umount:ok$' trace_of "$work/v"
check "mount -o ro makes the mount read-only" mountctl mount -t tmpfs -o ro none /mnt/ro --mkdir
check_output "  ... findmnt says ro" '^ro' opts /mnt/ro

# ---- list ---------------------------------------------------------------------
check_output "list shows the tree with the new mount" '^[| `]*[|`]-/mnt/t +none +tmpfs' mountctl list
check_output "list --table has ID and PARENT columns" '^ *ID +PARENT +TARGET' mountctl list --table
check "list --json is findmnt-shaped" bash -c "mountctl --json list >$work/l.json"
check "  ... /mnt/t is a child of /mnt" json_ok "$work/l.json" \
	'any(c["target"] == "/mnt/t" for f in d["filesystems"] for m in [f] + f.get("children", []) for c in m.get("children", []))'

# ---- info ----------------------------------------------------------------------
mountctl info --all / >"$work/info" 2>&1
rc=$?
check "info --all / succeeds" test $rc = 0
for a in statfs fsinfo ids limits supports capabilities timestamp_info volume_id volume_uuid \
	volume_name cell_name domain_name realm_name server_name server_address parameter source \
	name_encoding name_codepage io_size; do
	check "info --all / shows $a" grep -qE "^$a(\[[0-9]+\])*( \(|: )" "$work/info"
done
# Our kernel answers with fsinfo(); the host test's kernel has none, and
# mountd falls back (statfs, statmount).
src=${MOUNTCTL_TEST_INFO_SOURCE:-fsinfo}
check_output "info statfs comes from $src" "^statfs \\(($src)\\):" mountctl info / statfs
check_output "info enumerates parameter instances" "^parameter\\[1\\] \\(($src)\\):" mountctl info /mnt/t parameter
check_output "info --nth picks one instance" '^parameter\[0\]' mountctl info --nth 0 /mnt/t parameter
if [ "$src" = fsinfo ]; then
	check_output "info capabilities spells out the bits (tmpfs is not persistent)" \
		'^ +not_persistent +yes$' mountctl info /mnt/t capabilities
fi
check "info --json" bash -c "mountctl --json info /mnt/t statfs limits >$work/i.json"
check "  ... has statfs values" json_ok "$work/i.json" 'd["attributes"][0]["values"]["f_blocks"] == 256 and d["attributes"][1]["attribute"] == "limits"'
expect_fail "info on a missing path fails with the step" 1 "resolve.*ENOENT" mountctl info /mnt/nonexistent

# ---- set, remount, reconfigure ---------------------------------------------------
check "set -o ro,noexec" mountctl set -o ro,noexec /mnt/t
check_output "  ... findmnt shows ro,noexec" '^ro,.*noexec' opts /mnt/t
check "set -o rw,exec clears them" mountctl set -o rw,exec /mnt/t
check_fails "  ... no more noexec" bash -c "opts /mnt/t | grep -q noexec"
check "set --propagation shared" mountctl set --propagation shared /mnt/t
check_output "  ... findmnt shows shared" 'shared' findmnt -n -o PROPAGATION /mnt/t
check "set -o private (propagation as an option word)" mountctl set -o private /mnt/t
check_output "  ... findmnt shows private" 'private' findmnt -n -o PROPAGATION /mnt/t
expect_fail "set refuses filesystem options" 2 "not a mount attribute" mountctl set -o size=1M /mnt/t
check "remount -o size=2M,nosuid" mountctl remount -o size=2M,nosuid /mnt/t
check_output "  ... the superblock changed" 'size=2048k' opts /mnt/t
check "reconfigure -o size=3M" mountctl reconfigure -o size=3M /mnt/t
check_output "  ... the superblock changed" 'size=3072k' opts /mnt/t
expect_fail "reconfigure with a bad value prints the kernel's message" 1 \
	"Bad value for 'size'" mountctl reconfigure -o size=lots /mnt/t

# ---- move, bind, umount ------------------------------------------------------
check "move /mnt/t to /mnt/t2 (--json)" bash -c "mountctl --json move --mkdir /mnt/t /mnt/t2 >$work/mv.json"
check "  ... names source and target" json_ok "$work/mv.json" 'd == {"source": "/mnt/t", "target": "/mnt/t2"}'
check "  ... it is there" findmnt /mnt/t2
check_fails "  ... and not here" findmnt /mnt/t
echo hello >/mnt/t2/file
chmod 0755 /mnt/t2
chown 1000:1000 /mnt/t2/file
check "bind (recursive by default)" mountctl bind --mkdir /mnt/t2 /mnt/b
check_output "  ... the content is visible" hello cat /mnt/b/file
check "bind --no-recursive -o ro" mountctl bind --no-recursive -o ro --mkdir /mnt/t2 /mnt/bro
check_output "  ... read-only" '^ro' opts /mnt/bro
unshare -U --map-user=1000 --map-group=1000 sleep infinity &
userns=$!
pids+=("$userns")
sleep 0.3
check "bind --idmap with a user namespace" mountctl bind --idmap /proc/$userns/ns/user --mkdir /mnt/t2 /mnt/idm
# The namespace maps its uid 1000 to our 0: a file of on-disk 1000 shows as 0.
check_output "  ... a file shows its owner through the mapping" '^0$' stat -c %u /mnt/idm/file
check_output "  ... and not so without it" '^1000$' stat -c %u /mnt/t2/file
check "umount" mountctl umount /mnt/b
check_fails "  ... gone" findmnt /mnt/b
check "unmount (alias) --lazy" mountctl unmount --lazy /mnt/bro
mkdir -p /mnt/plain
expect_fail "umount of something that is not a mount point" 1 "umount failed: EINVAL" mountctl umount /mnt/plain

# ---- images (not on the host: loop devices are the machine's) ---------------
if [ -z "${MOUNTCTL_TEST_HOST:-}" ]; then
	mkdir -p "$work/content"
	echo from-image >"$work/content/hello"
	truncate -s 16M "$work/fs.img"
	mkfs.ext4 -q -d "$work/content" "$work/fs.img"
	check "mount --image: type probed, through a loop device" \
		bash -c "mountctl --json mount --image --mkdir $work/fs.img /mnt/img >$work/img.json"
	check "  ... the reply names ext4 and the loop device" json_ok "$work/img.json" \
		'd["fstype"] == "ext4" and d["loop-device"].startswith("/dev/loop")'
	check_output "  ... the content is there" from-image cat /mnt/img/hello
	check "umount the image" mountctl umount /mnt/img
	# (one image mounted twice at once would be two ext4 instances on it)
	check "mount --image -o ro" mountctl mount --image -o ro -t ext4 --mkdir "$work/fs.img" /mnt/img-ro
	check_output "  ... read-only" '^ro' opts /mnt/img-ro
	check_output "  ... the content is there" from-image cat /mnt/img-ro/hello
	check "umount the read-only image" mountctl umount /mnt/img-ro
	# --mkdir made them on the root filesystem, which other tests share.
	rmdir /mnt/img /mnt/img-ro 2>/dev/null || true
	expect_fail "mount --image of something that is no filesystem" 1 "failed" \
		mountctl mount --image --mkdir /etc/hostname /mnt/img-bad
	# Like mount(8): a file is an image, a block device's type is probed.
	check "a regular file as SOURCE mounts as an image, no -t or --image" \
		mountctl mount --mkdir "$work/fs.img" /mnt/img-file
	check_output "  ... ext4 on a loop device" '^ext4 /dev/loop' findmnt -n -o FSTYPE,SOURCE /mnt/img-file
	check "  ... and unmounts" mountctl umount /mnt/img-file
	loopdev=$(losetup -f --show "$work/fs.img")
	check "a block device without -t: its type is probed" mountctl mount --mkdir "$loopdev" /mnt/blk
	check_output "  ... ext4 from that device" "^ext4 $loopdev\$" findmnt -n -o FSTYPE,SOURCE /mnt/blk
	check "  ... and unmounts" mountctl umount /mnt/blk
	losetup -d "$loopdev"
	# What is on a device that is no filesystem: said as mountd says it of
	# an image (shared/fs-probe.c), and nothing is mounted.
	blk_fails() { # name pattern image
		local l r
		l=$(losetup -f --show "$3") || return 1
		findmnt -rn -o TARGET >"$work/blk.before"
		expect_fail "$1" 1 "$2" mountctl mount "$l" /mnt
		r=$?
		check "  ... nothing mounted" bash -c "findmnt -rn -o TARGET | cmp -s - $work/blk.before"
		losetup -d "$l"
		return $r
	}
	truncate -s 1M "$work/empty.img"
	blk_fails "a block device with no filesystem says so" \
		"mount: /dev/loop[0-9]+: no filesystem signature found" "$work/empty.img"
	truncate -s 8M "$work/swap.img" && mkswap -q "$work/swap.img" >/dev/null
	blk_fails "a swap device: not a filesystem" "mount: /dev/loop[0-9]+: swap: not a filesystem" \
		"$work/swap.img"
	truncate -s 8M "$work/disk.img" &&
		python3 "$TOP/tests/guest/mkgpt.py" "$work/disk.img" 2048:8192:0fc63daf-8483-4772-8e79-3d69d8477de4
	blk_fails "a whole disk: name one of its partitions" \
		"no filesystem signature, but a gpt partition table: mount one of its partitions" \
		"$work/disk.img"
fi

# ---- other namespaces ----------------------------------------------------------
ns=$(new_mntns)
pids+=("$ns")
check "--pid: mount into another namespace" mountctl --pid "$ns" mount -t tmpfs --mkdir none /mnt/inns
check "  ... visible there" nsenter -t "$ns" -m findmnt /mnt/inns
nsenter -t "$ns" -m sh -c 'echo in-there >/mnt/inns/f'
check_fails "  ... not here" findmnt /mnt/inns
check_output "--ns: list that namespace" '/mnt/inns' mountctl --ns /proc/$ns/ns/mnt list
check_output "--pidfd: an inherited pidfd names it" '/mnt/inns' python3 -c '
import os, subprocess, sys
fd = os.pidfd_open(int(sys.argv[1]))
os.set_inheritable(fd, True)
sys.exit(subprocess.run(["mountctl", "--pidfd", str(fd), "list", "--table"], close_fds=False).returncode)' "$ns"
check "--ns: set attributes there" mountctl --ns /proc/$ns/ns/mnt set -o ro /mnt/inns
check_output "  ... ro there" '^ro' nsenter -t "$ns" -m findmnt -n -o OPTIONS /mnt/inns
check "bind --source-pid: from that namespace into ours" \
	mountctl bind --source-pid "$ns" --mkdir /mnt/inns /mnt/fromns
check_output "  ... its content is here" in-there cat /mnt/fromns/f
check "bind --source-ns: the same by namespace file" \
	mountctl bind --source-ns /proc/$ns/ns/mnt --mkdir /mnt/inns /mnt/fromns2
check_output "  ... its content is here" in-there cat /mnt/fromns2/f
check "--pid: umount there" mountctl --pid "$ns" umount /mnt/inns
check_fails "  ... gone there" nsenter -t "$ns" -m findmnt /mnt/inns
expect_fail "--pid of no process" 1 "ESRCH|namespace" mountctl --pid 999999 list

# ---- watch ------------------------------------------------------------------------
mountctl watch --events 2 >"$work/watch" 2>&1 &
w=$!
for _ in $(seq 100); do grep -qs '^ready' "$work/watch" && break; sleep 0.1; done
check "watch says ready" grep -q '^ready' "$work/watch"
mountctl mount -t tmpfs none /mnt/w --mkdir
mountctl umount /mnt/w
for _ in $(seq 100); do kill -0 $w 2>/dev/null || break; sleep 0.1; done
check "watch ends after --events changes" bash -c "! kill -0 $w 2>/dev/null"
check "watch saw the mount added" grep -qE '^added +/mnt/w +none +tmpfs' "$work/watch"
check "watch saw it removed" grep -qE '^removed +/mnt/w' "$work/watch"
ns2=$(new_mntns)
mountctl --json --pid "$ns2" watch >"$work/watch2" 2>&1 &
w=$!
for _ in $(seq 100); do grep -qs ready "$work/watch2" && break; sleep 0.1; done
kill "$ns2"
wait "$ns2" 2>/dev/null
for _ in $(seq 100); do kill -0 $w 2>/dev/null || break; sleep 0.1; done
wait $w
check "watch --json ends with gone when the namespace goes away (exit 0)" test $? = 0
check "  ... and said so as JSON" grep -q '{"event":"gone"}' "$work/watch2"

# ---- apply --------------------------------------------------------------------------
cat >"$work/good.conf" <<'EOF'
# a tmpfs, then bigger
t tmpfs
s none
o size=1M
o nosuid
m /mnt/applied
x create
m /mnt/applied
o size=4M
x reconfigure
EOF
expect_fail "apply points a missing target at its m line" 1 "good.conf:6: .*ENOENT" \
	mountctl apply "$work/good.conf"
check "apply --mkdir creates and reconfigures" mountctl apply --mkdir "$work/good.conf"
check_output "  ... findmnt agrees" 'nosuid.*size=4096k' opts /mnt/applied
mkdir /mnt/applied2
check "apply reads stdin" bash -c "printf 't tmpfs\nm /mnt/applied2\nx create\n' | mountctl apply"
check "  ... mounted" findmnt /mnt/applied2
printf 't tmpfs\ns none\no mode=0755\no size=lots\nm /mnt/applied3\nx create\n' >"$work/bad.conf"
expect_fail "apply points a kernel error at its o line" 1 \
	"bad.conf:4: fsconfig:size failed: EINVAL .*Bad value for 'size'" mountctl apply "$work/bad.conf"
printf 't nosuchfs\nm /mnt/applied\nx create\n' >"$work/bad2.conf"
expect_fail "apply points an fsopen error at its t line" 1 "bad2.conf:1: fsopen failed" \
	mountctl apply "$work/bad2.conf"
printf 't tmpfs\nz what\nm /x\n' >"$work/bad3.conf"
expect_fail "apply reports syntax errors by line, before doing anything" 2 \
	'bad3.conf:2: unknown key "z"' mountctl apply "$work/bad3.conf"

# ---- the policy: a user no rule allows is refused, and told why ----------------
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
export -f nobody
expect_fail "an unprivileged user's mount is refused with mountd's reason" 1 \
	'mount: permission denied: .+ \[io.mountd.Mount.PermissionDenied\]' \
	nobody mountctl mount -t tmpfs none /mnt/denied
check_fails "  ... and nothing was mounted" findmnt /mnt/denied
check_output "  ... but it may list the namespace of its own process" '/mnt/applied' \
	nobody mountctl list

# ---- exit codes of the client itself ------------------------------------------
expect_fail "unreachable daemon: exit 3" 3 "cannot reach mountd" mountctl --socket /nonexistent list
expect_fail "usage error: exit 2" 2 "missing arguments" mountctl move /mnt/x
check_output "every command has --help" "Usage: mountctl .*watch" mountctl watch --help

# ---- relative paths: from the working directory, as with mount(8) ------------------
mkdir -p /mnt/rel/data && echo rel-content >/mnt/rel/data/f
check "a relative mount point is taken from the working directory" \
	bash -c 'cd /mnt/rel && mountctl mount -t tmpfs --mkdir none sub'
check "  it is at /mnt/rel/sub" mountpoint -q /mnt/rel/sub
check_fails "  and nothing is at /sub" mountpoint -q /sub
check "a relative bind source and target, too" bash -c 'cd /mnt/rel && mountctl bind --mkdir data b'
check_output "  /mnt/rel/b shows data's file" '^rel-content$' cat /mnt/rel/b/f
check "umount by relative path" bash -c 'cd /mnt/rel && mountctl umount sub && mountctl umount b'
relns=$(new_mntns)
pids+=("$relns")
expect_fail "a relative path in another namespace is refused" 2 "relative path 'sub' in another namespace" \
	bash -c "cd /mnt/rel && mountctl --pid $relns umount sub"

# ---- errors in the words of what is wrong, the syscall detail after them ------------
expect_fail "a missing mount point is named, with the hint" 1 \
	"mount point /mnt/no/such/dir does not exist \(use --mkdir\) \(resolve:target failed: ENOENT" \
	mountctl mount -t tmpfs none /mnt/no/such/dir
expect_fail "an unknown filesystem type is named" 1 \
	"unknown filesystem type 'tmpfz' \(fsopen failed: ENODEV" \
	mountctl mount -t tmpfz --mkdir none /mnt/tmpfz
expect_fail "umount of a directory that is no mount point says so" 1 \
	"/mnt/rel is not a mount point" mountctl umount /mnt/rel
expect_fail "a pid that does not exist is named" 1 "no process 999999" \
	mountctl --pid 999999 umount /x
expect_fail "an unknown info attribute lists the ones there are" 1 \
	"unknown attribute 'bogus'; the attributes are: statfs, fsinfo, ids,.* source" \
	mountctl info / bogus
check_output "GetInfo names the vendor and the documentation" \
	'"vendor": "mountd project".*"url": "man:mountd\(8\)"' \
	python3 "$TOP/tests/guest/varlink.py" --socket /run/mountd/io.mountd.Mount \
	org.varlink.service.GetInfo

# ---- the README's examples, as printed ----------------------------------------------
# On the host, the first block only: the rest needs loop devices and the
# guest's scratch disk.
python3 "$TOP/tests/guest/readme-examples.py" ${MOUNTCTL_TEST_HOST:+--first} "$TOP/README.md" \
	>"$work/readme.sh"
check_output "the README examples work as printed" README-OK bash "$work/readme.sh"

check "mountd is still running" kill -0 "$mountd"
done_testing
