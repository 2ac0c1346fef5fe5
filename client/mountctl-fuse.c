/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountctl fuse: a FUSE program run so that its mount lands in the target
 * namespace.  libfuse runs fusermount3 for it, mountd's one
 * (client/fusermount3.c), which takes the namespace from the pidfd named
 * in MOUNTD_FUSE_PIDFD: inherited through the program, pinned here before
 * it starts, so a pid reused meanwhile cannot redirect the mount.  mountd
 * authorizes the mount into that namespace as any other.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "mountctl.h"
#include "util.h"

int cmd_fuse(Ctx *c, Args *a, int argc, char **argv)
{
	char number[16];
	int pidfd;

	if (c->ns_path) {
		err(c, "name the namespace by a process (--pid, --pidfd, --container), "
		       "not --ns");
		return EXIT_USAGE;
	}
	if (c->ns_pidfd >= 0)
		pidfd = c->ns_pidfd;
	else if (c->ns_pid > 0) {
		pidfd = pidfd_open(c->ns_pid, 0);
		if (pidfd < 0) {
			err(c, "pid %d: %m", c->ns_pid);
			return EXIT_FAILED;
		}
	} else {
		err(c, "which namespace? (--pid, --pidfd or --container); in your own, "
		       "run the program itself");
		return EXIT_USAGE;
	}
	/* The program and libfuse's fusermount3 after it inherit it. */
	if (fcntl(pidfd, F_SETFD, 0) < 0) {
		err(c, "pidfd: %m");
		return EXIT_FAILED;
	}
	snprintf(number, sizeof(number), "%d", pidfd);
	if (setenv("MOUNTD_FUSE_PIDFD", number, 1) < 0) {
		err(c, "setenv: %m");
		return EXIT_FAILED;
	}
	execvp(argv[0], argv);
	int k = errno;
	err(c, "%s: %m", argv[0]);
	/* As a shell says it: not found, or found and not run. */
	return k == ENOENT ? 127 : 126;
}
