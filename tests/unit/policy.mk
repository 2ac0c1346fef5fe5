# daemon/policy.c on its own.
$(B)/tests/unit/test-policy: $(B)/tests/unit/test-policy.o $(B)/daemon/policy.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
UNIT_TESTS += $(B)/tests/unit/test-policy
