#!/bin/bash
# The fsinfo() kselftest on a kernel without fsinfo() - this build host's -
# must say so as a TAP skip and exit 4 (KSFT_SKIP), never fail: a CI that
# runs kselftests on many kernels would otherwise see 40 failures.  It
# exits before any fixture, so nothing is mounted here.  If the host kernel
# does have fsinfo() (syscall 340 answers), the check does not apply.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
prog=${MOUNTD_BUILD:-$top/build}/kernel/fsinfo_test

if [ ! -x "$prog" ]; then
	echo "not ok 1 - $prog is not built"
	echo "1..1"
	exit 1
fi
if python3 -c 'import ctypes, sys; sys.exit(ctypes.CDLL(None, use_errno=True).syscall(340, -1, None, None, None, 0) != -1 or ctypes.get_errno() != 38)'; then
	out=$("$prog" 2>&1)
	rc=$?
	if [ "$rc" = 4 ] && grep -q '^1\.\.0 # SKIP' <<<"$out"; then
		echo "ok 1 - fsinfo_test on a kernel without fsinfo(): SKIP, exit 4"
	else
		echo "not ok 1 - fsinfo_test on a kernel without fsinfo(): exit $rc"
		sed 's/^/# /' <<<"$out" | head -20
		echo "1..1"
		exit 1
	fi
else
	echo "ok 1 # SKIP this host's kernel has fsinfo()"
fi
echo "1..1"
