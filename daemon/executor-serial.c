/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One caller's changes, one at a time (see executor-serial.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "executor-serial.h"
#include "executor-worker.h"
#include "util.h"

/* Below mountd's own /run/mountd, which no user can write to. */
#define SERIAL_DIR "changes"

int serial_lock(uid_t principal)
{
	int run = worker_host_dir(WORKER_HOST_RUN);
	_cleanup_close_ int dir = -EBADF, fd = -EBADF;
	char name[32];

	if (run < 0)
		return -EBADF;
	if (mkdirat(run, SERIAL_DIR, 0700) < 0 && errno != EEXIST)
		return negative_errno();
	dir = openat(run, SERIAL_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return negative_errno();
	snprintf(name, sizeof(name), "%u", (unsigned)principal);
	fd = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return negative_errno();
	/* flock(), not fcntl() locks: it is the open file's, so a helper
	 * forked meanwhile that closes its copy does not drop it. */
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR)
			return negative_errno();
	return TAKE_FD(fd);
}

void serial_unlock(int fd)
{
	if (fd < 0)
		return;
	/* Explicitly: a copy of the fd left in a child would keep it held. */
	(void)flock(fd, LOCK_UN);
	safe_close(fd);
}
