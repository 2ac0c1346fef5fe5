/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The D-Bus front end of the mount operations: io.mountd1 on the system
 * bus, object /io/mountd1, interface io.mountd1.Manager.  Generic over the
 * operation table (ops-table.c), like the varlink one: a call's arguments
 * become the JSON parameters io.mountd.Mount takes, request.c serves them,
 * and the JSON answer becomes the D-Bus reply.  The vtable and so the
 * introspection are generated from the table.
 *
 * Shape of the API: the arguments the table lists for a method come
 * positionally (a string "" means absent where the field is optional);
 * everything else travels in a trailing "a{sv} options" with the varlink
 * parameter names, nested objects as nested a{sv} ("placement" → {"path",
 * "create", "beneath", "namespace" → {"pid", "pidfd", "mntnsFd"}}).  Field
 * names in errors are dotted paths ("placement.namespace.pid").  File
 * descriptors are "h" values.
 *
 *   Create(s fsType, a(ssv) parameters, a{sv} options)
 *       → (t mountId, ah fd, s fsType, s loopDevice, a(sss) messages, a(st) steps)
 *   Bind(s sourcePath, a{sv} options) → (t mountId, ah fd, a(st) steps)
 *   Reconfigure(s path, a(ssv) parameters, a{sv} options)
 *       → (a(sss) messages, a(st) steps)
 *   SetAttributes(s path, a{sv} options) → (a(st) steps)
 *   Move(s from, s to, a{sv} options) → (a(st) steps)
 *   Unmount(s path, a{sv} options) → (a(st) steps)
 *   Info(s path, a{sv} options) → (s source, s attribute, a(sv) values)
 *   List(a{sv} options) → (a(ttuusssssa{sv}stts) mounts)
 *   Watch(a{sv} options) → (o watch)   see "Watch" below
 *
 * A parameter is (key, type, value) with type one of flag, string, binary,
 * path, path_empty, fd and value a variant: "s" (string, path), "ay"
 * (binary), "h" (fd, path_empty), "(hs)" (path or path_empty relative to a
 * directory fd), "b" true for a flag.  The detached mount comes back in
 * "ah fd" (empty when placed): D-Bus has no null fd.  attributes is
 * {readOnly b, noSuid b, noDev b, noExec b, atime s, noDiratime b,
 * noSymfollow b}; a message is (step, level, text), a step that succeeded
 * (step, microseconds), as in the varlink replies.
 *
 * The six changes also take "traceFd" h in their options: the write end of
 * a pipe that gets each step and kernel message as it happens, as for
 * varlink (see io.mountd.Mount.varlink); here the reader sees EOF only
 * after the reply, when the message holding the fd is gone.
 *
 * The caller is the bus sender: without a namespace in the request, the
 * mount namespace of the sending process is meant, as for varlink peers.
 */

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/queue.h>
#include <time.h>

#include <systemd/sd-bus.h>

#include "front-bus-args.h"
#include "front-bus.h"
#include "log.h"
#include "ops-errors.h"
#include "ops-names.h"
#include "principal.h"
#include "sys-process.h"
#include "request.h"
#include "util.h"
#include "ops-watch-events.h"

typedef struct BusWatch BusWatch;

struct BusFront {
	sd_bus *bus;
	sd_bus_slot *object_slot, *name_slot, *release_slot;
	sd_bus_slot *watch_slot, *watch_enumerator_slot;
	LIST_HEAD(, BusWatch) watches;
	size_t n_watches;
	uint64_t last_watch_id;
	uint64_t last_activity;
	bool stopping, drained;
	void (*drained_cb)(BusFront *, void *);
	void *drained_userdata;
	sd_bus_vtable *vtable; /* generated from the operation table */
	char **vtable_strings;
	size_t n_vtable_strings;
};

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void touch(BusFront *b)
{
	b->last_activity = now_usec();
}

/* ---- one call ------------------------------------------------------------------ */

typedef struct BusCall {
	BusFront *front;
	sd_bus_message *m; /* holds the fds the parameters name */
	sd_bus_creds *creds;
	BusArgs args;
	int caller_pidfd;
	gid_t *groups; /* the bus daemon's UnixGroupIDs */
	size_t n_groups;
} BusCall;

static BusCall *bus_call_free(BusCall *c)
{
	sd_bus_message_unref(c->m);
	sd_bus_creds_unref(c->creds);
	bus_args_done(&c->args);
	safe_close(c->caller_pidfd);
	free(c->groups);
	free(c);
	return NULL;
}
DEFINE_TRIVIAL_CLEANUP_FUNC(BusCall *, bus_call_free);

static int read_groups(sd_bus_message *reply, BusCall *c)
{
	const void *v;
	size_t size;
	int r;

	r = sd_bus_message_enter_container(reply, 'v', "au");
	if (r >= 0)
		r = sd_bus_message_read_array(reply, 'u', &v, &size);
	_Static_assert(sizeof(gid_t) == sizeof(uint32_t), "UnixGroupIDs are gid_t");
	if (r >= 0 && size > 0) {
		free(c->groups);
		c->groups = malloc(size);
		if (!c->groups)
			return -ENOMEM;
		memcpy(c->groups, v, size);
		c->n_groups = size / sizeof(uint32_t);
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(reply);
	return r;
}

/* What the bus daemon took from the sender's socket when it connected:
 * its process as a pidfd (the ProcessFD credential of dbus-daemon >=
 * 1.15.8 and dbus-broker), so that no pid is ever looked up, and its groups
 * (UnixGroupIDs, SO_PEERGROUPS: what varlink callers are judged by).
 * Older bus daemons have no pidfd, and none is made from the pid: the
 * process that connected may be gone and its pid another's (a child kept
 * the connection), so the caller has no own namespace then (authorize.c)
 * and must name one. */
static int sender_credentials(BusCall *c, pid_t pid)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *sender = sd_bus_message_get_sender(c->m);
	int r, fd = -EBADF;
	pid_t got;

	r = sender ? sd_bus_call_method(sd_bus_message_get_bus(c->m), "org.freedesktop.DBus",
					"/org/freedesktop/DBus", "org.freedesktop.DBus",
					"GetConnectionCredentials", NULL, &reply, "s", sender)
		   : -ENXIO;
	if (r >= 0)
		r = sd_bus_message_enter_container(reply, 'a', "{sv}");
	while (r > 0 && (r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
		const char *key;
		int h;

		r = sd_bus_message_read(reply, "s", &key);
		if (r >= 0 && streq(key, "ProcessFD") && fd < 0) {
			r = sd_bus_message_read(reply, "v", "h", &h);
			if (r >= 0)
				fd = fcntl(h, F_DUPFD_CLOEXEC, 3);
		} else if (r >= 0 && streq(key, "UnixGroupIDs"))
			r = read_groups(reply, c);
		else if (r >= 0)
			r = sd_bus_message_skip(reply, "v");
		if (r >= 0)
			r = sd_bus_message_exit_container(reply);
	}
	/* It must be the process the credentials were for. */
	if (fd >= 0 && (pidfd_get_pid(fd, &got) < 0 || got != pid))
		fd = safe_close(fd);
	c->caller_pidfd = fd;
	return r == -ENOMEM ? r : 0;
}

/* Who sent it: the bus daemon vouches for the uid (the effective one is
 * there only when sd-bus could read it itself); without it the call fails:
 * the policy never guesses who asked.  dbus-daemon sends no gid: then the
 * primary group is the user's from the user database, as dbus-daemon
 * itself resolves groups. */
static int caller_of(BusCall *c, AuthCaller *ret)
{
	int r;

	*ret = (AuthCaller){.pidfd = -EBADF};
	r = sd_bus_query_sender_creds(c->m,
				      SD_BUS_CREDS_PID | SD_BUS_CREDS_UID | SD_BUS_CREDS_EUID |
					      SD_BUS_CREDS_GID | SD_BUS_CREDS_EGID,
				      &c->creds);
	if (r >= 0)
		r = sd_bus_creds_get_pid(c->creds, &ret->pid);
	if (r >= 0 && sd_bus_creds_get_euid(c->creds, &ret->id.uid) < 0)
		r = sd_bus_creds_get_uid(c->creds, &ret->id.uid);
	if (r < 0)
		return r;
	if (sd_bus_creds_get_egid(c->creds, &ret->id.gid) < 0 &&
	    sd_bus_creds_get_gid(c->creds, &ret->id.gid) < 0) {
		struct passwd *pw = getpwuid(ret->id.uid);

		ret->id.gid = pw ? pw->pw_gid : (gid_t)-1;
	}
	/* Groups only as the bus daemon read them from the socket: sd-bus
	 * would read /proc/PID/status of a pid that may be another's by now.
	 * Without them no group= rule matches. */
	r = sender_credentials(c, ret->pid);
	if (r < 0)
		return r;
	ret->id.groups = c->groups;
	ret->id.n_groups = c->n_groups;
	ret->pidfd = c->caller_pidfd >= 0 ? c->caller_pidfd : -EBADF;
	ret->principal = principal_of_pidfd(ret->pidfd, ret->id.uid);
	return 0;
}

static int bus_call_new(sd_bus_message *m, BusFront *b, RequestCall *rc, BusCall **ret,
			sd_bus_error *error)
{
	_cleanup_(bus_call_freep) BusCall *c = calloc(1, sizeof(BusCall));
	const OpsMethod *om = ops_method_find(sd_bus_message_get_member(m));
	int r;

	if (!c)
		return -ENOMEM;
	c->caller_pidfd = -EBADF;
	if (!om)
		return sd_bus_error_set(error, SD_BUS_ERROR_UNKNOWN_METHOD, "Unknown method");
	c->front = b;
	c->m = sd_bus_message_ref(m);
	r = bus_args_to_json(m, om, &c->args);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Invalid parameter: %s",
					 c->args.field);
	/* D-Bus has its own way to say it (the message header's flag, as
	 * busctl --allow-interactive-authorization sets): the same as the
	 * option, for the methods that take it. */
	if (sd_bus_message_get_allow_interactive_authorization(m) > 0 &&
	    !json_object_object_get_ex(c->args.params, "allowInteractiveAuthentication", NULL))
		for (const JsonDispatch *f = om->fields; f && f->name; f++)
			if (streq(f->name, "allowInteractiveAuthentication")) {
				json_object_object_add(c->args.params,
						       "allowInteractiveAuthentication",
						       json_object_new_boolean(true));
				break;
			}
	*rc = (RequestCall){
		.method = om,
		.parameters = c->args.params,
		.fds = c->args.fds,
		.n_fds = c->args.n_fds,
		.userdata = c,
	};
	r = caller_of(c, &rc->caller);
	if (r < 0)
		return sd_bus_error_set_errno(error, r);
	*ret = TAKE_PTR(c);
	return 0;
}

/* ---- answers: JSON → D-Bus ------------------------------------------------------ */

static uint64_t json_u64(json_object *o, const char *key)
{
	json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? json_object_get_uint64(v) : 0;
}

static const char *json_str(json_object *o, const char *key)
{
	json_object *v;

	return o && json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : "";
}

static int append_attributes(sd_bus_message *reply, json_object *attrs)
{
	int r = sd_bus_message_open_container(reply, SD_BUS_TYPE_ARRAY, "{sv}");

	if (attrs) {
		json_object_object_foreach(attrs, key, v)
		{
			if (r < 0)
				break;
			r = json_object_is_type(v, json_type_boolean)
				    ? sd_bus_message_append(reply, "{sv}", key, "b",
							    (int)json_object_get_boolean(v))
				    : sd_bus_message_append(reply, "{sv}", key, "s",
							    json_object_get_string(v));
		}
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* A MountEntry's JSON as the struct OPS_MOUNT_ENTRY_SIGNATURE, field by
 * field of the table, each by its kind. */
static int append_mount_json(sd_bus_message *reply, json_object *e)
{
	int r;

	r = sd_bus_message_open_container(reply, SD_BUS_TYPE_STRUCT, OPS_MOUNT_ENTRY_SIGNATURE);
	for (const OpsMountEntryField *f = ops_mount_entry_fields; r >= 0 && f->name; f++) {
		json_object *v = NULL;

		switch (f->kind) {
		case MOUNT_ENTRY_U64:
			r = sd_bus_message_append_basic(reply, 't',
							&(uint64_t){json_u64(e, f->name)});
			break;
		case MOUNT_ENTRY_U32:
			r = sd_bus_message_append_basic(reply, 'u',
							&(uint32_t){json_u64(e, f->name)});
			break;
		case MOUNT_ENTRY_ATTRIBUTES:
			json_object_object_get_ex(e, f->name, &v);
			r = append_attributes(reply, v);
			break;
		case MOUNT_ENTRY_STRING:
		case MOUNT_ENTRY_OPT_STRING:
		case MOUNT_ENTRY_PROPAGATION:
		case MOUNT_ENTRY_DEVICE:
			r = sd_bus_message_append_basic(reply, 's', json_str(e, f->name));
			break;
		}
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int append_info_value(sd_bus_message *reply, json_object *o)
{
	const char *name = json_str(o, "name");
	json_object *v;

	if (json_object_object_get_ex(o, "number", &v))
		return ops_info_value_signed(name)
			       ? sd_bus_message_append(reply, "(sv)", name, "x",
						       json_object_get_int64(v))
			       : sd_bus_message_append(reply, "(sv)", name, "t",
						       json_object_get_uint64(v));
	if (json_object_object_get_ex(o, "flag", &v))
		return sd_bus_message_append(reply, "(sv)", name, "b",
					     (int)json_object_get_boolean(v));
	return sd_bus_message_append(reply, "(sv)", name, "s", json_str(o, "text"));
}

/* An array reply field, each element through append(). */
static int append_array(sd_bus_message *reply, const char *signature, json_object *a,
			int (*append)(sd_bus_message *, json_object *))
{
	int r = sd_bus_message_open_container(reply, SD_BUS_TYPE_ARRAY, signature + 1);

	for (size_t i = 0; r >= 0 && a && i < json_object_array_length(a); i++)
		r = append(reply, json_object_array_get_idx(a, i));
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int append_message(sd_bus_message *reply, json_object *o)
{
	return sd_bus_message_append(reply, "(sss)", json_str(o, "step"), json_str(o, "level"),
				     json_str(o, "text"));
}

static int append_step(sd_bus_message *reply, json_object *o)
{
	return sd_bus_message_append(reply, "(st)", json_str(o, "step"), json_u64(o, "usec"));
}

static int append_field(sd_bus_message *reply, const OpsReplyField *f, RequestAnswer *a)
{
	const char *sig = ops_reply_kind_signature(f->kind);
	json_object *v = NULL;

	json_object_object_get_ex(a->parameters, f->name, &v);
	switch (f->kind) {
	case OPS_REPLY_MOUNT_ID:
		return sd_bus_message_append(reply, "t", json_u64(a->parameters, f->name));
	case OPS_REPLY_MOUNT_FD: {
		int64_t i = v ? json_object_get_int64(v) : -1;

		/* sd-bus duplicates the fd; the answer still closes ours. */
		return i >= 0 && (size_t)i < a->n_fds
			       ? sd_bus_message_append(reply, "ah", 1, a->fds[i])
			       : sd_bus_message_append(reply, "ah", 0);
	}
	case OPS_REPLY_MESSAGES:
		return append_array(reply, sig, v, append_message);
	case OPS_REPLY_STEPS:
		return append_array(reply, sig, v, append_step);
	case OPS_REPLY_INFO_VALUES:
		return append_array(reply, sig, v, append_info_value);
	case OPS_REPLY_MOUNTS:
		return append_array(reply, sig, v, append_mount_json);
	case OPS_REPLY_VERITY:
		/* ("", "") for none, as for every absent string. */
		return sd_bus_message_append(reply, sig, json_str(v, "rootHash"),
					     json_str(v, "signedBy"));
	default:
		return sd_bus_message_append(reply, "s", json_str(a->parameters, f->name));
	}
}

/* A varlink error as the D-Bus error its table entry (ops-errors.c) names.
 * sd-bus's own name for ENOMEM, as for every other call that ran out. */
static int bus_error(sd_bus_error *e, const RequestAnswer *a)
{
	const OpsError *oe = ops_error_find(a->error);
	_cleanup_free_ char *text = NULL;
	int r;

	if (!oe || !oe->bus_name)
		oe = ops_error_find(OPS_ERROR_NAME_INTERNAL);
	if (streq(oe->name, OPS_ERROR_NAME_INTERNAL) && json_u64(a->parameters, "errno") == ENOMEM)
		return sd_bus_error_set_errno(e, -ENOMEM);
	r = oe->bus_text(a->parameters, &text);
	if (r < 0)
		return sd_bus_error_set_errno(e, r);
	return sd_bus_error_set(e, oe->bus_name, text);
}

static int bus_reply(sd_bus_message *m, const OpsMethod *om, RequestAnswer *a)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int r;

	if (a->error) {
		_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

		(void)bus_error(&e, a);
		return sd_bus_reply_method_error(m, &e);
	}
	r = sd_bus_message_new_method_return(m, &reply);
	for (const OpsReplyField *f = om->reply; r >= 0 && f->name; f++)
		if (f->dbus)
			r = append_field(reply, f, a);
	return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

static void bus_done(RequestAnswer *a, void *userdata)
{
	BusCall *c = userdata;
	const OpsMethod *om = ops_method_find(sd_bus_message_get_member(c->m));

	touch(c->front);
	if (bus_reply(c->m, om, a) < 0)
		(void)sd_bus_reply_method_errno(c->m, -EIO, NULL);
	bus_call_free(c);
}

static int bus_method(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	RequestCall rc;
	BusCall *c = NULL;
	int r;

	touch(userdata);
	r = bus_call_new(m, userdata, &rc, &c, error);
	if (r < 0 || !c)
		return r;
	rc.done = bus_done;
	r = request_start(&rc);
	if (r < 0) {
		bus_call_free(c);
		return r;
	}
	return 1;
}

/* ---- Watch: signals to one client ----------------------------------------- */

/* Each Watch() is an object /io/mountd1/watch/N with interface
 * io.mountd1.Watch, whose signals go to the client that asked for it alone
 * (unicast: another client's mount table is none of the bus's business):
 * Ready() once the first snapshot is taken, Event(s event, (mount)) for
 * each change ("added", "removed", "changed"; a removed mount as it last
 * was), and Gone(s reason) at the end — "namespace" when it went away,
 * "shutdown" when mountd stops, else the error.  The watch ends with
 * Gone, when its client calls Stop() or leaves the bus (sd_bus_track).
 * Ready follows the reply at once: a client adds its match for the
 * interface before calling Watch, as for systemd's JobRemoved. */

#define BUS_WATCH_PREFIX	   BUS_PATH "/watch"
#define BUS_WATCH_INTERFACE	   "io.mountd1.Watch"
#define BUS_WATCHES_PER_CLIENT_MAX 16
/* All of a user's, over both front ends, are limited by ops-watch-events.c. */

struct BusWatch {
	BusFront *front;
	Watch *watch;
	char path[sizeof(BUS_WATCH_PREFIX) + 24];
	char *owner; /* the client's unique name */
	sd_bus_track *track;
	LIST_ENTRY(BusWatch) link;
};

static BusWatch *bus_watch_free(BusWatch *w)
{
	BusFront *b;

	if (!w)
		return NULL;
	b = w->front;
	LIST_REMOVE(w, link);
	b->n_watches--;
	watch_free(w->watch);
	sd_bus_track_unref(w->track);
	free(w->owner);
	free(w);
	return NULL;
}

static int bus_watch_signal(BusWatch *w, const char *member, sd_bus_message **ret)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	int r;

	r = sd_bus_message_new_signal(w->front->bus, &m, w->path, BUS_WATCH_INTERFACE, member);
	if (r >= 0)
		r = sd_bus_message_set_destination(m, w->owner);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(m);
	return 0;
}

static int bus_watch_on_event(Watch *watch, const OpsWatchEvent *e, void *userdata)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	int r;

	r = bus_watch_signal(userdata, "Event", &m);
	if (r >= 0)
		r = sd_bus_message_append(m, "s", ops_watch_event_to_string(e->type));
	if (r >= 0) {
		_cleanup_json_ json_object *o = ops_mount_entry_to_json(&e->mount);

		r = o ? append_mount_json(m, o) : -ENOMEM;
	}
	if (r >= 0)
		r = sd_bus_send(NULL, m, NULL);
	return r < 0 ? r : 0;
}

static void bus_watch_on_end(Watch *watch, int r, void *userdata)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	_cleanup_free_ char *reason = NULL;
	BusWatch *w = userdata;

	if (r == 0)
		reason = strdup("namespace");
	else if (r == -ESHUTDOWN)
		reason = strdup("shutdown");
	else if (asprintf(&reason, "%s: %s", errno_name(r), strerror(-r)) < 0)
		reason = NULL;
	if (bus_watch_signal(w, "Gone", &m) >= 0 &&
	    sd_bus_message_append(m, "s", reason ?: "error") >= 0)
		(void)sd_bus_send(NULL, m, NULL);
	w->watch = NULL; /* it frees itself */
	bus_watch_free(w);
}

static const WatchCallbacks bus_watch_callbacks = {
	.event = bus_watch_on_event,
	.end = bus_watch_on_end,
};

static int bus_watch_on_client_gone(sd_bus_track *t, void *userdata)
{
	bus_watch_free(userdata);
	return 0;
}

static int watch_find(sd_bus *bus, const char *path, const char *interface, void *userdata,
		      void **ret_found, sd_bus_error *error)
{
	BusFront *b = userdata;
	BusWatch *w;

	LIST_FOREACH(w, &b->watches, link)
	if (streq(w->path, path)) {
		*ret_found = w;
		return 1;
	}
	return 0;
}

static int watch_enumerate(sd_bus *bus, const char *prefix, void *userdata, char ***ret_nodes,
			   sd_bus_error *error)
{
	BusFront *b = userdata;
	BusWatch *w;
	char **nodes;
	size_t n = 0;

	nodes = calloc(b->n_watches + 1, sizeof(char *));
	if (!nodes)
		return -ENOMEM;
	LIST_FOREACH(w, &b->watches, link)
	{
		nodes[n] = strdup(w->path);
		if (!nodes[n]) {
			while (n > 0)
				free(nodes[--n]);
			free(nodes);
			return -ENOMEM;
		}
		n++;
	}
	*ret_nodes = nodes;
	return 0;
}

static int method_watch_stop(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	BusWatch *w = userdata;

	/* Only the client the signals go to may end them. */
	if (!streq_ptr(sd_bus_message_get_sender(m), w->owner))
		return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
					 "Permission denied: not your watch");
	touch(w->front);
	bus_watch_free(w);
	return sd_bus_reply_method_return(m, NULL);
}

static const sd_bus_vtable watch_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("Stop", "", "", method_watch_stop, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_SIGNAL("Ready", "", 0),
	SD_BUS_SIGNAL_WITH_NAMES("Event", "s(" OPS_MOUNT_ENTRY_SIGNATURE ")",
				 SD_BUS_PARAM(event) SD_BUS_PARAM(mount), 0),
	SD_BUS_SIGNAL_WITH_NAMES("Gone", "s", SD_BUS_PARAM(reason), 0),
	SD_BUS_VTABLE_END,
};

static size_t watches_of(BusFront *b, const char *owner)
{
	BusWatch *w;
	size_t n = 0;

	LIST_FOREACH(w, &b->watches, link)
	n += streq(w->owner, owner);
	return n;
}

static void watch_refused(RequestAnswer *a, void *userdata)
{
	BusCall *c = userdata;

	(void)bus_reply(c->m, NULL, a);
}

static int method_watch(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(bus_call_freep) BusCall *c = NULL;
	_cleanup_(mnt_log_done) MntLog log = {};
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *ready = NULL;
	_cleanup_close_ int pin = -EBADF;
	BusFront *b = userdata;
	const char *sender = sd_bus_message_get_sender(m);
	RequestCall rc;
	OpsNamespace ns;
	BusWatch *w;
	int r;

	touch(b);
	r = bus_call_new(m, b, &rc, &c, error);
	if (r < 0 || !c)
		return r;
	rc.done = watch_refused;
	r = request_prepare_watch(&rc, &ns, &pin);
	if (r != 0)
		return r < 0 ? r : 1;
	if (!sender)
		return sd_bus_error_set(error, SD_BUS_ERROR_NOT_SUPPORTED,
					"Watch needs a bus with unique names");
	if (watches_of(b, sender) >= BUS_WATCHES_PER_CLIENT_MAX)
		return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
					 "At most %d watches per client",
					 BUS_WATCHES_PER_CLIENT_MAX);

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (BusWatch){.front = b};
	LIST_INSERT_HEAD(&b->watches, w, link);
	b->n_watches++;
	snprintf(w->path, sizeof(w->path), "%s/%" PRIu64, BUS_WATCH_PREFIX, ++b->last_watch_id);
	w->owner = strdup(sender);
	if (!w->owner) {
		bus_watch_free(w);
		return -ENOMEM;
	}
	r = watch_new(sd_bus_get_event(b->bus), &ns, rc.caller.principal, &bus_watch_callbacks, w,
		      &w->watch, &log);
	if (r < 0) {
		RequestAnswer a = {};

		bus_watch_free(w);
		r = ops_error_encode(rc.method, NULL, r, &log, &a.error, &a.parameters);
		if (r >= 0)
			r = bus_reply(m, rc.method, &a);
		request_answer_done(&a);
		return r < 0 ? r : 1;
	}
	r = sd_bus_track_new(b->bus, &w->track, bus_watch_on_client_gone, w);
	if (r >= 0)
		r = sd_bus_track_add_sender(w->track, m);
	if (r < 0) {
		bus_watch_free(w);
		return r;
	}
	r = sd_bus_reply_method_return(m, "o", w->path);
	if (r < 0) {
		bus_watch_free(w);
		return r;
	}
	/* After the reply, so that the client knows the path it comes from. */
	if (bus_watch_signal(w, "Ready", &ready) >= 0)
		(void)sd_bus_send(NULL, ready, NULL);
	return 1;
}

/* ---- the vtable, from the operation table ------------------------------------ */

/* Authorization is mountd's (as for varlink), not sd-bus's root-only
 * default: every method is callable by anyone the bus policy lets in. */
static int build_vtable(BusFront *b)
{
	size_t n = 0, n_methods = 0;

	for (const OpsMethod *m = ops_methods; m->name; m++)
		n_methods++;
	b->vtable = calloc(n_methods + 2, sizeof(sd_bus_vtable));
	b->vtable_strings = calloc(n_methods * 3, sizeof(char *));
	if (!b->vtable || !b->vtable_strings)
		return -ENOMEM;
	b->vtable[n++] = (sd_bus_vtable)SD_BUS_VTABLE_START(0);
	for (const OpsMethod *m = ops_methods; m->name; m++) {
		_cleanup_free_ char *in = NULL, *out = NULL, *names = NULL;
		size_t in_size = 0, out_size = 0, names_size = 0;
		/* Closed before the strings are freed (declared after them). */
		_cleanup_fclose_ FILE *fin = open_memstream(&in, &in_size),
				      *fout = open_memstream(&out, &out_size),
				      *fnames = open_memstream(&names, &names_size);

		if (!fin || !fout || !fnames)
			return -ENOMEM;
		/* Parameter names: each NUL-terminated, in then out. */
		for (const OpsBusArg *a = m->bus_args; a->name; a++) {
			fputs(a->signature, fin);
			fwrite(a->name, 1, strlen(a->name) + 1, fnames);
		}
		if (!m->bus_no_options) {
			fputs("a{sv}", fin);
			fwrite("options", 1, sizeof("options"), fnames);
		}
		if (m->bus_reply_signature) {
			fputs(m->bus_reply_signature, fout);
			fwrite("watch", 1, sizeof("watch"), fnames);
		} else
			for (const OpsReplyField *f = m->reply; f->name; f++)
				if (f->dbus) {
					fputs(ops_reply_kind_signature(f->kind), fout);
					fwrite(f->name, 1, strlen(f->name) + 1, fnames);
				}
		fputc(0, fnames);
		/* Closing a memstream writes its string out. */
		fclose(TAKE_PTR(fin));
		fclose(TAKE_PTR(fout));
		fclose(TAKE_PTR(fnames));
		if (!in || !out || !names)
			return -ENOMEM;
		b->vtable[n++] = (sd_bus_vtable){
			.type = _SD_BUS_VTABLE_METHOD,
			.flags = SD_BUS_VTABLE_UNPRIVILEGED,
			.x.method =
				{
					.member = m->name,
					.signature = in,
					.result = out,
					.handler =
						m->run == OPS_RUN_WATCH ? method_watch : bus_method,
					.names = names,
				},
		};
		b->vtable_strings[b->n_vtable_strings++] = TAKE_PTR(in);
		b->vtable_strings[b->n_vtable_strings++] = TAKE_PTR(out);
		b->vtable_strings[b->n_vtable_strings++] = TAKE_PTR(names);
	}
	b->vtable[n] = (sd_bus_vtable)SD_BUS_VTABLE_END;
	return 0;
}

/* ---- the connection ------------------------------------------------------------ */

static int on_name_acquired(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	const sd_bus_error *e = sd_bus_message_get_error(m);

	if (e)
		log_error("cannot own %s on the system bus: %s", BUS_NAME, e->message ?: e->name);
	return 0;
}

int bus_front_new(BusFront **ret, sd_event *event)
{
	_cleanup_(bus_front_freep) BusFront *b = NULL;
	int r;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->last_activity = now_usec();
	r = sd_bus_open_system_with_description(&b->bus, "mountd");
	if (r < 0)
		return r;
	r = build_vtable(b);
	if (r < 0)
		return r;
	r = sd_bus_add_object_vtable(b->bus, &b->object_slot, BUS_PATH, BUS_INTERFACE, b->vtable,
				     b);
	if (r < 0)
		return r;
	r = sd_bus_add_fallback_vtable(b->bus, &b->watch_slot, BUS_WATCH_PREFIX,
				       BUS_WATCH_INTERFACE, watch_vtable, watch_find, b);
	if (r < 0)
		return r;
	r = sd_bus_add_node_enumerator(b->bus, &b->watch_enumerator_slot, BUS_WATCH_PREFIX,
				       watch_enumerate, b);
	if (r < 0)
		return r;
	r = sd_bus_attach_event(b->bus, event, SD_EVENT_PRIORITY_NORMAL);
	if (r < 0)
		return r;
	/* Asynchronous: READY=1 must not wait for a bus that may itself be
	 * starting; dbus-daemon holds activating calls until we own it. */
	r = sd_bus_request_name_async(b->bus, &b->name_slot, BUS_NAME, 0, on_name_acquired, b);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(b);
	return 0;
}

BusFront *bus_front_free(BusFront *b)
{
	if (!b)
		return NULL;
	while (!LIST_EMPTY(&b->watches))
		bus_watch_free(LIST_FIRST(&b->watches));
	sd_bus_slot_unref(b->watch_enumerator_slot);
	sd_bus_slot_unref(b->watch_slot);
	sd_bus_slot_unref(b->release_slot);
	sd_bus_slot_unref(b->name_slot);
	sd_bus_slot_unref(b->object_slot);
	/* Replies still queued are written before we go. */
	sd_bus_flush_close_unref(b->bus);
	for (size_t i = 0; i < b->n_vtable_strings; i++)
		free(b->vtable_strings[i]);
	free(b->vtable_strings);
	free(b->vtable);
	free(b);
	return NULL;
}

static void drained(BusFront *b)
{
	if (b->drained)
		return;
	b->drained = true;
	if (b->drained_cb)
		b->drained_cb(b, b->drained_userdata);
}

static int on_name_released(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	/* The bus sends everything addressed to the name before this reply,
	 * and sd-bus dispatches in order: the calls queued for us have all
	 * been answered by now.  Later calls start the next instance. */
	drained(userdata);
	return 0;
}

void bus_front_stop(BusFront *b, void (*cb)(BusFront *, void *), void *userdata)
{
	int r;

	if (!b || b->stopping)
		return;
	b->stopping = true;
	b->drained_cb = cb;
	b->drained_userdata = userdata;
	r = sd_bus_is_open(b->bus) > 0 ? sd_bus_release_name_async(b->bus, &b->release_slot,
								   BUS_NAME, on_name_released, b)
				       : -ENOTCONN;
	if (r < 0)
		drained(b);
}

bool bus_front_is_drained(BusFront *b)
{
	return !b || b->drained;
}

uint64_t bus_front_last_activity(BusFront *b)
{
	if (!b)
		return 0;
	/* A client waiting for signals is a client. */
	return b->n_watches > 0 ? now_usec() : b->last_activity;
}
