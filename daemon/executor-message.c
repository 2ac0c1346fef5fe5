/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The messages between the loop and a worker (see executor-message.h). */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "executor-message.h"
#include "scm-rights.h"
#include "util.h"

/* Texts up to this size travel in the datagram itself, larger ones in a
 * memfd: an AF_UNIX datagram must fit the socket's send buffer whole. */
#define EXEC_INLINE_MAX (60U * 1024)
#define EXEC_MAGIC	0x6d6e7464U /* "mntd" */

typedef struct MsgHeader {
	uint32_t magic;
	uint32_t flags;
	uint32_t size;	  /* of the inline text, NUL included */
	uint32_t written; /* an answer's: bytes of it the worker wrote itself */
} MsgHeader;

int exec_msg_send_written(int sock, const char *text, uint32_t flags, uint32_t written,
			  const int *fds, size_t n_fds, int send_flags)
{
	SCM_RIGHTS_BUFFER(EXEC_FDS_MAX + 1) control;
	_cleanup_close_ int memfd = -EBADF;
	size_t size = text ? strlen(text) + 1 : 0;
	MsgHeader h = {.magic = EXEC_MAGIC, .flags = flags, .written = written};
	struct iovec iov[2] = {{.iov_base = &h, .iov_len = sizeof(h)}};
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 1};
	int all[EXEC_FDS_MAX + 1];
	size_t n = n_fds;

	if (n_fds > EXEC_FDS_MAX)
		return -E2BIG;
	/* fds may be NULL with none: memcpy's arguments must not be (UBSan). */
	if (n_fds)
		memcpy(all, fds, sizeof(int) * n_fds);
	if (size > EXEC_INLINE_MAX) {
		memfd = memfd_create("mountd-exec", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		if (memfd < 0)
			return negative_errno();
		for (size_t done = 0; done < size;) {
			ssize_t k = write(memfd, text + done, size - done);

			if (k < 0)
				return negative_errno();
			done += (size_t)k;
		}
		/* The reader gets exactly what was written. */
		if (fcntl(memfd, F_ADD_SEALS,
			  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
			return negative_errno();
		all[n++] = memfd;
		h.flags |= EXEC_MSG_TEXT_IN_MEMFD;
	} else if (size > 0) {
		h.size = (uint32_t)size;
		iov[1] = (struct iovec){.iov_base = (void *)text, .iov_len = size};
		mh.msg_iovlen = 2;
	}
	if (n > 0)
		scm_rights_put(&mh, &control, all, n);
	return sendmsg(sock, &mh, MSG_NOSIGNAL | send_flags) < 0 ? negative_errno() : 0;
}

int exec_msg_send(int sock, const char *text, uint32_t flags, const int *fds, size_t n_fds,
		  int send_flags)
{
	return exec_msg_send_written(sock, text, flags, 0, fds, n_fds, send_flags);
}

static int read_memfd(int fd, char **ret)
{
	struct stat st;
	char *text;
	size_t done = 0;

	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (st.st_size <= 0 || (uint64_t)st.st_size > 64ULL * 1024 * 1024)
		return -EBADMSG;
	text = malloc((size_t)st.st_size);
	if (!text)
		return -ENOMEM;
	while (done < (size_t)st.st_size) {
		ssize_t k = pread(fd, text + done, (size_t)st.st_size - done, (off_t)done);

		if (k <= 0) {
			free(text);
			return k < 0 ? negative_errno() : -EBADMSG;
		}
		done += (size_t)k;
	}
	if (text[done - 1] != 0) {
		free(text);
		return -EBADMSG;
	}
	*ret = text;
	return 0;
}

int exec_msg_recv_written(int sock, int recv_flags, uint32_t *ret_flags, uint32_t *ret_written,
			  char **ret_text, int **ret_fds, size_t *ret_n_fds)
{
	SCM_RIGHTS_BUFFER(EXEC_FDS_MAX + 1) control;
	_cleanup_free_ char *buf = malloc(sizeof(MsgHeader) + EXEC_INLINE_MAX);
	struct iovec iov = {.iov_base = buf, .iov_len = sizeof(MsgHeader) + EXEC_INLINE_MAX};
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = &control,
		.msg_controllen = sizeof(control),
	};
	_cleanup_free_ int *fds = NULL;
	size_t n_fds = 0;
	MsgHeader h;
	ssize_t n;
	int r = 0;

	*ret_text = NULL;
	*ret_fds = NULL;
	*ret_n_fds = 0;
	if (!buf)
		return -ENOMEM;
	n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | recv_flags);
	if (n < 0)
		return negative_errno();
	if (n == 0)
		return -EPIPE;
	r = scm_rights_take(&mh, &fds, &n_fds);
	memcpy(&h, buf, MIN((size_t)n, sizeof(h)));
	if (r >= 0 &&
	    ((size_t)n < sizeof(h) || h.magic != EXEC_MAGIC ||
	     (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || (size_t)n != sizeof(h) + h.size ||
	     (h.size > 0 && buf[n - 1] != 0) || ((h.flags & EXEC_MSG_TEXT_IN_MEMFD) && n_fds == 0)))
		r = -EBADMSG;
	if (r >= 0 && (h.flags & EXEC_MSG_TEXT_IN_MEMFD)) {
		r = read_memfd(fds[n_fds - 1], ret_text);
		safe_close(fds[--n_fds]);
	} else if (r >= 0 && h.size > 0) {
		*ret_text = strdup(buf + sizeof(h));
		if (!*ret_text)
			r = -ENOMEM;
	}
	if (r < 0) {
		close_many(fds, n_fds);
		free(*ret_text);
		*ret_text = NULL;
		return r;
	}
	*ret_flags = h.flags;
	if (ret_written)
		*ret_written = h.written;
	*ret_fds = TAKE_PTR(fds);
	*ret_n_fds = n_fds;
	return 0;
}

int exec_msg_recv(int sock, int recv_flags, uint32_t *ret_flags, char **ret_text, int **ret_fds,
		  size_t *ret_n_fds)
{
	return exec_msg_recv_written(sock, recv_flags, ret_flags, NULL, ret_text, ret_fds,
				     ret_n_fds);
}
