#!/bin/bash
# The same image as a systemd portable service: `portablectl attach
# --profile=trusted mountd` (/usr/lib/portables/mountd is the OCI bundle's
# rootfs) gives mountd.socket and mountd.service from the image, hardening
# included, with the image as the service's root.  The package's own units
# are moved aside for it, as on a host without the package.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/units-lib.sh"
. "$(dirname "$0")/mountd-lib.sh"
M=$(command -v mountctl || echo "$BUILD/mountctl")

fresh_units
systemctl stop mountd.socket mountd.service
aside=$work/package-units
mkdir -p "$aside"
mv /usr/lib/systemd/system/mountd.service /usr/lib/systemd/system/mountd.socket "$aside/"
rm -f /etc/systemd/system/sockets.target.wants/mountd.socket
systemctl daemon-reload
rm -f $SOCK
# The shipped policy goes aside for this test and comes back after it.
cp -a /etc/mountd/policy "$aside/policy"
echo 'allow user=1000 method=Create fstype=tmpfs namespace=owned' >/etc/mountd/policy

check_output "portablectl list shows the image" '^mountd ' portablectl list --no-legend
check "portablectl attach --profile=trusted --runtime mountd" \
	portablectl attach --profile=trusted --runtime --now mountd
check_output "  the units come from the image" '/run/systemd/system.attached/mountd.service' \
	systemctl show -P FragmentPath mountd.service
check_output "  its hardening with them: the bounding set" 'cap_sys_admin' \
	systemctl show -P CapabilityBoundingSet mountd.service
check_output "  root directory: the image" '^/usr/lib/mountd/oci/rootfs$' \
	systemctl show -P RootDirectory mountd.service
check_output "mountd.socket is listening" '^active$' systemctl is-active mountd.socket
check_output "a request starts mountd from the socket" '"mounts"' \
	varlinkctl call --json=short $SOCK io.mountd.Mount.List '{}'
pid=$(main_pid)
check_output "  its root is the image: mountd alone in /usr/libexec" '^mountd$' \
	ls /proc/$pid/root/usr/libexec
check "  in a mount namespace of its own" test "$(readlink /proc/$pid/ns/mnt)" != "$(readlink /proc/1/ns/mnt)"
user_container
check_output "the host's /etc/mountd/policy holds: a user's tmpfs in its own container" '"mountId"' \
	vcall Create "{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/portable-user\",\"create\":\"directory\"}}"
kill $container
target=$(new_mntns)
check "mountctl --pid mount -t tmpfs in another namespace" \
	$M --pid $target mount -t tmpfs -o size=1m --mkdir none /mnt/portable
check_output "  it is there" '^tmpfs$' nsenter -t $target -m findmnt -n -o FSTYPE /mnt/portable
kill $target
check "portablectl detach --now --runtime mountd" portablectl detach --now --runtime mountd
check_fails "  mountd is gone" kill -0 $pid
check_fails "  and so are its units" test -e /run/systemd/system.attached/mountd.service

mv "$aside/policy" /etc/mountd/policy
mv "$aside"/mountd.* /usr/lib/systemd/system/
systemctl daemon-reload
rm -rf "$work"
done_testing
