#!/bin/bash
# The README's mountctl examples as a user of `make run` meets them: in the
# guest's own mount namespace, against the installed mountctl and the mountd
# that mountd.socket starts on demand.
set -u
TOP=${MOUNTD_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/guest/lib.sh"

# Earlier tests stop mountd.socket to run a mountd of their own on the same
# path (50-units-activation checks that it listens at boot); put it back the
# way a booted system has it.
check "mountd.socket is enabled, as at boot" systemctl is-enabled --quiet mountd.socket
check "mountd.socket (re)starts" systemctl restart mountd.socket
check "and listens" systemctl is-active --quiet mountd.socket
check "mountctl is installed" test -x /usr/bin/mountctl
python3 "$TOP/tests/guest/readme-examples.py" "$TOP/README.md" >/tmp/readme-examples.sh
check_output "the README examples work as printed" README-OK \
	env PATH=/usr/bin:/usr/sbin:/bin:/sbin bash /tmp/readme-examples.sh
check_fails "they cleaned up after themselves" findmnt /mnt/demo
check_fails "  the image is unmounted" findmnt /mnt/image
check_fails "  the scratch disk too" findmnt /mnt/scratch
# The loop device clears itself once unmounted (LO_FLAGS_AUTOCLEAR).
check_fails "  and the image's loop device is gone" \
	sh -c 'sleep 1; losetup -j /tmp/disk.img | grep .'
rm -f /tmp/disk.img
rm -f /tmp/readme-examples.sh
done_testing
