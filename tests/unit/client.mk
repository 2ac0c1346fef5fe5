# tests/unit/client.mk — host tests of libmountd-client and mountctl.

# the varlink client library against a scripted peer
UNIT_TESTS += $(B)/tests/unit/test-libmountd-client
$(B)/tests/unit/test-libmountd-client: $(B)/tests/unit/test-libmountd-client.o \
		$(B)/libmountd-client.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# mountctl's output, option splitting and apply parser on canned replies
UNIT_TESTS += tests/unit/test-mountctl-golden.sh

# every command and option of mountctl's tables in --help and mountctl(1)
UNIT_TESTS += tests/unit/test-mountctl-help.sh

# mountctl against a real mountd, both inside a private mount namespace
UNIT_TESTS += tests/unit/test-mountctl-live.sh

# --container's lookup: crun/runc state and a program on PATH, real processes
UNIT_TESTS += $(B)/tests/unit/test-container
$(B)/tests/unit/test-container: $(B)/tests/unit/test-container.o $(B)/libmountd-client.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# mountd-oci-hook against a real mountd and a runtime's pre-pivot_root
# namespace, both inside a private mount namespace
UNIT_TESTS += tests/unit/test-oci-hook.sh

# mountd_client_list()'s reader against json-c's reading of the same replies
UNIT_TESTS += $(B)/tests/unit/test-libmountd-list
$(B)/tests/unit/test-libmountd-list: $(B)/tests/unit/test-libmountd-list.o \
		$(B)/libmountd-client.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
