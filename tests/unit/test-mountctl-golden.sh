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
# Info: one attribute, as text and JSON, with N/M instance headers.
case_ info-statfs $D/info-statfs.json __format info -- statfs -1 -1
case_ info-statfs-json $D/info-statfs.json --json __format info -- statfs -1 -1
case_ info-caps-nm $D/info-caps.json __format info -- server_address 2 1
case_ info-caps-json $D/info-caps.json --json __format info -- capabilities -1 -1
# A capabilities bitmap (hex bytes) is spelt out as named flags.
case_ info-capabilities $D/info-capabilities.json __format info -- capabilities -1 -1
case_ info-supports $D/info-supports.json __format info -- supports -1 -1
case_ info-capabilities-json $D/info-capabilities.json --json __format info -- capabilities -1 -1
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
case_ unreachable '' --socket /nonexistent/socket list
case_ help-umount '' umount --help
# getopt's errors name mountctl and the command, not argv[0] ("mount:").
case_ usage-bad-option '' mount --frob none /mnt
case_ usage-missing-value '' list --pid

echo "1..$n"
[ "$failed" = 0 ]
