#!/bin/bash
# Mounts into other containers (44-mountctl-container: the OCI hook,
# mountctl --container on crun containers and an nspawn machine) served by
# mountd in its own container (MOUNTD_CONTAINERISED=1, see 60-).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"
rerun_containerised 44-mountctl-container.sh
rm -rf "$work"
done_testing
