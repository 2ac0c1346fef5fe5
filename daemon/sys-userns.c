/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A user namespace's id maps (see sys-userns.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/wait.h>

#include "executor-worker.h"
#include "sys-userns.h"
#include "util.h"

/* A map has at most 340 lines of three ids each. */
#define MAP_TEXT_MAX (340 * 34)

/* In the child: copy /proc/self/NAME to fd, then a NUL. */
static int send_map(const char *name, int fd)
{
	_cleanup_close_ int map = -EBADF;
	char buf[4096];
	ssize_t n;

	map = worker_host_openat(WORKER_HOST_PROC, name, O_RDONLY | O_CLOEXEC);
	if (map < 0)
		return map;
	while ((n = read(map, buf, sizeof(buf))) > 0)
		if (memchr(buf, 0, n) || write(fd, buf, n) != n)
			return -EIO;
	if (n < 0)
		return negative_errno();
	return write(fd, "", 1) == 1 ? 0 : -EIO;
}

static _Noreturn void child(int userns_fd, int fd)
{
	int k = 0;

	if (setns(userns_fd, CLONE_NEWUSER) < 0)
		k = negative_errno();
	if (k >= 0)
		k = send_map("self/uid_map", fd);
	if (k >= 0)
		k = send_map("self/gid_map", fd);
	_exit(k < 0 ? -k : 0);
}

int userns_read_maps(int userns_fd, char **ret_uid_map, char **ret_gid_map)
{
	_cleanup_close_ int rd = -EBADF, wr = -EBADF;
	_cleanup_free_ char *text = NULL;
	size_t len = 0, size = 2 * (MAP_TEXT_MAX + 1) + 1;
	int fds[2], status, k = 0;
	char *gid_map;
	pid_t pid;

	text = malloc(size);
	if (!text)
		return -ENOMEM;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return negative_errno();
	rd = fds[0];
	wr = fds[1];
	pid = fork();
	if (pid < 0)
		return negative_errno();
	if (pid == 0)
		child(userns_fd, wr);
	wr = safe_close(wr);
	for (;;) {
		ssize_t n = read(rd, text + len, size - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			k = negative_errno();
		else if (n == 0)
			break;
		else if ((len += (size_t)n) < size - 1)
			continue;
		else
			k = -EBADMSG; /* longer than any map */
		/* The child may be blocked writing: it must not outlive us. */
		(void)kill(pid, SIGKILL);
		break;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return negative_errno();
	if (k < 0)
		return k;
	if (!WIFEXITED(status))
		return -EIO;
	if (WEXITSTATUS(status) != 0)
		return -WEXITSTATUS(status);
	text[len] = 0;
	/* "UID_MAP\0GID_MAP\0" */
	gid_map = memchr(text, 0, len);
	if (!gid_map || (size_t)(++gid_map - text) >= len || text[len - 1] != 0)
		return -EBADMSG;
	*ret_gid_map = strdup(gid_map);
	if (!*ret_gid_map)
		return -ENOMEM;
	*ret_uid_map = TAKE_PTR(text);
	return 0;
}
