#!/bin/bash
# The README's mountctl examples as a user of `make run` meets them: in the
# guest's own mount namespace, against the installed mountctl and the mountd
# that mountd.socket starts on demand.
set -u
TOP=${MOUNTD_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/guest/lib.sh"

check "mountd.socket is listening" bash -c \
	'systemctl is-active --quiet mountd.socket || { systemctl status --no-pager mountd.socket mountd.service; journalctl -b --no-pager -u mountd.socket -u mountd.service | tail -n 20; false; }'
# Earlier tests start their own mountd on the same path, which replaces the
# socket file; a restart puts the unit's socket back where users look.
check "mountd.socket restarts" systemctl restart mountd.socket
check "mountctl is installed" test -x /usr/bin/mountctl
python3 "$TOP/tests/guest/readme-examples.py" "$TOP/README.md" >/tmp/readme-examples.sh
check_output "the README examples work as printed" README-OK \
	env PATH=/usr/bin:/usr/sbin:/bin:/sbin bash /tmp/readme-examples.sh
check_fails "they cleaned up after themselves" findmnt /mnt/demo
rm -f /tmp/readme-examples.sh
done_testing
