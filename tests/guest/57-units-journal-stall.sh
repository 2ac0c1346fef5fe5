#!/bin/bash
# A journald that reads nothing (stalled on its disk; here SIGSTOPped) does
# not stop mountd.service answering.  Its records wait for journald, up to
# a backlog of 4096 (daemon/request-audit.c); past that they are counted, and the
# count goes to the journal as a record of its own.  Before, the record
# after the journal socket's queue (net.unix.max_dgram_qlen, 512 here)
# blocked mountd's loop in sendmsg() until journald read again: every
# client waited, and after WatchdogSec systemd killed mountd (SIGABRT).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/units-lib.sh"

REQUEST_ID=1890aabd15ef4fa49f1bac38230bbd63
LOST_ID=0835a96606da49059adcd56813f4d3de
FLOOD="python3 $TOP/tests/guest/rate-flood.py --connections 1"

# journald stopped for minutes in a slow guest is killed by its own
# watchdog (WatchdogSec=3min) and comes back as another process, which this
# test would no longer stop: the stall is the test's, not a fault of
# journald's, so its watchdog is off meanwhile.
JOURNALD_DROPIN=/run/systemd/system/systemd-journald.service.d/50-mountd-test.conf
mkdir -p "${JOURNALD_DROPIN%/*}"
printf '[Service]\nWatchdogSec=0\n' >"$JOURNALD_DROPIN"
systemctl daemon-reload
systemctl restart systemd-journald.service
journald=$(systemctl show -P MainPID systemd-journald.service)
cursor() {
	local c=
	for _ in $(seq 50); do
		c=$(journalctl -q -n 1 -o export 2>/dev/null | sed -n 's/^__CURSOR=//p')
		[ -n "$c" ] && break
		sleep 0.2
	done
	echo "$c"
}
# mountd's records since cursor $1 (more journalctl arguments after it)
records_since() {
	local c=$1
	shift
	journalctl -q --after-cursor="$c" -o json _PID="$(main_pid)" "$@"
}
count_since() {
	journalctl --sync
	records_since "$@" | wc -l
}
lost_since() {
	journalctl --sync
	records_since "$1" MESSAGE_ID=$LOST_ID | python3 -c 'import json,sys
print(sum(int(json.loads(l)["MOUNTD_RECORDS_LOST"]) for l in sys.stdin))'
}
# wait_for 120 have COUNT CURSOR [MATCH...]: until that many records came
have() {
	local n=$1
	shift
	test "$(count_since "$@")" = "$n"
}
resume() { kill -CONT "$journald"; }
trap resume EXIT

fresh_units
# WatchdogSec well below the stall: a loop that waited would be killed.
dropin "WatchdogSec=3s" "Environment=MOUNTD_IDLE_SEC=0" "TimeoutAbortSec=2s"
check "mountd.service starts" systemctl start mountd.service
pid=$(main_pid)
n0=$(systemctl show -P NRestarts mountd.service)
# 1: more calls than journald's socket queues, fewer than mountd keeps.
N=1500
c=$(cursor)
kill -STOP "$journald"
timeout 300 $FLOOD --calls $N Info '{"path":"/"}' >"$work/flood1" 2>&1
# A path with a newline: its record must keep it whole, the newline escaped
# as request-escape.c writes every caller's text (one line in any reader).
$V io.mountd.Mount.Info '{"path":"/run/no\nsuch"}' >/dev/null 2>&1
sleep 4 # longer than WatchdogSec
check_output "while journald reads nothing, $N calls are all answered" \
	"^ok=$N limit=0 other=0 " cat "$work/flood1"
check "... by the same mountd, pinging its watchdog meanwhile" \
	test "$(main_pid) $(systemctl show -P NRestarts mountd.service)" = "$pid $n0"
resume
check "journald reads again: all $N records arrive, and the one after" \
	wait_for 120 have $((N + 1)) "$c" MESSAGE_ID=$REQUEST_ID
check_output "nothing was counted lost" '^0$' lost_since "$c"
check_output "a path with a newline is recorded whole, its newline escaped" '^whole$' \
	bash -c "journalctl --sync; journalctl -q --after-cursor='$c' -o json _PID=$pid |
		python3 -c 'import json,sys
p = [json.loads(l).get(\"MOUNTD_PATH\") for l in sys.stdin]
p = [x for x in p if x not in (None, \"/\")]
print(\"whole\" if p == [\"/run/no\\\\nsuch\"] else p)'"

# 1b: log lines, not records.  Each malformed message makes mountd write a
# line to its stderr, journald's stream.  systemd gives that stream a large
# send buffer: with a blocking stderr, mountd stopped after ~21800 lines
# here.  30000 fill it.
kill -STOP "$journald"
check "30000 malformed messages while journald reads nothing: each connection is closed" \
	timeout 300 python3 "$TOP/tests/guest/malformed-flood.py" 30000
check_output "... and a call after them is answered by the same mountd" '"mounts"' \
	timeout 30 $V io.mountd.Mount.List '{}'
check "... with no restart" test "$(main_pid) $(systemctl show -P NRestarts mountd.service)" = "$pid $n0"
resume
# journald has the 30000 lines to take in first; a cursor read meanwhile can
# come from a journal file it is still writing.
check "journald reads again" wait_for 120 journalctl --sync

# 2: more calls than journald's queue and mountd's backlog together.
M=6000
c=$(cursor)
kill -STOP "$journald"
timeout 600 $FLOOD --calls $M Info '{"path":"/"}' >"$work/flood2" 2>&1
check_output "$M calls with journald stopped: all answered" "^ok=$M limit=0 other=0 " \
	cat "$work/flood2"
check "... by the same mountd" test "$(main_pid)" = "$pid"
resume
check "journald reads again: a record counts the lost ones" \
	wait_for 180 have 1 "$c" MESSAGE_ID=$LOST_ID
got=$(count_since "$c" MESSAGE_ID=$REQUEST_ID)
lost=$(lost_since "$c")
echo "# $got records arrived, $lost counted lost"
check "every call is a record or counted: $got + $lost = $M" test $((got + lost)) = $M
check "at least the backlog arrived" test "$got" -ge 4096
check "mountd answers at once again" $V io.mountd.Mount.List '{}'

check "journald is the one process all along (no watchdog restart)" \
	test "$(systemctl show -P MainPID systemd-journald.service)" = "$journald"

fresh_units
rm -f "$DROPIN" "$JOURNALD_DROPIN"
systemctl daemon-reload
systemctl restart systemd-journald.service
rm -rf "$work"
done_testing
