#!/bin/bash
# mountd image sources: an image fd becomes an autoclear loop device
# (LOOP_CONFIGURE), read-only when the fd is, a partition picked by number or
# GPT type, the filesystem type probed with libblkid.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

start_mountd
ns=$(new_mntns)
inns() { nsenter -t "$ns" -m "$@"; }

# A whole-disk ext4 image with a file on it.
truncate -s 32M "$work/fs.img"
mkdir -p "$work/content"
echo from-image >"$work/content/hello"
mkfs.ext4 -q -d "$work/content" "$work/fs.img"

check "create from an image fd, fs type probed, placed in the namespace" \
	call img Create '{"image":{"fd":0},"placement":{"namespace":{"pid":'"$ns"'},"path":"/mnt/img","create":"directory"}}' --fd "$work/fs.img:rw"
check "the reply names ext4 and the loop device" \
	jtest "$work/img" 'p["fsType"] == "ext4" and p["loopDevice"].startswith("/dev/loop")'
loopdev=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["parameters"].get("loopDevice",""))' "$work/img")
check_output "the image content is visible in the namespace" "from-image" inns cat /mnt/img/hello
check_output "the loop device has autoclear set" "1" cat "/sys/block/${loopdev#/dev/}/loop/autoclear"
check "unmount the image" call imgu Unmount '{"namespace":{"pid":'"$ns"'},"path":"/mnt/img"}'
gone() { for _ in $(seq 50); do [ ! -e "/sys/block/${1#/dev/}/loop/backing_file" ] && return 0; sleep 0.1; done; return 1; }
check "the loop device was released after the unmount (autoclear)" gone "$loopdev"

# A read-only fd gives a read-only loop device.
check "create from a read-only image fd with ro" \
	call imgro Create '{"image":{"fd":0},"parameters":[{"key":"ro","type":"flag"}],"placement":{"namespace":{"pid":'"$ns"'},"path":"/mnt/ro","create":"directory"}}' --fd "$work/fs.img:r"
loopro=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["parameters"].get("loopDevice",""))' "$work/imgro")
check_output "the loop device is read-only" "^1$" blockdev --getro "$loopro"
check_fails "writing to the read-only image mount fails" inns touch /mnt/ro/new
call imgrou Unmount '{"namespace":{"pid":'"$ns"'},"path":"/mnt/ro"}'

# A GPT image: partition 1 an ESP-typed blob, partition 2 a Linux filesystem.
truncate -s 40M "$work/disk.img"
python3 "$TOP/tests/guest/mkgpt.py" "$work/disk.img" \
	2048:4096:C12A7328-F81F-11D2-BA4B-00A0C93EC93B \
	8192:32768:0FC63DAF-8483-4772-8E79-3D69D8477DE4
mkfs.ext4 -q -d "$work/content" -E offset=$((8192 * 512)) "$work/disk.img" 16M
check "mount partition 2 by number" \
	call p2 Create '{"image":{"fd":0,"partition":2},"placement":{"namespace":{"pid":'"$ns"'},"path":"/mnt/p2","create":"directory"}}' --fd "$work/disk.img:rw"
# The loop device a reply names (without /dev/): its offset and size
# limit, and whether the kernel scanned it for partitions.
loop_of() { python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["parameters"]["loopDevice"][5:])' "$work/$1"; }
loop_span() { local d; d=$(loop_of "$1") && echo "$(cat /sys/block/$d/loop/offset) $(cat /sys/block/$d/loop/sizelimit)"; }
loop_ro() { blockdev --getro "/dev/$(loop_of "$1")"; }
loop_partitions() { local d; d=$(loop_of "$1") && echo "$(cat /sys/block/$d/loop/partscan) $(ls /sys/block/$d | grep -c "^${d}p")"; }
check "the reply names ext4" jtest "$work/p2" 'p["fsType"] == "ext4"'
check_output "the loop device is over partition 2's bytes alone" "^$((8192 * 512)) $((32768 * 512))\$" loop_span p2
check_output "  ... not scanned for partitions: no partition devices" "^0 0\$" loop_partitions p2
check_output "partition 2's content is visible" "from-image" inns cat /mnt/p2/hello
call p2u Unmount '{"namespace":{"pid":'"$ns"'},"path":"/mnt/p2"}'
check "a read-only fd's partition: narrowed the same, read-only" bash -c "
	$V --fd $work/disk.img:r io.mountd.Mount.Create '{\"image\":{\"fd\":0,\"partition\":2},\"parameters\":[{\"key\":\"ro\",\"type\":\"flag\"}],\"placement\":{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/p2ro\",\"create\":\"directory\"}}' >$work/p2ro"
check_output "  ... over partition 2's bytes" "^$((8192 * 512)) $((32768 * 512))\$" loop_span p2ro
check_output "  ... the device is read-only" "^1\$" loop_ro p2ro
check_output "  ... its content is visible" "from-image" inns cat /mnt/p2ro/hello
call p2rou Unmount '{"namespace":{"pid":'"$ns"'},"path":"/mnt/p2ro"}'
check "the caller's image fd keeps its file offset (mountd reads a copy of its own)" python3 -c '
import array, json, os, socket, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.lseek(fd, 12345, os.SEEK_SET)
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[2])
call = {"method": "io.mountd.Mount.Create",
        "parameters": {"image": {"fd": 0, "partition": 2}, "parameters": [{"key": "ro", "type": "flag"}]}}
s.sendmsg([json.dumps(call).encode() + b"\0"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])
buf = b""
while not buf.endswith(b"\0"):
    buf += s.recv(65536)
reply = json.loads(buf[:-1])
assert "error" not in reply, reply
sys.exit(0 if os.lseek(fd, 0, os.SEEK_CUR) == 12345 else 1)' "$work/disk.img" "$SOCK"
check "mount the Linux filesystem partition by GPT type" \
	call pt Create '{"image":{"fd":0,"partitionType":"0fc63daf-8483-4772-8e79-3d69d8477de4"},"placement":{"namespace":{"pid":'"$ns"'},"path":"/mnt/pt","create":"directory"}}' --fd "$work/disk.img:rw"
check_output "the GPT type picked partition 2" "^$((8192 * 512)) $((32768 * 512))\$" loop_span pt
call ptu Unmount '{"namespace":{"pid":'"$ns"'},"path":"/mnt/pt"}'
check "an absent GPT type fails at loop:partition and leaves no loop device" bash -c "
	! $V --fd $work/disk.img:rw io.mountd.Mount.Create '{\"image\":{\"fd\":0,\"partitionType\":\"4f68bce3-e8cd-4db1-96e7-fbcaf984b709\"}}' >$work/pa &&
	jtest $work/pa 'p[\"step\"] == \"loop:partition\"' &&
	sleep 0.5 && ! losetup -j $work/disk.img | grep -q ."
check "the whole partitioned disk fails at the probe, no loop device made" bash -c "
	! $V --fd $work/disk.img:r io.mountd.Mount.Create '{\"image\":{\"fd\":0}}' >$work/pw &&
	jtest $work/pw 'p[\"step\"] == \"probe\" and not any(s[\"step\"] == \"loop:configure\" for s in p[\"steps\"])' &&
	sleep 0.5 && ! losetup -j $work/disk.img | grep -q ."
check "  ... and the error says to name a partition of its GPT" \
	jtest "$work/pw" 'any(m["text"] == "no filesystem signature, but a gpt partition table: name a partition (partition or partitionType)" for m in p["messages"])'
check "a missing partition number fails and leaves no loop device" bash -c "
	! $V --fd $work/disk.img:rw io.mountd.Mount.Create '{\"image\":{\"fd\":0,\"partition\":7}}' >$work/pb &&
	jtest $work/pb 'p[\"step\"] == \"loop:partition\"' &&
	sleep 0.5 && ! losetup -j $work/disk.img | grep -q ."
check "a character device as the image is refused at loop:configure (EINVAL), nothing set up" bash -c "
	! $V --fd /dev/null io.mountd.Mount.Create '{\"image\":{\"fd\":0,\"partition\":1}}' >$work/pd &&
	jtest $work/pd 'p[\"step\"] == \"loop:configure\" and p[\"errnoName\"] == \"EINVAL\"' &&
	! losetup -a | grep -q /dev/null"
check "an image fd that is not an image fails at the filesystem" bash -c "
	! $V --fd /etc/hostname io.mountd.Mount.Create '{\"image\":{\"fd\":0}}' >$work/pc &&
	jtest $work/pc 'p[\"step\"] in (\"probe\", \"loop:configure\")'"

# A swap area is something libblkid knows, but no filesystem: the probe
# says so, and no type of its naming goes to fsopen() (which would try to
# load a module "fs-swap").  Nothing is set up and the target is untouched.
truncate -s 16M "$work/swap.img"
mkswap -q "$work/swap.img" >/dev/null
check_output "libblkid itself names the swap image swap" "^swap$" blkid -o value -s TYPE "$work/swap.img"
inns cat /proc/self/mountinfo >"$work/mi-before"
check "a swap image fails at the probe with EMEDIUMTYPE" bash -c "
	! $V --fd $work/swap.img:rw io.mountd.Mount.Create '{\"image\":{\"fd\":0},\"placement\":{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/swap\",\"create\":\"directory\"}}' >$work/ps &&
	jtest $work/ps 'p[\"step\"] == \"probe\" and p[\"errnoName\"] == \"EMEDIUMTYPE\"'"
check "the error says what the image holds instead" \
	jtest "$work/ps" 'any(m["step"] == "probe" and m["text"] == "swap: not a filesystem" for m in p["messages"])'
check "it was refused before a loop device was made (no loop:configure, no fsopen)" \
	jtest "$work/ps" 'not any(s["step"] in ("loop:configure", "fsopen") for s in p["steps"])'
check "no loop device is left on the swap image" bash -c "sleep 0.5; ! losetup -j $work/swap.img | grep -q ."
inns cat /proc/self/mountinfo >"$work/mi-after"
check "the target's mount table is as it was" cmp "$work/mi-before" "$work/mi-after"
check "no mount point was created for it" inns test ! -e /mnt/swap

# Two filesystems' signatures: ext4's superblock and, in the first sector
# ext4 leaves alone, a FAT16 boot sector (as a disk reformatted without
# wiping looks).  Which one is meant is the caller's to say, not a guess.
truncate -s 32M "$work/amb.img"
mkfs.ext4 -q "$work/amb.img"
python3 - "$work/amb.img" <<'PY'
import struct, sys
bs = bytearray(512)
bs[0:11] = b"\xeb\x3c\x90MSDOS5.0"
struct.pack_into("<HBHBHHBHHHII", bs, 11, 512, 4, 1, 2, 512, 0, 0xF8, 32, 32, 64, 0, 65536)
struct.pack_into("<BBBI11s8s", bs, 36, 0x80, 0, 0x29, 0x12345678, b"NO NAME    ", b"FAT16   ")
bs[510:512] = b"\x55\xaa"
with open(sys.argv[1], "r+b") as f:
    f.write(bs)
PY
check "wipefs sees both signatures" bash -c "wipefs -n $work/amb.img | grep -q ext4 && wipefs -n $work/amb.img | grep -q vfat"
check "an image with two filesystems' signatures fails at the probe" bash -c "
	! $V --fd $work/amb.img:rw io.mountd.Mount.Create '{\"image\":{\"fd\":0}}' >$work/pm &&
	jtest $work/pm 'p[\"step\"] == \"probe\" and p[\"errnoName\"] == \"EMEDIUMTYPE\"'"
check "the error says there are two and to name the type" \
	jtest "$work/pm" 'any(m["text"] == "more than one filesystem signature (vfat, ext4): give fsType" for m in p["messages"])'
check "with fsType ext4 named, the same image mounts" \
	call amb Create '{"image":{"fd":0},"fsType":"ext4","parameters":[{"key":"ro","type":"flag"}],"placement":{"namespace":{"pid":'"$ns"'},"path":"/mnt/amb","create":"directory"}}' --fd "$work/amb.img:r"
call ambu Unmount '{"namespace":{"pid":'"$ns"'},"path":"/mnt/amb"}'

stop_mountd
kill "$ns" 2>/dev/null
rm -rf "$work"
done_testing
