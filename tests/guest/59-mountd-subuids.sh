#!/bin/bash
# A user's subuids are that user (shared/principal.c), by what mountd lets
# them do.  A user given 65536 subuids (/etc/subuid; here root writes the
# map, as newuidmap does) runs a process as each in a rootless container.
# Were each uid a user, that one user would have 65536 times every per-user
# limit: here 100 processes as 100 subuids get the user's 64 connections,
# not 100, while another user and root are served; 10 of them making 20
# calls each get the user's burst of calls (40) between them, not 40 each,
# and the journal counts the refusals against the user.  With per-uid
# limits (the mountd before this) all 100 are answered and no call is
# refused: those checks fail.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

SUBUIDS=100000
U2=1001
BURST=40
INTERVAL=86400 # no refill during the test
CLIENTS="python3 $TOP/tests/guest/subuid-clients.py"
LIMIT_ERROR=io.mountd.Mount.LimitExceeded

export MOUNTD_POLICY=$work/policy
cat >"$MOUNTD_POLICY" <<POLICY
allow user=$U2 method=Info namespace=own
POLICY

check "shared/principal.c's own cases, none skipped" \
	env MOUNTD_TEST_STRICT=1 "$BUILD/tests/unit/test-principal"

# Whether FILE has a line within 120 s.
wait_for_file() {
	for _ in $(seq 1200); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# 1: connections (64 per user by default).
check "mountd starts" start_mountd
chmod 0666 $SOCK
mkfifo "$work/hold"
$CLIENTS hold 100 <"$work/hold" >"$work/held" 2>&1 &
holder=$!
exec 4>"$work/hold"
check "100 processes of uid $USER_ID's container, each as another subuid, connect" \
	wait_for_file "$work/held"
echo "# $(cat "$work/held")"
check_output "... 64 are answered, the user's limit; 36 closed at once" \
	'^answered=64 closed=36$' cat "$work/held"
check_output "uid $U2 meanwhile: answered" '"vendor"' \
	setpriv --reuid=$U2 --regid=$U2 --clear-groups \
	varlinkctl call --json=short $SOCK org.varlink.service.GetInfo '{}'
check_output "root meanwhile: answered" '"vendor"' \
	varlinkctl call --json=short $SOCK org.varlink.service.GetInfo '{}'
check_output "the refusals name the user" "user $USER_ID has 64 connections already" \
	cat "$work/mountd.log"
exec 4>&-
check "the container's processes end" wait $holder
check "mountd exits cleanly" stop_mountd

# 2: the call rate.
export MOUNTD_RATE_LIMIT_BURST=$BURST MOUNTD_RATE_LIMIT_INTERVAL_SEC=$INTERVAL
check "mountd starts with a burst of $BURST calls per $INTERVAL s" start_mountd
chmod 0666 $SOCK
share=$(mktemp -d /tmp/subuid-test.XXXXXX)
chmod 0755 "$share"
cp "$TOP/tests/guest/rate-flood.py" "$share/"
chmod 0644 "$share/rate-flood.py"
$CLIENTS run 10 -- python3 "$share/rate-flood.py" --connections 1 --calls 20 \
	Info '{"path":"/"}' >"$work/flood" 2>&1
check "10 processes as 10 subuids made 20 Info calls each" test $? = 0
sed 's/^/# /' "$work/flood"
sum() { sed -n "s/.*\b$1=\([0-9]*\).*/\1/p" "$work/flood" | awk '{ n += $1 } END { print n + 0 }'; }
served=$(($(sum ok) + $(sum other)))
limited=$(sum limit)
check "between them, $served calls got past the rate limit: the user's burst, not $BURST per subuid" \
	test "$served" = $BURST
check "the other $((200 - BURST)) were LimitExceeded ($limited)" test "$limited" = $((200 - BURST))
check_output "uid $U2 meanwhile: its own burst" '^ok=20 limit=0 other=0 ' \
	setpriv --reuid=$U2 --regid=$U2 --clear-groups \
	python3 "$share/rate-flood.py" --connections 1 --calls 20 Info '{"path":"/"}'
refused_in_journal() {
	records MOUNTD_CALLER_USER=$USER_ID MOUNTD_RESULT=$LIMIT_ERROR | python3 -c 'import json,sys
print(sum(int(json.loads(l).get("MOUNTD_REFUSED_CALLS", "1")) for l in sys.stdin))'
}
for _ in $(seq 50); do
	[ "$(refused_in_journal)" = "$limited" ] && break
	sleep 0.2
done
check_output "the journal counts every refusal against user $USER_ID" "^$limited\$" \
	refused_in_journal
check_output "a subuid's call is recorded with its uid and its user" \
	"^$((SUBUIDS + 1)) $USER_ID\$" \
	bash -c "records MOUNTD_CALLER_UID=$((SUBUIDS + 1)) | fields MOUNTD_CALLER_UID MOUNTD_CALLER_USER | sort -u"
check "mountd exits cleanly" stop_mountd

rm -rf "$work" "$share"
done_testing
