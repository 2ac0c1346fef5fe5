/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The capability sets of mountd and its workers (see executor-caps.h). */
#include <errno.h>
#include <stdbool.h>
#include <sys/capability.h>

#include "executor-caps.h"
#include "util.h"

static void cap_freep(cap_t *c)
{
	if (*c)
		cap_free(*c);
}

/* Effective := want ∩ permitted; permitted := want ∩ permitted as well
 * when drop_permitted.  Capabilities mountd was not given stay absent: a
 * unit's CapabilityBoundingSet= is the outer limit. */
static int caps_limit(const cap_value_t *want, size_t n, bool drop_permitted)
{
	_cleanup_(cap_freep) cap_t cur = cap_get_proc(), next = cap_init();
	cap_flag_value_t have;

	if (!cur || !next)
		return negative_errno();
	for (size_t i = 0; i < n; i++) {
		if (cap_get_flag(cur, want[i], CAP_PERMITTED, &have) < 0)
			return negative_errno();
		if (have != CAP_SET)
			continue;
		if (cap_set_flag(next, CAP_EFFECTIVE, 1, &want[i], CAP_SET) < 0 ||
		    cap_set_flag(next, CAP_PERMITTED, 1, &want[i], CAP_SET) < 0)
			return negative_errno();
	}
	if (!drop_permitted)
		/* Keep every permitted capability permitted, only not
		 * effective. */
		for (cap_value_t c = 0; c < (cap_value_t)cap_max_bits(); c++) {
			if (cap_get_flag(cur, c, CAP_PERMITTED, &have) < 0 || have != CAP_SET)
				continue;
			if (cap_set_flag(next, CAP_PERMITTED, 1, &c, CAP_SET) < 0)
				return negative_errno();
		}
	return cap_set_proc(next) < 0 ? negative_errno() : 0;
}

int caps_bound(void)
{
	static const cap_value_t keep[] = {CAP_SYS_ADMIN,      CAP_SYS_CHROOT, CAP_SYS_PTRACE,
					   CAP_SETUID,	       CAP_SETGID,     CAP_DAC_OVERRIDE,
					   CAP_DAC_READ_SEARCH};
	_cleanup_(cap_freep) cap_t cur = cap_get_proc();
	bool setpcap = false;

	if (!cur)
		return negative_errno();
	for (cap_value_t c = 0; c < (cap_value_t)cap_max_bits(); c++) {
		bool kept = false;

		for (size_t i = 0; i < ELEMENTSOF(keep); i++)
			kept = kept || keep[i] == c;
		if (kept)
			continue;
		if (cap_set_flag(cur, CAP_EFFECTIVE, 1, &c, CAP_CLEAR) < 0 ||
		    cap_set_flag(cur, CAP_PERMITTED, 1, &c, CAP_CLEAR) < 0 ||
		    cap_set_flag(cur, CAP_INHERITABLE, 1, &c, CAP_CLEAR) < 0)
			return negative_errno();
		if (cap_get_bound(c) <= 0)
			continue;
		/* CAP_SETPCAP drops the others: it goes last. */
		if (c == CAP_SETPCAP)
			setpcap = true;
		else if (cap_drop_bound(c) < 0)
			return negative_errno();
	}
	if (setpcap && cap_drop_bound(CAP_SETPCAP) < 0)
		return negative_errno();
	if (cap_reset_ambient() < 0)
		return negative_errno();
	return cap_set_proc(cur) < 0 ? negative_errno() : 0;
}

int caps_daemon(void)
{
	static const cap_value_t want[] = {CAP_SYS_ADMIN, CAP_SYS_PTRACE};

	return caps_limit(want, ELEMENTSOF(want), false);
}

int caps_worker(void)
{
	static const cap_value_t want[] = {CAP_SYS_ADMIN, CAP_SYS_CHROOT,   CAP_SETUID,
					   CAP_SETGID,	  CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH};

	return caps_limit(want, ELEMENTSOF(want), true);
}
