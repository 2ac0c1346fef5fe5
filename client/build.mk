# client/build.mk — libmountd-client, mountctl, man pages, bash completion.

# ---- libmountd-client: the varlink client and container lookup, a static
# library for other programs
CLIENT_LIB := $(B)/libmountd-client.a
$(CLIENT_LIB): $(B)/client/libmountd-client.o $(B)/client/libmountd-list.o \
		$(B)/client/libmountd-container.o $(B)/shared/json-scan.o
	@rm -f $@
	ar rcs $@ $^

# ---- mountctl ----------------------------------------------------------------
MOUNTCTL_OBJS := $(addprefix $(B)/client/,mountctl.o mountctl-commands.o mountctl-call.o \
	mountctl-mount.o mountctl-fuse.o mountctl-remount.o mountctl-info.o mountctl-list.o mountctl-apply-run.o \
	mountctl-format.o mountctl-options.o mountctl-human.o mountctl-output.o mountctl-apply.o) \
	$(B)/shared/fs-probe.o

$(B)/mountctl: $(MOUNTCTL_OBJS) $(CLIENT_LIB)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

BINARIES += $(CLIENT_LIB) $(B)/mountctl

# ---- mountd-oci-hook: mounts a container's config.json asks for ----------------
# It takes mount options as mountctl does (mountctl-options.c).
$(B)/mountd-oci-hook: $(B)/client/mountd-oci-hook.o $(B)/client/mountctl-options.o $(CLIENT_LIB)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

BINARIES += $(B)/mountd-oci-hook

# ---- fusermount3: libfuse 3's mount helper, asking mountd (not setuid) ---------
# Its -o list is read apart (fusermount3-options.c) for the host test.
$(B)/fusermount3: $(B)/client/fusermount3.o $(B)/client/fusermount3-options.o $(CLIENT_LIB)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

BINARIES += $(B)/fusermount3

# Not on PATH: a distribution puts it where libfuse looks (mountd(8), FUSE;
# the guest image's mkosi.postinst).  In /usr/lib/mountd/, not under
# /usr/libexec/mountd, which is mountd itself; named fusermount3 in a
# directory of its own so that libfuse's FUSERMOUNT_DIR can name it.  Mode
# 0755: it needs no privilege of its own.
.PHONY: install-fusermount3
install-fusermount3: $(B)/fusermount3
	install -D -m755 $(B)/fusermount3 $(DESTDIR)/usr/lib/mountd/fusermount3
INSTALL_TARGETS += install-fusermount3

# ---- man pages (scdoc) ----------------------------------------------------------
# fsinfo(2) documents the system call our kernel series adds; it is installed
# with the others so that `man 2 fsinfo` works in the guest.  io.mountd1(5)
# is the D-Bus API (checked against the operation table by test-dbus-doc).
MAN_PAGES := $(B)/man/mountctl.1 $(B)/man/mountd.8 $(B)/man/mountd.policy.5 \
	$(B)/man/fsinfo.2 $(B)/man/mountd-oci-hook.1 $(B)/man/io.mountd1.5
$(B)/man/%: docs/man/%.scd
	@mkdir -p $(dir $@)
	scdoc <$< >$@

BINARIES += $(MAN_PAGES)

.PHONY: install-client
install-client: $(B)/mountctl $(B)/mountd-oci-hook $(CLIENT_LIB) $(MAN_PAGES)
	install -D -m755 $(B)/mountctl $(DESTDIR)/usr/bin/mountctl
	install -D -m755 $(B)/mountd-oci-hook $(DESTDIR)/usr/libexec/mountd-oci-hook
	install -D -m644 client/libmountd-client.h $(DESTDIR)/usr/include/libmountd-client.h
	install -D -m644 $(CLIENT_LIB) $(DESTDIR)/usr/lib/libmountd-client.a
	install -D -m644 completion/mountctl.bash \
		$(DESTDIR)/usr/share/bash-completion/completions/mountctl
	for m in $(MAN_PAGES); do \
		s=$${m##*.}; install -D -m644 $$m $(DESTDIR)/usr/share/man/man$$s/$$(basename $$m); \
	done
INSTALL_TARGETS += install-client
