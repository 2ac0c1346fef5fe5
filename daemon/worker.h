/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Work inside another mount namespace.  setns() changes the whole calling
 * process's view of the filesystem, so the daemon never calls it itself: a
 * forked child joins the namespace, runs one function and reports back.
 * Both ways go over a socketpair: the request's fds (a mount fd to attach,
 * a source or user namespace fd) to the child as SCM_RIGHTS, after which it
 * closes everything else it inherited; the result back as a small fixed
 * struct plus mount/path fds.  The child then exits.
 */

#include <stddef.h>
#include <stdint.h>

#include "mnt.h"

#define WORKER_FDS_MAX	  4
#define WORKER_STEPS_MAX  16
#define WORKER_TIMEOUT_MS (60 * 1000)

typedef struct WorkerReply {
	int error; /* 0 or negative errno */
	char failed_step[MNT_STEP_MAX];
	/* The first steps that succeeded in the child, "setns" included. */
	MntStep steps[WORKER_STEPS_MAX];
	size_t n_steps;
	uint64_t value; /* function-specific */
	int fds[WORKER_FDS_MAX];
	size_t n_fds;
} WorkerReply;

void worker_reply_done(WorkerReply *r);

/* Runs in the child with root_fd = "/" of the joined namespace and fds =
 * the fds passed to worker_run(), in order (renumbered).  Returns 0 or
 * a negative errno; puts fds to send back into reply->fds (the child exits
 * right after, so ownership does not matter there) and the failing step into
 * log (failed_step and steps travel back; the child makes no fs_context
 * whose messages it would have to send). */
typedef int (*WorkerFn)(int root_fd, const int *fds, void *userdata, MntLog *log,
			WorkerReply *reply);

/* In an executor worker, which has joined home_ns_fd's namespace for good:
 * from now on worker_run() runs fn in this process — directly when ns_fd is
 * that namespace, else setns() there and back — and never forks.  Taken
 * (kept open for good). */
int worker_set_home(int home_ns_fd);

/* ns_fd: an nsfs mount namespace fd or a pidfd (setns() takes both).
 * log: the request's, whose trace the child writes to as well (or NULL).
 * Returns 0 when the child ran fn (its own result is in ret->error), negative
 * errno when the worker itself failed (ret->failed_step says where: "fork",
 * "setns", ...).  ret is always initialised. */
int worker_run(int ns_fd, const int *fds, size_t n_fds, WorkerFn fn, void *userdata,
	       const MntLog *log, WorkerReply *ret);
