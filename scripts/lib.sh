# Shared helpers for the build scripts.  Sourced, not run.

: "${MOUNTD_CACHE:=/var/cache/mountd}"
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KSRC_TARBALL_GIVEN=${KSRC_TARBALL:+yes}
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

# Version of the linux-source tarball, part of every kernel key.  Its inputs
# must exist: a key made without them would silently name another kernel than
# the one built once they are there (a make parsed before scripts/deps ran).
# A KSRC_TARBALL given by hand, outside dpkg, is keyed by its size and mtime.
KSRC_PACKAGE=${KSRC_PACKAGE:-linux-source-6.12}
ksrc_version() {
	local v
	v=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$KSRC_PACKAGE" 2>/dev/null || true)
	if [ "${v%% *}" = installed ] && [ -f "$KSRC_TARBALL" ]; then
		echo "${v#* }"
	elif [ -n "$KSRC_TARBALL_GIVEN" ] && [ -f "$KSRC_TARBALL" ]; then
		stat -c 'file %s %Y' "$KSRC_TARBALL"
	else
		echo "error: $KSRC_PACKAGE is not installed ($KSRC_TARBALL: ${v:-no package}); scripts/deps installs it" >&2
		return 1
	fi
}

# The key of the kernel the current inputs build; fails when they are missing.
kernel_key() {
	local inputs=("$TOP/kernel/series" "$TOP/kernel/mountd.config" "$TOP/scripts/kernel-build")
	local p v h
	v=$(ksrc_version) || return 1
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		inputs+=("$TOP/kernel/patches/$p")
	done <"$TOP/kernel/series"
	h=$(hash_files "${inputs[@]}") || return 1
	printf '%s\n%s\n' "$v" "$h" | sha256sum | cut -c1-16
}

kernel_dir() {
	local key
	key=$(kernel_key) || return 1
	printf '%s/kernel/%s\n' "$MOUNTD_CACHE" "$key"
}

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
