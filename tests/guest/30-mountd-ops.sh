#!/bin/bash
# mountd end to end: every io.mountd.Mount operation through the socket, with
# our python client and with systemd's varlinkctl as an independent one, and
# the error paths.  mountd is started by hand from the build tree.
set -u
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/mountd-lib.sh"

# Idle workers go after 1 s, so that fds can be counted with none alive.
export MOUNTD_WORKER_IDLE_SEC=1
start_mountd
check "mountd listens on $SOCK" test -S $SOCK

# A second mount namespace: a process started with unshare -m.
ns=$(new_mntns)
inns() { nsenter -t "$ns" -m "$@"; }

check_output "varlinkctl introspect prints the IDL" "method Create" \
	varlinkctl introspect $SOCK io.mountd.Mount
check_output "IDL has comments and the MountFailed error" "^error MountFailed" \
	varlinkctl introspect $SOCK io.mountd.Mount

# --- create a tmpfs and move it into the second namespace -----------------
check "create tmpfs into the second namespace (varlinkctl call)" \
	varlinkctl call $SOCK io.mountd.Mount.Create \
	"{\"fsType\":\"tmpfs\",\"parameters\":[{\"key\":\"size\",\"type\":\"string\",\"value\":\"4m\"},{\"key\":\"mode\",\"type\":\"string\",\"value\":\"0755\"}],\"placement\":{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/x\",\"create\":\"directory\"}}"
check_output "the tmpfs is visible in the second namespace" "tmpfs" inns findmnt -n -o FSTYPE /mnt/x
check_fails "the tmpfs is not in the initial namespace" findmnt /mnt/x
check "create reports mount id and messages" bash -c "
	$V io.mountd.Mount.Create '{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/y\",\"create\":\"directory\"}}' >$work/c2 &&
	jtest $work/c2 'p[\"mountId\"] > 0 and p[\"messages\"] == [] and p[\"fsType\"] == \"tmpfs\"'"

# --- recursive bind into the namespace ------------------------------------
mkdir -p "$work/src/sub"
mount -t tmpfs srcfs "$work/src"
mkdir -p "$work/src/sub"
mount -t tmpfs subfs "$work/src/sub"
echo hello >"$work/src/sub/file"
check "recursive bind into the second namespace" \
	call bind Bind "{\"sourcePath\":\"$work/src\",\"placement\":{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/b\",\"create\":\"directory\"}}"
check_output "the bind's submount came along" "hello" inns cat /mnt/b/sub/file
check_output "the bind is a mount there" "tmpfs" inns findmnt -n -o FSTYPE /mnt/b/sub
check "non-recursive bind leaves submounts out" \
	call bind2 Bind "{\"sourcePath\":\"$work/src\",\"recursive\":false,\"placement\":{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/b2\",\"create\":\"directory\"}}"
check_fails "no submount under the non-recursive bind" inns findmnt /mnt/b2/sub

# --- reconfigure to read-only -------------------------------------------------
check "reconfigure the tmpfs read-only" \
	call reconf Reconfigure "{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/x\",\"parameters\":[{\"key\":\"ro\",\"type\":\"flag\"}]}"
check_output "the superblock is read-only now" "^ro" inns findmnt -n -o FS-OPTIONS /mnt/x
check_fails "writing to it fails" inns touch /mnt/x/file

# --- setattr ---------------------------------------------------------------
check "setattr noexec,nosuid recursively on the bind" \
	call setattr SetAttributes "{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/b\",\"recursive\":true,\"attributes\":{\"noExec\":true,\"noSuid\":true}}"
check_output "noexec on the bind" "noexec" inns findmnt -n -o VFS-OPTIONS /mnt/b
check_output "and on its submount (recursive)" "noexec" inns findmnt -n -o VFS-OPTIONS /mnt/b/sub
check "setattr clears noexec again" \
	call setattr2 SetAttributes "{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/b\",\"attributes\":{\"noExec\":false}}"
check_fails "noexec is gone from the bind" bash -c "nsenter -t $ns -m findmnt -n -o VFS-OPTIONS /mnt/b | grep -q noexec"

# --- info ----------------------------------------------------------------
if python3 -c 'import ctypes,os,sys
libc=ctypes.CDLL(None,use_errno=True)
r=libc.syscall(340,-100,b"/",None,None,0)
sys.exit(0 if r<0 and ctypes.get_errno()==38 else 1)'; then
	expect_source=statfs # this kernel has no fsinfo(): mountd must fall back
else
	expect_source=fsinfo
fi
check "info statfs answered by $expect_source" bash -c "
	$V io.mountd.Mount.Info '{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/x\"}' >$work/info &&
	jtest $work/info 'p[\"source\"] == \"$expect_source\" and any(v[\"name\"] == \"f_blocks\" and v[\"number\"] == 1024 for v in p[\"values\"])'"
check "info ids names tmpfs" bash -c "
	$V io.mountd.Mount.Info '{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/x\",\"attribute\":\"ids\"}' >$work/info2 &&
	jtest $work/info2 'any(v.get(\"text\") == \"tmpfs\" for v in p[\"values\"])'"
check "info with an unknown attribute is an InvalidParameter" bash -c "
	! $V io.mountd.Mount.Info '{\"path\":\"/\",\"attribute\":\"nope\"}' >$work/info3 &&
	jtest $work/info3 'r[\"error\"] == \"org.varlink.service.InvalidParameter\" and p[\"parameter\"] == \"attribute\"'"

# --- list --------------------------------------------------------------------
check "list shows the new mounts with the right parents" bash -c "
	$V io.mountd.Mount.List '{\"namespace\":{\"pid\":$ns}}' >$work/list &&
	jtest $work/list '
(lambda m: m[\"/mnt/x\"][\"fsType\"] == \"tmpfs\"
  and m[\"/mnt/b/sub\"][\"parentId\"] == m[\"/mnt/b\"][\"id\"]
  and m[\"/mnt/b\"][\"parentId\"] == m[\"/\"][\"id\"]
  and m[\"/mnt/b/sub\"][\"source\"] == \"subfs\")({e[\"mountPoint\"]: e for e in p[\"mounts\"]})'"
check "list of the initial namespace has no /mnt/x" bash -c "
	$V io.mountd.Mount.List '{}' >$work/list0 &&
	jtest $work/list0 'not any(e[\"mountPoint\"] == \"/mnt/x\" for e in p[\"mounts\"]) and any(e[\"mountPoint\"] == \"$work/src/sub\" for e in p[\"mounts\"])'"

# --- watch ----------------------------------------------------------------
$V --more --count 2 io.mountd.Mount.Watch "{\"namespace\":{\"pid\":$ns}}" >"$work/watch" 2>&1 &
watcher=$!
for _ in $(seq 50); do grep -q ready "$work/watch" 2>/dev/null && break; sleep 0.1; done
call w1 Create "{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/w\",\"create\":\"directory\"}}"
for _ in $(seq 50); do kill -0 $watcher 2>/dev/null || break; sleep 0.1; done
kill $watcher 2>/dev/null
check "watch streams ready, then the added mount" \
	jtest "$work/watch" 'rs[0]["parameters"]["event"] == "ready" and rs[1]["parameters"]["event"] == "added" and rs[1]["parameters"]["mount"]["mountPoint"] == "/mnt/w"'

# --- move and unmount -----------------------------------------------------------
check "move /mnt/w to /mnt/w2 inside the namespace" \
	call move Move "{\"namespace\":{\"pid\":$ns},\"from\":\"/mnt/w\",\"to\":\"/mnt/w2\",\"create\":\"directory\"}"
check "the mount is at /mnt/w2" inns findmnt /mnt/w2
check_fails "and not at /mnt/w" inns findmnt /mnt/w
check "unmount /mnt/w2" call umount Unmount "{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/w2\"}"
check_fails "/mnt/w2 is gone" inns findmnt /mnt/w2
check "lazy unmount of the recursive bind" \
	call umount2 Unmount "{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/b\",\"detach\":true}"
check_fails "/mnt/b is gone" inns findmnt /mnt/b

# --- a namespace's root: the call's paths resolved under a directory of it ----
# As an OCI hook names a rootfs before pivot_root: an absolute symlink in it
# leads to the rootfs's directory, not the namespace's.
croot=$work/croot
mkdir -p "$croot/srv/escape" /srv/escape && ln -s /srv/escape "$croot/data"
check "create with namespace.root, at /data -> /srv/escape in it" \
	call nsroot Create "{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$ns,\"root\":\"$croot\"},\"path\":\"/data\"}}"
check_output "  the tmpfs is at the root's /srv/escape" "^tmpfs$" inns findmnt -n -o FSTYPE "$croot/srv/escape"
check_fails "  not at the namespace's /srv/escape" inns findmnt /srv/escape
check "  Unmount of /srv/escape under the same root takes it away" \
	call nsroot2 Unmount "{\"namespace\":{\"pid\":$ns,\"root\":\"$croot\"},\"path\":\"/srv/escape\"}"
check_fails "  it is gone" inns findmnt "$croot/srv/escape"
# Unmount follows a symlink as the last component as umount(8) does, under
# the root too: the hook's undo names the destination it was given.
check "a second tmpfs at /data under the root" \
	call nsroot4 Create "{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$ns,\"root\":\"$croot\"},\"path\":\"/data\"}}"
check "  and one of the namespace's own at its /srv/escape" inns mount -t tmpfs -o size=1m none /srv/escape
check "Unmount of /data under the root follows the symlink there" \
	call nsroot5 Unmount "{\"namespace\":{\"pid\":$ns,\"root\":\"$croot\"},\"path\":\"/data\"}"
check_fails "  the root's /srv/escape is unmounted" inns findmnt "$croot/srv/escape"
check_output "  the namespace's /srv/escape is still mounted" "^tmpfs$" inns findmnt -n -o FSTYPE /srv/escape
check "  the symlink is still there" test -L "$croot/data"
inns umount /srv/escape
ln -s loop "$croot/loop"
check "Unmount of a symlink loop fails at resolve:path with ELOOP" bash -c "
	! $V io.mountd.Mount.Unmount '{\"namespace\":{\"pid\":$ns,\"root\":\"$croot\"},\"path\":\"/loop\"}' >$work/nsroot6 &&
	jtest $work/nsroot6 'p[\"step\"] == \"resolve:path\" and p[\"errnoName\"] == \"ELOOP\"'"
rmdir /srv/escape
check "a root that is a file fails at resolve:root" bash -c "
	! $V io.mountd.Mount.Unmount '{\"namespace\":{\"root\":\"/etc/os-release\"},\"path\":\"/x\"}' >$work/nsroot3 &&
	jtest $work/nsroot3 'p[\"step\"] == \"resolve:root\" and p[\"errnoName\"] == \"ENOTDIR\"'"

# --- a returned mount fd can be attached by the caller ------------------------
mkdir -p "$work/attach"
check "create without placement returns an fd the caller attaches" \
	$V --attach "$work/attach" io.mountd.Mount.Create '{"fsType":"tmpfs","parameters":[{"key":"size","type":"string","value":"2m"}]}'
check_output "the returned mount is attached" "tmpfs" findmnt -n -o FSTYPE "$work/attach"
umount "$work/attach" 2>/dev/null

# --- the kernel's own words in errors ---------------------------------------------
check "fsconfig failure returns the kernel's message (python client)" bash -c "
	! $V io.mountd.Mount.Create '{\"fsType\":\"tmpfs\",\"parameters\":[{\"key\":\"size\",\"type\":\"string\",\"value\":\"bogus\"}]}' >$work/e1 &&
	jtest $work/e1 'r[\"error\"] == \"io.mountd.Mount.MountFailed\" and p[\"step\"] == \"fsconfig:size\" and p[\"errnoName\"] == \"EINVAL\" and any(\"Bad value for\" in m[\"text\"] and m[\"step\"] == \"fsconfig:size\" and m[\"level\"] == \"e\" for m in p[\"messages\"])'"
check_output "fsconfig failure text through varlinkctl" "Bad value for" bash -c \
	"varlinkctl call $SOCK io.mountd.Mount.Create '{\"fsType\":\"tmpfs\",\"parameters\":[{\"key\":\"size\",\"type\":\"string\",\"value\":\"bogus\"}]}' 2>&1; true"
check "unknown filesystem type fails at fsopen" bash -c "
	! $V io.mountd.Mount.Create '{\"fsType\":\"nosuchfs\"}' >$work/e2 &&
	jtest $work/e2 'p[\"step\"] == \"fsopen\" and p[\"errnoName\"] == \"ENODEV\"'"

# --- validation before any syscall ---------------------------------------------
inval() { # inval NAME FIELD METHOD JSON [varlink.py options]
	check "$1 → InvalidParameter($2)" bash -c "
		! $V ${*:5} io.mountd.Mount.$3 '$4' >$work/inval &&
		jtest $work/inval 'r[\"error\"] == \"org.varlink.service.InvalidParameter\" and p[\"parameter\"] == \"$2\"'"
}
long=$(printf 'k%.0s' $(seq 256))
longv=$(printf 'v%.0s' $(seq 256))
many=$(python3 -c 'import json; print(json.dumps([{"key":"k%d"%i,"type":"flag"} for i in range(257)]))')
inval "unknown top-level field" bogus Create '{"fsType":"tmpfs","bogus":1}'
inval "List with a namespace root (it resolves no path)" namespace.root List '{"namespace":{"root":"/tmp"}}'
inval "unknown field in a parameter" "parameters[0].extra" Create '{"fsType":"tmpfs","parameters":[{"key":"a","type":"flag","extra":1}]}'
inval "wrong type" fsType Create '{"fsType":5}'
inval "key with =" "parameters[0].key" Create '{"fsType":"tmpfs","parameters":[{"key":"a=b","type":"flag"}]}'
inval "key with ," "parameters[0].key" Create '{"fsType":"tmpfs","parameters":[{"key":"a,b","type":"flag"}]}'
inval "empty key" "parameters[0].key" Create '{"fsType":"tmpfs","parameters":[{"key":"","type":"flag"}]}'
inval "key with NUL" "parameters[0].key" Create '{"fsType":"tmpfs","parameters":[{"key":"a\u0000b","type":"flag"}]}'
inval "key over 255 bytes" "parameters[0].key" Create "{\"fsType\":\"tmpfs\",\"parameters\":[{\"key\":\"$long\",\"type\":\"flag\"}]}"
inval "string value over 255 bytes" "parameters[0].value" Create "{\"fsType\":\"tmpfs\",\"parameters\":[{\"key\":\"size\",\"type\":\"string\",\"value\":\"$longv\"}]}"
inval "flag with a value" "parameters[0].value" Create '{"fsType":"tmpfs","parameters":[{"key":"ro","type":"flag","value":"x"}]}'
inval "string without a value" "parameters[0].value" Create '{"fsType":"tmpfs","parameters":[{"key":"size","type":"string"}]}'
inval "fd parameter without fd" "parameters[0].fd" Create '{"fsType":"tmpfs","parameters":[{"key":"x","type":"fd"}]}'
inval "binary that is not base64" "parameters[0].value" Create '{"fsType":"tmpfs","parameters":[{"key":"x","type":"binary","value":"!!"}]}'
inval "unknown parameter type" "parameters[0].type" Create '{"fsType":"tmpfs","parameters":[{"key":"x","type":"blob"}]}'
inval "more than 256 parameters" parameters Create "{\"fsType\":\"tmpfs\",\"parameters\":$many}"
inval "fd index without an fd" "parameters[0].fd" Create '{"fsType":"tmpfs","parameters":[{"key":"x","type":"fd","fd":3}]}'
inval "bad fs type name" fsType Create '{"fsType":"tmp fs"}'
inval "placement without path" placement.path Create '{"fsType":"tmpfs","placement":{}}'
inval "two names for one namespace" placement.namespace Create "{\"fsType\":\"tmpfs\",\"placement\":{\"path\":\"/x\",\"namespace\":{\"pid\":1,\"mntnsFd\":0}}}" --fd /proc/self/ns/mnt:ns
inval "bind with both a path and an fd" sourceFd Bind '{"sourcePath":"/","sourceFd":0}' --fd /:path
inval "setattr with nothing to do" attributes SetAttributes '{"path":"/"}'
inval "traceFd index without an fd" traceFd Create '{"fsType":"tmpfs","traceFd":0}'
inval "a read-only traceFd" traceFd Create '{"fsType":"tmpfs","traceFd":0}' --fd /etc/hostname:r
: >"$work/trace"
check "traceFd: Create writes its steps and messages there" bash -c "
	$V --fd $work/trace:w io.mountd.Mount.Create '{\"fsType\":\"tmpfs\",\"parameters\":[{\"key\":\"size\",\"type\":\"string\",\"value\":\"64k\"}],\"traceFd\":0}' >/dev/null"
check_output "  one line per step, in order, as the reply lists them" \
	'^step	fsopen	[0-9]+ step	fsconfig:size	[0-9]+ step	fsconfig:CMD_CREATE	[0-9]+ step	fsmount	[0-9]+ $' \
	bash -c "tr '\n' ' ' <$work/trace"
inval "negative pid" namespace.pid Unmount '{"path":"/x","namespace":{"pid":-1}}'
check "Watch without more is refused" bash -c "
	! $V io.mountd.Mount.Watch '{}' >$work/nomore && jtest $work/nomore 'r[\"error\"] == \"org.varlink.service.ExpectedMore\"'"

# --- failures leave nothing behind ------------------------------------------------
# mountd's fds are counted with no worker alive: a worker's socket and pidfd
# are a cache that comes and goes (idle workers exit after 1 s here).
no_workers() { for _ in $(seq 100); do pgrep -P $mountd >/dev/null || return 0; sleep 0.1; done; return 1; }
no_workers
nfd_before=$(ls /proc/$mountd/fd | wc -l)
nmnt_before=$(inns cat /proc/self/mountinfo | wc -l)
check "placement into a missing directory fails at resolve:target" bash -c "
	! $V io.mountd.Mount.Create '{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$ns},\"path\":\"/no/such/dir\"}}' >$work/f1 &&
	jtest $work/f1 'p[\"step\"] == \"resolve:target\" and p[\"errnoName\"] == \"ENOENT\"'"
inns ln -sfn /proc/1/root /tmp/magic
# Refused as a magic link (ELOOP), or before that by /proc/1 itself: a
# worker has no CAP_SYS_PTRACE (EACCES).
check "a magic link in the target path is refused (cannot escape the root)" bash -c "
	! $V io.mountd.Mount.Create '{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$ns},\"path\":\"/tmp/magic/mnt\"}}' >$work/f2 &&
	jtest $work/f2 'p[\"step\"] == \"resolve:target\" and p[\"errnoName\"] in (\"ELOOP\", \"EACCES\")'"
check "a nonexistent pid fails at namespace" bash -c "
	! $V io.mountd.Mount.Create '{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":999999},\"path\":\"/mnt\"}}' >$work/f3 &&
	jtest $work/f3 'p[\"step\"] == \"namespace\" and p[\"errnoName\"] == \"ENOENT\"'"
check "a failing move removes the mount point it created" bash -c "
	! $V io.mountd.Mount.Move '{\"namespace\":{\"pid\":$ns},\"from\":\"/etc\",\"to\":\"/mnt/created-by-move\",\"create\":\"directory\"}' >$work/f4 &&
	jtest $work/f4 'p[\"step\"] == \"move_mount\"' &&
	! nsenter -t $ns -m test -e /mnt/created-by-move"
# A client that hangs up right after sending a request.
python3 - "$SOCK" "$ns" <<'EOF'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
call = {"method": "io.mountd.Mount.Create", "parameters": {"fsType": "tmpfs"}}
s.sendall(json.dumps(call).encode() + b"\0")
s.close()
EOF
sleep 0.5
no_workers
check "failed requests left no mount in the namespace" test "$(inns cat /proc/self/mountinfo | wc -l)" = "$nmnt_before"
check "failed and abandoned requests left no fd in mountd" test "$(ls /proc/$mountd/fd | wc -l)" = "$nfd_before"
check "mountd is still serving" $V org.varlink.service.GetInfo

# --- graceful stop -----------------------------------------------------------------
rc=0
stop_mountd || rc=$?
check "SIGTERM makes mountd exit 0" test "$rc" = 0
kill $ns 2>/dev/null
umount -R "$work/src" 2>/dev/null
rm -rf "$work"
done_testing
