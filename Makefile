# mountd — top-level build.  `make run` and `make check` are the two entry
# points; both install missing Debian packages first (scripts/deps), then
# re-enter make for the real work.  A make that starts at an entry point
# reads nothing else: whatever it computed (pkg-config's flags, the kernel
# key) would be computed before the install and, exported or passed on,
# reach the inner make stale.  tests/unit/test-make-entry.sh holds this.

SHELL := /bin/bash
export MOUNTD_CACHE ?= /var/cache/mountd
B := build

ENTRY_GOALS := all run check fuzz
ifneq ($(filter $(ENTRY_GOALS),$(or $(MAKECMDGOALS),all)),)

.PHONY: $(ENTRY_GOALS)
$(ENTRY_GOALS):
	@scripts/deps
	@$(MAKE) --no-print-directory _$@

else

.PHONY: deps
deps:
	@scripts/deps

# ---------------------------------------------------------------- internals
# Everything below assumes the packages are installed.

# The kernel's key names its inputs; without them (linux-source not
# installed) there is no key, and the kernel rule below says why.
KDIR := $(or $(shell scripts/kernel-build --dir 2>/dev/null),$(MOUNTD_CACHE)/kernel/no-key)
UAPI := $(KDIR)/include
KERNEL := $(KDIR)/bzImage

PKGS := libsystemd json-c libcap blkid libcryptsetup devmapper libcrypto
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CC := gcc
# The uapi headers userspace compiles against come first: fsinfo.h as the
# series leaves it, and linux-source-6.12's mount.h and nsfs.h, newer than
# the build machine's /usr/include.  scripts/uapi-headers takes them from
# the patches and the sources: no kernel build is needed for userspace.
USER_UAPI := $(B)/uapi
USER_UAPI_STAMP := $(USER_UAPI)/.stamp
CPPFLAGS := -isystem $(USER_UAPI) -D_GNU_SOURCE -Ishared -Ivarlink -Idaemon -Iclient
# SANITIZE: extra compile and link flags (tests/asan/build.mk builds a
# second tree with the sanitizers through it).
SANITIZE :=
CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -Werror -fstack-protector-strong \
	-D_FORTIFY_SOURCE=2 $(PKG_CFLAGS) $(SANITIZE)
LDLIBS := $(PKG_LIBS)

# Components append to these in their build.mk:
#   BINARIES      programs built into $(B)/ (and installed)
#   UNIT_TESTS    host tests run by check-host (programs: one link rule below)
#   KERNEL_TESTS  host tests of the kernel stage (check-kernel): they need its tree
#   GUEST_PROGS   programs the guest tests run (built on the host, shared in)
#   INSTALL_TARGETS  phony targets that install into $(DESTDIR) (the image)
BINARIES :=
UNIT_TESTS :=
KERNEL_TESTS :=
GUEST_PROGS :=
INSTALL_TARGETS :=
# The varlink library first: the daemon's and tests' rules name its objects.
include varlink/build.mk
include $(filter-out varlink/build.mk,$(sort $(wildcard */build.mk */*/build.mk)))

# The host test programs (UNIT_TESTS built under $(B)/): each is linked from
# its own object and the objects its build.mk names as its prerequisites.
$(filter $(B)/%,$(UNIT_TESTS)): %: %.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

.PHONY: _all _run _check _fuzz kernel image disk print-uapi-dir build build-host install \
	check-host check-kernel check-guest clean format

_all: build

# The kernel this make was parsed for must be the one its inputs build now.
kernel $(KERNEL):
	@d=$$(scripts/kernel-build) && [ "$$d" = "$(KDIR)" ] || \
		{ echo "error: make was parsed for kernel $(KDIR), the inputs now build $${d:-nothing}: run make again" >&2; exit 1; }

print-uapi-dir: $(USER_UAPI_STAMP)
	@echo $(abspath $(USER_UAPI))

$(USER_UAPI_STAMP): scripts/uapi-headers kernel/extract-file.sh kernel/series \
		$(addprefix kernel/patches/,$(shell grep -v '^\#' kernel/series))
	@scripts/uapi-headers $(USER_UAPI)
	@touch $@

# Userspace compiles against those headers; an object's own .d file names
# the ones it read, so the stamp need only come first.
$(B)/%.o: %.c | $(USER_UAPI_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# Dependency files of our objects only: the one beside each object.  Other
# files under build/ may be named *.d (the image's invoke-rc.d in the disk
# staging trees, a scratch tree) and are no makefiles.
-include $(wildcard $(patsubst %.o,%.d,$(shell find $(B) \( -name stage -o -name disk.root \) -prune -o -name '*.o' -type f -print 2>/dev/null)))

build: $(BINARIES) $(UNIT_TESTS) $(KERNEL_TESTS) $(GUEST_PROGS)
# What the host stage needs: no kernel, no guest programs.
build-host: $(BINARIES) $(UNIT_TESTS)

# Stage tree overlaid onto the base image: what `make install` puts there.
STAGE := $(B)/stage
install: build $(INSTALL_TARGETS)

image:
	@scripts/image-build >/dev/null

disk: build image
	@rm -rf $(STAGE) && $(MAKE) --no-print-directory install DESTDIR=$(abspath $(STAGE))
	@scripts/disk-build $(STAGE) >/dev/null

_run: kernel disk
	@scripts/run

check-host: build-host
	@MOUNTD_UAPI=$(abspath $(USER_UAPI)) scripts/check-host $(UNIT_TESTS)

# What needs the kernel's tree or its build (checkpatch of the series, the
# kselftest built against it): the kernel's own stage, judged the same way.
check-kernel: kernel $(KERNEL_TESTS)
	@MOUNTD_SUITE=kernel scripts/check-host $(KERNEL_TESTS)

# tests/fuzz: FUZZ_SECONDS per harness, judged like the host tests.
_fuzz: $(FUZZERS)
	@scripts/fuzz-run $(FUZZ_SECONDS) $(FUZZERS)

check-guest: kernel disk
	@scripts/check-guest

# The suites run even when one fails; the closing line adds them up.
_check: build disk
	@rm -f $(B)/{host,kernel,guest,fuzz,asan}-results/counts
	@$(MAKE) --no-print-directory check-host || true
	@$(MAKE) --no-print-directory check-kernel || true
	@$(MAKE) --no-print-directory _fuzz FUZZ_SECONDS=$(CHECK_FUZZ_SECONDS) || true
	@$(MAKE) --no-print-directory check-guest || true
	@$(MAKE) --no-print-directory check-asan || true
	@scripts/check-total

format:
	@git ls-files '*.c' '*.h' | xargs -r clang-format -i

clean:
	rm -rf $(B)

endif
