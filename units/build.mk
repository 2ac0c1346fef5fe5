# units/build.mk — systemd units and D-Bus files of mountd, installed into the
# image; the socket is enabled there (mountd itself starts on demand).

.PHONY: install-units
install-units:
	install -D -m644 units/mountd.socket $(DESTDIR)/usr/lib/systemd/system/mountd.socket
	install -D -m644 units/mountd.service $(DESTDIR)/usr/lib/systemd/system/mountd.service
	install -D -m644 units/io.mountd1.conf $(DESTDIR)/usr/share/dbus-1/system.d/io.mountd1.conf
	install -D -m644 units/io.mountd1.service \
		$(DESTDIR)/usr/share/dbus-1/system-services/io.mountd1.service
	install -D -m644 units/io.mountd.policy \
		$(DESTDIR)/usr/share/polkit-1/actions/io.mountd.policy
	install -D -m644 units/mountd-policy $(DESTDIR)/etc/mountd/policy
	install -d $(DESTDIR)/etc/systemd/system/sockets.target.wants
	ln -sf /usr/lib/systemd/system/mountd.socket \
		$(DESTDIR)/etc/systemd/system/sockets.target.wants/mountd.socket
INSTALL_TARGETS += install-units

# A guest test client for the fds of io.mountd1 (busctl cannot send them).
$(B)/tests/guest/bus-fd-test: $(B)/tests/guest/bus-fd-test.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
GUEST_PROGS += $(B)/tests/guest/bus-fd-test

# A guest test client of io.mountd1's Watch (its signals are unicast: busctl
# and gdbus cannot show them).
$(B)/tests/guest/bus-watch-test: $(B)/tests/guest/bus-watch-test.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
GUEST_PROGS += $(B)/tests/guest/bus-watch-test
