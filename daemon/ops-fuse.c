/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* FUSE for a caller other than root (see ops-fuse.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ops-fuse.h"
#include "ops-internal.h"
#include "executor-rights.h"
#include "executor-worker.h"
#include "util.h"

#define FUSE_MOUNT_MAX_DEFAULT 1000
#define FUSE_CTL_SUPER_MAGIC   0x65735543
#define LEDGER_DIR	       "fuse"

bool ops_fuse_fstype(const char *fstype)
{
	size_t n = fstype ? strcspn(fstype, ".") : 0;

	return (n == 4 && strncmp(fstype, "fuse", 4) == 0) ||
	       (n == 7 && strncmp(fstype, "fuseblk", 7) == 0);
}

typedef struct FuseConf {
	bool user_allow_other;
	int mount_max; /* -1: no limit */
} FuseConf;

/* The host's /etc/fuse.conf, read as fusermount3 reads it, from mountd's
 * root: the target namespace's /etc may be a user's.  Missing: the
 * defaults. */
static int fuse_conf_read(FuseConf *ret)
{
	_cleanup_fclose_ FILE *f = NULL;
	char line[256];

	*ret = (FuseConf){.mount_max = FUSE_MOUNT_MAX_DEFAULT};
	f = worker_host_fopen(WORKER_HOST_ROOT, "etc/fuse.conf");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		char *s = line + strspn(line, " \t");
		size_t n;
		int max;

		s[strcspn(s, "#\n")] = 0;
		n = strlen(s);
		while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			s[--n] = 0;
		if (streq(s, "user_allow_other"))
			ret->user_allow_other = true;
		else if (sscanf(s, "mount_max = %i", &max) == 1)
			ret->mount_max = max;
	}
	return ferror(f) ? -EIO : 0;
}

/* Whether the comma-separated options opts have key=value. */
static bool has_option(const char *opts, const char *key, unsigned long value)
{
	char want[64];
	int n = snprintf(want, sizeof(want), "%s=%lu", key, value);

	return n > 0 && (size_t)n < sizeof(want) && word_in(opts, want, (size_t)n, ",");
}

/* Superblocks by their device number as the kernel writes it ("%u" of a
 * dev_t: fusectl's directory names). */
typedef struct DevSet {
	unsigned *devs;
	size_t n;
} DevSet;

static void dev_set_done(DevSet *s)
{
	s->devs = mfree(s->devs);
	s->n = 0;
}

static bool dev_set_has(const DevSet *s, unsigned dev)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->devs[i] == dev)
			return true;
	return false;
}

static int dev_set_add(DevSet *s, unsigned dev)
{
	unsigned *d;

	if (dev_set_has(s, dev))
		return 0;
	d = reallocarray(s->devs, s->n + 1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	s->devs = d;
	s->devs[s->n++] = dev;
	return 0;
}

static unsigned kernel_dev(unsigned maj, unsigned min)
{
	return (maj << 20) | min;
}

/* The FUSE superblocks mounted in the worker's namespace that name uid as
 * their user, added to *set. */
static int namespace_superblocks(uid_t uid, DevSet *set)
{
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n_ids = 0;
	int k;

	k = mnt_listmount(0, LSMT_ROOT, &ids, &n_ids);
	if (k < 0)
		return k;
	for (size_t i = 0; i < n_ids; i++) {
		_cleanup_free_ struct statmount *sm = NULL;

		k = mnt_statmount(0, ids[i],
				  STATMOUNT_SB_BASIC | STATMOUNT_FS_TYPE | STATMOUNT_MNT_OPTS, &sm);
		if (k == -ENOENT) /* gone meanwhile */
			continue;
		if (k < 0)
			return k;
		if ((sm->mask & STATMOUNT_FS_TYPE) && ops_fuse_fstype(sm->str + sm->fs_type) &&
		    (sm->mask & STATMOUNT_MNT_OPTS) && (sm->mask & STATMOUNT_SB_BASIC) &&
		    has_option(sm->str + sm->mnt_opts, "user_id", uid)) {
			k = dev_set_add(set, kernel_dev(sm->sb_dev_major, sm->sb_dev_minor));
			if (k < 0)
				return k;
		}
	}
	return 0;
}

/* The connection of FUSE superblock dev in mountd's fusectl, whose
 * directory lives exactly as long as the superblock: its inode number
 * tells it from a later one with the same (reused) device number.
 * -ENOENT when there is none; -ENODEV when mountd has no fusectl mounted
 * (then no record can be told from a stale one). */
static int connection_ino(unsigned dev, ino_t *ret)
{
	_cleanup_close_ int fd = -EBADF;
	char path[64];
	struct statfs sfs;
	struct stat st;

	fd = worker_host_openat(WORKER_HOST_ROOT, "sys/fs/fuse/connections",
				O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fd == -ENOENT ? -ENODEV : fd;
	if (fstatfs(fd, &sfs) < 0)
		return negative_errno();
	if (sfs.f_type != FUSE_CTL_SUPER_MAGIC)
		return -ENODEV;
	snprintf(path, sizeof(path), "%u", dev);
	if (fstatat(fd, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return negative_errno();
	*ret = st.st_ino;
	return 0;
}

/* Locks the user's records and adds the superblocks they stand for that
 * are still alive to *set, dropping the rest. */
static int ledger_open(uid_t principal, FuseLedger *l, DevSet *set)
{
	_cleanup_(closedirp) DIR *d = NULL;
	struct dirent *de;
	int fd, k;

	l->dir = worker_run_dir(LEDGER_DIR, principal, true);
	if (l->dir < 0)
		return l->dir;
	if (flock(l->dir, LOCK_EX) < 0)
		return negative_errno();
	fd = dup(l->dir);
	if (fd < 0)
		return negative_errno();
	d = fdopendir(fd);
	if (!d) {
		k = negative_errno();
		safe_close(fd);
		return k;
	}
	while ((errno = 0, de = readdir(d))) {
		unsigned long long ino;
		unsigned dev;
		ino_t now;
		int n = -1;

		if (de->d_name[0] == '.')
			continue;
		if (sscanf(de->d_name, "%u:%llu%n", &dev, &ino, &n) == 2 && n > 0 &&
		    !de->d_name[n] && connection_ino(dev, &now) >= 0 && now == ino) {
			k = dev_set_add(set, dev);
			if (k < 0)
				return k;
		} else
			(void)unlinkat(l->dir, de->d_name, 0);
	}
	return errno ? negative_errno() : 0;
}

static int ledger_add(FuseLedger *l, int mnt_fd, MntLog *log)
{
	_cleanup_close_ int fd = -EBADF;
	char name[64];
	struct statx stx = {};
	unsigned dev;
	ino_t ino;
	int k;

	if (l->dir < 0)
		return 0;
	/* Asked for nothing, statx() gives the device without asking the
	 * filesystem, or FUSE its permission check (mountd is not let in). */
	if (statx(mnt_fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, 0, &stx) < 0) {
		mnt_log_fail(log, "fuse");
		return negative_errno();
	}
	dev = kernel_dev(stx.stx_dev_major, stx.stx_dev_minor);
	k = connection_ino(dev, &ino);
	if (k == -ENODEV)
		return 0; /* no fusectl: the namespace's mounts are all we count */
	if (k < 0) {
		mnt_log_fail(log, "fuse");
		return k;
	}
	snprintf(name, sizeof(name), "%u:%llu", dev, (unsigned long long)ino);
	fd = openat(l->dir, name, O_CREAT | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		mnt_log_fail(log, "fuse");
		return negative_errno();
	}
	return 0;
}

int ops_fuse_ledger_add(FuseLedger *l, int mnt_fd, MntLog *log)
{
	RightsSaved saved;
	int k;

	if (l->dir < 0)
		return 0;
	saved = rights_suspend();
	k = ledger_add(l, mnt_fd, log);
	rights_resume(&saved);
	return k;
}

void ops_fuse_ledger_close(FuseLedger *l)
{
	/* Closing the directory drops the lock. */
	l->dir = safe_close(l->dir);
}

static const MntParam *find_param(const MntParam *params, size_t n, const char *key)
{
	const MntParam *found = NULL;

	/* The last one counts, as the kernel takes them in order. */
	for (size_t i = 0; i < n; i++)
		if (streq(params[i].key, key))
			found = &params[i];
	return found;
}

/* key's value is id, given as a string, the way the kernel reads it. */
static bool param_is_id(const MntParam *p, unsigned long id)
{
	char *end;
	unsigned long v;

	if (!p || p->type != MNT_PARAM_STRING || !p->value || !*p->value)
		return false;
	errno = 0;
	v = strtoul(p->value, &end, 0);
	return errno == 0 && !*end && v == id;
}

int ops_fuse_check_create(const MntParam *params, size_t n_params, bool root_made, FuseLedger *ret,
			  MntLog *log)
{
	_cleanup_(dev_set_done) DevSet held = {};
	RightsSaved saved;
	FuseConf conf;
	uid_t uid, principal;
	gid_t gid;
	int k;

	*ret = FUSE_LEDGER_NULL;
	if (!rights_caller(&uid, &gid))
		return 0;
	/* Whoever the superblock names is whom FUSE lets in and whose
	 * requests the server sees as the mount's owner's.  One the caller
	 * makes itself takes only ids its user namespace maps, all the
	 * caller's: the kernel checks them. */
	if (root_made && (!param_is_id(find_param(params, n_params, "user_id"), uid) ||
			  !param_is_id(find_param(params, n_params, "group_id"), gid)))
		return ops_refuse(log, "fuse",
				  "mountd: a FUSE mount of uid %u names it as its user: "
				  "user_id=%u and group_id=%u",
				  (unsigned)uid, (unsigned)uid, (unsigned)gid);
	k = fuse_conf_read(&conf);
	if (k < 0) {
		mnt_log_fail(log, "fuse");
		return k;
	}
	/* One the caller makes serves only its user namespace's processes
	 * with allow_other (the kernel's rule): no one else to protect. */
	if (root_made && find_param(params, n_params, "allow_other") && !conf.user_allow_other)
		return ops_refuse(log, "fuse",
				  "mountd: allow_other only where /etc/fuse.conf has "
				  "user_allow_other");
	if (conf.mount_max < 0)
		return 0;
	/* The superblocks mountd made for the user and the kernel still has,
	 * wherever they are (detached fds too), and those mounted here. */
	if (!rights_principal(&principal))
		principal = uid;
	/* The records are mountd's, under its /run/mountd. */
	saved = rights_suspend();
	k = ledger_open(principal, ret, &held);
	rights_resume(&saved);
	if (k == -ENOENT && ret->dir < 0)
		k = 0; /* not in a worker: no records */
	if (k >= 0)
		k = namespace_superblocks(uid, &held);
	if (k < 0) {
		ops_fuse_ledger_close(ret);
		mnt_log_fail(log, "fuse");
		return k;
	}
	if (held.n >= (size_t)conf.mount_max) {
		ops_fuse_ledger_close(ret);
		return ops_refuse(log, "fuse",
				  "mountd: uid %u holds %zu FUSE superblocks; mount_max=%d "
				  "(/etc/fuse.conf)",
				  (unsigned)uid, held.n, conf.mount_max);
	}
	return 0;
}

int ops_fuse_check_owner(const char *sb_opts, MntLog *log)
{
	uid_t uid;
	gid_t gid;

	_cleanup_close_ int userns = -EBADF;

	if (!rights_caller(&uid, &gid) || has_option(sb_opts, "user_id", uid))
		return 0;
	/* In its own container every FUSE mount is one it could unmount
	 * itself, and one it made there names its user by the container's
	 * ids. */
	userns = rights_callers_userns();
	if (userns >= 0)
		return 0;
	return ops_refuse(log, "fsType", "mountd: this FUSE mount is not one made for uid %u",
			  (unsigned)uid);
}
