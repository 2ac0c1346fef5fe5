#!/bin/bash
# mountd's warnings about what a peer did (daemon/request-peerlog.c), by what
# reaches the journal.  One connect() and a malformed message are enough
# to make mountd write a line, and mountd.service puts journald's rate
# limit for it out of reach (its records must all stay): unbounded, one
# user could fill the journal with those lines and rotate everyone's
# records out.  Here a user's 3000 malformed messages leave a handful of
# lines, and one line that counts the rest; every message is either a
# line or counted; another user's line and root's lines are all written;
# mountd answers as before, without a restart.  Without the bound the
# user's lines number 3000 and the count check fails.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/units-lib.sh"

N=3000
ROOT_N=200
FLOODER=1000
OTHER=65534

cursor() { journalctl -q -n 1 -o export | sed -n 's/^__CURSOR=//p'; }
# mountd.service's stderr lines since cursor $1 that match $2
lines_since() {
	journalctl --sync
	journalctl -q --after-cursor="$1" -o cat _PID="$(main_pid)" _TRANSPORT=stdout |
		grep -c -- "$2"
}
# The sum of the "left out N warnings" lines since cursor $1
left_out_since() {
	journalctl --sync
	journalctl -q --after-cursor="$1" -o cat _PID="$(main_pid)" _TRANSPORT=stdout |
		sed -n 's/.*left out \([0-9]*\) warnings about peers.*/\1/p' |
		awk '{ n += $1 } END { print n + 0 }'
}

# malformed-flood.py as uid $1 (from stdin: the checkout may be closed to
# the user); $2 messages
garbage_as() {
	timeout 300 setpriv --reuid="$1" --regid="$1" --clear-groups \
		python3 - "$2" <"$TOP/tests/guest/malformed-flood.py"
}

fresh_units
check "mountd.service answers" $V io.mountd.Mount.List '{}'
pid=$(main_pid)
n0=$(systemctl show -P NRestarts mountd.service)
c=$(cursor)

check "uid $FLOODER sends $N malformed messages, each on its own connection" \
	garbage_as $FLOODER $N
check "uid $OTHER sends one right after" garbage_as $OTHER 1
# The count of what was left out comes at the end of a report period.
check "a line counts what was left out" \
	wait_for 10 test "$(left_out_since "$c")" -gt 0
sleep 1.5
written=$(lines_since "$c" "(uid $FLOODER) sent a malformed message")
all=$(lines_since "$c" "sent a malformed message")
left=$(left_out_since "$c")
echo "# uid $FLOODER: $written lines written, $left counted as left out; $all such lines in all"
check "a handful of lines about malformed messages, not $N ($all)" test "$all" -le 100
check "... at least the burst of 10" test "$written" -ge 10
check "every message is a line or counted: $written + $left = $N" \
	test $((written + left)) = $N
check_output "the count names the uid" "most about uid $FLOODER" \
	journalctl -q --after-cursor="$c" -o cat _PID="$pid" _TRANSPORT=stdout
check_output "uid $OTHER's line is written all the same" '^1$' \
	lines_since "$c" "(uid $OTHER) sent a malformed message"

c=$(cursor)
check "root sends $ROOT_N" garbage_as 0 $ROOT_N
check_output "root's lines are all written" "^$ROOT_N\$" \
	lines_since "$c" "(uid 0) sent a malformed message"

check_output "mountd answers as before" '"mounts"' timeout 30 $V io.mountd.Mount.List '{}'
check "... the same mountd, no restart" \
	test "$(main_pid) $(systemctl show -P NRestarts mountd.service)" = "$pid $n0"

fresh_units
rm -rf "$work"
done_testing
