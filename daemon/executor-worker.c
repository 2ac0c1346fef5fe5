/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A step in a given mount namespace, from inside an executor worker (see
 * executor-worker.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <linux/openat2.h>
#include <unistd.h>

#include "util.h"
#include "executor-worker.h"

void worker_reply_done(WorkerReply *r)
{
	close_many(r->fds, r->n_fds);
	r->n_fds = 0;
}

/* The namespace an executor worker sits in, or -EBADF in mountd itself. */
static int home_fd = -EBADF;
/* Its identity, taken once: every request compares against it. */
static struct stat home_st;

int worker_set_home(int home_ns_fd)
{
	if (home_ns_fd >= 0 && fstat(home_ns_fd, &home_st) < 0)
		return negative_errno();
	home_fd = home_ns_fd;
	return 0;
}

static void (*at_exit)(void);

void worker_at_exit(void (*fn)(void))
{
	at_exit = fn;
}

void worker_run_at_exit(void)
{
	if (at_exit)
		at_exit();
}

static int host_dirs[_WORKER_HOST_DIR_MAX] = {-EBADF, -EBADF, -EBADF, -EBADF};

static const char *const host_paths[_WORKER_HOST_DIR_MAX] = {
	[WORKER_HOST_ROOT] = "/",
	[WORKER_HOST_PROC] = "/proc",
	[WORKER_HOST_SYS_DEV_BLOCK] = "/sys/dev/block",
	[WORKER_HOST_RUN] = "/run/mountd",
};

void worker_keep_host_dirs(void)
{
	/* Best effort: without them the target's own paths serve. */
	for (size_t i = 0; i < _WORKER_HOST_DIR_MAX; i++)
		host_dirs[i] = open(host_paths[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int worker_host_dir(WorkerHostDir d)
{
	return host_dirs[d];
}

int worker_run_dir(const char *sub, uid_t principal, bool create)
{
	int run = worker_host_dir(WORKER_HOST_RUN), fd;
	_cleanup_close_ int top = -EBADF;
	char name[32];

	if (run < 0)
		return -ENOENT;
	if (create && mkdirat(run, sub, 0700) < 0 && errno != EEXIST)
		return negative_errno();
	top = openat(run, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (top < 0)
		return negative_errno();
	snprintf(name, sizeof(name), "%u", (unsigned)principal);
	if (create && mkdirat(top, name, 0700) < 0 && errno != EEXIST)
		return negative_errno();
	fd = openat(top, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? negative_errno() : fd;
}

int worker_host_openat(WorkerHostDir d, const char *rel, int flags)
{
	char path[PATH_MAX];
	int fd;

	if (host_dirs[d] >= 0)
		fd = openat(host_dirs[d], rel, flags);
	else if (snprintf(path, sizeof(path), "%s/%s", host_paths[d], rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	else
		fd = open(path, flags);
	return fd < 0 ? negative_errno() : fd;
}

FILE *worker_host_fopen(WorkerHostDir d, const char *rel)
{
	int fd = worker_host_openat(d, rel, O_RDONLY | O_CLOEXEC);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "re");
	if (!f) {
		int k = errno;

		safe_close(fd);
		errno = k;
	}
	return f;
}

int worker_host_devname(dev_t rdev, char **ret)
{
	_cleanup_fclose_ FILE *f = NULL;
	char path[64], line[256];

	snprintf(path, sizeof(path), "%u:%u/uevent", major(rdev), minor(rdev));
	f = worker_host_fopen(WORKER_HOST_SYS_DEV_BLOCK, path);
	if (!f)
		return negative_errno();
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "DEVNAME=", 8) != 0)
			continue;
		line[strcspn(line, "\n")] = 0;
		/* A kernel name: no "..", nothing but a path below /dev. */
		if (!line[8] || strstr(line + 8, ".."))
			return -ENODEV;
		return asprintf(ret, "/dev/%s", line + 8) < 0 ? -ENOMEM : 0;
	}
	return -ENODEV;
}

int worker_host_block_attr(dev_t rdev, const char *attr, char *buf, size_t size)
{
	_cleanup_fclose_ FILE *f = NULL;
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%u:%u/%s", major(rdev), minor(rdev), attr) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	f = worker_host_fopen(WORKER_HOST_SYS_DEV_BLOCK, path);
	if (!f)
		return negative_errno();
	if (!fgets(buf, (int)size, f))
		return ferror(f) ? -EIO : -ENODATA;
	buf[strcspn(buf, "\n")] = 0;
	return *buf ? 0 : -ENODATA;
}

int worker_in_host_root(int (*fn)(void *userdata), void *userdata)
{
	_cleanup_close_ int here = -EBADF, cwd = -EBADF;
	int host = host_dirs[WORKER_HOST_ROOT], r;

	if (home_fd < 0 || host < 0)
		return fn(userdata);
	here = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (here < 0 || cwd < 0)
		return negative_errno();
	if (fchdir(host) < 0 || chroot(".") < 0) {
		r = negative_errno();
		if (fchdir(here) < 0 || chroot(".") < 0 || fchdir(cwd) < 0)
			_exit(1);
		return r;
	}
	r = fn(userdata);
	/* A worker left in mountd's root would serve the wrong tree. */
	if (fchdir(here) < 0 || chroot(".") < 0 || fchdir(cwd) < 0)
		_exit(1);
	return r;
}

int worker_host_open(const char *path, int flags)
{
	int host = host_dirs[WORKER_HOST_ROOT];
	struct open_how how = {
		.flags = (uint64_t)flags,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};

	long fd = home_fd < 0 || host < 0 ? open(path, flags)
					  : syscall(SYS_openat2, host, path, &how, sizeof(how));

	return fd < 0 ? negative_errno() : (int)fd;
}

static bool is_home(int fd)
{
	struct stat st;

	return fstat(fd, &st) >= 0 && stat_inode_same(&st, &home_st);
}

/* The directory fn resolves paths under: the namespace's root, or root
 * (resolved under it, as fn's paths are) where the request gave one. */
static int open_root(const char *root, MntLog *log)
{
	_cleanup_close_ int ns_root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	int fd, r;

	if (ns_root < 0) {
		mnt_log_fail(log, "open-root");
		return negative_errno();
	}
	if (!root)
		return TAKE_FD(ns_root);
	fd = mnt_resolve_in_root(ns_root, root, MNT_CREATE_NONE, "root", log);
	if (fd < 0)
		return fd;
	r = fstat(fd, &st) < 0 ? negative_errno() : S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	if (r < 0) {
		safe_close(fd);
		mnt_log_fail(log, "resolve:root");
		return r;
	}
	return fd;
}

/* fn in ns_fd's namespace: the worker's own (the common case: nothing to
 * do) or another (setns() there and back).  Its steps and failed step are
 * put into ret apart from the caller's log, for ops_worker_result() to
 * merge. */
static int run_here(int ns_fd, const char *root, const int *fds, WorkerFn fn, void *userdata,
		    const MntLog *log, WorkerReply *ret)
{
	MntLog inner = {.tracing = log && log->tracing, .trace_fd = log ? log->trace_fd : -EBADF};
	_cleanup_close_ int root_fd = -EBADF;
	bool away = ns_fd >= 0 && !is_home(ns_fd);
	uint64_t start = mnt_step_start();
	int r;

	/* "setns" is the step of being in the namespace: 0 µs when the
	 * worker already is. */
	r = away && setns(ns_fd, CLONE_NEWNS) < 0 ? negative_errno() : 0;
	if (mnt_log_result(&inner, "setns", start, r) >= 0) {
		root_fd = open_root(root, &inner);
		if (root_fd < 0)
			r = root_fd;
		else {
			r = fn(root_fd, fds, userdata, &inner, ret);
			if (r < 0 && !inner.failed_step[0])
				mnt_log_fail(&inner, "worker");
		}
	}
	/* A worker that cannot go home would serve the wrong namespace. */
	if (away && setns(home_fd, CLONE_NEWNS) < 0)
		_exit(1);
	ret->error = r < 0 ? r : 0;
	if (r < 0) {
		worker_reply_done(ret);
		ret->n_fds = 0;
	}
	memcpy(ret->failed_step, inner.failed_step, sizeof(ret->failed_step));
	ret->n_steps = MIN(inner.n_steps, (size_t)WORKER_STEPS_MAX);
	memcpy(ret->steps, inner.steps, sizeof(MntStep) * ret->n_steps);
	/* The trace fd is the request's, not ours to close. */
	inner.tracing = false;
	inner.trace_fd = -EBADF;
	mnt_log_done(&inner);
	return 0;
}

int worker_in_namespace(int ns_fd, const char *root, const int *fds, size_t n_fds, WorkerFn fn,
			void *userdata, const MntLog *log, WorkerReply *ret)
{
	*ret = (WorkerReply){};
	if (n_fds > WORKER_FDS_MAX)
		return -E2BIG;
	/* setns() changes the whole process: never mountd's own. */
	if (home_fd < 0) {
		snprintf(ret->failed_step, sizeof(ret->failed_step), "worker");
		return -EPERM;
	}
	return run_here(ns_fd, root, fds, fn, userdata, log, ret);
}
