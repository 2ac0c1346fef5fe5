#!/bin/bash
# The fsinfo() uapi has one layout for i386 and x86_64 callers: every
# struct fsinfo_* defined in <linux/fsinfo.h> must have the same size with
# -m32 and -m64 (equal sizes of structs of fixed-width fields mean equal
# offsets too), so that a 32-bit program on a 64-bit kernel needs no compat
# code.  The structs are read from the header itself, so a new one is
# checked without touching this test.
#
# No 32-bit libc is needed: the sizes are compiled with -ffreestanding -S
# against the uapi headers only (-nostdinc) and read back from the .long
# each one becomes.
#
# Header directory: $MOUNTD_UAPI (check-host hands it the one userspace
# compiles against), else build/uapi (scripts/uapi-headers).  To check
# another header, lay it over a copy:
#   cp -a build/uapi /tmp/u
#   cp NEW/fsinfo.h /tmp/u/linux/ && MOUNTD_UAPI=/tmp/u tests/unit/test-fsinfo-abi.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
uapi=${MOUNTD_UAPI:-$top/build/uapi}
hdr=$uapi/linux/fsinfo.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bail() { echo "not ok 1 - $*"; echo "1..1"; exit 1; }
[ -f "$hdr" ] || bail "no $hdr"

# Comments out (nothing else expanded), then every "struct fsinfo_X {".
structs=$(gcc -fpreprocessed -E -P -x c "$hdr" 2>/dev/null | tr '\n' ' ' |
	grep -oE 'struct[[:space:]]+fsinfo_[A-Za-z0-9_]+[[:space:]]*\{' |
	sed -E 's/^struct[[:space:]]+([A-Za-z0-9_]+).*/\1/' | sort -u)
[ -n "$structs" ] || bail "no struct fsinfo_* definition found in $hdr"

{
	echo '#include <linux/fsinfo.h>'
	for s in $structs; do
		echo "const unsigned int size_$s = sizeof(struct $s);"
	done
} >"$tmp/sizes.c"

# The rest of the kernel's uapi (<linux/types.h>, <asm/...>) from the build
# machine's linux-libc-dev; x86's asm headers serve both widths.
sys="-isystem /usr/include/$(gcc -print-multiarch) -isystem /usr/include"

# sizes BITS: "NAME SIZE" per struct, from the assembly gcc emits.
sizes() {
	gcc -m"$1" -ffreestanding -nostdinc -isystem "$uapi" $sys -O0 -S -o "$tmp/sizes$1.s" \
		"$tmp/sizes.c" 2>"$tmp/cc$1.err" || return 1
	awk '/^size_fsinfo_[A-Za-z0-9_]+:$/ { name = substr($1, 6, length($1) - 6); next }
	     name != "" && $1 == ".long" { print name, $2; name = "" }' "$tmp/sizes$1.s"
}
sizes 32 >"$tmp/32" || bail "gcc -m32 failed: $(head -5 "$tmp/cc32.err")"
sizes 64 >"$tmp/64" || bail "gcc -m64 failed: $(head -5 "$tmp/cc64.err")"

n=0 bad=0
for s in $structs; do
	n=$((n + 1))
	a=$(awk -v s="$s" '$1 == s { print $2 }' "$tmp/32")
	b=$(awk -v s="$s" '$1 == s { print $2 }' "$tmp/64")
	if [ -n "$a" ] && [ "$a" = "$b" ]; then
		echo "ok $n - struct $s: $a bytes on i386 and x86_64"
	else
		bad=$((bad + 1))
		echo "not ok $n - struct $s: ${a:-?} bytes on i386, ${b:-?} on x86_64"
	fi
done
echo "1..$n"
echo "# $hdr: $n structs, $bad differ"
[ $bad = 0 ]
