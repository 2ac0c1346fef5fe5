#!/bin/bash
# mountd SIGKILLed in the middle of a change (issue 15): between attaching a
# loop device and mounting it, between making a dm-verity device and
# mounting it, between fsmount() and move_mount(), between
# making a mount point and placing the mount on it.  MOUNTD_TEST_STOP_AT
# (daemon/test-hook.h) stops the worker exactly there; the test checks that
# the half-made thing exists, kills the whole service as systemd would, and
# then that nothing of it remains once the socket-activated successor has
# started: mountinfo of pid 1 and of the target namespace as before, no
# loop device over the image, no mount point, no record in
# /run/mountd/leftovers, mountd's and its workers' fds as before, and the
# successor serving.  A mount point someone has since put a file into is
# not the one mountd made: it stays.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/units-lib.sh"
. "$(dirname "$0")/faults-lib.sh"

faults_namespace
truncate -s 16M "$work/fs.img"
mkfs.ext4 -q "$work/fs.img"
LEFT=/run/mountd/leftovers
keep_workers

# kill_case STEP NAME JSON [varlink.py options]: the request stops at STEP;
# HALF (a command) must hold then, and AFTER once the successor started.
kill_case() {
	local step=$1 name=$2 json=$3 client
	shift 3
	fresh_units
	dropin "Environment=MOUNTD_TEST_STOP_AT=$step"
	check "$name: mountd serves before" bind_unmount
	snapshot

	$V "$@" io.mountd.Mount.Create "$json" >"$work/client.out" 2>&1 &
	client=$!
	check "$name: the worker stops at $step" wait_for 30 stopped_in_mountd
	check "$name: half made: $HALF" bash -c "$HALF"
	# The successor must not stop there too.
	rm -f "$DROPIN"
	systemctl daemon-reload
	check "$name: SIGKILL to mountd.service" kill_mountd
	check_fails "$name: the client sees the connection end" wait $client
	check "$name: afterwards: $AFTER" wait_for 10 bash -c "$AFTER"
	check "$name: no record left in $LEFT" bash -c "[ -z \"\$(ls -A $LEFT 2>/dev/null)\" ]"
	as_before "$name: the successor"
}

HALF="losetup -j $work/fs.img | grep -q loop"
AFTER="! losetup -j $work/fs.img | grep -q ."
# The mount point the two image cases would make, absent before them.
check_fails "no /mnt/fault-img before" nsenter -t $ns -m test -e /mnt/fault-img
kill_case loop "loop attach" \
	'{"image":{"fd":0},"placement":{"namespace":{"pid":'$ns'},"path":"/mnt/fault-img","create":"directory"}}' \
	--fd "$work/fs.img:rw"
kill_case fsmount "between fsmount and move_mount (image)" \
	'{"image":{"fd":0},"placement":{"namespace":{"pid":'$ns'},"path":"/mnt/fault-img","create":"directory"}}' \
	--fd "$work/fs.img:rw"
check_fails "no mount point was made for it" nsenter -t $ns -m test -e /mnt/fault-img

# A DDI on dm-verity (sys-verity.c), killed once the verity device exists:
# it goes with the worker's fd, and its loop devices with it.
mkdir -p "$work/vtree" "$work/vdefs"
echo verity >"$work/vtree/hello"
printf '[Partition]\nType=root\nFormat=erofs\nCopyFiles=%s:/\nVerity=data\nVerityMatchKey=root\nMinimize=best\n' \
	"$work/vtree" >"$work/vdefs/10-root.conf"
printf '[Partition]\nType=root-verity\nVerity=hash\nVerityMatchKey=root\nMinimize=best\n' \
	>"$work/vdefs/20-verity.conf"
check "systemd-repart makes a DDI with verity" systemd-repart --definitions="$work/vdefs" \
	--empty=create --size=auto --dry-run=no --offline=yes "$work/ddi.raw"
HALF="dmsetup ls | grep -q mountd-verity && losetup -j $work/ddi.raw | grep -q loop"
AFTER="! dmsetup ls | grep -q mountd-verity && ! losetup -j $work/ddi.raw | grep -q ."
kill_case verity "a verity device made, not yet mounted" \
	'{"image":{"fd":0},"placement":{"namespace":{"pid":'$ns'},"path":"/mnt/fault-ddi","create":"directory"}}' \
	--fd "$work/ddi.raw:r"
check_fails "no mount point was made for it" nsenter -t $ns -m test -e /mnt/fault-ddi

HALF="nsenter -t $ns -m test -d /mnt/half && grep -qs /mnt/half $LEFT/*"
AFTER="! nsenter -t $ns -m test -e /mnt/half"
kill_case mountpoint "between mkdir and move_mount" \
	'{"fsType":"tmpfs","placement":{"namespace":{"pid":'$ns'},"path":"/mnt/half","create":"directory"}}'
check_output "the successor says what it removed" "removed /mnt/half" \
	journalctl -b -u mountd.service --no-pager -n 50

# The host's namespace (no namespace named: the caller's), a file.
HALF="test -f /run/fault-file && grep -qs /run/fault-file $LEFT/*"
AFTER="! test -e /run/fault-file"
kill_case mountpoint "a mount point file in pid 1's namespace" \
	'{"fsType":"tmpfs","placement":{"path":"/run/fault-file","create":"file"}}'

# Under a namespace root (an OCI hook's rootfs): the record keeps the root,
# and the successor finds what was made as the request did, under it.
mkdir -p "$work/kroot"
HALF="nsenter -t $ns -m test -d $work/kroot/half && grep -qs kroot $LEFT/*"
AFTER="! nsenter -t $ns -m test -e $work/kroot/half"
kill_case mountpoint "a mount point under a namespace root" \
	'{"fsType":"tmpfs","placement":{"namespace":{"pid":'$ns',"root":"'$work/kroot'"},"path":"/half","create":"directory"}}'
check_output "the successor says what it removed" "removed $work/kroot/half" \
	journalctl -b -u mountd.service --no-pager -n 50

# Not trusted blindly: a directory in use since is no longer what mountd
# made.  HALF puts a file into it while the worker is stopped.
HALF="nsenter -t $ns -m test -d /mnt/used && nsenter -t $ns -m touch /mnt/used/mine"
AFTER="nsenter -t $ns -m test -f /mnt/used/mine"
kill_case mountpoint "a mount point someone used since" \
	'{"fsType":"tmpfs","placement":{"namespace":{"pid":'$ns'},"path":"/mnt/used","create":"directory"}}'
check_output "the successor says it left it alone" "left /mnt/used alone" \
	journalctl -b -u mountd.service --no-pager -n 50

kill $ns
no_keep_workers
fresh_units
rm -rf "$work"
done_testing
