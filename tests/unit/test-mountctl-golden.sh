#!/bin/bash
# Golden-output tests of mountctl's formatting, option splitting and apply
# parser, without a daemon: canned replies go through the hidden
# "mountctl __format" path and "apply --dry-run".  Each case's stdout,
# stderr and exit status are compared with tests/unit/mountctl/NAME.expected.
# Run with --update to rewrite the expected files (then review the diff).
set -uo pipefail
cd "$(dirname "$0")/../.."
M=${MOUNTCTL:-build/mountctl}
D=tests/unit/mountctl
update=${1:-}
# ASCII tree drawing and untranslated messages: the output must not depend
# on the caller's locale.
export LC_ALL=C
unset MOUNTD_SOCKET

n=0
failed=0
case_() {
	local name=$1 input=$2
	shift 2
	local out rc
	n=$((n + 1))
	out=$("$M" "$@" <"${input:-/dev/null}" 2>&1; echo "exit $?")
	if [ "$update" = --update ]; then
		printf '%s\n' "$out" >"$D/$name.expected"
	fi
	if diff -u "$D/$name.expected" - <<<"$out" >/tmp/golden.$$ 2>&1; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		sed 's/^/# /' /tmp/golden.$$
		failed=$((failed + 1))
	fi
	rm -f /tmp/golden.$$
}

# List: tree, table and both JSON forms.
case_ list-tree $D/list.json __format list
case_ list-table $D/list.json __format table
case_ list-tree-json $D/list.json --json __format list
case_ list-table-json $D/list.json --json __format table
# List as findmnt shows it: children in the order of their mountinfo IDs
# (/mnt/d reuses an old ID), a subtree's source as SOURCE[ROOT], a
# read-only superblock makes OPTIONS ro, the kernel's order of the VFS
# options, findmnt's PROPAGATION words.
case_ list-findmnt-tree $D/list-findmnt.json __format list
case_ list-findmnt-columns $D/list-findmnt.json __format list \
	-o TARGET,SOURCE,FSROOT,VFS-OPTIONS,FS-OPTIONS,PROPAGATION,MAJ:MIN
case_ list-findmnt-columns-add $D/list-findmnt.json __format table -o +UNIQ-ID -o +uniq-parent
case_ list-findmnt-columns-json $D/list-findmnt.json --json __format list -o target,source,options
# Filters: -t (a list; "no" in front excludes), -S (a source or MAJ:MIN), a
# source or mount point argument (flat, like findmnt), -R for its subtree.
case_ list-findmnt-flat $D/list-findmnt.json __format flat -o +ID
case_ list-findmnt-types $D/list-findmnt.json __format list -t tmpfs
case_ list-findmnt-types-no $D/list-findmnt.json __format list -t notmpfs,proc
case_ list-findmnt-source $D/list-findmnt.json __format list -S /dev/vda
case_ list-findmnt-majmin $D/list-findmnt.json __format list -S 0:32
case_ list-findmnt-target $D/list-findmnt.json __format list /mnt
case_ list-findmnt-spec-source $D/list-findmnt.json __format list proc
case_ list-findmnt-submounts $D/list-findmnt.json __format list -R /mnt/c
case_ list-findmnt-submounts-json $D/list-findmnt.json --json __format list -R -o target /mnt
case_ list-findmnt-nothing $D/list-findmnt.json __format list -t xfs
# Info: one attribute, as text and JSON, with N/M instance headers.
case_ info-statfs $D/info-statfs.json __format info -- statfs -1 -1
case_ info-statfs-json $D/info-statfs.json --json __format info -- statfs -1 -1
case_ info-caps-nm $D/info-caps.json __format info -- server_address 2 1
case_ info-caps-json $D/info-caps.json --json __format info -- capabilities -1 -1
# A capabilities bitmap (hex bytes) is spelt out as named flags.
case_ info-capabilities $D/info-capabilities.json __format info -- capabilities -1 -1
case_ info-supports $D/info-supports.json __format info -- supports -1 -1
case_ info-capabilities-json $D/info-capabilities.json --json __format info -- capabilities -1 -1
# Values for people: the magic in hex with the fs name, flags as words, the
# fsid as stat -f prints it, a UUID as blkid does, sizes as findmnt does
# (or in bytes), dates; --json keeps the numbers.
case_ info-ids $D/info-ids.json __format info -- ids -1 -1
case_ info-ids-json $D/info-ids.json --json __format info -- ids -1 -1
case_ info-uuid $D/info-uuid.json __format info -- volume_uuid -1 -1
case_ info-limits $D/info-limits.json __format info -- limits -1 -1
case_ info-limits-bytes $D/info-limits.json __format info --bytes -- limits -1 -1
case_ info-statfs-root $D/info-statfs-root.json __format info -- statfs -1 -1
case_ info-statfs-root-bytes $D/info-statfs-root.json __format info -b -- statfs -1 -1
case_ info-timestamp $D/info-timestamp.json __format info -- timestamp_info -1 -1
case_ info-supports-ioc $D/info-supports-ioc.json __format info -- supports -1 -1
case_ sizes $D/sizes.json __format size
# Watch events.
case_ watch $D/watch.json __format watch
case_ watch-json $D/watch.json --json __format watch
# Error lines people read.
case_ error-mountfailed $D/error-mountfailed.json __format error
case_ error-invalid $D/error-invalid.json __format error
case_ error-internal $D/error-internal.json __format error
case_ error-notsupported $D/error-notsupported.json __format error
case_ error-denied $D/error-denied.json __format error
case_ error-denied-mountd $D/error-denied-mountd.json __format error
case_ error-limit $D/error-limit.json __format error
case_ error-other $D/error-other.json __format error
# -v: the steps in order with their time, each with its kernel messages,
# then the failed step; a reply without steps (an older mountd) still
# shows its messages.
case_ trace-create $D/trace-create.json __format trace
case_ trace-mountfailed $D/trace-mountfailed.json __format trace
case_ trace-old-daemon $D/trace-old-daemon.json __format trace
# -o splitting, per command.
case_ options-mount '' __format options mount 'ro,nosuid,nodev,size=1M,mode=0755,noatime,rw,defaults,x-foo=1,shared,context="a,b"'
case_ options-remount '' __format options remount 'rw,suid,exec,size=2M,strictatime'
case_ options-set '' __format options set 'ro,nodev,nosymfollow,rslave'
case_ options-reconfigure '' __format options reconfigure 'ro,size=3M,noatime'
case_ options-bind-bad '' __format options bind 'ro,size=1M'
case_ options-mount-bind '' __format options mount 'bind'
case_ options-quote '' __format options mount 'context="a,b'
# apply: the calls a good file turns into, and errors pointing at lines.
case_ apply-good $D/apply-good.conf apply --dry-run
case_ apply-good-pid '' apply --dry-run --pid 42 $D/apply-good.conf
case_ apply-bad $D/apply-bad.conf apply --dry-run
case_ apply-badopt '' apply --dry-run $D/apply-badopt.conf
case_ apply-missing '' apply /nonexistent/file
# Usage errors and an unreachable daemon have their own exit codes.
case_ usage-mount-args '' mount -t tmpfs none
case_ usage-mount-type '' mount none /mnt
case_ usage-unknown '' frobnicate
case_ usage-ns-twice '' --pid 1 --ns /proc/1/ns/mnt list
case_ usage-container-pidfd '' --pidfd 0 --container web list
case_ usage-container-name '' --container ../web list
case_ unreachable '' --socket /nonexistent/socket list
case_ help-umount '' umount --help
# getopt's errors name mountctl and the command, not argv[0] ("mount:").
case_ usage-bad-option '' mount --frob none /mnt
case_ usage-missing-value '' list --pid
case_ help-info '' info --help
case_ help-list '' list --help
case_ usage-list-column '' list -o TARGET,BOGUS

echo "1..$n"
[ "$failed" = 0 ]
