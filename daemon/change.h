/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A change (Create, Bind, Reconfigure, SetAttributes, Move, Unmount) on its
 * way through job.c, the same for both front ends: the decoded request,
 * moved in from the method, and what the operation leaves — its result,
 * its log (steps, messages, trace fd) and its return value.
 */

#include <stddef.h>

#include "mnt.h"
#include "ops.h"

typedef enum ChangeKind {
	CHANGE_CREATE,
	CHANGE_BIND,
	CHANGE_RECONFIGURE,
	CHANGE_SETATTR,
	CHANGE_MOVE,
	CHANGE_UNMOUNT,
	_CHANGE_KIND_MAX,
} ChangeKind;

typedef struct Change {
	ChangeKind kind;
	void *req;	    /* the Ops*Request of kind, owned */
	OpsMountResult res; /* Create and Bind */
	MntLog log;
	int r;
} Change;

/* Move req (an Ops*Request of kind, size bytes) and log into c.  The
 * caller's copies are left zeroed, which their cleanup functions take as
 * empty.  The request's fds stay borrowed: the front end keeps what owns
 * them (the call, the message) until change_done(). */
int change_init(Change *c, ChangeKind kind, void *req, size_t size, MntLog *log);
/* In a job thread: run the operation, then close the trace (its reader sees
 * EOF before the reply). */
void change_run(Change *c);
void change_done(Change *c);
