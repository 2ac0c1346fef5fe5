# Guest tests built on the host (against our kernel's uapi) and the guest
# side of scripts/guest-run.

# kselftest_harness.h from the kernel tree we build: TAP output and a forked
# child per case.
KSELFTEST_DIR := $(MOUNTD_CACHE)/linux/tools/testing/selftests
GUEST_TEST_CFLAGS := -I$(KSELFTEST_DIR) -Wno-unused-parameter -Wno-sign-compare

$(B)/tests/guest/mount-api-test: tests/guest/mount-api-test.c $(KERNEL)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(GUEST_TEST_CFLAGS) -o $@ $<

GUEST_PROGS += $(B)/tests/guest/mount-api-test

.PHONY: install-guest-exec
install-guest-exec:
	install -D -m755 scripts/guest-exec $(DESTDIR)/usr/lib/mountd/guest-exec
	install -D -m644 scripts/mountd-guest-run.service \
		$(DESTDIR)/usr/lib/systemd/system/mountd-guest-run.service
INSTALL_TARGETS += install-guest-exec

# The fsinfo() fuzz loop (22-fsinfo-fuzz).
$(B)/tests/guest/fsinfo-fuzz: tests/guest/fsinfo-fuzz.c $(KERNEL)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

GUEST_PROGS += $(B)/tests/guest/fsinfo-fuzz
