# Shared by the mountctl tests (40-mountctl, 42-mountctl-readable).  Sourced
# after lib.sh, it re-runs the test in a private mount namespace with a mountd
# of its own (and a tmpfs on /run for its socket, one on /mnt to mount on), so
# that the test leaves nothing behind.  Sets M (mountctl), MOUNTD, work (a
# scratch directory), mountd (its pid) and pids (more processes to kill at
# the end); puts mountctl on PATH.
if [ -z "${MOUNTCTL_TEST_INNER:-}" ]; then
	MOUNTCTL_TEST_INNER=1 exec unshare -m --propagation private "$0" "$@"
fi

# The installed programs when there are any (the guest), else the build's.
M=$(command -v mountctl || echo "$BUILD/mountctl")
[ -x /usr/libexec/mountd ] && MOUNTD=/usr/libexec/mountd || MOUNTD=$BUILD/mountd
[ -x "$BUILD/mountctl" ] && [ "${MOUNTCTL_USE_BUILD:-}" ] && M=$BUILD/mountctl
export PATH="$(dirname "$M"):$PATH"

work=$(mktemp -d /tmp/mountctl-test.XXXXXX)
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /mnt
mkdir -p /run/mountd
MOUNTD_IDLE_SEC=0 "$MOUNTD" 2>"$work/mountd.log" &
mountd=$!
for _ in $(seq 100); do [ -S /run/mountd/io.mountd.Mount ] && break; sleep 0.1; done
check "mountd is listening" test -S /run/mountd/io.mountd.Mount

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	kill "$mountd" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
