/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Who answers for a process (see principal.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "principal.h"
#include "util.h"

#ifndef PIDFD_GET_USER_NAMESPACE
#define PIDFD_GET_USER_NAMESPACE _IO(0xFF, 9)
#endif

/* Deeper than the kernel allows (32 levels): the walk ends. */
#define USERNS_DEPTH_MAX 40

uid_t principal_of_pidfd(int pidfd, uid_t uid)
{
	_cleanup_close_ int ns = -EBADF;
	uid_t principal = uid;
	struct stat own, st;

	if (uid == 0)
		return 0;
	if (pidfd < 0 || stat("/proc/self/ns/user", &own) < 0)
		return PRINCIPAL_UNKNOWN;
	ns = ioctl(pidfd, PIDFD_GET_USER_NAMESPACE, 0);
	if (ns < 0 || fstat(ns, &st) < 0)
		return PRINCIPAL_UNKNOWN;
	for (unsigned depth = 0; !stat_inode_same(&st, &own); depth++) {
		_cleanup_close_ int parent = -EBADF;
		uid_t owner;

		/* The owner as our namespace sees it. */
		if (depth >= USERNS_DEPTH_MAX || ioctl(ns, NS_GET_OWNER_UID, &owner) < 0)
			return PRINCIPAL_UNKNOWN;
		if (owner != 0)
			principal = owner; /* the outermost so far */
		/* EPERM at the initial namespace: ours was not on the way. */
		parent = ioctl(ns, NS_GET_PARENT);
		if (parent < 0 || fstat(parent, &st) < 0)
			return PRINCIPAL_UNKNOWN;
		safe_close(ns);
		ns = TAKE_FD(parent);
	}
	return principal;
}
