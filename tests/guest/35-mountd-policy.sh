#!/bin/bash
# mountd's policy (daemon/authorize-policy.c, mountd.policy(5)) as an unprivileged
# caller meets it: the socket is 0666, so every request is checked against
# who sends it and into which namespace.  varlinkctl (systemd) is the client,
# run as uid 1000 with setpriv; busctl checks the D-Bus front end the same way.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

# Create a tmpfs in the namespace of process $1 at $2 with attributes $3.
create_json() {
	printf '{"fsType":"tmpfs","attributes":{%s},"placement":{"namespace":{"pid":%d},"path":"%s","create":"directory"}}' \
		"$3" "$1" "$2"
}

# --- no policy file: unprivileged callers read what is theirs, nothing else
export MOUNTD_POLICY=$work/policy
check "mountd starts without a policy file" start_mountd
chmod 0666 $SOCK
check_output "user lists their own namespace" '"mounts"' vcall List '{}'
check_output "user may not list the namespace of pid 1 (root's)" 'PermissionDenied' \
	vdenied List '{"namespace":{"pid":1}}'
check_output "user may not create even in their own namespace" 'PermissionDenied' \
	vdenied Create "$(create_json $$ /tmp/denied '"noSuid":true')"
check_fails "nothing was mounted for the denied request" mountpoint -q /tmp/denied
check "root is never bound by the policy" \
	varlinkctl call $SOCK io.mountd.Mount.Info '{"path":"/","attribute":"ids"}'
stop_mountd

# A user's own rootless container.
user_container
mkdir -p /tmp/ctr && chmod 0777 /tmp/ctr

cat >"$MOUNTD_POLICY" <<'POLICY'
# test policy
deny  user=1000 method=Unmount
allow user=1000 method=Create fstype=tmpfs namespace=owned attributes=nosuid,nodev
allow user=1000 method=Info,List namespace=owned
POLICY
check "mountd starts with a policy" start_mountd
chmod 0666 $SOCK
check_output "allowed: nosuid,nodev tmpfs in the user's own container" '"mountId"' \
	vcall Create "$(create_json $container /tmp/ctr/a '"noSuid":true,"noDev":true')"
check "the mount is in the container's namespace" \
	nsenter -t $container -m findmnt -n -o FSTYPE,OPTIONS /tmp/ctr/a
check_fails "and not in the initial one" mountpoint -q /tmp/ctr/a
# nosuid,nodev are forced on a non-root caller's mounts before the policy
# is asked, so attributes= sees them whether the request named them or not.
check_output "without nodev asked: allowed, nodev is forced for non-root callers" \
	'"mountId"' vcall Create "$(create_json $container /tmp/ctr/b '"noSuid":true')"
check_output "  and the mount is nodev" 'nodev' \
	nsenter -t $container -m findmnt -n -o VFS-OPTIONS /tmp/ctr/b
check_output "denied: ext4 is not in fstype=" 'PermissionDenied' \
	vdenied Create \
	"{\"fsType\":\"ext4\",\"source\":\"/dev/vda\",\"attributes\":{\"noSuid\":true,\"noDev\":true},\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/c\"}}"
check_output "denied: the host's namespace is not the user's (namespace=owned)" \
	'PermissionDenied' vdenied Create "$(create_json 1 /tmp/ctr/d '"noSuid":true,"noDev":true')"
check_fails "nothing was mounted on the host" mountpoint -q /tmp/ctr/d
check_output "denied: a deny rule comes first" 'policy line 2' \
	vdenied Unmount "{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/a\"}"
check "root unmounts it" varlinkctl call $SOCK io.mountd.Mount.Unmount \
	"{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/a\"}"
varlinkctl call $SOCK io.mountd.Mount.Unmount \
	"{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/b\"}" >/dev/null

# The D-Bus front end asks the same policy (mountd registers io.mountd1
# when the system bus is there, as it is in the guest).
check_output "D-Bus: listing pid 1's namespace is AccessDenied for the user" \
	'Access ?[Dd]enied|Permission denied' \
	bash -c "setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups busctl --system call \
		io.mountd1 /io/mountd1 io.mountd1.Manager List 'a{sv}' 1 namespace 'a{sv}' 1 pid u 1 2>&1; true"
check_output "D-Bus: the user lists their container's namespace" '^a\(' \
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups busctl --system call \
	io.mountd1 /io/mountd1 io.mountd1.Manager List 'a{sv}' 1 namespace 'a{sv}' 1 pid u $container
stop_mountd
kill $container 2>/dev/null

# A policy that does not parse locks nobody out who could act anyway: mountd
# serves root only, says why in the journal and in every refusal; a reload
# with a good file lets the rules in, a later bad file keeps them.
printf 'allow user=1000 method=Create\nallow user=1000 colour=blue\n' >"$MOUNTD_POLICY"
check "mountd starts with a policy that does not parse" start_mountd
chmod 0666 $SOCK
check_output "  and says where it is wrong" "policy:2: unknown condition.*only root is served" \
	cat "$work/mountd.log"
check "  root is served" varlinkctl call $SOCK io.mountd.Mount.Info '{"path":"/"}'
check_output "  a user is refused, told which line and how to reload" \
	'policy:2: unknown condition.*systemctl reload mountd' \
	vdenied Info '{"path":"/"}'
echo 'allow user=1000 method=Info namespace=own' >"$MOUNTD_POLICY"
kill -HUP $mountd
check "after SIGHUP with a good file the user's rule applies" \
	bash -c "for _ in \$(seq 50); do vcall Info '{\"path\":\"/\"}' >/dev/null 2>&1 && exit 0; sleep 0.2; done; exit 1"
echo 'allow colour=blue' >"$MOUNTD_POLICY"
kill -HUP $mountd
sleep 0.5
check "a later bad file keeps the rules loaded before" vcall Info '{"path":"/"}'
check_output "  and the journal says so" "keeping the policy loaded before" cat "$work/mountd.log"
stop_mountd
rm -rf "$work"
done_testing
