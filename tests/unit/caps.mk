# daemon/caps.c: the capability sets mountd keeps, from a root with all of them.
$(B)/tests/unit/test-caps: $(B)/tests/unit/test-caps.o $(B)/daemon/caps.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
UNIT_TESTS += $(B)/tests/unit/test-caps
