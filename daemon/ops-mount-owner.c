/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Whose an existing mount is (see ops-mount-owner.h). */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/mount.h>

#include "executor-rights.h"
#include "ops-fuse.h"
#include "ops-internal.h"
#include "ops-mount-owner.h"
#include "util.h"

int ops_mount_check_callers(int fd, uint64_t id, const char *what, MntLog *log)
{
	_cleanup_free_ struct statmount *sm = NULL;
	_cleanup_close_ int userns = -EBADF;
	const char *type, *where;
	struct stat st;
	uid_t uid;
	gid_t gid;
	int k;

	if (!rights_caller(&uid, &gid))
		return 0;
	k = mnt_statmount(0, id,
			  STATMOUNT_MNT_BASIC | STATMOUNT_FS_TYPE | STATMOUNT_MNT_OPTS |
				  STATMOUNT_MNT_POINT,
			  &sm);
	if (k >= 0 && !(sm->mask & STATMOUNT_FS_TYPE))
		k = -ENODATA;
	if (k < 0) {
		mnt_log_fail(log, what);
		return k;
	}
	type = sm->str + sm->fs_type;
	where = sm->mask & STATMOUNT_MNT_POINT ? sm->str + sm->mnt_point : "?";
	/* FUSE's root answers only its user: its superblock says whose it is,
	 * without asking a server that may be dead or the caller's. */
	if (ops_fuse_fstype(type))
		return ops_fuse_check_owner(sm->mask & STATMOUNT_MNT_OPTS ? sm->str + sm->mnt_opts
									 : "",
					    NULL) == 0
			       ? 0
			       : ops_refuse(log, what,
					    "mountd: the FUSE mount on %s is not one made for uid %u",
					    where, (unsigned)uid);
	if (fstat(fd, &st) < 0) {
		k = negative_errno();
		mnt_log_fail(log, what);
		return k;
	}
	if (st.st_uid == uid)
		return 0;
	if (sm->mnt_attr & MOUNT_ATTR_IDMAP) {
		userns = rights_callers_userns();
		if (userns >= 0)
			return 0;
	}
	return ops_refuse(log, what,
			  "mountd: the %s mount on %s is not the caller's (its root is uid %u's)",
			  type, where, (unsigned)st.st_uid);
}

int ops_mount_check_below(uint64_t id, const char *what, MntLog *log)
{
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n = 0;
	uid_t uid;
	gid_t gid;
	int k;

	if (!rights_caller(&uid, &gid))
		return 0;
	k = mnt_listmount(0, id, &ids, &n);
	for (size_t i = 0; k >= 0 && i < n; i++) {
		_cleanup_close_ int fd = mnt_open_by_id(ids[i]);

		if (fd < 0) {
			mnt_log_fail(log, what);
			return fd == -ENOENT ? -EBUSY : fd;
		}
		k = ops_mount_check_callers(fd, ids[i], what, log);
	}
	if (k < 0)
		mnt_log_fail(log, what);
	return k;
}
