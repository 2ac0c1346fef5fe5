/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The caller's filesystem identity in a worker (see executor-rights.h). */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/nsfs.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "ops-internal.h"
#include "ops-table.h"
#include "subid.h"
#include "sys-userns.h"
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

/* Filesystems a non-root caller may mount over, by their superblock's type
 * name: those of ordinary files, as fusermount3's allow-list has them.  Not
 * procfs, sysfs, devtmpfs, devpts, cgroup, debugfs and the like, whose
 * files are the kernel's interfaces, which another's tools trust. */
static const char *const mount_point_fstypes[] = {
	"9p",	  "bcachefs", "btrfs", "ceph",	   "cifs",  "ecryptfs", "erofs",
	"exfat",  "ext2",     "ext3",  "ext4",	   "f2fs",  "fuse",	"fuseblk",
	"gfs2",	  "hfsplus",  "jffs2", "jfs",	   "msdos", "nfs",	"nfs4",
	"nilfs2", "ntfs3",    "ocfs2", "overlay",  "ramfs", "smb3",	"squashfs",
	"tmpfs",  "ubifs",    "vfat",  "virtiofs", "xfs",   "zfs",
};

static const char *file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	case S_IFIFO:
		return "a FIFO";
	case S_IFLNK:
		return "a symbolic link";
	default:
		return "of an unknown kind";
	}
}

/* 1 when st (of fd) is mountd's runtime directory, lies below it, or is an
 * entry of it: its socket, where root's next client would talk to whatever
 * was mounted there.  By inode, so that a bind of it anywhere counts. */
static int in_runtime_dir(int fd, const struct stat *st)
{
	_cleanup_close_ int run = -EBADF, cur = -EBADF;
	_cleanup_(closedirp) DIR *d = NULL;
	struct stat rst, cst = *st;
	struct dirent *de;

	run = worker_host_openat(WORKER_HOST_RUN, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (run == -ENOENT)
		return 0;
	if (run < 0)
		return run;
	if (fstat(run, &rst) < 0)
		return negative_errno();
	if (st->st_dev != rst.st_dev)
		return 0;
	if (S_ISDIR(st->st_mode)) {
		/* Up through ".." to the root, the kernel's way across mounts:
		 * 4096 levels are more than a path has. */
		cur = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (cur < 0)
			return negative_errno();
		for (unsigned i = 0; i < 4096; i++) {
			_cleanup_close_ int up = -EBADF;
			struct stat ust;

			if (stat_inode_same(&cst, &rst))
				return 1;
			up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (up < 0)
				return negative_errno();
			if (fstat(up, &ust) < 0)
				return negative_errno();
			if (stat_inode_same(&ust, &cst))
				return 0; /* the root */
			safe_close(cur);
			cur = TAKE_FD(up);
			cst = ust;
		}
		return -ELOOP;
	}
	/* A file is the runtime directory's if it is one of its entries (the
	 * directories below it are mountd's alone, closed to callers). */
	d = fdopendir(TAKE_FD(run));
	if (!d)
		return negative_errno();
	errno = 0;
	while ((de = readdir(d)))
		if (de->d_ino == st->st_ino)
			return 1;
	return errno > 0 ? -errno : 0;
}

static bool fstype_allowed(const char *fstype)
{
	for (size_t i = 0; i < ELEMENTSOF(mount_point_fstypes); i++)
		if (streq(fstype, mount_point_fstypes[i]))
			return true;
	return false;
}

/* Beneath the mount whose root is fd, the new mount's mount point is the
 * dentry that mount covers, its parent mount's: the filesystem type of that
 * one, into fstype. */
static int fstype_beneath(int fd, char *fstype, size_t size)
{
	_cleanup_free_ struct statmount *parent = NULL;
	struct statmount sm;
	uint64_t id;
	int k;

	k = mnt_unique_id(fd, &id);
	if (k >= 0)
		k = mnt_statmount_fixed(0, id, STATMOUNT_MNT_BASIC, &sm);
	if (k >= 0 && !(sm.mask & STATMOUNT_MNT_BASIC))
		k = -ENODATA;
	if (k >= 0)
		k = mnt_statmount(0, sm.mnt_parent_id, STATMOUNT_FS_TYPE, &parent);
	if (k >= 0 && !(parent->mask & STATMOUNT_FS_TYPE))
		k = -ENODATA;
	if (k < 0)
		return k;
	snprintf(fstype, size, "%s", parent->str + parent->fs_type);
	return 0;
}

/* What no non-root caller mounts over, in any namespace: a file that is
 * neither a directory nor a regular file, one on a filesystem not of
 * ordinary files, mountd's own runtime directory. */
static int check_mount_point_kind(int fd, const struct stat *st, bool beneath, const char *step,
				  MntLog *log)
{
	char fstype[OPS_FSTYPE_MAX + 1];
	int k;

	if (!S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode))
		return ops_refuse(log, step,
				  "mountd: a mount point is a directory or a regular file, "
				  "not %s",
				  file_kind(st->st_mode));
	k = mnt_fstype(fd, fstype, sizeof(fstype));
	if (k < 0) {
		mnt_log_fail(log, step);
		return k;
	}
	if (!fstype_allowed(fstype))
		return ops_refuse(log, step, "mountd: no mounts over files of %s for uid %u",
				  fstype, (unsigned)cur_fsuid);
	if (beneath) {
		k = fstype_beneath(fd, fstype, sizeof(fstype));
		if (k < 0) {
			mnt_log_fail(log, step);
			return k;
		}
		if (!fstype_allowed(fstype))
			return ops_refuse(log, step,
					  "mountd: no mounts beneath one on files of %s for uid %u",
					  fstype, (unsigned)cur_fsuid);
	}
	k = in_runtime_dir(fd, st);
	if (k < 0) {
		mnt_log_fail(log, step);
		return k;
	}
	if (k > 0)
		return ops_refuse(log, step, "mountd: no mounts over mountd's runtime directory");
	return 0;
}

int rights_check_mount_point(int fd, bool beneath, const char *step, MntLog *log)
{
	_cleanup_close_ int userns = -EBADF;
	char link[64];
	struct stat st;
	int k;

	if (cur_fsuid == 0)
		return 0;
	if (fstat(fd, &st) < 0) {
		mnt_log_fail(log, step);
		return negative_errno();
	}
	k = check_mount_point_kind(fd, &st, beneath, step, log);
	if (k < 0)
		return k;
	userns = rights_callers_userns();
	if (userns >= 0 || rights_check_owner(fd) == 0)
		return 0;
	/* As fusermount: one the caller may write to, but not a sticky
	 * directory of someone else's (/tmp itself). */
	if (st.st_mode & S_ISVTX)
		return ops_refuse(log, step, "mountd: not over a sticky directory of another's");
	snprintf(link, sizeof(link), "%sself/fd/%d",
		 worker_host_dir(WORKER_HOST_PROC) >= 0 ? "" : "/proc/", fd);
	if (faccessat(worker_host_dir(WORKER_HOST_PROC) >= 0 ? worker_host_dir(WORKER_HOST_PROC)
							     : AT_FDCWD,
		      link, W_OK, AT_EACCESS) < 0)
		return ops_refuse(log, step,
				  "mountd: the mount point is neither uid %u's nor writable by it",
				  (unsigned)cur_fsuid);
	return 0;
}

/* The caller's login name in mountd's own /etc/passwd (never the target
 * namespace's, which a container writes): *ret NULL when it has none. */
static int caller_name(uid_t uid, char **ret)
{
	_cleanup_fclose_ FILE *f = NULL;
	struct passwd pw, *found = NULL;
	char buf[4096];

	*ret = NULL;
	f = worker_host_fopen(WORKER_HOST_ROOT, "etc/passwd");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	/* The first entry with the uid names it, as getpwuid() would. */
	while (fgetpwent_r(f, &pw, buf, sizeof(buf), &found) == 0)
		if (pw.pw_uid == uid) {
			*ret = strdup(pw.pw_name);
			return *ret ? 0 : -ENOMEM;
		}
	return ferror(f) ? -EIO : 0;
}

/* The caller's ranges in mountd's own /etc/subuid or /etc/subgid; none
 * when the file is missing. */
static int caller_subids(const char *file, const char *name, IdRange **ret, size_t *ret_n)
{
	_cleanup_fclose_ FILE *f = NULL;

	*ret = NULL;
	*ret_n = 0;
	f = worker_host_fopen(WORKER_HOST_ROOT, file);
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	return subid_read(f, name, cur_fsuid, ret, ret_n);
}

/* Whether every id the map text can put on disk (its namespace's own ids)
 * is own or in the caller's subordinate ranges of file. */
static int check_map(const char *map, const char *what, uint32_t own, const char *file,
		     const char *name, MntLog *log)
{
	_cleanup_free_ IdRange *inner = NULL, *sub = NULL;
	size_t n_inner, n_sub;
	int k;

	k = idmap_inner_ranges(map, &inner, &n_inner);
	if (k >= 0)
		k = caller_subids(file, name, &sub, &n_sub);
	if (k < 0) {
		mnt_log_fail(log, "idmap");
		return k;
	}
	/* A map is written once: until then the namespace's owner could still
	 * write any, after mountd looked. */
	if (n_inner == 0)
		return ops_refuse(log, "idmap", "mountd: the user namespace has no %s map yet",
				  what);
	for (size_t i = 0; i < n_inner; i++)
		if (!id_range_covered(inner[i].start, inner[i].count, own, sub, n_sub))
			return ops_refuse(
				log, "idmap",
				"mountd: the idmapping writes %ss %" PRIu32 "-%" PRIu64
				" to disk: uid %u owns only %s %" PRIu32 " and its /%s ranges",
				what, inner[i].start, (uint64_t)inner[i].start + inner[i].count - 1,
				(unsigned)cur_fsuid, what, own, file);
	return 0;
}

int rights_check_idmap(int mount_fd, int userns_fd, MntLog *log)
{
	_cleanup_free_ char *uid_map = NULL, *gid_map = NULL, *name = NULL;
	uid_t fsuid = cur_fsuid, owner;
	int k;

	if (fsuid == 0)
		return 0;
	if (ioctl(userns_fd, NS_GET_OWNER_UID, &owner) < 0) {
		mnt_log_fail(log, "idmap");
		return negative_errno();
	}
	if (owner != fsuid)
		return ops_refuse(log, "idmap",
				  "mountd: the idmapping's user namespace is not uid %u's",
				  (unsigned)fsuid);
	if (rights_check_owner(mount_fd) < 0)
		return ops_refuse(log, "idmap", "mountd: the tree's root is not uid %u's",
				  (unsigned)fsuid);
	/* Writing through the mount stores, for an id the writer has, the id
	 * the namespace has for it: the left column of its maps.  Those must
	 * be ids the caller could own on disk itself. */
	k = userns_read_maps(userns_fd, &uid_map, &gid_map);
	if (k >= 0)
		k = caller_name(fsuid, &name);
	if (k < 0) {
		mnt_log_fail(log, "idmap");
		return k;
	}
	k = check_map(uid_map, "uid", fsuid, "etc/subuid", name, log);
	if (k < 0)
		return k;
	return check_map(gid_map, "gid", cur_fsgid, "etc/subgid", name, log);
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
