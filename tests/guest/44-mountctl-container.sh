#!/bin/bash
# A running container as the target, as an unprivileged user with rootless
# crun containers would use it: mountd-oci-hook, the OCI hook that makes the
# mounts a container's config.json asks for while crun starts it (and fails
# the start, leaving nothing, when mountd refuses one), and
# `mountctl --container NAME` on crun containers and a systemd-nspawn
# machine.  Judged by the container's own mount table and files.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

HOOK=/usr/libexec/mountd-oci-hook
[ -x $HOOK ] || HOOK=$BUILD/mountd-oci-hook
M=$(command -v mountctl || echo "$BUILD/mountctl")
export M HOOK

export MOUNTD_POLICY=$work/policy
cat >"$MOUNTD_POLICY" <<'POLICY'
# tmpfs and binds in the user's own containers, and taking them away again
allow user=1000 method=Create fstype=tmpfs namespace=owned
deny user=1000 method=Create
allow user=1000 method=Bind,Unmount,List,Info namespace=owned
# a bind's source is read in the user's own namespace
allow user=1000 method=Bind namespace=own
POLICY
check "mountd starts" start_mountd
chmod 0666 $SOCK

# The user's session, as logind would set it up: crun keeps the state of
# rootless containers in $XDG_RUNTIME_DIR/crun.
mkdir -p /run/user/$USER_ID && chown $USER_ID:$USER_ID /run/user/$USER_ID &&
	chmod 0700 /run/user/$USER_ID
U() { as_user env HOME=/tmp XDG_RUNTIME_DIR=/run/user/$USER_ID "$@"; }
export -f U

T=/tmp/ctr-test
rm -rf $T && mkdir -p $T && chown $USER_ID:$USER_ID $T
U mkdir -p $T/share && U sh -c "echo 'hello from the host' >$T/share/hello.txt"

# bundle NAME [HOOK-STAGE ANNOTATION]: a rootless bundle made with
# `crun spec --rootless`: the host's /usr read-only inside, `sleep` as its
# process, and the hook asked for the mounts of the annotation.
bundle() {
	local dir=$T/$1
	U mkdir -p "$dir/rootfs" &&
		U sh -c "cd $dir && crun spec --rootless && cd rootfs &&
			mkdir -p proc dev sys usr tmp && ln -s usr/bin bin && ln -s usr/lib lib &&
			ln -s usr/lib64 lib64" &&
		U python3 - "$dir/config.json" "$HOOK" "${2:-}" "${3:-}" <<'PY'
import json, sys
path, hook, stage, annotation = sys.argv[1:]
c = json.load(open(path))
c["process"].update(terminal=False, args=["sleep", "infinity"])
c["root"]["readonly"] = False
c["mounts"].append({"destination": "/usr", "type": "bind", "source": "/usr",
                    "options": ["rbind", "ro"]})
if stage:
    c.setdefault("annotations", {})["io.mountd.mounts"] = annotation
    c["hooks"] = {stage: [{"path": hook}]}
json.dump(c, open(path, "w"), indent=1)
PY
}
in_ctr() { local name=$1; shift; U crun exec "$name" "$@"; }
# fstype and mount options of the mount at $2 in mountinfo ($1: a pid's, or "-")
fstype_at() {
	awk -v p="$2" '$5 == p {for (i = 7; $i != "-"; i++); print $(i + 1), $6; f = 1} END {exit !f}' "$1"
}
mounted_in() { in_ctr "$1" cat /proc/self/mountinfo | fstype_at - "$2"; }
host_mounts() { awk '{print $5, $9}' /proc/1/mountinfo | sort; }
export -f in_ctr mounted_in fstype_at
host_mounts >"$work/host.before"

# ---- the hook at createRuntime: a tmpfs and a read-only bind of the user's files
cat >$T/ok.mounts <<EOF
[{"destination": "/data", "type": "tmpfs", "source": "scratch", "options": ["size=4m", "mode=0755"]},
 {"destination": "/shared", "type": "bind", "source": "$T/share", "options": ["rbind", "ro"]}]
EOF
check "a bundle whose config.json asks for two mounts" bundle ok createRuntime "$(cat $T/ok.mounts)"
check "crun run starts it, running the hook" U crun run -d --bundle $T/ok ok
check_output "  the tmpfs is mounted in the container" '^tmpfs rw,nosuid,nodev' mounted_in ok /data
check_output "  with the size asked for" 'size=4096k' in_ctr ok findmnt -n -o FS-OPTIONS /data
check_output "  the bind shows the host's file" '^hello from the host$' in_ctr ok cat /shared/hello.txt
check_output "  read-only" 'Read-only file system' bash -c 'in_ctr ok touch /shared/x 2>&1; true'
check "  the container writes to its tmpfs" in_ctr ok sh -c 'echo written >/data/f && test "$(cat /data/f)" = written'
check "  and the host's mount table did not change" cmp -s "$work/host.before" <(host_mounts)

# ---- the same hook as poststart: the container's root is its rootfs by then
check "a bundle with the hook at poststart" bundle late poststart \
	'[{"destination": "/late", "type": "tmpfs", "options": ["size=1m"]}]'
check "crun run starts it" U crun run -d --bundle $T/late late
check_output "  the tmpfs is in the container at /late" '^tmpfs ' mounted_in late /late

# ---- refused: the start fails, with mountd's reason, and nothing stays mounted
cat >$T/bad.mounts <<'EOF'
[{"destination": "/data", "type": "tmpfs", "options": ["size=1m"]},
 {"destination": "/ram", "type": "ramfs"}]
EOF
check "a bundle asking for a tmpfs, then a ramfs the policy refuses" \
	bundle bad createRuntime "$(cat $T/bad.mounts)"
U crun run -d --bundle $T/bad bad >"$work/bad.out" 2>&1
echo "exit $?" >>"$work/bad.out"
sed 's/^/# crun run: /' "$work/bad.out"
check_output "crun run fails" '^exit [1-9]' cat "$work/bad.out"
check_output "  saying what mountd refused and why" \
	'mountd-oci-hook: container bad: mountd refused ramfs on /ram: .*PermissionDenied' \
	cat "$work/bad.out"
check_output "  and that the tmpfs it made first was unmounted again" \
	'unmounted again the 1 mount made before it' cat "$work/bad.out"
check_fails "  the container does not exist" bash -c 'U crun list | grep -qw bad'
check_output "  mountd made the tmpfs in it, refused the ramfs, unmounted the tmpfs" \
	'^Create tmpfs ok,Create ramfs io.mountd.Mount.PermissionDenied,Unmount  ok,$' \
	bash -c "records MOUNTD_CALLER_COMM=mountd-oci-hook | fields MOUNTD_METHOD MOUNTD_FSTYPE MOUNTD_RESULT MOUNTD_ROOT MOUNTD_PATH |
		awk '\$(NF-1) ~ \"^$T/bad/\" {printf \"%s %s %s,\", \$1, (NF == 5 ? \$2 : \"\"), \$(NF-2)}'"
check "  the host's mount table did not change" cmp -s "$work/host.before" <(host_mounts)

check "an annotation with a relative destination" \
	bundle rel createRuntime '[{"destination": "data", "type": "tmpfs"}]'
check_output "  fails the start before asking mountd anything" \
	'container rel: io.mountd.mounts\[0\]: "destination" must be an absolute path' \
	bash -c 'U crun run -d --bundle '$T'/rel rel 2>&1; true'
check_fails "  the container does not exist" bash -c 'U crun list | grep -qw rel'

# ---- root's crun, a user's image: a symlink in the rootfs leads nowhere else.
# Before pivot_root the container's namespace still has the host's root; the
# hook has mountd resolve each destination under the rootfs instead, so
# /data -> /srv/hook-escape is the image's /srv, as the container sees it.
E=$T/esc
mkdir -p /srv/hook-escape && echo root >/srv/hook-escape/host-file
mkdir -p $E/rootfs && chown $USER_ID:$USER_ID $E/rootfs
U sh -c "cd $E/rootfs && mkdir -p proc dev sys usr tmp srv/hook-escape && ln -s usr/bin bin &&
	ln -s usr/lib lib && ln -s usr/lib64 lib64 && ln -s /srv/hook-escape data"
(cd $E && crun spec) && python3 - "$E/config.json" "$HOOK" <<'PY'
import json, sys
path, hook = sys.argv[1:]
c = json.load(open(path))
c["process"].update(terminal=False, args=["sleep", "infinity"])
c["mounts"].append({"destination": "/usr", "type": "bind", "source": "/usr",
                    "options": ["rbind", "ro"]})
c.setdefault("annotations", {})["io.mountd.mounts"] = json.dumps(
    [{"destination": "/data", "type": "tmpfs", "options": ["size=1m"]}])
c["hooks"] = {"createRuntime": [{"path": hook}]}
json.dump(c, open(path, "w"), indent=1)
PY
check "root's crun runs a container of the user's image, /data -> /srv/hook-escape in it" \
	crun run -d --bundle $E esc
ctr_mounts() { crun exec esc cat /proc/self/mountinfo | fstype_at - "$1"; }
check_output "  the tmpfs is at the image's /srv/hook-escape, seen in the container" '^tmpfs ' \
	ctr_mounts /srv/hook-escape
check_output "  the container writes to it" '^written$' \
	crun exec esc sh -c 'echo written >/data/f && cat /srv/hook-escape/f'
check "  the host's /srv/hook-escape is as it was" \
	bash -c '[ "$(ls /srv/hook-escape)" = host-file ] && [ "$(cat /srv/hook-escape/host-file)" = root ]'
check "  and the host's mount table did not change" cmp -s "$work/host.before" <(host_mounts)
check_output "  the journal names the rootfs as the request's root" "^$E/rootfs /data\$" \
	bash -c "records MOUNTD_CALLER_COMM=mountd-oci-hook MOUNTD_METHOD=Create | fields MOUNTD_ROOT MOUNTD_PATH | grep '^$E/' | tail -n 1"
crun delete -f esc
# The same image, a tmpfs at /data and then a type mountd cannot make: the
# hook's undo names /data, which mountd follows under the rootfs again.
mkdir -p $T/esc2
python3 - "$E/config.json" "$T/esc2/config.json" "$E/rootfs" <<'PY'
import json, sys
src, dst, rootfs = sys.argv[1:]
c = json.load(open(src))
c["root"]["path"] = rootfs
c["annotations"]["io.mountd.mounts"] = json.dumps(
    [{"destination": "/data", "type": "tmpfs", "options": ["size=1m"]},
     {"destination": "/srv", "type": "nosuchfs"}])
json.dump(c, open(dst, "w"), indent=1)
PY
crun run -d --bundle $T/esc2 esc2 >"$work/esc2.out" 2>&1 </dev/null
echo "exit $?" >>"$work/esc2.out"
sed 's/^/# crun run: /' "$work/esc2.out"
check_output "root's crun with /data -> /srv/hook-escape, then a type mountd cannot make, fails" \
	'^exit [1-9]' cat "$work/esc2.out"
check_output "  the hook unmounted the tmpfs it made at /data again" \
	'unmounted again the 1 mount made before it' cat "$work/esc2.out"
check_output "  mountd's Unmount of /data under the rootfs succeeded" "^$E/rootfs /data ok\$" \
	bash -c "records MOUNTD_CALLER_COMM=mountd-oci-hook MOUNTD_METHOD=Unmount | fields MOUNTD_ROOT MOUNTD_PATH MOUNTD_RESULT | grep '^$E/' | tail -n 1"
check "  the host's /srv/hook-escape is as it was" \
	bash -c '[ "$(ls /srv/hook-escape)" = host-file ] && [ "$(cat /srv/hook-escape/host-file)" = root ]'
check "  and the host's mount table did not change" cmp -s "$work/host.before" <(host_mounts)
crun delete -f esc2 2>/dev/null
rm -rf /srv/hook-escape

# ---- mountctl --container on the running container
check_fails "no /extra in the container yet" mounted_in ok /extra
check "mountctl --container ok mount -t tmpfs --mkdir none /extra" \
	U $M --container ok mount -t tmpfs -o size=1m --mkdir none /extra
check_output "  the tmpfs is in the container" '^tmpfs ' mounted_in ok /extra
check "mountctl --container ok bind --mkdir (the user's directory) /more" \
	U $M --container ok bind --mkdir $T/share /more
check_output "  the container reads the host's file there" '^hello from the host$' \
	in_ctr ok cat /more/hello.txt
check_output "mountctl --container ok list --table shows them" '/extra.*tmpfs' \
	U $M --container ok list --table
check_output "-v says where the container was found" \
	"container ok: pid [0-9]+ \(crun state /run/user/$USER_ID/crun/ok/status\)" \
	U $M -v --container ok list
check "mountctl --container ok umount /extra" U $M --container ok umount /extra
check_fails "  it is gone from the container" mounted_in ok /extra
check_output "root's bare name is not the user's rootless container: exit 1, its qualified name said" \
	"no running container \"ok\".*taken only when named so: $USER_ID/ok" \
	bash -c '$M --container ok list --table 2>&1; [ $? = 1 ]'
check_output "root names it $USER_ID/ok" '/data' $M --container $USER_ID/ok list --table
check_output "  or by login name" '/data' $M --container "$(id -nu $USER_ID)/ok" list --table
check_output "the user names her own as $USER_ID/ok too" '/data' U $M --container $USER_ID/ok list --table
# What Tab offers after the words given, as 43-mountctl-docs asks it.
complete_words() {
	bash -lic '
		declare -F _comp_load >/dev/null && _comp_load mountctl || _completion_loader mountctl
		f=$(complete -p mountctl | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
		[ -n "$f" ] || { echo "no completion for mountctl"; exit 1; }
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		"$f" mountctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' complete "$@" 2>/dev/null
}
check_output "root's Tab after --container $USER_ID/ offers $USER_ID/ok" "^$USER_ID/ok\$" \
	complete_words mountctl --container $USER_ID/
check_output "a relative path in the container is refused" 'relative path' \
	bash -c 'U $M --container ok mount -t tmpfs none extra 2>&1; [ $? = 2 ]'
check_output "a name nobody knows: exit 1, saying where it looked" \
	"no running container \"nosuch\"; looked at .*/run/user/$USER_ID/crun/nosuch/status.*machinectl" \
	bash -c 'U $M --container nosuch list 2>&1; [ $? = 1 ]'
check "  the host's mount table did not change" cmp -s "$work/host.before" <(host_mounts)

# ---- a systemd-nspawn machine, and a name two runtimes know
systemd-nspawn -D / --volatile=yes -M twin --as-pid2 --quiet sleep infinity >/dev/null 2>&1 &
nspawn=$!
for _ in $(seq 300); do machinectl show -p Leader --value twin >/dev/null 2>&1 && break; sleep 0.2; done
leader=$(machinectl show -p Leader --value twin)
check "mountctl --container twin (an nspawn machine) mount -t tmpfs --mkdir none /tmp/x" \
	$M --container twin mount -t tmpfs -o size=1m --mkdir none /tmp/x
check_output "  the tmpfs is in the machine" '^tmpfs' \
	fstype_at /proc/$leader/mountinfo /tmp/x
check_output "the user finds root's machine, but mountd refuses: PermissionDenied" \
	'PermissionDenied' bash -c 'U $M --container twin list 2>&1; [ $? = 1 ]'
check "the user starts a crun container also called twin" bundle twin
check "  and runs it" U crun run -d --bundle $T/twin twin
check_output "root's --container twin is root's machine, not the user's container" \
	"container twin: pid $leader \(machinectl\)" $M -v --container twin list

# ---- issue 48 class 10: root's --container NAME is root's container only.
# A user who names her rootless container like one of root's (stopped, or
# never started) must not receive what root meant for its own: a user's
# container is root's target only as UID/NAME.  Judged by the mount tables
# of the user's container and of pid 1, and by what the container reads.
mkdir -p /srv/root-secret && echo "root's secret" >/srv/root-secret/s
# rootful NAME: a bundle for root's crun, the image of the escape case
# above without its hook
rootful() {
	mkdir -p "$T/r$1" && python3 - "$E/config.json" "$T/r$1/config.json" "$E/rootfs" <<'PY'
import json, sys
src, dst, rootfs = sys.argv[1:]
c = json.load(open(src))
c["root"]["path"] = rootfs
c.pop("hooks", None)
c.pop("annotations", None)
json.dump(c, open(dst, "w"), indent=1)
PY
}
rootful shared
check "root's crun container shared runs" crun run -d --bundle $T/rshared shared
check "  and is stopped; its state stays" bash -c 'crun kill shared KILL &&
	for _ in $(seq 100); do crun state shared | grep -q "\"stopped\"" && exit 0; sleep 0.1; done; exit 1'
check "the user makes a rootless container also called shared" bundle shared
check "  and runs it" U crun run -d --bundle $T/shared shared
host_mounts >"$work/host.shared"
root_bind() { $M --container "$1" bind --mkdir /srv/root-secret /secret; }
export -f root_bind
check_output "root's mountctl --container shared bind: exit 1, no running container of root's" \
	"no running container \"shared\"; looked at /run/crun/shared/status \(not running.*taken only when named so: $USER_ID/shared" \
	bash -c 'root_bind shared 2>&1; [ $? = 1 ]'
check_fails "  the user's container did not receive root's bind" mounted_in shared /secret
check_fails "  nor reads root's file" in_ctr shared cat /secret/s
check "  pid 1's mount table did not change" cmp -s "$work/host.shared" <(host_mounts)
check "root's mountctl --container $USER_ID/shared bind: made, as root names it" \
	root_bind $USER_ID/shared
check_output "  the user's container reads root's file there" "^root's secret\$" \
	in_ctr shared cat /secret/s
check "  pid 1's mount table did not change" cmp -s "$work/host.shared" <(host_mounts)

# A name two of root's runtimes know: an error naming both, nothing mounted.
rootful twin
check "root's crun runs a container also called twin" crun run -d --bundle $T/rtwin twin
rtwin=$(crun state twin | python3 -c 'import json, sys; print(json.load(sys.stdin)["pid"])')
check_output "root's --container twin mount: ambiguous, both named, exit 1" \
	'"twin" names 2 containers: .*crun state /run/crun/twin/status.*machinectl.*give --pid' \
	bash -c '$M --container twin mount -t tmpfs -o size=1m --mkdir none /tmp/amb 2>&1; [ $? = 1 ]'
check_fails "  nothing at /tmp/amb in the machine" fstype_at /proc/$leader/mountinfo /tmp/amb
check_fails "  nor in root's crun twin" fstype_at /proc/$rtwin/mountinfo /tmp/amb
check_fails "  nor in the user's twin" mounted_in twin /tmp/amb
check "  pid 1's mount table did not change" cmp -s "$work/host.shared" <(host_mounts)
crun delete -f twin
crun delete -f shared
rm -rf /srv/root-secret

check_output "man mountd-oci-hook documents the annotation" 'io\.mountd\.mounts' \
	bash -c 'MANWIDTH=80 man mountd-oci-hook 2>/dev/null'

kill $nspawn
for c in ok late twin shared; do U crun delete -f $c; done
stop_mountd
rm -rf $T "$work"
done_testing
