/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What all operations share: naming a target mount namespace, checking
 * fsconfig() parameter lists and paths before any system call, and turning
 * OpsAttributes into struct mount_attr.
 */

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/nsfs.h>

#include "ops-fs-params.h"
#include "ops-leftovers.h"
#include "ops-internal.h"
#include "sys-process.h"
#include "executor-rights.h"
#include "util.h"

#ifndef PIDFD_NONBLOCK
#define PIDFD_NONBLOCK O_NONBLOCK
#endif

/* Field names built at run time ("parameters[3].key") live here until the
 * next validation: one request is validated at a time, in mountd's loop or
 * in a worker, each a single-threaded process. */
static char field_buf[96];

const char *ops_field(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(field_buf, sizeof(field_buf), fmt, ap);
	va_end(ap);
	return field_buf;
}

bool ops_namespace_is_set(const OpsNamespace *ns)
{
	return ns->pid > 0 || ns->pidfd >= 0 || ns->mntns_fd >= 0;
}

int ops_namespace_validate(const OpsNamespace *ns, const char *prefix, const char **ret_field)
{
	int n = (ns->pid > 0) + (ns->pidfd >= 0) + (ns->mntns_fd >= 0);

	if (ns->pid < 0) {
		*ret_field = ops_field("%s.pid", prefix);
		return -EINVAL;
	}
	if (n > 1) {
		/* Two names for one namespace could disagree; refuse. */
		*ret_field = ops_field("%s", prefix);
		return -EINVAL;
	}
	if (ns->root && ops_path_validate(ns->root, false) < 0) {
		*ret_field = ops_field("%s.root", prefix);
		return -EINVAL;
	}
	return 0;
}

int ops_path_in_namespace_validate(const char *path, const OpsNamespace *ns, const char **ret_field)
{
	int k = ops_path_validate(path, false);

	if (k < 0) {
		*ret_field = "path";
		return k;
	}
	return ops_namespace_validate(ns, "namespace", ret_field);
}

int ops_namespace_open(const OpsNamespace *ns, MntLog *log)
{
	int fd, type;

	if (ns->mntns_fd >= 0) {
		type = ioctl(ns->mntns_fd, NS_GET_NSTYPE);
		if (type < 0 || type != CLONE_NEWNS) {
			mnt_log_fail(log, "namespace");
			return type < 0 ? negative_errno() : -EINVAL;
		}
		fd = fcntl(ns->mntns_fd, F_DUPFD_CLOEXEC, 3);
	} else if (ns->pidfd >= 0)
		fd = fcntl(ns->pidfd, F_DUPFD_CLOEXEC, 3);
	else if (ns->pid > 0) {
		char p[64];

		/* /proc/<pid>/ns/mnt rather than pidfd_open(): setns() on a
		 * pidfd of a process in other namespaces too would need
		 * privilege over all of them with CLONE_NEWNS alone. */
		snprintf(p, sizeof(p), "/proc/%d/ns/mnt", (int)ns->pid);
		fd = open(p, O_RDONLY | O_CLOEXEC);
	} else
		fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		mnt_log_fail(log, "namespace");
		return negative_errno();
	}
	return fd;
}

int ops_namespace_id(const OpsNamespace *ns, uint64_t *ret, MntLog *log)
{
	_cleanup_close_ int fd = -EBADF;
	int r;

	if (ns->pidfd >= 0) {
		/* A pidfd is not an nsfs fd: go through the process. */
		fd = process_mntns(0, ns->pidfd);
		if (fd < 0) {
			mnt_log_fail(log, "namespace");
			return fd;
		}
	} else
		fd = ops_namespace_open(ns, log);
	if (fd < 0)
		return fd;
	r = mnt_ns_id(fd, ret);
	if (r < 0)
		mnt_log_fail(log, "namespace");
	return r;
}

int ops_key_validate(const char *key)
{
	size_t n;

	if (!key)
		return -EINVAL;
	n = strlen(key);
	if (n == 0)
		return -EINVAL;
	if (n > MNT_KEY_MAX)
		return -ERANGE;
	/* Legacy filesystems receive the parameters joined as "k=v,k=v";
	 * a key with either character would smuggle in another option. */
	if (strpbrk(key, ",="))
		return -EINVAL;
	return 0;
}

int ops_path_validate(const char *path, bool allow_empty)
{
	if (!path)
		return allow_empty ? 0 : -EINVAL;
	if (!*path && !allow_empty)
		return -EINVAL;
	if (strlen(path) > MNT_PATH_MAX)
		return -ERANGE;
	return 0;
}

static int vrefuse(MntLog *log, const char *step, const char *fmt, va_list ap)
{
	_cleanup_free_ char *text = NULL;
	int k;

	if (vasprintf(&text, fmt, ap) < 0)
		return -ENOMEM;
	k = mnt_log_add(log, step, 'e', text);
	mnt_log_fail(log, step);
	return k < 0 ? k : -EPERM;
}

int ops_refuse(MntLog *log, const char *step, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vrefuse(log, step, fmt, ap);
	va_end(ap);
	return k;
}

static int param_refuse(const MntParam *p, MntLog *log, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int param_refuse(const MntParam *p, MntLog *log, const char *fmt, ...)
{
	char step[MNT_STEP_MAX];
	va_list ap;
	int k;

	mnt_param_step(p, step);
	va_start(ap, fmt);
	k = vrefuse(log, step, fmt, ap);
	va_end(ap);
	return k;
}

int ops_param_for_caller(const char *fstype, const MntParam *p, bool read_only, MntParam *ret,
			 int *ret_fd, char ret_number[static OPS_FD_NUMBER_MAX], MntLog *log)
{
	FsParamKind kind = fs_param_kind(fstype, p->key);
	bool caller;
	uid_t uid;
	gid_t gid;
	int fd;

	*ret = *p;
	*ret_fd = -EBADF;
	caller = rights_caller(&uid, &gid);
	/* The kernel looks the number up when the superblock is made, by the
	 * worker, which holds the fd the caller sent: whatever number the
	 * caller wrote would name one of mountd's. */
	if (kind == FS_PARAM_FD_NUMBER && p->type == MNT_PARAM_FD) {
		snprintf(ret_number, OPS_FD_NUMBER_MAX, "%d", p->fd);
		*ret = (MntParam){
			.type = MNT_PARAM_STRING, .key = p->key, .value = ret_number, .fd = -EBADF};
		return 0;
	}
	if (!caller)
		return 0;
	switch (kind) {
	case FS_PARAM_FD_NUMBER:
		return param_refuse(p, log,
				    "mountd: %s of %s is a file descriptor: pass it, type fd",
				    p->key, fstype);
	case FS_PARAM_VALUE:
		/* A value given as a path or an fd would be looked up. */
		if (p->type == MNT_PARAM_PATH || p->type == MNT_PARAM_PATH_EMPTY ||
		    p->type == MNT_PARAM_FD)
			return param_refuse(p, log, "mountd: %s of %s is a value, not a path or fd",
					    p->key, fstype);
		return 0;
	case FS_PARAM_PATH:
		/* Looked up by the kernel as it is set, with the caller's
		 * rights (executor-rights.h). */
		return 0;
	case FS_PARAM_DEVICE:
		if (p->type != MNT_PARAM_STRING)
			return param_refuse(p, log, "mountd: %s of %s is a block device's name",
					    p->key, fstype);
		fd = rights_open_device_fd(p->value, read_only);
		if (fd < 0) {
			char step[MNT_STEP_MAX];

			mnt_param_step(p, step);
			mnt_log_fail(log, step);
			return fd;
		}
		*ret = (MntParam){.type = MNT_PARAM_PATH_EMPTY, .key = p->key, .fd = fd};
		*ret_fd = fd;
		return 0;
	case FS_PARAM_ROOT:
		return param_refuse(p, log,
				    "mountd: %s of %s names what is not the caller's to name; "
				    "only root may set it",
				    p->key, fstype);
	default:
		return param_refuse(p, log,
				    "mountd: %s is no parameter of %s that mountd knows; "
				    "only root may set it",
				    p->key, fstype ?: "this filesystem");
	}
}

int ops_params_validate(const MntParam *params, size_t n, const char **ret_field)
{
	size_t total = 0;

	if (n > OPS_PARAMS_MAX) {
		*ret_field = "parameters";
		return -E2BIG;
	}
	for (size_t i = 0; i < n; i++) {
		const MntParam *p = &params[i];
		bool has_value = p->value, has_fd = p->fd >= 0, has_blob = p->blob;
		int r;

		r = ops_key_validate(p->key);
		if (r < 0) {
			*ret_field = ops_field("parameters[%zu].key", i);
			return r;
		}
		total += strlen(p->key);

		/* The shape fsconfig() demands for each command, so the kernel
		 * never sees a malformed call: value/fd present exactly where
		 * it reads them. */
		switch (p->type) {
		case MNT_PARAM_FLAG:
			if (has_value || has_fd || has_blob) {
				*ret_field =
					ops_field("parameters[%zu].%s", i, has_fd ? "fd" : "value");
				return -EINVAL;
			}
			break;
		case MNT_PARAM_STRING:
			if (!has_value || has_fd || has_blob) {
				*ret_field =
					ops_field("parameters[%zu].%s", i, has_fd ? "fd" : "value");
				return -EINVAL;
			}
			if (strlen(p->value) > MNT_STRING_MAX) {
				*ret_field = ops_field("parameters[%zu].value", i);
				return -ERANGE;
			}
			total += strlen(p->value);
			break;
		case MNT_PARAM_BINARY:
			if (!has_blob || has_value || has_fd) {
				*ret_field =
					ops_field("parameters[%zu].%s", i, has_fd ? "fd" : "value");
				return -EINVAL;
			}
			if (p->blob_size == 0 || p->blob_size > MNT_BINARY_MAX) {
				*ret_field = ops_field("parameters[%zu].value", i);
				return -ERANGE;
			}
			total += p->blob_size;
			break;
		case MNT_PARAM_PATH:
			if (!has_value || has_blob) {
				*ret_field = ops_field("parameters[%zu].value", i);
				return -EINVAL;
			}
			r = ops_path_validate(p->value, false);
			if (r < 0) {
				*ret_field = ops_field("parameters[%zu].value", i);
				return r;
			}
			/* Paths are resolved relative to a directory fd the
			 * client passes, never relative to the daemon. */
			if (!has_fd && p->value[0] != '/') {
				*ret_field = ops_field("parameters[%zu].fd", i);
				return -EINVAL;
			}
			total += strlen(p->value);
			break;
		case MNT_PARAM_PATH_EMPTY:
			if (!has_fd || has_blob) {
				*ret_field = ops_field("parameters[%zu].fd", i);
				return -EINVAL;
			}
			r = ops_path_validate(p->value, true);
			if (r < 0) {
				*ret_field = ops_field("parameters[%zu].value", i);
				return r;
			}
			total += p->value ? strlen(p->value) : 0;
			break;
		case MNT_PARAM_FD:
			if (!has_fd || has_value || has_blob) {
				*ret_field =
					ops_field("parameters[%zu].%s", i, has_fd ? "value" : "fd");
				return -EINVAL;
			}
			break;
		default:
			*ret_field = ops_field("parameters[%zu].type", i);
			return -EINVAL;
		}
		if (total > OPS_PARAMS_TOTAL_MAX) {
			*ret_field = "parameters";
			return -E2BIG;
		}
	}
	return 0;
}

#define ATTR_KNOWN                                                                      \
	(MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC | \
	 MOUNT_ATTR__ATIME | MOUNT_ATTR_NODIRATIME | MOUNT_ATTR_NOSYMFOLLOW)

int ops_attributes_validate(const OpsAttributes *a, bool allow_clear, const char **ret_field)
{
	uint64_t atime = a->set & MOUNT_ATTR__ATIME;

	if ((a->set | a->clear) & ~(uint64_t)ATTR_KNOWN) {
		*ret_field = "attributes";
		return -EINVAL;
	}
	if (!allow_clear && a->clear & ~(uint64_t)MOUNT_ATTR__ATIME) {
		*ret_field = "attributes";
		return -EINVAL;
	}
	if (atime != 0 && atime != MOUNT_ATTR_NOATIME && atime != MOUNT_ATTR_STRICTATIME &&
	    atime != MOUNT_ATTR_RELATIME) {
		*ret_field = "attributes.atime";
		return -EINVAL;
	}
	if (a->set & a->clear & ~(uint64_t)MOUNT_ATTR__ATIME) {
		*ret_field = "attributes";
		return -EINVAL;
	}
	if (a->propagation >= _OPS_PROPAGATION_MAX) {
		*ret_field = "propagation";
		return -EINVAL;
	}
	return 0;
}

void ops_attributes_to_mount_attr(const OpsAttributes *a, struct mount_attr *ret)
{
	static const uint64_t prop[_OPS_PROPAGATION_MAX] = {
		[OPS_PROPAGATION_PRIVATE] = MS_PRIVATE,
		[OPS_PROPAGATION_SHARED] = MS_SHARED,
		[OPS_PROPAGATION_SLAVE] = MS_SLAVE,
		[OPS_PROPAGATION_UNBINDABLE] = MS_UNBINDABLE,
	};

	*ret = (struct mount_attr){
		.attr_set = a->set,
		.attr_clr = a->clear,
		.propagation = prop[a->propagation],
	};
	/* The atime modes are a field, not bits: setting one needs the whole
	 * field cleared in the same call. */
	if (a->set & MOUNT_ATTR__ATIME || a->clear & MOUNT_ATTR__ATIME)
		ret->attr_clr |= MOUNT_ATTR__ATIME;
}

int ops_placement_validate(const OpsPlacement *p, const char **ret_field)
{
	int r;

	if (!p->path) {
		if (p->create != MNT_CREATE_NONE || p->beneath || ops_namespace_is_set(&p->ns) ||
		    p->ns.root) {
			*ret_field = "placement.path";
			return -EINVAL;
		}
		return 0;
	}
	r = ops_path_validate(p->path, false);
	if (r < 0) {
		*ret_field = "placement.path";
		return r;
	}
	if (p->create >= _MNT_CREATE_MAX) {
		*ret_field = "placement.create";
		return -EINVAL;
	}
	if (p->beneath && p->create != MNT_CREATE_NONE) {
		/* Beneath needs an existing mount on top; nothing to create. */
		*ret_field = "placement.create";
		return -EINVAL;
	}
	return ops_namespace_validate(&p->ns, "placement.namespace", ret_field);
}

void ops_placement_done(OpsPlacement *p)
{
	p->path = mfree(p->path);
}

void ops_mount_result_done(OpsMountResult *r)
{
	safe_close(r->mount_fd);
	free(r->fstype);
	free(r->loop_device);
	free(r->verity_root_hash);
	free(r->verity_signer);
	*r = (OpsMountResult){.mount_fd = -EBADF};
}

struct place_args {
	int mount_fd;
	const OpsPlacement *place;
};

static int place_in_ns(int root_fd, const int *fds, void *userdata, MntLog *log, WorkerReply *reply)
{
	const struct place_args *a = userdata;
	_cleanup_close_ int target_fd = -EBADF;
	unsigned flags = MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH;
	MntCreated created;
	Leftover record;
	int r;

	target_fd = leftover_resolve_create(root_fd, a->place->ns.root, a->place->path,
					    a->place->create, "target", log, &created, &record);
	if (target_fd < 0)
		return target_fd;
	if (a->place->beneath)
		flags |= MOVE_MOUNT_BENEATH;
	r = rights_check_mount_point(target_fd, a->place->beneath, "target", log);
	if (r >= 0)
		r = mnt_move_mount(fds[0], "", target_fd, "", flags, log);
	if (r < 0) {
		/* Our fd on the new mount point must go before it can. */
		target_fd = safe_close(target_fd);
		mnt_created_undo(&created);
	} else
		mnt_created_done(&created);
	leftover_done(&record);
	return r;
}

int ops_place(int mount_fd, const OpsPlacement *place, MntLog *log)
{
	struct place_args args = {.mount_fd = mount_fd, .place = place};

	return ops_run_in(&place->ns, &mount_fd, 1, place_in_ns, &args, log, NULL);
}

int ops_run_in(const OpsNamespace *ns, const int *fds, size_t n_fds, WorkerFn fn, void *userdata,
	       MntLog *log, int *ret_fd)
{
	_cleanup_close_ int ns_fd = -EBADF;
	WorkerReply reply;
	int r;

	ns_fd = ops_namespace_open(ns, log);
	if (ns_fd < 0)
		return ns_fd;
	r = worker_in_namespace(ns_fd, ns->root, fds, n_fds, fn, userdata, log, &reply);
	/* The function's steps join the log (it traced them itself), whether
	 * or not it failed. */
	(void)mnt_log_merge_steps(log, reply.steps, reply.n_steps);
	if (r >= 0)
		r = reply.error;
	if (r >= 0 && reply.n_fds != (ret_fd ? 1 : 0))
		r = -EPROTO;
	if (r < 0) {
		mnt_log_fail(log, reply.failed_step[0] ? reply.failed_step : "worker");
		worker_reply_done(&reply);
		return r;
	}
	if (ret_fd)
		*ret_fd = reply.fds[0];
	return 0;
}

/* Put a new detached mount where the request says, or hand it back.  Takes
 * mount_fd in either case.  On failure of the move the detached mount is
 * simply closed, which unmounts it: nothing is left behind. */
int ops_finish_mount(int mount_fd, const OpsPlacement *place, OpsMountResult *ret, MntLog *log)
{
	_cleanup_close_ int fd = mount_fd;
	int r;

	r = mnt_unique_id(fd, &ret->mount_id);
	if (r < 0)
		ret->mount_id = 0; /* old kernel: not fatal, just not reported */
	if (!place->path) {
		ret->mount_fd = TAKE_FD(fd);
		return 0;
	}
	r = ops_place(fd, place, log);
	if (r < 0)
		return r;
	ret->mount_fd = -EBADF;
	return 0;
}

bool ops_fstype_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > OPS_FSTYPE_MAX)
		return false;
	/* Filesystem type names: "ext4", "fuse.sshfs", "9p". */
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}
