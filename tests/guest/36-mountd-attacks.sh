#!/bin/bash
# mountd as an unprivileged user would try to turn it against the host:
# each attempt is judged by its effects — the mount tables of pid 1 and of
# the user's container before and after, what exists on disk and who owns
# it, a mount's options — not by the error alone.  The policy is a broad
# one of the kind mountd.policy(5) invites (anything in namespaces the user
# owns), so what holds here holds because of the caller's rights and the
# limits no rule lifts, not because the policy said no.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

bus() { # method signature args...: output, whether the call failed or not
	as_user busctl --system call io.mountd1 /io/mountd1 io.mountd1.Manager "$@" 2>&1
	true
}
mounts_of() { awk '{print $5, $9, $6}' /proc/$1/mountinfo | sort; }
snapshot() { mounts_of 1 >"$work/host.$1"; mounts_of $container >"$work/ctr.$1"; }
# As at the snapshot, waited for up to 5 s (a change of the system's own,
# such as a unit's mount coming and going, passes; one left behind does
# not); on a change, the lines that differ are the check's output.
unchanged() {
	local i
	for i in $(seq 50); do
		diff "$work/host.$1" <(mounts_of 1) | sed 's/^/pid 1: /' >"$work/changed"
		diff "$work/ctr.$1" <(mounts_of $container) | sed 's/^/container: /' >>"$work/changed"
		[ -s "$work/changed" ] || return 0
		sleep 0.1
	done
	cat "$work/changed"
	return 1
}
in_ctr() { nsenter -t $container -m "$@"; }
export -f in_ctr
options_of() { in_ctr findmnt -n -o VFS-OPTIONS "$1"; }

# Root's secrets: a 0700 directory with a 0600 file in it.
mkdir -p /root/secret-dir && chmod 0700 /root /root/secret-dir
echo "root only" >/root/secret-dir/file && chmod 0600 /root/secret-dir/file
rm -rf /tmp/ctr && mkdir -p /tmp/ctr/mine /tmp/ctr/ov/u /tmp/ctr/ov/w /tmp/ctr/ov/l &&
	chmod 0777 /tmp/ctr && chown -R $USER_ID:$USER_ID /tmp/ctr/mine /tmp/ctr/ov

# A tmpfs of root's whose root directory is the user's, as logind makes
# /run/user/UID (RuntimeDirectorySize= is its limit): it appears in the
# user's container, but it is not the user's superblock.
mkdir -p /run/user-test && mount -t tmpfs -o size=1m,mode=0700,uid=$USER_ID,gid=$USER_ID \
	runtime-test /run/user-test

# A user's own rootless container.
user_container

export MOUNTD_POLICY=$work/policy
cat >"$MOUNTD_POLICY" <<'POLICY'
allow user=1000 method=* namespace=owned
allow user=1000 method=Info,List,Bind namespace=own
POLICY
check "mountd starts with a broad policy" start_mountd
chmod 0666 $SOCK
snapshot start

# --- Info is no oracle for what exists where the user cannot look
vdenied Info '{"path":"/root/secret-dir/file"}' >"$work/info-exists"
vdenied Info '{"path":"/root/secret-dir/nothing-here"}' >"$work/info-missing"
check_output "Info on a root-only file: EACCES" 'EACCES' cat "$work/info-exists"
check "  and a file that does not exist there answers the same" \
	bash -c "! grep -q ENOENT '$work/info-missing' && grep -q EACCES '$work/info-missing'"
check_output "D-Bus: Info on a root-only file is refused too" 'Permission denied|EACCES' \
	bus Info 'sa{sv}' /root/secret-dir/file 0

# --- mount points: looked up and made with the user's rights
ctr_json() { # fstype path extra-json
	printf '{"fsType":"%s","placement":{"namespace":{"pid":%d},"path":"%s","create":"directory"}%s}' \
		"$1" $container "$2" "$3"
}
check_output "a mount point created in root's directory: EACCES" 'EACCES' \
	vdenied Create "$(ctr_json tmpfs /root/secret-dir/planted)"
check_fails "  nothing was created there" test -e /root/secret-dir/planted
check "  no mount table changed" unchanged start

check_output "a tmpfs in the user's own container" '"mountId"' \
	vcall Create "$(ctr_json tmpfs /tmp/ctr/t)"
check_output "  its mount point was made by the user, not root" "^$USER_ID$" stat -c %u /tmp/ctr/t
check_output "  nosuid and nodev though the request asked for neither" 'nosuid.*nodev|nodev.*nosuid' \
	options_of /tmp/ctr/t
check_output "clearing nosuid on it is refused" 'PermissionDenied' \
	vdenied SetAttributes "{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/t\",\"attributes\":{\"noSuid\":false}}"
check_output "  and the mount is still nosuid" 'nosuid' options_of /tmp/ctr/t

# --- changes only to what the user made: superblocks and mounts that merely
# appear in the user's container (the host's root filesystem) stay out of reach
reconf_json() { # path key value
	printf '{"namespace":{"pid":%d},"path":"%s","parameters":[{"key":"%s","type":"string","value":"%s"}]}' \
		$container "$1" "$2" "$3"
}
check_output "Reconfigure of the user's own tmpfs works" '^\{' \
	vcall Reconfigure "$(reconf_json /tmp/ctr/t size 2m)"
check_output "  the superblock changed" 'size=2048k' in_ctr findmnt -n -o FS-OPTIONS /tmp/ctr/t
root_sb=$(findmnt -n -o FS-OPTIONS /)
check_output "Reconfigure of the host's root filesystem from the container is refused" \
	'MountFailed|PermissionDenied' vdenied Reconfigure "$(reconf_json / commit 7)"
check "  the host's root superblock is as it was" test "$(findmnt -n -o FS-OPTIONS /)" = "$root_sb"
check_output "Reconfigure of root's tmpfs whose root directory is the user's: refused" \
	'EPERM' vdenied Reconfigure "$(reconf_json /run/user-test size 100m)"
check_output "  its size limit is still root's" 'size=1024k' findmnt -n -o FS-OPTIONS /run/user-test
check_output "SetAttributes read-only on the container's / is refused" \
	'MountFailed|PermissionDenied' \
	vdenied SetAttributes "{\"namespace\":{\"pid\":$container},\"path\":\"/\",\"attributes\":{\"readOnly\":true}}"
check_fails "  and / there is not read-only" bash -c "in_ctr findmnt -n -o VFS-OPTIONS / | grep -qw ro"
check_output "asking to clear nodev at creation changes nothing" \
	'InvalidParameter|PermissionDenied' \
	vdenied Create "$(ctr_json tmpfs /tmp/ctr/t2 ',"attributes":{"noDev":false}')"
check_fails "  nothing mounted there" in_ctr mountpoint -q /tmp/ctr/t2

# --- bind sources: read with the user's rights
check_output "binding root's 0700 directory into the container: EACCES" 'EACCES' \
	vdenied Bind "{\"sourcePath\":\"/root/secret-dir\",\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/b\",\"create\":\"directory\"}}"
check_fails "  nothing mounted at the target" in_ctr mountpoint -q /tmp/ctr/b
check_fails "  and the secret is not readable in the container" \
	in_ctr cat /tmp/ctr/b/file
check_output "binding a directory the user owns works" '"mountId"' \
	vcall Bind "{\"sourcePath\":\"/tmp/ctr/mine\",\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/bm\",\"create\":\"directory\"}}"
check_output "  nosuid,nodev there too" 'nosuid.*nodev|nodev.*nosuid' options_of /tmp/ctr/bm

# --- mount points in the user's own namespace (the host's): only its own,
# however the policy grants Bind there
mkdir -p /usr/local/bin
check_output "binding the user's directory over root's /usr/local/bin in its own namespace: EPERM" \
	'EPERM' vdenied Bind '{"sourcePath":"/tmp/ctr/mine","placement":{"path":"/usr/local/bin"}}'
check_fails "  /usr/local/bin is no mount point in pid 1's namespace" mountpoint -q /usr/local/bin
check "  pid 1's mount table is as it was" cmp -s "$work/host.start" <(mounts_of 1)

# --- idmapping: only the user's own files, with its own mapping
idmap_bind() { # source target [userns pid]: the reply or the error, one JSON line
	user_varlink --fd "/proc/${3:-$container}/ns/user:ns" \
		io.mountd.Mount.Bind "{\"sourcePath\":\"$1\",\"recursive\":false,\"idmapUserNamespaceFd\":0,\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"$2\",\"create\":\"directory\"}}" 2>&1
	true
}
check_output "an idmapped bind of /etc with the user's own mapping is refused" \
	'"step": ?"idmap".*EPERM|EPERM.*"step": ?"idmap"' idmap_bind /etc /tmp/ctr/etc
check_fails "  nothing mounted" in_ctr mountpoint -q /tmp/ctr/etc
check_output "  the shadow file stays unreadable from the container" 'Permission denied|No such' \
	bash -c "nsenter -t $container -U -m --preserve-credentials cat /tmp/ctr/etc/shadow 2>&1; true"
# A tree the user owns at its root, with root's mount below: recursive, the
# idmapping would reach root's files.
mkdir -p /tmp/ctr/mine/sub && mount -t tmpfs -o mode=0700 rootsub /tmp/ctr/mine/sub &&
	echo "root only" >/tmp/ctr/mine/sub/secret && chmod 0600 /tmp/ctr/mine/sub/secret
check_output "a recursive idmapped bind of the user's directory with root's mount below: refused" \
	'"step": ?"idmap".*EPERM|EPERM.*"step": ?"idmap"' \
	bash -c "user_varlink --fd /proc/$container/ns/user:ns io.mountd.Mount.Bind \
		'{\"sourcePath\":\"/tmp/ctr/mine\",\"recursive\":true,\"idmapUserNamespaceFd\":0,\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/idr\",\"create\":\"directory\"}}' 2>&1; true"
check_fails "  nothing mounted" in_ctr mountpoint -q /tmp/ctr/idr
check_output "  root's file below stays unreadable from the container" 'Permission denied|No such' \
	bash -c "nsenter -t $container -U -m --preserve-credentials cat /tmp/ctr/idr/sub/secret 2>&1; true"
umount /tmp/ctr/mine/sub && rmdir /tmp/ctr/mine/sub
# A user namespace of the user's whose map writes only the user's own ids
# to disk (root writes the maps, as newuidmap would): uid_map and gid_map
# are "INSIDE OUTSIDE COUNT" lines.
user_userns() { # uid_map gid_map: its pid
	local pid
	# setpriv itself in the background: $! is the namespace's process.
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups unshare -U sleep infinity \
		>/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 50); do
		[ "$(readlink /proc/$pid/ns/user)" != "$(readlink /proc/self/ns/user)" ] && break
		sleep 0.1
	done
	write_map /proc/$pid/uid_map "$1" && write_map /proc/$pid/gid_map "$2"
	echo $pid
}
# A map takes one write(): the shell's printf writes line by line.
write_map() { # file map-with-\n
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
os.write(fd, sys.argv[2].encode())' "$1" "$(printf '%b' "$2")"
}
idns=$(user_userns "$USER_ID 100000 1" "$USER_ID 100000 1")
check_output "an idmapped bind of a directory the user owns works (its ids to disk)" '"mountId"' \
	idmap_bind /tmp/ctr/mine /tmp/ctr/idm $idns
check_output "  nosuid,nodev there too" 'nosuid.*nodev|nodev.*nosuid' options_of /tmp/ctr/idm

# --- paths inside filesystem parameters: the kernel resolves them with the
# user's rights, in the target namespace
ov_json() { # lowerdir
	printf '{"fsType":"overlay","source":"attack","parameters":[{"key":"lowerdir","type":"string","value":"%s"},{"key":"upperdir","type":"string","value":"/tmp/ctr/ov/u"},{"key":"workdir","type":"string","value":"/tmp/ctr/ov/w"}],"placement":{"namespace":{"pid":%d},"path":"/tmp/ctr/o","create":"directory"}}' \
		"$1" $container
}
check_output "an overlay with root's directory as lowerdir is refused" 'MountFailed' \
	vdenied Create "$(ov_json /root/secret-dir)"
check_fails "  nothing mounted" in_ctr mountpoint -q /tmp/ctr/o
check_output "an overlay of the user's own directories works" '"mountId"' \
	vcall Create "$(ov_json /tmp/ctr/ov/l)"
# overlay copies up and cleans its work directory with the credentials of
# whoever made it: the user's, never mountd's.  Upper and work directories
# on the root filesystem, beside /etc.
rm -rf /var/tmp/ctrov /var/tmp/rootwork && mkdir -p /var/tmp/ctrov/l /var/tmp/ctrov/u \
	/var/tmp/ctrov/w /var/tmp/rootwork/work/work &&
	echo keep >/var/tmp/rootwork/work/work/keep && chown -R $USER_ID:$USER_ID /var/tmp/ctrov
ov3_json() { # upper work target
	printf '{"fsType":"overlay","source":"attack","parameters":[{"key":"lowerdir","type":"string","value":"/var/tmp/ctrov/l"},{"key":"upperdir","type":"string","value":"%s"},{"key":"workdir","type":"string","value":"%s"}],"placement":{"namespace":{"pid":%d},"path":"%s","create":"directory"}}' \
		"$1" "$2" $container "$3"
}
vcall Create "$(ov3_json /etc /var/tmp/ctrov/w /tmp/ctr/oetc)" >"$work/oetc" 2>&1
in_ctr bash -c 'echo planted >/tmp/ctr/oetc/mountd-planted' 2>/dev/null
check_fails "an overlay with upperdir=/etc: nothing planted in the host's /etc" \
	test -e /etc/mountd-planted
vcall Create "$(ov3_json /var/tmp/ctrov/u /var/tmp/rootwork /tmp/ctr/owork)" >"$work/owork" 2>&1
check_output "an overlay with root's directory as workdir: root's work/work is untouched" \
	'^keep$' cat /var/tmp/rootwork/work/work/keep
for m in /tmp/ctr/oetc /tmp/ctr/owork; do
	vcall Unmount "{\"namespace\":{\"pid\":$container},\"path\":\"$m\"}" >/dev/null 2>&1
done

# --- the helper that makes the user's superblocks is kept by its worker for
# the next one: it stays the user's (uid, groups, container), a user who
# kills it gets a new one, and it goes with the worker
helpers() { pgrep -u $USER_ID -x mountd-caller | sort; }
tmpfs_json() { # target
	printf '{"fsType":"tmpfs","placement":{"namespace":{"pid":%d},"path":"%s","create":"directory"}}' \
		$container "$1"
}
root_owner() { in_ctr stat -c %u "$1"; } # as the host sees it
vcall Create "$(tmpfs_json /tmp/ctr/k1)" >$work/k1
h1=$(helpers)
check "a user's tmpfs: one helper of the user's is left, kept" test "$(echo "$h1" | wc -w)" = 1
check_output "  the superblock is the user's (its root's owner)" "^$USER_ID\$" root_owner /tmp/ctr/k1
vcall Create "$(tmpfs_json /tmp/ctr/k2)" >$work/k2
check "the next one is made by the same helper" test "$(helpers)" = "$h1"
check "  each reply names the as-caller step once" \
	test "$(grep -o '"as-caller"' $work/k1 | wc -l)$(grep -o '"as-caller"' $work/k2 | wc -l)" = 11
check_output "  and is the user's too" "^$USER_ID\$" root_owner /tmp/ctr/k2
as_user kill -9 $h1
check "the user may kill its helper" wait_for 10 sh -c "! kill -0 $h1 2>/dev/null"
check_output "  the next tmpfs is still made, and the user's" '"mountId"' \
	vcall Create "$(tmpfs_json /tmp/ctr/k3)"
check_output "  by a helper of the user's" "^$USER_ID\$" root_owner /tmp/ctr/k3
h3=$(helpers)
check "  a new one" test -n "$h3" -a "$h3" != "$h1"
check_output "other groups: the kept helper is not theirs" '"mountId"' \
	member varlinkctl call --json=short $SOCK io.mountd.Mount.Create "$(tmpfs_json /tmp/ctr/k4)"
check "  it went, and a helper with the caller's groups made the tmpfs" \
	sh -c "! kill -0 $h3 2>/dev/null && test -n \"\$(pgrep -u $USER_ID -x mountd-caller)\""
check_output "  whose groups are the caller's" "^Groups:[[:space:]]*$CONTAINERS_GID[[:space:]]*\$" \
	sh -c "grep ^Groups: /proc/\$(pgrep -u $USER_ID -x mountd-caller)/status"
for m in k1 k2 k3 k4; do
	vcall Unmount "{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/$m\"}" >/dev/null 2>&1
done

# --- the helper gets a superblock's commands without waiting for each
# answer: a failure is still the step's own, with the kernel's words, and
# nothing after it is done
tmpfs_params_json() { # target parameters
	printf '{"fsType":"tmpfs","parameters":[%s],"placement":{"namespace":{"pid":%d},"path":"%s","create":"directory"}}' \
		"$2" $container "$1"
}
P_SIZE_BAD='{"key":"size","type":"string","value":"bogus"}'
P_MODE='{"key":"mode","type":"string","value":"0700"}'
P_NR='{"key":"nr_inodes","type":"string","value":"77"}'
vcall Create "$(tmpfs_json /tmp/ctr/pl0)" >$work/pl0
hp=$(helpers)
in_ctr mkdir -p /tmp/ctr/pl1
! user_varlink io.mountd.Mount.Create "$(tmpfs_params_json /tmp/ctr/pl1 "$P_MODE,$P_SIZE_BAD,$P_NR")" \
	>$work/pl1
check "a user's tmpfs with a bad size between two good parameters: failed at fsconfig:size" \
	jtest $work/pl1 'r["error"] == "io.mountd.Mount.MountFailed" and p["step"] == "fsconfig:size" and p["errnoName"] == "EINVAL"'
check "  with the kernel's message under that step" \
	jtest $work/pl1 'any("Bad value for" in m["text"] and m["step"] == "fsconfig:size" and m["level"] == "e" for m in p["messages"])'
check "  the steps done: as-caller, fsopen, the mode before it; none after it" \
	jtest $work/pl1 '[s["step"] for s in p["steps"]] == ["as-caller", "fsopen", "fsconfig:mode"]'
check_fails "  nothing mounted there" in_ctr mountpoint -q /tmp/ctr/pl1
check "  the same kept helper is left" test "$(helpers)" = "$hp"
check_output "  and its next superblock has exactly its own parameters" '^tmpfs .*nr_inodes=77' \
	bash -c "vcall Create '$(tmpfs_params_json /tmp/ctr/pl2 "$P_NR")' >/dev/null &&
		in_ctr findmnt -n -o FSTYPE,FS-OPTIONS /tmp/ctr/pl2 | tr -s ' '"
check_fails "  (no mode=0700 left over from the failed one)" \
	bash -c "in_ctr findmnt -n -o FS-OPTIONS /tmp/ctr/pl2 | grep -q mode=700"
check "  made by the same helper" test "$(helpers)" = "$hp"
# More parameters than the helper is sent before its answers are read.
many=$(for i in $(seq 1 20); do printf '{"key":"nr_inodes","type":"string","value":"%d"},' $((100 + i)); done)
check_output "twenty parameters in one superblock: the last one holds" 'nr_inodes=120' \
	bash -c "vcall Create '$(tmpfs_params_json /tmp/ctr/pl3 "${many%,}")' >/dev/null &&
		in_ctr findmnt -n -o FS-OPTIONS /tmp/ctr/pl3"
bad_late=$(for i in $(seq 1 12); do printf '{"key":"nr_inodes","type":"string","value":"%d"},' $((100 + i)); done)
in_ctr mkdir -p /tmp/ctr/pl4
! user_varlink io.mountd.Mount.Create "$(tmpfs_params_json /tmp/ctr/pl4 "$bad_late$P_SIZE_BAD,$P_MODE")" \
	>$work/pl4
check "  a bad one after twelve good ones fails at its own step, the twelve done" \
	jtest $work/pl4 'p["step"] == "fsconfig:size" and any(m["step"] == "fsconfig:size" for m in p["messages"]) and [s["step"] for s in p["steps"]][2:] == ["fsconfig:nr_inodes"] * 12'
check_fails "  nothing mounted there" in_ctr mountpoint -q /tmp/ctr/pl4
check "  and the helper is still the same" test "$(helpers)" = "$hp"
vcall Create "$(printf '{"fsType":"overlay","source":"attack","parameters":[{"key":"lowerdir","type":"string","value":"/tmp/ctr/ov/l"},{"key":"upperdir","type":"string","value":"/tmp/ctr/ov/u"}],"placement":{"namespace":{"pid":%d},"path":"/tmp/ctr/pl5","create":"directory"}}' $container)" \
	>$work/pl5 2>&1 || true
check_output "a user's overlay without workdir fails at CMD_CREATE, with overlay's words" \
	'fsconfig:CMD_CREATE.*(workdir|upperdir)' cat $work/pl5
check_fails "  nothing mounted there" in_ctr mountpoint -q /tmp/ctr/pl5
for m in pl0 pl2 pl3; do
	vcall Unmount "{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/$m\"}" >/dev/null 2>&1
done
in_ctr rmdir /tmp/ctr/pl0 /tmp/ctr/pl1 /tmp/ctr/pl2 /tmp/ctr/pl3 /tmp/ctr/pl4 2>/dev/null || true

# --- devices: only those the user could open
check_output "the host's disk mounted in the container by path: EACCES" 'EACCES' \
	vdenied Create "{\"fsType\":\"ext4\",\"source\":\"$(findmnt -n -o SOURCE /)\",\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/disk\",\"create\":\"directory\"}}"
check_fails "  nothing mounted" in_ctr mountpoint -q /tmp/ctr/disk
disk=$(findmnt -n -o SOURCE /)
snapshot devices
disk_json() { # parameters-and-source-json target
	printf '{"fsType":"ext4",%s,"placement":{"namespace":{"pid":%d},"path":"%s","create":"directory"}}' \
		"$1" $container "$2"
}
check_output "the host's disk as a \"source\" entry of parameters: InvalidParameter" \
	'InvalidParameter' \
	vdenied Create "$(disk_json "\"parameters\":[{\"key\":\"source\",\"type\":\"string\",\"value\":\"$disk\"}]" /tmp/ctr/disk2)"
check_fails "  nothing mounted" in_ctr mountpoint -q /tmp/ctr/disk2
check_output "D-Bus: the same is refused" 'InvalidParameter|Invalid' \
	bus Create 'sa(ssv)a{sv}' ext4 1 source string s "$disk" 1 placement a{sv} 3 namespace a{sv} 1 \
	pid u $container path s /tmp/ctr/bus-disk create s directory
check_fails "  nothing mounted" in_ctr mountpoint -q /tmp/ctr/bus-disk
as_user ln -sf "$disk" /tmp/ctr/mine/disklink
check_output "the host's disk through the user's symlink to it: EACCES" 'EACCES' \
	vdenied Create "$(disk_json "\"source\":\"/tmp/ctr/mine/disklink\"" /tmp/ctr/disk3)"
check_output "a source that does not resolve as the user: ENOENT, not looked up again as root" \
	'ENOENT' vdenied Create "$(disk_json '"source":"/tmp/ctr/mine/absent"' /tmp/ctr/disk3)"
# The name flipped between nothing and the disk while the requests run: the
# caller's own open is the only lookup, so the disk never appears.
setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups bash -c \
	'end=$((SECONDS + 120)); while [ $SECONDS -lt $end ]; do
	ln -sfn "'"$disk"'" /tmp/ctr/mine/flip.new && mv -fT /tmp/ctr/mine/flip.new /tmp/ctr/mine/flip
	rm -f /tmp/ctr/mine/flip; done' 2>/dev/null &
flipper=$!
flip_tries() {
	for _ in $(seq 30); do
		vcall Create "$(disk_json '"source":"/tmp/ctr/mine/flip"' /tmp/ctr/disk4)" >/dev/null 2>&1
		in_ctr mountpoint -q /tmp/ctr/disk4 && { echo "mounted"; return 1; }
	done
	return 0
}
check "a source flipped between absent and the host's disk, 30 times: never mounted" flip_tries
kill $flipper 2>/dev/null
wait $flipper 2>/dev/null
check "  no mount table changed by any of these" unchanged devices

# --- parameters: each goes to the kernel as daemon/ops-fs-params.c classifies
# it; one that names something by number (an fd of mountd's worker, a
# device), a program the kernel would run as root, or a key mountd does not
# know is root's only; a value is never taken as a path
snapshot params
param_json() { # fstype key type value target
	printf '{"fsType":"%s","parameters":[{"key":"%s","type":"%s","value":"%s"}],"placement":{"namespace":{"pid":%d},"path":"%s","create":"directory"}}' \
		"$1" "$2" "$3" "$4" $container "$5"
}
refused_at() { # step errno json: refused at that fsconfig step
	local out
	out=$(vdenied Create "$3")
	grep -q "\"step\":\"$1\"" <<<"$out" && grep -q "$2" <<<"$out" || { echo "$out"; return 1; }
}
check "tmpfs with a key mountd does not know: EPERM at it" \
	refused_at fsconfig:nosuchkey EPERM "$(param_json tmpfs nosuchkey string 1 /tmp/ctr/p1)"
check "tmpfs's size given as a path: EPERM" \
	refused_at fsconfig:size EPERM "$(param_json tmpfs size path /root/secret-dir /tmp/ctr/p2)"
check "fuse with fd=3 (the worker's fd 3, not one of the user's): EPERM" \
	refused_at fsconfig:fd EPERM "$(param_json fuse fd string 3 /tmp/ctr/p3)"
check "cgroup v1 with a release_agent of the user's (run by the kernel as root): EPERM" \
	refused_at fsconfig:release_agent EPERM "$(param_json cgroup release_agent string /tmp/ctr/mine/agent /tmp/ctr/p4)"
check "9p over the worker's fds by number: EPERM" \
	refused_at fsconfig:rfdno EPERM "$(param_json 9p rfdno string 0 /tmp/ctr/p5)"
check_output "D-Bus: fuse with fd=3: refused" 'Operation not permitted|EPERM' \
	bus Create 'sa(ssv)a{sv}' fuse 1 fd string s 3 1 placement a{sv} 3 namespace a{sv} 1 \
	pid u $container path s /tmp/ctr/bus-p3 create s directory
for p in p1 p2 p3 p4 p5 bus-p3; do
	check_fails "  nothing at /tmp/ctr/$p" in_ctr test -e /tmp/ctr/$p
done
check_output "Reconfigure of the user's own tmpfs with a key mountd does not know: EPERM" 'EPERM' \
	vdenied Reconfigure "$(reconf_json /tmp/ctr/t nosuchkey 1)"
check_output "  while a known one goes through" '^\{' vcall Reconfigure "$(reconf_json /tmp/ctr/t size 2m)"
check "  no mount table changed by any of these" unchanged params
# Every filesystem the kernel can mount is in the table, or a non-root
# caller could give it nothing at all.
kernel_fs() { awk '{print $NF}' /proc/filesystems | sort -u; }
table_fs() { "$BUILD/tests/unit/test-fs-params" --dump | awk '{print $1}' | sort -u; }
# Those only the kernel mounts, internally.
internal='sockfs|pipefs|anon_inodefs|bdev|nsfs|pidfs|dax|rootfs|secretmem|zsmalloc'
missing=$(comm -23 <(kernel_fs | grep -vxE "$internal") <(table_fs) | tr '\n' ' ')
check "every filesystem of the guest's kernel is in mountd's table${missing:+: not $missing}" \
	test -z "$missing"

# --- the same over D-Bus
check_output "D-Bus: a mount point in root's directory: refused" 'Permission denied|EACCES' \
	bus Create 'sa(ssv)a{sv}' tmpfs 0 1 placement a{sv} 3 namespace a{sv} 1 pid u $container \
	path s /root/secret-dir/bus-planted create s directory
check_fails "  nothing was created there" test -e /root/secret-dir/bus-planted
check_output "D-Bus: binding root's 0700 directory: refused" 'Permission denied|EACCES' \
	bus Bind 'sa{sv}' /root/secret-dir 1 placement a{sv} 3 namespace a{sv} 1 pid u $container \
	path s /tmp/ctr/bus-b create s directory
check_fails "  nothing mounted" in_ctr mountpoint -q /tmp/ctr/bus-b
check_output "D-Bus: remounting the host's root filesystem from the container: refused" \
	'Operation not permitted|EPERM|denied' \
	bus Reconfigure 'sa(ssv)a{sv}' / 1 commit string s 7 1 namespace a{sv} 1 pid u $container
check "  the host's root superblock is as it was" test "$(findmnt -n -o FS-OPTIONS /)" = "$root_sb"

# --- the host's mounts: neither listed nor touched
rootns=$(new_mntns)
check_output "listing the mounts of root's private namespace is refused" 'PermissionDenied' \
	vdenied List "{\"namespace\":{\"pid\":$rootns}}"
check_output "  watching them too" 'PermissionDenied' \
	bash -c "! as_user varlinkctl call --more $SOCK io.mountd.Mount.Watch '{\"namespace\":{\"pid\":$rootns}}' 2>&1"
check_output "a bind by fd, cloned in root's private namespace, is refused" 'PermissionDenied' \
	bash -c "user_varlink --fd /tmp/ctr/mine:path io.mountd.Mount.Bind \
		'{\"sourceFd\":0,\"sourceNamespace\":{\"pid\":$rootns},\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/fdb\",\"create\":\"directory\"}}' 2>&1; true"
check_fails "  nothing mounted" in_ctr mountpoint -q /tmp/ctr/fdb
check_output "  asking Info there too" 'PermissionDenied' \
	vdenied Info "{\"namespace\":{\"pid\":$rootns},\"path\":\"/\"}"
kill $rootns
check_output "D-Bus: a tmpfs in the host's namespace is refused" 'Access ?[Dd]enied|Permission denied' \
	bus Create 'sa(ssv)a{sv}' tmpfs 0 1 placement a{sv} 2 namespace a{sv} 1 pid u 1 path s /tmp/ctr/bus-host
check_output "D-Bus: clearing nosuid on the user's tmpfs is refused" 'Access ?[Dd]enied|Permission denied|only root' \
	bus SetAttributes 'sa{sv}' /tmp/ctr/t 2 namespace a{sv} 1 pid u $container attributes a{sv} 1 noSuid b false
check_output "  and it is still nosuid" 'nosuid' options_of /tmp/ctr/t
check_output "unmounting the host's /tmp is refused" 'PermissionDenied' \
	vdenied Unmount '{"namespace":{"pid":1},"path":"/tmp"}'
check_output "moving a host mount is refused" 'PermissionDenied' \
	vdenied Move '{"namespace":{"pid":1},"from":"/tmp","to":"/mnt"}'
check "  pid 1's mount table is as it was" cmp -s "$work/host.start" <(mounts_of 1)

# --- identity: a connection whose process exited before mountd took it
# (its socket kept by another) is not served: its pid may be anyone's by then
ghost_connect() {
	as_user python3 -c '
import json, os, socket, sys, time
s = socket.socket(socket.AF_UNIX)
pid = os.fork()
if pid == 0:
    s.connect("'$SOCK'")
    os._exit(0)
os.waitpid(pid, 0)
# Sent while mountd is stopped, before it is let go: its answer, not a
# race with its close, is what is read.
s.sendall(json.dumps({"method": "io.mountd.Mount.Info", "parameters": {"path": "/"}}).encode() + b"\0")
open("/tmp/ctr/mine/ghost-ready", "w").close()
s.settimeout(30)
try:
    print(s.recv(65536).decode() or "EOF")
except ConnectionResetError:
    print("EOF")' >"$work/ghost" 2>&1 &
	local py=$!
	for _ in $(seq 100); do [ -e /tmp/ctr/mine/ghost-ready ] && break; sleep 0.1; done
	kill -CONT $mountd
	wait $py
	cat "$work/ghost"
}
kill -STOP $mountd
check_output "a connection made by a process that exited before accept(): closed unanswered" \
	'^EOF$' ghost_connect
check_output "  while a live one is answered" '"values"' vcall Info '{"path":"/"}'

# --- limits: one user cannot use up what others need
check_output "a user holding 80 connections gets no more than 64" '^64 ' \
	as_user python3 -c '
import socket, time
socks, kept = [], 0
for _ in range(80):
    s = socket.socket(socket.AF_UNIX); s.connect("'$SOCK'"); socks.append(s)
time.sleep(1)
for s in socks:
    s.setblocking(False)
    try:
        kept += s.recv(1) != b""
    except BlockingIOError:
        kept += 1
print(kept, "kept")
time.sleep(0.1)'
check_output "  while root is still answered" '"mounts"' \
	varlinkctl call --json=short $SOCK io.mountd.Mount.List '{}'
check_output "a message over mountd's limit is answered MessageTooLarge" 'MessageTooLarge' \
	as_user python3 -c '
import socket
s = socket.socket(socket.AF_UNIX); s.connect("'$SOCK'")
try:
    s.sendall(b"{\"method\":\"io.mountd.Mount.List\",\"parameters\":{\"x\":\"" + b"x" * (17 << 20))
except OSError:
    pass  # mountd may close before it has read it all
print(s.recv(4096).decode())'
check_output "  and mountd still answers" '"mounts"' \
	varlinkctl call --json=short $SOCK io.mountd.Mount.List '{}'

# --- images: parsed by a kernel driver that trusts them; only a rule that
# names images lets one in, and the broad rule does not
truncate -s 16M /tmp/ctr/mine/img && mkfs.ext4 -q /tmp/ctr/mine/img && chown $USER_ID /tmp/ctr/mine/img
image_create() { # path: the reply or the error
	user_varlink --fd /tmp/ctr/mine/img:rw \
		io.mountd.Mount.Create "{\"fsType\":\"ext4\",\"image\":{\"fd\":0},\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"$1\",\"create\":\"directory\"}}" 2>&1
	true
}
loops_before=$(losetup -a | wc -l)
check_output "the user's own image under the broad rule is refused" 'PermissionDenied' \
	image_create /tmp/ctr/img
check_fails "  nothing mounted" in_ctr mountpoint -q /tmp/ctr/img
check "  and no loop device was set up" test "$(losetup -a | wc -l)" = "$loops_before"

# --- the host is not the user's
check_output "a tmpfs in the host's namespace is refused" 'PermissionDenied' \
	vdenied Create '{"fsType":"tmpfs","placement":{"namespace":{"pid":1},"path":"/tmp/ctr/host"}}'
check "  pid 1's mount table is as it was" cmp -s "$work/host.start" <(mounts_of 1)

# --- issue 48 classes 1 and 3: what mountd places where the user is root
# carries flags and submounts the kernel locked (daemon/sys-mnt-lock.c);
# the user's container root tries to undo them as the kernel lets it
ctr_root() { nsenter -t $container -U -m "$@"; } # root of the user's container
check_fails "the container's root cannot remount the user's bind suid,dev" \
	ctr_root mount -o remount,bind,suid,dev /tmp/ctr/bm
check_fails "  nor with mount_setattr (nosuid cleared on the tree)" \
	ctr_root python3 -c 'import ctypes, os, struct, sys
a = struct.pack("QQQQ", 0, 0x2 | 0x4, 0, 0)
r = ctypes.CDLL(None, use_errno=True).syscall(442, -100, b"/tmp/ctr/bm", 0x8000, a, len(a))
sys.exit(0 if r == 0 else 1)'
check_output "  the bind is still nosuid,nodev" 'nosuid.*nodev|nodev.*nosuid' options_of /tmp/ctr/bm
# A mask of root's below the user's directory: what it hides stays hidden.
mkdir -p /tmp/ctr/mine/masked && echo "under the mask" >/tmp/ctr/mine/masked/hidden &&
	chmod 0644 /tmp/ctr/mine/masked/hidden && mount -t tmpfs -o mode=0755 mask /tmp/ctr/mine/masked
check_output "a recursive bind of the user's directory with root's mask below, into its container" \
	'"mountId"' vcall Bind "{\"sourcePath\":\"/tmp/ctr/mine\",\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/bmask\",\"create\":\"directory\"}}"
check "  the mask came along" in_ctr mountpoint -q /tmp/ctr/bmask/masked
check_fails "  the container's root cannot unmount the mask" ctr_root umount /tmp/ctr/bmask/masked
check_fails "  nor detach it" ctr_root umount -l /tmp/ctr/bmask/masked
check_fails "  nor move it away" ctr_root mount --move /tmp/ctr/bmask/masked /tmp
check_fails "  what it hides is not readable there" ctr_root cat /tmp/ctr/bmask/masked/hidden
check "  the user's own bind of it still goes whole" \
	vcall Unmount "{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/bmask\",\"detach\":true}"
check_fails "  and nothing of it is left in the container" in_ctr mountpoint -q /tmp/ctr/bmask/masked
check "root's own bind into the container is root's to change: no lock for root" \
	bash -c "varlinkctl call --json=short $SOCK io.mountd.Mount.Bind '{\"sourcePath\":\"/tmp/ctr/mine\",\"recursive\":false,\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/rootb\",\"create\":\"directory\"},\"attributes\":{\"noSuid\":true}}' >/dev/null &&
		varlinkctl call --json=short $SOCK io.mountd.Mount.SetAttributes '{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/rootb\",\"attributes\":{\"noSuid\":false}}' >/dev/null"
in_ctr umount /tmp/ctr/rootb 2>/dev/null
umount /tmp/ctr/mine/masked && rm -rf /tmp/ctr/mine/masked

# --- nothing is left behind
for m in /tmp/ctr/o /tmp/ctr/bm /tmp/ctr/t /tmp/ctr/idm; do
	vcall Unmount "{\"namespace\":{\"pid\":$container},\"path\":\"$m\"}" >/dev/null 2>&1
done
check "after unmounting, both mount tables are as they were" unchanged start
check_fails "root's directory holds nothing new" test -e /root/secret-dir/planted

stop_mountd
check "no helper of the user's outlives mountd and its workers" \
	wait_for 10 sh -c "test -z \"\$(pgrep -u $USER_ID -x mountd-caller)\""

# A rule that names images lets the user's image in (as a loop device the
# user did not have to be allowed to make), nosuid,nodev still.
echo 'allow user=1000 method=Create namespace=owned image=yes' >"$MOUNTD_POLICY"
check "mountd starts with image=yes" start_mountd
chmod 0666 $SOCK
# An image root owns that the user may only write, or only name: the loop
# device would read it with mountd's rights.
truncate -s 16M /tmp/ctr/rootimg && mkfs.ext4 -q /tmp/ctr/rootimg && chmod 0602 /tmp/ctr/rootimg
loops_before=$(losetup -a | wc -l)
for mode in w path; do
	check_output "an image fd opened $mode, with fsType given: refused" 'EBADF' \
		bash -c "user_varlink --fd /tmp/ctr/rootimg:$mode io.mountd.Mount.Create \
			'{\"fsType\":\"ext4\",\"image\":{\"fd\":0},\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/rootimg-$mode\",\"create\":\"directory\"}}' 2>&1; true"
	check_fails "  nothing mounted" in_ctr mountpoint -q /tmp/ctr/rootimg-$mode
done
check "  and no loop device was set up" test "$(losetup -a | wc -l)" = "$loops_before"
# Parameters that name a device: the one the caller names is opened by
# the caller; one named by number is root's.
truncate -s 16M /tmp/ctr/mine/img2 && mkfs.ext4 -q /tmp/ctr/mine/img2 && chown $USER_ID /tmp/ctr/mine/img2
# The kernel's encoding of a device number (new_encode_dev()).
devnum() {
	local maj=$((0x$(stat -L -c %t "$1"))) min=$((0x$(stat -L -c %T "$1")))
	echo $(((min & 0xff) | (maj << 8) | ((min & ~0xff) << 12)))
}
journal_create() { # key value target
	user_varlink --fd /tmp/ctr/mine/img2:rw io.mountd.Mount.Create \
		"{\"fsType\":\"ext4\",\"image\":{\"fd\":0},\"parameters\":[{\"key\":\"$1\",\"type\":\"string\",\"value\":\"$2\"}],\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"$3\",\"create\":\"directory\"}}" 2>&1
	true
}
check_output "ext4's journal on the host's disk (journal_path): EACCES, the user cannot open it" \
	'fsconfig:journal_path.*EACCES|EACCES.*fsconfig:journal_path' journal_create journal_path "$disk" /tmp/ctr/j1
check_output "ext4's journal by device number (journal_dev): EPERM" \
	'fsconfig:journal_dev.*EPERM|EPERM.*fsconfig:journal_dev' \
	journal_create journal_dev "$(devnum "$disk")" /tmp/ctr/j2
check_fails "  nothing mounted at either" bash -c 'in_ctr mountpoint -q /tmp/ctr/j1 || in_ctr mountpoint -q /tmp/ctr/j2'
check "  and no loop device stayed" wait_for 10 test "$(losetup -a | wc -l)" = "$loops_before"
# The user's image holds a node of the host's disk that anyone may read:
# mke2fs -d makes it as it is.
rm -rf /tmp/ctr/imgtree && mkdir /tmp/ctr/imgtree &&
	mknod -m 0666 /tmp/ctr/imgtree/disk b $((0x$(stat -L -c %t "$disk"))) $((0x$(stat -L -c %T "$disk"))) &&
	mkfs.ext4 -q -F -d /tmp/ctr/imgtree /tmp/ctr/mine/img && chown $USER_ID /tmp/ctr/mine/img
check_output "with image=yes the user's image mounts in its container" '"mountId"' \
	image_create /tmp/ctr/img
check_output "  from a loop device, nosuid,nodev" '^/dev/loop[0-9]+ .*nosuid.*nodev' \
	in_ctr findmnt -n -o SOURCE,VFS-OPTIONS /tmp/ctr/img
# issue 48 class 1: a superblock of root's, with a device node on it.
check_fails "  the container's root cannot remount it dev,suid" \
	nsenter -t $container -U -m mount -o remount,bind,dev,suid /tmp/ctr/img
check_output "  still nosuid,nodev" 'nosuid.*nodev|nodev.*nosuid' \
	in_ctr findmnt -n -o VFS-OPTIONS /tmp/ctr/img
check_fails "  the host's disk cannot be read through the image's node" \
	nsenter -t $container -U -m head -c 512 /tmp/ctr/img/disk
in_ctr umount /tmp/ctr/img
stop_mountd

# --- mountd.policy(5)'s EXAMPLE, as the man page has it: a member of
# "containers" tries what lies around what the rules grant, on both front
# ends.
example_policy >"$MOUNTD_POLICY"
check "mountd starts with mountd.policy(5)'s EXAMPLE" start_mountd
chmod 0666 $SOCK
snapshot example
mvar() { member varlinkctl call --json=short $SOCK "io.mountd.Mount.$1" "$2" 2>&1; true; }
mbus() { member busctl --system call io.mountd1 /io/mountd1 io.mountd1.Manager "$@" 2>&1; true; }
mkdir -p /usr/local/bin
check_output "EXAMPLE: a member binds its directory over root's /usr/local/bin (Bind, own namespace): EPERM" \
	'EPERM' mvar Bind '{"sourcePath":"/tmp/ctr/mine","placement":{"path":"/usr/local/bin"}}'
check_output "  D-Bus: the same" 'Operation not permitted|EPERM' \
	mbus Bind 'sa{sv}' /tmp/ctr/mine 1 placement a{sv} 1 path s /usr/local/bin
check_fails "  /usr/local/bin is no mount point in pid 1's namespace" mountpoint -q /usr/local/bin
check_output "EXAMPLE: binding root's 0700 directory into its container: EACCES" 'EACCES' \
	mvar Bind "{\"sourcePath\":\"/root/secret-dir\",\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/ex-b\",\"create\":\"directory\"}}"
check_output "  D-Bus: the same" 'Permission denied|EACCES' \
	mbus Bind 'sa{sv}' /root/secret-dir 1 placement a{sv} 3 namespace a{sv} 1 pid u $container \
	path s /tmp/ctr/ex-b2 create s directory
check_fails "  nothing mounted" bash -c 'in_ctr mountpoint -q /tmp/ctr/ex-b || in_ctr mountpoint -q /tmp/ctr/ex-b2'
check_output "EXAMPLE: a tmpfs in the host's namespace (Create only in owned ones): PermissionDenied" \
	'PermissionDenied' mvar Create '{"fsType":"tmpfs","placement":{"path":"/tmp/ctr/mine"}}'
check_output "  D-Bus: the same" 'Access ?[Dd]enied|Permission denied' \
	mbus Create 'sa(ssv)a{sv}' tmpfs 0 1 placement a{sv} 1 path s /tmp/ctr/mine
check_output "EXAMPLE: an overlay in its container (tmpfs only): PermissionDenied" 'PermissionDenied' \
	mvar Create "$(ov_json /tmp/ctr/ov/l)"
check_output "EXAMPLE: an idmapped bind of its directory with root's tmpfs below it: EPERM" 'EPERM|not permitted' \
	bash -c "mount -t tmpfs -o size=1m below /tmp/ctr/mine/below 2>/dev/null ||
		{ mkdir -p /tmp/ctr/mine/below && mount -t tmpfs -o size=1m below /tmp/ctr/mine/below; }
		echo root-only >/tmp/ctr/mine/below/f && chmod 0600 /tmp/ctr/mine/below/f
		member $BUILD/mountctl --pid $container bind --idmap /proc/$container/ns/user --mkdir \
			/tmp/ctr/mine /tmp/ctr/ex-idm 2>&1; true"
check_fails "  nothing mounted" in_ctr mountpoint -q /tmp/ctr/ex-idm
umount /tmp/ctr/mine/below && rmdir /tmp/ctr/mine/below
check_output "EXAMPLE: remounting root's tmpfs in its container (no rule for Reconfigure): PermissionDenied" \
	'PermissionDenied' mvar Reconfigure "{\"namespace\":{\"pid\":$container},\"path\":\"/run/user-test\",\"parameters\":[{\"key\":\"size\",\"type\":\"string\",\"value\":\"64m\"}]}"
check_output "  its size is as root set it" 'size=1024k' findmnt -n -o FS-OPTIONS /run/user-test
check_output "EXAMPLE: what it is granted still works: a tmpfs in its container" '"mountId"' \
	mvar Create "$(ctr_json tmpfs /tmp/ctr/ex-t '')"
in_ctr umount /tmp/ctr/ex-t
check "EXAMPLE: pid 1's and the container's mount tables are as they were" unchanged example
check_output "  and root is still served" '"attribute"' \
	varlinkctl call --json=short $SOCK io.mountd.Mount.Info '{"path":"/"}'
stop_mountd

# --- broader grants: overlay and tmpfs in the host's namespace, the user's
# own (namespace=own).  The superblocks are still the user's: made in a new
# user namespace of its own, so overlay copies up and cleans its work
# directory with the user's credentials, and what the user may change later
# is what it made, nothing of root's.
cat >"$MOUNTD_POLICY" <<'POLICY'
allow user=1000 method=Create fstype=overlay,tmpfs namespace=own
allow user=1000 method=Reconfigure,Unmount,Info namespace=own
POLICY
check "mountd starts with overlay and tmpfs granted in the host's namespace" start_mountd
chmod 0666 $SOCK
mounts_of 1 >"$work/host.broad"
H=/var/tmp/hostov
rm -rf $H /var/tmp/rootwork && mkdir -p $H/l/d $H/u $H/w1 $H/w3 $H/w4 $H/m1 $H/m2 $H/m3 $H/m4 $H/t \
	/var/tmp/rootwork/work/work && echo keep >/var/tmp/rootwork/work/work/keep &&
	chown -R $USER_ID:$USER_ID $H
host_ov() { # upper work target
	printf '{"fsType":"overlay","source":"attack","parameters":[{"key":"lowerdir","type":"string","value":"%s/l"},{"key":"upperdir","type":"string","value":"%s"},{"key":"workdir","type":"string","value":"%s"}],"placement":{"path":"%s"}}' \
		$H "$1" "$2" "$3"
}
# The user's directory d of the lower layer copied up into /etc would be
# root's doing: a user cannot create /etc/d.
vcall Create "$(host_ov /etc $H/w1 $H/m1)" >"$work/hetc" 2>&1
sed 's/^/# /' "$work/hetc"
as_user sh -c "echo planted >$H/m1/d/planted" 2>/dev/null
check_fails "host overlay with upperdir=/etc: nothing planted in the host's /etc" \
	bash -c 'test -e /etc/d || test -e /etc/mountd-planted'
vcall Create "$(host_ov $H/u /var/tmp/rootwork $H/m2)" >"$work/hwork" 2>&1
sed 's/^/# /' "$work/hwork"
check_output "host overlay with root's directory as workdir: root's work/work is untouched" \
	'^keep$' cat /var/tmp/rootwork/work/work/keep
bus Create 'sa(ssv)a{sv}' overlay 3 lowerdir string s $H/l upperdir string s /etc \
	workdir string s $H/w3 1 placement a{sv} 1 path s $H/m3 >"$work/hbus"
sed 's/^/# /' "$work/hbus"
as_user sh -c "echo planted >$H/m3/d/planted" 2>/dev/null
check_fails "D-Bus: the same overlay: nothing planted in the host's /etc" test -e /etc/d
check_output "host overlay of the user's own directories works" '"mountId"' \
	vcall Create "$(host_ov $H/u $H/w4 $H/m4)"
check "  the user writes through it: the copy-up is the user's" \
	as_user sh -c "echo mine >$H/m4/d/f && test \"\$(stat -c %u $H/u/d/f)\" = $USER_ID"
check_output "a tmpfs of the user's on the host, at a directory it owns" '"mountId"' \
	vcall Create "{\"fsType\":\"tmpfs\",\"parameters\":[{\"key\":\"size\",\"type\":\"string\",\"value\":\"1m\"}],\"placement\":{\"path\":\"$H/t\"}}"
check_output "  made by the user: its root directory is the user's, as with a rootless mount" \
	"^$USER_ID\$" stat -c %u $H/t
check_output "  nosuid,nodev" 'nosuid.*nodev|nodev.*nosuid' findmnt -n -o VFS-OPTIONS $H/t
check "  the user may reconfigure what it made (size=2m)" \
	vcall Reconfigure "{\"path\":\"$H/t\",\"parameters\":[{\"key\":\"size\",\"type\":\"string\",\"value\":\"2m\"}]}"
check_output "  the kernel took it" 'size=2048k' findmnt -n -o FS-OPTIONS $H/t
check_output "  and still not root's tmpfs whose root directory is its own: EPERM" 'EPERM' \
	vdenied Reconfigure '{"path":"/run/user-test","parameters":[{"key":"size","type":"string","value":"64m"}]}'
check_output "  whose size is as root set it" 'size=1024k' findmnt -n -o FS-OPTIONS /run/user-test
check_output "root is still served" '"attribute"' \
	varlinkctl call --json=short $SOCK io.mountd.Mount.Info '{"path":"/"}'
# --- issue 48 class 8: the audit trail.  What a caller chose reaches the
# journal escaped and bounded (daemon/request-escape.c): a newline in a path,
# in a D-Bus argument or in its own comm does not start a line of its own in
# `journalctl -o cat`, nor does an ESC reach the reader's terminal.  And the
# bytes a user's records take are counted against that user: past its budget
# (1 MiB per 10 s) its records are counted into a summary, root's never, so a
# flood of large refused calls cannot rotate root's records out.
journalctl --sync
audit_cursor=$(journalctl -q -n 0 --show-cursor | sed -n 's/^-- cursor: //p')
audit_start=$(date +%s)
audit_since() { journalctl --sync; journalctl -q --after-cursor="$audit_cursor" _PID=$mountd "$@"; }
export audit_cursor
export -f audit_since
user_calls=0
forged='Info / by uid 0 (mountctl): done'
vdenied Info "{\"path\":\"/tmp/audit-v\\nforged-v $forged\"}" >/dev/null
user_calls=$((user_calls + 1))
bus Info 'sa{sv}' "/tmp/audit-b
forged-b $forged" 0 >/dev/null
user_calls=$((user_calls + 1))
# comm is the name the program was run by: a symlink's, newline and all.
forged_comm=$'/tmp/a\nForged: root'
ln -sf "$(command -v varlinkctl)" "$forged_comm"
as_user "$forged_comm" call $SOCK io.mountd.Mount.Info '{"path":"/tmp/audit-comm"}' >/dev/null 2>&1
user_calls=$((user_calls + 1))
rm -f "$forged_comm"
# (sent by python: varlinkctl did not send this one in the guest)
user_varlink io.mountd.Mount.Info '{"path":"/tmp/audit-esc\u001b[2J\u001b]0;owned\u0007\r\u2028x"}' \
	>/dev/null 2>&1
user_calls=$((user_calls + 1))
check_fails "a forged line is no line of its own in journalctl -o cat (varlink, D-Bus, comm)" \
	bash -c "audit_since -o cat | grep -E '^(forged-|Forged: root)'"
check_output "  the user's records are there, each newline shown as \\n" '^3$' \
	bash -c "audit_since -o cat | grep -cF -e '\\nforged-v $forged' -e '\\nforged-b $forged' -e '(a\\nForged: root)'"
check_output "  as many lines as records: every record is one line" '^ok$' \
	bash -c "n=\$(audit_since -o json | wc -l); l=\$(audit_since -o cat | wc -l);
		[ \$n -ge $user_calls ] && [ \$n = \$l ] && echo ok || echo \"\$n records, \$l lines\""
check_fails "  no ESC, BEL or CR reaches the reader" \
	bash -c "audit_since -o cat | grep -qP '[\\x1b\\x07\\r]' && audit_since -o cat | cat -A | grep audit-esc"
check_output "  they are shown escaped, in MESSAGE and MOUNTD_PATH alike" \
	'^/tmp/audit-esc\\x1b\[2J\\x1b\]0;owned\\x07\\r\\u2028x$' \
	bash -c "audit_since -o json MOUNTD_CALLER_USER=$USER_ID | fields MOUNTD_PATH | grep audit-esc &&
		audit_since -o cat | grep -qF '/tmp/audit-esc\\x1b[2J'"

# Root's record before the flood, and one made after the user's budget is spent.
varlinkctl call $SOCK io.mountd.Mount.Info '{"path":"/tmp/audit-root-before"}' >/dev/null 2>&1
as_user python3 - 300 >"$work/flood" 2>&1 <<'PY'
# Refused Creates of 180 KB: a 150 KB mount point, and a filesystem type,
# source and namespace root of 8 KB, all forged.
import json, socket, sys
n = int(sys.argv[1])
forged = "\nInfo / by uid 0 (mountctl): done\n"
call = {"method": "io.mountd.Mount.Create", "parameters": {
    "fsType": "t" * 8192 + forged, "source": "s" * 8192 + forged,
    "placement": {"path": "/tmp/flood/" + "p" * 150000 + forged,
                  "namespace": {"root": "/" + "r" * 8192 + forged}}}}
msg = json.dumps(call).encode() + b"\0"
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("/run/mountd/io.mountd.Mount")
buf, errors = b"", 0
for _ in range(n):
    s.sendall(msg)
    while b"\0" not in buf:
        buf += s.recv(65536)
    reply, _, buf = buf.partition(b"\0")
    errors += "error" in json.loads(reply)
print("calls=%d errors=%d bytes=%d" % (n, errors, n * len(msg)))
PY
audit_secs=$(($(date +%s) - audit_start))
user_calls=$((user_calls + 300))
sed 's/^/# /' "$work/flood"
varlinkctl call $SOCK io.mountd.Mount.Info '{"path":"/tmp/audit-root-after"}' >/dev/null 2>&1
# A change right after the flood, its budget spent: recorded all the same.
mkdir -p $H/audit-t && chown $USER_ID:$USER_ID $H/audit-t
vcall Create "{\"fsType\":\"tmpfs\",\"placement\":{\"path\":\"$H/audit-t\"}}" >"$work/audit-t" 2>&1
vcall Unmount "{\"path\":\"$H/audit-t\"}" >>"$work/audit-t" 2>&1
user_calls=$((user_calls + 2))
check_output "a user floods 300 refused calls of 180 KB: all answered, none done" \
	'^calls=300 errors=300 ' cat "$work/flood"
check_output "  a change the user makes right after it is recorded: Create, Unmount" '^2$' \
	bash -c "grep -q mountId $work/audit-t && audit_since -o json MOUNTD_CALLER_USER=$USER_ID MOUNTD_PATH=$H/audit-t |
		fields MOUNTD_METHOD MOUNTD_PATH MOUNTD_RESULT MOUNTD_PAST_BUDGET |
		grep -cE '^(Create|Unmount) $H/audit-t ok( 1)? *\$'"
# What mountd had the journal store for the user: each field as it sent it.
user_bytes() {
	audit_since -o json MOUNTD_CALLER_USER=$USER_ID MESSAGE_ID=$REQUEST_ID MESSAGE_ID=$REFUSED_ID |
		python3 -c 'import json,sys
n = b = 0
for l in sys.stdin:
    r = json.loads(l); n += 1
    b += sum(len(k) + len(str(v)) + 2 for k, v in r.items() if not k.startswith("_"))
print(n, b)'
}
export -f user_bytes
check_output "  the user's records took at most its budget over these $audit_secs s" '^ok' \
	bash -c "read n b < <(user_bytes); max=\$((1048576 + ($audit_secs + 2) * 104858));
		[ \$b -le \$max ] && [ \$n -lt $user_calls ] && echo ok \$n records \$b bytes ||
		echo \$n records \$b bytes, at most \$max"
summarized() {
	audit_since -o json MESSAGE_ID=031ac9eb2d5b4faa9aece7471cf6248d MOUNTD_CALLER_USER=$USER_ID |
		python3 -c 'import json,sys; print(sum(int(json.loads(l)["MOUNTD_SUMMARIZED_RECORDS"]) for l in sys.stdin))'
}
export -f summarized
check "  the rest are counted in a summary (within one report period)" \
	wait_for 25 bash -c '[ "$(summarized)" -gt 0 ]'
# A flood longer than a report period has a summary per period: the last
# comes one period after the flood.
wait_for 25 bash -c "read n b < <(user_bytes); [ \$((n + \$(summarized))) = $user_calls ]"
check_output "  every call of the user's is a record or counted: $user_calls" "^$user_calls\$" \
	bash -c 'read n b < <(user_bytes); echo $((n + $(summarized)))'
check_output "  root's record from before the flood is still there" '^1$' \
	bash -c "journalctl --sync; journalctl -q -o cat _PID=$mountd MOUNTD_CALLER_UID=0 MOUNTD_PATH=/tmp/audit-root-before | wc -l"
check_output "  and root's after it is recorded in full: root's records are never summarized" \
	'^Info /tmp/audit-root-after by uid 0 \(varlinkctl\): ' \
	audit_since -o cat MOUNTD_CALLER_UID=0 MOUNTD_PATH=/tmp/audit-root-after
for m in $H/m1 $H/m2 $H/m3 $H/m4 $H/t; do
	mountpoint -q $m && vcall Unmount "{\"path\":\"$m\"}" >/dev/null
done
check "after unmounting, pid 1's mount table is as it was" cmp -s "$work/host.broad" <(mounts_of 1)

# --- issue 48 class 5: singletons.  Some filesystems have one instance for
# the whole host (cgroup2 outside a cgroup namespace, devtmpfs, tracefs,
# debugfs, configfs, ...): a "new" mount of one made by root reconfigures
# the host's.  What a user gets is what the kernel lets a user namespace
# mount (FS_USERNS_MOUNT), the superblock made by the user's helper in a
# user namespace of its own, where the kernel decides; no list of mountd's
# says it.  Every type of the guest's kernel is tried, in the user's
# container and in the host's namespace under a rule that grants any type
# there, and each answer must be the kernel's own to the user: what a
# mount(2) in a user and mount namespace the user makes itself gives.
stop_mountd
cat >"$MOUNTD_POLICY" <<'POLICY'
allow user=1000 method=* namespace=owned
allow user=1000 method=Create,Unmount namespace=own
POLICY
check "class 5: mountd starts with any type granted in the user's containers and the host's namespace" \
	start_mountd
chmod 0666 $SOCK
S5=/var/tmp/singletons
rm -rf $S5 /tmp/ctr/s5 && mkdir -p $S5 /tmp/ctr/s5 && chown $USER_ID:$USER_ID $S5 /tmp/ctr/s5
# The host's instances of what the user might reach for: every mount of
# pid 1 with its superblock options, the cgroup2 root's controls and
# devtmpfs's mode, waited for while a unit of the system's own changes.
host_singletons() {
	awk '{ for (i = 7; $i != "-"; i++) ; print $5, $(i + 1), $(i + 3) }' /proc/1/mountinfo | sort
	cat /sys/fs/cgroup/cgroup.subtree_control 2>&1
	stat -c '/dev %a %U' /dev
	for m in /sys/kernel/tracing /sys/kernel/debug /sys/kernel/config /sys/fs/bpf; do
		mountpoint -q $m && echo "$m: $(stat -c '%a %U' $m) $(ls -A $m | wc -l)"
	done
}
host_singletons >"$work/singletons.before"
singletons_unchanged() {
	local i
	for i in $(seq 50); do
		diff "$work/singletons.before" <(host_singletons) >"$work/singletons.diff" && return 0
		sleep 0.1
	done
	cat "$work/singletons.diff"
	return 1
}
snapshot singletons
# 0 when the kernel lets the user mount type $1 in a user namespace of its
# own (with a mount namespace of that one's), else its error.
kernel_lets() {
	as_user unshare -Ur -m sh -c "mount -i -n -t '$1' none /tmp 2>&1 && umount /tmp"
}
# mountd's answer to the user for type $1 ("ok", or the error) placed at $2
# in the namespace of pid $3 (the host's: none named).
mountd_gives() {
	local ns=''
	[ "$3" != 1 ] && ns="\"namespace\":{\"pid\":$3},"
	vcall Create "{\"fsType\":\"$1\",\"placement\":{$ns\"path\":\"$2\",\"create\":\"directory\"}}" \
		>"$work/s5.out" 2>&1
	if grep -q '"mountId"' "$work/s5.out"; then echo ok; else cat "$work/s5.out"; fi
}
# The same verdict from both, and a mount exactly where mountd said yes.
same_verdict() { # type path pid
	local k m in
	if kernel_lets "$1" >"$work/s5.kernel" 2>&1; then k=ok; else k=refused; fi
	m=$(mountd_gives "$@")
	[ "$m" = ok ] || m="refused: $m"
	in=$(nsenter -t $3 -m findmnt -n -o FSTYPE --mountpoint "$2" 2>/dev/null | tail -1)
	echo "kernel to the user itself: $k ($(head -c 200 "$work/s5.kernel")); mountd: $m; mounted: ${in:-nothing}"
	case $k/$m in
	ok/ok) [ "$in" = "$1" ] ;;
	refused/refused*) [ -z "$in" ] ;;
	*) return 1 ;;
	esac
}
n_types=0
for t in $(awk '{print $NF}' /proc/filesystems | sort -u | grep -vxE "$internal"); do
	n_types=$((n_types + 1))
	check "class 5: $t in the user's container: what the kernel gives the user itself" \
		same_verdict $t /tmp/ctr/s5/$t $container
	in_ctr mountpoint -q /tmp/ctr/s5/$t &&
		vcall Unmount "{\"namespace\":{\"pid\":$container},\"path\":\"/tmp/ctr/s5/$t\"}" >/dev/null
	check "class 5: $t in the host's namespace: the same" same_verdict $t $S5/$t 1
	mountpoint -q $S5/$t && vcall Unmount "{\"path\":\"$S5/$t\"}" >/dev/null
done
check "class 5: every type of the guest's kernel was tried ($n_types)" test $n_types -ge 10
# With the parameters that would change a host instance, were root to make
# the "new" mount: none of it reaches the host's.
s5_param() { # fstype key value path pid
	local ns=''
	[ "$5" != 1 ] && ns="\"namespace\":{\"pid\":$5},"
	printf '{"fsType":"%s","parameters":[{"key":"%s","type":"%s"%s}],"placement":{%s"path":"%s","create":"directory"}}' \
		"$1" "$2" "$([ -n "$3" ] && echo string || echo flag)" "${3:+,\"value\":\"$3\"}" "$ns" "$4"
}
for spec in cgroup2:memory_recursiveprot: cgroup2:nsdelegate: cgroup2:favordynmods: \
	devtmpfs:mode:0777 devtmpfs:size:1m tracefs:mode:0777 debugfs:mode:0777 \
	cgroup:name:s5 configfs:ro: pstore:kmsg_bytes:1 securityfs:ro: efivarfs:ro:; do
	IFS=: read -r t key value <<<"$spec"
	grep -qw "$t" /proc/filesystems || continue
	for where in $container 1; do
		[ $where = 1 ] && p=$S5/p-$t-$key || p=/tmp/ctr/s5/p-$t-$key
		vcall Create "$(s5_param $t $key "$value" $p $where)" >"$work/s5p" 2>&1
		check_output "class 5: $t with $key${value:+=$value} ($where): EPERM, the kernel's" \
			'EPERM' cat "$work/s5p"
		check_fails "  nothing mounted at $p" nsenter -t $where -m mountpoint -q $p
	done
done
check "class 5: the host's singletons are as they were" singletons_unchanged
check "  and no mount table changed" unchanged singletons
check_output "  root is still served" '"attribute"' \
	varlinkctl call --json=short $SOCK io.mountd.Mount.Info '{"path":"/"}'
rm -rf $S5

# --- issue 48 class 4: mount points that are not directories or files
# "The user owns it or may write to it" let a user mount over a character
# device, a socket (mountd's own: root's next client would talk to what she
# put there) or a /proc or sysfs file, and in its own containers over
# anything.  As fusermount3 holds it, a non-root caller's mount point is a
# directory or a regular file on a filesystem of ordinary files, in every
# namespace, on every front end and method that places, and never mountd's
# runtime directory.  Judged by the mount tables and by root still reaching
# mountd.
stop_mountd
cat >"$MOUNTD_POLICY" <<'POLICY'
allow user=1000 method=* namespace=owned
allow user=1000 method=Create,Bind,Move,Unmount,Info namespace=own
POLICY
check "class 4: mountd starts with Create, Bind and Move granted in the user's own namespace" \
	start_mountd
chmod 0666 $SOCK
K=/tmp/ctr/k4
rm -rf $K && as_user mkdir -p $K/src-dir $K/mp-dir $K/ctr-dir $K/mv &&
	as_user sh -c "echo mine >$K/file && echo target >$K/mp-file"
as_user python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' $K/sock
bindj() { # source target [namespace pid]
	local ns=
	[ -n "${3:-}" ] && ns="\"namespace\":{\"pid\":$3},"
	printf '{"sourcePath":"%s","recursive":false,"placement":{%s"path":"%s"}}' "$1" "$ns" "$2"
}
fusej() { # target: a FUSE superblock of the user's in its own namespace, /dev/fuse as fd 0
	printf '{"fsType":"fuse","parameters":[{"key":"fd","type":"fd","fd":0},{"key":"rootmode","type":"string","value":"40000"},{"key":"user_id","type":"string","value":"%d"},{"key":"group_id","type":"string","value":"%d"}],"placement":{"path":"%s"}}' \
		$USER_ID $USER_ID "$1"
}
snapshot c4
for t in /dev/null $SOCK $K/sock /proc/$container/comm; do
	check_output "class 4: binding the user's file over $t (writable or its own): EPERM" 'EPERM' \
		vdenied Bind "$(bindj $K/file $t)"
done
check_output "  D-Bus: over /dev/null" 'Operation not permitted|EPERM' \
	bus Bind 'sa{sv}' $K/file 1 placement a{sv} 1 path s /dev/null
check_output "  FUSE over its container's /proc/PID directory, which it owns: EPERM" 'EPERM' \
	bash -c "! user_varlink --fd /dev/fuse:rw io.mountd.Mount.Create '$(fusej /proc/$container)'"
for t in /dev/null $SOCK /proc/version /sys/kernel/uevent_seqnum; do
	check_output "  in its own container (a namespace of its user namespace's), over $t: EPERM" \
		'EPERM' vdenied Bind "$(bindj $K/file $t $container)"
done
check_output "  a tmpfs over /proc/sys in its container: EPERM" 'EPERM' \
	vdenied Create "{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"/proc/sys\"}}"
check_output "  a tmpfs over sysfs's /sys/kernel there: EPERM" 'EPERM' \
	vdenied Create "{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"/sys/kernel\"}}"
check_output "  a tmpfs over devpts's /dev/pts there: EPERM" 'EPERM' \
	vdenied Create "{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"/dev/pts\"}}"
check_output "  its directory bound over mountd's runtime directory there: EPERM" 'EPERM' \
	vdenied Bind "$(bindj $K/src-dir /run/mountd $container)"
check "class 4: no mount table changed" unchanged c4
check "  mountd's socket is still a socket, in pid 1's namespace and in the container" \
	bash -c "test -S $SOCK && in_ctr test -S $SOCK"
check_output "  root's next call reaches mountd" '"attribute"' \
	varlinkctl call --json=short $SOCK io.mountd.Mount.Info '{"path":"/"}'
check_output "  and in the container too" '"attribute"' \
	in_ctr varlinkctl call --json=short $SOCK io.mountd.Mount.Info '{"path":"/"}'
# Move: a tmpfs of the user's in its container, moved over /proc/sys.
check_output "class 4: a tmpfs of the user's in its container" '"mountId"' \
	vcall Create "{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"$K/mv\"}}"
check_output "  moved over /proc/sys: EPERM" 'EPERM' \
	vdenied Move "{\"namespace\":{\"pid\":$container},\"from\":\"$K/mv\",\"to\":\"/proc/sys\"}"
check_output "  it stays where it was, and nothing is on /proc/sys" "^$K/mv +tmpfs\$" \
	in_ctr findmnt -n -o TARGET,FSTYPE -T $K/mv
check_fails "  /proc/sys has no mount of its own" \
	bash -c "in_ctr findmnt -n -o FSTYPE /proc/sys | grep -q tmpfs"
in_ctr umount $K/mv
# What the user may still do: a directory and a regular file of its own.
check_output "class 4: its directory bound over its directory works" '"mountId"' \
	vcall Bind "$(bindj $K/src-dir $K/mp-dir)"
check_output "  its file bound over its file works" '"mountId"' vcall Bind "$(bindj $K/file $K/mp-file)"
check_output "  the file is there" '^mine$' cat $K/mp-file
check_output "  a tmpfs on its directory in its container works" '"mountId"' \
	vcall Create "{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"$K/ctr-dir\"}}"
umount $K/mp-dir && umount $K/mp-file && in_ctr umount $K/ctr-dir
check "  after unmounting them the mount tables are as before" unchanged c4
rm -rf $K

# --- issue 48 class 6: idmapped mounts that write root's files
# Writing through an idmapped mount stores, for the writer's id, the id
# the mapping's namespace has for it (the left column of its uid_map and
# gid_map).  Through her rootless container's namespace (0 -> her uid, 1...
# -> her subuids) a user's own writes were uid 0's on disk: a setuid-root
# binary, run from the host.  A non-root caller's idmapping may only write
# ids it owns: its uid and gid, its /etc/subuid and /etc/subgid ranges.
# Under mountd.policy(5)'s EXAMPLE, judged by owners on disk.
stop_mountd
example_policy >"$MOUNTD_POLICY"
check "class 6: mountd starts with mountd.policy(5)'s EXAMPLE" start_mountd
chmod 0666 $SOCK
cp -a /etc/subuid $work/subuid 2>/dev/null || : >$work/subuid
cp -a /etc/subgid $work/subgid 2>/dev/null || : >$work/subgid
echo "$USER_ID:100000:65536" >>/etc/subuid && echo "$USER_ID:100000:65536" >>/etc/subgid
I=/tmp/ctr/i6
rm -rf $I && as_user mkdir -p $I/data && as_user sh -c "echo mine >$I/data/file"
# What her own rootless container would have mapped, as newuidmap writes it,
# and namespaces of hers with other maps ("INSIDE OUTSIDE COUNT").
rootless=$(user_userns "0 $USER_ID 1\n1 100000 65536" "0 $USER_ID 1\n1 100000 65536")
mine=$(user_userns "$USER_ID 100000 1" "$USER_ID 100000 1")
subids=$(user_userns "$USER_ID 300000 1\n100000 200000 10" "$USER_ID 300000 1\n100000 200000 10")
past=$(user_userns "$USER_ID 300000 1\n165536 200000 10" "$USER_ID 300000 1\n165536 200000 10")
rootgid=$(user_userns "$USER_ID 300000 1" "0 300000 1")
snapshot c6
idm() { # userns-pid target: mountctl's output (its error names the refusal)
	member $BUILD/mountctl --pid $container bind --no-recursive --idmap /proc/$1/ns/user \
		--mkdir $I/data "$2" 2>&1
}
idm_refused() { ! idm "$@"; }
no_root_files() { test -z "$(find $I \( -uid 0 -o -gid 0 \) -print)"; }
check_output "class 6: idmapped with a rootless container's mapping (0 -> the user): refused" \
	'uids 0-0 to disk' idm_refused $rootless $I/in-a
check_output "  with the user's own container's (0 -> the user): refused" 'uids 0-0' \
	idm_refused $container $I/in-b
check "  nothing mounted" unchanged c6
# As the attack went on: the container's root (the user's uid) writes a
# setuid binary there.
in_ctr setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups \
	sh -c "cp /bin/true $I/in-a/suid && chmod 4755 $I/in-a/suid" 2>/dev/null
check "  no file of uid or gid 0 under the user's directory" no_root_files
check "class 6: idmapped with a mapping of the user's own ids (its uid shown as 100000) works" \
	idm $mine $I/in-c
check_output "  the mount is idmapped" 'idmapped' in_ctr findmnt -n -o VFS-OPTIONS $I/in-c
check_output "  the user's file shows as uid 100000's" '^100000:100000$' \
	in_ctr stat -c %u:%g $I/in-c/file
check "  uid 100000 writes through it" in_ctr setpriv --reuid=100000 --regid=100000 \
	--clear-groups sh -c "echo written >$I/in-c/new"
check_output "  and the file is the user's on disk" "^$USER_ID:$USER_ID\$" stat -c %u:%g $I/data/new
in_ctr umount $I/in-c
if [ -z "${MOUNTD_CONTAINERISED:-}" ]; then
	# Read from mountd's own /etc/subuid: the containerised mountd's root
	# has none, so there the user's uid alone is the user's.
	mkdir -p $I/data/sub && chown 100000:100000 $I/data/sub
	check "class 6: a mapping that writes the user's subuids (/etc/subuid) works" \
		idm $subids $I/in-d
	check "  uid 200000 writes through it" in_ctr setpriv --reuid=200000 --regid=200000 \
		--clear-groups sh -c "echo written >$I/in-d/sub/new"
	check_output "  and the file is the user's subuid 100000's on disk" '^100000:100000$' \
		stat -c %u:%g $I/data/sub/new
	in_ctr umount $I/in-d
fi
check_output "class 6: a mapping that reaches past the user's subuids: refused" \
	'uids 165536-165545' idm_refused $past $I/in-e
check_output "  a uid map of the user's own ids but root's gid: refused" 'gids 0-0' \
	idm_refused $rootgid $I/in-f
check "class 6: the mount tables are as before" unchanged c6
check "  and no file of uid or gid 0 under the user's directory" no_root_files
check_output "  root may still idmap with any mapping" '"mountId"' \
	$V --fd "/proc/$rootless/ns/user:ns" io.mountd.Mount.Bind \
	"{\"sourcePath\":\"$I/data\",\"recursive\":false,\"idmapUserNamespaceFd\":0,\"placement\":{\"path\":\"$I/in-root\",\"create\":\"directory\"}}"
umount $I/in-root 2>/dev/null
cp $work/subuid /etc/subuid && cp $work/subgid /etc/subgid
kill $idns $rootless $mine $subids $past $rootgid 2>/dev/null
rm -rf $I

stop_mountd

# --- issue 48 class 7: acting on mounts that are not the caller's.  Every
# mount Move, Unmount and SetAttributes touch is judged by its mount id on
# an fd held to it, and the call acts on that mount, never on a name looked
# up again; one caller's changes run one at a time.  In the user's
# container (namespace=owned) and, where a rule grants them, in its own
# namespace, the host's.
cat >"$MOUNTD_POLICY" <<'POLICY'
allow user=1000 method=* namespace=owned
allow user=1000 method=Create fstype=tmpfs namespace=own
allow user=1000 method=Move,Unmount,SetAttributes namespace=own
POLICY
check "class 7: mountd starts with Move, Unmount and SetAttributes granted" start_mountd
chmod 0666 $SOCK
ns_json() { # pid extra-json: {"namespace":{"pid":PID},EXTRA}
	printf '{"namespace":{"pid":%d},%s}' "$1" "$2"
}
ctr_src() { in_ctr findmnt -n -o SOURCE "$1"; }
# Root's mask: root's tmpfs over root's directory, put there in the user's
# container by root after the container started (so the kernel has not
# locked it: only mountd's check stands between the user and it).
mkdir -p /tmp/ctr/rootdir /tmp/ctr/mine/moved && echo under >/tmp/ctr/rootdir/under &&
	chown $USER_ID:$USER_ID /tmp/ctr/mine/moved
in_ctr mount -t tmpfs -o size=1m,mode=0755 rootmask /tmp/ctr/rootdir
snapshot c7
check_output "Move of root's mask in the user's container: refused" 'EPERM|PermissionDenied' \
	vdenied Move "$(ns_json $container '"from":"/tmp/ctr/rootdir","to":"/tmp/ctr/mine/moved"')"
check_output "  the mask is still over root's directory" '^rootmask$' ctr_src /tmp/ctr/rootdir
check_fails "  and what it hides is not visible there" in_ctr test -e /tmp/ctr/rootdir/under
check "  no mount table changed" unchanged c7
check_output "D-Bus: the same Move: refused" 'Operation not permitted|EPERM|denied' \
	bus Move 'ssa{sv}' /tmp/ctr/rootdir /tmp/ctr/mine/moved 1 namespace a{sv} 1 pid u $container
check_output "  the mask is still there" '^rootmask$' ctr_src /tmp/ctr/rootdir
check_output "the user's own tmpfs in its container still moves" '^\{' \
	bash -c "vcall Create '$(ctr_json tmpfs /tmp/ctr/mv1)' >/dev/null &&
		vcall Move '$(ns_json $container '"from":"/tmp/ctr/mv1","to":"/tmp/ctr/mine/moved"')'"
check_output "  it is at the target now" '^tmpfs$' in_ctr findmnt -n -o FSTYPE /tmp/ctr/mine/moved
vcall Unmount "$(ns_json $container '"path":"/tmp/ctr/mine/moved"')" >/dev/null 2>&1
# The same in the user's own namespace, the host's: root's mask there.
mkdir -p /var/tmp/c7root /var/tmp/c7mine/to && echo under >/var/tmp/c7root/under &&
	chown -R $USER_ID:$USER_ID /var/tmp/c7mine && chmod 0755 /var/tmp/c7root
mount -t tmpfs -o size=1m,mode=0755 hostmask /var/tmp/c7root
snapshot c7host
check_output "Move of root's mask in the host's namespace: refused" 'EPERM|PermissionDenied' \
	vdenied Move '{"from":"/var/tmp/c7root","to":"/var/tmp/c7mine/to"}'
check_output "Unmount of it: refused" 'EPERM|PermissionDenied' \
	vdenied Unmount '{"path":"/var/tmp/c7root"}'
check_output "Unmount of it, detached: refused" 'EPERM|PermissionDenied' \
	vdenied Unmount '{"path":"/var/tmp/c7root","detach":true}'
check_output "SetAttributes read-only on it: refused" 'EPERM|PermissionDenied' \
	vdenied SetAttributes '{"path":"/var/tmp/c7root","attributes":{"readOnly":true}}'
check_output "  the mask is still there, read-write" '^hostmask rw' \
	findmnt -n -o SOURCE,VFS-OPTIONS /var/tmp/c7root
check "  pid 1's and the container's mount tables are as they were" unchanged c7host

# A recursive SetAttributes over the user's tmpfs with root's tmpfs below:
# root's mount and the user's both stay as they were (all or nothing).
# (A directory in the user's tmpfs is made by the container's root, the
# user: root's uid has no mapping in that superblock's user namespace.)
as_ctr_root() { nsenter -t $container -U -m "$@"; }
vcall Create "$(ctr_json tmpfs /tmp/ctr/sa)" >/dev/null
as_ctr_root mkdir /tmp/ctr/sa/sub && in_ctr mount -t tmpfs -o size=1m,mode=0755 rootsub /tmp/ctr/sa/sub
check_output "root's tmpfs is mounted below the user's" '^rootsub$' ctr_src /tmp/ctr/sa/sub
opts_sa=$(options_of /tmp/ctr/sa) opts_sub=$(options_of /tmp/ctr/sa/sub)
snapshot c7sa
check_output "recursive read-only, noexec over the user's tmpfs with root's below: refused" \
	'EPERM|PermissionDenied' \
	vdenied SetAttributes "$(ns_json $container '"path":"/tmp/ctr/sa","recursive":true,"attributes":{"readOnly":true,"noExec":true}')"
check "  root's mount below has its options as before ($opts_sub)" \
	test "$(options_of /tmp/ctr/sa/sub)" = "$opts_sub"
check "  and the user's own too ($opts_sa): no half-done change" \
	test "$(options_of /tmp/ctr/sa)" = "$opts_sa"
check "  no mount table changed" unchanged c7sa
check_output "D-Bus: the same: refused" 'Operation not permitted|EPERM|denied' \
	bus SetAttributes 'sa{sv}' /tmp/ctr/sa 3 namespace a{sv} 1 pid u $container recursive b true \
	attributes a{sv} 1 readOnly b true
check "  root's mount below is as before" test "$(options_of /tmp/ctr/sa/sub)" = "$opts_sub"
check_output "non-recursive, the user's tmpfs alone: done" '^\{' \
	vcall SetAttributes "$(ns_json $container '"path":"/tmp/ctr/sa","attributes":{"noExec":true}')"
check_output "  it is noexec" 'noexec' options_of /tmp/ctr/sa
check "  root's below is not" test "$(options_of /tmp/ctr/sa/sub)" = "$opts_sub"
in_ctr umount /tmp/ctr/sa/sub
vcall Create "$(ctr_json tmpfs /tmp/ctr/sa/sub)" >/dev/null
check_output "recursive, with the user's own tmpfs below instead: done" '^\{' \
	vcall SetAttributes "$(ns_json $container '"path":"/tmp/ctr/sa","recursive":true,"attributes":{"readOnly":true}')"
check_output "  both are read-only" '^ro,.*\|ro,' echo "$(options_of /tmp/ctr/sa)|$(options_of /tmp/ctr/sa/sub)"
# Unmount of the user's tmpfs with root's below: the kernel's EBUSY, and
# detached (which would take root's along) refused.
in_ctr mkdir -p /tmp/ctr/ud
vcall Create "$(ctr_json tmpfs /tmp/ctr/ud)" >/dev/null
as_ctr_root mkdir /tmp/ctr/ud/sub && in_ctr mount -t tmpfs -o size=1m rootbelow /tmp/ctr/ud/sub
check_output "root's tmpfs is mounted below another of the user's" '^rootbelow$' ctr_src /tmp/ctr/ud/sub
snapshot c7ud
check_output "Unmount of the user's tmpfs with root's below: EBUSY" 'EBUSY' \
	vdenied Unmount "$(ns_json $container '"path":"/tmp/ctr/ud"')"
check_output "  detached (root's would go along): refused" 'EPERM|PermissionDenied' \
	vdenied Unmount "$(ns_json $container '"path":"/tmp/ctr/ud","detach":true')"
check_output "  root's mount is still there" '^rootbelow$' ctr_src /tmp/ctr/ud/sub
check "  no mount table changed" unchanged c7ud
in_ctr umount /tmp/ctr/ud/sub
check_output "  without it, the user's tmpfs unmounts" '^\{' \
	vcall Unmount "$(ns_json $container '"path":"/tmp/ctr/ud"')"
check_fails "  and is gone" in_ctr mountpoint -q /tmp/ctr/ud

# Unmounts racing: in a directory of the user's on the host, root's tmpfs
# under the user's (two Unmounts of the user's at once: the second must
# not take root's), and root's mount point and the user's swapped by name
# all the while, from a namespace of the user's own where neither is a
# mount point (rename() refuses only local ones).
R=/var/tmp/c7race
rm -rf $R && mkdir -p $R/a $R/r $R/s && chown $USER_ID:$USER_ID $R $R/a && chmod 0777 $R/s
setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups \
	unshare -Ur --mount --propagation private python3 -c '
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
os.chdir("'$R'")
open("ready", "w").close()
end = time.time() + 300
while time.time() < end and not os.path.exists("stop"):
    libc.renameat2(-100, b"a", -100, b"r", 2)  # RENAME_EXCHANGE
' &
swapper=$!
wait_for 10 test -e $R/ready
mount -t tmpfs -o size=1m,mode=0755 raceroot $R/r
mount -t tmpfs -o size=1m,mode=0777 raceunder $R/s
roots() { grep -cE ' - tmpfs (raceroot|raceunder) ' /proc/1/mountinfo; }
race() {
	local i u ok=0 pids
	for i in $(seq 20); do
		vcall Create "{\"fsType\":\"tmpfs\",\"placement\":{\"path\":\"$R/s\"}}" >/dev/null 2>&1
		vcall Create "{\"fsType\":\"tmpfs\",\"placement\":{\"path\":\"$R/a\"}}" >/dev/null 2>&1
		pids=()
		for u in 1 2 3 4; do
			vcall Unmount "{\"path\":\"$R/$([ $u -le 2 ] && echo s || echo a)\"}" \
				>"$work/u$u" 2>&1 &
			pids+=($!)
		done
		wait "${pids[@]}"
		ok=$((ok + $(cat "$work"/u[1-4] | grep -c '^{')))
		[ "$(roots)" = 2 ] || { echo "round $i: root's mounts left: $(roots)"; return 1; }
	done
	echo "user unmounts done: $ok"
	[ "$ok" -gt 0 ]
}
check_output "20 rounds of two Unmounts at once of each of two names, one swapped with root's: root's mounts stay" \
	'^user unmounts done: [1-9]' race
touch $R/stop
wait $swapper 2>/dev/null
check_output "  root's two tmpfs are still mounted" '^2$' roots
check "root is still served" \
	varlinkctl call --json=short $SOCK io.mountd.Mount.Info '{"path":"/"}'
stop_mountd
for m in $(awk '$5 ~ "^/var/tmp/(c7race|c7root)" { print $5 }' /proc/self/mountinfo | sort -r); do
	umount -l "$m"
done
in_ctr umount -l /tmp/ctr/rootdir /tmp/ctr/sa/sub /tmp/ctr/sa /tmp/ctr/mv1 2>/dev/null
rm -rf /var/tmp/c7race /var/tmp/c7root /var/tmp/c7mine
kill $container 2>/dev/null
umount /run/user-test && rmdir /run/user-test
rm -rf /root/secret-dir /tmp/ctr /var/tmp/ctrov /var/tmp/rootwork /var/tmp/hostov "$work"
done_testing
