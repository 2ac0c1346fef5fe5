# client/build.mk — libmountd-client, mountctl, man pages, bash completion.

# ---- libmountd-client: one source, also a static library for other programs
CLIENT_LIB := $(B)/libmountd-client.a
$(CLIENT_LIB): $(B)/client/libmountd-client.o
	@rm -f $@
	ar rcs $@ $^

# ---- mountctl ----------------------------------------------------------------
MOUNTCTL_OBJS := $(B)/client/mountctl.o $(B)/client/mountctl-options.o \
	$(B)/client/mountctl-output.o $(B)/client/mountctl-apply.o

$(B)/mountctl: $(MOUNTCTL_OBJS) $(CLIENT_LIB)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

BINARIES += $(CLIENT_LIB) $(B)/mountctl

.PHONY: install-client
install-client: $(B)/mountctl
	install -D -m755 $(B)/mountctl $(DESTDIR)/usr/bin/mountctl
	install -D -m644 client/libmountd-client.h $(DESTDIR)/usr/include/libmountd-client.h
	install -D -m644 $(CLIENT_LIB) $(DESTDIR)/usr/lib/libmountd-client.a
INSTALL_TARGETS += install-client
