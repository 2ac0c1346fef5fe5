# tests/fuzz/build.mk — libFuzzer harnesses with ASan + UBSan (clang), one
# per input mountd or mountctl parses; tests/fuzz/README.md says what each
# feeds and what the runs found.  Their objects are built apart from the
# gcc ones, under $(FO), from the same sources.

FUZZ_CC := clang
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Wno-unused-parameter -Werror $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
	$(PKG_CFLAGS)
FUZZ_LDFLAGS := $(FUZZ_SAN) -fsanitize=fuzzer
FO := $(B)/fuzz/obj
FUZZERS :=
# `make fuzz FUZZ_SECONDS=N`: each harness for N seconds; `make check` runs
# them for CHECK_FUZZ_SECONDS each, counted like the host tests.
FUZZ_SECONDS ?= 60
CHECK_FUZZ_SECONDS := 15

$(FO)/%.o: %.c | $(USER_UAPI_STAMP)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) -Itests/fuzz $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

# The objects test-ops-table links, instrumented.
FUZZ_OPS_OBJS := $(patsubst $(B)/%,$(FO)/%,$(MOUNTD_OPS_OBJS) $(MOUNTD_AUTH_OBJS) $(VARLINK_OBJS))

# daemon/authorize-policy.c: the policy file
FUZZERS += $(B)/fuzz/fuzz-policy
$(B)/fuzz/fuzz-policy: $(FO)/tests/fuzz/fuzz-policy.o $(FO)/daemon/authorize-policy.o
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(LDLIBS)

# daemon/ops-table-decode.c: every method's JSON parameters
FUZZERS += $(B)/fuzz/fuzz-ops-json
$(B)/fuzz/fuzz-ops-json: $(FO)/tests/fuzz/fuzz-ops-json.o $(FUZZ_OPS_OBJS)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(LDLIBS)

# client/mountctl-options.c: -o lists in each mode
FUZZERS += $(B)/fuzz/fuzz-mountctl-options
$(B)/fuzz/fuzz-mountctl-options: $(FO)/tests/fuzz/fuzz-mountctl-options.o \
		$(FO)/client/mountctl-options.o
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(LDLIBS)

# client/mountctl-apply.c: apply's line protocol and the calls it makes
FUZZERS += $(B)/fuzz/fuzz-mountctl-apply
$(B)/fuzz/fuzz-mountctl-apply: $(FO)/tests/fuzz/fuzz-mountctl-apply.o \
		$(FO)/client/mountctl-apply.o $(FO)/client/mountctl-options.o
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(LDLIBS)

# daemon/ops-info.c: fsinfo() answers, from a replacement of the system call
FUZZERS += $(B)/fuzz/fuzz-fsinfo
$(B)/fuzz/fuzz-fsinfo: $(FO)/tests/fuzz/fuzz-fsinfo.o $(FUZZ_OPS_OBJS)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -Wl,--wrap=mnt_fsinfo -o $@ $^ $(LDLIBS)

# varlink/: the transport, a real server fed in chunks of every size
FUZZERS += $(B)/fuzz/fuzz-varlink
$(B)/fuzz/fuzz-varlink: $(FO)/tests/fuzz/fuzz-varlink.o \
		$(patsubst $(B)/%,$(FO)/%,$(VARLINK_OBJS))
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(LDLIBS)

# daemon/front-bus-args.c: every method's D-Bus arguments, as real messages
FUZZERS += $(B)/fuzz/fuzz-bus-args
$(B)/fuzz/fuzz-bus-args: $(FO)/tests/fuzz/fuzz-bus-args.o $(FO)/daemon/front-bus-args.o \
		$(FUZZ_OPS_OBJS)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(LDLIBS)
