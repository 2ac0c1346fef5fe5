/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The journal record of each request (see audit.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <syslog.h>
#include <unistd.h>

/* No CODE_FILE/CODE_LINE/CODE_FUNC: the same three for every record, and
 * journald's work grows with the fields (see add_set()). */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "audit.h"
#include "ops-table.h"
#include "util.h"

/* A string member at a dotted path of o, or NULL. */
static const char *member(json_object *o, const char *path)
{
	char key[64];

	while (o && path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = 0;
		if (!json_object_object_get_ex(o, key, &o))
			return NULL;
		path = dot ? dot + 1 : NULL;
	}
	return o && !json_object_is_type(o, json_type_object) ? json_object_get_string(o) : NULL;
}

/* The namespace as the caller named it: {"pid":N} and so on, or "own". */
static const char *namespace_of(json_object *params)
{
	json_object *ns;

	if (json_object_object_get_ex(params, "namespace", &ns) ||
	    (json_object_object_get_ex(params, "placement", &ns) &&
	     json_object_object_get_ex(ns, "namespace", &ns)))
		return json_object_to_json_string_ext(ns, JSON_C_TO_STRING_PLAIN);
	return "own";
}

/* The kernel's messages, "; "-joined, into buf. */
static const char *messages_of(json_object *p, char *buf, size_t size)
{
	json_object *a;
	size_t used = 0;

	buf[0] = 0;
	if (!json_object_object_get_ex(p, "messages", &a) ||
	    !json_object_is_type(a, json_type_array))
		return buf;
	for (size_t i = 0; i < json_object_array_length(a) && used < size; i++) {
		const char *t = member(json_object_array_get_idx(a, i), "text");
		int n = t ? snprintf(buf + used, size - used, "%s%s", used ? "; " : "", t) : 0;

		used += n > 0 ? (size_t)n : 0;
	}
	return buf;
}

static bool is_refusal(const char *error)
{
	return error &&
	       (streq(error, OPS_ERROR_NAME_PERMISSION) || streq(error, OPS_ERROR_NAME_LIMIT));
}

/* Records wait here until the answers of the loop iteration that made
 * them are sent (see audit.h); past AUDIT_QUEUE_MAX they are sent at once,
 * so that a loop that never idles neither grows nor loses them. */
#define AUDIT_QUEUE_MAX 64
#define AUDIT_FIELDS	18

typedef struct Record {
	char *fields[AUDIT_FIELDS];
	size_t n;
} Record;

static Record queue[AUDIT_QUEUE_MAX];
static size_t n_queued;
static sd_event_source *flush_source;

static void record_send(Record *r)
{
	struct iovec iov[AUDIT_FIELDS];

	for (size_t i = 0; i < r->n; i++)
		iov[i] = (struct iovec){.iov_base = r->fields[i], .iov_len = strlen(r->fields[i])};
	(void)sd_journal_sendv(iov, (int)r->n);
	for (size_t i = 0; i < r->n; i++)
		free(r->fields[i]);
	*r = (Record){};
}

void audit_flush(void)
{
	for (size_t i = 0; i < n_queued; i++)
		record_send(&queue[i]);
	n_queued = 0;
	/* Nothing left for the deferred flush: not an iteration for nothing. */
	if (flush_source)
		(void)sd_event_source_set_enabled(flush_source, SD_EVENT_OFF);
}

static int on_flush(sd_event_source *s, void *userdata)
{
	(void)s;
	(void)userdata;
	audit_flush();
	return 0;
}

int audit_setup(sd_event *event)
{
	int r;

	/* After the connections' own deferred work, which sends the answers. */
	r = sd_event_add_defer(event, &flush_source, on_flush, NULL);
	if (r >= 0)
		r = sd_event_source_set_priority(flush_source, SD_EVENT_PRIORITY_NORMAL + 1);
	if (r >= 0)
		r = sd_event_source_set_enabled(flush_source, SD_EVENT_OFF);
	if (r < 0)
		flush_source = sd_event_source_disable_unref(flush_source);
	return r;
}

void audit_shutdown(void)
{
	audit_flush();
	flush_source = sd_event_source_disable_unref(flush_source);
}

/* The next free record; a full queue goes out first. */
static Record *queue_next(void)
{
	if (n_queued == AUDIT_QUEUE_MAX || !flush_source)
		audit_flush();
	return &queue[n_queued++];
}

/* Sent after this iteration's answers, or now without audit_setup(). */
static void queued(void)
{
	if (flush_source)
		(void)sd_event_source_set_enabled(flush_source, SD_EVENT_ONESHOT);
	else
		audit_flush();
}

_printf_(2, 3) static void add(Record *r, const char *fmt, ...)
{
	va_list ap;
	char *f;

	va_start(ap, fmt);
	if (r->n < AUDIT_FIELDS && vasprintf(&f, fmt, ap) >= 0)
		r->fields[r->n++] = f;
	va_end(ap);
}

/* A field only when it has a value: journald's work grows with the
 * fields of a record (under TCG it spent about as much CPU on each
 * record as mountd on the request), and an empty one says nothing. */
static void add_set(Record *r, const char *key, const char *value)
{
	if (value && value[0])
		add(r, "%s%s", key, value);
}

/* The caller's comm, read now: the caller may be gone when the record is
 * sent.  Plain open/read, no stdio: this is on every request's path. */
static void read_comm(pid_t pid, char comm[static 32])
{
	_cleanup_close_ int fd = -EBADF;
	char path[64];
	ssize_t n;

	comm[0] = 0;
	if (pid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, comm, 31);
	comm[n > 0 ? n : 0] = 0;
	comm[strcspn(comm, "\n")] = 0;
}

void audit_request(const AuthCaller *caller, const char *method, json_object *parameters,
		   const char *authorized_by, const char *error, json_object *error_parameters)
{
	char comm[32], messages[1024];
	const char *target = member(parameters, "path") ?: member(parameters, "placement.path");
	const char *source = member(parameters, "source") ?: member(parameters, "sourcePath");
	const char *fstype = member(parameters, "fsType");
	const char *errno_name = member(error_parameters, "errnoName");
	const char *step = member(error_parameters, "step");
	const char *reason = member(error_parameters, "reason") ?: authorized_by;
	Record *r;

	if (caller->comm)
		snprintf(comm, sizeof(comm), "%s", caller->comm);
	else
		read_comm(caller->pid, comm);
	(void)messages_of(error_parameters, messages, sizeof(messages));

	r = queue_next();
	add(r, "MESSAGE=%s by uid %u (%s): %s%s%s%s%s", method, (unsigned)caller->id.uid,
	    comm[0] ? comm : "?", error ?: "done", step ? " at " : "", step ?: "",
	    reason && error ? ": " : "", reason && error ? reason : "");
	add(r, "MESSAGE_ID=%s",
	    is_refusal(error) ? AUDIT_MESSAGE_ID_REFUSED : AUDIT_MESSAGE_ID_REQUEST);
	add(r, "PRIORITY=%d", error ? LOG_NOTICE : LOG_INFO);
	add(r, "MOUNTD_CALLER_UID=%u", (unsigned)caller->id.uid);
	add(r, "MOUNTD_CALLER_GID=%u", (unsigned)caller->id.gid);
	add(r, "MOUNTD_CALLER_PID=%d", (int)caller->pid);
	add_set(r, "MOUNTD_CALLER_COMM=", comm);
	add(r, "MOUNTD_METHOD=%s", method);
	add_set(r, "MOUNTD_FSTYPE=", fstype);
	add_set(r, "MOUNTD_SOURCE=", source);
	add(r, "MOUNTD_NAMESPACE=%s", namespace_of(parameters));
	add_set(r, "MOUNTD_PATH=", target);
	add(r, "MOUNTD_RESULT=%s", error ?: "ok");
	add_set(r, "MOUNTD_ERRNO=", errno_name);
	add_set(r, "MOUNTD_STEP=", step);
	add_set(r, "MOUNTD_POLICY=", reason);
	add_set(r, "MOUNTD_KERNEL_MESSAGES=", messages);
	queued();
}

void audit_rate_limited(uid_t uid, uint64_t refused, const char *limit)
{
	Record *r = queue_next();

	if (uid == (uid_t)-1)
		add(r, "MESSAGE=%" PRIu64 " calls by uids past the rate limit's table refused (%s)",
		    refused, limit);
	else {
		add(r, "MESSAGE=%" PRIu64 " more calls by uid %u refused: rate limit (%s)", refused,
		    (unsigned)uid, limit);
		add(r, "MOUNTD_CALLER_UID=%u", (unsigned)uid);
	}
	add(r, "MESSAGE_ID=%s", AUDIT_MESSAGE_ID_REFUSED);
	add(r, "PRIORITY=%d", LOG_NOTICE);
	add(r, "MOUNTD_RESULT=%s", OPS_ERROR_NAME_LIMIT);
	add(r, "MOUNTD_POLICY=rate limit: %s", limit);
	add(r, "MOUNTD_REFUSED_CALLS=%" PRIu64, refused);
	queued();
}
