# daemon/build.mk — mountd.

# ---- mountd binary (mount operations) -----------------------------------
# The mount layer, worker, loop devices, operations, the operation table
# (requests and replies as JSON), the watch driver (sd-event) and the names
# both front ends spell: what the unit tests link, as mountd does.
MOUNTD_OPS_OBJS := $(addprefix $(B)/daemon/, \
	executor-worker.o executor-rights.o executor-caps.o executor-nonblocking.o \
	executor-caller-sb.o executor-serial.o \
	ops-common.o ops-create.o ops-bind.o ops-attr.o ops-move.o ops-info.o ops-list.o \
	ops-watch.o ops-watch-events.o ops-names.o ops-errors.o ops-mount-entry.o \
	ops-table.o ops-table-decode.o ops-table-encode.o ops-table-execute.o \
	ops-leftovers.o ops-fs-params.o ops-fuse.o ops-mount-owner.o request-escape.o \
	sys-mnt.o sys-mnt-lock.o sys-loopdev.o sys-verity.o sys-device-ledger.o sys-process.o \
	sys-userns.o test-hook.o) \
	$(B)/shared/fs-probe.o $(B)/shared/base64.o $(B)/shared/subid.o

# Authorization, consulted by both front ends before any operation.
MOUNTD_AUTH_OBJS := $(B)/daemon/authorize-policy.o $(B)/daemon/authorize.o

# The IDL is served verbatim by GetInterfaceDescription: embed the file as
# a C string at build time so the text cannot drift from what is installed.
$(B)/daemon/io.mountd.Mount.varlink.c: daemon/io.mountd.Mount.varlink
	@mkdir -p $(dir $@)
	{ echo '/* generated from $< */'; \
	  echo 'const char io_mountd_mount_idl[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$$/\\n"/' $<; \
	  echo ';'; } >$@.tmp && mv $@.tmp $@

$(B)/daemon/io.mountd.Mount.varlink.o: $(B)/daemon/io.mountd.Mount.varlink.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

MOUNTD_OBJS := $(B)/daemon/mountd.o \
	$(addprefix $(B)/daemon/,front-varlink.o front-bus.o front-bus-args.o \
		request.o request-ratelimit.o request-audit.o request-journal.o \
		request-peerlog.o authorize-polkit.o executor.o executor-message.o \
		executor-reap.o) \
	$(B)/shared/json-scan.o \
	$(B)/daemon/io.mountd.Mount.varlink.o $(MOUNTD_OPS_OBJS) $(MOUNTD_AUTH_OBJS) \
	$(VARLINK_OBJS)

$(B)/mountd: $(MOUNTD_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

BINARIES += $(B)/mountd

.PHONY: install-mountd
install-mountd: $(B)/mountd
	install -D -m755 $(B)/mountd $(DESTDIR)/usr/libexec/mountd
INSTALL_TARGETS += install-mountd
