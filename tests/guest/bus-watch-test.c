/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A client of io.mountd1's Watch: its signals are sent to the watching
 * connection alone, which busctl and gdbus cannot show.
 *   bus-watch-test [--pid PID] [--stop-at MOUNTPOINT]
 *       Watch the namespace of PID (default: ours) and print one line per
 *       signal: "path P", "ready", "event added|removed|changed MOUNTPOINT
 *       FSTYPE", "gone REASON".  Exits 0 after Gone; with --stop-at, calls
 *       Stop after an event of MOUNTPOINT and prints "stopped".
 *   bus-watch-test --many N [--hold]
 *       Ask for N watches on one connection; prints "ok" for each, then
 *       the D-Bus error name of the first refusal.  --hold: then keep the
 *       connection (and its watches) until killed.
 * Exit status 1 on a failed call (the error is printed), 2 on bad usage.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-bus.h>

#include "util.h"

#define DEST "io.mountd1", "/io/mountd1", "io.mountd1.Manager"

typedef struct State {
	sd_bus *bus;
	const char *path;
	const char *stop_at;
	bool done;
	int status;
} State;

static void state_done(State *s)
{
	free((char *)s->path);
	sd_bus_flush_close_unref(s->bus);
}

static int fail(const char *what, int r, const sd_bus_error *e)
{
	printf("error %s %s: %s\n", what, e && e->name ? e->name : "",
	       e && e->message ? e->message : strerror(-r));
	fflush(stdout);
	return 1;
}

static int call_watch(sd_bus *bus, int pid, const char **ret_path, sd_bus_error *e)
{
	sd_bus_message *reply = NULL;
	const char *path;
	int r;

	if (pid > 0)
		r = sd_bus_call_method(bus, DEST, "Watch", e, &reply, "a{sv}", 1, "namespace",
				       "a{sv}", 1, "pid", "u", (unsigned)pid);
	else
		r = sd_bus_call_method(bus, DEST, "Watch", e, &reply, "a{sv}", 0);
	if (r < 0)
		return r;
	r = sd_bus_message_read(reply, "o", &path);
	if (r >= 0)
		*ret_path = strdup(path);
	sd_bus_message_unref(reply);
	return r < 0 ? r : 0;
}

static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	State *s = userdata;
	const char *member = sd_bus_message_get_member(m), *event, *fstype, *mount_point;
	bool stop = false;
	int r;

	if (!s->path || strcmp(sd_bus_message_get_path(m), s->path) != 0)
		return 0;
	if (strcmp(member, "Ready") == 0)
		printf("ready\n");
	else if (strcmp(member, "Gone") == 0) {
		const char *reason = "?";

		(void)sd_bus_message_read(m, "s", &reason);
		printf("gone %s\n", reason);
		s->done = true;
	} else if (strcmp(member, "Event") == 0) {
		uint64_t id, parent;
		uint32_t old_id, old_parent;
		const char *source, *root;

		r = sd_bus_message_read(m, "s", &event);
		if (r >= 0)
			r = sd_bus_message_enter_container(m, 'r', "ttuusssssa{sv}stts");
		if (r >= 0)
			r = sd_bus_message_read(m, "ttuussss", &id, &parent, &old_id, &old_parent,
						&fstype, &source, &root, &mount_point);
		if (r < 0) {
			printf("bad event: %s\n", strerror(-r));
			s->done = true;
			s->status = 1;
		} else {
			printf("event %s %s %s\n", event, mount_point, fstype);
			stop = s->stop_at && strcmp(mount_point, s->stop_at) == 0;
		}
	} else
		printf("unexpected %s\n", member);
	fflush(stdout);

	if (stop) {
		_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

		r = sd_bus_call_method(s->bus, "io.mountd1", s->path, "io.mountd1.Watch", "Stop",
				       &e, NULL, "");
		if (r < 0)
			s->status = fail("Stop", r, &e);
		else
			printf("stopped\n");
		fflush(stdout);
		sd_bus_error_free(&e);
		s->done = true;
	}
	return 0;
}

static int many(sd_bus *bus, long n, bool hold)
{
	for (long i = 0; i < n; i++) {
		_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
		const char *path = NULL;
		int r = call_watch(bus, 0, &path, &e);

		if (r < 0) {
			printf("refused %s\n", e.name ?: strerror(-r));
			sd_bus_error_free(&e);
			return 0;
		}
		printf("ok %s\n", path);
		fflush(stdout);
		free((char *)path);
	}
	while (hold)
		if (sd_bus_wait(bus, UINT64_MAX) < 0 || sd_bus_process(bus, NULL) < 0)
			break;
	return 0;
}

int main(int argc, char **argv)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(state_done) State s = {};
	int pid = 0, r;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--pid") == 0 && i + 1 < argc)
			pid = atoi(argv[++i]);
		else if (strcmp(argv[i], "--stop-at") == 0 && i + 1 < argc)
			s.stop_at = argv[++i];
		else if (strcmp(argv[i], "--many") == 0 && i + 1 < argc) {
			r = sd_bus_open_system(&s.bus);
			if (r < 0)
				return fail("system bus", r, NULL);
			i++;
			return many(s.bus, atol(argv[i]),
				    i + 1 < argc && strcmp(argv[i + 1], "--hold") == 0);
		} else {
			fprintf(stderr,
				"usage: bus-watch-test [--pid PID] [--stop-at MOUNTPOINT] | "
				"--many N\n");
			return 2;
		}
	}

	r = sd_bus_open_system(&s.bus);
	if (r < 0)
		return fail("system bus", r, NULL);
	/* Before the call, as for systemd's JobRemoved: Ready follows the
	 * reply at once, and sd-bus hands a match only what it reads after
	 * the match was added.  The path is checked in on_signal(). */
	r = sd_bus_match_signal(s.bus, NULL, NULL, NULL, "io.mountd1.Watch", NULL, on_signal, &s);
	if (r < 0)
		return fail("match", r, NULL);
	r = call_watch(s.bus, pid, &s.path, &e);
	if (r < 0)
		return fail("Watch", r, &e);
	printf("path %s\n", s.path);
	fflush(stdout);
	while (!s.done) {
		r = sd_bus_process(s.bus, NULL);
		if (r < 0)
			return fail("process", r, NULL);
		if (r > 0)
			continue;
		r = sd_bus_wait(s.bus, UINT64_MAX);
		if (r < 0)
			return fail("wait", r, NULL);
	}
	return s.status;
}
