/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A running watch of a namespace's mount table, for either front end: the
 * OpsWatch (ops-watch.c computes the differences) plus the sd-event sources
 * that say when to look — the mountinfo file's POLLPRI, a pidfd that
 * becomes readable when the namespace's process exits, and a 1 s timer for
 * namespaces named by an nsfs fd only.  The front end turns the callbacks
 * into varlink "continues" replies or D-Bus signals.
 */

#include <stddef.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#include "sys-mnt.h"
#include "ops.h"

typedef struct Watch Watch;

typedef struct WatchCallbacks {
	/* One change of the mount table.  A failure to pass it on (no
	 * memory, a dead connection) ends the watch with that error: a
	 * client missing one event would hold a wrong table without knowing. */
	int (*event)(Watch *w, const OpsWatchEvent *e, void *userdata);
	/* The watch is over: r == 0 when the namespace went away,
	 * -ESHUTDOWN when mountd stops, another negative errno when looking
	 * failed.  Called once, right before the watch frees itself; the
	 * front end drops its own state. */
	void (*end)(Watch *w, int r, void *userdata);
} WatchCallbacks;

/* Take the first snapshot and start watching for uid (the user who
 * answers for the caller); the front end then tells its client that the
 * watch is ready.  -EAGAIN (LimitExceeded) when uid, not root, holds
 * WATCH_PER_UID_MAX already.  Failures record their step in log. */
int watch_new(sd_event *event, const OpsNamespace *ns, uid_t uid, const WatchCallbacks *cb,
	      void *userdata, Watch **ret, MntLog *log);
/* Stop without the end callback (the client went away or asked to). */
Watch *watch_free(Watch *w);

/* End every watch of both front ends with -ESHUTDOWN (mountd stops):
 * streams never end on their own. */
void watch_end_all(void);
