# <linux/fsinfo.h>: every struct the same size for i386 and x86_64 callers.
# The test reads the uapi headers this build compiles against.
UNIT_TESTS += tests/unit/test-fsinfo-abi.sh
MOUNTD_UAPI ?= $(UAPI)

# The kselftest reports a skip (exit 4) on this host's kernel, which has no
# fsinfo(); it is built for the guest in kernel/build.mk.
UNIT_TESTS += tests/unit/test-fsinfo-selftest-skip.sh
tests/unit/test-fsinfo-selftest-skip.sh: $(B)/kernel/fsinfo_test

# kernel/patches: checkpatch --strict clean, patch by patch.
UNIT_TESTS += tests/unit/test-kernel-checkpatch.sh

# make check on a machine without linux-source: nothing computed before the
# install reaches the build (the cause of a stale MOUNTD_UAPI once).
UNIT_TESTS += tests/unit/test-make-entry.sh
