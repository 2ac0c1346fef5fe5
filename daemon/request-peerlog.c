/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Bounded warnings about peers (see request-peerlog.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <systemd/sd-daemon.h>

#include "request-peerlog.h"
#include "request-ratelimit.h"
#include "util.h"

/* The all-uids table keeps one entry, under this key (root never gets
 * there: rate_table_take() passes uid 0). */
#define ALL_UIDS ((uid_t)1)

struct PeerLog {
	RateTable *per_uid, *all;
	void (*write_line)(const char *line, void *userdata);
	void *userdata;
	uint64_t left_out; /* since the last report */
	uint64_t most;	   /* the most any one uid's table entry counted */
	uid_t most_uid;
};

PeerLog *peer_log_new(void (*write_line)(const char *line, void *userdata), void *userdata)
{
	PeerLog *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->per_uid = rate_table_new(PEERLOG_BURST, PEERLOG_INTERVAL_USEC);
	l->all = rate_table_new(PEERLOG_ALL_BURST, PEERLOG_INTERVAL_USEC);
	if (!l->per_uid || !l->all)
		return peer_log_free(l);
	l->write_line = write_line;
	l->userdata = userdata;
	return l;
}

PeerLog *peer_log_free(PeerLog *l)
{
	if (!l)
		return NULL;
	rate_table_free(l->per_uid);
	rate_table_free(l->all);
	free(l);
	return NULL;
}

bool peer_log_line(PeerLog *l, uid_t uid, const char *line, uint64_t now)
{
	/* A refusal the table records loudly (RATE_REFUSE) is a line left
	 * out here all the same: the report says it. */
	if (rate_table_take(l->per_uid, uid, now) != RATE_PASS ||
	    (uid != 0 && rate_table_take(l->all, ALL_UIDS, now) != RATE_PASS)) {
		l->left_out++;
		return false;
	}
	l->write_line(line, l->userdata);
	return true;
}

static void note_uid(uid_t uid, uint64_t quiet, uint64_t cost, void *userdata)
{
	PeerLog *l = userdata;

	/* (uid_t)-1: lines of uids the table had no room for. */
	if (uid != (uid_t)-1 && quiet > l->most) {
		l->most = quiet;
		l->most_uid = uid;
	}
}

static void ignore_uid(uid_t uid, uint64_t quiet, uint64_t cost, void *userdata)
{
}

uint64_t peer_log_report(PeerLog *l, uint64_t now)
{
	uint64_t n = l->left_out;
	char line[256], most[48] = "";

	l->most = 0;
	(void)rate_table_report(l->per_uid, now, note_uid, l);
	(void)rate_table_report(l->all, now, ignore_uid, NULL);
	if (n == 0)
		return 0;
	if (l->most > 0)
		snprintf(most, sizeof(most), ", most about uid %u", (unsigned)l->most_uid);
	snprintf(line, sizeof(line),
		 SD_WARNING "mountd: left out %" PRIu64
			    " warnings about peers (more than %u per %llu s "
			    "from one uid or %u from all)%s",
		 n, PEERLOG_BURST, PEERLOG_INTERVAL_USEC / 1000000, PEERLOG_ALL_BURST, most);
	l->write_line(line, l->userdata);
	l->left_out = 0;
	return n;
}

/* ---- mountd's ------------------------------------------------------------------ */

static PeerLog *peer_log;
static ReportPeriod period;

static void write_stderr(const char *line, void *userdata)
{
	fprintf(stderr, "%s\n", line);
}

static void report(uint64_t now)
{
	(void)peer_log_report(peer_log, now);
}

int peerlog_setup(sd_event *event)
{
	int r;

	peer_log = peer_log_new(write_stderr, NULL);
	if (!peer_log)
		return -ENOMEM;
	r = report_period_setup(&period, event, PEERLOG_REPORT_USEC, report);
	if (r < 0)
		peerlog_shutdown();
	return r;
}

void peerlog_write(uid_t uid, const char *line, void *userdata)
{
	if (!peer_log) {
		write_stderr(line, NULL);
		return;
	}
	/* A period starts with a line left out: the timer runs only while
	 * a report is owed. */
	if (!peer_log_line(peer_log, uid, line, report_period_now(&period)))
		report_period_start(&period);
}

void peerlog_shutdown(void)
{
	report_period_end(&period);
	peer_log = peer_log_free(peer_log);
}
