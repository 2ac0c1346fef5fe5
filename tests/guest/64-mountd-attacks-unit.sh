#!/bin/bash
# The attack suite (36-mountd-attacks) against mountd.service as systemd
# runs it on a host (MOUNTD_UNIT=1: its sandboxing, started by its socket,
# a drop-in with the test's policy): what holds for build/mountd by hand
# must hold for the unit the image ships.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"
rerun_unit 36-mountd-attacks.sh
rm -rf "$work"
done_testing
