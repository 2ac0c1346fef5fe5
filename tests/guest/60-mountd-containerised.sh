#!/bin/bash
# mountd from its container image (make oci, installed as
# /usr/lib/mountd/oci), run by crun through mountd-container and through
# mountd-container.service: what the container holds, what it is given
# (docs/CONTAINER.md), that it is this mountd that serves the host's socket
# and bus name and mounts into other namespaces, and that stopping it leaves
# no process of it behind.  61- and 62- re-run the attack suite and the
# container tests against it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"
export MOUNTD_CONTAINERISED=1
OCI=/usr/lib/mountd/oci
M=$(command -v mountctl || echo "$BUILD/mountctl")

# ---- the image: mountd and the libraries it loads, nothing else
check "the bundle is installed: config.json and its rootfs" test -f $OCI/config.json -a -d $OCI/rootfs
check_output "its only program is mountd" '^usr/libexec/mountd$' \
	bash -c "cd $OCI/rootfs && find . -type f -perm -u+x ! -name '*.so*' -printf '%P\n'"
check_fails "  no shell in it" test -e $OCI/rootfs/bin/sh -o -e $OCI/rootfs/usr/bin/sh
check "  every library mountd needs is in it" \
	chroot $OCI/rootfs /usr/lib64/ld-linux-x86-64.so.2 --list /usr/libexec/mountd

# ---- run: crun, the host's pid namespace, a mount namespace of its own
export MOUNTD_POLICY=$work/policy
echo 'allow user=1000 method=Create,List,Unmount fstype=tmpfs namespace=owned' >"$MOUNTD_POLICY"
check "mountd-container starts mountd under crun" start_mountd
chmod 0666 $SOCK
check_output "crun lists the container as running, with mountd's pid" "^mountd +$mountd +running " \
	crun list
check_output "systemd's mountd.service and mountd.socket are not running" '^inactive inactive$' \
	bash -c 'echo $(systemctl is-active mountd.service mountd.socket)'
ns_of() { readlink /proc/$1/ns/$2; }
check "its pid namespace, network and user namespace are the host's" \
	test "$(ns_of $mountd pid)$(ns_of $mountd net)$(ns_of $mountd user)" = "$(ns_of 1 pid)$(ns_of 1 net)$(ns_of 1 user)"
check "its mount, ipc, uts and cgroup namespaces are its own" \
	bash -c "for t in mnt ipc uts cgroup; do [ \$(readlink /proc/$mountd/ns/\$t) != \$(readlink /proc/1/ns/\$t) ] || exit 1; done"
check_output "its root is the image's: mountd alone in /usr/libexec" '^mountd$' ls /proc/$mountd/root/usr/libexec
check_output "its cgroup is the container's" 'mountd' cat /proc/$mountd/cgroup
# The seven capabilities of docs/CONTAINER.md: DAC_OVERRIDE 1, DAC_READ_SEARCH
# 2, SETGID 6, SETUID 7, SYS_CHROOT 18, SYS_PTRACE 19, SYS_ADMIN 21.
check_output "bounding set: exactly the seven capabilities" '^CapBnd:[[:space:]]+00000000002c00c6$' \
	cat /proc/$mountd/status
check_output "  the loop's effective set: SYS_ADMIN and SYS_PTRACE" '^CapEff:[[:space:]]+0000000000280000$' \
	cat /proc/$mountd/status
check_output "no new privileges" '^NoNewPrivs:[[:space:]]+1$' cat /proc/$mountd/status

# Who listens on the socket: the inode bound to the path is one of its fds.
listens() {
	local ino
	ino=$(awk -v p=$SOCK '$8 == p && $6 == "01" {print $7}' /proc/net/unix | head -1)
	[ -n "$ino" ] && ls -l /proc/$1/fd | grep -q "socket:\[$ino\]"
}
check "the socket the host's clients use is the container's mountd's" listens $mountd
check_output "the D-Bus name io.mountd1 is its too" "^u $mountd$" \
	busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
	GetConnectionUnixProcessID s io.mountd1

# ---- serving: a mount into another namespace, as root and as a user
target=$(new_mntns)
check "mountctl --pid (another namespace) mount -t tmpfs" \
	$M --pid $target mount -t tmpfs -o size=1m --mkdir none /mnt/from-container
check_output "  the tmpfs is in that namespace" '^tmpfs$' \
	nsenter -t $target -m findmnt -n -o FSTYPE /mnt/from-container
check_fails "  not in the host's" mountpoint -q /mnt/from-container
check_output "  the container's mountd journaled it (_PID=$mountd)" '^Create tmpfs ok$' \
	bash -c 'records MOUNTD_METHOD=Create | fields MOUNTD_METHOD MOUNTD_FSTYPE MOUNTD_RESULT | tail -1'
user_container
check_output "a user's tmpfs in its own container, over D-Bus" '^t.* "tmpfs" .*"move_mount"' \
	as_user busctl --system call io.mountd1 /io/mountd1 io.mountd1.Manager Create 'sa(ssv)a{sv}' \
	tmpfs 0 1 placement a{sv} 3 namespace a{sv} 1 pid u $container path s /tmp/ctr-dbus \
	create s directory
check_output "  it is there, nosuid,nodev" 'nosuid.*nodev' \
	nsenter -t $container -m findmnt -n -o VFS-OPTIONS /tmp/ctr-dbus
check_output "  into the host's namespace the user is refused" 'PermissionDenied' \
	vdenied Create '{"fsType":"tmpfs","placement":{"namespace":{"pid":1},"path":"/mnt"}}'

# ---- images on dm-verity from inside the container: libcryptsetup with
# /dev/mapper/control, no udev cookie to wait for (the container's IPC
# namespace is its own), the host's /etc/verity.d; a user's devices counted
# in the host's /run/mountd
mkdir -p $work/vtree $work/vdefs /etc/verity.d /mnt/ctr-verity
echo from-ctr-image >$work/vtree/hello
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=mountd-ctr-test \
	-keyout $work/v.key -out $work/v.crt 2>/dev/null
install -m 0644 $work/v.crt /etc/verity.d/mountd-ctr-test.crt
printf '[Partition]\nType=root\nFormat=erofs\nCopyFiles=%s:/\nVerity=data\nVerityMatchKey=root\nMinimize=best\n' \
	$work/vtree >$work/vdefs/10-root.conf
printf '[Partition]\nType=root-verity\nVerity=hash\nVerityMatchKey=root\nMinimize=best\n' >$work/vdefs/20-verity.conf
printf '[Partition]\nType=root-verity-sig\nVerity=signature\nVerityMatchKey=root\n' >$work/vdefs/30-sig.conf
check "systemd-repart makes a signed DDI" systemd-repart --definitions=$work/vdefs --empty=create \
	--size=auto --dry-run=no --offline=yes --private-key=$work/v.key --certificate=$work/v.crt $work/v.raw
call ddi Create '{"image":{"fd":0},"placement":{"path":"/mnt/ctr-verity"}}' --fd $work/v.raw:r
check "root's signed DDI mounts through the containerised mountd" \
	jtest $work/ddi '"/CN=mountd-ctr-test" in p["verity"]["signedBy"]'
check_output "  on a dm-verity device, read-only" ' ro[, ].* - erofs /dev/dm-[0-9]+ ' \
	grep ' /mnt/ctr-verity ' /proc/1/mountinfo
check_output "  its content is readable" from-ctr-image cat /mnt/ctr-verity/hello
umount /mnt/ctr-verity
check "  unmounted, no device is left" wait_for 10 bash -c '! dmsetup ls | grep -q mountd-verity'
rm -f /etc/verity.d/mountd-ctr-test.crt
echo 'allow user=1000 method=Create,Unmount image=yes namespace=owned' >>"$MOUNTD_POLICY"
kill -HUP $mountd
mkfs.erofs /tmp/ctr-user.erofs $work/vtree >/dev/null && chmod 644 /tmp/ctr-user.erofs
rm -rf /run/mountd/devices/$USER_ID
# Once mountd has read the policy again (SIGHUP).
user_create() {
	user_varlink --fd /tmp/ctr-user.erofs:r io.mountd.Mount.Create \
		"{\"image\":{\"fd\":0},\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr-img\",\"create\":\"directory\"}}" |
		grep -q '"loopDevice"'
}
check "a user's image in its own container (EROFS on tmpfs: a loop device)" wait_for 10 user_create
check_output "  its loop device is counted against the user, in the host's /run/mountd" '^1$' \
	bash -c "ls /run/mountd/devices/$USER_ID | wc -l"
nsenter -t $container -m umount /tmp/ctr-img
rm -f /tmp/ctr-user.erofs

# ---- stop: mountd drains and exits; nothing of the container stays
workers=$(cat /proc/$mountd/task/*/children)
cgroup=/sys/fs/cgroup$(cut -d: -f3 /proc/$mountd/cgroup)
mntns=$(ns_of $mountd mnt)
check "it has workers (the requests above)" test -n "$workers"
check "crun kill mountd TERM: mountd exits 0" stop_mountd
check "  its workers are gone" bash -c "for w in $workers; do ! kill -0 \$w 2>/dev/null || exit 1; done"
check_fails "  its cgroup is gone" test -d "$cgroup"
check "  no process is left in its mount namespace" \
	bash -c "for p in /proc/[0-9]*; do [ \"\$(readlink \$p/ns/mnt 2>/dev/null)\" != '$mntns' ] || exit 1; done"
check_fails "  crun no longer knows it" bash -c 'crun list | grep -q "^mountd "'
check_output "  the mounts it made for its callers stay" '^tmpfs$' \
	nsenter -t $target -m findmnt -n -o FSTYPE /mnt/from-container
kill $target $container

# ---- a container given every capability, as a privileged pod is: mountd
# keeps its seven all the same (caps_bound)
mkdir -p $work/priv
python3 - $OCI/config.json $work/priv/config.json <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["root"]["path"] = "/usr/lib/mountd/oci/rootfs"
every = ("CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP "
         "LINUX_IMMUTABLE NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER "
         "SYS_MODULE SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE "
         "SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE AUDIT_CONTROL SETFCAP "
         "MAC_OVERRIDE MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND AUDIT_READ PERFMON BPF "
         "CHECKPOINT_RESTORE").split()
for s in ("bounding", "effective", "permitted", "inheritable", "ambient"):
    c["process"]["capabilities"][s] = ["CAP_" + x for x in every]
c["process"]["noNewPrivileges"] = False
json.dump(c, open(sys.argv[2], "w"))
PY
rm -f $SOCK
MOUNTD_OCI_BUNDLE=$work/priv /usr/libexec/mountd-container mountd-priv 2>$work/priv.log &
runner=$!
wait_sock() { for _ in $(seq 300); do [ -S $SOCK ] && return 0; sleep 0.1; done; return 1; }
check "mountd starts in a container with every capability" wait_sock
pid=$(crun state mountd-priv 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
check_output "  its bounding set is the seven all the same" '^CapBnd:[[:space:]]+00000000002c00c6$' \
	cat /proc/$pid/status
check_output "  permitted the seven, nothing inheritable or ambient" \
	'CapInh:[[:space:]]+0+ CapPrm:[[:space:]]+00000000002c00c6 .*CapAmb:[[:space:]]+0+$' \
	bash -c "grep ^Cap /proc/$pid/status | tr '\n' ' ' | sed 's/ $//'"
crun kill mountd-priv TERM
check "  it stops" wait $runner

# ---- as a node runs it: mountd-container.socket and .service
unset MOUNTD_POLICY
check_output "the container's units are off after boot (the preset)" \
	'^disabled static inactive inactive$' bash -c 'echo $(systemctl is-enabled mountd-container.socket \
	mountd-container.service; systemctl is-active mountd-container.socket mountd-container.service); true'
systemctl stop mountd.socket mountd.service
rm -f $SOCK
check "systemctl start mountd-container.socket" systemctl start mountd-container.socket
check_output "  mountd.socket is not running (they conflict)" '^inactive$' \
	bash -c 'systemctl is-active mountd.socket; true'
check_output "a connection starts mountd-container.service, which answers" '"mounts"' \
	varlinkctl call --json=short $SOCK io.mountd.Mount.List '{}'
pid=$(crun state mountd 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
main=$(systemctl show -P MainPID mountd-container.service)
check_output "  systemd's main process is crun run, mountd's parent" "^PPid:[[:space:]]+$main$" \
	cat /proc/$pid/status
check_output "  which is crun" '^crun$' cat /proc/$main/comm
check "  mountd is in a mount namespace of its own" test "$(ns_of $pid mnt)" != "$(ns_of 1 mnt)"
check "  it serves systemd's socket, passed into the container" \
	bash -c "$(declare -f listens); listens 1 && listens $pid"
workers=$(cat /proc/$pid/task/*/children)
check "systemctl stop mountd-container.service" systemctl stop mountd-container.service
check "  mountd and its workers are gone" \
	bash -c "for w in $pid $workers; do ! kill -0 \$w 2>/dev/null || exit 1; done"
check_output "  the socket stays; the next call starts it again" '"mounts"' \
	varlinkctl call --json=short $SOCK io.mountd.Mount.List '{}'
pid2=$(crun state mountd 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
check "  another mountd, in its container" bash -c "[ -n '$pid2' ] && [ '$pid2' != $pid ] &&
	[ \$(readlink /proc/$pid2/ns/mnt) != \$(readlink /proc/1/ns/mnt) ]"
check_output "starting mountd.socket stops both (they conflict)" '^inactive inactive active$' \
	bash -c 'systemctl start mountd.socket; echo $(systemctl is-active mountd-container.service mountd-container.socket mountd.socket); true'
check_fails "  no process of it is left" kill -0 $pid2
check_fails "  crun no longer knows it" bash -c 'crun list | grep -q "^mountd "'
check_output "  and mountd.socket starts the host's mountd again" '"mounts"' \
	varlinkctl call --json=short $SOCK io.mountd.Mount.List '{}'
check "  from the host's mount namespace" \
	test "$(ns_of "$(systemctl show -P MainPID mountd.service)" mnt)" = "$(ns_of 1 mnt)"
systemctl stop mountd.socket mountd.service

rm -rf "$work"
done_testing
