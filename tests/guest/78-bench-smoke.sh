#!/bin/bash
# The benchmarks still measure what bench/README.md says they do: a few
# rounds of mount-bench's request sections (root, by pid, Info, and uid
# 1000 in its rootless container: tmpfs and Info) give every row a number,
# none "n/a", and leave no mount behind; walk-bench's methods agree on every
# mount (its own check: type, source, mount point, root, options, statfs),
# in the namespace and in a slave of a peer group.  Nothing about time.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

export MOUNTD_POLICY=$work/policy
cat >"$MOUNTD_POLICY" <<POLICY
allow user=$USER_ID method=Create fstype=tmpfs namespace=owned
allow user=$USER_ID method=Unmount namespace=owned
allow user=$USER_ID method=Info namespace=owned
POLICY
check "mountd starts" start_mountd

cut -d' ' -f5 /proc/1/mountinfo | sort >"$work/before"
MOUNTD_BENCH_SECTIONS=tmpfs,by-pid,info,user,user-info \
	"$BUILD/bench/mount-bench" 10 >"$work/bench" 2>"$work/bench.err"
echo $? >"$work/bench.rc"
check "mount-bench ran its request sections" test "$(cat "$work/bench.rc")" = 0
# A section's first row carries its name; the rows after it are indented.
rows_of() { # section: its rows, the section's name stripped
	awk -v s="$1" '$1 == s { on = 1; sub(/^[^ ]+ +/, ""); print; next }
		on && /^ / { print; next } { on = 0 }' "$work/bench"
}
for s in tmpfs by-pid info user user-info; do
	check_output "  $s: every method has a median" '^ok$' bash -c "
		rows=\$(awk -v s=$s '\$1 == s { on = 1; sub(/^[^ ]+ +/, \"\"); print; next }
			on && /^ / { print; next } { on = 0 }' '$work/bench')
		[ -n \"\$rows\" ] || { cat '$work/bench' '$work/bench.err'; exit 1; }
		grep -q 'n/a' <<<\"\$rows\" && { echo \"\$rows\"; cat '$work/bench.err'; exit 1; }
		grep -Eq '^ *mountd[^0-9]* [0-9]+\.[0-9]' <<<\"\$rows\" || { echo \"\$rows\"; exit 1; }
		echo ok"
done
check_output "  the user's rows are the user's: its reference beside mountd" \
	'raw \+ 2 round trips +[0-9]' rows_of user
check_output "  and the user's Info its own" 'mountd Info +[0-9]' rows_of user-info
check "  no mount of pid 1's left behind" \
	wait_for 10 bash -c "cut -d' ' -f5 /proc/1/mountinfo | sort | diff '$work/before' -"
check "  no helper of the user's left beside mountd's workers" \
	wait_for 10 bash -c "! pgrep -u $USER_ID -x mountd-caller >/dev/null || pgrep -x mountd-worker >/dev/null"

# Every method ran (none n/a: the guest's kernel has the whole series), no
# answer was missing, and the methods agreed: walk-bench's exit status.
walk_ok() { # ARGS: walk-bench's
	"$BUILD/bench/walk-bench" "$@" >"$work/walk" 2>&1 || { cat "$work/walk"; return 1; }
	! grep -E 'n/a|SOME ANSWERS MISSING' "$work/walk" && grep '0 mismatch' "$work/walk"
}
check_output "walk-bench: five ways of walking 200 more mounts agree on each" \
	'^check: 2[0-9][0-9] mounts, [0-9]+ values compared across methods, 0 mismatch' walk_ok 200:2
check_output "  and in a slave namespace of a 100-mount peer group" \
	'^check: .*, 0 mismatch' walk_ok peers:100:2

check "mountd stops" stop_mountd
done_testing
