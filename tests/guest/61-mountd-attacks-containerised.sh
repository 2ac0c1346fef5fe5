#!/bin/bash
# The attack suite (36-mountd-attacks) against mountd in its container
# (MOUNTD_CONTAINERISED=1: the image run by crun, see 60-): the security
# guarantees must hold the same way there.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"
rerun_containerised 36-mountd-attacks.sh
rm -rf "$work"
done_testing
