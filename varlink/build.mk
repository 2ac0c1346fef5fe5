# varlink/build.mk — the varlink transport (server + JSON field dispatch),
# a library of its own: nothing in it knows mountd's interfaces.

VARLINK_OBJS := $(addprefix $(B)/varlink/,varlink.o varlink-connection.o varlink-call.o \
	varlink-dispatch.o json-dispatch.o) $(B)/shared/principal.o

# table-driven JSON parameter decoding
UNIT_TESTS += $(B)/varlink/tests/test-json-dispatch
$(B)/varlink/tests/test-json-dispatch: $(B)/varlink/json-dispatch.o

# server: framing, org.varlink.service, errors, fds, limits, drain
UNIT_TESTS += $(B)/varlink/tests/test-varlink
$(B)/varlink/tests/test-varlink: $(addprefix $(B)/varlink/tests/,test-varlink-service.o \
		test-varlink-client.o test-varlink-calls.o test-varlink-peers.o \
		test-varlink-limits.o) $(VARLINK_OBJS)
