#!/bin/bash
# The watchdog: mountd pings systemd from its event loop, so a healthy
# daemon survives several WatchdogSec periods; a hung one (SIGSTOP) misses
# them and systemd kills it and starts a new instance (Restart=on-failure).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/units-lib.sh"

fresh_units
# Short periods for the test; no idle exit in the middle of it.
dropin "WatchdogSec=2s" "Environment=MOUNTD_IDLE_SEC=0" "TimeoutAbortSec=2s"
check "mountd starts with WatchdogSec=2s" systemctl start mountd.service
pid=$(main_pid)
sleep 6
check_output "it is still the same, active instance after 3 periods" "^$pid active$" \
	bash -c 'echo "$(systemctl show -P MainPID mountd.service) $(systemctl is-active mountd.service)"'
n0=$(systemctl show -P NRestarts mountd.service)

kill -STOP "$pid"
check "a hung mountd is replaced by a new instance" \
	wait_for 30 bash -c "p=\$(systemctl show -P MainPID mountd.service); [ \"\$p\" != 0 ] && [ \"\$p\" != $pid ] && systemctl is-active -q mountd.service"
check_output "systemd counted one restart" "^$((n0 + 1))$" systemctl show -P NRestarts mountd.service
check_output "because of the watchdog" "[Ww]atchdog timeout" journalctl -b -u mountd.service --no-pager -n 50
check_fails "the old process is gone" kill -0 "$pid"
check "the new instance answers" $V io.mountd.Mount.List '{}'

fresh_units
rm -rf "$work"
done_testing
