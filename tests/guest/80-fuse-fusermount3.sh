#!/bin/bash
# FUSE for users without a setuid helper: mountd's fusermount3 (client/
# fusermount3.c) in place of libfuse's, the image's mountd.service behind it
# with the policy mountd ships (units/mountd-policy), and daemon/ops-fuse.c
# holding what the setuid fusermount3 held.  Real programs from Debian's
# archive (bindfs, squashfuse, fuse-zip) run as an unprivileged user and
# find it as libfuse does; refusals are judged by what is mounted after.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

U2=1001
export U2
getent passwd $U2 >/dev/null ||
	echo "mountdtest2:x:$U2:$U2::/nonexistent:/usr/sbin/nologin" >>/etc/passwd
as_user2() { setpriv --reuid=$U2 --regid=$U2 --clear-groups "$@"; }
export -f as_user2
COMMFD="python3 $TOP/tests/guest/fuse-commfd.py"
fuse_conf=$(cat /etc/fuse.conf 2>/dev/null)

# From pid 1's mountinfo, never touching a mount (a FUSE mount whose
# server is gone answers ENOTCONN, one of another user's EACCES):
# "target fstype mount-options super-options" per mount, FUSE ones only,
# or the one on top of path $1.
mounts() {
	awk -v p="${1:-}" '{ for (i = 7; $i != "-"; i++) ;
		line = $5 " " $(i + 1) " " $6 " " $(i + 3) }
		p == "" && $(i + 1) ~ /^fuse(blk)?(\.|$)/ { print line } p != "" && $5 == p { last = line }
		END { if (last != "") print last }' /proc/1/mountinfo
}
fuse_mounts() { mounts; }
export -f mounts fuse_mounts
mounted_at() { [ -n "$(mounts "$1")" ]; }
unmounted_at() { ! mounted_at "$1"; }
journal_has() { journalctl -u mountd -o cat --no-pager | grep -qF -- "$1"; }

# The image's mountd, socket-activated, as a host runs it.
systemctl stop mountd.service mountd.socket mountd-container.socket \
	mountd-container.service 2>/dev/null
rm -f $SOCK
check "mountd.socket starts" systemctl start mountd.socket

# --- the image runs libfuse on mountd's fusermount3, nothing setuid
check_output "the shipped policy grants FUSE in one's own namespace" \
	'^allow method=Create,Unmount fstype=fuse namespace=own$' cat /etc/mountd/policy
check_output "libfuse's fusermount3 is mountd's" '^/usr/lib/mountd/fusermount3$' \
	readlink -f /usr/bin/fusermount3
check "no fusermount on the system is setuid" \
	test -z "$(find / -xdev -perm -4000 -name 'fusermount*')"
check_fails "  nor is mountd's" test -u /usr/lib/mountd/fusermount3

d=/tmp/fuse-test
rm -rf $d && mkdir -p $d && chown $USER_ID:$USER_ID $d
as_user mkdir -p $d/src $d/bind $d/sqsrc $d/sq $d/zipsrc $d/zip $d/m1 $d/m2 $d/m3 $d/race-dir
echo "bind content $$" | as_user tee $d/src/hello >/dev/null
echo "squash content $$" | as_user tee $d/sqsrc/inside >/dev/null
echo "zip content $$" | as_user tee $d/zipsrc/zipped >/dev/null
before=$(fuse_mounts)

# --- real programs, as the user
# bindfs asks for allow_other unless told not to; without user_allow_other
# in /etc/fuse.conf (Debian's default) fusermount3 refuses that.
check_fails "bindfs with its default allow_other: refused, as by fusermount3" \
	as_user bindfs $d/src $d/bind
check "  nothing mounted" unmounted_at $d/bind
check "bindfs --no-allow-other mounts as uid $USER_ID" as_user bindfs --no-allow-other $d/src $d/bind
check_output "  and serves reads" "^bind content $$\$" as_user cat $d/bind/hello
# bindfs names its source as fsname and no subtype, so libfuse asks for
# none: "fuse", as with the setuid fusermount3.
check_output "  mountinfo: fuse, its source, nosuid,nodev, user_id=$USER_ID" \
	"^$d/bind fuse .*nosuid.*nodev.* .*user_id=$USER_ID,group_id=$USER_ID" \
	mounts $d/bind
check "  its Create is in the journal, with its mount point" journal_has "$d/bind"
check "fusermount3 -u unmounts it" as_user fusermount3 -u $d/bind
check "  it is gone" unmounted_at $d/bind
check "  and so is bindfs" wait_for 10 bash -c "! pgrep -u $USER_ID -x bindfs"

mksquashfs $d/sqsrc $d/img.sqfs -quiet -noappend >/dev/null && chown $USER_ID $d/img.sqfs
check "squashfuse mounts a squashfs image as uid $USER_ID" as_user squashfuse $d/img.sqfs $d/sq
check_output "  and serves reads" "^squash content $$\$" as_user cat $d/sq/inside
check_output "  findmnt: fuse.squashfuse, nosuid,nodev, user_id=$USER_ID" \
	"^$d/sq fuse\.squashfuse .*nosuid.*nodev.* .*user_id=$USER_ID" \
	mounts $d/sq
check "  its Create is in the journal" journal_has "$d/sq"
check "fusermount3 -u unmounts it" as_user fusermount3 -u $d/sq
check "  it is gone" unmounted_at $d/sq

(cd $d/zipsrc && zip -q $d/a.zip zipped) && chown $USER_ID $d/a.zip
check "fuse-zip mounts a zip archive as uid $USER_ID" as_user fuse-zip -r $d/a.zip $d/zip
check_output "  and serves reads" "^zip content $$\$" as_user cat $d/zip/zipped
check_output "  findmnt: fuse-zip's mount, nosuid,nodev, user_id=$USER_ID" \
	"^$d/zip fuse(\.fuse-zip)? .*nosuid.*nodev.* .*user_id=$USER_ID" \
	mounts $d/zip
check "fusermount3 -u unmounts it" as_user fusermount3 -u $d/zip
check "  it is gone" unmounted_at $d/zip

# --- the classes of fusermount's own bugs, each judged by what is mounted
# A mount point swapped for a symlink to a root directory while requests
# run: whatever the timing, nothing lands on /etc.
as_user bash -c "while :; do ln -sfn /etc $d/race.new && mv -T $d/race.new $d/race;
	mkdir -p $d/race-dir; ln -sfn $d/race-dir $d/race.new && mv -T $d/race.new $d/race; done" &
swapper=$!
for _ in $(seq 30); do as_user $COMMFD $d/race >/dev/null 2>&1; done
kill $swapper
pkill -u $USER_ID -f race.new
wait $swapper 2>/dev/null
check "a mount point swapped for a symlink to /etc: nothing on /etc" unmounted_at /etc
check "  what was mounted is on the user's own directory only" \
	bash -c "out=\$(fuse_mounts | awk -v d=$d/race-dir '\$1 != d'); echo \"\$out\"; test -z \"\$out\""
while mounted_at $d/race-dir; do umount -l -c $d/race-dir || break; done

check_fails "a symlink to a root directory as the mount point is refused" \
	bash -c "as_user ln -sfn /root $d/evil && as_user $COMMFD $d/evil"
check "  nothing on /root" unmounted_at /root

# fsname and subtype with commas, = and newlines: the kernel gets each as
# one value (fsconfig), no option can be smuggled in through them.
nl=$'\n'
check_output "fsname and subtype with commas, = and newlines" '^fd$' \
	as_user $COMMFD --hold 0 $d/m1 "fsname=x\\,allow_other\\,user_id=0=${nl}y,subtype=s\\,dev"
check_output "  the mount's user is still uid $USER_ID, no allow_other" "user_id=$USER_ID,group_id=$USER_ID" \
	mounts $d/m1
check_fails "  allow_other did not get in" \
	bash -c "mounts $d/m1 | grep -w allow_other"
check_output "  and it stays nosuid,nodev" 'nosuid.*nodev' mounts $d/m1
check_output "  mountinfo keeps one line per mount (the newline is escaped)" '\\012' \
	grep -F " $d/m1 " /proc/1/mountinfo
check "  fusermount3 -u" as_user fusermount3 -u $d/m1

check_output "-o dev,suid: ignored, the mount is nosuid,nodev" '^fd$' \
	as_user $COMMFD $d/m1 dev,suid
check_output "  nosuid,nodev" 'nosuid.*nodev' mounts $d/m1
as_user fusermount3 -u $d/m1
for opt in allow_other blkdev; do
	check_fails "-o $opt: refused" as_user $COMMFD $d/m2 $opt
	check "  nothing mounted" unmounted_at $d/m2
done
# --- issue 48 class 11: fusermount3 compatibility.  What libfuse's
# fusermount3 sets itself it drops from -o, and so must this one: a program
# that passes them works with the setuid helper.  The mount is still the
# caller's, judged by pid 1's mountinfo.
for opt in user_id=0 group_id=0 rootmode=100644 fd=0; do
	check_output "-o $opt: mounted, the option dropped with a note" \
		"^fusermount3: option $opt ignored: fusermount3 sets ${opt%%=*} itself$" \
		as_user $COMMFD $d/m2 $opt
	check_output "  the mount is the caller's: user_id=$USER_ID,group_id=$USER_ID, nosuid,nodev" \
		"^$d/m2 fuse .*nosuid,nodev.* .*user_id=$USER_ID,group_id=$USER_ID" mounts $d/m2
	check "  fusermount3 -u" as_user fusermount3 -u $d/m2
	check "  nothing left mounted" unmounted_at $d/m2
done
check_output "-o user_id=0,group_id=0,suid,dev,fd=0,rootmode=100644 at once: mounted" '^fd$' \
	as_user $COMMFD $d/m2 user_id=0,group_id=0,suid,dev,fd=0,rootmode=100644
check_output "  still the caller's, nosuid,nodev" \
	"^$d/m2 fuse .*nosuid,nodev.* .*user_id=$USER_ID,group_id=$USER_ID" mounts $d/m2
as_user fusermount3 -u $d/m2
# The same asked of mountd directly, past any client's checks.
fuse_create() {
	printf '{"fsType":"fuse","parameters":[{"key":"fd","type":"fd","fd":0},{"key":"rootmode","type":"string","value":"40000"}%s],"placement":{"path":"%s"}}' "$1" "$2"
}
ids=',{"key":"user_id","type":"string","value":"1000"},{"key":"group_id","type":"string","value":"1000"}'
check_output "mountd refuses user_id=0 from a user" 'MountFailed.*"fuse"' \
	bash -c "! user_varlink --fd /dev/fuse:rw io.mountd.Mount.Create '$(fuse_create ',{"key":"user_id","type":"string","value":"0"},{"key":"group_id","type":"string","value":"1000"}' $d/m2)'"
check_output "mountd refuses allow_other without user_allow_other" 'MountFailed.*"fuse"' \
	bash -c "! user_varlink --fd /dev/fuse:rw io.mountd.Mount.Create '$(fuse_create "$ids"',{"key":"allow_other","type":"flag"}' $d/m2)'"
check_output "mountd refuses fd= as a number from a user" 'MountFailed.*fsconfig:fd' \
	bash -c "! user_varlink io.mountd.Mount.Create '$(fuse_create "$ids" $d/m2 | sed 's/{"key":"fd","type":"fd","fd":0}/{"key":"fd","type":"string","value":"3"}/')'"
# As a detached fd the superblock would be made in a new user namespace of
# the user's, whose /dev/fuse no one has opened: refused, nothing made.
check_output "mountd refuses FUSE as a detached fd to a user on the host" 'MountFailed.*"fuse"' \
	bash -c "! user_varlink --fd /dev/fuse:rw io.mountd.Mount.Create '$(fuse_create "$ids" $d/m2 | sed 's/,"placement":{[^}]*}//')'"
check "  nothing mounted by any of them" unmounted_at $d/m2
echo user_allow_other >>/etc/fuse.conf
check_output "with user_allow_other in /etc/fuse.conf, allow_other is the user's" '^fd$' \
	as_user $COMMFD $d/m2 allow_other
check_output "  the mount has it" 'allow_other' mounts $d/m2
as_user fusermount3 -u $d/m2
# Placed in the host's namespace the superblock is mountd's, as the setuid
# fusermount3's was root's: allow_other serves another user.
check "  bindfs with its allow_other on the host" as_user bindfs $d/src $d/bind
check_output "  uid $U2 reads through it" "^bind content $$\$" as_user2 cat $d/bind/hello
as_user fusermount3 -u $d/bind
printf '%s\n' "$fuse_conf" >/etc/fuse.conf

# -u only of the caller's own FUSE mounts.
check "uid $USER_ID mounts" as_user bindfs --no-allow-other $d/src $d/bind
check_fails "uid $U2 cannot fusermount3 -u it" as_user2 fusermount3 -u $d/bind
check "  it is still mounted" mounted_at $d/bind
check_fails "  not even with -z" as_user2 fusermount3 -u -z $d/bind
check "  still mounted" mounted_at $d/bind
as_user fusermount3 -u $d/bind
mount -t tmpfs -o size=1m none $d/m3
check_fails "fusermount3 -u of a tmpfs on the user's own directory is refused" \
	as_user fusermount3 -u $d/m3
check_output "  the tmpfs is still there" " tmpfs " mounts $d/m3
umount $d/m3
check_fails "Unmount fsType=fuse of / is refused" \
	user_varlink io.mountd.Mount.Unmount '{"path":"/","fsType":"fuse"}'
check "  / is still there" mounted_at /

# mount_max per user.
printf '%s\nmount_max = 2\n' "$fuse_conf" >/etc/fuse.conf
check_output "mount_max = 2: the first FUSE mount" '^fd$' as_user $COMMFD $d/m1
check_output "  the second" '^fd$' as_user $COMMFD $d/m2
check_fails "  not a third" as_user $COMMFD $d/m3
check "  nothing on its mount point" unmounted_at $d/m3
check_output "  another user is not counted against it" '^fd$' \
	bash -c "chown $U2 $d/m3 && as_user2 $COMMFD $d/m3"
as_user fusermount3 -u $d/m1
as_user fusermount3 -u $d/m2
as_user2 fusermount3 -u $d/m3
printf '%s\n' "$fuse_conf" >/etc/fuse.conf

# auto_unmount: fusermount3 stays until the server's process is gone and
# takes away what it left behind.
check_output "-o auto_unmount: mounted" '^fd$' as_user $COMMFD $d/m1 auto_unmount
check "  the server gone, fusermount3 unmounts it" wait_for 10 unmounted_at $d/m1
check "  and exits" wait_for 10 bash -c "! pgrep -u $USER_ID -x fusermount3"

# A caller that dies before it receives the fd leaves nothing mounted.
check_fails "a caller gone before the fd is sent: fusermount3 fails" \
	as_user $COMMFD --die $d/m1
check "  and nothing is left mounted" unmounted_at $d/m1

# --- the same programs in the user's rootless container, through mountctl
# fuse: the server runs here, its mount is the container's alone.
user_container
ctr_mounts() { nsenter -t $container -m awk -v p="$1" '$5 == p' /proc/self/mountinfo; }
in_ctr() { as_user nsenter --preserve-credentials -t $container -U -m "$@"; }
export -f ctr_mounts in_ctr
as_user mkdir -p $d/ctr $d/ctr-sq
# The superblock is made in the container's user namespace, as the
# container could make it itself (fusermount3 opens /dev/fuse there): its
# ids are the container's (the user is its uid 0), and its device nodes do
# not open even once the user clears nodev on the mount inside (the
# kernel's SB_I_NODEV); made by root in the host's, they would.
mknod -m 0666 $d/src/zero c 1 5
check "mountctl --pid (its container) fuse bindfs" \
	as_user mountctl --pid $container fuse bindfs --no-allow-other $d/src $d/ctr
check_output "  mounted in the container, nosuid,nodev, its user the container's uid 0" \
	"nosuid,nodev.* - fuse .*user_id=0,group_id=0" ctr_mounts $d/ctr
check "  not in pid 1's namespace" unmounted_at $d/ctr
check_output "  the container reads it" "^bind content $$\$" in_ctr cat $d/ctr/hello
check "  the user clears nodev and nosuid on it inside the container" \
	in_ctr mount -i -o remount,bind,dev,suid $d/ctr
# Fails while the mount has either flag, and when it is not there at all.
flags_cleared() {
	local o
	o=$(ctr_mounts "$1" | awk '{print $6}')
	echo "$o"
	[ -n "$o" ] && ! grep -qE 'nodev|nosuid' <<<"$o"
}
check "  the mount has neither now" flags_cleared $d/ctr
check_output "  and still its device node does not open: the superblock is the container's" \
	'Permission denied' bash -c "in_ctr head -c1 $d/ctr/zero 2>&1; true"
check "  fusermount3 -u" as_user mountctl --pid $container fuse fusermount3 -u $d/ctr
rm -f $d/src/zero
# allow_other in a superblock of the container's user namespace serves its
# processes only (the kernel's rule): the user's own to give, no
# user_allow_other needed, and no one outside it is served.
check "mountctl --pid fuse bindfs with its allow_other, no user_allow_other in fuse.conf" \
	as_user mountctl --pid $container fuse bindfs $d/src $d/ctr
check_output "  the mount has it" 'allow_other' ctr_mounts $d/ctr
check_output "  the container reads it" "^bind content $$\$" in_ctr cat $d/ctr/hello
check_output "  uid $U2 in the container's mount namespace, not its user namespace: refused" \
	'Permission denied' \
	bash -c "nsenter -t $container -m setpriv --reuid=$U2 --regid=$U2 --clear-groups cat $d/ctr/hello 2>&1; true"
check_output "  and so is root of the host" 'Permission denied' \
	bash -c "nsenter -t $container -m cat $d/ctr/hello 2>&1; true"
check "  fusermount3 -u" as_user mountctl --pid $container fuse fusermount3 -u $d/ctr
check "  gone" test -z "$(ctr_mounts $d/ctr)"
check "mountctl --pid fuse bindfs --no-allow-other again" \
	as_user mountctl --pid $container fuse bindfs --no-allow-other $d/src $d/ctr
check "mountctl --pid fuse squashfuse" \
	as_user mountctl --pid $container fuse squashfuse $d/img.sqfs $d/ctr-sq
check_output "  the container reads it" "^squash content $$\$" in_ctr cat $d/ctr-sq/inside
check_fails "uid $U2 cannot unmount them there" \
	as_user2 mountctl --pid $container fuse fusermount3 -u $d/ctr
check_output "  still mounted" ' - fuse ' ctr_mounts $d/ctr
check "mountctl --pid fuse fusermount3 -u unmounts them" \
	bash -c "as_user mountctl --pid $container fuse fusermount3 -u $d/ctr &&
		as_user mountctl --pid $container fuse fusermount3 -u $d/ctr-sq"
check "  gone from the container" test -z "$(ctr_mounts $d/ctr)$(ctr_mounts $d/ctr-sq)"
# mount_max counts the FUSE superblocks a user holds as detached mount fds
# too, not only those mounted in a namespace.  In its container, where
# /dev/fuse is opened in its user namespace, as the superblock is made.
printf '%s\nmount_max = 2\n' "$fuse_conf" >/etc/fuse.conf
for m in $d/ctr $d/ctr-sq; do
	[ -n "$(ctr_mounts $m)" ] && as_user mountctl --pid $container fuse fusermount3 -u $m
done
fuse_json='{"fsType":"fuse","parameters":[{"key":"fd","type":"fd","fd":0},{"key":"rootmode","type":"string","value":"40000"},{"key":"user_id","type":"string","value":"0"},{"key":"group_id","type":"string","value":"0"}]%s}'
detached=$(printf "$fuse_json" '')
placed=$(printf "$fuse_json" ",\"placement\":{\"path\":\"$d/ctr\"}")
ctr_varlink() {
	as_user nsenter --preserve-credentials -t $container -U -m \
		python3 - --fd /dev/fuse:rw "$@" <"$TOP/tests/guest/varlink.py"
}
export -f ctr_varlink
# setpriv itself in the background, not a shell function: $! must be the
# process that holds the fd.
hold_detached() {
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups \
		nsenter --preserve-credentials -t $container -U -m python3 - --fd /dev/fuse:rw \
		--hold 120 io.mountd.Mount.Create "$detached" <"$TOP/tests/guest/varlink.py" >"$1" 2>&1 &
}
hold_detached $work/held1
held1=$!
hold_detached $work/held2
held2=$!
check "mount_max = 2: two FUSE superblocks held as detached fds in the container" \
	wait_for 30 bash -c "grep -q '\"fd\"' $work/held1 && grep -q '\"fd\"' $work/held2"
check_output "  a third, placed in the container: refused by mount_max" 'MountFailed.*mount_max' \
	bash -c "! ctr_varlink io.mountd.Mount.Create '$placed' 2>&1"
check "  nothing mounted there" test -z "$(ctr_mounts $d/ctr)"
check_output "  nor a third as an fd" 'MountFailed.*mount_max' \
	bash -c "! ctr_varlink io.mountd.Mount.Create '$detached' 2>&1"
kill $held1 $held2
wait $held1 $held2 2>/dev/null
check "  once the fds are closed, their superblocks gone, one is made again" \
	wait_for 10 bash -c "ctr_varlink io.mountd.Mount.Create '$placed' | grep -q mountId"
check_output "  in the container" ' - fuse ' ctr_mounts $d/ctr
as_user mountctl --pid $container fuse fusermount3 -u $d/ctr
printf '%s\n' "$fuse_conf" >/etc/fuse.conf

target=$(new_mntns)
check_fails "a namespace of root's is refused" \
	as_user mountctl --pid $target fuse bindfs --no-allow-other $d/src $d/ctr
check "  nothing mounted there" \
	test -z "$(nsenter -t $target -m awk -v p=$d/ctr '$5 == p' /proc/self/mountinfo)"
kill $target $container

check "every FUSE mount of the test is gone" test "$(fuse_mounts)" = "$before"
check_output "root is still served" '"mounts"' \
	varlinkctl call --json=short $SOCK io.mountd.Mount.List '{}'
rm -rf $d
done_testing
