/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Moving and unmounting mounts inside one namespace.  Both paths are
 * resolved in a worker inside the namespace, relative to its root.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "ops-leftovers.h"
#include "ops-internal.h"
#include "executor-rights.h"
#include "ops-fuse.h"
#include "ops-mount-owner.h"
#include "util.h"

void ops_move_request_done(OpsMoveRequest *r)
{
	free(r->from);
	free(r->to);
	*r = (OpsMoveRequest){};
}

int ops_move_validate(const OpsMoveRequest *r, const char **ret_field)
{
	int k = ops_path_validate(r->from, false);

	if (k < 0) {
		*ret_field = "from";
		return k;
	}
	k = ops_path_validate(r->to, false);
	if (k < 0) {
		*ret_field = "to";
		return k;
	}
	if (r->create >= _MNT_CREATE_MAX || (r->beneath && r->create != MNT_CREATE_NONE)) {
		*ret_field = "create";
		return -EINVAL;
	}
	return ops_namespace_validate(&r->ns, "namespace", ret_field);
}

static int move_in_ns(int root_fd, const int *fds, void *userdata, MntLog *log, WorkerReply *reply)
{
	const OpsMoveRequest *r = userdata;
	_cleanup_close_ int from = -EBADF, to = -EBADF;
	unsigned flags = MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH;

	MntCreated created;
	Leftover record;
	uint64_t id;
	uid_t uid;
	gid_t gid;
	int k;

	from = mnt_resolve_in_root(root_fd, r->from, MNT_CREATE_NONE, "from", log);
	if (from < 0)
		return from;
	/* The mount moved is the one checked: move_mount() is given this fd.
	 * The mounts below it travel along, each still over the directory it
	 * covered, so moving them reveals nothing: only the top is judged. */
	if (rights_caller(&uid, &gid)) {
		k = mnt_unique_id_at(from, "", &id);
		if (k < 0) {
			/* No mount's root: as move_mount() answers it. */
			mnt_log_fail(log, k == -EINVAL ? "move_mount" : "from");
			return k;
		}
		k = ops_mount_check_callers(from, id, "from", log);
		if (k < 0)
			return k;
	}
	to = leftover_resolve_create(root_fd, r->ns.root, r->to, r->create, "to", log, &created,
				     &record);
	if (to < 0)
		return to;
	if (r->beneath)
		flags |= MOVE_MOUNT_BENEATH;
	k = rights_check_mount_point(to, r->beneath, "to", log);
	if (k >= 0)
		k = mnt_move_mount(from, "", to, "", flags, log);
	if (k < 0) {
		to = safe_close(to);
		mnt_created_undo(&created);
	} else
		mnt_created_done(&created);
	leftover_done(&record);
	return k;
}

int ops_move(const OpsMoveRequest *r, MntLog *log)
{
	return ops_run_in(&r->ns, NULL, 0, move_in_ns, (void *)r, log, NULL);
}

void ops_unmount_request_done(OpsUnmountRequest *r)
{
	free(r->path);
	free(r->fstype);
	*r = (OpsUnmountRequest){};
}

int ops_unmount_validate(const OpsUnmountRequest *r, const char **ret_field)
{
	if (r->fstype && !ops_fstype_valid(r->fstype)) {
		*ret_field = "fsType";
		return -EINVAL;
	}
	return ops_path_in_namespace_validate(r->path, &r->ns, ret_field);
}

/* What an Unmount may take away, judged on what was resolved (fd, held to
 * the mount's id) and then unmounted exactly (mnt_umount_in_root()): a
 * type the request names (its filesystem never asked: a dead FUSE server
 * must not stop its unmount), and for a caller other than root the mount
 * and, detached, every mount below it, which go along. */
static int unmount_check(int fd, uint64_t id, void *userdata, MntLog *log)
{
	const OpsUnmountRequest *r = userdata;
	_cleanup_free_ struct statmount *sm = NULL;
	const char *type;
	size_t n;
	int k;

	if (r->fstype) {
		n = strcspn(r->fstype, ".");
		k = mnt_statmount(0, id, STATMOUNT_FS_TYPE | STATMOUNT_MNT_OPTS, &sm);
		if (k >= 0 && !(sm->mask & STATMOUNT_FS_TYPE))
			k = -ENODATA;
		if (k < 0) {
			mnt_log_fail(log, "fsType");
			return k;
		}
		type = sm->str + sm->fs_type;
		/* FUSE is one family to fusermount3 -u: fuse, fuseblk, any subtype. */
		if (!(ops_fuse_fstype(r->fstype) && ops_fuse_fstype(type)) &&
		    (strlen(type) != n || strncmp(type, r->fstype, n) != 0))
			return ops_refuse(log, "fsType", "mountd: the mount is %s, not %.*s", type,
					  (int)n, r->fstype);
		if (ops_fuse_fstype(type)) {
			k = ops_fuse_check_owner(
				sm->mask & STATMOUNT_MNT_OPTS ? sm->str + sm->mnt_opts : "", log);
			if (k < 0)
				return k;
		}
	}
	k = ops_mount_check_callers(fd, id, "owner", log);
	if (k >= 0 && r->detach)
		k = ops_mount_check_below(id, "owner", log);
	return k;
}

static int unmount_in_ns(int root_fd, const int *fds, void *userdata, MntLog *log,
			 WorkerReply *reply)
{
	const OpsUnmountRequest *r = userdata;
	uid_t uid;
	gid_t gid;
	bool caller = rights_caller(&uid, &gid);

	/* Root's unmount is by name, as root would do it itself (a busy
	 * mount is EBUSY); any other caller's is of exactly the mount it was
	 * checked on. */
	return mnt_umount_in_root(root_fd, r->path,
				  (r->detach ? MNT_DETACH : 0) | (r->force ? MNT_FORCE : 0), caller,
				  caller || r->fstype ? unmount_check : NULL, (void *)r, log);
}

int ops_unmount(const OpsUnmountRequest *r, MntLog *log)
{
	return ops_run_in(&r->ns, NULL, 0, unmount_in_ns, (void *)r, log, NULL);
}
