# Benchmarks: built on the host, run in the guest by `make bench`.
# (client/build.mk is read after this file: name the library itself.)
$(B)/bench/mount-bench: $(B)/bench/mount-bench.o $(B)/bench/image-methods.o \
		$(B)/bench/verity-methods.o $(B)/libmountd-client.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
GUEST_PROGS += $(B)/bench/mount-bench

# Many clients at once: requests/s, mountd's RSS and fds (also the load
# generator of tests/guest/75-mountd-load.sh).
$(B)/bench/load-bench: $(B)/bench/load-bench.o $(B)/libmountd-client.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
GUEST_PROGS += $(B)/bench/load-bench

# A node's worth of containers: first touches of hundreds of namespaces.
$(B)/bench/ns-bench: $(B)/bench/ns-bench.o $(B)/libmountd-client.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
GUEST_PROGS += $(B)/bench/ns-bench

# Every mount's information: mountinfo vs statmount vs fsinfo() (no library).
$(B)/bench/walk-bench: $(B)/bench/walk-bench.o
	$(CC) $(CFLAGS) -o $@ $^
GUEST_PROGS += $(B)/bench/walk-bench

.PHONY: bench bench-walk
bench: kernel disk
	@scripts/guest-run bench/run "$(CURDIR)"
	@bench/plot "$(CURDIR)/$(B)/bench"

# walk-bench alone (its 30000-mount step takes minutes under TCG).
bench-walk: kernel disk
	@scripts/guest-run bench/run-walk "$(CURDIR)"

# mountd's List against mountinfo and statmount, and where its time goes.
$(B)/bench/list-bench: $(B)/bench/list-bench.o $(B)/libmountd-client.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
GUEST_PROGS += $(B)/bench/list-bench

.PHONY: bench-list
bench-list: kernel disk
	@scripts/guest-run bench/run-list "$(CURDIR)"

# One request against the syscalls it stands for, and the floor (issue 13).
$(B)/bench/req-bench: $(B)/bench/req-bench.o $(B)/libmountd-client.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
GUEST_PROGS += $(B)/bench/req-bench
