#!/bin/bash
# scripts/tap-summary decides whether `make check` passes: it must count
# every way a test can go wrong as a failure, not only `not ok` lines.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
summary=$top/scripts/tap-summary
n=0 bad=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# case NAME EXPECT_RC EXPECT_LINE RUNNER_RC: the tests/ and results/ set up by the caller
verdict() {
	local name=$1 want_rc=$2 want_line=$3 runner_rc=${4:-0} out rc=0
	out=$(python3 "$summary" "$tmp/results" "$runner_rc" "$tmp/tests" t 2>&1) || rc=$?
	n=$((n + 1))
	if [ "$rc" = "$want_rc" ] && grep -qxF -- "$want_line" <<<"$out"; then
		echo "ok $n - $name"
	else
		bad=$((bad + 1))
		echo "not ok $n - $name"
		sed 's/^/# /' <<<"$out"
	fi
}

setup() {
	rm -rf "$tmp/results" "$tmp/tests"
	mkdir -p "$tmp/results" "$tmp/tests"
	local t
	for t in "$@"; do
		printf '#!/bin/sh\n' >"$tmp/tests/$t"
		chmod +x "$tmp/tests/$t"
	done
}

result() { printf '%b' "$2" >"$tmp/results/$1.tap"; echo "$3" >"$tmp/results/$1.rc"; }

setup 10-a
result 10-a 'ok 1 - x\nok 2 - y\n1..2\n' 0
verdict "all passing" 0 "t: 2 passed, 0 failed"

setup 10-a
result 10-a 'ok 1 - x\nnot ok 2 - y\n' 1
verdict "a failing case" 1 "t: 1 passed, 1 failed"

setup 10-a 20-b
result 10-a 'ok 1 - x\n' 0
verdict "a test that never ran" 1 "FAIL: 20-b: no result (the test never ran)"

setup 10-a
result 10-a '' 139
verdict "a crash with no output" 1 "FAIL: 10-a: printed no result (exit 139)"

setup 10-a
result 10-a 'ok 1 - x\n' 2
verdict "non-zero exit after passing cases" 1 "FAIL: 10-a: exited 2 with no failing case"

setup 10-a
result 10-a '1..3\nok 1 - x\n' 0
verdict "plan not met" 1 "FAIL: 10-a: planned 3 cases, saw 1"

setup 10-a
result 10-a 'ok 1 - x\n' 0
verdict "runner failure (boot, timeout, oops)" 1 "FAIL: t runner exited 1 (see above)" 1

setup
verdict "no test programs at all" 1 "t: 0 passed, 1 failed"

setup 10-a
result 10-a 'ok 1 x # SKIP no ext4\nok 2 y\n' 0
verdict "skips are counted, not passed" 0 "t: 1 passed, 0 failed, 1 skipped"

setup 10-a
result 10-a '# ok 1 - nested comment\nok 1 - x\n' 0
verdict "comment lines are not cases" 0 "t: 1 passed, 0 failed"

setup 10-a 20-b
result 10-a 'ok 1 - x\n' 0
MOUNTD_TESTS=a verdict "MOUNTD_TESTS narrows what must have run" 0 "t: 1 passed, 0 failed"

setup 10-a
MOUNTD_TESTS=nomatch verdict "a filter that matches nothing fails" 1 "t: 0 passed, 1 failed"

echo "1..$n"
[ $bad = 0 ]
