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
	test_no_journal();
	(void)unlink(path);
	(void)rmdir(dir);
	return tap_done();
}
