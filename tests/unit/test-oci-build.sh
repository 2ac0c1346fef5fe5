#!/bin/bash
# container/oci-build: the bundle it makes from build/mountd (in a cache of
# its own here), what its root holds, that the loader finds every library
# there, and that its cache key follows its inputs.
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
. tests/guest/lib.sh
work=$(mktemp -d /tmp/oci-build-test.XXXXXX)
export MOUNTD_CACHE=$work/cache

check "oci-build builds a bundle" bash -c "container/oci-build build/mountd >$work/path 2>$work/log"
b=$(cat "$work/path")
check "  config.json is container/config.json" cmp "$b/config.json" container/config.json
check_output "  its only program is mountd" '^usr/libexec/mountd$' \
	bash -c "cd '$b/rootfs' && find . -type f -perm -u+x ! -name '*.so*' -printf '%P\n'"
check_fails "  no shell" test -e "$b/rootfs/bin/sh" -o -e "$b/rootfs/usr/bin/sh"
check "  the loader, chrooted there, finds every library mountd needs" \
	bash -c "chroot '$b/rootfs' /usr/lib64/ld-linux-x86-64.so.2 --list /usr/libexec/mountd >$work/ldd && ! grep -q 'not found' $work/ldd"
check "  mountd.socket for the portable image is the package's" \
	cmp "$b/rootfs/usr/lib/systemd/system/mountd.socket" units/mountd.socket
check "  mountd.service is the package's, plus the host files it binds" \
	bash -c "head -n \$(wc -l <units/mountd.service) '$b/rootfs/usr/lib/systemd/system/mountd.service' | cmp - units/mountd.service &&
		tail -1 '$b/rootfs/usr/lib/systemd/system/mountd.service' | grep -qx 'BindReadOnlyPaths=-/etc/mountd /etc/passwd /etc/group'"
check_output "a second run finds it in the cache" 'up to date' \
	bash -c "container/oci-build build/mountd 2>&1 >$work/path2"
check "  the same bundle" cmp "$work/path" "$work/path2"
cp build/mountd "$work/mountd" && printf x >>"$work/mountd"
check "another binary gives another bundle" \
	bash -c "container/oci-build $work/mountd >$work/path3 2>/dev/null && ! cmp -s $work/path $work/path3"
rm -rf "$work"
done_testing
