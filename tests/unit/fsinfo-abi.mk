# <linux/fsinfo.h>: every struct the same size for i386 and x86_64 callers.
# The test reads the uapi headers this build compiles against.
UNIT_TESTS += tests/unit/test-fsinfo-abi.sh
export MOUNTD_UAPI ?= $(UAPI)

# The kselftest reports a skip (exit 4) on this host's kernel, which has no
# fsinfo(); it is built for the guest in kernel/build.mk.
UNIT_TESTS += tests/unit/test-fsinfo-selftest-skip.sh
tests/unit/test-fsinfo-selftest-skip.sh: $(B)/kernel/fsinfo_test

# kernel/patches: checkpatch --strict clean, patch by patch.
UNIT_TESTS += tests/unit/test-kernel-checkpatch.sh
