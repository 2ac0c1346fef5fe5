# daemon/build.mk — mountd.

# ---- mountd binary (mount operations) -----------------------------------
# The mount layer, worker, loop devices, operations, the operation table
# (requests and replies as JSON), the watch driver (sd-event) and the names
# both front ends spell: what the unit tests link, as mountd does.
MOUNTD_OPS_OBJS := $(addprefix $(B)/daemon/,mnt.o worker.o loopdev.o ops-common.o process.o \
	ops-create.o ops-bind.o ops-attr.o ops-move.o ops-info.o ops-list.o ops-watch.o \
	watch.o ops-names.o ops-errors.o ops-mount-entry.o base64.o ops-table.o ops-table-decode.o ops-table-encode.o \
	ops-table-execute.o rights.o caps.o leftovers.o test-hook.o \
	nonblocking.o caller-sb.o fs-params.o) $(B)/shared/fs-probe.o

# Authorization, consulted by both front ends before any operation.
MOUNTD_AUTH_OBJS := $(B)/daemon/policy.o $(B)/daemon/authorize.o

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

MOUNTD_OBJS := $(B)/daemon/mountd.o $(B)/daemon/varlink-mount.o $(B)/daemon/bus.o \
	$(B)/daemon/bus-args.o $(B)/daemon/request.o $(B)/daemon/audit.o $(B)/daemon/journal.o \
	$(B)/daemon/polkit.o $(B)/daemon/executor.o $(B)/daemon/ratelimit.o $(B)/daemon/peerlog.o \
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
