# `make check-asan`: mountd, mountctl and mountd-oci-hook built with ASan and
# UBSan into build/asan, installed into a stage and disk of their own
# (build/asan/disk.img), and the guest tests that drive them run there.  Any
# sanitizer report fails the run (tests/guest/99-sanitizer-reports.sh).

ASAN_B := build/asan
# The runtimes are linked in: the image has no libasan/libubsan.
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer -static-libasan -static-libubsan
# The files that drive the daemon, the client and the hook through their
# paths (operations, List, attacks, lifecycle, the CLI, the OCI hook, D-Bus,
# the faults that end requests early: fd limit, client or namespace gone): about
# 6-7 min on TCG (30-ops 59 s, 40-mountctl 54 s, 36-attacks 47 s, ...), where
# the whole suite takes ~500 s without the sanitizers.  The kernel's own tests
# (10-2x) run no mountd code, and the rest repeat these paths.  99 reads the
# reports.
ASAN_TESTS ?= ^(30-mountd-ops|33-mountd-lifecycle|36-mountd-attacks|40-mountctl|44-mountctl-container|45-mountd-list|53-dbus-api|55-dbus-watch|71-mountd-faults-limits|99-sanitizer-reports)$$

.PHONY: asan-disk check-asan install-sanitizer
# Everything is built with the sanitizers: what goes into the image and what
# the tests run from the build tree (they run $MOUNTD_BUILD/mountd, which
# check-asan points at build/asan).
# Make does not see flag changes: a tree built with other flags starts over.
asan-disk: kernel image
	@[ "$$(cat $(ASAN_B)/flags 2>/dev/null)" = "$(ASAN_FLAGS)" ] || \
		{ rm -rf $(ASAN_B) && mkdir -p $(ASAN_B) && echo "$(ASAN_FLAGS)" >$(ASAN_B)/flags; }
	@rm -rf $(ASAN_B)/stage
	@$(MAKE) --no-print-directory B=$(ASAN_B) SANITIZE="$(ASAN_FLAGS)" \
		DESTDIR=$(abspath $(ASAN_B)/stage) install install-sanitizer
	@scripts/disk-build $(ASAN_B)/stage $(ASAN_B)/disk.img >/dev/null

# Where the reports go, in the image of the sanitized build only: every
# process systemd starts gets the options (the daemon, and through
# mountd-guest-run.service the tests and the mountctl/hook they run).
install-sanitizer:
	install -D -m644 tests/asan/sanitizer.conf \
		$(DESTDIR)/etc/systemd/system.conf.d/50-sanitizer.conf
	install -d -m1777 $(DESTDIR)/var/log/mountd-sanitizer

check-asan: asan-disk
	@MOUNTD_DISK=$(abspath $(ASAN_B)/disk.img) MOUNTD_RESULTS=$(abspath $(B)/asan-results) \
		MOUNTD_GUEST_BUILD=$(abspath $(ASAN_B)) \
		MOUNTD_TESTS='$(ASAN_TESTS)' MOUNTD_LABEL=asan scripts/check-guest
