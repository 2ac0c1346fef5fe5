/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* TAP output for the C unit tests: ok() per case, tap_done() at the end
 * (prints the plan, returns the exit status). */

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/* One count for the whole program, whose tests may be in several files:
 * each file defines them, weak, and the linker keeps one. */
__attribute__((weak)) int tap_n_tests, tap_n_failed;

__attribute__((format(printf, 2, 3))) static inline void ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	tap_n_tests++;
	if (!cond)
		tap_n_failed++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_n_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	/* Before any fork() a test makes, lest the child print it again. */
	fflush(stdout);
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n_tests);
	return tap_n_failed ? 1 : 0;
}
