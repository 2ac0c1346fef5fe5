#!/bin/bash
# mountd as installed: socket activation, the hardened service still mounts
# into other users' namespaces (capabilities, seccomp, device policy), and
# idle exit.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/units-lib.sh"

fresh_units
check "systemd-analyze verify finds nothing to complain about" bash -c \
	'out=$(systemd-analyze verify --man=no mountd.socket mountd.service 2>&1); echo "$out"; [ -z "$out" ]'
check_output "mountd.socket is enabled in the image" "^enabled$" systemctl is-enabled mountd.socket
check_output "sockets.target pulls it in" "(^| )mountd\.socket( |$)" systemctl show -P Wants sockets.target
check_output "mountd.socket listens" "^active$" systemctl is-active mountd.socket
check_output "the socket is world-connectable (the daemon authorizes)" "^srw-rw-rw-" ls -l $SOCK
check_fails "mountd.service does not run before the first connection" \
	systemctl is-active mountd.service
check "the first connection is answered" $V org.varlink.service.GetInfo
check_output "then mountd.service is active (socket activation)" "^active$" \
	systemctl is-active mountd.service

pid=$(main_pid)
check "mountd runs in the host's mount namespace" \
	test "$(readlink /proc/$pid/ns/mnt)" = "$(readlink /proc/1/ns/mnt)"
check_output "no new privileges" "^NoNewPrivs:[[:space:]]+1$" grep NoNewPrivs /proc/$pid/status
check_output "a seccomp filter is installed" "^Seccomp:[[:space:]]+2$" grep "^Seccomp:" /proc/$pid/status
# CAP_DAC_OVERRIDE(1) CAP_DAC_READ_SEARCH(2) CAP_SETGID(6) CAP_SETUID(7)
# CAP_SYS_CHROOT(18) CAP_SYS_PTRACE(19) CAP_SYS_ADMIN(21), nothing else.
check_output "the bounding set is exactly the seven capabilities" \
	"^CapBnd:[[:space:]]+00000000002c00c6$" grep "^CapBnd:" /proc/$pid/status

# Under all that: a mount into the namespace of another user's process
# (CAP_SYS_PTRACE for its /proc/PID/ns, setns, creating the mount point).
ns=$(in_userns_mntns)
check "Create places a tmpfs in a namespace of user nobody" \
	$V io.mountd.Mount.Create "{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$ns},\"path\":\"/tmp/units-ns\",\"create\":\"directory\"}}"
check_output "it is mounted there" "^1$" count_mounts "$ns" /tmp/units-ns
check_output "and not on the host" "^0$" count_mounts 1 /tmp/units-ns
kill "$ns" 2>/dev/null
rmdir /tmp/units-ns 2>/dev/null

# Least privilege inside that set (daemon/executor-caps.h): the loop needs
# CAP_SYS_PTRACE(19) and CAP_SYS_ADMIN(21) only; a worker keeps
# CAP_DAC_OVERRIDE(1), CAP_DAC_READ_SEARCH(2), CAP_SETGID(6), CAP_SETUID(7),
# CAP_SYS_CHROOT(18) and CAP_SYS_ADMIN(21), permitted too, and no PTRACE.
check_output "mountd's effective set is CAP_SYS_PTRACE and CAP_SYS_ADMIN" \
	"^CapEff:[[:space:]]+0000000000280000$" grep "^CapEff:" /proc/$pid/status
$V io.mountd.Mount.Info '{"path":"/"}' >/dev/null 2>&1
worker=$(pgrep -P "$pid" -x mountd-worker | head -n1)
check_output "a worker's permitted set is the six it needs" \
	"^CapPrm:[[:space:]]+00000000002400c6$" grep "^CapPrm:" /proc/${worker:-0}/status
check_output "  and so is its effective set" \
	"^CapEff:[[:space:]]+00000000002400c6$" grep "^CapEff:" /proc/${worker:-0}/status

# fsinfo() is a syscall libseccomp does not know: the filter must let it
# through (noFallback: no statfs() stand-in).
check_output "fsinfo() passes the service's seccomp filter" '"source": *"fsinfo"' \
	$V io.mountd.Mount.Info '{"path":"/","attribute":"statfs","noFallback":true}'

# DevicePolicy=closed with block devices and loop-control allowed.
truncate -s 16M "$work/img" && mkfs.ext4 -q "$work/img"
check "an image mounts through a loop device under the device policy" \
	$V --fd "$work/img:rw" io.mountd.Mount.Create '{"image":{"fd":0},"placement":{"path":"/tmp/units-img","create":"directory"}}'
check_output "it is ext4 on a loop device" "^ext4 /dev/loop" findmnt -n -o FSTYPE,SOURCE /tmp/units-img
check "and unmounts" $V io.mountd.Mount.Unmount '{"path":"/tmp/units-img"}'
rmdir /tmp/units-img 2>/dev/null

# PassCredentials=yes adds SCM_CREDENTIALS to every message: up to the
# limit of 16 fds a call still arrives whole through the real socket, and
# the fds it carried are gone from mountd once it is answered.
pid=$(main_pid)
nfd_before=$(ls /proc/$pid/fd | wc -l)
for n in 1 8 9 16; do
	fdargs=()
	for _ in $(seq $n); do fdargs+=(--fd /etc/hostname); done
	check "a call with $n fds through mountd.socket is answered" \
		$V "${fdargs[@]}" org.varlink.service.GetInfo
done
check "mountd holds no more fds than before those calls" \
	wait_for 10 bash -c "[ \$(ls /proc/$pid/fd | wc -l) -le $nfd_before ]"
fdargs=()
for _ in $(seq 17); do fdargs+=(--fd /etc/hostname); done
check_output "17 fds: the connection is closed, nothing answered" "connection closed|Connection reset" \
	bash -c '$0 "$@" 2>&1; true' $V "${fdargs[@]}" org.varlink.service.GetInfo
check "and mountd still answers" $V org.varlink.service.GetInfo

# Idle exit: 3 quiet seconds in this test (60 in the unit).
dropin "Environment=MOUNTD_IDLE_SEC=3"
systemctl stop mountd.service
check "after a restart with MOUNTD_IDLE_SEC=3 a call starts it again" $V org.varlink.service.GetInfo
pid=$(main_pid)
check "it exits on its own when idle" wait_for 15 bash -c '! systemctl is-active -q mountd.service'
check_output "a clean exit, not a failure" "^success$" systemctl show -P Result mountd.service
check_output "the socket stays" "^active$" systemctl is-active mountd.socket
check "the next call is answered" $V io.mountd.Mount.List '{}'
check "by a new instance" bash -c "[ \"\$(systemctl show -P MainPID mountd.service)\" != $pid ] && [ \"\$(systemctl show -P MainPID mountd.service)\" != 0 ]"

fresh_units
rm -rf "$work"
done_testing
