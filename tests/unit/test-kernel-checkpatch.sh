#!/bin/bash
# Every patch of kernel/series passes the kernel's own scripts/checkpatch.pl
# --strict with no error, warning or check, as linux-fsdevel expects.  Run
# in the tree with the series applied, as a reviewer would (kernel-build's
# worktree: the kernel's own checkpatch and spelling list, and CamelCase
# known from the series' own headers: the seed's uapi names fields Nth and
# Mth, which a pristine tree flags in the .c files using them); with the
# system python3, which has ply for the SPDX check, not a developer's pyenv.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tree=$("$top/scripts/kernel-build" --series-tree 2>/dev/null | tail -1)
n=0 bad=0
while read -r p; do
	case "$p" in '' | '#'*) continue ;; esac
	n=$((n + 1))
	out=$(cd "$tree" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict \
		"$top/kernel/patches/$p" 2>&1)
	total=$(grep '^total:' <<<"$out")
	case "$total" in
	"total: 0 errors, 0 warnings, 0 checks"*)
		echo "ok $n - $p: checkpatch --strict clean" ;;
	*)
		echo "not ok $n - $p: ${total:-checkpatch did not run}"
		sed 's/^/# /' <<<"$out" | head -30
		bad=1 ;;
	esac
done <"$top/kernel/series"
echo "1..$n"
exit $bad
