/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The D-Bus front end of the mount operations: io.mountd1 on the system
 * bus, object /io/mountd1, interface io.mountd1.Manager.  Like the varlink
 * one (varlink-mount.c) it is thin on purpose: decode the message into an
 * Ops*Request, validate it with ops_*_validate() before any system call,
 * call the operation, encode the result.
 *
 * Shape of the API: what io.mountd.Mount requires is positional; everything
 * optional travels in a trailing "a{sv} options" with the varlink
 * parameter names, nested objects as nested a{sv} ("placement" →
 * {"path", "create", "beneath", "namespace" → {"pid", "pidfd",
 * "mntnsFd"}}).  Field names in errors are therefore those of varlink.
 * File descriptors are "h" values.
 *
 *   Create(s fsType, a(ssv) parameters, a{sv} options)
 *       → (t mountId, ah fd, s fsType, s loopDevice, a(sss) messages, a(st) steps)
 *       options: source s, exclusive b, image {fd h, partition u,
 *       partitionType s}, attributes, propagation s, placement
 *   Bind(s sourcePath, a{sv} options) → (t mountId, ah fd, a(st) steps)
 *       options: sourceNamespace, sourceFd h, recursive b,
 *       idmapUserNamespaceFd h, attributes, propagation s, placement
 *   Reconfigure(s path, a(ssv) parameters, a{sv} options)
 *       → (a(sss) messages, a(st) steps)
 *   SetAttributes(s path, a{sv} options) → (a(st) steps)
 *       options: namespace, recursive b, attributes, propagation s,
 *       idmapUserNamespaceFd h
 *   Move(s from, s to, a{sv} options) → (a(st) steps)
 *       options: namespace, create s, beneath b
 *   Unmount(s path, a{sv} options) → (a(st) steps)
 *       options: namespace, detach b, force b
 *   Info(s path, a{sv} options) → (s source, s attribute, a(sv) values)
 *       options: namespace, attribute s, nth u, mth u, noFallback b
 *   List(a{sv} options) → (a(ttuusssssa{sv}stts) mounts)
 *   Watch(a{sv} options) → (o watch)   options: namespace; see "Watch" below
 *
 * A parameter is (key, type, value) with type one of flag, string, binary,
 * path, path_empty, fd and value a variant: "s" (string, path), "ay"
 * (binary), "h" (fd, path_empty), "(hs)" (path or path_empty relative to a
 * directory fd), "b" true for a flag.  The fd is the request's optional
 * "ah fd" when there is no placement: D-Bus has no null fd.  attributes is
 * {readOnly b, noSuid b, noDev b, noExec b, atime s, noDiratime b,
 * noSymfollow b}; a mount's message is (step, level, text), a step that
 * succeeded (step, microseconds), as in the varlink replies.
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
#include <pwd.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/pidfd.h>
#include <time.h>

#include <systemd/sd-bus.h>

#include "authorize.h"
#include "bus.h"
#include "ops-call.h"
#include "job.h"
#include "ops-names.h"
#include "ops.h"
#include "util.h"
#include "watch.h"

typedef struct BusWatch BusWatch;

struct BusFront {
	sd_bus *bus;
	sd_bus_slot *object_slot, *name_slot, *release_slot;
	sd_bus_slot *watch_slot, *watch_enumerator_slot;
	BusWatch *watches;
	size_t n_watches;
	uint64_t last_watch_id;
	uint64_t last_activity;
	bool stopping, drained;
	void (*drained_cb)(BusFront *, void *);
	void *drained_userdata;
};

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* ---- one call -------------------------------------------------------------- */

typedef struct BusCall {
	sd_bus_message *m;
	sd_bus_error *error;
	int caller_pidfd; /* opened on demand, owned */
	int trace_fd;	  /* the "traceFd" option, borrowed from the message */
	char field[128];  /* the offending field, for InvalidArgs */
} BusCall;

static void bus_call_done(BusCall *c)
{
	c->caller_pidfd = safe_close(c->caller_pidfd);
}

#define BUS_CALL_INIT(msg, err)                                                        \
	{                                                                              \
		.m = (msg), .error = (err), .caller_pidfd = -EBADF, .trace_fd = -EBADF \
	}

static void set_field(BusCall *c, const char *prefix, const char *name)
{
	/* The innermost failure names the field; outer levels keep it. */
	if (c->field[0])
		return;
	snprintf(c->field, sizeof(c->field), "%s%s%s", prefix ?: "", prefix && *prefix ? "." : "",
		 name ?: "");
}

/* The namespace of the process that sent the message: a pidfd, taken as
 * early as we can, so that the pid cannot be recycled under us between
 * here and the operation. */
static int caller_namespace(BusCall *c, OpsNamespace *ret)
{
	_cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
	pid_t pid;
	int r;

	r = sd_bus_query_sender_creds(c->m, SD_BUS_CREDS_PID, &creds);
	if (r < 0)
		return r;
	r = sd_bus_creds_get_pid(creds, &pid);
	if (r < 0)
		return r;
	if (c->caller_pidfd < 0)
		c->caller_pidfd = pidfd_open(pid, 0);
	*ret = OPS_NAMESPACE_NULL;
	if (c->caller_pidfd >= 0)
		ret->pidfd = c->caller_pidfd;
	else
		ret->pid = pid;
	return 0;
}

static int namespace_default(BusCall *c, OpsNamespace *ns)
{
	if (ops_namespace_is_set(ns))
		return 0;
	return caller_namespace(c, ns);
}

/* ---- decoding a{sv} ---------------------------------------------------------- */

typedef struct BusField BusField;
typedef int (*BusFieldFn)(BusCall *c, const BusField *f, const char *path, void *p);

struct BusField {
	const char *name;
	const char *signature; /* of the variant's contents */
	BusFieldFn fn;
	size_t offset;
	const BusField *table;		   /* for nested dictionaries */
	int (*from_string)(const char *s); /* for enums */
	size_t max;			   /* for strings; 0: MNT_PATH_MAX */
};

typedef int (*BusEntryFn)(BusCall *c, const char *key, const char *contents, const char *path,
			  void *userdata);

/* Walk an a{sv}: entry() gets each key with the variant entered.  path is
 * the dotted field name of the dictionary ("" at the top). */
static int dict_foreach(BusCall *c, const char *path, BusEntryFn entry, void *userdata)
{
	int r;

	r = sd_bus_message_enter_container(c->m, SD_BUS_TYPE_ARRAY, "{sv}");
	if (r < 0)
		return r;
	for (;;) {
		const char *key, *contents;
		char type;

		r = sd_bus_message_enter_container(c->m, SD_BUS_TYPE_DICT_ENTRY, "sv");
		if (r < 0)
			return r;
		if (r == 0)
			break;
		r = sd_bus_message_read(c->m, "s", &key);
		if (r < 0)
			return r;
		r = sd_bus_message_peek_type(c->m, &type, &contents);
		if (r < 0)
			return r;
		r = sd_bus_message_enter_container(c->m, SD_BUS_TYPE_VARIANT, contents);
		if (r >= 0)
			r = entry(c, key, contents, path, userdata);
		if (r >= 0)
			r = sd_bus_message_exit_container(c->m);
		if (r >= 0)
			r = sd_bus_message_exit_container(c->m);
		if (r < 0) {
			set_field(c, path, key);
			return r;
		}
	}
	return sd_bus_message_exit_container(c->m);
}

typedef struct FieldsWalk {
	const BusField *table;
	void *base;
	uint64_t seen;
} FieldsWalk;

static int fields_entry(BusCall *c, const char *key, const char *contents, const char *path,
			void *userdata)
{
	FieldsWalk *w = userdata;

	for (size_t i = 0; w->table[i].name; i++) {
		const BusField *f = &w->table[i];
		char sub[128];

		if (!streq(f->name, key))
			continue;
		/* A key twice is a client bug that would otherwise be
		 * decided silently by the order of the entries. */
		if (w->seen & (UINT64_C(1) << i) || !streq(contents, f->signature))
			return -EINVAL;
		w->seen |= UINT64_C(1) << i;
		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", key);
		return f->fn(c, f, sub, (char *)w->base + f->offset);
	}
	return -EINVAL; /* unknown keys are refused, as varlink does */
}

static int decode_fields(BusCall *c, const BusField *table, const char *path, void *base)
{
	FieldsWalk w = {.table = table, .base = base};

	return dict_foreach(c, path, fields_entry, &w);
}

static int field_string(BusCall *c, const BusField *f, const char *path, void *p)
{
	const char *s;
	int r;

	(void)path;
	r = sd_bus_message_read(c->m, "s", &s);
	if (r < 0)
		return r;
	if (strlen(s) > (f->max ?: MNT_PATH_MAX))
		return -ERANGE;
	return free_and_strdup(p, s);
}

static int field_bool(BusCall *c, const BusField *f, const char *path, void *p)
{
	int b, r;

	(void)f;
	(void)path;
	r = sd_bus_message_read(c->m, "b", &b);
	if (r < 0)
		return r;
	*(bool *)p = b;
	return 0;
}

static int field_u32(BusCall *c, const BusField *f, const char *path, void *p)
{
	(void)f;
	(void)path;
	return sd_bus_message_read(c->m, "u", p);
}

static int field_pid(BusCall *c, const BusField *f, const char *path, void *p)
{
	uint32_t pid;
	int r;

	(void)f;
	(void)path;
	r = sd_bus_message_read(c->m, "u", &pid);
	if (r < 0)
		return r;
	if (pid == 0 || pid > INT32_MAX)
		return -ERANGE;
	*(pid_t *)p = (pid_t)pid;
	return 0;
}

/* Borrowed: the message owns it for the whole call. */
static int field_fd(BusCall *c, const BusField *f, const char *path, void *p)
{
	(void)f;
	(void)path;
	return sd_bus_message_read(c->m, "h", p);
}

/* "traceFd" is the front end's, not the request's: it goes to the call. */
static int field_trace_fd(BusCall *c, const BusField *f, const char *path, void *p)
{
	(void)f;
	(void)path;
	(void)p;
	return sd_bus_message_read(c->m, "h", &c->trace_fd);
}

_Static_assert(sizeof(MntCreate) == sizeof(int) && sizeof(OpsPropagation) == sizeof(int),
	       "enums are stored through int pointers");

static int field_enum(BusCall *c, const BusField *f, const char *path, void *p)
{
	const char *s;
	int r;

	(void)path;
	r = sd_bus_message_read(c->m, "s", &s);
	if (r < 0)
		return r;
	r = f->from_string(s);
	if (r < 0)
		return r;
	*(int *)p = r;
	return 0;
}

static int field_dict(BusCall *c, const BusField *f, const char *path, void *p)
{
	return decode_fields(c, f->table, path, p);
}

static int attributes_entry(BusCall *c, const char *key, const char *contents, const char *path,
			    void *userdata)
{
	OpsAttributes *a = userdata;
	const char *s;
	int b, r;

	(void)path;
	if (streq(key, "atime")) {
		if (!streq(contents, "s"))
			return -EINVAL;
		r = sd_bus_message_read(c->m, "s", &s);
		return r < 0 ? r : ops_attributes_set_atime(a, s);
	}
	if (!streq(contents, "b"))
		return -EINVAL;
	r = sd_bus_message_read(c->m, "b", &b);
	return r < 0 ? r : ops_attributes_set_flag(a, key, b);
}

static int field_attributes(BusCall *c, const BusField *f, const char *path, void *p)
{
	(void)f;
	return dict_foreach(c, path, attributes_entry, p);
}

#define FIELD(key, sig, func, type, member, ...)                                             \
	{                                                                                    \
		.name = key, .signature = sig, .fn = func, .offset = offsetof(type, member), \
		__VA_ARGS__                                                                  \
	}
#define FIELD_TRACE                                                       \
	{                                                                 \
		.name = "traceFd", .signature = "h", .fn = field_trace_fd \
	}

static const BusField namespace_fields[] = {
	FIELD("pid", "u", field_pid, OpsNamespace, pid),
	FIELD("pidfd", "h", field_fd, OpsNamespace, pidfd),
	FIELD("mntnsFd", "h", field_fd, OpsNamespace, mntns_fd),
	{},
};

static const BusField placement_fields[] = {
	FIELD("namespace", "a{sv}", field_dict, OpsPlacement, ns, .table = namespace_fields),
	FIELD("path", "s", field_string, OpsPlacement, path),
	FIELD("create", "s", field_enum, OpsPlacement, create,
	      .from_string = mnt_create_from_string),
	FIELD("beneath", "b", field_bool, OpsPlacement, beneath),
	{},
};

static const BusField image_fields[] = {
	FIELD("fd", "h", field_fd, OpsImage, fd),
	FIELD("partition", "u", field_u32, OpsImage, partition),
	FIELD("partitionType", "s", field_string, OpsImage, partition_type, .max = 36),
	{},
};

#define FIELD_NAMESPACE(key, type, member) \
	FIELD(key, "a{sv}", field_dict, type, member, .table = namespace_fields)
#define FIELD_ATTRIBUTES(type, member) FIELD("attributes", "a{sv}", field_attributes, type, member)
#define FIELD_PROPAGATION(type, member)                                 \
	FIELD("propagation", "s", field_enum, type, member.propagation, \
	      .from_string = ops_propagation_from_string)
#define FIELD_PLACEMENT(type, member) \
	FIELD("placement", "a{sv}", field_dict, type, member, .table = placement_fields)

/* A placement without a path is not a placement; the namespace defaults to
 * the caller's only for a real one, as in varlink. */
static int placement_finish(BusCall *c, OpsPlacement *p)
{
	if (!p->path) {
		if (p->create != MNT_CREATE_NONE || p->beneath || ops_namespace_is_set(&p->ns)) {
			set_field(c, "placement", "path");
			return -EINVAL;
		}
		return 0;
	}
	return namespace_default(c, &p->ns);
}

/* ---- decoding parameters: a(ssv) -------------------------------------------- */

static int param_value(BusCall *c, const char *contents, MntParam *p)
{
	const char *s;
	int fd, b, r;

	if (streq(contents, "s")) {
		r = sd_bus_message_read(c->m, "s", &s);
		return r < 0 ? r : free_and_strdup(&p->value, s);
	}
	if (streq(contents, "ay")) {
		const void *data;
		size_t size;

		r = sd_bus_message_read_array(c->m, 'y', &data, &size);
		if (r < 0)
			return r;
		if (size == 0)
			return 0; /* no value: ops_params_validate() says so */
		p->blob = malloc(size);
		if (!p->blob)
			return -ENOMEM;
		memcpy(p->blob, data, size);
		p->blob_size = size;
		return 0;
	}
	if (streq(contents, "h") || streq(contents, "(hs)")) {
		bool with_path = contents[0] == '(';

		r = with_path ? sd_bus_message_read(c->m, "(hs)", &fd, &s)
			      : sd_bus_message_read(c->m, "h", &fd);
		if (r < 0)
			return r;
		/* MntParam owns its fd. */
		p->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (p->fd < 0)
			return negative_errno();
		return with_path ? free_and_strdup(&p->value, s) : 0;
	}
	if (streq(contents, "b")) {
		r = sd_bus_message_read(c->m, "b", &b);
		return r < 0 ? r : b ? 0 : -EINVAL;
	}
	return -EINVAL;
}

static int decode_params(BusCall *c, MntParam **ret, size_t *ret_n)
{
	MntParam *params = NULL;
	size_t n = 0;
	int r;

	*ret = NULL;
	*ret_n = 0;
	r = sd_bus_message_enter_container(c->m, SD_BUS_TYPE_ARRAY, "(ssv)");
	if (r < 0)
		return set_field(c, NULL, "parameters"), r;
	for (;;) {
		const char *key, *type, *contents;
		char field[32];
		MntParam *p;
		char t;

		r = sd_bus_message_enter_container(c->m, SD_BUS_TYPE_STRUCT, "ssv");
		if (r <= 0)
			break;
		snprintf(field, sizeof(field), "parameters[%zu]", n);
		if (n >= OPS_PARAMS_MAX) {
			r = -E2BIG;
			set_field(c, NULL, "parameters");
			break;
		}
		p = reallocarray(params, n + 1, sizeof(*params));
		if (!p) {
			r = -ENOMEM;
			break;
		}
		params = p;
		p = &params[n++];
		*p = (MntParam){.fd = -EBADF};

		r = sd_bus_message_read(c->m, "ss", &key, &type);
		if (r >= 0)
			r = free_and_strdup(&p->key, key);
		if (r < 0) {
			set_field(c, field, "key");
			break;
		}
		r = mnt_param_type_from_string(type);
		if (r < 0) {
			set_field(c, field, "type");
			break;
		}
		p->type = (MntParamType)r;
		r = sd_bus_message_peek_type(c->m, &t, &contents);
		if (r >= 0)
			r = sd_bus_message_enter_container(c->m, SD_BUS_TYPE_VARIANT, contents);
		if (r >= 0)
			r = param_value(c, contents, p);
		if (r >= 0)
			r = sd_bus_message_exit_container(c->m);
		if (r < 0) {
			set_field(c, field, "value");
			break;
		}
		r = sd_bus_message_exit_container(c->m);
		if (r < 0)
			break;
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(c->m);
	if (r < 0) {
		set_field(c, NULL, "parameters");
		for (size_t i = 0; i < n; i++)
			mnt_param_done(&params[i]);
		free(params);
		return r;
	}
	*ret = params;
	*ret_n = n;
	return 0;
}

/* ---- replies ------------------------------------------------------------------ */

/* Ask the policy (policy.c via authorize.c) before anything is done, as the
 * varlink front end does.  0: allowed; negative: the call failed, with
 * AccessDenied and the policy's reason when it was denied. */
static int bus_authorize(BusCall *c, const OpsNamespace *ns, const char *fstype,
			 uint64_t attributes)
{
	_cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
	_cleanup_free_ char *reason = NULL;
	AuthCaller caller = {.pidfd = c->caller_pidfd};
	const gid_t *groups = NULL;
	int r, n;

	r = sd_bus_query_sender_creds(c->m,
				      SD_BUS_CREDS_PID | SD_BUS_CREDS_UID | SD_BUS_CREDS_EUID |
					      SD_BUS_CREDS_GID | SD_BUS_CREDS_EGID |
					      SD_BUS_CREDS_SUPPLEMENTARY_GIDS,
				      &creds);
	if (r >= 0)
		r = sd_bus_creds_get_pid(creds, &caller.pid);
	/* The bus daemon vouches for the uid (the effective one is there only
	 * when sd-bus could read it itself); without it the call fails: the
	 * policy never guesses who asked.  dbus-daemon sends no gid: then the
	 * primary group is the user's from the user database, as dbus-daemon
	 * itself resolves groups, or none at all. */
	if (r >= 0 && sd_bus_creds_get_euid(creds, &caller.id.uid) < 0)
		r = sd_bus_creds_get_uid(creds, &caller.id.uid);
	if (r < 0)
		return sd_bus_error_set_errno(c->error, r);
	if (sd_bus_creds_get_egid(creds, &caller.id.gid) < 0 &&
	    sd_bus_creds_get_gid(creds, &caller.id.gid) < 0) {
		struct passwd *pw = getpwuid(caller.id.uid);

		caller.id.gid = pw ? pw->pw_gid : (gid_t)-1;
	}
	n = sd_bus_creds_get_supplementary_gids(creds, &groups);
	if (n > 0) {
		caller.id.groups = groups;
		caller.id.n_groups = n;
	}
	r = authorize(&caller, sd_bus_message_get_member(c->m), ns, fstype, attributes, &reason);
	if (r == -EPERM)
		return sd_bus_error_setf(c->error, SD_BUS_ERROR_ACCESS_DENIED,
					 "Permission denied: %s", reason ?: "denied by policy");
	return r < 0 ? sd_bus_error_set_errno(c->error, r) : 0;
}

/* Decoding or validation failed: InvalidArgs naming the field, like
 * org.varlink.service.InvalidParameter{parameter}. */
static int fail_invalid(BusCall *c, int r, const char *field)
{
	if (r == -ENOMEM)
		return sd_bus_error_set_errno(c->error, r);
	return sd_bus_error_setf(c->error, SD_BUS_ERROR_INVALID_ARGS, "Invalid parameter: %s",
				 field
					 ?: c->field[0] ? c->field
							: "parameters");
}

/* The options dictionary into base, then the caller's namespace where ns
 * names none: 0, or InvalidArgs naming the field. */
static int decode_options(BusCall *c, const BusField *table, void *base, OpsNamespace *ns)
{
	int r = decode_fields(c, table, "", base);

	if (r >= 0)
		r = namespace_default(c, ns);
	return r < 0 ? fail_invalid(c, r, NULL) : 0;
}

static const char *errno_name(int r)
{
	return strerrorname_np(r < 0 ? -r : r) ?: "?";
}

static int fail_operation(BusCall *c, int r, const MntLog *log)
{
	_cleanup_free_ char *text = NULL;
	size_t size = 0;
	FILE *f;

	switch (ops_error_kind(r, log)) {
	case OPS_ERROR_NO_MEMORY:
		return sd_bus_error_set_errno(c->error, r);
	case OPS_ERROR_PERMISSION_DENIED:
		return sd_bus_error_setf(c->error, SD_BUS_ERROR_ACCESS_DENIED, "%s: %s",
					 errno_name(r), strerror(-r));
	case OPS_ERROR_INTERNAL:
		return sd_bus_error_setf(c->error, BUS_ERROR_INTERNAL_ERROR, "%s: %s",
					 errno_name(r), strerror(-r));
	case OPS_ERROR_MOUNT_FAILED:
		break;
	}

	/* D-Bus errors carry one string: the step, the errno and every
	 * kernel message, one per line, in the order they were logged, then
	 * the steps that succeeded before it. */
	f = open_memstream(&text, &size);
	if (!f)
		return sd_bus_error_set_errno(c->error, -ENOMEM);
	fprintf(f, "%s: %s (%s)", log->failed_step, errno_name(r), strerror(-r));
	for (size_t i = 0; i < log->n_messages; i++)
		fprintf(f, "\n%s: %c %s", log->messages[i].step, log->messages[i].level,
			log->messages[i].text);
	for (size_t i = 0; i < log->n_steps; i++)
		fprintf(f, "%s%s", i ? ", " : "\nsteps done: ", log->steps[i].name);
	if (fclose(f) != 0)
		return sd_bus_error_set_errno(c->error, -ENOMEM);
	return sd_bus_error_set(c->error, BUS_ERROR_MOUNT_FAILED, text);
}

static int append_messages(sd_bus_message *reply, const MntLog *log)
{
	int r;

	r = sd_bus_message_open_container(reply, SD_BUS_TYPE_ARRAY, "(sss)");
	for (size_t i = 0; r >= 0 && i < log->n_messages; i++) {
		const MntMessage *m = &log->messages[i];
		char level[2] = {m->level, 0};

		r = sd_bus_message_append(reply, "(sss)", m->step, level, m->text);
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* The steps that succeeded, as "a(st)": name and microseconds. */
static int append_steps(sd_bus_message *reply, const MntLog *log)
{
	int r;

	r = sd_bus_message_open_container(reply, SD_BUS_TYPE_ARRAY, "(st)");
	for (size_t i = 0; r >= 0 && i < log->n_steps; i++)
		r = sd_bus_message_append(reply, "(st)", log->steps[i].name, log->steps[i].usec);
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* The detached mount as "ah": empty when it was placed. */
static int append_mount_fd(sd_bus_message *reply, int fd)
{
	/* sd-bus duplicates the fd; the result still closes ours. */
	return fd >= 0 ? sd_bus_message_append(reply, "ah", 1, fd)
		       : sd_bus_message_append(reply, "ah", 0);
}

static int append_attributes(sd_bus_message *reply, uint64_t attr)
{
	int r;

	r = sd_bus_message_open_container(reply, SD_BUS_TYPE_ARRAY, "{sv}");
	for (const OpsAttributeName *n = ops_attribute_names; r >= 0 && n->name; n++)
		r = sd_bus_message_append(reply, "{sv}", n->name, "b", (int)!!(attr & n->flag));
	if (r >= 0)
		r = sd_bus_message_append(reply, "{sv}", "atime", "s", ops_atime_to_string(attr));
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

#define MOUNT_ENTRY_SIGNATURE "ttuusssssa{sv}stts"

static int append_mount_entry(sd_bus_message *reply, const OpsMountEntry *e)
{
	char dev[32];
	int r;

	snprintf(dev, sizeof(dev), "%u:%u", e->dev_major, e->dev_minor);
	r = sd_bus_message_open_container(reply, SD_BUS_TYPE_STRUCT, MOUNT_ENTRY_SIGNATURE);
	if (r >= 0)
		r = sd_bus_message_append(reply, "ttuusssss", e->id, e->parent_id, e->id_old,
					  e->parent_id_old, e->fstype ?: "", e->source ?: "",
					  e->root ?: "", e->mount_point ?: "", e->options ?: "");
	if (r >= 0)
		r = append_attributes(reply, e->attr);
	if (r >= 0)
		r = sd_bus_message_append(reply, "stts", mnt_propagation_to_string(e->propagation),
					  e->peer_group, e->master, dev);
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

static void touch(BusFront *b)
{
	b->last_activity = now_usec();
}

/* ---- operations run as jobs, off the event loop (job.c, ops-call.c) -------- */

typedef struct BusJob {
	BusFront *front;
	sd_bus_message *m; /* holds the request's fds */
	int caller_pidfd;  /* owned: the request may name the caller's namespace by it */
	OpsCall op;
} BusJob;

static void bus_job_free(BusJob *j)
{
	ops_call_done(&j->op);
	safe_close(j->caller_pidfd);
	sd_bus_message_unref(j->m);
	free(j);
}

static void bus_job_run(void *userdata)
{
	BusJob *j = userdata;

	ops_call_run(&j->op);
}

/* The reply of a change: (t mountId, ah fd) for Create and Bind, then
 * (s fsType, s loopDevice) for Create, the messages for Create and
 * Reconfigure, the steps for all. */
static int reply_change(sd_bus_message *m, const OpsCall *c)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	bool mount = c->kind == OPS_CALL_CREATE || c->kind == OPS_CALL_BIND;
	int r;

	r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0 && mount)
		r = sd_bus_message_append(reply, "t", c->res.mount_id);
	if (r >= 0 && mount)
		r = append_mount_fd(reply, c->res.mount_fd);
	if (r >= 0 && c->kind == OPS_CALL_CREATE)
		r = sd_bus_message_append(reply, "ss", c->res.fstype ?: "",
					  c->res.loop_device ?: "");
	if (r >= 0 && (c->kind == OPS_CALL_CREATE || c->kind == OPS_CALL_RECONFIGURE))
		r = append_messages(reply, &c->log);
	if (r >= 0)
		r = append_steps(reply, &c->log);
	return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

static int append_info_value(sd_bus_message *reply, const OpsValue *v);

static int reply_info(sd_bus_message *m, const OpsCall *c)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int r;

	r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_append(reply, "ss", ops_info_source_to_string(c->info.source),
					  c->info.attribute);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, SD_BUS_TYPE_ARRAY, "(sv)");
	for (size_t i = 0; r >= 0 && i < c->info.n_values; i++)
		r = append_info_value(reply, &c->info.values[i]);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

static void bus_job_done(void *userdata)
{
	BusJob *j = userdata;
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r;

	touch(j->front);
	if (j->op.kind == OPS_CALL_INFO && (j->op.r == -ENOSYS || j->op.r == -EOPNOTSUPP)) {
		(void)sd_bus_error_setf(&e, BUS_ERROR_NOT_SUPPORTED,
					"fsinfo attribute not available: %s",
					((const OpsInfoRequest *)j->op.req)->attribute ?: "statfs");
		r = sd_bus_reply_method_error(j->m, &e);
	} else if (j->op.r < 0) {
		BusCall c = BUS_CALL_INIT(j->m, &e);

		(void)fail_operation(&c, j->op.r, &j->op.log);
		r = sd_bus_reply_method_error(j->m, &e);
	} else if (j->op.kind == OPS_CALL_INFO)
		r = reply_info(j->m, &j->op);
	else
		r = reply_change(j->m, &j->op);
	if (r < 0)
		(void)sd_bus_reply_method_errno(j->m, r, NULL);
	sd_bus_error_free(&e);
	bus_job_free(j);
}

/* Run a change and answer when it is done; req and log move into the job
 * (see ops_call_init()), and so does the caller's pidfd, which the request
 * may name. */
static int bus_start(BusCall *c, BusFront *b, OpsCallKind kind, void *req, size_t size, MntLog *log)
{
	BusJob *j;
	int r;

	if (c->trace_fd >= 0) {
		/* Our own copy: the message's stays open until it is freed,
		 * after the reply, so a D-Bus client sees EOF only then. */
		int fd = fcntl(c->trace_fd, F_DUPFD_CLOEXEC, 3);

		r = fd < 0 ? negative_errno() : mnt_log_trace(log, fd);
		if (r < 0)
			return fail_invalid(c, r, "traceFd");
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	r = ops_call_init(&j->op, kind, req, size, log);
	if (r < 0) {
		free(j);
		return r;
	}
	j->front = b;
	j->m = sd_bus_message_ref(c->m);
	j->caller_pidfd = TAKE_FD(c->caller_pidfd);
	r = job_submit(sd_bus_get_event(b->bus), bus_job_run, bus_job_done, j);
	if (r < 0) {
		bus_job_free(j);
		return r;
	}
	return 1;
}

/* ---- methods ------------------------------------------------------------------- */

static const BusField create_fields[] = {
	FIELD("source", "s", field_string, OpsCreateRequest, source, .max = MNT_STRING_MAX),
	FIELD("exclusive", "b", field_bool, OpsCreateRequest, exclusive),
	FIELD("image", "a{sv}", field_dict, OpsCreateRequest, image, .table = image_fields),
	FIELD_ATTRIBUTES(OpsCreateRequest, attr),
	FIELD_PROPAGATION(OpsCreateRequest, attr),
	FIELD_PLACEMENT(OpsCreateRequest, place),
	FIELD_TRACE,
	{},
};

static int method_create(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(bus_call_done) BusCall c = BUS_CALL_INIT(m, error);
	_cleanup_(ops_create_request_done) OpsCreateRequest req = {
		.image.fd = -EBADF,
		.place.ns = OPS_NAMESPACE_NULL,
	};
	_cleanup_(mnt_log_done) MntLog log = {};
	const char *fstype, *field = NULL;
	int r;

	touch(userdata);
	r = sd_bus_message_read(m, "s", &fstype);
	if (r < 0)
		return fail_invalid(&c, r, "fsType");
	/* "" is the varlink side's null: probe the image. */
	if (*fstype && free_and_strdup(&req.fstype, fstype) < 0)
		return -ENOMEM;
	r = decode_params(&c, &req.params, &req.n_params);
	if (r >= 0)
		r = decode_fields(&c, create_fields, "", &req);
	if (r >= 0)
		r = placement_finish(&c, &req.place);
	if (r < 0)
		return fail_invalid(&c, r, NULL);
	r = ops_create_validate(&req, &field);
	if (r < 0)
		return fail_invalid(&c, r, field);

	r = bus_authorize(&c, req.place.path ? &req.place.ns : NULL, req.fstype, req.attr.set);
	if (r < 0)
		return r;
	return bus_start(&c, userdata, OPS_CALL_CREATE, &req, sizeof(req), &log);
}

static const BusField bind_fields[] = {
	FIELD_NAMESPACE("sourceNamespace", OpsBindRequest, source_ns),
	FIELD("sourceFd", "h", field_fd, OpsBindRequest, source_fd),
	FIELD("recursive", "b", field_bool, OpsBindRequest, recursive),
	FIELD("idmapUserNamespaceFd", "h", field_fd, OpsBindRequest, userns_fd),
	FIELD_ATTRIBUTES(OpsBindRequest, attr),
	FIELD_PROPAGATION(OpsBindRequest, attr),
	FIELD_PLACEMENT(OpsBindRequest, place),
	FIELD_TRACE,
	{},
};

static int method_bind(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(bus_call_done) BusCall c = BUS_CALL_INIT(m, error);
	_cleanup_(ops_bind_request_done) OpsBindRequest req = {
		.source_ns = OPS_NAMESPACE_NULL,
		.source_fd = -EBADF,
		.recursive = true,
		.userns_fd = -EBADF,
		.place.ns = OPS_NAMESPACE_NULL,
	};
	_cleanup_(mnt_log_done) MntLog log = {};
	const char *source, *field = NULL;
	int r;

	touch(userdata);
	r = sd_bus_message_read(m, "s", &source);
	if (r < 0)
		return fail_invalid(&c, r, "sourcePath");
	if (*source && free_and_strdup(&req.source_path, source) < 0)
		return -ENOMEM;
	r = decode_fields(&c, bind_fields, "", &req);
	if (r >= 0)
		r = placement_finish(&c, &req.place);
	if (r >= 0)
		r = namespace_default(&c, &req.source_ns);
	if (r < 0)
		return fail_invalid(&c, r, NULL);
	r = ops_bind_validate(&req, &field);
	if (r < 0)
		return fail_invalid(&c, r, field);

	/* A source named by path is read in its namespace: that namespace
	 * must be the caller's to bind from, as the target is to bind to. */
	r = req.source_path ? bus_authorize(&c, &req.source_ns, NULL, req.attr.set) : 0;
	if (r >= 0)
		r = bus_authorize(&c, req.place.path ? &req.place.ns : NULL, NULL, req.attr.set);
	if (r < 0)
		return r;
	return bus_start(&c, userdata, OPS_CALL_BIND, &req, sizeof(req), &log);
}

/* For methods whose only option is the namespace: decoded straight into an
 * OpsNamespace, hence a wrapper struct of one member. */
typedef struct NamespaceOnly {
	OpsNamespace ns;
} NamespaceOnly;

static const BusField namespace_only_fields[] = {
	FIELD_NAMESPACE("namespace", NamespaceOnly, ns),
	{},
};

static const BusField reconfigure_fields[] = {
	FIELD_NAMESPACE("namespace", NamespaceOnly, ns),
	FIELD_TRACE,
	{},
};

static int method_reconfigure(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(bus_call_done) BusCall c = BUS_CALL_INIT(m, error);
	_cleanup_(ops_reconfigure_request_done) OpsReconfigureRequest req = {
		.ns = OPS_NAMESPACE_NULL,
	};
	_cleanup_(mnt_log_done) MntLog log = {};
	const char *path, *field = NULL;
	int r;

	touch(userdata);
	r = sd_bus_message_read(m, "s", &path);
	if (r < 0)
		return fail_invalid(&c, r, "path");
	if (free_and_strdup(&req.path, path) < 0)
		return -ENOMEM;
	r = decode_params(&c, &req.params, &req.n_params);
	if (r < 0)
		return fail_invalid(&c, r, NULL);
	r = decode_options(&c, reconfigure_fields, &req.ns, &req.ns);
	if (r < 0)
		return r;
	r = ops_reconfigure_validate(&req, &field);
	if (r < 0)
		return fail_invalid(&c, r, field);

	r = bus_authorize(&c, &req.ns, NULL, 0);
	if (r < 0)
		return r;
	return bus_start(&c, userdata, OPS_CALL_RECONFIGURE, &req, sizeof(req), &log);
}

static const BusField setattr_fields[] = {
	FIELD_NAMESPACE("namespace", OpsSetattrRequest, ns),
	FIELD("recursive", "b", field_bool, OpsSetattrRequest, recursive),
	FIELD_ATTRIBUTES(OpsSetattrRequest, attr),
	FIELD_PROPAGATION(OpsSetattrRequest, attr),
	FIELD("idmapUserNamespaceFd", "h", field_fd, OpsSetattrRequest, userns_fd),
	FIELD_TRACE,
	{},
};

static int method_setattr(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(bus_call_done) BusCall c = BUS_CALL_INIT(m, error);
	_cleanup_(ops_setattr_request_done) OpsSetattrRequest req = {
		.ns = OPS_NAMESPACE_NULL,
		.userns_fd = -EBADF,
	};
	_cleanup_(mnt_log_done) MntLog log = {};
	const char *path, *field = NULL;
	int r;

	touch(userdata);
	r = sd_bus_message_read(m, "s", &path);
	if (r < 0)
		return fail_invalid(&c, r, "path");
	if (free_and_strdup(&req.path, path) < 0)
		return -ENOMEM;
	r = decode_options(&c, setattr_fields, &req, &req.ns);
	if (r < 0)
		return r;
	r = ops_setattr_validate(&req, &field);
	if (r < 0)
		return fail_invalid(&c, r, field);

	r = bus_authorize(&c, &req.ns, NULL, 0);
	if (r < 0)
		return r;
	return bus_start(&c, userdata, OPS_CALL_SETATTR, &req, sizeof(req), &log);
}

static const BusField move_fields[] = {
	FIELD_NAMESPACE("namespace", OpsMoveRequest, ns),
	FIELD("create", "s", field_enum, OpsMoveRequest, create,
	      .from_string = mnt_create_from_string),
	FIELD("beneath", "b", field_bool, OpsMoveRequest, beneath),
	FIELD_TRACE,
	{},
};

static int method_move(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(bus_call_done) BusCall c = BUS_CALL_INIT(m, error);
	_cleanup_(ops_move_request_done) OpsMoveRequest req = {.ns = OPS_NAMESPACE_NULL};
	_cleanup_(mnt_log_done) MntLog log = {};
	const char *from, *to, *field = NULL;
	int r;

	touch(userdata);
	r = sd_bus_message_read(m, "ss", &from, &to);
	if (r < 0)
		return fail_invalid(&c, r, "from");
	if (free_and_strdup(&req.from, from) < 0 || free_and_strdup(&req.to, to) < 0)
		return -ENOMEM;
	r = decode_options(&c, move_fields, &req, &req.ns);
	if (r < 0)
		return r;
	r = ops_move_validate(&req, &field);
	if (r < 0)
		return fail_invalid(&c, r, field);

	r = bus_authorize(&c, &req.ns, NULL, 0);
	if (r < 0)
		return r;
	return bus_start(&c, userdata, OPS_CALL_MOVE, &req, sizeof(req), &log);
}

static const BusField unmount_fields[] = {
	FIELD_NAMESPACE("namespace", OpsUnmountRequest, ns),
	FIELD("detach", "b", field_bool, OpsUnmountRequest, detach),
	FIELD("force", "b", field_bool, OpsUnmountRequest, force),
	FIELD_TRACE,
	{},
};

static int method_unmount(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(bus_call_done) BusCall c = BUS_CALL_INIT(m, error);
	_cleanup_(ops_unmount_request_done) OpsUnmountRequest req = {.ns = OPS_NAMESPACE_NULL};
	_cleanup_(mnt_log_done) MntLog log = {};
	const char *path, *field = NULL;
	int r;

	touch(userdata);
	r = sd_bus_message_read(m, "s", &path);
	if (r < 0)
		return fail_invalid(&c, r, "path");
	if (free_and_strdup(&req.path, path) < 0)
		return -ENOMEM;
	r = decode_options(&c, unmount_fields, &req, &req.ns);
	if (r < 0)
		return r;
	r = ops_unmount_validate(&req, &field);
	if (r < 0)
		return fail_invalid(&c, r, field);

	r = bus_authorize(&c, &req.ns, NULL, 0);
	if (r < 0)
		return r;
	return bus_start(&c, userdata, OPS_CALL_UNMOUNT, &req, sizeof(req), &log);
}

static const BusField info_fields[] = {
	FIELD_NAMESPACE("namespace", OpsInfoRequest, ns),
	FIELD("attribute", "s", field_string, OpsInfoRequest, attribute, .max = 64),
	FIELD("nth", "u", field_u32, OpsInfoRequest, nth),
	FIELD("mth", "u", field_u32, OpsInfoRequest, mth),
	FIELD("noFallback", "b", field_bool, OpsInfoRequest, no_fallback),
	{},
};

static int append_info_value(sd_bus_message *reply, const OpsValue *v)
{
	switch (v->type) {
	case OPS_VALUE_U64:
		return sd_bus_message_append(reply, "(sv)", v->name, "t", v->u);
	case OPS_VALUE_S64:
		return sd_bus_message_append(reply, "(sv)", v->name, "x", v->s);
	case OPS_VALUE_STRING:
		return sd_bus_message_append(reply, "(sv)", v->name, "s", v->str ?: "");
	case OPS_VALUE_BOOL:
		return sd_bus_message_append(reply, "(sv)", v->name, "b", (int)v->b);
	}
	return -EINVAL;
}

static int method_info(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(bus_call_done) BusCall c = BUS_CALL_INIT(m, error);
	_cleanup_(ops_info_request_done) OpsInfoRequest req = {.ns = OPS_NAMESPACE_NULL};
	_cleanup_(mnt_log_done) MntLog log = {};
	const char *path, *field = NULL;
	int r;

	touch(userdata);
	r = sd_bus_message_read(m, "s", &path);
	if (r < 0)
		return fail_invalid(&c, r, "path");
	if (free_and_strdup(&req.path, path) < 0)
		return -ENOMEM;
	r = decode_options(&c, info_fields, &req, &req.ns);
	if (r < 0)
		return r;
	r = ops_info_validate(&req, &field);
	if (r < 0)
		return fail_invalid(&c, r, field);

	r = bus_authorize(&c, &req.ns, NULL, 0);
	if (r < 0)
		return r;
	return bus_start(&c, userdata, OPS_CALL_INFO, &req, sizeof(req), &log);
}

static int method_list(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(bus_call_done) BusCall c = BUS_CALL_INIT(m, error);
	_cleanup_(ops_list_result_done) OpsListResult res = {};
	_cleanup_(mnt_log_done) MntLog log = {};
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	OpsListRequest req = {.ns = OPS_NAMESPACE_NULL};
	const char *field = NULL;
	int r;

	touch(userdata);
	r = decode_options(&c, namespace_only_fields, &req.ns, &req.ns);
	if (r < 0)
		return r;
	r = ops_namespace_validate(&req.ns, "namespace", &field);
	if (r < 0)
		return fail_invalid(&c, r, field);

	r = bus_authorize(&c, &req.ns, NULL, 0);
	if (r < 0)
		return r;
	r = ops_list(&req, &res, &log);
	if (r < 0)
		return fail_operation(&c, r, &log);

	r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, SD_BUS_TYPE_ARRAY,
						  "(" MOUNT_ENTRY_SIGNATURE ")");
	for (size_t i = 0; r >= 0 && i < res.n_mounts; i++)
		r = append_mount_entry(reply, &res.mounts[i]);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
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

struct BusWatch {
	BusFront *front;
	Watch *watch;
	char path[sizeof(BUS_WATCH_PREFIX) + 24];
	char *owner; /* the client's unique name */
	sd_bus_track *track;
	BusWatch *next, *prev;
};

static BusWatch *bus_watch_free(BusWatch *w)
{
	BusFront *b;

	if (!w)
		return NULL;
	b = w->front;
	if (w->next)
		w->next->prev = w->prev;
	if (w->prev)
		w->prev->next = w->next;
	else if (b->watches == w)
		b->watches = w->next;
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

static void bus_watch_on_event(Watch *watch, const OpsWatchEvent *e, void *userdata)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	int r;

	(void)watch;
	r = bus_watch_signal(userdata, "Event", &m);
	if (r >= 0)
		r = sd_bus_message_append(m, "s", ops_watch_event_to_string(e->type));
	if (r >= 0)
		r = append_mount_entry(m, &e->mount);
	if (r >= 0)
		(void)sd_bus_send(NULL, m, NULL);
}

static void bus_watch_on_end(Watch *watch, int r, void *userdata)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	_cleanup_free_ char *reason = NULL;
	BusWatch *w = userdata;

	(void)watch;
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
	(void)t;
	bus_watch_free(userdata);
	return 0;
}

static int watch_find(sd_bus *bus, const char *path, const char *interface, void *userdata,
		      void **ret_found, sd_bus_error *error)
{
	BusFront *b = userdata;

	(void)bus;
	(void)interface;
	(void)error;
	for (BusWatch *w = b->watches; w; w = w->next)
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
	char **nodes;
	size_t n = 0;

	(void)bus;
	(void)prefix;
	(void)error;
	nodes = calloc(b->n_watches + 1, sizeof(char *));
	if (!nodes)
		return -ENOMEM;
	for (BusWatch *w = b->watches; w; w = w->next) {
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
	SD_BUS_SIGNAL_WITH_NAMES("Event", "s(" MOUNT_ENTRY_SIGNATURE ")",
				 SD_BUS_PARAM(event) SD_BUS_PARAM(mount), 0),
	SD_BUS_SIGNAL_WITH_NAMES("Gone", "s", SD_BUS_PARAM(reason), 0),
	SD_BUS_VTABLE_END,
};

static size_t watches_of(BusFront *b, const char *owner)
{
	size_t n = 0;

	for (BusWatch *w = b->watches; w; w = w->next)
		n += streq(w->owner, owner);
	return n;
}

static int method_watch(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(bus_call_done) BusCall c = BUS_CALL_INIT(m, error);
	_cleanup_(mnt_log_done) MntLog log = {};
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *ready = NULL;
	NamespaceOnly req = {.ns = OPS_NAMESPACE_NULL};
	BusFront *b = userdata;
	const char *field = NULL, *sender = sd_bus_message_get_sender(m);
	BusWatch *w;
	int r;

	touch(b);
	r = decode_options(&c, namespace_only_fields, &req.ns, &req.ns);
	if (r < 0)
		return r;
	r = ops_namespace_validate(&req.ns, "namespace", &field);
	if (r < 0)
		return fail_invalid(&c, r, field);

	r = bus_authorize(&c, &req.ns, NULL, 0);
	if (r < 0)
		return r;
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
	*w = (BusWatch){.front = b, .next = b->watches};
	if (b->watches)
		b->watches->prev = w;
	b->watches = w;
	b->n_watches++;
	snprintf(w->path, sizeof(w->path), "%s/%" PRIu64, BUS_WATCH_PREFIX, ++b->last_watch_id);
	w->owner = strdup(sender);
	if (!w->owner) {
		bus_watch_free(w);
		return -ENOMEM;
	}
	r = watch_new(sd_bus_get_event(b->bus), &req.ns, &bus_watch_callbacks, w, &w->watch, &log);
	if (r < 0) {
		bus_watch_free(w);
		return fail_operation(&c, r, &log);
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

/* Authorization is mountd's (as for varlink), not sd-bus's root-only
 * default: every method is callable by anyone the bus policy lets in. */
#define METHOD(name, in, in_names, out, out_names, fn) \
	SD_BUS_METHOD_WITH_NAMES(name, in, in_names, out, out_names, fn, SD_BUS_VTABLE_UNPRIVILEGED)

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	METHOD("Create", "sa(ssv)a{sv}",
	       SD_BUS_PARAM(fsType) SD_BUS_PARAM(parameters) SD_BUS_PARAM(options),
	       "tahssa(sss)a(st)",
	       SD_BUS_PARAM(mountId) SD_BUS_PARAM(fd) SD_BUS_PARAM(fsType) SD_BUS_PARAM(loopDevice)
		       SD_BUS_PARAM(messages) SD_BUS_PARAM(steps),
	       method_create),
	METHOD("Bind", "sa{sv}", SD_BUS_PARAM(sourcePath) SD_BUS_PARAM(options), "taha(st)",
	       SD_BUS_PARAM(mountId) SD_BUS_PARAM(fd) SD_BUS_PARAM(steps), method_bind),
	METHOD("Reconfigure", "sa(ssv)a{sv}",
	       SD_BUS_PARAM(path) SD_BUS_PARAM(parameters) SD_BUS_PARAM(options), "a(sss)a(st)",
	       SD_BUS_PARAM(messages) SD_BUS_PARAM(steps), method_reconfigure),
	METHOD("SetAttributes", "sa{sv}", SD_BUS_PARAM(path) SD_BUS_PARAM(options), "a(st)",
	       SD_BUS_PARAM(steps), method_setattr),
	METHOD("Move", "ssa{sv}", SD_BUS_PARAM(from) SD_BUS_PARAM(to) SD_BUS_PARAM(options),
	       "a(st)", SD_BUS_PARAM(steps), method_move),
	METHOD("Unmount", "sa{sv}", SD_BUS_PARAM(path) SD_BUS_PARAM(options), "a(st)",
	       SD_BUS_PARAM(steps), method_unmount),
	METHOD("Info", "sa{sv}", SD_BUS_PARAM(path) SD_BUS_PARAM(options), "ssa(sv)",
	       SD_BUS_PARAM(source) SD_BUS_PARAM(attribute) SD_BUS_PARAM(values), method_info),
	METHOD("List", "a{sv}", SD_BUS_PARAM(options), "a(" MOUNT_ENTRY_SIGNATURE ")",
	       SD_BUS_PARAM(mounts), method_list),
	METHOD("Watch", "a{sv}", SD_BUS_PARAM(options), "o", SD_BUS_PARAM(watch), method_watch),
	SD_BUS_VTABLE_END,
};

/* ---- the connection ------------------------------------------------------------ */

static int on_name_acquired(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	const sd_bus_error *e = sd_bus_message_get_error(m);

	(void)userdata;
	(void)error;
	if (e)
		fprintf(stderr, "mountd: cannot own %s on the system bus: %s\n", BUS_NAME,
			e->message ?: e->name);
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
	r = sd_bus_add_object_vtable(b->bus, &b->object_slot, BUS_PATH, BUS_INTERFACE,
				     manager_vtable, b);
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
	while (b->watches)
		bus_watch_free(b->watches);
	sd_bus_slot_unref(b->watch_enumerator_slot);
	sd_bus_slot_unref(b->watch_slot);
	sd_bus_slot_unref(b->release_slot);
	sd_bus_slot_unref(b->name_slot);
	sd_bus_slot_unref(b->object_slot);
	/* Replies still queued are written before we go. */
	sd_bus_flush_close_unref(b->bus);
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
	(void)m;
	(void)error;
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
