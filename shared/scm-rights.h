/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * File descriptors beside a message (SCM_RIGHTS), put in and taken out the
 * same way by mountd's loop and workers, the helpers that make a caller's
 * superblocks, the varlink library and the client library.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "util.h"

/* A control buffer with room for n fds, aligned as a cmsghdr. */
#define SCM_RIGHTS_BUFFER(n)                             \
	union {                                          \
		struct cmsghdr h;                        \
		char buf[CMSG_SPACE(sizeof(int) * (n))]; \
	}

/* fds[0..n) (n > 0) as mh's one control message; buffer has room for them
 * (SCM_RIGHTS_BUFFER(n) or larger). */
static inline void scm_rights_put(struct msghdr *mh, void *buffer, const int *fds, size_t n)
{
	struct cmsghdr *c;

	memset(buffer, 0, CMSG_SPACE(sizeof(int) * n));
	mh->msg_control = buffer;
	mh->msg_controllen = CMSG_SPACE(sizeof(int) * n);
	c = CMSG_FIRSTHDR(mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * n);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
}

/* Every fd of the SCM_RIGHTS messages of a received mh, appended to
 * *fds (grown with realloc(), *n of them).  Each is taken or closed, none
 * left behind: once one cannot be taken (no memory), the rest are closed
 * too and -ENOMEM is returned.  Other control messages are the caller's. */
static inline int scm_rights_take(struct msghdr *mh, int **fds, size_t *n)
{
	int r = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		size_t k;
		int *got, *grown;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (k == 0)
			continue;
		got = (int *)(void *)CMSG_DATA(c);
		grown = r < 0 ? NULL : reallocarray(*fds, *n + k, sizeof(int));
		if (!grown) {
			close_many(got, k);
			r = -ENOMEM;
			continue;
		}
		*fds = grown;
		memcpy(*fds + *n, got, sizeof(int) * k);
		*n += k;
	}
	return r;
}
