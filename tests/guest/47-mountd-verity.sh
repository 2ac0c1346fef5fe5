#!/bin/bash
# Images a user may mount without being trusted (daemon/sys-verity.c):
# dm-verity under a root hash a key in /etc/verity.d/ signed, for a user
# whose rule says image=signed, beside one whose rule says image=yes; EROFS
# straight from a file.  Images are made here by the tools that make them
# for real: systemd-repart (signed and unsigned DDIs), veritysetup,
# mkfs.erofs, openssl.  Every verdict is judged by its effects: pid 1's
# mount table, the device-mapper table, the loop devices, what is read.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

SIGNED_ID=$USER_ID # image=signed
TRUSTED_ID=1001	   # image=yes
POLKIT_ID=1002	   # no rule: polkit decides, by group
OTHER_ID=1003	   # no rule, not in the group
VERITY_GID=4300
getent passwd $TRUSTED_ID >/dev/null ||
	echo "mountdtrusted:x:$TRUSTED_ID:$TRUSTED_ID::/nonexistent:/usr/sbin/nologin" >>/etc/passwd
getent passwd $POLKIT_ID >/dev/null ||
	echo "mountdpk:x:$POLKIT_ID:$POLKIT_ID::/nonexistent:/usr/sbin/nologin" >>/etc/passwd
getent passwd $OTHER_ID >/dev/null ||
	echo "mountdother:x:$OTHER_ID:$OTHER_ID::/nonexistent:/usr/sbin/nologin" >>/etc/passwd
grep -q '^verityusers:' /etc/group || echo "verityusers:x:$VERITY_GID:mountdpk" >>/etc/group
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --clear-groups "$@"; }
chmod 755 "$work"

# --- keys: one /etc/verity.d trusts, one it does not
mkdir -p /etc/verity.d
for k in trusted untrusted; do
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=mountd-test-$k" \
		-keyout "$work/$k.key" -out "$work/$k.crt" 2>/dev/null
done
install -m 0644 -o root -g root "$work/trusted.crt" /etc/verity.d/mountd-test.crt

# --- the images
mkdir -p "$work/tree/etc"
echo from-signed-image >"$work/tree/hello"
for i in $(seq 40); do head -c 65536 /dev/urandom >"$work/tree/blob$i"; done
# mkddi NAME KEY|-: a DDI of $work/tree (EROFS root, its verity hash, and a
# signature by KEY's certificate unless -).
mkddi() {
	local name=$1 key=$2 d=$work/repart.$1
	mkdir -p "$d"
	printf '[Partition]\nType=root\nFormat=erofs\nCopyFiles=%s:/\nVerity=data\nVerityMatchKey=root\nMinimize=best\n' \
		"$work/tree" >"$d/10-root.conf"
	printf '[Partition]\nType=root-verity\nVerity=hash\nVerityMatchKey=root\nMinimize=best\n' >"$d/20-verity.conf"
	local sign=()
	if [ "$key" != - ]; then
		printf '[Partition]\nType=root-verity-sig\nVerity=signature\nVerityMatchKey=root\n' >"$d/30-sig.conf"
		sign=(--private-key="$work/$key.key" --certificate="$work/$key.crt")
	fi
	systemd-repart --definitions="$d" --empty=create --size=auto --dry-run=no --offline=yes \
		--no-pager "${sign[@]}" "$work/$name.raw" >"$work/repart.$name.log" 2>&1
}
check "systemd-repart makes a DDI signed by the trusted key" mkddi signed trusted
check "  ... one signed by a key /etc/verity.d does not hold" mkddi untrusted untrusted
check "  ... and one without a signature partition" mkddi unsigned -
# Two root partitions, one of them with verity: which is meant is not
# mountd's to guess.
mkdir -p "$work/repart.two"
cp "$work/repart.signed/"*.conf "$work/repart.two/"
printf '[Partition]\nType=root\nFormat=erofs\nCopyFiles=%s:/\nMinimize=best\n' "$work/tree" \
	>"$work/repart.two/15-second-root.conf"
check "  ... and a signed one with a second root partition" \
	systemd-repart --definitions="$work/repart.two" --empty=create --size=auto --dry-run=no \
	--offline=yes --private-key="$work/trusted.key" --certificate="$work/trusted.crt" "$work/two.raw"
# One byte flipped in the first block of the data partition (the EROFS
# superblock: every mount reads it).
data_start() { python3 -c 'import struct,sys,uuid
f=open(sys.argv[1],"rb"); f.seek(512); h=f.read(92)
lba,n,size=struct.unpack("<QII",h[72:88]); f.seek(lba*512)
for e in (f.read(size) for _ in range(n)):
    if str(uuid.UUID(bytes_le=e[:16]))=="4f68bce3-e8cd-4db1-96e7-fbcaf984b709":
        print(struct.unpack("<Q",e[32:40])[0]*512); break' "$1"; }
flip() { python3 -c 'import os,sys
fd=os.open(sys.argv[1],os.O_RDWR); off=int(sys.argv[2])
b=os.pread(fd,1,off); os.pwrite(fd,bytes([b[0]^0xff]),off)' "$1" "$2"; }
cp "$work/signed.raw" "$work/corrupt.raw"
corrupt() { local s; s=$(data_start "$1") && [ "${s:-0}" -gt 0 ] && flip "$1" $((s + 1100)); }
check "a copy of the signed DDI with one byte of its data flipped" corrupt "$work/corrupt.raw"
check "mkfs.erofs makes a plain EROFS file" mkfs.erofs "$work/plain.erofs" "$work/tree"
# EROFS reads a file itself where the file's filesystem reads folios
# (ext4 here); a tmpfs file it cannot, and goes through a loop device.
disk=$(mktemp -d /var/tmp/mountd-verity.XXXXXX)
chmod 755 "$disk"
cp "$work/plain.erofs" "$disk/plain.erofs"
# A bare image, its hash tree beside it, the root hash signed by hand as
# systemd-repart does: a detached PKCS#7 of the hex string, no attributes.
veritysetup format "$work/plain.erofs" "$work/plain.hash" >"$work/vformat" 2>&1
roothash=$(awk '/^Root hash:/ { print $3 }' "$work/vformat")
check "veritysetup gives a root hash" test ${#roothash} = 64
printf %s "$roothash" >"$work/roothash"
sign() { openssl smime -sign -nocerts -noattr -binary -in "$work/roothash" -inkey "$work/$1.key" \
	-signer "$work/$1.crt" -outform der -out "$work/$1.p7s" && base64 -w0 "$work/$1.p7s" >"$work/$1.b64"; }
check "openssl signs the root hash with the trusted key" sign trusted
check "  ... and with the untrusted one" sign untrusted
chmod 644 "$work"/*.raw "$work"/*.erofs "$work"/*.hash

# --- mountd, and who may do what
cat >"$work/policy" <<EOF
allow user=$SIGNED_ID method=Create image=signed
allow user=$TRUSTED_ID method=Create image=yes
allow user=$SIGNED_ID method=Unmount
allow user=$TRUSTED_ID method=Unmount
allow user=$POLKIT_ID method=Unmount
EOF
# polkit: one group may mount signed images, and only below its own
# directory: the rule reads the request's details.
mkdir -p /etc/polkit-1/rules.d
cat >/etc/polkit-1/rules.d/50-mountd-verity-test.rules <<RULES
polkit.addRule(function(action, subject) {
	if (action.id == "io.mountd.mount-signed-image" && subject.isInGroup("verityusers") &&
	    action.lookup("method") == "Create" && action.lookup("source") == "image" &&
	    action.lookup("image_trust") == "signed" &&
	    action.lookup("target_namespace_owner") == "0" &&
	    action.lookup("target_path").indexOf("$work/mnt.$POLKIT_ID/") == 0)
		return polkit.Result.YES;
	/* systemd-mountfsd's own tier for the same user as image=signed. */
	if (action.id == "io.systemd.mount-file-system.mount-image" &&
	    subject.user == "$(getent passwd $SIGNED_ID | cut -d: -f1)")
		return polkit.Result.YES;
});
RULES
systemctl restart polkit.service
check "polkitd runs with the test's rule" wait_for 10 systemctl is-active polkit.service
export MOUNTD_POLICY=$work/policy
start_mountd
for u in $SIGNED_ID $TRUSTED_ID $POLKIT_ID $OTHER_ID; do install -d -o $u -g $u "$work/mnt.$u"; done

# What is left of images: verity devices, loop devices over our files, mounts.
left() {
	echo "dm: $(dmsetup ls 2>/dev/null | grep -c mountd-verity)"
	echo "loop: $(losetup -a | grep -c "$work")"
	echo "mounts: $(grep -c "$work/mnt" /proc/1/mountinfo)"
}
nothing_left() { [ "$(left)" = "$(printf 'dm: 0\nloop: 0\nmounts: 0')" ]; }
# create USER NAME IMAGE [EXTRA-IMAGE-JSON [--fd ...]]: Create as USER,
# placed on $work/mnt.USER/NAME, reply in $work/NAME.
create() {
	local u=$1 name=$2 img=$3 extra=${4:-} mp=$work/mnt.$1/$2
	shift 3
	[ $# -gt 0 ] && shift
	as "$u" mkdir -p "$mp"
	as "$u" $V --fd "$img:r" "$@" io.mountd.Mount.Create \
		'{"image":{"fd":0'"$extra"'},"placement":{"path":"'"$mp"'"}}' >"$work/$name" 2>&1
}
unmount() { as "$1" $V io.mountd.Mount.Unmount '{"path":"'"$work/mnt.$1/$2"'"}' >/dev/null 2>&1; }
refused() { # NAME STEP ERRNO: the reply is that MountFailed
	jtest "$work/$1" 'r.get("error")=="io.mountd.Mount.MountFailed" and p["step"]=="'"$2"'" and p["errnoName"]=="'"$3"'"'
}
on_verity() { # USER NAME: mounted read-only, erofs, from a verity device mountd
	# made: by the kernel's name for it (/dev/dm-N), whose dm name is mountd's
	local line dev
	line=$(grep " $work/mnt.$1/$2 " /proc/1/mountinfo) || return 1
	echo "$line"
	dev=$(echo "$line" | sed -nE 's@.* ro[, ].* - erofs /dev/(dm-[0-9]+) .*@\1@p')
	[ -n "$dev" ] && grep '^mountd-verity-' /sys/block/$dev/dm/name
}

# --- the signed DDI: both users, read-only on dm-verity
for u in $SIGNED_ID $TRUSTED_ID; do
	check "uid $u: the signed DDI mounts" create $u signed.$u "$work/signed.raw"
	check "  ... the reply says which key signed it" \
		jtest "$work/signed.$u" '"mountd-test-trusted" in p["verity"]["signedBy"]'
	check "  ... its root hash is the signature's" \
		jtest "$work/signed.$u" 'len(p["verity"]["rootHash"]) == 64 and p["fsType"] == "erofs"'
	check "  ... pid 1 sees it read-only, erofs on a mountd verity device" on_verity $u signed.$u
	check_output "  ... its content is readable" from-signed-image as $u cat "$work/mnt.$u/signed.$u/hello"
	check "  ... and every block of it (each checked by dm-verity)" as $u cat "$work"/mnt.$u/signed.$u/blob{1..40}
	check "  ... unmounted" unmount $u signed.$u
	check "  ... the verity and loop devices go with the mount" wait_for 10 nothing_left
done

# --- a signed image does not carry a name for mountd to open: erofs's
# device= is root's (ops-fs-params.c)
with_device() {
	as $SIGNED_ID mkdir -p "$work/mnt.$SIGNED_ID/dev" &&
		as $SIGNED_ID $V --fd "$work/signed.raw:r" io.mountd.Mount.Create \
			'{"image":{"fd":0},"parameters":[{"key":"device","type":"string","value":"/etc/shadow"}],"placement":{"path":"'"$work/mnt.$SIGNED_ID/dev"'"}}' \
			>"$work/dev.s" 2>&1
}
check_fails "uid $SIGNED_ID: the signed DDI with device=/etc/shadow is refused" with_device
check "  ... at fsconfig:device, EPERM" refused dev.s fsconfig:device EPERM
check "  ... nothing left behind" wait_for 10 nothing_left

# --- an unsigned DDI, and one signed by a key not trusted
for img in unsigned untrusted; do
	check_fails "uid $SIGNED_ID (image=signed): the $img DDI is refused" \
		create $SIGNED_ID $img.s "$work/$img.raw"
	check "  ... as not signed by a trusted key (EKEYREJECTED)" refused $img.s verity:signature EKEYREJECTED
	check "  ... nothing left behind: no verity or loop device, no mount" nothing_left
	check "uid $TRUSTED_ID (image=yes): the $img DDI mounts" create $TRUSTED_ID $img.t "$work/$img.raw"
	check "  ... on dm-verity, read-only, and the reply says nobody trusted signed it" \
		jtest "$work/$img.t" '"signedBy" not in p["verity"]'
	check "  ... pid 1 sees it on a verity device" on_verity $TRUSTED_ID $img.t
	unmount $TRUSTED_ID $img.t
	check "  ... gone after the unmount" wait_for 10 nothing_left
done

# --- a flipped byte: refused for both, by the kernel's check
for u in $SIGNED_ID $TRUSTED_ID; do
	check_fails "uid $u: the DDI with a flipped data byte is refused" \
		create $u corrupt.$u "$work/corrupt.raw"
	check "  ... as data that does not match the signed root hash" refused corrupt.$u verity:data EBADMSG
	check "  ... nothing left behind" wait_for 10 nothing_left
done

# --- two root partitions: refused for both, before any device exists
for u in $SIGNED_ID $TRUSTED_ID; do
	check_fails "uid $u: the DDI with two root partitions is refused" create $u two.$u "$work/two.raw"
	check "  ... as not unique (ENOTUNIQ at verity:partitions)" refused two.$u verity:partitions ENOTUNIQ
	check "  ... nothing left behind" nothing_left
done

# --- EROFS from a file: no loop device at all; not for image=signed
check "uid $TRUSTED_ID: a plain EROFS file on ext4 mounts" create $TRUSTED_ID erofs "$disk/plain.erofs"
check "  ... with no loop device (the file itself is the source)" \
	jtest "$work/erofs" '"loopDevice" not in p and p["fsType"] == "erofs"'
check "  ... no loop device exists over it" bash -c "! losetup -a | grep -q plain.erofs"
check_output "  ... pid 1 sees erofs read straight from the file" ' - erofs /proc/self/fd/' \
	grep " $work/mnt.$TRUSTED_ID/erofs " /proc/1/mountinfo
check_output "  ... its content is readable" from-signed-image as $TRUSTED_ID cat "$work/mnt.$TRUSTED_ID/erofs/hello"
check_fails "  ... mountctl info verity: on no dm-verity device" mountctl info "$work/mnt.$TRUSTED_ID/erofs" verity
check "  ... MountFailed at step verity, ENODATA" bash -c \
	"$V io.mountd.Mount.Info '{\"path\":\"$work/mnt.$TRUSTED_ID/erofs\",\"attribute\":\"verity\"}' >$work/info.none 2>&1; true"
check "  ... (the reply)" refused info.none verity ENODATA
unmount $TRUSTED_ID erofs
check "  ... unmounted, nothing left" wait_for 10 nothing_left
check "uid $TRUSTED_ID: the same file on tmpfs mounts" create $TRUSTED_ID erofs.tmp "$work/plain.erofs"
check "  ... through a loop device (tmpfs cannot back EROFS directly)" \
	jtest "$work/erofs.tmp" 'p["loopDevice"].startswith("/dev/loop") and p["fsType"] == "erofs"'
check_output "  ... its content is readable" from-signed-image as $TRUSTED_ID cat "$work/mnt.$TRUSTED_ID/erofs.tmp/hello"
unmount $TRUSTED_ID erofs.tmp
check "  ... unmounted, nothing left" wait_for 10 nothing_left
check_fails "uid $SIGNED_ID: the same unsigned EROFS file is refused" \
	create $SIGNED_ID erofs.s "$work/plain.erofs"
check "  ... as not signed" refused erofs.s verity:signature EKEYREJECTED
check "  ... nothing left behind" nothing_left

# --- a bare image with its hash tree, root hash and signature given
bare() { # USER NAME KEY|- [ROOTHASH]
	local sig=
	[ "$3" != - ] && sig=',"rootHashSignature":"'"$(cat "$work/$3.b64")"'"'
	create "$1" "$2" "$work/plain.erofs" ',"hashFd":1,"rootHash":"'"${4:-$roothash}"'"'"$sig" \
		--fd "$work/plain.hash:r"
}
check "uid $SIGNED_ID: the bare EROFS file with hashFd and a trusted signature mounts" \
	bare $SIGNED_ID bare.s trusted
check "  ... signed by the trusted key" jtest "$work/bare.s" '"mountd-test-trusted" in p["verity"]["signedBy"]'
check "  ... pid 1 sees it read-only on dm-verity" on_verity $SIGNED_ID bare.s
unmount $SIGNED_ID bare.s
check "  ... unmounted, nothing left" wait_for 10 nothing_left
check_fails "uid $SIGNED_ID: signed by a key not in /etc/verity.d: refused" \
	bare $SIGNED_ID bare.u untrusted
check "  ... EKEYREJECTED" refused bare.u verity:signature EKEYREJECTED
check "  ... nothing left" nothing_left
check_fails "uid $SIGNED_ID: claiming a signature that is not one: refused" \
	create $SIGNED_ID bare.x "$work/plain.erofs" \
	',"hashFd":1,"rootHash":"'"$roothash"'","rootHashSignature":"bm90IGEgc2lnbmF0dXJl"' \
	--fd "$work/plain.hash:r"
check "  ... as no signature at all (EBADMSG)" refused bare.x verity:signature EBADMSG
check "  ... nothing left" nothing_left
wrong=$(printf %s "$roothash" | tr 0-9a-f 1-9a-f0)
check_fails "uid $TRUSTED_ID: a root hash that is not the tree's: refused" \
	bare $TRUSTED_ID bare.w - "$wrong"
check "  ... by the kernel's check of the data (verity:data)" refused bare.w verity:data EBADMSG
check "  ... nothing left" wait_for 10 nothing_left

# --- a signed image changed under its mount through a writable fd: what
# is read is checked, whenever it is read
cp "$work/signed.raw" "$work/mine.raw"
chown $TRUSTED_ID "$work/mine.raw"
mine() {
	as $TRUSTED_ID mkdir -p "$work/mnt.$TRUSTED_ID/mine" &&
		as $TRUSTED_ID $V --fd "$work/mine.raw:rw" io.mountd.Mount.Create \
			'{"image":{"fd":0},"placement":{"path":"'"$work/mnt.$TRUSTED_ID/mine"'"}}' >"$work/mine"
}
check "uid $TRUSTED_ID: its own copy of the signed DDI mounts through a writable fd" mine
check "  ... signed all the same (the signature covers what is read)" \
	jtest "$work/mine" '"mountd-test-trusted" in p["verity"]["signedBy"]'
mine_hash=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["parameters"]["verity"]["rootHash"])' "$work/mine")
check_output "  ... mountctl info: the device-mapper table's root hash is the reply's" \
	"root_hash +$mine_hash" mountctl info "$work/mnt.$TRUSTED_ID/mine" verity
check_output "  ... and no block found that does not match it yet" "status +verified" \
	mountctl info "$work/mnt.$TRUSTED_ID/mine" verity
blob_off=$(python3 -c 'import sys
data=open(sys.argv[1],"rb").read(); blob=open(sys.argv[2],"rb").read()
print(data.find(blob[:4096]))' "$work/mine.raw" "$work/tree/blob40")
check "  ... the user overwrites a file's block in the image after the mount" \
	as $TRUSTED_ID bash -c "[ $blob_off -gt 0 ] && printf XXXXXXXX | dd of=$work/mine.raw bs=1 seek=$blob_off conv=notrunc status=none"
check_fails "  ... reading it through the mount fails (EIO), never the changed bytes" \
	as $TRUSTED_ID cat "$work/mnt.$TRUSTED_ID/mine/blob40"
check_output "  ... mountctl info now says the kernel found a corrupted block" "status +corrupted" \
	mountctl info "$work/mnt.$TRUSTED_ID/mine" verity
unmount $TRUSTED_ID mine
check "  ... unmounted, nothing left" wait_for 10 nothing_left

# --- polkit's rule: the group's member gets signed images, under its
# directory only; another user nothing
asgroup() { setpriv --reuid=$POLKIT_ID --regid=$POLKIT_ID --groups=$VERITY_GID "$@"; }
pk_create() { # NAME IMAGE [PATH]
	local mp=${3:-$work/mnt.$POLKIT_ID/$1}
	asgroup mkdir -p "$mp" && asgroup $V --fd "$2:r" io.mountd.Mount.Create \
		'{"image":{"fd":0},"placement":{"path":"'"$mp"'"}}' >"$work/$1" 2>&1
}
pk_mounted() { on_verity $POLKIT_ID pk.signed; }
check "polkit, group verityusers: the signed DDI mounts" pk_create pk.signed "$work/signed.raw"
check "  ... signed by the trusted key" jtest "$work/pk.signed" '"mountd-test-trusted" in p["verity"]["signedBy"]'
check "  ... pid 1 sees it on dm-verity" pk_mounted
as $POLKIT_ID $V io.mountd.Mount.Unmount '{"path":"'"$work/mnt.$POLKIT_ID/pk.signed"'"}' >/dev/null 2>&1
check "  ... unmounted, nothing left" wait_for 10 nothing_left
check_fails "  ... the unsigned DDI is refused: polkit granted signed images only" \
	pk_create pk.unsigned "$work/unsigned.raw"
check "  ... as not signed (EKEYREJECTED)" refused pk.unsigned verity:signature EKEYREJECTED
check "  ... nothing left" nothing_left
install -d -o $POLKIT_ID -g $POLKIT_ID "$work/elsewhere"
check_fails "  ... the signed DDI elsewhere than the rule's directory is refused" \
	pk_create pk.elsewhere "$work/signed.raw" "$work/elsewhere/x"
check "  ... by polkit (PermissionDenied names the action)" \
	jtest "$work/pk.elsewhere" 'r.get("error")=="io.mountd.Mount.PermissionDenied" and "io.mountd.mount-image" in p["reason"]'
check "  ... nothing mounted" nothing_left
pk_nogroup() {
	as $OTHER_ID $V --fd "$work/signed.raw:r" io.mountd.Mount.Create \
		'{"image":{"fd":0},"placement":{"path":"'"$work/mnt.$OTHER_ID/nogroup"'"}}' >"$work/pk.nogroup" 2>&1
}
as $OTHER_ID mkdir -p "$work/mnt.$OTHER_ID/nogroup"
check_fails "a user outside the group: the signed DDI is refused" pk_nogroup
check "  ... by polkit" jtest "$work/pk.nogroup" 'r.get("error")=="io.mountd.Mount.PermissionDenied"'
check "  ... nothing mounted" nothing_left

# --- systemd-mountfsd, the same images, the same user: the same verdicts.
# Its trusted tier (io.systemd.mount-file-system.mount-image, granted
# above) is what image=signed is to mountd.
verdict_mountd() { jtest "$work/$1" '"error" not in r' >/dev/null 2>&1 && echo mounted || echo refused; }
verdict_mountfsd() {
	as $SIGNED_ID $V --socket /run/systemd/io.systemd.MountFileSystem --fd "$1:r" \
		io.systemd.MountFileSystem.MountImage '{"imageFileDescriptor":0,"readOnly":true}' \
		>"$work/mountfsd.out" 2>&1
	grep -q '"mountFileDescriptor"' "$work/mountfsd.out" && echo mounted || echo refused
}
systemctl start systemd-mountfsd.socket
for pair in signed:signed.$SIGNED_ID unsigned:unsigned.s untrusted:untrusted.s corrupt:corrupt.$SIGNED_ID; do
	img=${pair%%:*}
	m=$(verdict_mountd "${pair#*:}")
	f=$(verdict_mountfsd "$work/$img.raw")
	check "systemd-mountfsd on the $img DDI: $f, as mountd ($m)" test "$m" = "$f"
	check "  ... nothing of its left once its mount fd is closed" wait_for 30 nothing_left
done

# --- the devices a user's mounts hold count against that user
# (daemon/sys-device-ledger.c): here 3, a DDI's verity mount being 2 (its
# dm device and the one loop device over its data and hash partitions).
# Counted from the kernel's state: across a restart of mountd, and freed by
# the unmount.
stop_mountd
MOUNTD_DEVICES_PER_USER=3 start_mountd
loops() { losetup -a | grep -c "$work"; }
check "uid $TRUSTED_ID: the signed DDI mounts (2 of its 3 devices)" create $TRUSTED_ID q.1 "$work/signed.raw"
check_output "  ... over one loop device, its data and hash partitions both" '^1$' \
	bash -c "losetup -j $work/signed.raw | wc -l"
check "  ... and the EROFS file on tmpfs, through a loop device (3 of 3)" \
	create $TRUSTED_ID q.2 "$work/plain.erofs"
before=$(loops)
check_fails "  ... one more loop device is refused" create $TRUSTED_ID q.3 "$work/plain.erofs"
check "  ... at step devices, EDQUOT" refused q.3 devices EDQUOT
check_output "  ... saying how many it holds" "hold 3 loop and device-mapper devices" cat "$work/q.3"
loops_as_before() { [ "$(loops)" = "$before" ]; }
check "  ... no loop device made for it is left" wait_for 10 loops_as_before
check "  ... nothing mounted for it" bash -c "! grep -q ' $work/mnt.$TRUSTED_ID/q.3 ' /proc/1/mountinfo"
check "  ... a file-backed EROFS mount, which holds no device, is not" \
	create $TRUSTED_ID q.4 "$disk/plain.erofs"
unmount $TRUSTED_ID q.4
check "  ... another user is not held to this one's count" create $SIGNED_ID q.5 "$work/signed.raw"
unmount $SIGNED_ID q.5
check "  ... nor is root" create 0 q.6 "$work/plain.erofs"
unmount 0 q.6
stop_mountd
MOUNTD_DEVICES_PER_USER=3 start_mountd
check_fails "  ... a restarted mountd counts what its predecessor made" \
	create $TRUSTED_ID q.7 "$work/plain.erofs"
check "  ... EDQUOT" refused q.7 devices EDQUOT
unmount $TRUSTED_ID q.1
check "  ... the unmount of the verity mount frees its 2" create $TRUSTED_ID q.8 "$work/plain.erofs"
unmount $TRUSTED_ID q.2
unmount $TRUSTED_ID q.8
check "  ... nothing left" wait_for 10 nothing_left
stop_mountd
start_mountd

# --- root is still served, any image; mountctl says what was checked
check "root: the unsigned DDI mounts" create 0 root.u "$work/unsigned.raw"
unmount 0 root.u
check "  ... nothing left" wait_for 10 nothing_left
mkdir -p "$work/mnt.0/ctl"
check_output "mountctl mount of the signed DDI says what it was checked against" \
	"^$work/mnt.0/ctl: dm-verity, root hash [0-9a-f]{64}, signed by /CN=mountd-test-trusted" \
	mountctl mount "$work/signed.raw" "$work/mnt.0/ctl"
check "  ... mountctl umount" mountctl umount "$work/mnt.0/ctl"
check_output "mountctl mount of the unsigned DDI says it is not signed" \
	"^$work/mnt.0/ctl: dm-verity, root hash [0-9a-f]{64}, not signed by a key mountd trusts" \
	mountctl mount "$work/unsigned.raw" "$work/mnt.0/ctl"
mountctl umount "$work/mnt.0/ctl"
check "  ... nothing left" wait_for 10 nothing_left
# The same reply on D-Bus (io.mountd1): verity (ss) after steps.
check_output "io.mountd1 Create of the signed DDI answers verity as varlink does" \
	"^erofs [0-9a-f]{64} /CN=mountd-test-trusted" "$BUILD/tests/guest/bus-fd-test" image "$work/signed.raw" "$work/mnt.0/ctl"
mountctl umount "$work/mnt.0/ctl"
check_output "  ... and (\"\", \"\") for a mount not on dm-verity" "^erofs  $" \
	"$BUILD/tests/guest/bus-fd-test" image "$disk/plain.erofs" "$work/mnt.0/ctl"
mountctl umount "$work/mnt.0/ctl"
check "  ... nothing left" wait_for 10 nothing_left
rm -f /etc/polkit-1/rules.d/50-mountd-verity-test.rules

stop_mountd
rm -f /etc/verity.d/mountd-test.crt
rm -rf "$disk"
done_testing
