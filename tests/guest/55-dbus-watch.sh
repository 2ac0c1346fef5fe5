#!/bin/bash
# Watch on io.mountd1: a watch object per call whose signals (Ready, Event,
# Gone) go to the watching client alone; it ends with the namespace, with
# Stop() by its owner, when the client leaves the bus, and when mountd
# stops.  tests/guest/bus-watch-test.c is the client (busctl and gdbus
# cannot receive unicast signals).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/units-lib.sh"

fresh_units
W="$BUILD/tests/guest/bus-watch-test"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
tree() { busctl --system --list tree io.mountd1; }
export -f tree
has_line() { grep -qx -- "$2" "$1"; }

# ---- a watch of another user's namespace: events, then Gone with it
ns=$(in_userns_mntns)
pids+=("$ns")
"$W" --pid "$ns" >"$work/w1" 2>&1 &
w1=$!
pids+=("$w1")
check "Watch answers with an object path, then Ready" wait_for 20 has_line "$work/w1" ready
check_output "  the path is a watch object" '^path /io/mountd1/watch/[0-9]+$' head -1 "$work/w1"
path=$(sed -n 's/^path //p' "$work/w1")
check_output "  the object is in the bus tree" "^$path\$" tree
busctl --system --xml-interface introspect io.mountd1 "$path" >"$work/intro.xml"
check "  its introspection declares Stop and the three signals" python3 - "$work/intro.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
iface = [i for i in root.findall("interface") if i.get("name") == "io.mountd1.Watch"][0]
assert [m.get("name") for m in iface.findall("method")] == ["Stop"]
sig = {s.get("name"): "".join(a.get("type") for a in s.findall("arg")) for s in iface.findall("signal")}
assert sig == {"Ready": "", "Event": "s(ttuusssssa{sv}stts)", "Gone": "s"}, sig
PY
check "a mount in the namespace" \
	$BUSCALL Create 'sa(ssv)a{sv}' tmpfs 0 1 placement a{sv} 3 path s /tmp/watched create s directory \
	namespace a{sv} 1 pid u "$ns"
check "  is an added event" wait_for 20 has_line "$work/w1" "event added /tmp/watched tmpfs"
check "a remount" $BUSCALL SetAttributes 'sa{sv}' /tmp/watched 2 attributes a{sv} 1 readOnly b true \
	namespace a{sv} 1 pid u "$ns"
check "  is a changed event" wait_for 20 has_line "$work/w1" "event changed /tmp/watched tmpfs"
check "an unmount" $BUSCALL Unmount 'sa{sv}' /tmp/watched 1 namespace a{sv} 1 pid u "$ns"
check "  is a removed event" wait_for 20 has_line "$work/w1" "event removed /tmp/watched tmpfs"
check_output "another client may not stop the watch" "Access denied|not your watch" \
	bash -c "busctl --system call io.mountd1 $path io.mountd1.Watch Stop 2>&1; true"
check "  it still runs" bash -c "tree | grep -qx $path"
kill "$ns"
check "the namespace's end is Gone(namespace)" wait_for 20 has_line "$work/w1" "gone namespace"
check "  the client saw it and exited 0" wait "$w1"
check "  the object is gone" wait_for 10 bash -c "! tree | grep -qx $path"

# ---- Stop() by the owner
"$W" --stop-at /tmp/watched-own >"$work/w2" 2>&1 &
w2=$!
pids+=("$w2")
check "a watch of the caller's own namespace is Ready" wait_for 20 has_line "$work/w2" ready
path=$(sed -n 's/^path //p' "$work/w2")
mkdir -p /tmp/watched-own
mount -t tmpfs none /tmp/watched-own
check "  sees a mount made without mountd" wait_for 20 has_line "$work/w2" "event added /tmp/watched-own tmpfs"
check "  its owner stops it" wait_for 20 has_line "$work/w2" stopped
check "  the client exited 0" wait "$w2"
check "  the object is gone" wait_for 10 bash -c "! tree | grep -qx $path"
umount /tmp/watched-own

# ---- the client leaves the bus
"$W" >"$work/w3" 2>&1 &
w3=$!
pids+=("$w3")
check "a third watch is Ready" wait_for 20 has_line "$work/w3" ready
path=$(sed -n 's/^path //p' "$work/w3")
kill -9 "$w3"
check "  its client killed, the watch ends (sd_bus_track)" wait_for 10 bash -c "! tree | grep -qx $path"

# ---- limits and policy
"$W" --many 17 >"$work/many" 2>&1
check_output "at most 16 watches per client, then LimitsExceeded" \
	'^refused org.freedesktop.DBus.Error.LimitsExceeded$' tail -1 "$work/many"
check_output "  16 were granted" '^16$' grep -c '^ok ' "$work/many"
check_output "user nobody may not watch PID 1's namespace" 'AccessDenied' \
	bash -c "setpriv --reuid=65534 --regid=65534 --clear-groups $W --pid 1 2>&1; true"
setpriv --reuid=65534 --regid=65534 --clear-groups "$W" --stop-at /tmp/watched-nobody >"$work/w5" 2>&1 &
w5=$!
pids+=("$w5")
check "  but may watch their own" wait_for 20 has_line "$work/w5" ready
mkdir -p /tmp/watched-nobody
mount -t tmpfs none /tmp/watched-nobody
check "  and gets its events" wait_for 20 has_line "$work/w5" "event added /tmp/watched-nobody tmpfs"
check "  and may stop it" wait_for 20 has_line "$work/w5" stopped
umount /tmp/watched-nobody

# A user's watches over both front ends: 16 at most (ops-watch-events.c); root is not
# counted.
setpriv --reuid=65534 --regid=65534 --clear-groups "$W" --many 16 --hold >"$work/h1" 2>&1 &
holder=$!
pids+=($holder)
check "one client of a user holds 16 watches" wait_for 30 bash -c "[ \"\$(grep -c '^ok ' $work/h1)\" = 16 ]"
check_output "  a second client of that user is refused: 16 per user" \
	'^refused org.freedesktop.DBus.Error.LimitsExceeded$' \
	bash -c "setpriv --reuid=65534 --regid=65534 --clear-groups $W --many 1 2>&1 | tail -1"
check_output "  and so is its Watch over varlink: the same count" 'io.mountd.Mount.LimitExceeded' \
	bash -c "setpriv --reuid=65534 --regid=65534 --clear-groups timeout 20 varlinkctl call --more $SOCK io.mountd.Mount.Watch '{}' 2>&1; true"
check_output "  while root's client still gets one" '^ok ' bash -c "$W --many 1 2>&1 | head -1"
kill $holder 2>/dev/null

# ---- mountd stops: every watch ends with Gone(shutdown)
"$W" >"$work/w4" 2>&1 &
w4=$!
pids+=("$w4")
check "a watch is Ready" wait_for 20 has_line "$work/w4" ready
check "systemctl stop mountd" systemctl stop mountd.service
check "  the watch got Gone(shutdown)" wait_for 10 has_line "$work/w4" "gone shutdown"
check "  the client exited 0" wait "$w4"

done_testing
