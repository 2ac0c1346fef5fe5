#!/bin/bash
# mountd.service and journald's rate limit: journald drops a service's
# records past RateLimitBurst=, and mountd's records are its audit trail.
# With journald's limit made tiny here (20 records a minute), root's N
# calls through the socket-activated mountd.service still leave N records:
# the unit sets journald's limit for it out of reach (mountd bounds each
# user's calls itself: tests/guest/76-mountd-rate-limit.sh).  The same
# calls under a drop-in that gives mountd.service journald's limit back
# leave fewer: the check can fail.  (LogRateLimitIntervalSec=0, tried
# first, left 55 of 300: for a unit it means journald's default.)
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/units-lib.sh"

N=300 # above the tiny burst, however journald scales it with free space
JCONF=/run/systemd/journald.conf.d/50-mountd-test.conf
REQUEST_ID=1890aabd15ef4fa49f1bac38230bbd63

restart_journald() {
	systemctl restart systemd-journald &&
		wait_for 10 journalctl --sync
}
# N root Info calls over one connection; then the records mountd.service's
# main process left since cursor $1.
calls_and_records() {
	local cursor=$1 pid
	python3 "$TOP/tests/guest/rate-flood.py" --connections 1 --calls $N Info '{"path":"/"}' ||
		return 1
	pid=$(main_pid)
	journalctl --sync
	journalctl -q --after-cursor="$cursor" -o cat _PID="$pid" MESSAGE_ID=$REQUEST_ID | wc -l
}
cursor() { journalctl -q -n 1 -o export | sed -n 's/^__CURSOR=//p'; }

mkdir -p "$(dirname $JCONF)"
printf '[Journal]\nRateLimitIntervalSec=60s\nRateLimitBurst=20\n' >$JCONF
check "journald restarted with a burst of 20 records a minute" restart_journald

fresh_units
check_output "the unit as installed: journald's burst for mountd.service is out of reach" \
	'^10000000$' systemctl show -P LogRateLimitBurst mountd.service
c=$(cursor)
calls_and_records "$c" >"$work/installed"
echo "# as installed: $(tr '\n' ' ' <"$work/installed")"
check_output "$N calls through mountd.service: all answered" "^ok=$N limit=0 other=0 " \
	head -n 1 "$work/installed"
check "... and $N records in the journal, none dropped" test "$(tail -n 1 "$work/installed")" = $N

# The control: journald's limit for mountd.service again.
fresh_units
dropin LogRateLimitIntervalSec=60s LogRateLimitBurst=20
# Its count of mountd.service's records starts again.
restart_journald
c=$(cursor)
calls_and_records "$c" >"$work/control"
echo "# with journald's limit: $(tr '\n' ' ' <"$work/control")"
check "with journald's limit (the control): fewer than $N records" \
	test "$(tail -n 1 "$work/control")" -lt $N

rm -f $JCONF
check "journald restored" restart_journald
fresh_units
rm -f "$DROPIN"
systemctl daemon-reload
rm -rf "$work"
done_testing
