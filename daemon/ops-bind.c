/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Bind: clone a tree with open_tree(OPEN_TREE_CLONE) in the namespace the
 * source lives in (the kernel only clones mounts of the caller's own
 * namespace), apply attributes/idmapping to the detached copy, then place it
 * or return it.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ops-internal.h"
#include "sys-mnt-lock.h"
#include "executor-rights.h"
#include "util.h"
#include "executor-worker.h"

void ops_bind_request_done(OpsBindRequest *r)
{
	free(r->source_path);
	ops_placement_done(&r->place);
	*r = (OpsBindRequest){.source_fd = -EBADF, .userns_fd = -EBADF};
}

int ops_bind_validate(const OpsBindRequest *r, const char **ret_field)
{
	int k;

	if (!!r->source_path == (r->source_fd >= 0)) {
		*ret_field = r->source_path ? "sourceFd" : "sourcePath";
		return -EINVAL;
	}
	if (r->source_path) {
		k = ops_path_validate(r->source_path, false);
		if (k < 0) {
			*ret_field = "sourcePath";
			return k;
		}
	}
	k = ops_namespace_validate(&r->source_ns, "sourceNamespace", ret_field);
	if (k < 0)
		return k;
	k = ops_attributes_validate(&r->attr, false, ret_field);
	if (k < 0)
		return k;
	return ops_placement_validate(&r->place, ret_field);
}

/* 1 when the mount of fd (in this namespace) has mounts at or below fd's
 * path, from mountinfo's parent IDs: what a recursive clone would take
 * along. */
static int has_mounts_below(int fd)
{
	int proc = worker_host_dir(WORKER_HOST_PROC);
	_cleanup_fclose_ FILE *f = NULL;
	char link[64], path[PATH_MAX], line[PATH_MAX + 256];
	struct statx stx = {};
	size_t len;
	ssize_t n;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) < 0)
		return negative_errno();
	snprintf(link, sizeof(link), "%sself/fd/%d", proc >= 0 ? "" : "/proc/", fd);
	n = readlinkat(proc >= 0 ? proc : AT_FDCWD, link, path, sizeof(path) - 1);
	if (n < 0)
		return negative_errno();
	path[n] = 0;
	len = streq(path, "/") ? 0 : (size_t)n;
	f = worker_host_fopen(WORKER_HOST_PROC, "self/mountinfo");
	if (!f)
		return negative_errno();
	while (fgets(line, sizeof(line), f)) {
		unsigned long long parent;
		char mp[PATH_MAX];

		/* A mount point with "\ooo" escapes compares as written: it
		 * can only be below path if its unescaped prefix is. */
		if (sscanf(line, "%*u %llu %*s %*s %4095s", &parent, mp) != 2 ||
		    parent != stx.stx_mnt_id)
			continue;
		if (strncmp(mp, path, len) == 0 && (mp[len] == '/' || mp[len] == 0))
			return 1;
	}
	return 0;
}

struct clone_args {
	const OpsBindRequest *req;
};

static int clone_in_ns(int root_fd, const int *fds, void *userdata, MntLog *log, WorkerReply *reply)
{
	const OpsBindRequest *r = ((struct clone_args *)userdata)->req;
	_cleanup_close_ int src = -EBADF;
	unsigned flags = OPEN_TREE_CLONE | AT_EMPTY_PATH | (r->recursive ? AT_RECURSIVE : 0);
	int fd;

	if (r->source_path) {
		src = mnt_resolve_in_root(root_fd, r->source_path, MNT_CREATE_NONE, "source", log);
		if (src < 0)
			return src;
	}
	/* An idmapping is checked on the tree's root (ops_bind()): the
	 * mounts below it, anyone's, must not come along for a caller who is
	 * not root. */
	if (r->recursive && r->userns_fd >= 0 && rights_caller(&(uid_t){0}, &(gid_t){0})) {
		int k = has_mounts_below(src >= 0 ? src : fds[0]);

		if (k != 0) {
			mnt_log_fail(log, "idmap");
			return k < 0 ? k : -EPERM;
		}
	}
	fd = mnt_open_tree(src >= 0 ? src : fds[0], "", flags, log);
	if (fd < 0)
		return fd;
	reply->fds[reply->n_fds++] = fd;
	return 0;
}

int ops_bind(const OpsBindRequest *r, OpsMountResult *ret, MntLog *log)
{
	struct clone_args args = {.req = r};
	_cleanup_close_ int mnt_fd = -EBADF;
	struct mount_attr a;
	int k;

	*ret = (OpsMountResult){.mount_fd = -EBADF};
	k = ops_run_in(&r->source_ns, &r->source_fd, r->source_fd >= 0 ? 1 : 0, clone_in_ns, &args,
		       log, &mnt_fd);
	if (k < 0)
		return k;

	/* A detached tree may be changed from any namespace. */
	ops_attributes_to_mount_attr(&r->attr, &a);
	if (r->userns_fd >= 0) {
		k = rights_check_idmap(mnt_fd, r->userns_fd, log);
		if (k < 0)
			return k;
		a.attr_set |= MOUNT_ATTR_IDMAP;
		a.userns_fd = (uint64_t)r->userns_fd;
	}
	__u64 propagation = TAKE_GENERIC(a.propagation, __u64, 0);
	if (a.attr_set || a.attr_clr) {
		k = mnt_setattr(mnt_fd, "", AT_EMPTY_PATH | (r->recursive ? AT_RECURSIVE : 0), &a,
				log);
		if (k < 0)
			return k;
	}
	/* A clone of anyone's tree reaches a user only as the kernel's copy
	 * for a user namespace: its flags locked, and no mount below its top
	 * that can be unmounted to show what it covers (sys-mnt-lock.h). */
	if (rights_caller(&(uid_t){0}, &(gid_t){0})) {
		mnt_fd = mnt_lock_tree(TAKE_FD(mnt_fd), log);
		if (mnt_fd < 0)
			return mnt_fd;
	}
	/* After the copy, which would make a peer a slave. */
	if (propagation) {
		struct mount_attr p = {.propagation = propagation};

		k = mnt_setattr(mnt_fd, "", AT_EMPTY_PATH | (r->recursive ? AT_RECURSIVE : 0), &p,
				log);
		if (k < 0)
			return k;
	}
	return ops_finish_mount(TAKE_FD(mnt_fd), &r->place, ret, log);
}
