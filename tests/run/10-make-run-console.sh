#!/bin/bash
# `make run`'s shell as a person meets it: boot scripts/run with its serial
# console on a pipe, wait for the root shell's prompt, type, read the screen.
# A mount's kernel messages (loop, EXT4-fs: level info) must not land in
# the shell, an error still does, and the journal has them all.  Runs on
# the host (scripts/check-guest), after the guest tests.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/guest/lib.sh"

screen=$(mktemp)
keys=$(mktemp -u)
mkfifo "$keys"
timeout=${MOUNTD_GUEST_TIMEOUT:-900}
timeout -k 10 "$timeout" "$TOP/scripts/run" <"$keys" >"$screen" 2>&1 &
RUN_PID=$!
trap 'kill $RUN_PID 2>/dev/null; rm -f "$screen" "$keys"' EXIT
exec 3>"$keys"

# What the screen shows, without carriage returns and terminal escapes.
screen_text() { sed -e 's/\r//g' -e 's/\x1b\[[?0-9;]*[A-Za-z]//g' "$screen"; }
wait_for() {
	local i
	for ((i = 0; i < timeout; i++)); do
		screen_text | grep -qE "$1" && return 0
		kill -0 "$RUN_PID" 2>/dev/null || return 1
		sleep 1
	done
	return 1
}
type_line() { printf '%s\n' "$1" >&3; }

check "the root shell comes up" wait_for 'root@mountd-guest'
# Output is told from the echo of what was typed by a quote in the middle.
type_line 'm=mountd-console-test'
type_line 'echo "<6>$m info" >/dev/kmsg; echo "<3>$m error" >/dev/kmsg'
type_line 'truncate -s 16M /tmp/t.img && mkfs.ext4 -q /tmp/t.img && mountctl mount --mkdir /tmp/t.img /mnt/t && mountctl umount /mnt/t && echo MOUNT-""DONE'
type_line 'sleep 1; journalctl -k --no-pager | grep -E "$m|EXT4-fs \(loop" | sed "s/^/J""J: /"; echo JOURNAL-""DONE'
check "an image mounts and unmounts in it" wait_for '^MOUNT-DONE'
check "journalctl -k answers" wait_for '^JOURNAL-DONE'
type_line 'poweroff -f'
wait "$RUN_PID" 2>/dev/null

# The journal's lines are those marked "JJ: ", the console's the others.
shown=$(screen_text)
journal() { grep -E "^JJ: .*($1)" <<<"$shown"; }
console() { grep -vE '^JJ: ' <<<"$shown" | grep -E "$1"; }
check "the journal has the info message" journal 'mountd-console-test.*info'
check "  and the mount's EXT4-fs message" journal 'EXT4-fs \(loop[0-9]+\): mounted'
check_fails "the console shows neither" console 'mountd-console-test info|EXT4-fs \(loop[0-9]'
check "  but an error still reaches it" console 'mountd-console-test error'
done_testing
