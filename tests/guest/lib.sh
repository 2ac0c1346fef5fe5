# Shell helpers for guest tests: TAP output, one line per case.  Sourced.
#
#   check NAME CMD...        passes when CMD exits 0
#   check_fails NAME CMD...  passes when CMD exits non-zero
#   check_output NAME PATTERN CMD...  passes when CMD exits 0 and its
#                            output matches the extended regex PATTERN
#   wait_for SECS CMD...     poll CMD every 0.1 s until it succeeds, SECS at
#                            most (a test waits for the state it asserts)
#   done_testing             prints the plan; exits 1 if any case failed
# A failing case prints the command's output as TAP comments.

_t_n=0
_t_failed=0

_t_result() {
	local ok=$1 name=$2 log=$3
	_t_n=$((_t_n + 1))
	if [ "$ok" = 1 ]; then
		echo "ok $_t_n - $name"
	else
		_t_failed=$((_t_failed + 1))
		echo "not ok $_t_n - $name"
		[ -s "$log" ] && sed 's/^/# /' "$log" | tail -n 30
	fi
	rm -f "$log"
}

check() {
	local name=$1 log
	shift
	log=$(mktemp)
	if "$@" >"$log" 2>&1; then _t_result 1 "$name" "$log"; else _t_result 0 "$name" "$log"; fi
}

check_fails() {
	local name=$1 log
	shift
	log=$(mktemp)
	if "$@" >"$log" 2>&1; then
		echo "unexpectedly succeeded: $*" >>"$log"
		_t_result 0 "$name" "$log"
	else
		_t_result 1 "$name" "$log"
	fi
}

check_output() {
	local name=$1 pattern=$2 log
	shift 2
	log=$(mktemp)
	if "$@" >"$log" 2>&1 && grep -qE -- "$pattern" "$log"; then
		_t_result 1 "$name" "$log"
	else
		echo "expected output matching: $pattern" >>"$log"
		_t_result 0 "$name" "$log"
	fi
}

wait_for() {
	local secs=$1
	shift
	for _ in $(seq $((secs * 10))); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

done_testing() {
	echo "1..$_t_n"
	[ "$_t_failed" = 0 ]
}
