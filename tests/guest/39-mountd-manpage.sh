#!/bin/bash
# The container injection of mountd.policy(5)'s EXAMPLE, with the policy
# taken from the man page itself: a member of group "containers" mounts a
# tmpfs into its rootless container and binds a directory it owns there,
# also idmapped with a namespace of its own (not the container's, whose
# mapping would make its writes root's files); a user outside the group
# gets nothing.  (The man page's paths are a podman container's own root; this
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
check "a member binds its own directory in" \
	member "$MOUNTCTL" --pid $container bind --mkdir /tmp/mp/data /tmp/mp/data-in
check_output "  its file is there" '^from-the-host$' in_ctr cat /tmp/mp/data-in/file
# The man page's idmapped bind: a user namespace of the user's that maps
# its uid to the one the files are to show as (here 100999; root writes
# the maps, as newuidmap would).
setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups unshare --user sleep infinity &
ns=$!
wait_for 5 bash -c "[ \"\$(readlink /proc/$ns/ns/user)\" != \"\$(readlink /proc/self/ns/user)\" ]"
echo "$USER_ID 100999 1" >/proc/$ns/uid_map && echo "$USER_ID 100999 1" >/proc/$ns/gid_map
check "a member binds it in idmapped with a namespace of its own" \
	member "$MOUNTCTL" --pid $container bind --idmap /proc/$ns/ns/user --mkdir \
	/tmp/mp/data /tmp/mp/data-idm
check_output "  the mount is idmapped" 'idmapped' in_ctr findmnt -n -o VFS-OPTIONS /tmp/mp/data-idm
check_output "  its file shows as uid 100999's" '^100999$' in_ctr stat -c %u /tmp/mp/data-idm/file
check_fails "  with the container's own namespace (0 -> the user) it is refused" \
	member "$MOUNTCTL" --pid $container bind --idmap /proc/$container/ns/user --mkdir \
	/tmp/mp/data /tmp/mp/data-ctr
check_fails "  nothing mounted" in_ctr mountpoint -q /tmp/mp/data-ctr
kill $ns
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
