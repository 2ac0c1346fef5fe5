/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * An operation on its way through job.c, the same for both front ends: the
 * decoded request, moved in from the method, and what the operation leaves
 * — its result, its log (steps, messages, trace fd) and its return value.
 * The changes run this way, and Info, which touches the filesystem and can
 * hang with it (statfs() on a FUSE mount whose server does not answer).
 */

#include <stddef.h>

#include "mnt.h"
#include "ops.h"

typedef enum OpsCallKind {
	OPS_CALL_CREATE,
	OPS_CALL_BIND,
	OPS_CALL_RECONFIGURE,
	OPS_CALL_SETATTR,
	OPS_CALL_MOVE,
	OPS_CALL_UNMOUNT,
	OPS_CALL_INFO,
	_OPS_CALL_KIND_MAX,
} OpsCallKind;

typedef struct OpsCall {
	OpsCallKind kind;
	void *req;	    /* the Ops*Request of kind, owned */
	OpsMountResult res; /* Create and Bind */
	OpsInfoResult info; /* Info */
	MntLog log;
	int r;
} OpsCall;

/* Move req (an Ops*Request of kind, size bytes) and log into c.  The
 * caller's copies are left zeroed, which their cleanup functions take as
 * empty.  The request's fds stay borrowed: the front end keeps what owns
 * them (the call, the message) until ops_call_done(). */
int ops_call_init(OpsCall *c, OpsCallKind kind, void *req, size_t size, MntLog *log);
/* In a job thread: run the operation, then close the trace (its reader sees
 * EOF before the reply). */
void ops_call_run(OpsCall *c);
void ops_call_done(OpsCall *c);
