/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* FUSE for a caller other than root (see ops-fuse.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops-fuse.h"
#include "ops-internal.h"
#include "executor-rights.h"
#include "executor-worker.h"
#include "util.h"

#define FUSE_MOUNT_MAX_DEFAULT 1000

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

/* The FUSE mounts made for uid in the worker's namespace. */
static int count_mounts(uid_t uid, size_t *ret)
{
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n_ids = 0, n = 0;
	int k;

	k = mnt_listmount(0, LSMT_ROOT, &ids, &n_ids);
	if (k < 0)
		return k;
	for (size_t i = 0; i < n_ids; i++) {
		_cleanup_free_ struct statmount *sm = NULL;

		k = mnt_statmount(0, ids[i], STATMOUNT_FS_TYPE | STATMOUNT_MNT_OPTS, &sm);
		if (k == -ENOENT) /* gone meanwhile */
			continue;
		if (k < 0)
			return k;
		if ((sm->mask & STATMOUNT_FS_TYPE) && ops_fuse_fstype(sm->str + sm->fs_type) &&
		    (sm->mask & STATMOUNT_MNT_OPTS) &&
		    has_option(sm->str + sm->mnt_opts, "user_id", uid))
			n++;
	}
	*ret = n;
	return 0;
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

int ops_fuse_check_create(const MntParam *params, size_t n_params, MntLog *log)
{
	FuseConf conf;
	size_t n;
	uid_t uid;
	gid_t gid;
	int k;

	if (!rights_caller(&uid, &gid))
		return 0;
	/* Whoever the superblock names is whom FUSE lets in and whose
	 * requests the server sees as the mount's owner's. */
	if (!param_is_id(find_param(params, n_params, "user_id"), uid) ||
	    !param_is_id(find_param(params, n_params, "group_id"), gid))
		return ops_refuse(log, "fuse",
				  "mountd: a FUSE mount of uid %u names it as its user: "
				  "user_id=%u and group_id=%u",
				  (unsigned)uid, (unsigned)uid, (unsigned)gid);
	k = fuse_conf_read(&conf);
	if (k < 0) {
		mnt_log_fail(log, "fuse");
		return k;
	}
	if (find_param(params, n_params, "allow_other") && !conf.user_allow_other)
		return ops_refuse(log, "fuse",
				  "mountd: allow_other only where /etc/fuse.conf has "
				  "user_allow_other");
	if (conf.mount_max < 0)
		return 0;
	k = count_mounts(uid, &n);
	if (k < 0) {
		mnt_log_fail(log, "fuse");
		return k;
	}
	if (n >= (size_t)conf.mount_max)
		return ops_refuse(log, "fuse",
				  "mountd: uid %u has %zu FUSE mounts here; mount_max=%d "
				  "(/etc/fuse.conf)",
				  (unsigned)uid, n, conf.mount_max);
	return 0;
}

int ops_fuse_check_owner(const char *sb_opts, MntLog *log)
{
	uid_t uid;
	gid_t gid;

	if (!rights_caller(&uid, &gid) || has_option(sb_opts, "user_id", uid))
		return 0;
	return ops_refuse(log, "fsType", "mountd: this FUSE mount is not one made for uid %u",
			  (unsigned)uid);
}
