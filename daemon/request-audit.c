/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The journal record of each request (see request-audit.h). */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "request-audit.h"
#include "request-escape.h"
#include "request-journal.h"
#include "request-ratelimit.h"
#include "log.h"
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

/* The kernel's messages, "; "-joined, into buf: as they came, to be
 * escaped with the rest (they echo parameters back).  Past size they are
 * cut, which the escaped field's own bound is far below. */
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
 * them are sent (see request-audit.h); past AUDIT_QUEUE_MAX they are sent at once,
 * so that a loop that never idles does not grow them.  When the journal
 * takes none, up to AUDIT_BACKLOG_MAX wait for its socket's EPOLLOUT; past
 * that a record is counted, not kept, and the count goes out as a record of
 * its own where the gap is. */
#define AUDIT_QUEUE_MAX	  64
#define AUDIT_BACKLOG_MAX 4096

static JournalRecord *queue;
static size_t first, n_queued, n_allocated; /* waiting: queue[first..n_queued) */
static uint64_t n_lost;
static int journal_fd = -EBADF;
static const char *journal_path; /* NULL: JOURNAL_SOCKET */
static sd_event *loop_event;
static sd_event_source *flush_source, *writable_source;

static void journal_reset(void)
{
	writable_source = sd_event_source_disable_unref(writable_source);
	journal_fd = safe_close(journal_fd);
}

/* One record to the journal: 0 sent, -EAGAIN to wait, or another negative
 * errno when it cannot go.  A socket that journald no longer reads from
 * (-ECONNREFUSED after a restart without its socket unit) is connected
 * again once. */
static int send_one(const JournalRecord *r)
{
	for (int attempt = 0;; attempt++) {
		int k;

		if (journal_fd < 0)
			journal_fd = journal_connect(journal_path);
		if (journal_fd < 0)
			return journal_fd;
		k = journal_send(journal_fd, r);
		if (k >= 0 || k == -EAGAIN || attempt > 0 ||
		    (k != -ECONNREFUSED && k != -ENOTCONN && k != -ECONNRESET && k != -EPIPE))
			return k;
		journal_reset();
	}
}

static int on_writable(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	(void)sd_event_source_set_enabled(s, SD_EVENT_OFF);
	audit_flush();
	return 0;
}

/* Called again when the journal's socket takes records; without an event
 * loop, by the next record. */
static void wait_writable(void)
{
	if (!loop_event)
		return;
	if (!writable_source && sd_event_add_io(loop_event, &writable_source, journal_fd, EPOLLOUT,
						on_writable, NULL) < 0)
		return;
	(void)sd_event_source_set_enabled(writable_source, SD_EVENT_ONESHOT);
}

static void lost_record(void);

void audit_flush(void)
{
	while (first < n_queued) {
		int r = send_one(&queue[first]);

		if (r == -EAGAIN) {
			wait_writable();
			break;
		}
		/* r < 0 otherwise: this record cannot go (no journal at all,
		 * or it is too large); the others may. */
		journal_record_done(&queue[first++]);
	}
	if (first == n_queued) {
		first = n_queued = 0;
		/* The backlog of a stalled journal is given back. */
		if (n_allocated > AUDIT_QUEUE_MAX) {
			free(queue);
			queue = NULL;
			n_allocated = 0;
		}
		if (n_lost > 0) {
			lost_record();
			audit_flush();
			return;
		}
	}
	/* Nothing left for the deferred flush: not an iteration for nothing. */
	if (flush_source)
		(void)sd_event_source_set_enabled(flush_source, SD_EVENT_OFF);
}

static int on_flush(sd_event_source *s, void *userdata)
{
	audit_flush();
	return 0;
}

int audit_setup(sd_event *event, const char *socket_path)
{
	int r;

	journal_path = socket_path;
	/* After the connections' own deferred work, which sends the answers. */
	r = sd_event_add_defer(event, &flush_source, on_flush, NULL);
	if (r >= 0)
		r = sd_event_source_set_priority(flush_source, SD_EVENT_PRIORITY_NORMAL + 1);
	if (r >= 0)
		r = sd_event_source_set_enabled(flush_source, SD_EVENT_OFF);
	if (r < 0) {
		flush_source = sd_event_source_disable_unref(flush_source);
		return r;
	}
	loop_event = sd_event_ref(event);
	return 0;
}

size_t audit_pending(void)
{
	return n_queued - first;
}

static void budget_shutdown(void);

void audit_shutdown(void)
{
	/* Its summaries are records: before the last flush. */
	budget_shutdown();
	/* A journal that takes nothing gets a while, not for ever: the stop
	 * has a timeout of its own. */
	for (int waited_ms = 0;; waited_ms += 100) {
		audit_flush();
		if (first == n_queued || journal_fd < 0 || waited_ms >= AUDIT_SHUTDOWN_WAIT_MS)
			break;
		(void)poll(&(struct pollfd){.fd = journal_fd, .events = POLLOUT}, 1, 100);
	}
	if (first < n_queued || n_lost > 0)
		log_warning("%zu request records not sent, %" PRIu64
			    " lost before: the journal took none",
			    n_queued - first, n_lost);
	while (first < n_queued)
		journal_record_done(&queue[first++]);
	free(queue);
	queue = NULL;
	first = n_queued = n_allocated = 0;
	n_lost = 0;
	flush_source = sd_event_source_disable_unref(flush_source);
	journal_reset();
	loop_event = sd_event_unref(loop_event);
}

/* A new record at the end of the queue, its SYSLOG_IDENTIFIER set, or NULL
 * without memory. */
static JournalRecord *slot(void)
{
	if (n_queued == n_allocated && first > 0) {
		memmove(queue, queue + first, sizeof(*queue) * (n_queued - first));
		n_queued -= first;
		first = 0;
	}
	if (n_queued == n_allocated) {
		size_t want = MAX(n_allocated * 2, (size_t)AUDIT_QUEUE_MAX);
		JournalRecord *q = reallocarray(queue, want, sizeof(*q));

		if (!q)
			return NULL;
		queue = q;
		n_allocated = want;
	}
	queue[n_queued] = (JournalRecord){};
	journal_record_add(&queue[n_queued], "SYSLOG_IDENTIFIER", program_invocation_short_name);
	return &queue[n_queued++];
}

/* The count of the records that did not fit, where they would have been. */
static void lost_record(void)
{
	JournalRecord *r = slot();

	if (!r)
		return;
	journal_record_addf(r, "MESSAGE",
			    "%" PRIu64
			    " request records lost: the journal took none while %d waited",
			    n_lost, AUDIT_BACKLOG_MAX);
	journal_record_add(r, "MESSAGE_ID", AUDIT_MESSAGE_ID_LOST);
	journal_record_addf(r, "PRIORITY", "%d", LOG_WARNING);
	journal_record_addf(r, "MOUNTD_RECORDS_LOST", "%" PRIu64, n_lost);
	n_lost = 0;
}

/* The next record to fill, or NULL when AUDIT_BACKLOG_MAX wait: counted. */
static JournalRecord *queue_next(void)
{
	JournalRecord *r;

	if (n_queued - first >= AUDIT_QUEUE_MAX || !flush_source)
		audit_flush();
	if (n_queued - first + (n_lost > 0) >= AUDIT_BACKLOG_MAX) {
		n_lost++;
		return NULL;
	}
	if (n_lost > 0)
		lost_record();
	r = slot();
	if (!r)
		n_lost++;
	return r;
}

/* Sent after this iteration's answers, or now without audit_setup(). */
static void queued(void)
{
	if (flush_source)
		(void)sd_event_source_set_enabled(flush_source, SD_EVENT_ONESHOT);
	else
		audit_flush();
}

/* A field only when it has a value: journald's work grows with the
 * fields of a record (under TCG it spent about as much CPU on each
 * record as mountd on the request), and an empty one says nothing. */
static void add_set(JournalRecord *r, const char *key, const char *value)
{
	if (value && value[0])
		journal_record_add(r, key, value);
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
	/* Only the kernel's newline at the end: one in the name is the
	 * caller's, shown escaped in the record. */
	if (n > 0 && comm[n - 1] == '\n')
		comm[n - 1] = 0;
}

/* ---- caller input, escaped and bounded (request-escape.h) ------------------------ */

typedef char MessageValue[AUDIT_MESSAGE_VALUE_MAX];

/* A field that may carry a caller's text: escaped, bounded to max (at
 * most AUDIT_FIELD_MAX), and only when it has a value. */
static void add_text(JournalRecord *r, const char *key, const char *value, size_t max)
{
	char buf[AUDIT_FIELD_MAX];

	add_set(r, key, escape_text(value, buf, MIN(max, sizeof(buf))));
}

/* What journalctl shows of a request, read as systemd's own lines are:
 * "Create tmpfs on /mnt/x in namespace {"pid":42} by uid 1000 (mountctl):
 * done", or the error, the step, the errno and why.  The fields say the
 * same one by one. */
/* What a record says of one request, read from its parameters once. */
typedef struct RequestFacts {
	const char *method, *fstype, *source, *placed, *path, *from, *to, *root, *ns;
	const char *comm, *error, *step, *errno_name, *reason;
	uid_t uid;
} RequestFacts;

/* MESSAGE: what, where, who and how it ended, as a person reads it.  Every
 * string in it is escaped: one line, whatever the caller sent. */
static void request_message(char *buf, size_t size, const RequestFacts *f)
{
	MessageValue a, b;
	size_t used = 0;

#define PUT(...)                                                                           \
	do {                                                                               \
		int n_ = used < size ? snprintf(buf + used, size - used, __VA_ARGS__) : 0; \
		used += n_ > 0 ? (size_t)n_ : 0;                                           \
	} while (0)
#define E(s, v) escape_text((s), (v), sizeof(v))
	PUT("%s", E(f->method, a));
	if (f->fstype)
		PUT(" %s", E(f->fstype, a));
	if (f->source)
		PUT(" %s", E(f->source, a));
	if (f->placed)
		PUT(" on %s", E(f->placed, a));
	if (f->path)
		PUT(" %s", E(f->path, a));
	if (f->from && f->to)
		PUT(" %s to %s", E(f->from, a), E(f->to, b));
	if (!streq(f->ns, "own"))
		PUT(" in namespace %s", E(f->ns, a));
	if (f->root)
		PUT(" under %s", E(f->root, a));
	PUT(" by uid %u (%s): %s", (unsigned)f->uid, f->comm[0] ? E(f->comm, a) : "?",
	    E(f->error ?: "done", b));
	if (f->step)
		PUT(" at %s", E(f->step, a));
	if (f->errno_name)
		PUT(": %s", E(f->errno_name, a));
	if (f->reason && f->error)
		PUT(": %s", E(f->reason, a));
#undef E
#undef PUT
}

/* ---- what each user makes the journal store -------------------------------------- */

static RateTable *budget;
static ReportPeriod budget_period;
static char budget_description[64];

/* Takes the record just filled by slot() back out. */
static void unslot(JournalRecord *r)
{
	assert(r == &queue[n_queued - 1]);
	journal_record_done(r);
	n_queued--;
}

/* The record's bytes counted against the user: false once its budget is
 * spent (the record is counted for the summary instead). */
static bool budget_take(uid_t principal, size_t bytes)
{
	if (!budget)
		return true;
	if (rate_table_take_cost(budget, principal, bytes, report_period_now(&budget_period)) ==
	    RATE_PASS)
		return true;
	/* The timer runs only while a summary is owed. */
	report_period_start(&budget_period);
	return false;
}

static void summarized_record(uid_t uid, uint64_t records, uint64_t bytes, void *userdata)
{
	JournalRecord *r = queue_next();

	if (!r)
		return;
	if (uid == (uid_t)-1)
		journal_record_addf(r, "MESSAGE",
				    "%" PRIu64 " records (%" PRIu64
				    " bytes) of users past the journal budget's table summarized",
				    records, bytes);
	else {
		journal_record_addf(r, "MESSAGE",
				    "%" PRIu64 " more records (%" PRIu64
				    " bytes) of user %u summarized: past its journal budget (%s)",
				    records, bytes, (unsigned)uid, budget_description);
		journal_record_addf(r, "MOUNTD_CALLER_USER", "%u", (unsigned)uid);
	}
	journal_record_add(r, "MESSAGE_ID", AUDIT_MESSAGE_ID_SUMMARIZED);
	journal_record_addf(r, "PRIORITY", "%d", LOG_NOTICE);
	journal_record_addf(r, "MOUNTD_SUMMARIZED_RECORDS", "%" PRIu64, records);
	journal_record_addf(r, "MOUNTD_SUMMARIZED_BYTES", "%" PRIu64, bytes);
	queued();
}

static void budget_report(uint64_t now)
{
	(void)rate_table_report(budget, now, summarized_record, NULL);
}

int audit_budget_setup(unsigned bytes, uint64_t interval_usec)
{
	int r;

	if (!loop_event)
		return -EINVAL;
	if (bytes == 0)
		return 0;
	budget = rate_table_new_budget(bytes, interval_usec);
	if (!budget)
		return -ENOMEM;
	snprintf(budget_description, sizeof(budget_description), "%u bytes per %g s", bytes,
		 (double)interval_usec / 1e6);
	r = report_period_setup(&budget_period, loop_event, AUDIT_BUDGET_REPORT_USEC,
				budget_report);
	if (r < 0)
		budget = rate_table_free(budget);
	return r;
}

static void budget_shutdown(void)
{
	report_period_end(&budget_period);
	budget = rate_table_free(budget);
}

/* The fields of a request's record, each caller value bounded to max. */
static void request_fields(JournalRecord *r, const AuthCaller *caller, const RequestFacts *f,
			   const char *message, const char *messages, size_t max)
{
	journal_record_add(r, "MESSAGE", message);
	journal_record_add(r, "MESSAGE_ID",
			   is_refusal(f->error) ? AUDIT_MESSAGE_ID_REFUSED
						: AUDIT_MESSAGE_ID_REQUEST);
	journal_record_addf(r, "PRIORITY", "%d", f->error ? LOG_NOTICE : LOG_INFO);
	journal_record_addf(r, "MOUNTD_CALLER_UID", "%u", (unsigned)caller->id.uid);
	journal_record_addf(r, "MOUNTD_CALLER_GID", "%u", (unsigned)caller->id.gid);
	journal_record_addf(r, "MOUNTD_CALLER_PID", "%d", (int)caller->pid);
	journal_record_addf(r, "MOUNTD_CALLER_USER", "%u", (unsigned)caller->principal);
	/* Every string below may be the caller's, or echo it. */
	add_text(r, "MOUNTD_CALLER_COMM", f->comm, max);
	add_text(r, "MOUNTD_METHOD", f->method, max);
	add_text(r, "MOUNTD_FSTYPE", f->fstype, max);
	add_text(r, "MOUNTD_SOURCE", f->source, max);
	add_text(r, "MOUNTD_NAMESPACE", f->ns, max);
	add_text(r, "MOUNTD_ROOT", f->root, max);
	add_text(r, "MOUNTD_PATH", f->path ?: f->placed, max);
	add_text(r, "MOUNTD_RESULT", f->error ?: "ok", max);
	add_text(r, "MOUNTD_ERRNO", f->errno_name, max);
	add_text(r, "MOUNTD_STEP", f->step, max);
	add_text(r, "MOUNTD_POLICY", f->reason, max);
	add_text(r, "MOUNTD_KERNEL_MESSAGES", messages, max);
}

void audit_request(const AuthCaller *caller, const char *method, bool changes,
		   json_object *parameters, const char *authorized_by, const char *error,
		   json_object *error_parameters)
{
	char comm[32], messages[2 * AUDIT_FIELD_MAX], message[4096];
	RequestFacts f = {
		.method = method,
		.fstype = member(parameters, "fsType"),
		.source = member(parameters, "source") ?: member(parameters, "sourcePath"),
		.placed = member(parameters, "placement.path"),
		.path = member(parameters, "path"),
		.from = member(parameters, "from"),
		.to = member(parameters, "to"),
		.root = member(parameters, "namespace.root")
				?: member(parameters, "placement.namespace.root"),
		.ns = namespace_of(parameters),
		.comm = comm,
		.error = error,
		.step = member(error_parameters, "step"),
		.errno_name = member(error_parameters, "errnoName"),
		.reason = member(error_parameters, "reason") ?: authorized_by,
		.uid = caller->id.uid,
	};
	JournalRecord *r;

	if (caller->comm)
		snprintf(comm, sizeof(comm), "%s", caller->comm);
	else
		read_comm(caller->pid, comm);
	(void)messages_of(error_parameters, messages, sizeof(messages));

	r = queue_next();
	if (!r)
		return;
	request_message(message, sizeof(message), &f);
	request_fields(r, caller, &f, message, messages, AUDIT_FIELD_MAX);
	if (!r->broken && !error && changes && budget &&
	    !rate_table_fits(budget, caller->principal, r->size,
			     report_period_now(&budget_period))) {
		/* A change that was made is never only counted: past the
		 * budget it is recorded short, each value cut to what MESSAGE
		 * keeps.  The call rate and what a change costs bound them. */
		unslot(r);
		r = queue_next();
		if (!r)
			return;
		request_fields(r, caller, &f, message, messages, AUDIT_MESSAGE_VALUE_MAX);
		journal_record_add(r, "MOUNTD_PAST_BUDGET", "1");
	} else if (!r->broken && !budget_take(caller->principal, r->size)) {
		unslot(r);
		return;
	}
	queued();
}

void audit_rate_limited(uid_t uid, uint64_t refused, const char *limit)
{
	JournalRecord *r = queue_next();

	if (!r)
		return;
	if (uid == (uid_t)-1)
		journal_record_addf(r, "MESSAGE",
				    "%" PRIu64
				    " calls by uids past the rate limit's table refused (%s)",
				    refused, limit);
	else {
		journal_record_addf(r, "MESSAGE",
				    "%" PRIu64 " more calls by uid %u refused: rate limit (%s)",
				    refused, (unsigned)uid, limit);
		/* The rate's key is the user (principal.h): for its own
		 * calls, its uid too. */
		journal_record_addf(r, "MOUNTD_CALLER_UID", "%u", (unsigned)uid);
		journal_record_addf(r, "MOUNTD_CALLER_USER", "%u", (unsigned)uid);
	}
	journal_record_add(r, "MESSAGE_ID", AUDIT_MESSAGE_ID_REFUSED);
	journal_record_addf(r, "PRIORITY", "%d", LOG_NOTICE);
	journal_record_add(r, "MOUNTD_RESULT", OPS_ERROR_NAME_LIMIT);
	journal_record_addf(r, "MOUNTD_POLICY", "rate limit: %s", limit);
	journal_record_addf(r, "MOUNTD_REFUSED_CALLS", "%" PRIu64, refused);
	queued();
}
