/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <signal.h>
#include <stdlib.h>

#include "test-hook.h"
#include "util.h"

void test_stop_at(const char *step)
{
	const char *s = getenv("MOUNTD_TEST_STOP_AT");

	if (s && streq(s, step))
		(void)raise(SIGSTOP);
}
