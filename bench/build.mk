# Benchmarks: built on the host, run in the guest by `make bench`.
# (client/build.mk is read after this file: name the library itself.)
$(B)/bench/mount-bench: $(B)/bench/mount-bench.o $(B)/libmountd-client.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
GUEST_PROGS += $(B)/bench/mount-bench

.PHONY: bench
bench: kernel disk
	@scripts/guest-run bench/run "$(CURDIR)"
