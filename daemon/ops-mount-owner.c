/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Whose an existing mount is (see ops-mount-owner.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/mount.h>

#include "executor-rights.h"
#include "executor-worker.h"
#include "ops-fuse.h"
#include "ops-internal.h"
#include "ops-mount-owner.h"
#include "util.h"

/* Below mountd's own /run/mountd, which no user can write to: one
 * directory per principal, one empty file "NSID-ID" per mount made for it
 * (its namespace's id, so that one gone, with its namespace or not, is
 * told by statmount() there). */
#define RECORDS_DIR "mounts"

/* The records of mounts that are gone go, so that they stay as many as
 * the mounts the principal holds. */
static int records_prune(int dir)
{
	_cleanup_(closedirp) DIR *d = NULL;
	struct dirent *de;
	int fd = fcntl(dir, F_DUPFD_CLOEXEC, 3);

	if (fd < 0)
		return negative_errno();
	d = fdopendir(fd);
	if (!d) {
		safe_close(fd);
		return negative_errno();
	}
	while ((errno = 0, de = readdir(d))) {
		struct statmount sm = {};
		uint64_t ns, id;
		int n = -1;

		if (sscanf(de->d_name, "%" SCNu64 "-%" SCNu64 "%n", &ns, &id, &n) != 2 || n < 0 ||
		    de->d_name[n])
			continue;
		if (mnt_statmount_fixed(ns, id, STATMOUNT_MNT_BASIC, &sm) == -ENOENT &&
		    unlinkat(dir, de->d_name, 0) < 0 && errno != ENOENT)
			return negative_errno();
	}
	return errno ? negative_errno() : 0;
}

int ops_mount_record(uid_t principal, uint64_t id)
{
	_cleanup_close_ int dir = -EBADF, fd = -EBADF;
	_cleanup_free_ uint64_t *below = NULL;
	struct statmount sm = {};
	char name[48];
	size_t n = 0;
	int k;

	/* Only a mount placed in the worker's namespace: a detached one the
	 * caller places itself, where it needs no mountd to change it. */
	k = mnt_statmount_fixed(0, id, STATMOUNT_MNT_NS_ID, &sm);
	if (k == -ENOENT || (k >= 0 && !(sm.mask & STATMOUNT_MNT_NS_ID)))
		return 0;
	if (k < 0)
		return k;
	dir = worker_run_dir(RECORDS_DIR, principal, true);
	if (dir == -ENOENT)
		return 0; /* mountd itself, which no caller's change reaches */
	if (dir < 0)
		return dir;
	k = records_prune(dir);
	if (k < 0)
		return k;
	/* The mounts that came along below it (a recursive Bind's, masks of
	 * root's among them) are the caller's copies too: the kernel locked
	 * them to the tree (sys-mnt-lock.h), and they go only with it. */
	k = mnt_listmount(0, id, &below, &n);
	if (k < 0)
		return k;
	for (size_t i = 0; i <= n; i++) {
		snprintf(name, sizeof(name), "%" PRIu64 "-%" PRIu64, (uint64_t)sm.mnt_ns_id,
			 i < n ? below[i] : id);
		fd = openat(dir, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return negative_errno();
		fd = safe_close(fd);
	}
	return 0;
}

/* Whether mountd made mount id of the worker's namespace for the caller. */
static bool recorded(uint64_t id)
{
	_cleanup_close_ int dir = -EBADF;
	struct statmount sm = {};
	RightsSaved saved;
	uid_t principal;
	char name[48];
	bool found;

	if (!rights_principal(&principal) ||
	    mnt_statmount_fixed(0, id, STATMOUNT_MNT_NS_ID, &sm) < 0 ||
	    !(sm.mask & STATMOUNT_MNT_NS_ID))
		return false;
	/* mountd's records, read with its own rights. */
	saved = rights_suspend();
	dir = worker_run_dir(RECORDS_DIR, principal, false);
	snprintf(name, sizeof(name), "%" PRIu64 "-%" PRIu64, (uint64_t)sm.mnt_ns_id, id);
	found = dir >= 0 && faccessat(dir, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
	rights_resume(&saved);
	return found;
}

int ops_mount_check_callers(int fd, uint64_t id, const char *what, MntLog *log)
{
	_cleanup_free_ struct statmount *sm = NULL;
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
	/* What mountd made for the caller is the caller's, whatever its root
	 * shows: an overlay whose upper layer is root's directory, an
	 * idmapped bind. */
	if (recorded(id))
		return 0;
	where = sm->mask & STATMOUNT_MNT_POINT ? sm->str + sm->mnt_point : "?";
	/* FUSE's root answers only its user: its superblock says whose it is,
	 * without asking a server that may be dead or the caller's. */
	if (ops_fuse_fstype(type))
		return ops_fuse_check_owner(sm->mask & STATMOUNT_MNT_OPTS ? sm->str + sm->mnt_opts
									  : "",
					    NULL) == 0
			       ? 0
			       : ops_refuse(
					 log, what,
					 "mountd: the FUSE mount on %s is not one made for uid %u",
					 where, (unsigned)uid);
	if (fstat(fd, &st) < 0) {
		k = negative_errno();
		mnt_log_fail(log, what);
		return k;
	}
	if (st.st_uid == uid)
		return 0;
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
