/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * File descriptors through io.mountd1 (busctl and gdbus cannot send or use
 * them):
 *   bus-fd-test create TARGET      Create a tmpfs without placement, attach
 *                                  the returned mount fd ("ah") at TARGET
 *   bus-fd-test bind SOURCE TARGET Bind with the source as an O_PATH fd
 *                                  ("sourceFd" h), placed at TARGET
 *   bus-fd-test trace TARGET       Create a tmpfs placed at TARGET with a pipe
 *                                  as "traceFd" h; print what came through it
 *   bus-fd-test image IMAGE TARGET Create from IMAGE (read-only, "image.fd" h)
 *                                  placed at TARGET; print the reply's fsType
 *                                  and verity, "FSTYPE ROOTHASH SIGNEDBY"
 * Exit status 0 on success; the error is printed otherwise.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/mount.h>
#include <systemd/sd-bus.h>

#include "util.h"

#define DEST "io.mountd1", "/io/mountd1", "io.mountd1.Manager"

static int fail(const char *what, int r, const sd_bus_error *e)
{
	fprintf(stderr, "%s: %s\n", what, e && e->message ? e->message : strerror(-r));
	return 1;
}

static int do_create(sd_bus *bus, const char *target)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	uint64_t id;
	int fd, r;

	r = sd_bus_call_method(bus, DEST, "Create", &e, &reply, "sa(ssv)a{sv}", "tmpfs", 1, "size",
			       "string", "s", "1M", 0);
	if (r < 0)
		return fail("Create", r, &e);
	r = sd_bus_message_read(reply, "t", &id);
	if (r >= 0)
		r = sd_bus_message_enter_container(reply, 'a', "h");
	if (r >= 0)
		r = sd_bus_message_read(reply, "h", &fd);
	if (r <= 0)
		return fail("reply", r ?: -EBADMSG, NULL);
	if (syscall(SYS_move_mount, fd, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return fail("move_mount", -errno, NULL);
	return 0;
}

static int do_bind(sd_bus *bus, const char *source, const char *target)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int fd, r;

	fd = open(source, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return fail(source, -errno, NULL);
	r = sd_bus_call_method(bus, DEST, "Bind", &e, &reply, "sa{sv}", "", 2, "sourceFd", "h", fd,
			       "placement", "a{sv}", 1, "path", "s", target);
	if (r < 0)
		return fail("Bind", r, &e);
	return 0;
}

static int do_trace(sd_bus *bus, const char *target)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	char buf[4096];
	int p[2], r;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC) < 0)
		return fail("pipe", -errno, NULL);
	r = sd_bus_call_method(bus, DEST, "Create", &e, NULL, "sa(ssv)a{sv}", "tmpfs", 0, 2,
			       "placement", "a{sv}", 1, "path", "s", target, "traceFd", "h", p[1]);
	close(p[1]);
	if (r < 0)
		return fail("Create", r, &e);
	/* EOF once mountd has dropped the message that carried the fd. */
	while ((n = read(p[0], buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	return 0;
}

static int do_image(sd_bus *bus, const char *image, const char *target)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *fstype, *loop, *hash, *signer;
	_cleanup_close_ int fd = -EBADF;
	uint64_t id;
	int r;

	fd = open(image, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(image, -errno, NULL);
	r = sd_bus_call_method(bus, DEST, "Create", &e, &reply, "sa(ssv)a{sv}", "", 0, 2, "image",
			       "a{sv}", 1, "fd", "h", fd, "placement", "a{sv}", 1, "path", "s",
			       target);
	if (r < 0)
		return fail("Create", r, &e);
	r = sd_bus_message_read(reply, "t", &id);
	if (r >= 0)
		r = sd_bus_message_skip(reply, "ah");
	if (r >= 0)
		r = sd_bus_message_read(reply, "ss", &fstype, &loop);
	if (r >= 0)
		r = sd_bus_message_skip(reply, "a(sss)a(st)");
	if (r >= 0)
		r = sd_bus_message_read(reply, "(ss)", &hash, &signer);
	if (r <= 0)
		return fail("reply", r ?: -EBADMSG, NULL);
	printf("%s %s %s\n", fstype, hash, signer);
	return 0;
}

int main(int argc, char **argv)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	int r;

	r = sd_bus_open_system(&bus);
	if (r < 0)
		return fail("system bus", r, NULL);
	if (argc == 3 && strcmp(argv[1], "create") == 0)
		return do_create(bus, argv[2]);
	if (argc == 4 && strcmp(argv[1], "bind") == 0)
		return do_bind(bus, argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "trace") == 0)
		return do_trace(bus, argv[2]);
	if (argc == 4 && strcmp(argv[1], "image") == 0)
		return do_image(bus, argv[2], argv[3]);
	fprintf(stderr, "usage: bus-fd-test create TARGET | bind SOURCE TARGET | trace TARGET | "
			"image IMAGE TARGET\n");
	return 2;
}
