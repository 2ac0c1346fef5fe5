/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What every mountctl command does around its call: the target namespace
 * and the fds that name it, the connection, -v tracing, and turning a reply
 * into output and an exit code.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "mountctl.h"
#include "util.h"

_printf_(2, 3) void err(const Ctx *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mountctl: %s%s", c->command ?: "", c->command ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int parse_int(const char *s, long min, long max, long *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

void ctx_done(Ctx *c)
{
	for (size_t i = 0; i < c->n_fds; i++)
		if (c->owned[i])
			safe_close(c->fds[i]);
	c->n_fds = 0;
	if (c->container)
		mountd_container_done(&c->container_found);
	mountd_client_free(c->client);
	c->client = NULL;
}

/* Queue fd for the next call; returns its index in the message. */
int push_fd(Ctx *c, int fd, bool owned)
{
	if (c->n_fds >= NS_FDS_MAX) {
		if (owned)
			safe_close(fd);
		return -E2BIG;
	}
	c->fds[c->n_fds] = fd;
	c->owned[c->n_fds] = owned;
	return (int)c->n_fds++;
}

void drop_fds(Ctx *c)
{
	for (size_t i = 0; i < c->n_fds; i++)
		if (c->owned[i])
			safe_close(c->fds[i]);
	c->n_fds = 0;
}

/* Open path for sending (a namespace file, an image); exit code on error. */
int open_for_sending(Ctx *c, const char *path, int flags, const char *what, int *ret_index)
{
	int fd = open(path, flags | O_CLOEXEC | O_NOCTTY), k;

	if (fd < 0) {
		err(c, "cannot open %s %s: %m", what, path);
		return EXIT_USAGE;
	}
	k = push_fd(c, fd, true);
	if (k < 0) {
		err(c, "too many file descriptors");
		return EXIT_USAGE;
	}
	*ret_index = k;
	return 0;
}

/* The Namespace object of --pid/--pidfd/--ns, or NULL for mountctl's own
 * (which is what mountd assumes when none is named). */
int namespace_json(Ctx *c, json_object **ret)
{
	json_object *o;
	int k, r;

	*ret = NULL;
	if (!c->ns_pid && c->ns_pidfd < 0 && !c->ns_path)
		return 0;
	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	if (c->ns_pid)
		json_object_object_add(o, "pid", json_object_new_int(c->ns_pid));
	else if (c->ns_pidfd >= 0) {
		k = push_fd(c, c->ns_pidfd, false);
		if (k < 0)
			return json_object_put(o), k;
		json_object_object_add(o, "pidfd", json_object_new_int(k));
	} else {
		r = open_for_sending(c, c->ns_path, O_RDONLY, "namespace", &k);
		if (r)
			return json_object_put(o), -EINVAL;
		json_object_object_add(o, "mntnsFd", json_object_new_int(k));
	}
	*ret = o;
	return 0;
}

int params_new(Ctx *c, json_object **ret)
{
	_cleanup_json_ json_object *p = json_object_new_object(), *ns = NULL;

	if (!p)
		return EXIT_FAILED;
	if (namespace_json(c, &ns) < 0)
		return EXIT_USAGE;
	if (ns)
		json_object_object_add(p, "namespace", json_object_get(ns));
	*ret = TAKE_PTR(p);
	return 0;
}

int connect_daemon(Ctx *c)
{
	int r;

	if (c->client)
		return 0;
	r = mountd_client_connect(&c->client, c->socket);
	if (r < 0) {
		err(c, "cannot reach mountd at %s: %s", mountd_socket_path(c->socket),
		    strerror(-r));
		return EXIT_UNREACHABLE;
	}
	if (c->timeout_set)
		mountd_client_set_timeout(c->client, c->timeout_usec);
	return 0;
}

void verbose_call(Ctx *c, const char *method, json_object *params)
{
	if (!c->verbose)
		return;
	fprintf(stderr, "mountctl: -> %s.%s %s\n", MOUNTD_INTERFACE, method,
		params ? json_object_to_json_string_ext(
				 params, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
		       : "{}");
}

/* The reply as it came, but for the kernel's messages and the steps: those
 * are printed one per line by output_trace(). */
static void verbose_reply(Ctx *c, const char *method, const MountdReply *reply)
{
	_cleanup_json_ json_object *o = json_object_new_object();

	if (!c->verbose || !o)
		return;
	json_object_object_foreach(reply->parameters, key, v)
	{
		if (!streq(key, "messages") && !streq(key, "steps"))
			json_object_object_add(o, key, json_object_get(v));
	}
	fprintf(stderr, "mountctl: <- %s.%s %s%s%s", MOUNTD_INTERFACE, method, reply->error ?: "",
		reply->error ? " " : "",
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE));
	if (reply->n_fds)
		fprintf(stderr, " (+%zu fds)", reply->n_fds);
	fputc('\n', stderr);
}

/* Print an error reply: one readable line on stderr; with --json the reply
 * also goes to stdout as {"error": NAME, "parameters": {...}}. */
/* The error in the words of the thing that is wrong, as mount(8) puts it,
 * where mountctl knows what the command named; NULL where it does not. */
static char *error_in_words(const Ctx *c, const MountdReply *reply)
{
	json_object *p = reply->parameters, *v;
	const char *step =
		json_object_object_get_ex(p, "step", &v) ? json_object_get_string(v) : "";
	const char *e =
		json_object_object_get_ex(p, "errnoName", &v) ? json_object_get_string(v) : "";
	char *s = NULL;
	int r = -1;

	if (!step || !e)
		return NULL;
	if (streq(step, "fsopen") && streq(e, "ENODEV") && c->fstype)
		r = asprintf(&s, "unknown filesystem type '%s'", c->fstype);
	else if (streq(step, "resolve:target") && streq(e, "ENOENT") && c->target)
		r = asprintf(&s, "mount point %s does not exist (use --mkdir)", c->target);
	else if (streq(step, "resolve:path") && streq(e, "ENOENT") && c->target)
		r = asprintf(&s, "%s does not exist", c->target);
	else if (streq(step, "umount") && streq(e, "EINVAL") && c->target)
		r = asprintf(&s, "%s is not a mount point", c->target);
	else if (streq(step, "namespace") && streq(e, "ENOENT") && c->ns_pid > 0)
		r = asprintf(&s, "no process %d", c->ns_pid);
	else if (streq(step, "namespace") && streq(e, "ESRCH") && c->container)
		r = asprintf(&s, "container %s has exited", c->container);
	return r < 0 ? NULL : s;
}

void print_error(Ctx *c, const MountdReply *reply, const char *where)
{
	_cleanup_free_ char *line = mountd_reply_error_string(reply);
	_cleanup_free_ char *words = reply->error ? error_in_words(c, reply) : NULL;

	if (where)
		fprintf(stderr, "%s: %s\n", where, line ?: reply->error);
	else if (words)
		err(c, "%s (%s)", words, line ?: reply->error);
	else
		err(c, "%s", line ?: reply->error);
	if (c->verbose)
		output_trace(stderr, "mountctl: ", reply->error, reply->parameters,
			     c->trace_streamed);
	if (c->json) {
		_cleanup_json_ json_object *o = json_object_new_object();

		if (o) {
			json_object_object_add(o, "error", json_object_new_string(reply->error));
			json_object_object_add(o, "parameters", json_object_get(reply->parameters));
			output_json(stdout, o);
		}
	}
}

/* ---- -v: a change's steps as they happen -------------------------------------- */

typedef struct Trace {
	int fd; /* the read end of the pipe passed as traceFd */
	pthread_t thread;
	atomic_bool reply_arrived;
} Trace;

/* Print the trace lines as they come, until mountd closes its end (it does
 * before it replies), or a while after the reply if it never does. */
static void *trace_main(void *userdata)
{
	Trace *t = userdata;
	char buf[8192];
	size_t len = 0;
	unsigned waited = 0;

	for (;;) {
		struct pollfd p = {.fd = t->fd, .events = POLLIN};
		ssize_t n;
		char *nl;

		if (poll(&p, 1, 100) == 0) {
			if (atomic_load(&t->reply_arrived) && ++waited >= 20)
				break;
			continue;
		}
		n = read(t->fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = 0;
		while ((nl = strchr(buf, '\n'))) {
			*nl = 0;
			output_trace_line(stderr, "mountctl: ", buf);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len + 1);
		}
		if (len == sizeof(buf) - 1)
			len = 0; /* a line too long to be ours */
	}
	return NULL;
}

/* The methods that take a traceFd. */
static bool method_traces(const char *method)
{
	static const char *const names[] = {"Create",	     "Bind", "Reconfigure",
					    "SetAttributes", "Move", "Unmount"};

	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (streq(names[i], method))
			return true;
	return false;
}

/* Pass a pipe as traceFd and read it in a thread; false when not tracing. */
static bool trace_start(Ctx *c, const char *method, json_object *params, Trace *t)
{
	int pipefd[2], index;

	*t = (Trace){.fd = -EBADF};
	if (!c->verbose || !params || !method_traces(method) || pipe2(pipefd, O_CLOEXEC) < 0)
		return false;
	index = push_fd(c, pipefd[1], true);
	if (index < 0) {
		safe_close(pipefd[0]);
		return false;
	}
	t->fd = pipefd[0];
	if (pthread_create(&t->thread, NULL, trace_main, t) != 0) {
		t->fd = safe_close(t->fd);
		return false; /* the write end goes with the call: no harm */
	}
	json_object_object_add(params, "traceFd", json_object_new_int(index));
	return true;
}

static void trace_finish(Trace *t)
{
	atomic_store(&t->reply_arrived, true);
	pthread_join(t->thread, NULL);
	safe_close(t->fd);
}

/* One call without judging the answer: 0 with *reply filled (maybe an
 * error), or an exit code after printing why mountd could not be asked. */
int call_raw(Ctx *c, const char *method, json_object *params, MountdReply *reply)
{
	Trace trace;
	int r;

	*reply = (MountdReply){};
	c->trace_streamed = false;
	r = connect_daemon(c);
	if (r) {
		drop_fds(c);
		return r;
	}
	c->trace_streamed = trace_start(c, method, params, &trace);
	verbose_call(c, method, params);
	r = mountd_client_call(c->client, method, params, c->fds, c->n_fds, reply);
	/* Our write end goes first, or the reader would never see EOF. */
	drop_fds(c);
	if (c->trace_streamed)
		trace_finish(&trace);
	if (r < 0) {
		err(c, "%s.%s: no answer from mountd: %s", MOUNTD_INTERFACE, method,
		    r == -ECONNRESET ? "connection closed" : strerror(-r));
		return EXIT_UNREACHABLE;
	}
	verbose_reply(c, method, reply);
	return 0;
}

typedef struct Parts {
	const char *array;
	MountdReply *joined;
} Parts;

/* Each part's array after the first's; an error in place of them all. */
static int join_part(MountdClient *client, MountdReply *part, void *userdata)
{
	Parts *p = userdata;
	json_object *to, *from;

	if (!p->joined->parameters || part->error) {
		mountd_reply_done(p->joined);
		*p->joined = *part;
		*part = (MountdReply){};
		return 0;
	}
	if (!json_object_object_get_ex(p->joined->parameters, p->array, &to) ||
	    !json_object_object_get_ex(part->parameters, p->array, &from) ||
	    !json_object_is_type(to, json_type_array) ||
	    !json_object_is_type(from, json_type_array))
		return -EBADMSG;
	for (size_t i = 0; i < json_object_array_length(from); i++)
		if (json_object_array_add(to, json_object_get(json_object_array_get_idx(from, i))) <
		    0)
			return -ENOMEM;
	return 0;
}

int call_parts(Ctx *c, const char *method, const char *array, json_object *params,
	       MountdReply *reply)
{
	Parts parts = {.array = array, .joined = reply};
	int r;

	*reply = (MountdReply){};
	r = connect_daemon(c);
	if (r) {
		drop_fds(c);
		return r;
	}
	verbose_call(c, method, params);
	r = mountd_client_call_more(c->client, method, params, c->fds, c->n_fds, join_part, &parts);
	drop_fds(c);
	if (r >= 0 && !reply->parameters)
		r = -EBADMSG;
	reply->continues = false; /* the parts are joined */
	if (r < 0) {
		mountd_reply_done(reply);
		err(c, "%s.%s: no answer from mountd: %s", MOUNTD_INTERFACE, method,
		    r == -ECONNRESET ? "connection closed" : strerror(-r));
		return EXIT_UNREACHABLE;
	}
	verbose_reply(c, method, reply);
	if (reply->error) {
		print_error(c, reply, NULL);
		mountd_reply_done(reply);
		return EXIT_FAILED;
	}
	return 0;
}

/* A call whose error ends the command: 0 with *reply the success reply, or
 * an exit code after printing the failure. */
int call(Ctx *c, const char *method, json_object *params, MountdReply *reply)
{
	int r = call_raw(c, method, params, reply);

	if (r)
		return r;
	if (reply->error) {
		print_error(c, reply, NULL);
		mountd_reply_done(reply);
		return EXIT_FAILED;
	}
	/* The kernel's warnings matter even when the mount worked. */
	if (c->verbose)
		output_trace(stderr, "mountctl: ", NULL, reply->parameters, c->trace_streamed);
	else
		output_messages(stderr, "mountctl: ", reply->parameters, false);
	return 0;
}

/* --json output of the commands that only change things. */
void print_done(Ctx *c, json_object *extra)
{
	if (c->json) {
		_cleanup_json_ json_object *o =
			extra ? json_object_get(extra) : json_object_new_object();
		if (o)
			output_json(stdout, o);
	}
}

/* {"source": FROM, "target": TO} for the commands that only name paths. */
void print_done_target(Ctx *c, const char *source, const char *target)
{
	_cleanup_json_ json_object *o = c->json ? json_object_new_object() : NULL;

	if (!o)
		return;
	if (source)
		json_object_object_add(o, "source", json_object_new_string(source));
	json_object_object_add(o, "target", json_object_new_string(target));
	output_json(stdout, o);
}

json_object *messages_of(json_object *params)
{
	json_object *m = NULL;

	if (params && json_object_object_get_ex(params, "messages", &m) && m)
		return json_object_get(m);
	return json_object_new_array();
}

/* Parse the -o list for mode; exit code on error. */
int parse_options(Ctx *c, const char *list, OptionsMode mode, MountOptions *opts)
{
	_cleanup_free_ char *bad = NULL;
	const char *why = NULL;
	int r;

	if (!list)
		return 0;
	r = mount_options_parse(opts, mode, list, &bad, &why);
	if (r == -ENOMEM) {
		err(c, "out of memory");
		return EXIT_FAILED;
	}
	if (r < 0) {
		err(c, "-o %s: %s", bad ?: list, why ?: "invalid option");
		return EXIT_USAGE;
	}
	return 0;
}
