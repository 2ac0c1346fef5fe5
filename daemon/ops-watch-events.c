/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/queue.h>

#include "util.h"
#include "ops-watch-events.h"

/* The timer catches changes in namespaces we have no mountinfo file to poll
 * for (named by an nsfs fd only). */
#define WATCH_RESCAN_USEC (1000 * 1000)
/* Looking again costs a listmount() and a statmount() per mount, in the
 * loop: a watch looks at most every WATCH_MIN_USEC, and after a look that
 * took d, not again for WATCH_COST_FACTOR × d × the user's watches, so
 * that one user's watches keep the loop busy a tenth of the time at most,
 * however big its tables and however often they change.  Changes in
 * between come together in the next look. */
#define WATCH_MIN_USEC	  (100 * 1000)
#define WATCH_COST_FACTOR 10
/* Streams a user other than root may hold, over both front ends. */
#define WATCH_PER_UID_MAX 16

struct Watch {
	OpsWatch *ops;
	sd_event_source *timer, *mountinfo, *pidfd;
	const WatchCallbacks *cb;
	void *userdata;
	uid_t uid;
	uint64_t next_usec; /* CLOCK_MONOTONIC: not to look before */
	/* Inside the event callbacks: a front end may free the watch there
	 * (its client went away while an event was written); freed then
	 * once they return. */
	bool delivering, freed;
	LIST_ENTRY(Watch) link;
};

/* Every watch, so that a stopping mountd can end them all. */
static LIST_HEAD(, Watch) watches = LIST_HEAD_INITIALIZER(watches);

Watch *watch_free(Watch *w)
{
	if (!w)
		return NULL;
	if (w->delivering) {
		w->freed = true;
		return NULL;
	}
	LIST_REMOVE(w, link);
	sd_event_source_disable_unref(w->timer);
	sd_event_source_disable_unref(w->mountinfo);
	sd_event_source_disable_unref(w->pidfd);
	ops_watch_free(w->ops);
	free(w);
	return NULL;
}

static void watch_end(Watch *w, int r)
{
	w->cb->end(w, r, w->userdata);
	watch_free(w);
}

void watch_end_all(void)
{
	while (!LIST_EMPTY(&watches))
		watch_end(LIST_FIRST(&watches), -ESHUTDOWN);
}

static size_t watches_of(uid_t uid)
{
	size_t n = 0;
	Watch *w;

	LIST_FOREACH(w, &watches, link)
	n += w->uid == uid;
	return n;
}

static void watch_update(Watch *w)
{
	OpsWatchEvent *events = NULL;
	/* mnt_step_start(): CLOCK_MONOTONIC in µs, as sd-event's timers. */
	uint64_t start = mnt_step_start(), end;
	size_t n = 0;
	int r;

	r = ops_watch_poll(w->ops, &events, &n);
	end = mnt_step_start();
	w->next_usec = end + MAX((uint64_t)WATCH_MIN_USEC,
				 (end - start) * WATCH_COST_FACTOR * watches_of(w->uid));
	if (r == -ENOENT || r == -ESRCH) {
		watch_end(w, 0);
		return;
	}
	if (r < 0) {
		watch_end(w, r);
		return;
	}
	w->delivering = true;
	for (size_t i = 0; r >= 0 && !w->freed && i < n; i++)
		r = w->cb->event(w, &events[i], w->userdata);
	w->delivering = false;
	ops_watch_events_free(events, n);
	if (w->freed)
		watch_free(w);
	else if (r < 0)
		watch_end(w, r);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	Watch *w = userdata;

	(void)sd_event_source_set_time_relative(s, WATCH_RESCAN_USEC);
	/* A change seen too early waits here. */
	if (w->mountinfo)
		(void)sd_event_source_set_enabled(w->mountinfo, SD_EVENT_ON);
	watch_update(w);
	return 0;
}

static int on_mountinfo(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Watch *w = userdata;

	if (mnt_step_start() < w->next_usec) {
		/* POLLPRI stays until the file is read: off until the timer
		 * says it is time, which then looks. */
		(void)sd_event_source_set_enabled(s, SD_EVENT_OFF);
		(void)sd_event_source_set_time(w->timer, w->next_usec);
		return 0;
	}
	watch_update(w);
	return 0;
}

static int on_pidfd(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	/* The process naming the namespace exited: the watch is over. */
	watch_end(userdata, 0);
	return 0;
}

int watch_new(sd_event *event, const OpsNamespace *ns, uid_t uid, const WatchCallbacks *cb,
	      void *userdata, Watch **ret, MntLog *log)
{
	Watch *w;
	int r;

	if (uid != 0 && watches_of(uid) >= WATCH_PER_UID_MAX)
		return -EAGAIN;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (Watch){.cb = cb, .userdata = userdata, .uid = uid};
	r = ops_watch_new(ns, &w->ops, log);
	if (r < 0) {
		free(w);
		return r;
	}
	LIST_INSERT_HEAD(&watches, w, link);

	r = sd_event_add_time_relative(event, &w->timer, CLOCK_MONOTONIC, WATCH_RESCAN_USEC, 0,
				       on_timer, w);
	if (r >= 0)
		r = sd_event_source_set_enabled(w->timer, SD_EVENT_ON);
	if (r >= 0 && ops_watch_mountinfo_fd(w->ops) >= 0)
		r = sd_event_add_io(event, &w->mountinfo, ops_watch_mountinfo_fd(w->ops), EPOLLPRI,
				    on_mountinfo, w);
	if (r >= 0 && ops_watch_pidfd(w->ops) >= 0)
		r = sd_event_add_io(event, &w->pidfd, ops_watch_pidfd(w->ops), EPOLLIN, on_pidfd,
				    w);
	if (r < 0) {
		watch_free(w);
		return r;
	}
	*ret = w;
	return 0;
}
