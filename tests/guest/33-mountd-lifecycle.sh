#!/bin/bash
# mountd as a service: READY/WATCHDOG/STOPPING via sd_notify under systemd,
# SIGTERM drains, socket activation with idle exit.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

unit=mountd-lifecycle-test
rm -f $SOCK
# Type=notify: "active" is only reached when mountd sends READY=1; with
# WatchdogSec=2 it must keep pinging to survive the 5 s we wait.
check "mountd under systemd with Type=notify becomes active" \
	systemd-run --unit=$unit -p Type=notify -p WatchdogSec=2 -p NotifyAccess=main "$BUILD/mountd"
sleep 5
check_output "still active after 5 s with WatchdogSec=2 (watchdog pings)" "^active$" systemctl is-active $unit
check "it serves calls" $V org.varlink.service.GetInfo
check "systemctl stop ends it cleanly" systemctl stop $unit
check_output "the service result is success" "^Result=success$" systemctl show -p Result $unit
systemctl reset-failed $unit 2>/dev/null

# Socket activation: systemd-socket-activate passes the listening socket and
# execs mountd; with MOUNTD_IDLE_SEC=5 it leaves after 5 quiet seconds
# (long enough for the calls below under TCG, where python starts slowly).
rm -f $SOCK
mkdir -p /run/mountd
systemd-socket-activate -l $SOCK -E MOUNTD_IDLE_SEC=5 "$BUILD/mountd" >"$work/sa.log" 2>&1 &
sa=$!
for _ in $(seq 50); do [ -S $SOCK ] && break; sleep 0.1; done
check "socket-activated mountd answers" $V org.varlink.service.GetInfo
check "and mounts" bash -c "mkdir -p $work/m && $V --attach $work/m io.mountd.Mount.Create '{\"fsType\":\"tmpfs\"}' && umount $work/m"
exited=0
for _ in $(seq 150); do kill -0 $sa 2>/dev/null || { exited=1; break; }; sleep 0.1; done
check "it exits after the idle period" test $exited = 1
rc=0
wait $sa || rc=$?
check "with status 0" test $rc = 0

# A busy connection keeps it alive: a Watch stream is not idle.
systemd-socket-activate -l $SOCK -E MOUNTD_IDLE_SEC=3 "$BUILD/mountd" >"$work/sa2.log" 2>&1 &
sa=$!
for _ in $(seq 50); do [ -S $SOCK ] && break; sleep 0.1; done
$V --more io.mountd.Mount.Watch '{}' >"$work/w" 2>&1 &
watcher=$!
for _ in $(seq 100); do grep -q ready "$work/w" 2>/dev/null && break; sleep 0.1; done
sleep 4
check "an open Watch stream keeps the socket-activated daemon alive" kill -0 $sa
kill $watcher
exited=0
for _ in $(seq 60); do kill -0 $sa 2>/dev/null || { exited=1; break; }; sleep 0.1; done
check "once the client is gone it exits" test $exited = 1
rm -rf "$work"
done_testing
