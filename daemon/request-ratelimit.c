/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-uid call rate (see request-ratelimit.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "request-audit.h"
#include "request-ratelimit.h"
#include "util.h"

#define RATE_HEADS 256U

typedef struct RateEntry {
	struct RateEntry *next;
	uid_t uid;
	/* When the uid's burst is whole again if it makes no more calls (the
	 * "theoretical arrival time"): each call moves it one emission
	 * interval on, and a call is refused while it is more than the burst's
	 * worth ahead of now. */
	uint64_t tat;
	uint64_t quiet;	     /* refusals not recorded yet */
	uint64_t quiet_cost; /* and what they would have cost */
	bool noted;	     /* this period's first refusal was recorded */
} RateEntry;

struct RateTable {
	unsigned burst;
	uint64_t interval_usec;
	uint64_t emission_usec;	 /* interval / burst: what a cost of 1 moves tat */
	uint64_t tolerance_usec; /* (burst - 1) emission intervals */
	uint64_t capacity_usec;	 /* how far ahead of now tat may be after a take */
	bool budget;		 /* rate_table_new_budget(): every refusal quiet */
	RateEntry *heads[RATE_HEADS];
	size_t n;
	uint64_t overflow, overflow_cost; /* quiet refusals of uids the table had no room for */
};

RateTable *rate_table_new(unsigned burst, uint64_t interval_usec)
{
	RateTable *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->burst = burst;
	t->interval_usec = interval_usec;
	if (burst > 0) {
		t->emission_usec = MAX(interval_usec / burst, 1ULL);
		t->tolerance_usec = t->emission_usec * (burst - 1);
		t->capacity_usec = t->tolerance_usec + t->emission_usec;
	}
	return t;
}

RateTable *rate_table_new_budget(unsigned budget, uint64_t interval_usec)
{
	RateTable *t = rate_table_new(budget, interval_usec);

	if (!t)
		return NULL;
	t->budget = true;
	/* Costs are large (bytes): their share of the interval is computed
	 * exactly, and the whole interval is the budget. */
	t->capacity_usec = interval_usec;
	return t;
}

static bool forgettable(const RateEntry *e, uint64_t now)
{
	return e->tat <= now && e->quiet == 0 && !e->noted;
}

/* Drop what the table need not remember. */
static void sweep(RateTable *t, uint64_t now)
{
	for (size_t h = 0; h < RATE_HEADS; h++)
		for (RateEntry **p = &t->heads[h]; *p;) {
			RateEntry *e = *p;

			if (forgettable(e, now)) {
				*p = e->next;
				free(e);
				t->n--;
			} else
				p = &e->next;
		}
}

RateTable *rate_table_free(RateTable *t)
{
	if (!t)
		return NULL;
	for (size_t h = 0; h < RATE_HEADS; h++)
		while (t->heads[h]) {
			RateEntry *e = t->heads[h];

			t->heads[h] = e->next;
			free(e);
		}
	free(t);
	return NULL;
}

static RateEntry *entry_get(RateTable *t, uid_t uid, uint64_t now)
{
	RateEntry **head = &t->heads[uid % RATE_HEADS], *e;

	for (e = *head; e; e = e->next)
		if (e->uid == uid)
			return e;
	if (t->n >= RATELIMIT_UIDS_MAX)
		sweep(t, now);
	if (t->n >= RATELIMIT_UIDS_MAX)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	*e = (RateEntry){.next = *head, .uid = uid, .tat = now};
	*head = e;
	t->n++;
	return e;
}

/* What a take of cost moves tat on, or UINT64_MAX for more than any
 * budget holds. */
static uint64_t cost_usec(const RateTable *t, uint64_t cost)
{
	if (!t->budget)
		return t->emission_usec * cost; /* 1: calls */
	if (cost > UINT64_MAX / t->interval_usec)
		return UINT64_MAX;
	return cost * t->interval_usec / t->burst;
}

/* Whether a take of cost fits a uid whose tat is tat. */
static bool fits(const RateTable *t, uint64_t tat, uint64_t cost, uint64_t now)
{
	uint64_t need = cost_usec(t, cost);

	return need <= t->capacity_usec && MAX(tat, now) - now <= t->capacity_usec - need;
}

bool rate_table_fits(RateTable *t, uid_t uid, uint64_t cost, uint64_t now)
{
	if (!t || t->burst == 0 || uid == 0)
		return true;
	for (RateEntry *e = t->heads[uid % RATE_HEADS]; e; e = e->next)
		if (e->uid == uid)
			return fits(t, e->tat, cost, now);
	return fits(t, now, cost, now);
}

RateVerdict rate_table_take_cost(RateTable *t, uid_t uid, uint64_t cost, uint64_t now)
{
	RateEntry *e;

	if (!t || t->burst == 0 || uid == 0)
		return RATE_PASS;
	e = entry_get(t, uid, now);
	if (!e) {
		/* No room (or memory) to tell this uid apart: refuse, and
		 * count it where the report finds it. */
		t->overflow++;
		t->overflow_cost += cost;
		return RATE_REFUSE_QUIETLY;
	}
	if (!fits(t, e->tat, cost, now)) {
		if (e->noted || t->budget) {
			e->quiet++;
			e->quiet_cost += cost;
			return RATE_REFUSE_QUIETLY;
		}
		e->noted = true;
		return RATE_REFUSE;
	}
	e->tat = MAX(e->tat, now) + cost_usec(t, cost);
	return RATE_PASS;
}

RateVerdict rate_table_take(RateTable *t, uid_t uid, uint64_t now)
{
	return rate_table_take_cost(t, uid, 1, now);
}

size_t rate_table_report(RateTable *t, uint64_t now,
			 void (*report)(uid_t uid, uint64_t refused, uint64_t cost, void *userdata),
			 void *userdata)
{
	if (!t)
		return 0;
	for (size_t h = 0; h < RATE_HEADS; h++)
		for (RateEntry *e = t->heads[h]; e; e = e->next) {
			if (e->quiet > 0)
				report(e->uid, e->quiet, e->quiet_cost, userdata);
			e->quiet = e->quiet_cost = 0;
			e->noted = false;
		}
	if (t->overflow > 0)
		report((uid_t)-1, t->overflow, t->overflow_cost, userdata);
	t->overflow = t->overflow_cost = 0;
	sweep(t, now);
	return t->n;
}

/* ---- report periods ------------------------------------------------------------ */

static int on_period_end(sd_event_source *s, uint64_t usec, void *userdata)
{
	ReportPeriod *p = userdata;

	p->report(report_period_now(p));
	return 0;
}

int report_period_setup(ReportPeriod *p, sd_event *event, uint64_t usec,
			void (*report)(uint64_t now_usec))
{
	int r;

	*p = (ReportPeriod){.usec = usec, .report = report};
	r = sd_event_add_time_relative(event, &p->timer, CLOCK_MONOTONIC, usec, 0, on_period_end,
				       p);
	if (r >= 0)
		r = sd_event_source_set_enabled(p->timer, SD_EVENT_OFF);
	if (r < 0)
		p->timer = sd_event_source_disable_unref(p->timer);
	return r;
}

void report_period_start(ReportPeriod *p)
{
	int enabled = SD_EVENT_OFF;

	(void)sd_event_source_get_enabled(p->timer, &enabled);
	if (enabled == SD_EVENT_OFF) {
		(void)sd_event_source_set_time_relative(p->timer, p->usec);
		(void)sd_event_source_set_enabled(p->timer, SD_EVENT_ONESHOT);
	}
}

uint64_t report_period_now(const ReportPeriod *p)
{
	uint64_t now = 0;

	if (p->timer)
		(void)sd_event_now(sd_event_source_get_event(p->timer), CLOCK_MONOTONIC, &now);
	return now;
}

void report_period_end(ReportPeriod *p)
{
	if (p->timer)
		p->report(report_period_now(p));
	p->timer = sd_event_source_disable_unref(p->timer);
}

/* ---- mountd's table ------------------------------------------------------------- */

static RateTable *table;
static ReportPeriod period;
static char description[64];

static void report_to_audit(uid_t uid, uint64_t refused, uint64_t cost, void *userdata)
{
	audit_rate_limited(uid, refused, description);
}

static void report(uint64_t now)
{
	(void)rate_table_report(table, now, report_to_audit, NULL);
}

int ratelimit_setup(sd_event *event, unsigned burst, uint64_t interval_usec)
{
	int r;

	table = rate_table_new(burst, interval_usec);
	if (!table)
		return -ENOMEM;
	snprintf(description, sizeof(description), "%u calls per %g s", burst,
		 (double)interval_usec / 1e6);
	r = report_period_setup(&period, event, RATELIMIT_REPORT_USEC, report);
	if (r < 0)
		ratelimit_shutdown();
	return r;
}

RateVerdict ratelimit_take(uid_t uid)
{
	RateVerdict v;

	if (!table)
		return RATE_PASS;
	v = rate_table_take(table, uid, report_period_now(&period));
	/* A period starts with a refusal: the timer runs only while
	 * refusals are owed a report. */
	if (v != RATE_PASS)
		report_period_start(&period);
	return v;
}

const char *ratelimit_describe(void)
{
	return description;
}

void ratelimit_shutdown(void)
{
	report_period_end(&period);
	table = rate_table_free(table);
}
