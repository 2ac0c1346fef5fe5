// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daemon/authorize-policy.c: any text as a policy file (mountd.policy(5)).  A text it
 * refuses must say where; one it takes is asked about callers and requests,
 * and every answer must be one its rules or defaults give: root always
 * allowed, and a rule's line only when that rule decided it.
 */
#include <errno.h>
#include <linux/mount.h>
#include <string.h>

#include "fuzz.h"
#include "authorize-policy.h"
#include "util.h"

/* The names a policy may use are its caller's (mountd: the operation
 * table's); these match the corpus.  Asked about: one it does not know too. */
static char *const methods[] = {"Create",  "Bind", "Reconfigure", "SetAttributes", "Move",
				"Unmount", "Info", "List",	  "Watch",	   NULL};
static const char *const asked[] = {"Create", "Unmount", "Info", "List", "Nope"};

static void ask(const Policy *p, uid_t uid, const PolicyRequest *req)
{
	static const gid_t groups[] = {0, 100, 4242};
	PolicyCaller c = {.uid = uid, .gid = uid, .groups = groups, .n_groups = ELEMENTSOF(groups)};
	const char *why = NULL;
	unsigned line = 99999;
	int r = policy_check(p, &c, req, &line, &why);

	FUZZ_CHECK(r == 0 || r == -EPERM);
	FUZZ_CHECK(why);
	if (uid == 0)
		FUZZ_CHECK(r == 0 && line == 0);
	if (line == 0)
		return;
	for (size_t i = 0; i < p->n_rules; i++)
		if (p->rules[i].line == line) {
			FUZZ_CHECK(p->rules[i].allow == (r == 0));
			return;
		}
	FUZZ_CHECK(!"a decision names a line no rule is on");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = strndup((const char *)data, size);
	_cleanup_free_ char *err = NULL;
	Policy p = {};
	int r;

	if (!text)
		return 0;
	r = policy_parse(&p, text, "fuzz", methods, &err);
	if (r < 0) {
		FUZZ_CHECK(r == -EINVAL || r == -ENOMEM);
		FUZZ_CHECK(p.n_rules == 0 && !p.rules);
		FUZZ_CHECK(r != -EINVAL || (err && strncmp(err, "fuzz:", 5) == 0));
		return 0;
	}
	FUZZ_CHECK(!err);
	for (size_t i = 0; i < p.n_rules; i++)
		FUZZ_CHECK(p.rules[i].line >= 1 &&
			   (i == 0 || p.rules[i].line > p.rules[i - 1].line));
	for (size_t m = 0; m < ELEMENTSOF(asked); m++)
		for (unsigned k = 0; k < 8; k++) {
			PolicyRequest req = {
				.method = asked[m],
				.reads = k & 4,
				.fstype = m == 0 ? (k & 1 ? "tmpfs" : "ext4") : NULL,
				.attributes = k & 2 ? MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV : 0,
				.image = m == 0 && k == 3,
				.ns_is_callers = k & 1,
				.ns_owner = k & 2 ? 1000 : (uid_t)-1,
				.process_owner = k & 1 ? 1000 : 0,
			};

			ask(&p, 0, &req);
			ask(&p, 1000, &req);
			ask(&p, 4242, &req);
		}
	policy_done(&p);
	return 0;
}
