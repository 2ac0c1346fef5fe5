#!/bin/bash
# Bus activation: a call to io.mountd1 starts the stopped mountd.service;
# stopping releases the name; bus calls count as activity for idle exit.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/units-lib.sh"

has_owner() {
	busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
		NameHasOwner s io.mountd1
}

fresh_units
check_fails "mountd.service is stopped" systemctl is-active mountd.service
check_output "nobody owns io.mountd1" "^b false$" has_owner
check "a bus call is answered" $BUSCALL List 'a{sv}' 0
check_output "it started mountd.service (bus activation)" "^active$" systemctl is-active mountd.service
check_output "whose main process owns the name" "^u $(main_pid)$" \
	busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
	GetConnectionUnixProcessID s io.mountd1
check "systemctl stop" systemctl stop mountd.service
check_output "released the name" "^b false$" has_owner
check "the next call activates it again" $BUSCALL Info 'sa{sv}' / 0
check_output "  active" "^active$" systemctl is-active mountd.service

# Idle exit counts bus calls: with MOUNTD_IDLE_SEC=3, a call every second
# for 6 s keeps the same instance; then it leaves and gives up the name.
dropin "Environment=MOUNTD_IDLE_SEC=3"
systemctl stop mountd.service
$BUSCALL List 'a{sv}' 0 >/dev/null
pid=$(main_pid)
for _ in 1 2 3 4 5 6; do
	$BUSCALL Info 'sa{sv}' / 0 >/dev/null
	sleep 1
done
check_output "bus calls kept it alive past the idle time" "^$pid$" main_pid
check "then, quiet, it exits" wait_for 15 bash -c '! systemctl is-active -q mountd.service'
check_output "  cleanly" "^success$" systemctl show -P Result mountd.service
check_output "  without the name" "^b false$" has_owner
check "and is activated again by the bus" $BUSCALL List 'a{sv}' 0

fresh_units
rm -rf "$work"
done_testing
