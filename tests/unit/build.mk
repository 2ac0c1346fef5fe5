# tests/unit/build.mk — host unit test programs (C).  One block per test:
# append the program to UNIT_TESTS and give its link rule.

# mountd: request validation, JSON → fsconfig parameters, worker fd passing,
# fs_context message draining (inside a private mount namespace it creates)
UNIT_TESTS += $(B)/tests/unit/test-mountd-ops
$(B)/tests/unit/test-mountd-ops: $(B)/tests/unit/test-mountd-ops.o \
		$(MOUNTD_OPS_OBJS) $(MOUNTD_AUTH_OBJS) $(VARLINK_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# the operation table against daemon/io.mountd.Mount.varlink, field by field
UNIT_TESTS += $(B)/tests/unit/test-ops-table
$(B)/tests/unit/test-ops-table: $(B)/tests/unit/test-ops-table.o $(MOUNTD_OPS_OBJS) \
		$(MOUNTD_AUTH_OBJS) $(VARLINK_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# io.mountd1(5) against the operation table: every method, option key and
# reply field, with its D-Bus type
UNIT_TESTS += $(B)/tests/unit/test-dbus-doc
$(B)/tests/unit/test-dbus-doc: $(B)/tests/unit/test-dbus-doc.o $(MOUNTD_OPS_OBJS) \
		$(MOUNTD_AUTH_OBJS) $(VARLINK_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# the executor: worker reuse, per-uid limits, deadlines, crashes, owners, memfd
UNIT_TESTS += $(B)/tests/unit/test-executor
$(B)/tests/unit/test-executor: $(B)/tests/unit/test-executor.o $(B)/daemon/executor.o \
		$(MOUNTD_OPS_OBJS) $(VARLINK_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# the per-uid call rate: bursts, refill, uids apart, what refusals leave
# for the journal, a full table
UNIT_TESTS += $(B)/tests/unit/test-ratelimit
$(B)/tests/unit/test-ratelimit: $(B)/tests/unit/test-ratelimit.o $(B)/daemon/ratelimit.o \
		$(B)/daemon/audit.o $(B)/daemon/journal.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# who answers for a process: subuids, root's containers, nesting, gone
UNIT_TESTS += $(B)/tests/unit/test-principal
$(B)/tests/unit/test-principal: $(B)/tests/unit/test-principal.o $(B)/shared/principal.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# warnings about peers: per uid, in all, root's, the line counting the rest
UNIT_TESTS += $(B)/tests/unit/test-peerlog
$(B)/tests/unit/test-peerlog: $(B)/tests/unit/test-peerlog.o $(B)/daemon/peerlog.o \
		$(B)/daemon/ratelimit.o $(B)/daemon/audit.o $(B)/daemon/journal.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# daemon/journal.c and the audit queue: the native format, a journal that
# reads nothing (no call waits, a bounded backlog, the rest counted), shutdown
UNIT_TESTS += $(B)/tests/unit/test-journal
$(B)/tests/unit/test-journal: $(B)/tests/unit/test-journal.o $(B)/daemon/audit.o \
		$(B)/daemon/journal.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# shared/fs-probe.c: a file's filesystem type, and why there is none
UNIT_TESTS += $(B)/tests/unit/test-fs-probe
$(B)/tests/unit/test-fs-probe: $(B)/tests/unit/test-fs-probe.o $(B)/shared/fs-probe.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# daemon/fs-params.c: the parameter kinds, and (the script) the table
# against the kernel tree's parameter specs
UNIT_TESTS += $(B)/tests/unit/test-fs-params tests/unit/test-fs-params.sh
$(B)/tests/unit/test-fs-params: $(B)/tests/unit/test-fs-params.o $(B)/daemon/fs-params.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
