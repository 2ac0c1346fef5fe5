/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Changing existing mounts: per-mount attributes with mount_setattr(), and
 * the superblock with fspick() + fsconfig() + FSCONFIG_CMD_RECONFIGURE.
 * mount_setattr() only acts on mounts of the caller's namespace, and the
 * paths are the target's: both run through worker_in_namespace() in the target
 * namespace, which is the executor worker's own (executor-worker.h).  fspick() hands
 * its context fd back, so that the parameters and the kernel's messages are
 * handled as for a new filesystem.
 */

#include <errno.h>
#include <fcntl.h>

#include "executor-caller-sb.h"
#include "ops-internal.h"
#include "ops-mount-owner.h"
#include "executor-rights.h"
#include "util.h"

void ops_setattr_request_done(OpsSetattrRequest *r)
{
	free(r->path);
	*r = (OpsSetattrRequest){.userns_fd = -EBADF};
}

int ops_setattr_validate(const OpsSetattrRequest *r, const char **ret_field)
{
	int k = ops_path_in_namespace_validate(r->path, &r->ns, ret_field);

	if (k < 0)
		return k;
	k = ops_attributes_validate(&r->attr, true, ret_field);
	if (k < 0)
		return k;
	if (!r->attr.set && !r->attr.clear && !r->attr.propagation && r->userns_fd < 0) {
		/* Nothing to do is almost certainly a client bug. */
		*ret_field = "attributes";
		return -EINVAL;
	}
	return 0;
}

static int setattr_in_ns(int root_fd, const int *fds, void *userdata, MntLog *log,
			 WorkerReply *reply)
{
	const OpsSetattrRequest *r = userdata;
	_cleanup_close_ int fd = -EBADF;
	struct mount_attr a;
	uint64_t id;
	uid_t uid;
	gid_t gid;
	int k = 0;

	fd = mnt_resolve_in_root(root_fd, r->path, MNT_CREATE_NONE, "path", log);
	if (fd < 0)
		return fd;
	if (r->userns_fd >= 0) {
		k = rights_check_idmap(fd, fds[0], log);
		if (k < 0)
			return k;
	}
	/* Each mount that changes is judged by its id, the mounts below too
	 * when recursive, before anything changes (mount_setattr() then
	 * changes all or none), and the call acts on the fd whose mount was
	 * judged, never on a name looked up again. */
	if (rights_caller(&uid, &gid)) {
		k = mnt_unique_id_at(fd, "", &id);
		if (k < 0) {
			/* No mount's root: as mount_setattr() answers it. */
			mnt_log_fail(log, k == -EINVAL ? "mount_setattr" : "owner");
			return k;
		}
		if (r->userns_fd < 0)
			k = ops_mount_check_callers(fd, id, "owner", log);
		if (k >= 0 && r->recursive)
			k = ops_mount_check_below(id, "owner", log);
		if (k < 0)
			return k;
	}
	ops_attributes_to_mount_attr(&r->attr, &a);
	if (r->userns_fd >= 0) {
		a.attr_set |= MOUNT_ATTR_IDMAP;
		a.userns_fd = (uint64_t)fds[0];
	}
	return mnt_setattr(fd, "", AT_EMPTY_PATH | (r->recursive ? AT_RECURSIVE : 0), &a, log);
}

int ops_setattr(const OpsSetattrRequest *r, MntLog *log)
{
	return ops_run_in(&r->ns, &r->userns_fd, r->userns_fd >= 0 ? 1 : 0, setattr_in_ns,
			  (void *)r, log, NULL);
}

void ops_reconfigure_request_done(OpsReconfigureRequest *r)
{
	free(r->path);
	for (size_t i = 0; i < r->n_params; i++)
		mnt_param_done(&r->params[i]);
	free(r->params);
	*r = (OpsReconfigureRequest){};
}

int ops_reconfigure_validate(const OpsReconfigureRequest *r, const char **ret_field)
{
	int k = ops_path_in_namespace_validate(r->path, &r->ns, ret_field);

	if (k < 0)
		return k;
	if (r->n_params == 0) {
		*ret_field = "parameters";
		return -EINVAL;
	}
	return ops_params_validate(r->params, r->n_params, ret_field);
}

struct fspick_args {
	const OpsReconfigureRequest *r;
	char fstype[OPS_FSTYPE_MAX + 1]; /* out, for a non-root caller */
};

static int fspick_in_ns(int root_fd, const int *fds, void *userdata, MntLog *log,
			WorkerReply *reply)
{
	struct fspick_args *a = userdata;
	const OpsReconfigureRequest *r = a->r;
	_cleanup_close_ int fd = -EBADF;
	uid_t uid;
	gid_t gid;
	int fs_fd, k;

	fd = mnt_resolve_in_root(root_fd, r->path, MNT_CREATE_NONE, "path", log);
	if (fd < 0)
		return fd;
	if (rights_check_owner(fd) < 0) {
		mnt_log_fail(log, "owner");
		return -EPERM;
	}
	/* A non-root caller's parameters go by the filesystem's table. */
	if (rights_caller(&uid, &gid)) {
		k = mnt_fstype(fd, a->fstype, sizeof(a->fstype));
		if (k < 0) {
			mnt_log_fail(log, "fstype");
			return k;
		}
	}
	fs_fd = mnt_fspick(fd, "", FSPICK_EMPTY_PATH | FSPICK_NO_AUTOMOUNT, log);
	if (fs_fd < 0)
		return fs_fd;
	reply->fds[reply->n_fds++] = fs_fd;
	return 0;
}

int ops_reconfigure(const OpsReconfigureRequest *r, MntLog *log)
{
	_cleanup_close_ int fs_fd = -EBADF;
	struct fspick_args args = {.r = r};
	int k;

	k = ops_run_in(&r->ns, NULL, 0, fspick_in_ns, &args, log, &fs_fd);
	if (k < 0)
		return k;
	(void)mnt_log_drain(log, fs_fd, "fspick");

	/* Nothing reaches the superblock before CMD_RECONFIGURE: a failing
	 * parameter leaves it as it was. */
	for (size_t i = 0; i < r->n_params; i++) {
		_cleanup_close_ int param_fd = -EBADF;
		char number[OPS_FD_NUMBER_MAX];
		MntParam p;

		k = ops_param_for_caller(args.fstype, &r->params[i], true, &p, &param_fd, number,
					 log);
		if (k < 0)
			return k;
		k = mnt_fsconfig_param(fs_fd, &p, log);
		if (k < 0)
			return k;
	}
	return caller_sb_reconfigure(fs_fd, log);
}
