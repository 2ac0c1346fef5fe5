/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Work inside a given mount namespace.  setns() changes the whole calling
 * process's view of the filesystem, so mountd's main process never calls
 * it: operations run in executor workers (executor.c), each of which has
 * joined its namespace for good (worker_set_home()).  worker_in_namespace() there
 * runs a function in a namespace — the worker's own, which costs nothing,
 * or another one (Bind's source), setns() there and back — and reports as
 * a separate step list, so that the operation's log reads the same either
 * way.  Called anywhere else it refuses (-EPERM).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "sys-mnt.h"

#define WORKER_FDS_MAX	 4
#define WORKER_STEPS_MAX 16

typedef struct WorkerReply {
	int error; /* 0 or negative errno */
	char failed_step[MNT_STEP_MAX];
	/* The first steps that succeeded in fn, "setns" first. */
	MntStep steps[WORKER_STEPS_MAX];
	size_t n_steps;
	uint64_t value; /* function-specific */
	int fds[WORKER_FDS_MAX];
	size_t n_fds;
} WorkerReply;

void worker_reply_done(WorkerReply *r);

/* Runs in the namespace with root_fd = its "/" and the fds passed to
 * worker_in_namespace().  Returns 0 or a negative errno; puts fds for the caller
 * into reply->fds (the caller owns them after) and the failing step into
 * log (it travels back in reply). */
typedef int (*WorkerFn)(int root_fd, const int *fds, void *userdata, MntLog *log,
			WorkerReply *reply);

/* Directories of mountd's own namespace that a worker opens before it
 * joins its target (worker_keep_host_dirs()) and keeps: its own mountinfo
 * is readable through the host's /proc whatever /proc the target has (a
 * container's shows no process outside its pid namespace), and block
 * devices are named after the host's /sys; mountd's records of what it is
 * about to create (daemon/ops-leftovers.c) live in its own /run/mountd.
 * -EBADF in mountd itself, where the absolute paths serve. */
typedef enum WorkerHostDir {
	WORKER_HOST_ROOT,	   /* / (worker_in_host_root()) */
	WORKER_HOST_PROC,	   /* /proc */
	WORKER_HOST_SYS_DEV_BLOCK, /* /sys/dev/block */
	WORKER_HOST_RUN,	   /* /run/mountd */
	_WORKER_HOST_DIR_MAX,
} WorkerHostDir;

void worker_keep_host_dirs(void);
int worker_host_dir(WorkerHostDir d);
/* mountd's records for one user: /run/mountd/SUB/PRINCIPAL/ (in mountd's
 * root), made 0700 as needed when create; -ENOENT without mountd's /run
 * (the records' absence, not an error, to callers that keep none then). */
int worker_run_dir(const char *sub, uid_t principal, bool create);
/* openat() of rel below host directory d (its absolute path in mountd
 * itself); negative errno.  And the same as a FILE to read (errno set). */
int worker_host_openat(WorkerHostDir d, const char *rel, int flags);
FILE *worker_host_fopen(WorkerHostDir d, const char *rel);
/* "/dev/" + the DEVNAME of block device rdev in mountd's /sys, into *ret
 * (to be freed): the kernel's own name for it, made by devtmpfs before
 * the device is announced, so there without waiting for udev. */
int worker_host_devname(dev_t rdev, char **ret);
/* The first line of attribute attr ("diskseq", "dm/name") of block device
 * rdev in mountd's /sys, without its newline, into buf; -ENOENT when the
 * device (or it) has no such attribute, -ENODATA when it is empty. */
int worker_host_block_attr(dev_t rdev, const char *attr, char *buf, size_t size);

/* fn with the worker's "/" and working directory at mountd's own root, and
 * back: the names the kernel resolves in fn (a block device the superblock
 * opens, /dev/loop-control) are mountd's, which no user can plant, not the
 * target namespace's, whose /dev a rootless container makes itself.  In
 * mountd itself fn simply runs.  A worker that cannot go back exits. */
int worker_in_host_root(int (*fn)(void *userdata), void *userdata);
/* open() of an absolute path of mountd's own tree, resolved inside it
 * (RESOLVE_IN_ROOT); a plain open() in mountd itself. */
int worker_host_open(const char *path, int flags);

/* In an executor worker, which has joined home_ns_fd's namespace for good
 * (the fd is kept): worker_in_namespace() may be called from now on. */
int worker_set_home(int home_ns_fd);

/* ns_fd: an nsfs mount namespace fd or a pidfd (setns() takes both).
 * root: NULL, or a directory of the namespace under which fn's root_fd is
 * (resolved in the namespace's root, as fn resolves its paths in root_fd).
 * log: the request's, whose trace fn's steps go to as they happen (or
 * NULL).  Returns 0 when fn ran (its own result is in ret->error),
 * negative errno when it could not (ret->failed_step says where).  ret is
 * always initialised. */
int worker_in_namespace(int ns_fd, const char *root, const int *fds, size_t n_fds, WorkerFn fn,
			void *userdata, const MntLog *log, WorkerReply *ret);

/* fn runs when the worker ends because mountd is done with it (its socket
 * closed): what the worker started for itself and must not leave behind,
 * such as a helper it kept (executor-caller-sb.c).  One function. */
void worker_at_exit(void (*fn)(void));
void worker_run_at_exit(void);
