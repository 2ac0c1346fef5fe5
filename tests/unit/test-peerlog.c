// SPDX-License-Identifier: LGPL-2.1-or-later
/* daemon/request-peerlog.c: warnings about peers, bounded per uid and in all, and
 * the line that counts the rest.  The clock is the test's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request-peerlog.h"
#include "tap.h"
#include "util.h"

#define SEC 1000000ULL

typedef struct Written {
	unsigned n;
	char last[256];
} Written;

static void on_line(const char *line, void *userdata)
{
	Written *w = userdata;

	w->n++;
	snprintf(w->last, sizeof(w->last), "%s", line);
}

/* Lines about uid at one instant: how many were written. */
static unsigned lines_of(PeerLog *l, uid_t uid, uint64_t now, unsigned n)
{
	unsigned written = 0;

	for (unsigned i = 0; i < n; i++)
		written += peer_log_line(l, uid, "<4>varlink: a line", now);
	return written;
}

static void test_one_uid(void)
{
	Written w = {};
	PeerLog *l = peer_log_new(on_line, &w);
	uint64_t now = 1000 * SEC;
	unsigned n;

	n = lines_of(l, 1000, now, 5000);
	ok(n == PEERLOG_BURST && w.n == PEERLOG_BURST,
	   "5000 lines about one uid at once: %u written (%u)", n, w.n);
	n = lines_of(l, 1001, now, 3);
	ok(n == 3, "another uid's lines meanwhile: all 3 written (%u)", n);
	n = lines_of(l, 0, now, 5000);
	ok(n == 5000, "root's: all 5000 written (%u)", n);
	ok(peer_log_report(l, now + SEC) == 5000 - PEERLOG_BURST,
	   "the report counts the %u left out", 5000 - PEERLOG_BURST);
	ok(strstr(w.last, "left out 4990 warnings") && strstr(w.last, "about uid 1000") &&
		   !strncmp(w.last, "<4>", 3),
	   "... in one warning that names the uid: %s", w.last);
	n = w.n;
	ok(peer_log_report(l, now + 2 * SEC) == 0 && w.n == n,
	   "a period with nothing left out: no line");
	n = lines_of(l, 1000, now + 2 * SEC, 5);
	ok(n == 2, "the uid's rate refills at one a second: two more 2 s on (%u)", n);
	ok(lines_of(l, 1000, now + 100 * SEC, 50) == PEERLOG_BURST,
	   "long after: the whole burst again, no more");
	peer_log_free(l);
}

static void test_many_uids(void)
{
	Written w = {};
	PeerLog *l = peer_log_new(on_line, &w);
	uint64_t now = 1000 * SEC;
	unsigned n = 0;

	/* One user with 65536 subuids is 65536 uids. */
	for (uid_t uid = 100000; uid < 100000 + 65536; uid++)
		n += lines_of(l, uid, now, 3);
	ok(n == PEERLOG_ALL_BURST, "3 lines each about 65536 uids: %u written in all", n);
	ok(peer_log_report(l, now + SEC) == 3 * 65536 - PEERLOG_ALL_BURST,
	   "the report counts the rest: %s", w.last);
	ok(lines_of(l, 0, now + SEC, 10) == 10, "root's lines are still written");
	peer_log_free(l);
}

int main(void)
{
	test_one_uid();
	test_many_uids();
	return tap_done();
}
