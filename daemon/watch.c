/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/queue.h>

#include "util.h"
#include "watch.h"

/* The timer catches changes in namespaces we have no mountinfo file to poll
 * for (named by an nsfs fd only). */
#define WATCH_RESCAN_USEC (1000 * 1000)

struct Watch {
	OpsWatch *ops;
	sd_event_source *timer, *mountinfo, *pidfd;
	const WatchCallbacks *cb;
	void *userdata;
	LIST_ENTRY(Watch) link;
};

/* Every watch, so that a stopping mountd can end them all. */
static LIST_HEAD(, Watch) watches = LIST_HEAD_INITIALIZER(watches);

Watch *watch_free(Watch *w)
{
	if (!w)
		return NULL;
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

static void watch_update(Watch *w)
{
	OpsWatchEvent *events = NULL;
	size_t n = 0;
	int r;

	r = ops_watch_poll(w->ops, &events, &n);
	if (r == -ENOENT || r == -ESRCH) {
		watch_end(w, 0);
		return;
	}
	if (r < 0) {
		watch_end(w, r);
		return;
	}
	for (size_t i = 0; i < n; i++)
		w->cb->event(w, &events[i], w->userdata);
	ops_watch_events_free(events, n);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)usec;
	(void)sd_event_source_set_time_relative(s, WATCH_RESCAN_USEC);
	watch_update(userdata);
	return 0;
}

static int on_mountinfo(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	(void)s;
	(void)fd;
	(void)revents;
	watch_update(userdata);
	return 0;
}

static int on_pidfd(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	(void)s;
	(void)fd;
	(void)revents;
	/* The process naming the namespace exited: the watch is over. */
	watch_end(userdata, 0);
	return 0;
}

int watch_new(sd_event *event, const OpsNamespace *ns, const WatchCallbacks *cb, void *userdata,
	      Watch **ret, MntLog *log)
{
	Watch *w;
	int r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (Watch){.cb = cb, .userdata = userdata};
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
