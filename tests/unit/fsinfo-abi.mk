# <linux/fsinfo.h>: every struct the same size for i386 and x86_64 callers.
# The test reads the uapi headers this build compiles against.
UNIT_TESTS += tests/unit/test-fsinfo-abi.sh
export MOUNTD_UAPI ?= $(UAPI)
