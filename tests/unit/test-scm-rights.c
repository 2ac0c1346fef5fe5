// SPDX-License-Identifier: LGPL-2.1-or-later
/* shared/scm-rights.h: fds put beside a message arrive as the same files,
 * messages append to one array, a truncated control message keeps what
 * the kernel gave and nothing else, and no fd is left open that the test
 * did not take. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scm-rights.h"
#include "tap.h"
#include "util.h"

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own */
}

static bool same_file(int a, int b)
{
	struct stat x, y;

	return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev &&
	       x.st_ino == y.st_ino;
}

static int send_fds(int sock, const int *fds, size_t n)
{
	SCM_RIGHTS_BUFFER(8) control;
	char byte = 'x';
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (n > 0)
		scm_rights_put(&mh, &control, fds, n);
	return sendmsg(sock, &mh, 0) == 1 ? 0 : -errno;
}

/* One message, with room for max fds beside it; the flags it came with. */
static int recv_fds(int sock, size_t max, int **fds, size_t *n, int *ret_flags)
{
	SCM_RIGHTS_BUFFER(8) control;
	char byte;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = &control,
			    .msg_controllen = CMSG_SPACE(sizeof(int) * max)};

	if (recvmsg(sock, &mh, MSG_CMSG_CLOEXEC) != 1)
		return -errno;
	*ret_flags = mh.msg_flags;
	return scm_rights_take(&mh, fds, n);
}

int main(void)
{
	int sv[2], files[3], before, flags = 0;
	_cleanup_free_ int *got = NULL;
	size_t n = 0;
	bool b;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0) {
		perror("socketpair");
		return 1;
	}
	files[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	files[1] = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	files[2] = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	before = open_fds();

	b = send_fds(sv[0], files, 3) == 0 && recv_fds(sv[1], 8, &got, &n, &flags) == 0;
	ok(b && n == 3, "three fds in one message, taken (%zu)", n);
	ok(n == 3 && same_file(got[0], files[0]) && same_file(got[1], files[1]) &&
		   same_file(got[2], files[2]),
	   "  each is the file that was sent, in order");
	ok(open_fds() == before + 3, "  and they are the only fds that came (%d more)",
	   open_fds() - before);

	b = send_fds(sv[0], files + 1, 1) == 0 && recv_fds(sv[1], 8, &got, &n, &flags) == 0;
	ok(b && n == 4 && same_file(got[3], files[1]),
	   "a second message appends to the same array (%zu)", n);
	b = send_fds(sv[0], NULL, 0) == 0 && recv_fds(sv[1], 8, &got, &n, &flags) == 0;
	ok(b && n == 4, "a message without fds adds none (%zu)", n);
	close_many(got, n);
	n = 0;
	ok(open_fds() == before, "all closed again: nothing else was open (%d more)",
	   open_fds() - before);

	/* CMSG_SPACE() of two ints is room for two, no more (8-byte aligned). */
	b = send_fds(sv[0], files, 3) == 0 && recv_fds(sv[1], 2, &got, &n, &flags) == 0;
	ok(b && (flags & MSG_CTRUNC) && n == 2 && same_file(got[0], files[0]) &&
		   same_file(got[1], files[1]),
	   "room for two of three: MSG_CTRUNC, the first two taken (%zu)", n);
	close_many(got, n);
	n = 0;
	ok(open_fds() == before, "  the one that did not fit is not open here (%d more)",
	   open_fds() - before);

	close_many(files, 3);
	close_many(sv, 2);
	return tap_done();
}
