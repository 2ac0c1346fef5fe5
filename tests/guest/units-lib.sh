# Shared by the tests/guest/5?-units-* and 5?-dbus-* tests: mountd as the
# image installs it (mountd.socket, mountd.service, io.mountd1).  Sourced
# after lib.sh.
#   fresh_units            no test drop-in, mountd stopped, the socket fresh
#   dropin LINE...         a [Service] drop-in for mountd.service
#   main_pid               MainPID of mountd.service (0: not running)
#   in_userns_mntns        a process of "nobody" in its own user and mount
#                          namespace; prints its pid

TOP=${MOUNTD_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${MOUNTD_BUILD:-$TOP/build}
SOCK=/run/mountd/io.mountd.Mount
V="python3 $TOP/tests/guest/varlink.py"
DROPIN=/run/systemd/system/mountd.service.d/50-test.conf
work=$(mktemp -d /tmp/units-test.XXXXXX)
BUSCALL="busctl --system call io.mountd1 /io/mountd1 io.mountd1.Manager"

# Tests start after boot; boot may still be finishing.
timeout 120 systemctl is-system-running --wait >/dev/null 2>&1

fresh_units() {
	# scripts/guest-run boots into kernel-command-line.target, which does
	# not pull in sockets.target: start the sockets a real boot would.
	systemctl start dbus.socket
	rm -f "$DROPIN"
	systemctl daemon-reload
	systemctl stop mountd.service mountd.socket 2>/dev/null
	systemctl reset-failed mountd.service mountd.socket 2>/dev/null
	# Earlier tests may have bound their own mountd at the same path.
	rm -f $SOCK
	systemctl start mountd.socket
}

dropin() {
	mkdir -p "$(dirname "$DROPIN")"
	printf '[Service]\n' >"$DROPIN"
	printf '%s\n' "$@" >>"$DROPIN"
	systemctl daemon-reload
}

main_pid() {
	systemctl show -P MainPID mountd.service
}


in_userns_mntns() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		unshare -U -m -r --propagation private sleep infinity >/dev/null 2>&1 &
	local pid=$!
	wait_for 5 test "$(readlink /proc/$pid/ns/mnt)" != "$(readlink /proc/self/ns/mnt)"
	echo $pid
}

# Mounts at exactly PATH in the mount namespace of PID.
count_mounts() {
	awk -v p="$2" '$5 == p { n++ } END { print n + 0 }' /proc/"$1"/mountinfo
}
export -f count_mounts
