/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The caller's filesystem identity in a worker (see executor-rights.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/nsfs.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "ops-table.h"
#include "executor-rights.h"
#include "util.h"
#include "executor-worker.h"

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
static bool signed_only;
static uid_t principal;

int rights_enter(const Rights *r)
{
	if (r->uid == 0)
		return 0;
	entered = true;
	signed_only = r->images_signed_only;
	principal = r->principal;
	if (setgroups(r->n_groups, r->groups) < 0) {
		int k = negative_errno();

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
	signed_only = false;
	principal = 0;
	entered = false;
}

bool rights_images_signed_only(void)
{
	return signed_only;
}

bool rights_principal(uid_t *ret)
{
	*ret = principal;
	return entered;
}

bool rights_caller(uid_t *ret_uid, gid_t *ret_gid)
{
	*ret_uid = cur_fsuid;
	*ret_gid = cur_fsgid;
	return cur_fsuid != 0;
}

int rights_check_owner(int fd)
{
	uid_t fsuid = cur_fsuid;
	struct stat st;

	if (fsuid == 0)
		return 0;
	if (fstat(fd, &st) < 0)
		return negative_errno();
	return st.st_uid == fsuid ? 0 : -EPERM;
}

int rights_callers_userns(void)
{
	_cleanup_close_ int mntns = -EBADF;
	uid_t owner;
	int userns;

	if (cur_fsuid == 0)
		return -EPERM;
	mntns = worker_host_openat(WORKER_HOST_PROC, "self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (mntns < 0)
		return mntns;
	userns = ioctl(mntns, NS_GET_USERNS);
	if (userns < 0)
		return negative_errno();
	if (ioctl(userns, NS_GET_OWNER_UID, &owner) < 0 || owner != cur_fsuid) {
		safe_close(userns);
		return -EPERM;
	}
	return userns;
}

int rights_check_mount_point(int fd)
{
	_cleanup_close_ int userns = -EBADF;
	char link[64];
	struct stat st;

	if (cur_fsuid == 0)
		return 0;
	userns = rights_callers_userns();
	if (userns >= 0 || rights_check_owner(fd) == 0)
		return 0;
	/* As fusermount: one the caller may write to, but not a sticky
	 * directory of someone else's (/tmp itself). */
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (st.st_mode & S_ISVTX)
		return -EPERM;
	snprintf(link, sizeof(link), "%sself/fd/%d",
		 worker_host_dir(WORKER_HOST_PROC) >= 0 ? "" : "/proc/", fd);
	return faccessat(worker_host_dir(WORKER_HOST_PROC) >= 0 ? worker_host_dir(WORKER_HOST_PROC)
								: AT_FDCWD,
			 link, W_OK, AT_EACCESS) < 0
		       ? -EPERM
		       : 0;
}

int rights_check_idmap(int mount_fd, int userns_fd)
{
	uid_t fsuid = cur_fsuid, owner;

	if (fsuid == 0)
		return 0;
	if (ioctl(userns_fd, NS_GET_OWNER_UID, &owner) < 0)
		return negative_errno();
	if (owner != fsuid)
		return -EPERM;
	return rights_check_owner(mount_fd);
}

int rights_open_device_fd(const char *path, bool read_only)
{
	_cleanup_close_ int fd = -EBADF;
	struct stat st;

	if (!path || path[0] != '/')
		return -EINVAL;
	fd = open(path, (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return negative_errno();
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	return TAKE_FD(fd);
}

int rights_open_device(const char *path, bool read_only, char **ret_name)
{
	_cleanup_close_ int fd = -EBADF;
	struct stat st;

	*ret_name = NULL;
	if (cur_fsuid == 0)
		return 0;
	fd = rights_open_device_fd(path, read_only);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return negative_errno();
	return worker_host_devname(st.st_rdev, ret_name);
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

int ops_restrict_unprivileged(const OpsMethod *m, void *req, const char **ret_reason)
{
	const uint64_t kept = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	OpsTargets t = {};

	*ret_reason = NULL;
	if (m->targets)
		m->targets(req, &t);
	if (!t.attr)
		return 0;
	if (t.new_mount) {
		t.attr->set |= kept;
		t.attr->clear &= ~kept;
		return 0;
	}
	if (t.attr->clear & kept) {
		*ret_reason = "only root may clear nosuid or nodev";
		return -EPERM;
	}
	return 0;
}
