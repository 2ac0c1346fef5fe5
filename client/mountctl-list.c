/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountctl list and watch: the namespace's mounts as findmnt shows them,
 * and each change of them as it happens.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "libmountd-client.h"
#include "mountctl.h"
#include "util.h"

/* ---- list, watch --------------------------------------------------------- */

/* A mount point as mountinfo spells it: no "//", "/./" or trailing "/". */
static void path_normalize(char *p)
{
	char *d = p;

	for (char *s = p; *s;) {
		if (s[0] == '/' && (s[1] == '/' || (s[1] == '.' && (s[2] == '/' || !s[2])))) {
			s += s[1] == '/' ? 1 : 2;
			continue;
		}
		*d++ = *s++;
	}
	*d = 0;
	while (d > p + 1 && d[-1] == '/')
		*--d = 0;
	if (!*p)
		strcpy(p, "/");
}

/* What list's options ask for (the argument apart). */
ListOptions list_options_of(const Ctx *c, const Args *a, ListStyle style)
{
	return (ListOptions){
		.style = style,
		.json = c->json,
		.columns = a->options,
		.types = a->fstype,
		.source = a->list_source,
		.submounts = a->recursive == 1,
	};
}

int cmd_list(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_json_ json_object *p = NULL;
	_cleanup_(mountd_reply_done) MountdReply reply = {};
	_cleanup_free_ char *target = NULL, *bad = NULL;
	ListOptions o = list_options_of(c, a,
					a->table  ? LIST_TABLE
					: a->flat ? LIST_FLAT
						  : LIST_TREE);
	json_object *mounts = NULL;
	int r;

	if (o.columns && output_list_columns_check(o.columns, &bad) < 0) {
		err(c, "unknown column '%s' for -o; see mountctl list --help", bad ?: o.columns);
		return EXIT_USAGE;
	}
	if (argc > 0) {
		bool own = c->ns_pid <= 0 && c->ns_pidfd < 0 && !c->ns_path;

		o.spec = argv[0];
		/* A relative path is one from the working directory, which
		 * another namespace does not have: there it is a source. */
		if (argv[0][0] == '/' || own) {
			r = absolute_path(c, argv[0], own, &target);
			if (r)
				return r;
			path_normalize(target);
			o.target = target;
		}
	}
	r = params_new(c, &p);
	if (r)
		return r;
	r = call_parts(c, "List", "mounts", p, &reply);
	if (r)
		return r;
	json_object_object_get_ex(reply.parameters, "mounts", &mounts);
	r = output_list(stdout, mounts, &o);
	if (r < 0) {
		err(c, "cannot format the reply: %s", strerror(-r));
		return EXIT_FAILED;
	}
	/* As findmnt: nothing matched what was asked for. */
	if (r == 0 && (o.spec || o.source || o.types))
		return EXIT_FAILED;
	return 0;
}

typedef struct WatchState {
	Ctx *c;
	long events, seen;
	int failed;
} WatchState;

static int watch_reply(MountdClient *client, MountdReply *reply, void *userdata)
{
	WatchState *w = userdata;
	json_object *ev = NULL;

	if (reply->error) {
		print_error(w->c, reply, NULL);
		w->failed = EXIT_FAILED;
		return 1;
	}
	output_watch_event(stdout, reply->parameters, w->c->json);
	json_object_object_get_ex(reply->parameters, "event", &ev);
	if (ev && !streq(json_object_get_string(ev), "ready") &&
	    !streq(json_object_get_string(ev), "gone") && w->events > 0 && ++w->seen >= w->events)
		return 1;
	return 0;
}

int cmd_watch(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_json_ json_object *p = NULL;
	WatchState w = {.c = c, .events = a->events};
	int r;

	r = params_new(c, &p);
	if (r)
		return r;
	r = connect_daemon(c);
	if (r)
		return r;
	/* Events come when they come: --timeout only when asked for. */
	mountd_client_set_timeout(c->client, c->timeout_set ? c->timeout_usec : 0);
	verbose_call(c, "Watch", p);
	r = mountd_client_call_more(c->client, "Watch", p, c->fds, c->n_fds, watch_reply, &w);
	drop_fds(c);
	if (r < 0) {
		err(c, "no answer from mountd: %s",
		    r == -ECONNRESET ? "connection closed" : strerror(-r));
		return EXIT_UNREACHABLE;
	}
	return w.failed;
}
