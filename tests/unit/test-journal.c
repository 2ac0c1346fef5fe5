// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daemon/request-journal.c and the audit queue over it: records in journald's
 * native format (binary-safe where a value has a newline), and a journal
 * that takes nothing: no call waits, records wait up to the backlog, the
 * rest is counted in a record of its own once the journal reads again,
 * and shutdown gives up after its while.  The "journal" is a datagram
 * socket this test binds and reads, or does not.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-event.h>

#include "request-audit.h"
#include "request-journal.h"
#include "tap.h"
#include "util.h"

#define MANY 6000 /* more than the backlog and any max_dgram_qlen */

static char dir[] = "/tmp/test-journal.XXXXXX";
static char path[96];

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int bind_journal(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	(void)unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("bind");
		exit(1);
	}
	return fd;
}

/* The value of KEY= in a record of plain fields, or "" */
static const char *field(const char *rec, const char *key, char *buf, size_t size)
{
	size_t k = strlen(key);

	buf[0] = 0;
	for (const char *l = rec; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		if (!strncmp(l, key, k) && l[k] == '=') {
			size_t n = strcspn(l + k + 1, "\n");

			snprintf(buf, size, "%.*s", (int)MIN(n, size - 1), l + k + 1);
			break;
		}
	return buf;
}

static void test_format(void)
{
	JournalRecord r = {};
	uint64_t le = htole64(6);
	char want[64];
	size_t n = 0;

	journal_record_add(&r, "A", "plain");
	journal_record_add(&r, "SKIPPED", NULL);
	journal_record_addf(&r, "B", "x%dy", 1);
	journal_record_add(&r, "PATH", "/a\nb/c");
	memcpy(want + n, "A=plain\nB=x1y\nPATH\n", 19);
	n += 19;
	memcpy(want + n, &le, 8);
	n += 8;
	memcpy(want + n, "/a\nb/c\n", 7);
	n += 7;
	ok(!r.broken && r.size == n && !memcmp(r.data, want, n),
	   "fields as KEY=value, a value with a newline binary-safe, a NULL one left out");
	ok(journal_send(-1, &(JournalRecord){}) == -EINVAL, "an empty record is not sent");
	journal_record_done(&r);
}

static void test_stalled(void)
{
	_cleanup_close_ int j = bind_journal();
	sd_event *e = NULL;
	char buf[4096], v[64];
	uint64_t expect = 1, lost = 0, t0;
	size_t got = 0, lost_records = 0, out_of_order = 0;
	bool lost_last = false;

	if (sd_event_new(&e) < 0 || audit_setup(e, path) < 0) {
		ok(false, "audit_setup");
		return;
	}
	/* The journal reads nothing meanwhile.  A blocking send would hang
	 * here: SIGALRM ends the test then. */
	alarm(20);
	t0 = now_ms();
	for (int i = 1; i <= MANY; i++) {
		audit_rate_limited(1000, (uint64_t)i, "test");
		(void)sd_event_run(e, 0);
	}
	alarm(0);
	ok(true, "%d records while the journal reads none: no call waited (%" PRIu64 " ms)", MANY,
	   now_ms() - t0);
	ok(audit_pending() == 4096, "the backlog holds 4096 records (%zu)", audit_pending());

	/* The journal reads again: the loop sends the backlog as the socket
	 * takes it, then the count of what did not fit. */
	for (uint64_t idle_since = now_ms(); now_ms() - idle_since < 1000;) {
		ssize_t n = recv(j, buf, sizeof(buf) - 1, MSG_DONTWAIT);

		if (n < 0) {
			(void)sd_event_run(e, 50 * 1000);
			continue;
		}
		idle_since = now_ms();
		buf[n] = 0;
		lost_last = false;
		if (*field(buf, "MOUNTD_RECORDS_LOST", v, sizeof(v))) {
			lost += strtoull(v, NULL, 10);
			lost_records++;
			lost_last = true;
			ok(!strcmp(field(buf, "MESSAGE_ID", v, sizeof(v)), AUDIT_MESSAGE_ID_LOST),
			   "the count has its own MESSAGE_ID");
			expect +=
				strtoull(field(buf, "MOUNTD_RECORDS_LOST", v, sizeof(v)), NULL, 10);
			continue;
		}
		got++;
		if (strtoull(field(buf, "MOUNTD_REFUSED_CALLS", v, sizeof(v)), NULL, 10) != expect)
			out_of_order++;
		expect++;
	}
	ok(out_of_order == 0, "records arrive in order, the gap where the count says (%zu off)",
	   out_of_order);
	ok(lost_records == 1 && lost_last, "one record counts the lost ones, after the others");
	ok(got + lost == MANY && got >= 4096,
	   "every record arrived or was counted: %zu + %" PRIu64 " = %d", got, lost, MANY);
	ok(audit_pending() == 0, "nothing waits once the journal has read");

	/* A record now goes straight through. */
	audit_rate_limited(1000, 1, "after");
	(void)sd_event_run(e, 0);
	ok(recv(j, buf, sizeof(buf) - 1, MSG_DONTWAIT) > 0, "the next record arrives at once");

	/* At shutdown a journal that reads nothing gets its while. */
	for (int i = 0; i < 2000; i++)
		audit_rate_limited(1000, (uint64_t)i, "shutdown");
	t0 = now_ms();
	audit_shutdown();
	ok(now_ms() - t0 >= AUDIT_SHUTDOWN_WAIT_MS / 2 && now_ms() - t0 < 10 * 1000,
	   "shutdown with a stalled journal gives up after its wait (%" PRIu64 " ms)",
	   now_ms() - t0);
	ok(audit_pending() == 0, "and keeps nothing");
	sd_event_unref(e);
}

typedef void (*EachRecord)(const char *rec, size_t n, void *userdata);

/* The datagrams waiting now, passed to each(). */
static void drain_now(int j, EachRecord each, void *userdata)
{
	static char buf[256 * 1024];
	ssize_t n;

	while ((n = recv(j, buf, sizeof(buf) - 1, MSG_DONTWAIT)) >= 0) {
		buf[n] = 0;
		each(buf, (size_t)n, userdata);
	}
}

/* Every datagram the journal gets until none came for 300 ms, passed to
 * each(); the loop e (if any) run meanwhile. */
static size_t drain(int j, sd_event *e, void (*each)(const char *rec, size_t n, void *userdata),
		    void *userdata)
{
	static char buf[256 * 1024];
	size_t got = 0;

	for (uint64_t idle_since = now_ms(); now_ms() - idle_since < 300;) {
		ssize_t n = recv(j, buf, sizeof(buf) - 1, MSG_DONTWAIT);

		if (n < 0) {
			if (e)
				(void)sd_event_run(e, 20 * 1000);
			else
				usleep(20 * 1000);
			continue;
		}
		idle_since = now_ms();
		buf[n] = 0;
		each(buf, (size_t)n, userdata);
		got++;
	}
	return got;
}

typedef struct Forged {
	size_t size, lines, plain_lines, controls;
	char message[8192], path[8192], ns[8192], comm[256], messages[8192], fstype[1024];
} Forged;

static void take_forged(const char *rec, size_t n, void *userdata)
{
	Forged *f = userdata;

	f->size = n;
	/* A value with a newline goes binary-safe: "KEY\n" and a length, a
	 * line without "=".  Each line a KEY=value: no value has one. */
	for (const char *l = rec; l < rec + n; l = strchr(l, '\n') + 1) {
		f->lines++;
		f->plain_lines += memchr(l, '=', strcspn(l, "\n")) != NULL;
		if (!strchr(l, '\n'))
			break;
	}
	for (size_t i = 0; i < n; i++)
		f->controls += (rec[i] < 0x20 && rec[i] != '\n') || rec[i] == 0x7f;
	field(rec, "MESSAGE", f->message, sizeof(f->message));
	field(rec, "MOUNTD_PATH", f->path, sizeof(f->path));
	field(rec, "MOUNTD_NAMESPACE", f->ns, sizeof(f->ns));
	field(rec, "MOUNTD_CALLER_COMM", f->comm, sizeof(f->comm));
	field(rec, "MOUNTD_KERNEL_MESSAGES", f->messages, sizeof(f->messages));
	field(rec, "MOUNTD_FSTYPE", f->fstype, sizeof(f->fstype));
}

/* A string of n bytes: prefix, then 'x'. */
static char *long_string(const char *prefix, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		exit(1);
	memset(s, 'x', n);
	memcpy(s, prefix, strlen(prefix));
	s[n] = 0;
	return s;
}

/* A caller's request at its worst: every value it chose forged (newlines,
 * ESC, invalid UTF-8) and 150 KiB long, the kernel echoing it back. */
static void test_forged(void)
{
	_cleanup_close_ int j = bind_journal();
	_cleanup_free_ char *forged =
		long_string("/a\nDec  7 by uid 0 (mountctl): done\n", 150 * 1024);
	_cleanup_free_ char *junk = long_string("\x1b[2J\xff\xc0\xaf\r", 150 * 1024);
	json_object *params = json_object_new_object(), *placement = json_object_new_object(),
		    *ns = json_object_new_object(), *err = json_object_new_object(),
		    *msgs = json_object_new_array(), *msg = json_object_new_object();
	AuthCaller caller = {
		.id = {.uid = 1000, .gid = 1000}, .pid = 1, .principal = 1000, .comm = "x\ny\x1b"};
	Forged f = {};

	json_object_object_add(params, "fsType", json_object_new_string(junk));
	json_object_object_add(params, "source", json_object_new_string(junk));
	json_object_object_add(ns, "pid", json_object_new_int(1));
	json_object_object_add(ns, "root", json_object_new_string(forged));
	json_object_object_add(ns, "x", json_object_new_string(junk));
	json_object_object_add(placement, "namespace", ns);
	json_object_object_add(placement, "path", json_object_new_string(forged));
	json_object_object_add(params, "placement", placement);
	json_object_object_add(err, "reason", json_object_new_string(forged));
	json_object_object_add(err, "step", json_object_new_string(junk));
	json_object_object_add(msg, "text", json_object_new_string(forged));
	json_object_array_add(msgs, msg);
	json_object_array_add(msgs, json_object_get(msg));
	json_object_object_add(err, "messages", msgs);

	/* No event loop: sent at once. */
	audit_request(&caller, "Create", true, params, NULL, "io.mountd.Mount.PermissionDenied",
		      err);
	ok(drain(j, NULL, take_forged, &f) == 1, "one record");
	ok(f.lines > 10 && f.lines == f.plain_lines,
	   "every field a KEY=value line: no value holds a newline (%zu of %zu)", f.plain_lines,
	   f.lines);
	ok(f.controls == 0, "no control character or DEL anywhere in the record");
	ok(f.size < 40 * 1024, "the record of 150 KiB values x 8 is bounded: %zu bytes", f.size);
	ok(strlen(f.message) < 4096 && startswith(f.message, "Create \\x1b[2J\\xff") &&
		   strstr(f.message, " on /a\\nDec  7 by uid 0 (mountctl): done\\nxxx") &&
		   strstr(f.message, "by uid 1000 (x\\ny\\x1b): io.mountd.Mount.PermissionDenied"),
	   "MESSAGE: one line, the forged one shown escaped, the real caller after it: %.120s...",
	   f.message);
	ok(strlen(f.path) <= 4095 && startswith(f.path, "/a\\nDec") &&
		   strstr(f.path, "...[+") != NULL,
	   "MOUNTD_PATH: escaped, bounded, the cut marked (%zu bytes)", strlen(f.path));
	ok(strlen(f.ns) <= 4095 && strstr(f.ns, "...[+") != NULL && !strchr(f.ns, 0x1b),
	   "MOUNTD_NAMESPACE (the caller's JSON): bounded, escaped (%zu bytes)", strlen(f.ns));
	ok(streq(f.comm, "x\\ny\\x1b"), "MOUNTD_CALLER_COMM escaped: %s", f.comm);
	ok(strlen(f.messages) <= 4095 && startswith(f.messages, "/a\\nDec"),
	   "MOUNTD_KERNEL_MESSAGES (echoing the path): escaped, bounded");
	ok(startswith(f.fstype, "\\x1b[2J\\xff\\xc0\\xaf\\rxxx"),
	   "MOUNTD_FSTYPE: ESC, invalid UTF-8 and CR escaped: %.30s", f.fstype);
	json_object_put(params);
	json_object_put(err);
}

typedef struct Budgeted {
	size_t user_records, user_bytes, root_records, summaries, past_budget;
	uint64_t summarized, summarized_bytes;
	char past_budget_path[8192], past_budget_result[64];
} Budgeted;

static void take_budgeted(const char *rec, size_t n, void *userdata)
{
	Budgeted *b = userdata;
	char v[64];

	if (streq(field(rec, "MESSAGE_ID", v, sizeof(v)), AUDIT_MESSAGE_ID_SUMMARIZED)) {
		b->summaries++;
		if (streq(field(rec, "MOUNTD_CALLER_USER", v, sizeof(v)), "1000")) {
			b->summarized += strtoull(
				field(rec, "MOUNTD_SUMMARIZED_RECORDS", v, sizeof(v)), NULL, 10);
			b->summarized_bytes += strtoull(
				field(rec, "MOUNTD_SUMMARIZED_BYTES", v, sizeof(v)), NULL, 10);
		}
	} else if (*field(rec, "MOUNTD_PAST_BUDGET", v, sizeof(v))) {
		b->past_budget++;
		field(rec, "MOUNTD_PATH", b->past_budget_path, sizeof(b->past_budget_path));
		field(rec, "MOUNTD_RESULT", b->past_budget_result, sizeof(b->past_budget_result));
	} else if (streq(field(rec, "MOUNTD_CALLER_USER", v, sizeof(v)), "1000")) {
		b->user_records++;
		b->user_bytes += n;
	} else if (streq(v, "0"))
		b->root_records++;
}

/* A user's large refused calls, root's among them: the user's bytes stay
 * within its budget, the rest counted in a summary; root's all arrive.  A
 * change the user makes past its budget is recorded all the same, short. */
static void test_budget(void)
{
	_cleanup_close_ int j = bind_journal();
	_cleanup_free_ char *long_path = long_string("/flood/", 3000);
	AuthCaller user = {.id = {.uid = 1001, .gid = 1001},
			   .pid = 1,
			   .principal = 1000,
			   .comm = "flood"},
		   root = {.pid = 1, .comm = "mountctl"};
	json_object *params = json_object_new_object();
	Budgeted b = {};
	sd_event *e = NULL;

	json_object_object_add(params, "path", json_object_new_string(long_path));
	if (sd_event_new(&e) < 0 || audit_setup(e, path) < 0 ||
	    audit_budget_setup(64 * 1024, 10 * 1000 * 1000) < 0) {
		ok(false, "audit_setup");
		return;
	}
	for (int i = 0; i < 200; i++) {
		audit_request(&user, "Info", false, params, NULL,
			      "io.mountd.Mount.PermissionDenied", NULL);
		if (i % 2 == 0)
			audit_request(&root, "Info", false, params, NULL, NULL, NULL);
		(void)sd_event_run(e, 0);
		drain_now(j, take_budgeted, &b);
	}
	(void)drain(j, e, take_budgeted, &b);
	ok(b.root_records == 100, "root's 100 records all arrive (%zu)", b.root_records);
	ok(b.user_records > 0 && b.user_bytes <= 64 * 1024,
	   "the user's: %zu records, %zu bytes, within its budget of 65536", b.user_records,
	   b.user_bytes);
	ok(b.summaries == 0, "no summary before the report period ends");
	ok(b.past_budget == 0, "no record of a change past the budget: none was made");

	/* Past its budget, a read that succeeded is counted; a change that
	 * was made is recorded, short. */
	audit_request(&user, "Info", false, params, NULL, NULL, NULL);
	audit_request(&user, "Create", true, params, NULL, NULL, NULL);
	audit_request(&user, "Create", true, params, NULL, "io.mountd.Mount.PermissionDenied",
		      NULL);
	(void)drain(j, e, take_budgeted, &b);
	ok(b.past_budget == 1 && streq(b.past_budget_result, "ok") &&
		   strlen(b.past_budget_path) < AUDIT_MESSAGE_VALUE_MAX &&
		   startswith(b.past_budget_path, "/flood/xxx"),
	   "the Create that was made is recorded past the budget, its path cut short (%zu "
	   "bytes)",
	   strlen(b.past_budget_path));
	audit_shutdown();
	(void)drain(j, NULL, take_budgeted, &b);
	ok(b.summaries == 1 && b.summarized == 202 - b.user_records &&
		   b.summarized_bytes > (202 - b.user_records) * 3000,
	   "then one summary counts the user's other %" PRIu64 " records, %" PRIu64 " bytes",
	   b.summarized, b.summarized_bytes);
	json_object_put(params);
	sd_event_unref(e);
}

static void test_no_journal(void)
{
	sd_event *e = NULL;

	snprintf(path, sizeof(path), "%s/none", dir);
	if (sd_event_new(&e) < 0 || audit_setup(e, path) < 0) {
		ok(false, "audit_setup");
		return;
	}
	audit_rate_limited(1000, 1, "none");
	(void)sd_event_run(e, 0);
	ok(audit_pending() == 0, "without a journal a record is dropped, not kept");
	audit_shutdown();
	sd_event_unref(e);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/socket", dir);
	test_format();
	test_stalled();
	test_forged();
	test_budget();
	test_no_journal();
	(void)unlink(path);
	(void)rmdir(dir);
	return tap_done();
}
