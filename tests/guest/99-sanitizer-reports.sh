#!/bin/bash
# Last of a run on the ASan+UBSan disk (make check-asan): no mountd,
# mountctl or mountd-oci-hook process the tests ran left a sanitizer report,
# in the report directory (tests/asan/sanitizer.conf) or the journal.  mountd
# is stopped first so that its exit-time leak check runs.  The reports are
# copied next to the results for the host.  On the normal disk it skips.
set -u
. "$MOUNTD_TOP/tests/guest/lib.sh"

dir=/var/log/mountd-sanitizer
if [ ! -d "$dir" ]; then
	echo "ok 1 # SKIP not the sanitizer disk (no $dir)"
	echo "1..1"
	exit 0
fi

# The runtimes are linked in (tests/asan/build.mk): look for their messages.
sanitized() { grep -q AddressSanitizer "$1" && grep -q 'runtime error' "$1"; }
for p in /usr/libexec/mountd /usr/bin/mountctl /usr/libexec/mountd-oci-hook "$MOUNTD_BUILD/mountd"; do
	check "$p is built with ASan and UBSan" sanitized "$p"
done
check "mountd stops (its leak check runs at exit)" systemctl stop mountd.service mountd.socket

reports() { find "$dir" -type f -size +0; }
show_reports() {
	local f
	for f in $(reports); do
		echo "== $f"
		head -n 40 "$f"
	done
	[ -z "$(reports)" ]
}
check "no sanitizer report in $dir" show_reports
journal() {
	! journalctl -b -o cat --no-pager |
		grep -E -m 20 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|ERROR: Can.t open file'
}
check "no sanitizer report in the journal" journal

out=${MOUNTD_RESULTS:-$MOUNTD_TOP/build/guest-results}/sanitizer
mkdir -p "$out" && cp -r "$dir/." "$out/" 2>/dev/null
done_testing
