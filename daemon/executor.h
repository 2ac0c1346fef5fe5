/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The executor: worker processes that run requests inside a target mount
 * namespace, supervised from the event loop.
 *
 * A worker is forked from mountd's single-threaded main process for a key —
 * (mount namespace, caller uid) — joins the namespace once with setns() and
 * then serves that key's requests one at a time, for as long as it is
 * reused: the common case, a request into a namespace already served, costs
 * no fork and no setns.  When all of a key's workers are busy another is
 * forked, up to EXEC_BUSY_PER_UID busy workers per user; that user's
 * further requests wait in its own queue (at most EXEC_QUEUED_PER_UID,
 * beyond which submitting fails with -EAGAIN), so one user never holds what
 * root or another user needs.  The user is the key's principal: a user's
 * subuids count as that user (shared/principal.h).
 *
 * Requests and replies are text (the executor does not look into them) and
 * fds, one SOCK_SEQPACKET message each way; a text too large for one
 * datagram travels in a sealed memfd.  The loop never blocks on a worker:
 * its socket and its pidfd are sd-event sources.  A request still running
 * at its deadline is answered with -ETIMEDOUT at once and its worker is
 * SIGKILLed with its process group: each worker is a process group of its
 * own, and whatever it forks (a helper acting as the caller,
 * executor-caller-sb.h, which ends when it finds the worker gone) is in
 * it.  A worker counts against its principal, whatever state it is in,
 * until every task of its group has ended and mountd has reaped it:
 * mountd is their subreaper, so what a dead worker leaves (a helper in D
 * state, its lookup held up by the caller's own FUSE server) is mountd's
 * child, not pid 1's (executor-reap.h).  Past the limit the user's
 * requests wait.  Workers exit when idle for a while, and at once when the
 * process that named their namespace exits: a worker must not keep a
 * namespace alive.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#define EXEC_BUSY_PER_UID 8U
/* Workers a user holds, busy, idle or killed, until every task of each
 * (the worker, and at most one child of its: two tasks) is reaped; past
 * it the least recently used idle one ends, or the job waits. */
#define EXEC_WORKERS_PER_UID 16U
/* Workers of all users but root: with a helper each (executor-caller-sb.c) still
 * below mountd.service's TasksMax=256, so root is always served. */
#define EXEC_WORKERS_MAX 112U
/* Root's workers, busy (EXEC_BUSY_PER_UID at most) and idle: past it its
 * least recently used idle one ends.  Root is never refused for want of a
 * worker, however many namespaces it has served (a node's containers): its
 * idle workers are a cache, not a claim on the unit's tasks. */
#define EXEC_WORKERS_ROOT   24U
#define EXEC_QUEUED_PER_UID 64U
#define EXEC_IDLE_USEC	    (10ULL * 1000 * 1000)
#define EXEC_FDS_MAX	    64U
/* The largest answer a worker writes to the client itself (one hop). */
#define EXEC_DIRECT_MAX (16U * 1024)

typedef struct Executor Executor;

typedef struct ExecKey {
	uint64_t mntns_id;
	uid_t uid;
	/* Not part of the key: whose busy and queued counts the job is
	 * (shared/principal.h), a user's subuids being that user's. */
	uid_t principal;
} ExecKey;

typedef struct ExecReply {
	char *json;
	int *fds;
	size_t n_fds;
	/* Filled by the executor for the done callback, not by a handler,
	 * both borrowed for the callback: the process that named the
	 * namespace (-EBADF: the job was submitted without one), and the
	 * namespace as an nsfs fd. */
	int owner_pidfd;
	int nsfs;
	/* Bytes of json (its NUL included) the worker wrote to the client's
	 * socket itself (executor_submit()'s reply_fd); 0: none. */
	size_t written;
} ExecReply;

void exec_reply_done(ExecReply *r);
/* In the done callback: has the process that named the namespace exited?
 * Polled now, only by a callback that asks (a read does not care). */
bool exec_reply_owner_gone(const ExecReply *r);

/* In a worker, inside the key's namespace: answer one request.  The
 * handler may close fds it is done with (setting them to -EBADF); the
 * worker closes the rest after it returns.  *ret->json is required on
 * success; a negative return means no answer (the submitter gets -EIO). */
typedef int (*ExecHandlerFn)(const char *request, int *fds, size_t n_fds, ExecReply *ret);

/* In the event loop, once per submitted request.  r == 0: reply is the
 * handler's answer (the callee may steal json and fds, setting them to
 * NULL / n_fds 0).  r < 0: -ETIMEDOUT, -ECONNRESET (the worker died), -EIO,
 * -ECANCELED (executor freed), -ECONNABORTED (any of those after the worker
 * began to write to the client's lent socket itself). */
typedef void (*ExecDoneFn)(int r, ExecReply *reply, void *userdata);

/* idle_usec: how long an idle worker stays (EXEC_IDLE_USEC by default). */
int executor_new(sd_event *event, ExecHandlerFn handler, uint64_t idle_usec, Executor **ret);
/* Kills every worker; done() of the requests not answered yet runs with
 * -ECANCELED. */
Executor *executor_free(Executor *x);

/* *mntns_fd: the key's namespace (a new worker setns()es into it);
 * *owner_pidfd (owner_pidfd NULL: none): the process that named it.  Both
 * are taken on success (set to -EBADF; the job keeps them until it ends,
 * which saves a copy and a close a request), left to the caller on
 * failure.  fds are borrowed: the executor keeps its own copies until they
 * are sent.  -EAGAIN when the uid has too many requests waiting. */
/* reply_fd (borrowed; -EBADF: none): the client's socket, lent for the
 * answer to go straight from the worker to the client, one hop, when it
 * has at most EXEC_DIRECT_MAX bytes and no fds; the done callback then
 * has reply->written, or r == -ECONNABORTED when the worker may have
 * written part of it and can no longer say (the connection must close). */
int executor_submit(Executor *x, const ExecKey *key, int *mntns_fd, int *owner_pidfd,
		    const char *request, const int *fds, size_t n_fds, int reply_fd,
		    uint64_t timeout_usec, ExecDoneFn done, void *userdata);

/* The root of mount namespace mntns_id as its workers see it (borrowed),
 * while a key of that namespace has workers; -EBADF otherwise.  Each
 * worker sends it once, after joining the namespace; it is closed with the
 * key's last worker, so it holds the namespace no longer than they do. */
int executor_namespace_root(Executor *x, uint64_t mntns_id);

/* Requests submitted whose done() has not run yet; workers counted (their
 * process groups not reaped to the last task). */
size_t executor_pending(Executor *x);
size_t executor_workers(Executor *x);
