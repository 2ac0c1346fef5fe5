/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Work inside another mount namespace.  setns() changes the whole calling
 * process's view of the filesystem, so the daemon never calls it itself: a
 * forked child joins the namespace, runs one function and reports back over
 * a socketpair (a small fixed struct plus mount/path fds as SCM_RIGHTS), then
 * exits.  The child inherits the parent's fds, which is how request fds
 * reach it; everything it hands back travels over the socket.
 */

#include <stddef.h>
#include <stdint.h>

#include "mnt.h"

#define WORKER_FDS_MAX	  4
#define WORKER_TIMEOUT_MS (60 * 1000)

typedef struct WorkerReply {
	int error; /* 0 or negative errno */
	char failed_step[MNT_STEP_MAX];
	uint64_t value; /* function-specific */
	int fds[WORKER_FDS_MAX];
	size_t n_fds;
} WorkerReply;

void worker_reply_done(WorkerReply *r);

/* Runs in the child with root_fd = "/" of the joined namespace.  Returns 0 or
 * a negative errno; puts fds to send back into reply->fds (the child exits
 * right after, so ownership does not matter there) and the failing step into
 * log (only failed_step travels back). */
typedef int (*WorkerFn)(int root_fd, void *userdata, MntLog *log, WorkerReply *reply);

/* ns_fd: an nsfs mount namespace fd or a pidfd (setns() takes both).
 * Returns 0 when the child ran fn (its own result is in ret->error), negative
 * errno when the worker itself failed (ret->failed_step says where: "fork",
 * "setns", ...).  ret is always initialised. */
int worker_run(int ns_fd, WorkerFn fn, void *userdata, WorkerReply *ret);
