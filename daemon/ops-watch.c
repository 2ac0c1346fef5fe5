/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Watch: differences between successive listmount()/statmount() snapshots
 * of a namespace.  Only the namespace id is kept, not an fd on it, so the
 * watch does not keep the namespace alive: once its last user is gone
 * listmount() fails with ENOENT and the watch ends.  /proc/<pid>/mountinfo
 * signals POLLPRI on every change, so when a process is known the front end
 * polls it instead of waiting for its timer.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ops-internal.h"
#include "util.h"

struct OpsWatch {
	uint64_t ns_id;
	pid_t pid;
	int mountinfo_fd;
	int pidfd;
	OpsListResult last;
};

OpsWatch *ops_watch_free(OpsWatch *w)
{
	if (!w)
		return NULL;
	safe_close(w->mountinfo_fd);
	safe_close(w->pidfd);
	ops_list_result_done(&w->last);
	free(w);
	return NULL;
}

static int entry_cmp(const void *a, const void *b)
{
	uint64_t x = ((const OpsMountEntry *)a)->id, y = ((const OpsMountEntry *)b)->id;

	return x < y ? -1 : x > y;
}

/* Snapshots are kept in id order (listmount()'s own), so that comparing
 * two of n mounts costs n log n, not n²: 5000 mounts are 25 million
 * comparisons the other way, per change, in the loop. */
static void sort_by_id(OpsListResult *l)
{
	if (l->n_mounts > 1)
		qsort(l->mounts, l->n_mounts, sizeof(OpsMountEntry), entry_cmp);
}

int ops_watch_new(const OpsNamespace *ns, OpsWatch **ret, MntLog *log)
{
	OpsWatch *w;
	int r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->mountinfo_fd = w->pidfd = -EBADF;
	r = ops_namespace_id(ns, &w->ns_id, log);
	if (r < 0)
		return ops_watch_free(w), r;
	w->pid = ops_namespace_pid(ns);
	if (w->pid > 0) {
		char p[64];

		snprintf(p, sizeof(p), "/proc/%d/mountinfo", (int)w->pid);
		w->mountinfo_fd = open(p, O_RDONLY | O_CLOEXEC);
		if (ns->pidfd >= 0)
			w->pidfd = fcntl(ns->pidfd, F_DUPFD_CLOEXEC, 3);
		else
			w->pidfd = (int)syscall(SYS_pidfd_open, w->pid, 0);
		if (w->pidfd < 0)
			w->pidfd = -EBADF;
	}
	r = ops_list_by_id(w->ns_id, w->pid, &w->last, log);
	if (r < 0)
		return ops_watch_free(w), r;
	sort_by_id(&w->last);
	*ret = w;
	return 0;
}

int ops_watch_mountinfo_fd(OpsWatch *w)
{
	return w->mountinfo_fd;
}

int ops_watch_pidfd(OpsWatch *w)
{
	return w->pidfd;
}

void ops_watch_events_free(OpsWatchEvent *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ops_mount_entry_done(&e[i].mount);
	free(e);
}

static const OpsMountEntry *find(const OpsListResult *l, uint64_t id)
{
	OpsMountEntry key = {.id = id};

	return l->n_mounts ? bsearch(&key, l->mounts, l->n_mounts, sizeof(OpsMountEntry), entry_cmp)
			   : NULL;
}

static int push(OpsWatchEvent **events, size_t *n, OpsWatchEventType type, OpsMountEntry *m)
{
	OpsWatchEvent *e = reallocarray(*events, *n + 1, sizeof(OpsWatchEvent));

	if (!e)
		return -ENOMEM;
	*events = e;
	e[*n] = (OpsWatchEvent){.type = type, .mount = *m};
	*m = (OpsMountEntry){}; /* moved */
	(*n)++;
	return 0;
}

int ops_watch_poll(OpsWatch *w, OpsWatchEvent **ret, size_t *ret_n)
{
	_cleanup_(ops_list_result_done) OpsListResult now = {};
	OpsWatchEvent *events = NULL;
	size_t n = 0;
	int r;

	*ret = NULL;
	*ret_n = 0;
	if (w->mountinfo_fd >= 0) {
		/* Re-arm the POLLPRI edge: it fires until the file is read. */
		char buf[4096];
		(void)lseek(w->mountinfo_fd, 0, SEEK_SET);
		while (read(w->mountinfo_fd, buf, sizeof(buf)) > 0)
			;
	}
	r = ops_list_by_id(w->ns_id, w->pid, &now, NULL);
	if (r < 0)
		return r;
	sort_by_id(&now);

	for (size_t i = 0; i < now.n_mounts && r >= 0; i++) {
		const OpsMountEntry *old = find(&w->last, now.mounts[i].id);

		if (!old || !ops_mount_entry_equal(old, &now.mounts[i])) {
			OpsMountEntry copy = now.mounts[i];

			/* The snapshot keeps its entries; events get copies. */
			copy.fstype = copy.fstype ? strdup(copy.fstype) : NULL;
			copy.source = copy.source ? strdup(copy.source) : NULL;
			copy.root = copy.root ? strdup(copy.root) : NULL;
			copy.mount_point = copy.mount_point ? strdup(copy.mount_point) : NULL;
			copy.options = copy.options ? strdup(copy.options) : NULL;
			r = push(&events, &n, old ? OPS_WATCH_CHANGED : OPS_WATCH_ADDED, &copy);
			ops_mount_entry_done(&copy);
		}
	}
	for (size_t i = 0; i < w->last.n_mounts && r >= 0; i++)
		if (!find(&now, w->last.mounts[i].id))
			/* Moved out of the old snapshot, which is replaced. */
			r = push(&events, &n, OPS_WATCH_REMOVED, &w->last.mounts[i]);
	if (r < 0) {
		ops_watch_events_free(events, n);
		return r;
	}
	ops_list_result_done(&w->last);
	w->last = now;
	now = (OpsListResult){};
	*ret = events;
	*ret_n = n;
	return 0;
}
