# Shared by the tests/guest/3?-mountd-* tests.  Sourced after lib.sh.
#   start_mountd           start build/mountd by hand, wait for its socket;
#                          with MOUNTD_CONTAINERISED=1 the image's container
#                          instead (mountd-container, crun): $mountd is then
#                          its pid all the same (the host's pid namespace);
#                          with MOUNTD_UNIT=1 the image's mountd.service, as
#                          systemd runs it (a drop-in gives it the test's
#                          MOUNTD_* settings)
#   stop_mountd            SIGTERM it; returns its exit status
#   rerun_containerised T  tests/guest/T again with MOUNTD_CONTAINERISED=1,
#                          its cases as this test's, named "T: ..."
#   rerun_unit T           the same with MOUNTD_UNIT=1
#   example_policy         mountd.policy(5)'s EXAMPLE, from the man page
#   member CMD...          CMD as $USER_ID in the EXAMPLE's group "containers"
#   new_mntns              start a process in a new mount namespace, print pid
#   jtest FILE EXPR        python EXPR on the last JSON reply in FILE
#                          (r = reply, p = its parameters, rs = all replies)
#   call NAME METHOD JSON [varlink.py options]   reply into $work/NAME
#   as_user CMD...         CMD as uid $USER_ID (1000, given a passwd entry:
#                          dbus-daemon turns away uids without one)
#   vcall METHOD JSON      varlinkctl as that user
#   vdenied METHOD JSON    the same, expected to fail: its error is the output
#   user_varlink ARGS...   tests/guest/varlink.py as that user (read from
#                          stdin: the checkout may be closed to the user)
#   user_container         start that user's rootless container (a user and
#                          mount namespace it made); its pid in $container
#   records [FIELD=VALUE...]  the audit records of $mountd (daemon/request-audit.c),
#                          one JSON object per line
#   fields NAME...         each record's NAMEs (stdin), space-separated

TOP=${MOUNTD_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${MOUNTD_BUILD:-$TOP/build}
SOCK=/run/mountd/io.mountd.Mount
V="python3 $TOP/tests/guest/varlink.py"
work=$(mktemp -d /tmp/mountd-test.XXXXXX)
export work

jtest() {
	python3 -c 'import json,sys
lines=[l for l in open(sys.argv[1]) if l.strip()]
r=json.loads(lines[-1]); rs=[json.loads(l) for l in lines]
p=r.get("parameters",{})
ok=eval(sys.argv[2])
sys.exit(0 if ok else 1)' "$@" || { cat "$1"; return 1; }
}
export -f jtest

call() {
	local name=$1 method=$2 params=$3
	shift 3
	$V "$@" "io.mountd.Mount.$method" "$params" >"$work/$name" 2>&1
}

start_mountd() {
	# The image's mountd.socket owns $SOCK: stop it (and an instance it
	# started) so that requests reach the mountd under test.
	systemctl stop mountd.socket mountd.service mountd-container.socket \
		mountd-container.service 2>/dev/null || true
	rm -f $SOCK
	if [ -n "${MOUNTD_CONTAINERISED:-}" ]; then
		start_container_mountd
		return
	fi
	if [ -n "${MOUNTD_UNIT:-}" ]; then
		start_unit_mountd
		return
	fi
	"$BUILD/mountd" 2>"$work/mountd.log" &
	mountd=$!
	export mountd # for records() in subshells
	for _ in $(seq 100); do [ -S $SOCK ] && return 0; sleep 0.1; done
	return 1
}

# The container's process, once crun has started it and mountd listens; a
# mountd that is not in a mount namespace of its own is not the container's.
start_container_mountd() {
	crun delete -f mountd >/dev/null 2>&1
	/usr/libexec/mountd-container mountd 2>"$work/mountd.log" &
	mountd_runner=$!
	mountd=
	for _ in $(seq 300); do
		[ -z "$mountd" ] && mountd=$(crun state mountd 2>/dev/null |
			python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"] or "")' 2>/dev/null)
		[ -n "$mountd" ] && [ -S $SOCK ] && break
		kill -0 $mountd_runner 2>/dev/null || break
		sleep 0.1
	done
	export mountd
	[ -n "$mountd" ] && [ -S $SOCK ] &&
		[ "$(readlink /proc/$mountd/ns/mnt)" != "$(readlink /proc/1/ns/mnt)" ] ||
		{ cat "$work/mountd.log"; return 1; }
}

UNIT_DROPIN=/run/systemd/system/mountd.service.d/50-mountd-test.conf
# mountd.service with its sandboxing, started by its socket as on a host.
# The policy is copied where the unit can read it (the test's may change
# after), and mountd does not exit when idle ($mountd stays its pid).
start_unit_mountd() {
	local v
	mkdir -p "${UNIT_DROPIN%/*}"
	{
		echo "[Service]"
		echo "Environment=MOUNTD_IDLE_SEC=0"
		if [ -n "${MOUNTD_POLICY:-}" ]; then
			cp "$MOUNTD_POLICY" /run/mountd-test-policy 2>/dev/null ||
				: >/run/mountd-test-policy
			echo "Environment=MOUNTD_POLICY=/run/mountd-test-policy"
		fi
		for v in $(compgen -e | grep -E '^MOUNTD_(RATE_LIMIT_|WORKER_IDLE_SEC|DEVICES_PER_USER|JOURNAL_BUDGET_)'); do
			echo "Environment=$v=${!v}"
		done
	} >"$UNIT_DROPIN"
	systemctl daemon-reload
	systemctl start mountd.socket mountd.service || return 1
	mountd=$(systemctl show -P MainPID mountd.service)
	export mountd
	[ "$mountd" -gt 0 ] && [ -S $SOCK ]
}

stop_mountd() {
	local rc=0
	if [ -n "${MOUNTD_UNIT:-}" ]; then
		systemctl stop mountd.service mountd.socket
		rc=$(systemctl show -P ExecMainStatus mountd.service)
		rm -f "$UNIT_DROPIN" /run/mountd-test-policy
		systemctl daemon-reload
		return "${rc:-1}"
	fi
	if [ -n "${MOUNTD_CONTAINERISED:-}" ]; then
		crun kill mountd TERM
		# crun run ends with mountd, with its exit status.
		wait "$mountd_runner" || rc=$?
		return $rc
	fi
	kill -TERM "$mountd"
	wait "$mountd" || rc=$?
	return $rc
}

rerun_containerised() {
	local cursor
	# Anything in mountd.service's journal from here on would mean that
	# systemd started the host's mountd (bus activation, the socket) and
	# it served some of the cases: it journals every request it answers.
	systemctl stop mountd.socket mountd.service mountd-container.socket 2>/dev/null
	journalctl --sync
	cursor=$(journalctl -q -n 0 --show-cursor | sed -n 's/^-- cursor: //p')
	rerun_with MOUNTD_CONTAINERISED "$1"
	journalctl --sync
	check_fails "$1: the host's mountd.service did not run meanwhile" \
		bash -c "[ -n '$cursor' ] || { echo no journal cursor; exit 0; }
			journalctl -q -u mountd.service --after-cursor='$cursor' | grep ."
}

rerun_unit() {
	rerun_with MOUNTD_UNIT "$1"
}

# tests/guest/T with VAR=1, its cases (and a failure's comment lines after
# it) as this test's.
rerun_with() {
	local var=$1 t=$2 line log= rc=0
	env "$var=1" "$TOP/tests/guest/$t" >"$work/$t.tap" 2>&1 </dev/null || rc=$?
	echo "# $t under $var=1: exit $rc"
	# Each case again, under this test's numbering; a failure's comment
	# lines follow it in the sub-test's output.
	while IFS= read -r line; do
		case $line in
		"ok "* | "not ok "*)
			[ -n "$log" ] && _t_result 0 "$t: $name" "$log"
			log=
			name=${line#*ok [0-9]* - }
			if [ "${line%% *}" = ok ]; then
				_t_result 1 "$t: $name" /nonexistent
			else
				log=$(mktemp)
			fi
			;;
		"#"*) [ -n "$log" ] && echo "${line#\# }" >>"$log" ;;
		esac
	done <"$work/$t.tap"
	[ -n "$log" ] && _t_result 0 "$t: $name" "$log"
	# The sub-test's plan and status: a test that died half-way has no plan.
	check "$t: ran to its end, exit 0" bash -c "[ $rc = 0 ] && grep -q '^1\.\.[0-9]' '$work/$t.tap'"
}

new_mntns() {
	unshare -m --propagation private sleep infinity >/dev/null 2>&1 &
	local pid=$!
	for _ in $(seq 50); do
		[ "$(readlink /proc/$pid/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ] && break
		sleep 0.1
	done
	echo $pid
}

USER_ID=1000
getent passwd $USER_ID >/dev/null ||
	echo "mountdtest:x:$USER_ID:$USER_ID::/nonexistent:/usr/sbin/nologin" >>/etc/passwd
as_user() { setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups "$@"; }
vcall() { as_user varlinkctl call --json=short $SOCK "io.mountd.Mount.$1" "$2"; }
vdenied() { ! vcall "$@" 2>&1; }
user_varlink() { as_user python3 - "$@" <"$TOP/tests/guest/varlink.py"; }
export USER_ID SOCK TOP
export -f as_user vcall vdenied user_varlink
user_container() {
	# setpriv itself in the background, not a shell function: $! must be
	# the process that ends up in the namespaces.
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups \
		unshare -Ur --mount --propagation private sleep infinity &
	container=$!
	for _ in $(seq 50); do
		[ "$(readlink /proc/$container/ns/user)" != "$(readlink /proc/self/ns/user)" ] && break
		sleep 0.1
	done
	export container
}

example_policy() {
	awk '/^# EXAMPLE/ { e = 1 } e && /^```/ { n++; next } e && n == 1' \
		"$TOP/docs/man/mountd.policy.5.scd"
}
CONTAINERS_GID=4200
grep -q '^containers:' /etc/group ||
	echo "containers:x:$CONTAINERS_GID:mountdtest" >>/etc/group
member() { setpriv --reuid=$USER_ID --regid=$USER_ID --groups=$CONTAINERS_GID "$@"; }
export CONTAINERS_GID
export -f member

REQUEST_ID=1890aabd15ef4fa49f1bac38230bbd63
REFUSED_ID=dbc160ff88ed48948dac703a7e9a2caa
records() {
	journalctl --sync
	journalctl -q -o json _PID=$mountd MESSAGE_ID=$REQUEST_ID MESSAGE_ID=$REFUSED_ID "$@"
}
fields() {
	python3 -c 'import json,sys
for l in sys.stdin:
    r = json.loads(l)
    print(" ".join(r.get(f, "") for f in sys.argv[1:]))' "$@"
}
export REQUEST_ID REFUSED_ID
export -f records fields
