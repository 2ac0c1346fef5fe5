// SPDX-License-Identifier: LGPL-2.1-or-later
/* daemon/request-ratelimit.c: each non-root uid's call rate, and what its refusals
 * leave for the journal.  The clock is the test's. */
#include <inttypes.h>
#include <stdlib.h>

#include "request-ratelimit.h"
#include "tap.h"
#include "util.h"

#define SEC 1000000ULL

typedef struct Reported {
	uid_t uid[8];
	uint64_t refused[8], cost[8];
	size_t n;
} Reported;

static void on_report(uid_t uid, uint64_t refused, uint64_t cost, void *userdata)
{
	Reported *r = userdata;

	if (r->n < ELEMENTSOF(r->uid)) {
		r->uid[r->n] = uid;
		r->refused[r->n] = refused;
		r->cost[r->n] = cost;
	}
	r->n++;
}

/* Calls made by uid at one instant: how many passed, refused loudly,
 * refused quietly. */
static void burst_of(RateTable *t, uid_t uid, uint64_t now, unsigned calls, unsigned ret[3])
{
	ret[0] = ret[1] = ret[2] = 0;
	for (unsigned i = 0; i < calls; i++)
		ret[rate_table_take(t, uid, now)]++;
}

static void test_burst_and_refill(void)
{
	RateTable *t = rate_table_new(10, 10 * SEC); /* 1 per second sustained */
	uint64_t now = 1000 * SEC;
	unsigned v[3];

	burst_of(t, 1000, now, 15, v);
	ok(v[RATE_PASS] == 10 && v[RATE_REFUSE] == 1 && v[RATE_REFUSE_QUIETLY] == 4,
	   "a burst of 15: 10 pass, the first refusal is recorded, 4 are counted (%u/%u/%u)", v[0],
	   v[1], v[2]);
	burst_of(t, 1000, now + SEC / 2, 1, v);
	ok(v[RATE_PASS] == 0, "half an emission interval later: still refused");
	burst_of(t, 1000, now + SEC, 2, v);
	ok(v[RATE_PASS] == 1 && v[RATE_REFUSE_QUIETLY] == 1,
	   "one emission interval later: one more call passes, not two");
	burst_of(t, 1000, now + 100 * SEC, 12, v);
	ok(v[RATE_PASS] == 10, "long after: the whole burst again, no more (%u)", v[0]);
	t = rate_table_free(t);
}

static void test_uids_apart(void)
{
	RateTable *t = rate_table_new(5, 5 * SEC);
	uint64_t now = 50 * SEC;
	unsigned v[3];

	burst_of(t, 1000, now, 50, v);
	ok(v[RATE_PASS] == 5, "uid 1000 floods: 5 of 50 pass");
	burst_of(t, 1001, now, 5, v);
	ok(v[RATE_PASS] == 5, "uid 1001 at the same instant: its own burst, all 5 pass");
	burst_of(t, 0, now, 10000, v);
	ok(v[RATE_PASS] == 10000, "root: not limited");
	t = rate_table_free(t);

	t = rate_table_new(0, 5 * SEC);
	burst_of(t, 1000, now, 10000, v);
	ok(v[RATE_PASS] == 10000, "burst 0: no limit");
	t = rate_table_free(t);
}

static void test_report(void)
{
	RateTable *t = rate_table_new(2, 2 * SEC);
	uint64_t now = 10 * SEC;
	Reported rep = {};
	unsigned v[3];
	size_t left;

	burst_of(t, 1000, now, 7, v);
	burst_of(t, 1001, now, 3, v);
	ok(v[RATE_PASS] == 2 && v[RATE_REFUSE] == 1 && v[RATE_REFUSE_QUIETLY] == 0,
	   "uid 1001: 2 pass, one refusal, recorded");
	left = rate_table_report(t, now + SEC, on_report, &rep);
	ok(rep.n == 1 && rep.uid[0] == 1000 && rep.refused[0] == 4,
	   "the report: uid 1000's 4 quiet refusals, nothing for uid 1001 (its one was recorded)");
	ok(left == 2, "both uids still remembered: their bursts are not whole yet (%zu)", left);
	burst_of(t, 1000, now + SEC, 2, v);
	ok(v[RATE_REFUSE] == 1 && v[RATE_REFUSE_QUIETLY] == 0 && v[RATE_PASS] == 1,
	   "after the report: the next refusal is recorded in full again");
	rep = (Reported){};
	left = rate_table_report(t, now + 100 * SEC, on_report, &rep);
	ok(rep.n == 0 && left == 0, "nothing owed, bursts whole: the table forgets both uids");
	t = rate_table_free(t);
}

static void test_table_full(void)
{
	RateTable *t = rate_table_new(1, 10 * SEC);
	uint64_t now = 10 * SEC;
	Reported rep = {};
	unsigned v[3], passed = 0;

	for (uid_t u = 1; u <= RATELIMIT_UIDS_MAX; u++)
		passed += rate_table_take(t, u, now) == RATE_PASS;
	ok(passed == RATELIMIT_UIDS_MAX, "%u uids, one call each: all pass", RATELIMIT_UIDS_MAX);
	burst_of(t, 100000, now, 3, v);
	ok(v[RATE_REFUSE_QUIETLY] == 3, "a new uid while all are remembered: refused, counted");
	(void)rate_table_report(t, now, on_report, &rep);
	ok(rep.n == 1 && rep.uid[0] == (uid_t)-1 && rep.refused[0] == 3,
	   "reported as refusals of uids past the table");
	burst_of(t, 100000, now + 10 * SEC, 1, v);
	ok(v[RATE_PASS] == 1, "once the others' bursts are whole, the new uid gets room");
	t = rate_table_free(t);
}

/* A byte budget (what each user makes the journal store, request-audit.c):
 * costs add up to the budget per interval, every refusal is quiet and
 * reported with its bytes, root is not counted. */
static void test_budget(void)
{
	RateTable *t = rate_table_new_budget(100000, 10 * SEC);
	uint64_t now = 100 * SEC, passed = 0, refused = 0, loud = 0;
	Reported rep = {};
	unsigned v[3];

	for (int i = 0; i < 50; i++) {
		RateVerdict r = rate_table_take_cost(t, 1000, 5000, now);

		passed += r == RATE_PASS ? 5000 : 0;
		refused += r == RATE_REFUSE_QUIETLY;
		loud += r == RATE_REFUSE;
	}
	ok(passed == 100000 && refused == 30 && loud == 0,
	   "50 records of 5000 bytes at once: 100000 bytes pass, 30 records counted, none "
	   "recorded in full (%" PRIu64 ", %" PRIu64 ", %" PRIu64 ")",
	   passed, refused, loud);
	ok(rate_table_take_cost(t, 1000, 1, now) == RATE_REFUSE_QUIETLY,
	   "not one byte more in that instant");
	ok(rate_table_take_cost(t, 1001, 100000, now) == RATE_PASS,
	   "another user at the same instant: its own whole budget");
	ok(rate_table_take_cost(t, 0, 100ULL * 1000 * 1000, now) == RATE_PASS,
	   "root: not counted (100 MB)");
	ok(rate_table_take_cost(t, 1000, 5000, now + SEC / 4) == RATE_REFUSE_QUIETLY &&
		   rate_table_take_cost(t, 1000, 5000, now + SEC / 2) == RATE_PASS &&
		   rate_table_take_cost(t, 1000, 5000, now + SEC / 2) == RATE_REFUSE_QUIETLY,
	   "refilled at the budget per interval: 5000 bytes after 0.5 s, not 10000");
	ok(rate_table_take_cost(t, 1002, 100001, now) == RATE_REFUSE_QUIETLY,
	   "a record larger than the whole budget never passes");
	ok(!rate_table_fits(t, 1000, 5000, now + SEC / 2) && rate_table_fits(t, 1003, 5000, now) &&
		   rate_table_fits(t, 0, 100ULL * 1000 * 1000, now),
	   "rate_table_fits(): uid 1000 has no room, a new uid and root have");
	(void)rate_table_report(t, now + SEC, on_report, &rep);
	ok(rep.n == 2, "the report: two users, the looks not counted (%zu)", rep.n);
	for (size_t i = 0; i < MIN(rep.n, (size_t)2); i++)
		if (rep.uid[i] == 1000)
			ok(rep.refused[i] == 33 && rep.cost[i] == 32 * 5000 + 1,
			   "uid 1000: 33 records, their bytes (%" PRIu64 ", %" PRIu64 ")",
			   rep.refused[i], rep.cost[i]);
		else
			ok(rep.uid[i] == 1002 && rep.refused[i] == 1 && rep.cost[i] == 100001,
			   "uid 1002: 1 record of 100001 bytes");
	burst_of(t, 1000, now + 100 * SEC, 1, v);
	ok(v[RATE_PASS] == 1, "long after: the budget is whole again");
	t = rate_table_free(t);
}

int main(void)
{
	test_burst_and_refill();
	test_uids_apart();
	test_report();
	test_table_full();
	test_budget();
	return tap_done();
}
