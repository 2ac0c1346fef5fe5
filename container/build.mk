# container/build.mk — mountd as an OCI container image: `make oci` builds
# the bundle (container/oci-build, cached under $MOUNTD_CACHE/oci like the
# kernel and the guest image); `make install` puts it, its launcher and the
# unit that runs it into the guest.  docs/CONTAINER.md says what it is
# given and why.

.PHONY: oci install-oci
oci: $(B)/mountd
	@container/oci-build $(B)/mountd

# The bundle goes to /usr/lib/mountd/oci (config.json, rootfs/); the
# launcher adapts it to the host it runs on.  The rootfs is a portable
# service image too, found by its name in /usr/lib/portables.
install-oci: $(B)/mountd
	@bundle=$$(container/oci-build $(B)/mountd) && \
		install -d $(DESTDIR)/usr/lib/mountd && \
		rm -rf $(DESTDIR)/usr/lib/mountd/oci && \
		cp -a $$bundle $(DESTDIR)/usr/lib/mountd/oci
	install -D -m755 container/mountd-container $(DESTDIR)/usr/libexec/mountd-container
	install -D -m644 container/mountd-container.service \
		$(DESTDIR)/usr/lib/systemd/system/mountd-container.service
	install -D -m644 container/mountd-container.socket \
		$(DESTDIR)/usr/lib/systemd/system/mountd-container.socket
	install -D -m644 container/80-mountd-container.preset \
		$(DESTDIR)/usr/lib/systemd/system-preset/80-mountd-container.preset
	install -d -m755 $(DESTDIR)/etc/mountd
	install -d $(DESTDIR)/usr/lib/portables
	ln -sfn /usr/lib/mountd/oci/rootfs $(DESTDIR)/usr/lib/portables/mountd
INSTALL_TARGETS += install-oci
