#!/bin/bash
# The guest test of mountctl (tests/guest/40-mountctl.sh) on the host: it
# runs in a private mount namespace of its own with its own mountd, so it
# touches nothing of this machine's mount table.
cd "$(dirname "$0")/../.." || exit 1
MOUNTD_TOP=$PWD MOUNTD_BUILD=$PWD/build MOUNTCTL_USE_BUILD=1 MOUNTCTL_TEST_HOST=1 \
	MOUNTCTL_TEST_INFO_SOURCE='fsinfo|statfs|statmount|statx' exec tests/guest/40-mountctl.sh
