# Shared helpers for the build scripts.  Sourced, not run.

: "${MOUNTD_CACHE:=/var/cache/mountd}"
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KSRC_TARBALL=${KSRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Hash of the given files' contents (and names), for cache keys.
hash_files() {
	local f
	for f in "$@"; do
		printf '%s\n' "${f#"$TOP"/}"
		cat "$f"
	done | sha256sum | cut -c1-16
}

# Version string of the installed linux-source package, part of every kernel key.
ksrc_version() {
	dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || stat -c %Y "$KSRC_TARBALL"
}

kernel_key() {
	local inputs=("$TOP/kernel/series" "$TOP/kernel/mountd.config" "$TOP/scripts/kernel-build")
	local p
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		inputs+=("$TOP/kernel/patches/$p")
	done <"$TOP/kernel/series"
	{ ksrc_version; hash_files "${inputs[@]}"; } | sha256sum | cut -c1-16
}

kernel_dir() { printf '%s/kernel/%s\n' "$MOUNTD_CACHE" "$(kernel_key)"; }

# run_logged WHAT LOG PROGRESS_CMD CMD...: run CMD with its output in LOG,
# printing PROGRESS_CMD's answer every 30 s; on failure show the log's end.
run_logged() {
	local what=$1 log=$2 progress=$3 start pid rc ticks=0
	shift 3
	start=$(date +%s)
	"$@" >"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		ticks=$((ticks + 1))
		[ $((ticks % 30)) = 0 ] && kill -0 "$pid" 2>/dev/null &&
			say "$what: $(($(date +%s) - start))s, $(bash -c "$progress" 2>/dev/null || true)"
	done
	rc=0
	wait "$pid" || rc=$?
	if [ $rc != 0 ]; then
		grep -E 'error|Error' "$log" | head -40 >&2 || true
		tail -20 "$log" >&2
		die "$what failed (log: $log)"
	fi
	say "$what: done in $(($(date +%s) - start))s"
}
