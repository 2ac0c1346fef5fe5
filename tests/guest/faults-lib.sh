# Shared by the tests/guest/7?-mountd-faults-* tests: mountd as the image
# installs it (units-lib.sh), and what a fault may leave behind.  Sourced
# after lib.sh and units-lib.sh.
#   mountd_fds             the fds of mountd.service's main process and of
#                          each worker, as their targets with numbers
#                          dropped, sorted: comparable before/after
#   fds_as FILE            wait (10 s) until mountd_fds is what FILE holds
#   mountinfo_of PID       /proc/PID/mountinfo
#   same_mounts PID FILE   PID's mountinfo is FILE's (shows the difference)
#   stopped_in_mountd      a process of mountd.service stopped (SIGSTOP),
#                          as MOUNTD_TEST_STOP_AT does (daemon/test-hook.h);
#                          prints its pid
#   kill_mountd            SIGKILL to the whole service, as systemd's own
#                          kill does; then let the socket start the next
#   faults_namespace       start a process in a mount namespace of its own:
#                          $ns, with /mnt/warm in it; $work/src to bind
#   bind_unmount           a Bind into $ns and its Unmount (touches no step
#                          MOUNTD_TEST_STOP_AT knows, leaves a worker for $ns)
#   snapshot               mountinfo of pid 1 and $ns, mountd_fds: into $work
#   as_before NAME         checks: a second client is served, and mountinfo
#                          and fds are what snapshot saw
#   keep_workers / no_keep_workers  a drop-in of its own that keeps idle
#                          workers (MOUNTD_WORKER_IDLE_SEC=600), so that the
#                          fds compared do not change with the clock

fds_of() {
	local f
	for f in /proc/"$1"/fd/*; do readlink "$f"; done | sed 's/[0-9]\+/N/g' | sort
}

mountd_fds() {
	local m c
	m=$(main_pid)
	[ "$m" != 0 ] || return 1
	echo "mountd:"
	fds_of "$m"
	for c in $(cat /proc/"$m"/task/*/children); do
		echo "worker:"
		fds_of "$c"
	done
}

fds_as() {
	wait_for 10 bash -c "diff <(mountd_fds) '$1'" ||
		{ diff <(mountd_fds) "$1"; return 1; }
}

mountinfo_of() {
	cat /proc/"$1"/mountinfo
}

same_mounts() {
	diff "$2" /proc/"$1"/mountinfo
}

stopped_in_mountd() {
	local cg p
	cg=$(systemctl show -P ControlGroup mountd.service)
	[ -n "$cg" ] || return 1
	for p in $(cat /sys/fs/cgroup"$cg"/cgroup.procs); do
		grep -q '^State:.*stopped' /proc/"$p"/status 2>/dev/null && echo "$p" && return 0
	done
	return 1
}

kill_mountd() {
	systemctl kill --kill-whom=all -s KILL mountd.service &&
		wait_for 10 bash -c '! systemctl is-active -q mountd.service || [ "$(systemctl show -P NRestarts mountd.service)" != 0 ]'
}

faults_namespace() {
	unshare -m --propagation private sleep infinity &
	ns=$!
	wait_for 5 test "$(readlink /proc/$ns/ns/mnt)" != "$(readlink /proc/self/ns/mnt)"
	nsenter -t $ns -m mkdir -p /mnt/warm
	mkdir -p "$work/src"
	echo src >"$work/src/file"
}

bind_unmount() {
	$V io.mountd.Mount.Bind "{\"sourcePath\":\"$work/src\",\"placement\":{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/warm\"}}" &&
		nsenter -t $ns -m grep -q src /mnt/warm/file &&
		$V io.mountd.Mount.Unmount "{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/warm\"}"
}

snapshot() {
	mountinfo_of 1 >"$work/host.before"
	mountinfo_of $ns >"$work/ns.before"
	mountd_fds >"$work/fds.before"
}

as_before() {
	check "$1: a second client is served" bind_unmount
	check "$1: pid 1's mounts as before" same_mounts 1 "$work/host.before"
	check "$1: the namespace's mounts as before" same_mounts $ns "$work/ns.before"
	check "$1: mountd's and its workers' fds as before" fds_as "$work/fds.before"
}

KEEP_DROPIN=/run/systemd/system/mountd.service.d/60-faults-keep-workers.conf

keep_workers() {
	mkdir -p "$(dirname "$KEEP_DROPIN")"
	printf '[Service]\nEnvironment=MOUNTD_WORKER_IDLE_SEC=600\n' >"$KEEP_DROPIN"
	systemctl daemon-reload
}

no_keep_workers() {
	rm -f "$KEEP_DROPIN"
	systemctl daemon-reload
}

export -f fds_of mountd_fds main_pid wait_for
