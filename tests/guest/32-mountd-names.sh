#!/bin/bash
# mountd: the other ways to name things — a namespace by pidfd and by nsfs
# fd, a bind source by fd, an idmapped bind from a user namespace fd — plus
# MOVE_MOUNT_BENEATH, file mount points, propagation, CREATE_EXCL, more
# fsinfo attributes, and a Watch stream ending when its namespace goes away.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

start_mountd
ns=$(new_mntns)
inns() { nsenter -t "$ns" -m "$@"; }

check "create into a namespace named by a pidfd" \
	call pidfd Create '{"fsType":"tmpfs","placement":{"namespace":{"pidfd":0},"path":"/mnt/pidfd","create":"directory"}}' --fd "pidfd=$ns"
check "mounted there" inns findmnt /mnt/pidfd
check "create into a namespace named by an nsfs fd" \
	call nsfd Create '{"fsType":"tmpfs","placement":{"namespace":{"mntnsFd":0},"path":"/mnt/nsfd","create":"directory"}}' --fd "/proc/$ns/ns/mnt:ns"
check "mounted there too" inns findmnt /mnt/nsfd
check "a non-namespace fd as mntnsFd fails at namespace" bash -c "
	! $V --fd /etc/hostname io.mountd.Mount.Create '{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"mntnsFd\":0},\"path\":\"/mnt\"}}' >$work/bad &&
	jtest $work/bad 'p[\"step\"] == \"namespace\"'"
check "list by nsfs fd shows both mounts" bash -c "
	$V --fd /proc/$ns/ns/mnt:ns io.mountd.Mount.List '{\"namespace\":{\"mntnsFd\":0}}' >$work/l &&
	jtest $work/l '{\"/mnt/pidfd\", \"/mnt/nsfd\"} <= {e[\"mountPoint\"] for e in p[\"mounts\"]}'"

# A file as mount point, created on demand.
echo bound-file >"$work/file"
check "bind a file onto a created file mount point (source by fd)" \
	call fb Bind '{"sourceFd":0,"placement":{"namespace":{"pid":'"$ns"'},"path":"/tmp/target-file","create":"file"}}' --fd "$work/file:path"
check_output "the file is bound" "bound-file" inns cat /tmp/target-file

# MOVE_MOUNT_BENEATH: a new mount slides under the existing top mount.
check "mount beneath the top mount of /mnt/pidfd" \
	call ben Create '{"fsType":"tmpfs","parameters":[{"key":"size","type":"string","value":"3m"}],"placement":{"namespace":{"pid":'"$ns"'},"path":"/mnt/pidfd","beneath":true}}'
check_output "two mounts stacked at /mnt/pidfd" "^2$" bash -c "nsenter -t $ns -m findmnt -n -o TARGET /mnt/pidfd | wc -l"

# Idmapped bind: files owned by 0 in the source appear as 100000 through a
# user namespace mapping 0 → 100000.
unshare -U --map-users=0:100000:65536 --map-groups=0:100000:65536 sleep infinity >/dev/null 2>&1 &
userns=$!
sleep 0.5
mkdir -p "$work/idsrc"
mount -t tmpfs idsrc "$work/idsrc"
touch "$work/idsrc/owned-by-root"
check "idmapped bind with a user namespace fd" \
	call idm Bind '{"sourcePath":"'"$work"'/idsrc","idmapUserNamespaceFd":0,"placement":{"namespace":{"pid":'"$ns"'},"path":"/mnt/idmapped","create":"directory"}}' --fd "/proc/$userns/ns/user:ns"
check_output "the file's owner is shifted by the idmapping" "^100000$" inns stat -c %u /mnt/idmapped/owned-by-root
kill $userns 2>/dev/null

# Propagation.
check "make /mnt/nsfd shared" \
	call sh SetAttributes '{"namespace":{"pid":'"$ns"'},"path":"/mnt/nsfd","propagation":"shared"}'
check "list shows it shared with a peer group" bash -c "
	$V io.mountd.Mount.List '{\"namespace\":{\"pid\":$ns}}' >$work/l2 &&
	jtest $work/l2 'any(e[\"mountPoint\"] == \"/mnt/nsfd\" and e[\"propagation\"] == \"shared\" and e[\"peerGroup\"] > 0 for e in p[\"mounts\"])'"
check "create with propagation unbindable and attributes" \
	call ub Create '{"fsType":"tmpfs","attributes":{"readOnly":true,"noDev":true,"atime":"noatime"},"propagation":"unbindable","placement":{"namespace":{"pid":'"$ns"'},"path":"/mnt/ub","create":"directory"}}'
check_output "its options" "ro,nodev,noatime" inns findmnt -n -o VFS-OPTIONS /mnt/ub
check_output "and it is unbindable" "unbindable" inns findmnt -n -o PROPAGATION /mnt/ub

# An overlay from an ordered parameter list (lowerdir+ twice: order
# matters), and an fd-typed parameter the filesystem only takes as a string:
# the kernel's refusal comes back with its message.  Parameters that name
# paths are looked up where the mount is made, in the target namespace: the
# layers live there.
mkdir -p "$work/ov/l1"
inns bash -c "mount -t tmpfs ovfs $work/ov &&
	mkdir -p $work/ov/l1 $work/ov/l2 $work/ov/u $work/ov/w &&
	echo top >$work/ov/l1/f && echo bottom >$work/ov/l2/f && echo only-l2 >$work/ov/l2/g"
check "overlay with lowerdir+ twice, upperdir and workdir" \
	call ovreply Create '{"fsType":"overlay","source":"mountd-ov","parameters":[{"key":"lowerdir+","type":"string","value":"'"$work"'/ov/l1"},{"key":"lowerdir+","type":"string","value":"'"$work"'/ov/l2"},{"key":"upperdir","type":"string","value":"'"$work"'/ov/u"},{"key":"workdir","type":"string","value":"'"$work"'/ov/w"}],"placement":{"namespace":{"pid":'"$ns"'},"path":"/mnt/ov","create":"directory"}}'
check_output "the first lower layer wins" "^top$" inns cat /mnt/ov/f
check_output "the second lower layer shows through" "^only-l2$" inns cat /mnt/ov/g
check "an fd where overlay wants a string is refused by the kernel, with its message" bash -c "
	! $V --fd $work/ov/l1 io.mountd.Mount.Create '{\"fsType\":\"overlay\",\"parameters\":[{\"key\":\"lowerdir+\",\"type\":\"fd\",\"fd\":0}]}' >$work/ovfd &&
	jtest $work/ovfd 'p[\"step\"] == \"fsconfig:lowerdir+\" and any(m[\"step\"] == \"fsconfig:lowerdir+\" and \"lowerdir+\" in m[\"text\"] for m in p[\"messages\"])'"
call ovu Unmount '{"namespace":{"pid":'"$ns"'},"path":"/mnt/ov"}'

# Reconfigure failures carry the kernel's message.
check "reconfigure with a bad value fails with the kernel's message" bash -c "
	! $V io.mountd.Mount.Reconfigure '{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/ub\",\"parameters\":[{\"key\":\"nr_inodes\",\"type\":\"string\",\"value\":\"lots\"}]}' >$work/rf &&
	jtest $work/rf 'p[\"step\"].startswith(\"fsconfig:\") and len(p[\"messages\"]) > 0'"

# fsinfo attributes beyond statfs (on a kernel with fsinfo()).
if python3 -c 'import ctypes,sys
libc=ctypes.CDLL(None,use_errno=True)
r=libc.syscall(340,-100,b"/",None,None,0)
sys.exit(0 if r<0 and ctypes.get_errno()==38 else 1)'; then
	check "no fsinfo(): limits falls back to statfs" bash -c "
		$V io.mountd.Mount.Info '{\"path\":\"/\",\"attribute\":\"limits\"}' >$work/i1 &&
		jtest $work/i1 'p[\"source\"] == \"statfs\"'"
	check_fails "no fsinfo(): noFallback refuses" $V io.mountd.Mount.Info '{"path":"/","noFallback":true}'
else
	check "fsinfo limits" bash -c "
		$V io.mountd.Mount.Info '{\"path\":\"/\",\"attribute\":\"limits\"}' >$work/i1 &&
		jtest $work/i1 'p[\"source\"] == \"fsinfo\" and any(v[\"name\"] == \"max_filename_len\" for v in p[\"values\"])'"
	check "fsinfo answers its own fsinfo attribute in the namespace" bash -c "
		$V io.mountd.Mount.Info '{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/ub\",\"attribute\":\"fsinfo\"}' >$work/i2 &&
		jtest $work/i2 'p[\"source\"] == \"fsinfo\" and any(v[\"name\"] == \"max_attr\" and v[\"number\"] >= 20 for v in p[\"values\"])'"
	check "fsinfo nth past the end is ENODATA" bash -c "
		! $V io.mountd.Mount.Info '{\"path\":\"/\",\"attribute\":\"source\",\"nth\":99}' >$work/i3 &&
		jtest $work/i3 'p[\"errnoName\"] == \"ENODATA\" and p[\"step\"] == \"fsinfo\"'"
fi

# Watch ends with "gone" when the namespace's process exits.
ns2=$(new_mntns)
$V --more io.mountd.Mount.Watch "{\"namespace\":{\"pid\":$ns2}}" >"$work/watch" 2>&1 &
watcher=$!
for _ in $(seq 50); do grep -q ready "$work/watch" 2>/dev/null && break; sleep 0.1; done
kill "$ns2"
for _ in $(seq 50); do kill -0 $watcher 2>/dev/null || break; sleep 0.1; done
check "the watch stream ends with gone when the process exits" \
	jtest "$work/watch" 'rs[0]["parameters"]["event"] == "ready" and r["parameters"]["event"] == "gone" and not r.get("continues")'
kill $watcher 2>/dev/null

$V --more io.mountd.Mount.Watch "{\"namespace\":{\"pid\":$ns}}" >"$work/watch2" 2>&1 &
watcher=$!
for _ in $(seq 50); do grep -q ready "$work/watch2" 2>/dev/null && break; sleep 0.1; done
rc=0
stop_mountd || rc=$?
check "mountd ends open Watch streams on SIGTERM and exits 0" test "$rc" = 0
wait $watcher
check "the watcher got a final reply" jtest "$work/watch2" 'not r.get("continues")'
kill "$ns" 2>/dev/null
umount "$work/idsrc" "$work/ov" 2>/dev/null
rm -rf "$work"
done_testing
