#!/bin/bash
# Info answered in mountd's event loop (daemon/executor-nonblocking.c): a path in
# mountd's own namespace, or in one a worker serves already, every step of
# it in the dentry cache, on a memory filesystem, is answered without a
# worker.  Everything else goes to a worker as before: a symlink, a FUSE
# server that never answers — which then stalls only the request that asked
# it, never the loop.  Root's requests only: a user's Info goes to that
# user's worker, which looks the path up with the user's rights.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

d=/run/info-loop
rm -rf $d && mkdir -p $d/dir $d/fuse $d/secret && ln -s dir $d/link
chmod 0700 $d/secret && echo root-only >$d/secret/file && chmod 0600 $d/secret/file
# Every step in the dentry cache, as for any path that was used before.
stat $d/dir $d/secret/file >/dev/null

export MOUNTD_POLICY=$work/policy
echo "allow user=$USER_ID method=Info namespace=own" >"$MOUNTD_POLICY"
check "mountd starts" start_mountd
chmod 0666 $SOCK
workers() { pgrep -P "$mountd" | wc -l; }
count() { "$@" | wc -l; }
values() { python3 -c 'import json,sys; p=json.loads(open(sys.argv[1]).read().splitlines()[-1])["parameters"]; print(p["source"], sorted(json.dumps(v, sort_keys=True) for v in p["values"]))' "$1"; }
export -f values

call direct Info "{\"path\":\"$d/dir\",\"attribute\":\"ids\"}"
check "Info of a tmpfs path in mountd's namespace" \
	jtest "$work/direct" 'any(v["name"]=="f_fs_name" and v["text"]=="tmpfs" for v in p["values"])'
check_output "  is answered without a worker" '^0$' workers
call statfs Info "{\"path\":\"$d/dir\"}"
check "  statfs too, with the counts of the filesystem" \
	python3 -c "import json,os,sys
p=json.loads(open('$work/statfs').read().splitlines()[-1])['parameters']
v={x['name']:x['number'] for x in p['values']}
s=os.statvfs('$d/dir')
sys.exit(0 if v['f_blocks']==s.f_blocks and v['f_bsize']==s.f_bsize else 1)"

call link Info "{\"path\":\"$d/link\",\"attribute\":\"ids\"}"
check "the same directory through a symlink answers the same" \
	bash -c "a=\$(values $work/direct) && b=\$(values $work/link) && [ -n \"\$a\" ] && [ \"\$a\" = \"\$b\" ]"
check_output "  from a worker: the loop follows no symlink" '^1$' workers

# A user cannot look into root's 0700 directory through mountd, and root
# still can afterwards.
vdenied Info "{\"path\":\"$d/secret/file\"}" >"$work/user-secret"
check_output "a user's Info of a file in root's 0700 directory: EACCES" 'EACCES' \
	cat "$work/user-secret"
check_output "  from the user's own worker: the loop answers root only" '^2$' workers
vcall Info "{\"path\":\"$d/dir\"}" >"$work/user-dir" 2>&1
check "  the user's Info of a directory it may reach answers" \
	grep -q '"f_blocks"' "$work/user-dir"
call root-secret Info "{\"path\":\"$d/secret/file\"}"
check "  and root's Info of the root-only file still answers" \
	jtest "$work/root-secret" 'p["values"]'

# Another namespace: its first Info goes to a worker, which hands the loop
# the namespace's root; while a worker serves it, the next ones are the
# loop's.  The root goes with the workers: nothing of the namespace stays
# in mountd once the process that named it is gone.
ns=$(new_mntns)
ns_link=$(readlink /proc/$ns/ns/mnt)
awk '{print $1}' /proc/$ns/mountinfo | sort -u >"$work/ns-mounts"
held() {
	for f in /proc/$mountd/fdinfo/*; do awk '/^mnt_id:/ {print $2}' "$f"; done 2>/dev/null |
		sort -u | comm -12 - "$work/ns-mounts" | wc -l
}
ns_workers() {
	for w in $(pgrep -P "$mountd"); do
		[ "$(readlink /proc/$w/ns/mnt)" = "$ns_link" ] && echo $w
	done
}
call ns-first Info "{\"namespace\":{\"pid\":$ns},\"path\":\"$d/dir\"}"
check "Info in another namespace answers" jtest "$work/ns-first" 'p["values"]'
wk=$(ns_workers)
check_output "  from a worker that joined it" '^[0-9]+$' echo "$wk"
check_output "  mountd holds that namespace's root now" '^[1-9]' held
kill -STOP $wk
timeout 30 $V io.mountd.Mount.Info "{\"namespace\":{\"pid\":$ns},\"path\":\"$d/dir\"}" \
	>"$work/ns-next" 2>&1
check "  the next Info there is the loop's: answered while that worker is stopped" \
	jtest "$work/ns-next" 'p["values"]'
kill -CONT $wk
kill $ns
for _ in $(seq 50); do [ -z "$(ns_workers)" ] && break; sleep 0.1; done
check_output "  once the namespace's process exits, its worker ends" '^0$' count ns_workers
check_output "  and mountd holds nothing of that namespace" '^0$' held

# pivot_root() in a served namespace moves its workers' root (the kernel
# moves every process off the old one); the root the loop kept must not
# answer for it any more.  The old root stays mounted under the new one,
# with the directory asked about, so a stale root would answer — wrongly.
ns2=$(new_mntns)
call pv-first Info "{\"namespace\":{\"pid\":$ns2},\"path\":\"$d/dir\"}"
call pv-before Info "{\"namespace\":{\"pid\":$ns2},\"path\":\"$d/dir\"}"
check "a namespace served, before pivot_root: Info of a /run directory" \
	jtest "$work/pv-before" '[v["number"] for v in p["values"] if v["name"]=="f_blocks"][0] > 256'
nsenter -t $ns2 -m sh -ec "mkdir -p /tmp/newroot
	mount -t tmpfs -o size=1m newroot /tmp/newroot
	mkdir -p /tmp/newroot$d/dir /tmp/newroot/old
	cd /tmp/newroot && pivot_root . old" >"$work/pivot" 2>&1
check "  pivot_root there onto a 1 MiB tmpfs" bash -c "[ ! -s $work/pivot ] || { cat $work/pivot; false; }"
call pv-after Info "{\"namespace\":{\"pid\":$ns2},\"path\":\"$d/dir\"}"
check "  after it, Info answers from the new root (256 blocks), not the one kept" \
	jtest "$work/pv-after" '[v["number"] for v in p["values"] if v["name"]=="f_blocks"][0] == 256'
kill $ns2

# A FUSE server that never answers: every request to it waits.
python3 - $d/fuse >"$work/fuse.out" 2>&1 <<'EOF' &
import ctypes, os, sys, time
fd = os.open("/dev/fuse", os.O_RDWR)
libc = ctypes.CDLL(None, use_errno=True)
opts = f"fd={fd},rootmode=40000,user_id=0,group_id=0".encode()
if libc.mount(b"hung", sys.argv[1].encode(), b"fuse", 0, opts) != 0:
    sys.exit("mount: " + os.strerror(ctypes.get_errno()))
print("mounted", flush=True)
time.sleep(3600)
EOF
fuse=$!
for _ in $(seq 50); do grep -q mounted "$work/fuse.out" && break; sleep 0.1; done
check_output "a FUSE server that never answers is mounted" '^mounted$' cat "$work/fuse.out"
call fuse Info "{\"path\":\"$d/fuse\"}" &
pending=$!
# Time for it to reach a worker, which then waits in the kernel.
sleep 1
call during Info "{\"path\":\"$d/dir\"}"
check "the loop answers another Info meanwhile" jtest "$work/during" 'p["values"]'
$V org.varlink.service.GetInfo '{}' >"$work/getinfo-during" 2>&1
check "  and GetInfo" jtest "$work/getinfo-during" '"io.mountd.Mount" in p["interfaces"]' 
check "  while the Info on FUSE still waits" kill -0 $pending
kill $fuse
wait $fuse 2>/dev/null
wait $pending
check "once the server is gone, the waiting Info gets an error" jtest "$work/fuse" '"error" in r'
umount -l $d/fuse

check "mountd stops cleanly" stop_mountd
rm -rf $d
done_testing
