/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mount syscalls and the fs_context message log.  glibc's <sys/mount.h>
 * wrappers are not used: they are missing in older glibc, and mixing
 * <sys/mount.h> with the kernel's <linux/mount.h> (which we need for
 * statmount/listmount) clashes there.  Raw syscall() it is.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/mount.h>
#include <linux/nsfs.h>
#include <linux/openat2.h>

#include "sys-mnt.h"
#include "executor-worker.h"
#include "mount-entry.h"
#include "util.h"

#ifndef MNT_DETACH
#define MNT_DETACH 0x00000002
#endif
#ifndef UMOUNT_NOFOLLOW
#define UMOUNT_NOFOLLOW 0x00000008
#endif

#include "syscall-nr.h"
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif

/* The fsinfo() parameter block as the fsinfo patch defines it; declared here
 * so that the daemon builds (and falls back at run time) without the header. */
struct mnt_fsinfo_params {
	uint32_t at_flags;
	uint32_t request;
	uint32_t Nth;
	uint32_t Mth;
	uint32_t reserved[6];
};

static int sys_result(long r)
{
	return r < 0 ? negative_errno() : (int)r;
}

void mnt_log_done(MntLog *log)
{
	for (size_t i = 0; i < log->n_messages; i++)
		free(log->messages[i].text);
	free(log->messages);
	free(log->steps);
	mnt_log_trace_end(log);
	*log = (MntLog){};
}

int mnt_log_trace(MntLog *log, int fd)
{
	int flags = fcntl(fd, F_GETFL), r = 0;

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		r = negative_errno();
	else if ((flags & O_ACCMODE) == O_RDONLY)
		r = -EBADF; /* nothing could be written to it */
	if (r < 0) {
		safe_close(fd);
		return r;
	}
	mnt_log_trace_end(log);
	log->tracing = true;
	log->trace_fd = fd;
	return 0;
}

void mnt_log_trace_end(MntLog *log)
{
	if (log && log->tracing)
		safe_close(log->trace_fd);
	if (log) {
		log->tracing = false;
		log->trace_fd = -EBADF;
	}
}

/* One trace line from fields, each made safe for the line format. */
static void trace_line(MntLog *log, const char *const *fields, size_t n)
{
	char line[1024];
	size_t len = 0;

	if (!log || !log->tracing)
		return;
	for (size_t i = 0; i < n && len < sizeof(line) - 1; i++) {
		if (i > 0)
			line[len++] = '\t';
		for (const char *p = fields[i]; *p && len < sizeof(line) - 1; p++)
			line[len++] = *p == '\t' || *p == '\n' ? ' ' : *p;
	}
	line[len++] = '\n';
	/* At most PIPE_BUF: the line arrives whole or not at all.  A reader
	 * that fell behind (EAGAIN) or left (EPIPE) ends the trace. */
	while (write(log->trace_fd, line, len) < 0)
		if (errno != EINTR) {
			mnt_log_trace_end(log);
			return;
		}
}

static int log_append_step(MntLog *log, const char *step, uint64_t usec)
{
	MntStep *s;

	s = reallocarray(log->steps, log->n_steps + 1, sizeof(MntStep));
	if (!s)
		return -ENOMEM;
	log->steps = s;
	s = &log->steps[log->n_steps++];
	*s = (MntStep){.usec = usec};
	snprintf(s->name, sizeof(s->name), "%s", step);
	return 0;
}

int mnt_log_merge_steps(MntLog *log, const MntStep *steps, size_t n)
{
	for (size_t i = 0; log && i < n; i++) {
		int r = log_append_step(log, steps[i].name, steps[i].usec);
		if (r < 0)
			return r;
	}
	return 0;
}

void mnt_log_fail(MntLog *log, const char *step)
{
	if (log && !log->failed_step[0])
		snprintf(log->failed_step, sizeof(log->failed_step), "%s", step);
}

void mnt_log_fail_instead(MntLog *log, const char *step)
{
	if (log)
		snprintf(log->failed_step, sizeof(log->failed_step), "%s", step);
}

int mnt_log_step(MntLog *log, const char *step, uint64_t usec)
{
	char took[24];

	if (!log)
		return 0;
	snprintf(took, sizeof(took), "%" PRIu64, usec);
	trace_line(log, (const char *const[]){"step", step, took}, 3);
	return log_append_step(log, step, usec);
}

uint64_t mnt_step_start(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000U + (uint64_t)ts.tv_nsec / 1000U;
}

int mnt_log_result(MntLog *log, const char *step, uint64_t start, int r)
{
	if (r < 0)
		mnt_log_fail(log, step);
	else
		/* A step missing from the trace costs less than failing the
		 * mount that already happened. */
		(void)mnt_log_step(log, step, mnt_step_start() - start);
	return r;
}

int mnt_log_add(MntLog *log, const char *step, char level, const char *text)
{
	MntMessage *m;

	if (!log)
		return 0;
	m = reallocarray(log->messages, log->n_messages + 1, sizeof(MntMessage));
	if (!m)
		return -ENOMEM;
	log->messages = m;
	m = &log->messages[log->n_messages];
	*m = (MntMessage){.level = level};
	snprintf(m->step, sizeof(m->step), "%s", step);
	m->text = strdup(text);
	if (!m->text)
		return -ENOMEM;
	log->n_messages++;
	trace_line(log, (const char *const[]){"message", step, (char[]){level, 0}, text}, 4);
	return 0;
}

int mnt_log_add_kernel(MntLog *log, const char *step, char *msg)
{
	size_t n = strlen(msg);
	char level = '?';
	const char *text = msg;

	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = 0;
	/* "e text", "w text", "i text" */
	if (n >= 2 && strchr("ewi", msg[0]) && msg[1] == ' ') {
		level = msg[0];
		text = msg + 2;
	}
	return mnt_log_add(log, step, level, text);
}

int mnt_log_drain(MntLog *log, int fs_fd, const char *step)
{
	/* Messages are at most a few hundred bytes; EMSGSIZE would drop one. */
	char buf[MNT_MESSAGE_MAX];

	if (!log || fs_fd < 0)
		return 0;
	for (;;) {
		ssize_t n = read(fs_fd, buf, sizeof(buf) - 1);
		int r;

		if (n < 0) {
			if (errno == ENODATA)
				return 0;
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (n == 0)
			return 0;
		buf[n] = 0;
		r = mnt_log_add_kernel(log, step, buf);
		if (r < 0)
			return r;
	}
}

const char *const mnt_param_type_names[_MNT_PARAM_TYPE_MAX] = {
	[MNT_PARAM_FLAG] = "flag",
	[MNT_PARAM_STRING] = "string",
	[MNT_PARAM_BINARY] = "binary",
	[MNT_PARAM_PATH] = "path",
	[MNT_PARAM_PATH_EMPTY] = "path_empty",
	[MNT_PARAM_FD] = "fd",
};

const char *mnt_param_type_to_string(MntParamType t)
{
	return t >= 0 && t < _MNT_PARAM_TYPE_MAX ? mnt_param_type_names[t] : NULL;
}

void mnt_param_done(MntParam *p)
{
	free(p->key);
	free(p->value);
	free(p->blob);
	safe_close(p->fd);
	*p = (MntParam){.fd = -EBADF};
}

int mnt_fsopen(const char *fstype, MntLog *log)
{
	uint64_t start = mnt_step_start();

	return mnt_log_result(log, "fsopen", start,
			      sys_result(syscall(SYS_fsopen, fstype, FSOPEN_CLOEXEC)));
}

void mnt_param_step(const MntParam *p, char step[static MNT_STEP_MAX])
{
	snprintf(step, MNT_STEP_MAX, "fsconfig:%s", p->key);
}

int mnt_param_fsconfig_args(const MntParam *p, MntFsconfigArgs *ret)
{
	MntFsconfigArgs a = {.aux_is_fd = p->fd >= 0};

	switch (p->type) {
	case MNT_PARAM_FLAG:
		a.cmd = FSCONFIG_SET_FLAG;
		a.aux_is_fd = false;
		break;
	case MNT_PARAM_STRING:
		a.cmd = FSCONFIG_SET_STRING;
		a.value = p->value;
		a.value_size = strlen(p->value) + 1;
		a.aux_is_fd = false;
		break;
	case MNT_PARAM_BINARY:
		a.cmd = FSCONFIG_SET_BINARY;
		a.value = p->blob;
		a.value_size = p->blob_size;
		a.aux = (int)p->blob_size;
		a.aux_is_fd = false;
		break;
	case MNT_PARAM_PATH:
		a.cmd = FSCONFIG_SET_PATH;
		a.value = p->value;
		a.value_size = strlen(p->value) + 1;
		a.aux = p->fd >= 0 ? p->fd : AT_FDCWD;
		break;
	case MNT_PARAM_PATH_EMPTY:
		a.cmd = FSCONFIG_SET_PATH_EMPTY;
		a.value = p->value ?: "";
		a.value_size = strlen(a.value) + 1;
		a.aux = p->fd;
		break;
	case MNT_PARAM_FD:
		a.cmd = FSCONFIG_SET_FD;
		a.aux = p->fd;
		break;
	default:
		return -EINVAL;
	}
	*ret = a;
	return 0;
}

int mnt_fsconfig_param(int fs_fd, const MntParam *p, MntLog *log)
{
	char step[MNT_STEP_MAX];
	MntFsconfigArgs a;
	uint64_t start;
	int r;

	r = mnt_param_fsconfig_args(p, &a);
	if (r < 0)
		return r;
	mnt_param_step(p, step);
	start = mnt_step_start();
	r = sys_result(syscall(SYS_fsconfig, fs_fd, a.cmd, p->key, a.value, a.aux));
	(void)mnt_log_drain(log, fs_fd, step);
	return mnt_log_result(log, step, start, r < 0 ? r : 0);
}

int mnt_fsconfig_cmd(int fs_fd, unsigned cmd, MntLog *log)
{
	const char *step = cmd == FSCONFIG_CMD_CREATE	     ? "fsconfig:CMD_CREATE"
			   : cmd == FSCONFIG_CMD_CREATE_EXCL ? "fsconfig:CMD_CREATE_EXCL"
			   : cmd == FSCONFIG_CMD_RECONFIGURE ? "fsconfig:CMD_RECONFIGURE"
							     : "fsconfig";
	uint64_t start = mnt_step_start();
	int r = sys_result(syscall(SYS_fsconfig, fs_fd, cmd, NULL, NULL, 0));

	(void)mnt_log_drain(log, fs_fd, step);
	return mnt_log_result(log, step, start, r < 0 ? r : 0);
}

int mnt_fsmount(int fs_fd, unsigned attr_flags, MntLog *log)
{
	uint64_t start = mnt_step_start();
	int fd = sys_result(syscall(SYS_fsmount, fs_fd, FSMOUNT_CLOEXEC, attr_flags));

	(void)mnt_log_drain(log, fs_fd, "fsmount");
	return mnt_log_result(log, "fsmount", start, fd);
}

int mnt_fspick(int dfd, const char *path, unsigned flags, MntLog *log)
{
	uint64_t start = mnt_step_start();

	return mnt_log_result(log, "fspick", start,
			      sys_result(syscall(SYS_fspick, dfd, path, flags | FSPICK_CLOEXEC)));
}

int mnt_open_tree(int dfd, const char *path, unsigned flags, MntLog *log)
{
	uint64_t start = mnt_step_start();

	return mnt_log_result(
		log, "open_tree", start,
		sys_result(syscall(SYS_open_tree, dfd, path, flags | OPEN_TREE_CLOEXEC)));
}

int mnt_move_mount(int from_dfd, const char *from_path, int to_dfd, const char *to_path,
		   unsigned flags, MntLog *log)
{
	uint64_t start = mnt_step_start();
	int r = sys_result(syscall(SYS_move_mount, from_dfd, from_path, to_dfd, to_path, flags));

	return mnt_log_result(log, "move_mount", start, r < 0 ? r : 0);
}

int mnt_setattr(int dfd, const char *path, unsigned flags, const struct mount_attr *attr,
		MntLog *log)
{
	uint64_t start = mnt_step_start();
	int r = sys_result(
		syscall(SYS_mount_setattr, dfd, path, flags, attr, sizeof(struct mount_attr)));

	return mnt_log_result(log, "mount_setattr", start, r < 0 ? r : 0);
}

int mnt_fsinfo(int dfd, const char *path, unsigned at_flags, uint32_t request, uint32_t nth,
	       uint32_t mth, void *buf, size_t bufsize)
{
	struct mnt_fsinfo_params params = {
		.at_flags = at_flags,
		.request = request,
		.Nth = nth,
		.Mth = mth,
	};
	return sys_result(syscall(__NR_fsinfo, dfd, path, &params, buf, bufsize));
}

int mnt_unique_id(int fd, uint64_t *ret)
{
	struct statx stx = {};

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID_UNIQUE, &stx) < 0)
		return negative_errno();
	if (!(stx.stx_mask & STATX_MNT_ID_UNIQUE))
		return -EOPNOTSUPP;
	*ret = stx.stx_mnt_id;
	return 0;
}

int mnt_ns_id(int ns_fd, uint64_t *ret)
{
	uint64_t id = 0;

	if (ioctl(ns_fd, NS_GET_MNTNS_ID, &id) < 0)
		return negative_errno();
	*ret = id;
	return 0;
}

int mnt_listmount(uint64_t mnt_ns_id, uint64_t mnt_id, uint64_t **ret, size_t *ret_n)
{
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n = 0, allocated = 0;
	uint64_t last = 0;

	for (;;) {
		struct mnt_id_req req = {
			.size = sizeof(req),
			.mnt_id = mnt_id,
			.param = last,
			.mnt_ns_id = mnt_ns_id,
		};
		long k;

		if (allocated - n < 256) {
			uint64_t *t = reallocarray(ids, allocated + 512, sizeof(uint64_t));
			if (!t)
				return -ENOMEM;
			ids = t;
			allocated += 512;
		}
		size_t want = allocated - n;
		k = syscall(__NR_listmount, &req, ids + n, want, 0);
		if (k < 0)
			return negative_errno();
		n += k;
		if ((size_t)k < want)
			break;
		last = ids[n - 1];
	}
	*ret = TAKE_PTR(ids);
	*ret_n = n;
	return 0;
}

int mnt_statmount(uint64_t mnt_ns_id, uint64_t mnt_id, uint64_t mask, struct statmount **ret)
{
	size_t size = 4096;

	for (;;) {
		_cleanup_free_ struct statmount *sm = calloc(1, size);
		struct mnt_id_req req = {
			.size = sizeof(req),
			.mnt_id = mnt_id,
			.param = mask,
			.mnt_ns_id = mnt_ns_id,
		};

		if (!sm)
			return -ENOMEM;
		if (syscall(__NR_statmount, &req, sm, size, 0) >= 0) {
			*ret = TAKE_PTR(sm);
			return 0;
		}
		if (errno != EOVERFLOW || size >= 1024 * 1024)
			return negative_errno();
		size *= 4;
	}
}

int mnt_statmount_fixed(uint64_t mnt_ns_id, uint64_t mnt_id, uint64_t mask, struct statmount *ret)
{
	struct mnt_id_req req = {
		.size = sizeof(req),
		.mnt_id = mnt_id,
		.param = mask,
		.mnt_ns_id = mnt_ns_id,
	};

	return syscall(__NR_statmount, &req, ret, sizeof(*ret), 0) < 0 ? negative_errno() : 0;
}

int mnt_unique_id_at(int dir_fd, const char *name, uint64_t *ret)
{
	_cleanup_free_ uint64_t *ids = NULL;
	struct statx stx = {};
	size_t n = 0;
	int k;

	/* Asked for nothing, statx() leaves the filesystem alone and still
	 * gives the old mount id; listmount() knows the new one. */
	if (statx(dir_fd, name,
		  AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC | (name[0] ? 0 : AT_EMPTY_PATH), 0,
		  &stx) < 0)
		return negative_errno();
	if (!(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
	    !(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) || !(stx.stx_mask & STATX_MNT_ID))
		return -EINVAL;
	k = mnt_listmount(0, LSMT_ROOT, &ids, &n);
	if (k < 0)
		return k;
	for (size_t i = 0; i < n; i++) {
		struct statmount sm = {};

		if (mnt_statmount_fixed(0, ids[i], STATMOUNT_MNT_BASIC, &sm) == 0 &&
		    sm.mnt_id_old == stx.stx_mnt_id) {
			*ret = ids[i];
			return 0;
		}
	}
	return -ENOENT;
}

int mnt_open_by_id(uint64_t id)
{
	_cleanup_free_ struct statmount *sm = NULL;
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		/* A mount point's name as the kernel gives it has no symlink:
		 * one met on the way was planted there since. */
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int fd = -EBADF;
	uint64_t found;
	int r;

	r = mnt_statmount(0, id, STATMOUNT_MNT_POINT, &sm);
	if (r >= 0 && !(sm->mask & STATMOUNT_MNT_POINT))
		r = -ENODATA;
	if (r < 0)
		return r;
	/* The worker's root is its namespace's, which the path is relative
	 * to. */
	fd = sys_result(syscall(SYS_openat2, AT_FDCWD, sm->str + sm->mnt_point, &how, sizeof(how)));
	if (fd < 0)
		return fd;
	r = mnt_unique_id_at(fd, "", &found);
	/* Not its root, or another mount's (one on top of it hides it). */
	if (r == -EINVAL || (r >= 0 && found != id))
		return -EBUSY;
	return r < 0 ? r : TAKE_FD(fd);
}

int mnt_fstype(int fd, char *ret, size_t size)
{
	_cleanup_free_ struct statmount *sm = NULL;
	uint64_t id;
	int k;

	k = mnt_unique_id(fd, &id);
	if (k < 0)
		return k;
	k = mnt_statmount(0, id, STATMOUNT_FS_TYPE, &sm);
	if (k < 0)
		return k;
	if (!(sm->mask & STATMOUNT_FS_TYPE))
		return -ENODATA;
	snprintf(ret, size, "%s", sm->str + sm->fs_type);
	return 0;
}

const char *mnt_propagation_to_string(uint64_t prop)
{
#define NAME(name, bit)   \
	if (prop & (bit)) \
		return name;
	MOUNT_PROPAGATIONS(NAME)
#undef NAME
	return "private";
}

static int openat2_in_root(int root_fd, const char *path, int flags)
{
	struct open_how how = {
		.flags = flags | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	return sys_result(syscall(SYS_openat2, root_fd, path, &how, sizeof(how)));
}

int mnt_split_last(const char *path, char **ret_parent, char **ret_name)
{
	_cleanup_free_ char *copy = strdup(path);
	char *slash, *name;
	size_t n;

	if (!copy)
		return -ENOMEM;
	n = strlen(copy);
	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = 0;
	slash = strrchr(copy, '/');
	name = slash ? slash + 1 : copy;
	if (!*name || streq(name, ".") || streq(name, ".."))
		return -EINVAL;
	*ret_name = strdup(name);
	if (slash == copy)
		*ret_parent = strdup("/");
	else if (slash) {
		*slash = 0;
		*ret_parent = strdup(copy);
	} else
		*ret_parent = strdup(".");
	if (!*ret_name || !*ret_parent) {
		free(*ret_name);
		free(*ret_parent);
		return -ENOMEM;
	}
	return 0;
}

void mnt_created_done(MntCreated *c)
{
	safe_close(c->dir_fd);
	free(c->name);
	*c = (MntCreated){.dir_fd = -EBADF};
}

void mnt_created_undo(MntCreated *c)
{
	if (c->name && c->dir_fd >= 0)
		(void)unlinkat(c->dir_fd, c->name,
			       c->type == MNT_CREATE_DIRECTORY ? AT_REMOVEDIR : 0);
	mnt_created_done(c);
}

int mnt_resolve_create_in_root(int root_fd, const char *path, MntCreate create, const char *what,
			       const MntBeforeCreate *before, MntLog *log, MntCreated *ret_created)
{
	_cleanup_free_ char *parent = NULL, *name = NULL, *step = NULL;
	_cleanup_close_ int dir_fd = -EBADF;
	uint64_t start = mnt_step_start();
	int fd, r;

	if (ret_created)
		*ret_created = (MntCreated){.dir_fd = -EBADF};
	if (asprintf(&step, "resolve:%s", what) < 0)
		return -ENOMEM;
	fd = openat2_in_root(root_fd, path, O_PATH);
	if (fd >= 0 || fd != -ENOENT || create == MNT_CREATE_NONE)
		return mnt_log_result(log, step, start, fd);

	r = mnt_split_last(path, &parent, &name);
	if (r < 0) {
		mnt_log_fail(log, step);
		return r;
	}
	dir_fd = openat2_in_root(root_fd, parent, O_PATH | O_DIRECTORY);
	if (dir_fd < 0) {
		mnt_log_fail(log, step);
		return dir_fd;
	}
	if (before) {
		r = before->fn(before->userdata);
		if (r < 0) {
			free(step);
			if (asprintf(&step, "%s:%s", before->step, what) < 0)
				return -ENOMEM;
			mnt_log_fail(log, step);
			return r;
		}
	}
	/* name is a single component: mkdirat/openat cannot be redirected. */
	if (create == MNT_CREATE_DIRECTORY)
		r = mkdirat(dir_fd, name, 0755) < 0 ? negative_errno() : 0;
	else {
		_cleanup_close_ int f = openat(
			dir_fd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
		r = f < 0 ? negative_errno() : 0;
	}
	if (r < 0 && r != -EEXIST) {
		free(step);
		if (asprintf(&step, "create:%s", what) < 0)
			return -ENOMEM;
		mnt_log_fail(log, step);
		return r;
	}
	if (r == 0) {
		_cleanup_free_ char *created = NULL;

		if (asprintf(&created, "create:%s", what) >= 0)
			(void)mnt_log_step(log, created, mnt_step_start() - start);
		start = mnt_step_start();
	}
	fd = openat2_in_root(root_fd, path, O_PATH);
	if (fd < 0) {
		mnt_log_fail(log, step);
		if (r == 0)
			(void)unlinkat(dir_fd, name,
				       create == MNT_CREATE_DIRECTORY ? AT_REMOVEDIR : 0);
		return fd;
	}
	/* Only what we made ourselves may be undone, never a racing EEXIST. */
	if (r == 0 && ret_created)
		*ret_created = (MntCreated){
			.dir_fd = TAKE_FD(dir_fd), .name = TAKE_PTR(name), .type = create};
	return mnt_log_result(log, step, start, fd);
}

int mnt_resolve_in_root(int root_fd, const char *path, MntCreate create, const char *what,
			MntLog *log)
{
	return mnt_resolve_create_in_root(root_fd, path, create, what, NULL, log, NULL);
}

/* The next name of a path whose last component is a symlink: its target,
 * under root when absolute, else beside it. */
static int follow_last(int dir_fd, const char *parent, const char *name, char **path)
{
	_cleanup_free_ char *target = malloc(PATH_MAX);
	ssize_t n;
	char *next;

	if (!target)
		return -ENOMEM;
	n = readlinkat(dir_fd, name, target, PATH_MAX);
	if (n < 0)
		return negative_errno();
	if (n == 0 || n >= PATH_MAX)
		return -ENAMETOOLONG;
	target[n] = 0;
	if (target[0] == '/')
		next = TAKE_PTR(target);
	else if (asprintf(&next, "%s/%s", parent, target) < 0)
		return -ENOMEM;
	free(*path);
	*path = next;
	return 0;
}

/* A mount of the namespace whose mount point is id's root: the name of id
 * leads to it now, not to id.  0 or 1, or -errno. */
static int stacked_on(uint64_t id)
{
	_cleanup_free_ struct statmount *top = NULL;
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n = 0;
	int r;

	r = mnt_statmount(0, id, STATMOUNT_MNT_POINT, &top);
	if (r >= 0 && !(top->mask & STATMOUNT_MNT_POINT))
		r = -ENODATA;
	if (r >= 0)
		r = mnt_listmount(0, id, &ids, &n);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		_cleanup_free_ struct statmount *sm = NULL;

		r = mnt_statmount(0, ids[i], STATMOUNT_MNT_BASIC | STATMOUNT_MNT_POINT, &sm);
		if (r == -ENOENT) /* gone meanwhile */
			r = 0;
		else if (r >= 0 && sm->mnt_parent_id == id && (sm->mask & STATMOUNT_MNT_POINT) &&
			 streq(sm->str + sm->mnt_point, top->str + top->mnt_point))
			return 1;
	}
	return r;
}

/* umount2() takes a name, never an fd, and a name looked up again can
 * lead elsewhere: a directory renamed over it (from a namespace where it
 * is no mount point, rename() refuses only local ones), or its top mount
 * unmounted by another request.  So the mount is held by an O_PATH fd and
 * checked on that, and umount2() is given the fd's own magic link,
 * "self/fd/N" below mountd's /proc (the worker's own fd table, which
 * nobody else can change, in a /proc the target namespace cannot
 * replace; followed, not UMOUNT_NOFOLLOW, since that link is the point).
 * It leads to the fd's mount itself, which no rename moves, and then only
 * to a mount on top of its root (LOOKUP_MOUNTPOINT goes down mounts),
 * which stacked_on() refuses.  No chdir() into it: that asks the
 * filesystem (a FUSE root refuses root, a dead one cannot answer).  The fd
 * pins the mount, so umount2() without MNT_DETACH would answer EBUSY: it
 * is detached, which is the same where nothing is below it and nothing
 * uses it; with mounts below, the kernel's EBUSY is given without
 * MNT_DETACH, and with it check has judged them, as they go along.  A
 * mount only busy with open files is detached rather than refused: the
 * price of unmounting exactly the mount checked. */
static int umount_exact(int root_fd, int fd, uint64_t id, unsigned flags, MntLog *log)
{
	_cleanup_free_ uint64_t *below = NULL;
	_cleanup_close_ int here = -EBADF;
	uint64_t start = mnt_step_start();
	int proc = worker_host_dir(WORKER_HOST_PROC);
	char link[64];
	size_t n = 0;
	int r;

	r = mnt_listmount(0, id, &below, &n);
	if (r >= 0 && n > 0 && !(flags & MNT_DETACH))
		r = -EBUSY;
	if (r >= 0) {
		int k = stacked_on(id);

		r = k > 0 ? -EBUSY : k;
	}
	if (r < 0)
		return mnt_log_result(log, "umount", start, r);
	/* In mountd itself (no kept /proc) its own /proc is mountd's. */
	snprintf(link, sizeof(link), "%sself/fd/%d", proc >= 0 ? "" : "/proc/", fd);
	if (proc >= 0) {
		here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (here < 0 || fchdir(proc) < 0)
			return mnt_log_result(log, "umount", start, negative_errno());
	}
	r = sys_result(syscall(SYS_umount2, link, flags | MNT_DETACH));
	/* Not left in mountd's /proc: back where the caller's walk left it,
	 * or at the root, should the caller have closed its directory
	 * meanwhile. */
	if (here >= 0 && fchdir(here) < 0 && fchdir(root_fd) < 0)
		_exit(EXIT_FAILURE);
	return mnt_log_result(log, "umount", start, r < 0 ? r : 0);
}

int mnt_umount_in_root(int root_fd, const char *path, unsigned flags, bool exact,
		       MntUmountCheck check, void *userdata, MntLog *log)
{
	_cleanup_free_ char *parent = NULL, *name = NULL, *cur = strdup(path);
	_cleanup_close_ int dir_fd = -EBADF, fd = -EBADF;
	uint64_t start = mnt_step_start(), id = 0;
	unsigned links = 0;
	struct stat st;
	int r;

	/* Only the parent directory is resolved safely (RESOLVE_IN_ROOT), its
	 * single last component looked up from there (the worker is
	 * disposable, so changing its cwd is fine).  A symlink as the last
	 * component is read here and its target resolved the same way, under
	 * root as every other name of the call, as umount(8) follows it;
	 * umount2() itself never follows one (UMOUNT_NOFOLLOW): one swapped
	 * in meanwhile is not a way out. */
	if (!cur)
		return -ENOMEM;
	for (;;) {
		free(parent);
		free(name);
		parent = name = NULL;
		dir_fd = safe_close(dir_fd);
		r = mnt_split_last(cur, &parent, &name);
		if (r < 0 || streq(name, ".") || streq(name, "..")) {
			mnt_log_fail(log, "resolve:path");
			return r < 0 ? r : -EINVAL;
		}
		dir_fd = openat2_in_root(root_fd, parent, O_PATH | O_DIRECTORY);
		if (dir_fd < 0) {
			mnt_log_fail(log, "resolve:path");
			return dir_fd;
		}
		if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
			break;
		r = ++links > 40 ? -ELOOP : follow_last(dir_fd, parent, name, &cur);
		if (r < 0) {
			mnt_log_fail(log, "resolve:path");
			return r;
		}
	}
	if (fchdir(dir_fd) < 0) {
		mnt_log_fail(log, "resolve:path");
		return negative_errno();
	}
	if (check || exact) {
		/* What the name leads to now, held: the mount on top of it. */
		fd = openat(dir_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		r = fd < 0 ? negative_errno() : mnt_unique_id_at(fd, "", &id);
		if (r < 0) {
			/* No mount's root: as umount2() answers it. */
			mnt_log_fail(log, r == -EINVAL ? "umount" : "resolve:path");
			return r;
		}
	}
	(void)mnt_log_step(log, "resolve:path", mnt_step_start() - start);
	if (check) {
		r = check(fd, id, userdata, log);
		if (r < 0)
			return r;
	}
	if (exact)
		return umount_exact(root_fd, fd, id, flags, log);
	/* Root's: by name, as root would itself; the fd would keep the
	 * mount busy. */
	fd = safe_close(fd);
	start = mnt_step_start();
	r = sys_result(syscall(SYS_umount2, name, flags | UMOUNT_NOFOLLOW));
	return mnt_log_result(log, "umount", start, r < 0 ? r : 0);
}
