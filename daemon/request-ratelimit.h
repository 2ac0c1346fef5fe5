/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * How many calls each non-root caller may make: at most `burst` at once,
 * and `burst` per `interval` sustained, per uid, over both front ends
 * (a generic cell rate algorithm: one deadline per uid, no timers).  Root
 * is not limited.  A call past the limit is answered LimitExceeded before
 * anything else is done for it.
 *
 * Why: every answered call is a journal record (request-audit.h), and journald
 * drops a service's records past its own rate limit.  Were one caller free
 * to make cheap calls as fast as mountd answers them, it could push
 * mountd's records past that limit and then make a change that is never
 * recorded.  So the refusals are not recorded one by one either: the first
 * refusal of a uid in each report period is (in full), the rest are counted
 * and reported in one record per uid at the end of the period
 * (audit_rate_limited()).  Each flooding uid thus costs at most two records
 * a period.
 *
 * uids are remembered only while their deadline is in the future or a
 * report is owed, at most RATELIMIT_UIDS_MAX at once; a uid new to a full
 * table is refused.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#define RATELIMIT_BURST_DEFAULT		1000U
#define RATELIMIT_INTERVAL_USEC_DEFAULT (10ULL * 1000 * 1000)
#define RATELIMIT_REPORT_USEC		(1ULL * 1000 * 1000)
#define RATELIMIT_UIDS_MAX		4096U

typedef enum RateVerdict {
	RATE_PASS,
	RATE_REFUSE,	     /* the first refusal of the period: record it */
	RATE_REFUSE_QUIETLY, /* counted, reported at the end of the period */
} RateVerdict;

/* The table itself, clock given by the caller (for the unit tests). */
typedef struct RateTable RateTable;

/* burst 0: no limit. */
RateTable *rate_table_new(unsigned burst, uint64_t interval_usec);
/* The same shape for amounts (bytes a uid makes the journal store,
 * request-audit.c): each take costs what it says, budget per interval at
 * most, and every refusal is quiet (counted with its cost for the report,
 * none recorded in full). */
RateTable *rate_table_new_budget(unsigned budget, uint64_t interval_usec);
RateTable *rate_table_free(RateTable *t);
RateVerdict rate_table_take(RateTable *t, uid_t uid, uint64_t now_usec);
/* A take that costs cost (rate_table_take(): 1). */
RateVerdict rate_table_take_cost(RateTable *t, uid_t uid, uint64_t cost, uint64_t now_usec);
/* Whether such a take would pass now; takes and counts nothing. */
bool rate_table_fits(RateTable *t, uid_t uid, uint64_t cost, uint64_t now_usec);
/* The end of a report period: report(uid, n, cost) for each uid with quiet
 * refusals (cost: theirs added up), forget uids whose burst is whole
 * again.  Returns the uids still remembered. */
size_t rate_table_report(RateTable *t, uint64_t now_usec,
			 void (*report)(uid_t uid, uint64_t refused, uint64_t cost, void *userdata),
			 void *userdata);

/* The end of a report period on an event loop's monotonic clock: off
 * until something left out starts a period (report_period_start()), then
 * report(now) once at its end.  The call rate below and request-peerlog.h's
 * warnings about peers use it. */
typedef struct ReportPeriod {
	sd_event_source *timer;
	uint64_t usec;
	void (*report)(uint64_t now_usec);
} ReportPeriod;

int report_period_setup(ReportPeriod *p, sd_event *event, uint64_t usec,
			void (*report)(uint64_t now_usec));
/* Starts a period unless one is running. */
void report_period_start(ReportPeriod *p);
/* The event loop's time: what the tables are given. */
uint64_t report_period_now(const ReportPeriod *p);
/* Reports what is owed at once, and stops. */
void report_period_end(ReportPeriod *p);

/* mountd's table, on event's monotonic clock, reporting through
 * audit_rate_limited().  Without it every call passes. */
int ratelimit_setup(sd_event *event, unsigned burst, uint64_t interval_usec);
RateVerdict ratelimit_take(uid_t uid);
/* "1000 calls per 10 s": for the record of a refusal. */
const char *ratelimit_describe(void);
/* Reports what is owed, then forgets everything. */
void ratelimit_shutdown(void);
