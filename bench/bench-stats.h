/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What every benchmark here reports: times from a monotonic clock, and their
 * median, min, max and 99th percentile.  Medians, not means: under TCG a few rounds take many
 * times the usual, and a mean would report them as the cost.
 */
#pragma once

#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

typedef struct BenchStats {
	double median, min, max;
	double p99; /* the value 99% of them are at most */
} BenchStats;

/* Of n > 0 times; t is left as it was. */
static inline BenchStats bench_stats(const double *t, unsigned n)
{
	double *s = malloc(n * sizeof(*s));
	BenchStats st;

	if (!s)
		abort();
	memcpy(s, t, n * sizeof(*s));
	qsort(s, n, sizeof(*s), bench_cmp_double);
	st.median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	st.min = s[0];
	st.max = s[n - 1];
	st.p99 = s[(n * 99 + 99) / 100 - 1];
	free(s);
	return st;
}
