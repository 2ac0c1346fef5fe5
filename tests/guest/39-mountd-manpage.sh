#!/bin/bash
# The container injection of mountd.policy(5)'s EXAMPLE, with the policy
# taken from the man page itself: a member of group "containers" mounts a
# tmpfs into its rootless container and binds a directory it owns there,
# idmapped with the container's mapping; a user outside the group gets
# nothing.  (The man page's paths are a podman container's own root; this
# container shares the host's, so the paths are under /tmp/mp.)
# Then fsinfo(2), installed from docs/man/fsinfo.2.scd: `man 2 fsinfo`
# renders it and it documents the mount walk it gives as its example.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

MOUNTCTL="$BUILD/mountctl"
in_ctr() { nsenter -t $container -m "$@"; }

export MOUNTD_POLICY=$work/policy
example_policy >"$MOUNTD_POLICY"
check_output "the policy under test is the man page's EXAMPLE" \
	'^allow group=containers method=Bind namespace=owned$' cat "$MOUNTD_POLICY"
check "mountd starts with it" start_mountd
chmod 0666 $SOCK

user_container
rm -rf /tmp/mp && mkdir -p /tmp/mp && chmod 0777 /tmp/mp
as_user mkdir /tmp/mp/data && as_user sh -c 'echo from-the-host >/tmp/mp/data/file'

check "a member mounts a tmpfs into its container" \
	member "$MOUNTCTL" --pid $container mount -t tmpfs -o size=64M,nosuid,nodev --mkdir \
	none /tmp/mp/scratch
check_output "  it is there, nosuid,nodev" 'tmpfs .*nosuid.*nodev' \
	in_ctr findmnt -n -o FSTYPE,VFS-OPTIONS /tmp/mp/scratch
check_fails "  and not on the host" mountpoint -q /tmp/mp/scratch
check "a member binds its own directory in, idmapped with the container's mapping" \
	member "$MOUNTCTL" --pid $container bind --idmap /proc/$container/ns/user --mkdir \
	/tmp/mp/data /tmp/mp/data-in
check_output "  its file is there" '^from-the-host$' in_ctr cat /tmp/mp/data-in/file
check_output "  the mount is idmapped" 'idmapped' in_ctr findmnt -n -o VFS-OPTIONS /tmp/mp/data-in
check_fails "a user outside the group gets no tmpfs" \
	as_user "$MOUNTCTL" --pid $container mount -t tmpfs --mkdir none /tmp/mp/other
check_fails "  nothing mounted" in_ctr mountpoint -q /tmp/mp/other

stop_mountd
kill $container 2>/dev/null
rm -rf /tmp/mp "$work"

# Hyphenation off and a wide line, so that no identifier is split.
man_fsinfo() { MANWIDTH=160 MANROFFOPT=-rHY=0 man 2 fsinfo; }
check_output "man 2 fsinfo renders the page" '^fsinfo\(2\) +System Calls Manual' man_fsinfo
check_output "  it documents fsinfo_attr_mount_record" 'fsinfo_attr_mount_record' man_fsinfo
check_output "  and FSINFO_FLAG_QUERY_MOUNT_ID" 'FSINFO_FLAG_QUERY_MOUNT_ID' man_fsinfo
done_testing
