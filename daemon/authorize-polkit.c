/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Asking polkit (see authorize-polkit.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-bus.h>

#include "ops.h"
#include "authorize-polkit.h"
#include "sys-process.h"
#include "util.h"

static sd_bus *bus;

typedef struct PolkitQuery {
	sd_bus_slot *slot;
	PolkitDone done;
	void *userdata;
} PolkitQuery;

int polkit_setup(sd_event *event)
{
	int r = sd_bus_open_system(&bus);

	if (r >= 0)
		r = sd_bus_attach_event(bus, event, SD_EVENT_PRIORITY_NORMAL);
	if (r < 0)
		bus = sd_bus_flush_close_unref(bus);
	return r;
}

void polkit_shutdown(void)
{
	bus = sd_bus_flush_close_unref(bus);
}

/* The process's start time (field 22 of /proc/PID/stat), which with the
 * pid names one process for polkit; -ESRCH when it cannot be read. */
static int start_time(pid_t pid, uint64_t *ret)
{
	unsigned long long t;
	int r = proc_stat_number(pid, 22, &t);

	if (r < 0)
		return r == -EBADMSG ? r : -ESRCH;
	*ret = t;
	return 0;
}

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	PolkitQuery *q = userdata;
	int authorized = 0, challenge = 0, r;

	if (sd_bus_message_is_method_error(m, NULL))
		r = -sd_bus_error_get_errno(sd_bus_message_get_error(m)) ?: -EIO;
	else {
		r = sd_bus_message_enter_container(m, 'r', "bba{ss}");
		if (r >= 0)
			r = sd_bus_message_read(m, "bb", &authorized, &challenge);
		if (r >= 0)
			r = authorized ? 1 : 0;
	}
	q->done(r, q->userdata);
	sd_bus_slot_unref(q->slot);
	free(q);
	return 0;
}

int polkit_check(const AuthCaller *caller, const char *action, char *const *details,
		 bool interactive, PolkitDone done, void *userdata)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	_cleanup_free_ PolkitQuery *q = NULL;
	uint64_t start;
	pid_t again;
	int r;

	if (!bus)
		return -ENOTCONN;
	r = start_time(caller->pid, &start);
	if (r < 0)
		return r;
	/* The pid was not recycled between the caller's pidfd and /proc. */
	if (caller->pidfd < 0 || pidfd_get_pid(caller->pidfd, &again) < 0 || again != caller->pid)
		return -ESRCH;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	*q = (PolkitQuery){.done = done, .userdata = userdata};
	r = sd_bus_message_new_method_call(
		bus, &m, "org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
		"org.freedesktop.PolicyKit1.Authority", "CheckAuthorization");
	if (r >= 0)
		r = sd_bus_message_append(m, "(sa{sv})s", "unix-process", 3, "pid", "u",
					  (uint32_t)caller->pid, "start-time", "t", start, "uid",
					  "i", (int32_t)caller->id.uid, action);
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'a', "{ss}");
	for (size_t i = 0; r >= 0 && details && details[i] && details[i + 1]; i += 2)
		r = sd_bus_message_append(m, "{ss}", details[i], details[i + 1]);
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	if (r >= 0)
		r = sd_bus_message_append(m, "us", interactive ? 1U : 0U, "");
	if (r >= 0)
		/* An authentication prompt may take a while: no call timeout
		 * beyond sd-bus's default for interactive ones. */
		r = sd_bus_call_async(bus, &q->slot, m, on_reply, q,
				      interactive ? UINT64_C(300) * 1000 * 1000 : 0);
	if (r < 0)
		return r;
	TAKE_PTR(q);
	return 0;
}
