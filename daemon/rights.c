/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The caller's filesystem identity in a worker (see rights.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <linux/nsfs.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "rights.h"
#include "util.h"

/* setfsuid() reports nothing; an invalid id makes it return the current
 * one without changing it. */
#define FSID_QUERY (-1)

/* The identity in force, as this file set it: only this file changes a
 * worker's fsuid, fsgid and groups, so the checks below need not ask the
 * kernel on every request, and a root caller's request makes no
 * identity syscall at all. */
static uid_t cur_fsuid;
static gid_t cur_fsgid;
static bool entered;

int rights_enter(const Rights *r)
{
	if (r->uid == 0)
		return 0;
	entered = true;
	if (setgroups(r->n_groups, r->groups) < 0) {
		int k = -errno;

		rights_leave();
		return k;
	}
	(void)setfsgid(r->gid);
	(void)setfsuid(r->uid);
	if ((uid_t)setfsuid(FSID_QUERY) != r->uid || (gid_t)setfsgid(FSID_QUERY) != r->gid) {
		rights_leave();
		return -EPERM;
	}
	cur_fsuid = r->uid;
	cur_fsgid = r->gid;
	return 0;
}

void rights_leave(void)
{
	if (!entered)
		return;
	(void)setfsuid(0);
	(void)setfsgid(0);
	(void)setgroups(0, NULL);
	cur_fsuid = 0;
	cur_fsgid = 0;
	entered = false;
}

int rights_check_owner(int fd)
{
	uid_t fsuid = cur_fsuid;
	struct stat st;

	if (fsuid == 0)
		return 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	return st.st_uid == fsuid ? 0 : -EPERM;
}

int rights_check_idmap(int mount_fd, int userns_fd)
{
	uid_t fsuid = cur_fsuid, owner;

	if (fsuid == 0)
		return 0;
	if (ioctl(userns_fd, NS_GET_OWNER_UID, &owner) < 0)
		return -errno;
	if (owner != fsuid)
		return -EPERM;
	return rights_check_owner(mount_fd);
}

int rights_check_device(const char *path, bool read_only, char **ret_canonical)
{
	_cleanup_close_ int fd = -EBADF;
	char proc[64], target[4096];
	struct stat st;
	ssize_t n;

	*ret_canonical = NULL;
	if (cur_fsuid == 0 || !path || path[0] != '/')
		return 0;
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		/* Where the caller cannot even look, the kernel must not
		 * look for it. */
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return 0;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (faccessat(AT_FDCWD, proc, R_OK | (read_only ? 0 : W_OK), AT_EACCESS) < 0)
		return -errno;
	n = readlink(proc, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = 0;
	*ret_canonical = strdup(target);
	return *ret_canonical ? 0 : -ENOMEM;
}

RightsSaved rights_suspend(void)
{
	RightsSaved s = {
		.fsuid = cur_fsuid,
		.fsgid = cur_fsgid,
	};

	s.active = s.fsuid != 0 || s.fsgid != 0;
	if (s.active) {
		(void)setfsuid(0);
		(void)setfsgid(0);
		cur_fsuid = 0;
		cur_fsgid = 0;
	}
	return s;
}

void rights_resume(const RightsSaved *s)
{
	if (!s->active)
		return;
	(void)setfsgid(s->fsgid);
	(void)setfsuid(s->fsuid);
	cur_fsuid = s->fsuid;
	cur_fsgid = s->fsgid;
}
