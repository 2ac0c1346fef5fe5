# fsinfo() test programs, built on the host against our kernel's uapi and run
# in the guest (tests/guest/2?-fsinfo*).  Both are taken straight out of the
# patches at build time so that what runs is exactly what was posted:
#   $(B)/kernel/test-fsinfo   the seed's samples/statx/test-fsinfo.c, unchanged
#   $(B)/kernel/fsinfo_test   our kselftest, as kernel/series leaves it
# Neither is our code, so they get the kernel's own warning level rather than
# the project's -Wextra -Werror.

# The seeds sit beside the project's checkout (../shared/seeds); a clone made
# elsewhere (CI's fresh clone in a temporary directory) finds them beside the
# repository it was cloned from.  MOUNTD_SEEDS overrides both.
FSINFO_ORIGIN := $(shell git config --get remote.origin.url 2>/dev/null)
MOUNTD_SEEDS ?= $(firstword $(wildcard ../shared/seeds $(if $(FSINFO_ORIGIN),$(FSINFO_ORIGIN)/../shared/seeds)))
FSINFO_SEED_PATCH := $(wildcard $(MOUNTD_SEEDS)/006-*fsinfo*.patch)
FSINFO_SELFTEST_SRC := tools/testing/selftests/filesystems/fsinfo/fsinfo_test.c
FSINFO_PATCHES := $(addprefix kernel/patches/,$(shell grep -v '^\#' kernel/series))
FSINFO_KSELFTEST := $(MOUNTD_CACHE)/linux/tools/testing/selftests
FSINFO_CFLAGS := -isystem $(UAPI) -O2 -g -Wall

$(B)/kernel/test-fsinfo.c: $(FSINFO_SEED_PATCH) kernel/extract-file.sh
	@test -n "$(FSINFO_SEED_PATCH)" || { echo "the seed patch 006-*fsinfo*.patch is not in ../shared/seeds nor beside the origin repository: set MOUNTD_SEEDS" >&2; exit 1; }
	@mkdir -p $(dir $@)
	kernel/extract-file.sh samples/statx/test-fsinfo.c $(FSINFO_SEED_PATCH) >$@.tmp && mv $@.tmp $@

$(B)/kernel/test-fsinfo: $(B)/kernel/test-fsinfo.c $(KERNEL)
	$(CC) $(FSINFO_CFLAGS) -o $@ $< -lm

# The test includes "../../kselftest_harness.h": give it the same layout.
# The harness comes from the pristine tree, which the kernel's build unpacks.
$(B)/kernel/selftests/filesystems/fsinfo/fsinfo_test.c: kernel/series $(FSINFO_PATCHES) kernel/extract-file.sh | $(KERNEL)
	@mkdir -p $(dir $@)
	cp $(FSINFO_KSELFTEST)/kselftest_harness.h $(FSINFO_KSELFTEST)/kselftest.h $(B)/kernel/selftests/
	kernel/extract-file.sh $(FSINFO_SELFTEST_SRC) $(FSINFO_PATCHES) >$@.tmp && mv $@.tmp $@

$(B)/kernel/fsinfo_test: $(B)/kernel/selftests/filesystems/fsinfo/fsinfo_test.c $(KERNEL)
	$(CC) $(FSINFO_CFLAGS) -o $@ $< -lpthread

GUEST_PROGS += $(B)/kernel/test-fsinfo $(B)/kernel/fsinfo_test
