# tests/unit/build.mk — host unit test programs (C).  One block per test:
# append the program to UNIT_TESTS and give its link rule.

# table-driven JSON parameter decoding
UNIT_TESTS += $(B)/tests/unit/test-json-dispatch
$(B)/tests/unit/test-json-dispatch: $(B)/tests/unit/test-json-dispatch.o \
		$(B)/daemon/json-dispatch.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# varlink server: framing, org.varlink.service, errors, fds, limits, drain
UNIT_TESTS += $(B)/tests/unit/test-varlink
$(B)/tests/unit/test-varlink: $(B)/tests/unit/test-varlink.o $(B)/daemon/varlink.o \
		$(B)/daemon/json-dispatch.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# mountd: request validation, JSON → fsconfig parameters, worker fd passing,
# fs_context message draining (inside a private mount namespace it creates)
UNIT_TESTS += $(B)/tests/unit/test-mountd-ops
$(B)/tests/unit/test-mountd-ops: $(B)/tests/unit/test-mountd-ops.o \
		$(MOUNTD_OPS_OBJS) $(MOUNTD_AUTH_OBJS) $(DAEMON_LIB_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# the operation table against daemon/io.mountd.Mount.varlink, field by field
UNIT_TESTS += $(B)/tests/unit/test-ops-table
$(B)/tests/unit/test-ops-table: $(B)/tests/unit/test-ops-table.o $(MOUNTD_OPS_OBJS) \
		$(MOUNTD_AUTH_OBJS) $(DAEMON_LIB_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# the executor: worker reuse, per-uid limits, deadlines, crashes, owners, memfd
UNIT_TESTS += $(B)/tests/unit/test-executor
$(B)/tests/unit/test-executor: $(B)/tests/unit/test-executor.o $(B)/daemon/executor.o \
		$(MOUNTD_OPS_OBJS) $(DAEMON_LIB_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
