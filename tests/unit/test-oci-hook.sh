#!/bin/bash
# mountd-oci-hook against a real mountd on the host, all inside a private
# mount namespace of its own (as test-mountctl-live.sh does).  The
# "container" is what a runtime has made when it runs createRuntime hooks:
# a process in a mount namespace of its own with the rootfs bind-mounted
# onto its own path.  Checked by that process's mountinfo: the mounts the
# annotation asks for land under the rootfs, and a failure undoes them.
# (tests/guest/44-mountctl-container.sh does the same with crun.)
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
. tests/guest/lib.sh
if [ -z "${OCI_HOOK_TEST_INNER:-}" ]; then
	OCI_HOOK_TEST_INNER=1 exec unshare -m --propagation private "$0" "$@"
fi

HOOK=$TOP/build/mountd-oci-hook
work=$(mktemp -d /tmp/oci-hook-test.XXXXXX)
mount -t tmpfs tmpfs /run
mkdir -p /run/mountd
MOUNTD_IDLE_SEC=0 "$TOP/build/mountd" 2>"$work/mountd.log" &
mountd=$!
for _ in $(seq 100); do [ -S /run/mountd/io.mountd.Mount ] && break; sleep 0.1; done
check "mountd is listening" test -S /run/mountd/io.mountd.Mount

B=$work/bundle
mkdir -p $B/rootfs/etc
echo "from the host" >$work/file
unshare -m --propagation private sh -c "mount --bind $B/rootfs $B/rootfs && exec sleep infinity" &
ctr=$!
for _ in $(seq 50); do grep -q " $B/rootfs " /proc/$ctr/mountinfo 2>/dev/null && break; sleep 0.1; done
cleanup() {
	kill $ctr $mountd 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# config ANNOTATION: the bundle's config.json
config() {
	python3 -c 'import json, sys
c = {"ociVersion": "1.0.2", "root": {"path": "rootfs"}}
if sys.argv[1]:
    c["annotations"] = {"io.mountd.mounts": sys.argv[1]}
json.dump(c, open(sys.argv[2], "w"))' "$1" $B/config.json
}
state() { printf '{"ociVersion": "1.0.2", "id": "c1", "status": "created", "pid": %d, "bundle": "%s"}' $ctr $B; }
hook() { state | "$HOOK" "$@"; }
mounts() { awk -v r="$B/rootfs/" 'index($5, r) == 1 {print substr($5, length(r)), $6}' /proc/$ctr/mountinfo; }
none_mounted() { [ -z "$(mounts)" ] || { mounts; false; }; }
export B HOOK ctr
export -f state hook mounts

config ''
check "no annotation: nothing to do" hook
check "  and nothing done" none_mounted

config '[{"destination": "/data", "type": "tmpfs", "options": ["size=1m", "noexec"]},
	{"destination": "/etc/file", "type": "bind", "source": "'$work/file'", "options": ["bind", "ro"]}]'
check "a tmpfs and a bind of a file" hook
check_output "  both under the rootfs in the container's namespace" \
	'^/data rw[^ ]*noexec.* /etc/file ro' bash -c "mounts | tr '\n' ' '"
check_output "  the file is there" '^from the host$' cat /proc/$ctr/root$B/rootfs/etc/file
check_fails "  and not in ours" mountpoint -q $B/rootfs/data

kill $ctr
wait $ctr 2>/dev/null
unshare -m --propagation private sh -c "mount --bind $B/rootfs $B/rootfs && exec sleep infinity" &
ctr=$!
for _ in $(seq 50); do grep -q " $B/rootfs " /proc/$ctr/mountinfo 2>/dev/null && break; sleep 0.1; done
config '[{"destination": "/a", "type": "tmpfs"}, {"destination": "/b", "type": "tmpfs"},
	{"destination": "/c", "type": "nosuchfs"}]'
hook >"$work/out" 2>&1
echo "exit $?" >>"$work/out"
check_output "a mount that fails fails the hook" '^exit 1$' tail -1 "$work/out"
check_output "  saying which and why" \
	'container c1: mountd refused nosuchfs on /c: .*fsopen.*ENODEV' cat "$work/out"
check_output "  and that the two before it were undone" 'unmounted again the 2 mounts made before it' \
	cat "$work/out"
check "  nothing stays mounted in the container" none_mounted

config '[{"destination": "/ok", "type": "tmpfs"}, {"destination": "/x/../../etc", "type": "tmpfs"}]'
check_output "a destination with .. is refused before anything is done" \
	'io.mountd.mounts\[1\]: "destination" must be an absolute path without' bash -c 'hook 2>&1; [ $? = 1 ]'
check "  nothing mounted" none_mounted
config '[{"destination": "/x", "type": "tmpfs", "options": ["size=1m", 7]}]'
check_output "options must be strings" 'must be an array of strings' bash -c 'hook 2>&1; [ $? = 1 ]'
config '{"destination": "/x"}'
check_output "the annotation must be an array" 'is not a JSON array' bash -c 'hook 2>&1; [ $? = 1 ]'
check_output "no state on stdin" 'no OCI state on standard input' \
	bash -c '"$0" </dev/null 2>&1; [ $? = 1 ]' "$HOOK"
done_testing
