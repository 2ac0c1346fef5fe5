// SPDX-License-Identifier: LGPL-2.1-or-later
/* shared/subid.c: a user's subordinate ranges as newuidmap reads them, the
 * ids a user namespace's map writes to disk, and whether those are all
 * the user's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "subid.h"
#include "tap.h"
#include "util.h"

static int read_text(const char *text, const char *name, uint32_t id, IdRange **ret, size_t *ret_n)
{
	_cleanup_fclose_ FILE *f = fmemopen((void *)text, strlen(text), "r");

	return f ? subid_read(f, name, id, ret, ret_n) : -errno;
}

static void test_read(void)
{
	_cleanup_free_ IdRange *r = NULL;
	size_t n = 0;
	int k;

	k = read_text("root:10000:5\n"
		      "alice:100000:65536\n"
		      "bob:165536:65536\n"
		      "1000:300000:10\n"
		      "alice:400000\n"		/* too few fields */
		      "alice:500000:10:extra\n" /* too many */
		      "alice:-5:10\n"		/* no number */
		      "alice:0x10:10\n"		/* not decimal */
		      "alice:600000:0\n"	/* empty */
		      "alice:4294967290:10\n"	/* past 2^32 */
		      "alicex:700000:10\n"
		      "alice:800000:1", /* no newline at the end */
		      "alice", 1000, &r, &n);
	ok(k == 0 && n == 3,
	   "alice's ranges: by name and by number, malformed lines skipped (%d, %zu)", k, n);
	ok(n == 3 && r[0].start == 100000 && r[0].count == 65536 && r[1].start == 300000 &&
		   r[1].count == 10 && r[2].start == 800000 && r[2].count == 1,
	   "  in the file's order, with their counts");
	r = mfree(r);
	k = read_text("alice:100000:65536\n", NULL, 1000, &r, &n);
	ok(k == 0 && n == 0, "a user without a name gets no one's named ranges");
	r = mfree(r);
	k = read_text("", "alice", 1000, &r, &n);
	ok(k == 0 && n == 0, "an empty file: no ranges");
	r = mfree(r);
	{
		_cleanup_free_ char *many = NULL;
		size_t size = 0;
		FILE *f = open_memstream(&many, &size);

		for (unsigned i = 0; f && i <= SUBID_RANGES_MAX; i++)
			fprintf(f, "alice:%u:1\n", 100000 + i);
		if (f)
			fclose(f);
		k = many ? read_text(many, "alice", 1000, &r, &n) : -ENOMEM;
		ok(k == -E2BIG, "more than %d ranges of one user: E2BIG, not read on",
		   SUBID_RANGES_MAX);
	}
}

static void test_maps(void)
{
	_cleanup_free_ IdRange *r = NULL;
	size_t n = 0;

	ok(idmap_inner_ranges("         0       1000          1\n"
			      "         1     100000      65536\n",
			      &r, &n) == 0 &&
		   n == 2 && r[0].start == 0 && r[0].count == 1 && r[1].start == 1 &&
		   r[1].count == 65536,
	   "a rootless container's map: its own ids 0 and 1-65536 are what it writes");
	r = mfree(r);
	ok(idmap_inner_ranges("", &r, &n) == 0 && n == 0, "a map not yet written: no ranges");
	r = mfree(r);
	ok(idmap_inner_ranges("0 1000\n", &r, &n) == -EBADMSG, "a line of two ids: EBADMSG");
	ok(idmap_inner_ranges("0 1000 0\n", &r, &n) == -EBADMSG, "a line of no ids: EBADMSG");
	ok(idmap_inner_ranges("4294967295 1000 1\n", &r, &n) == -EBADMSG,
	   "a line past 2^32: EBADMSG");
}

static void test_covered(void)
{
	const IdRange sub[] = {{100000, 65536}, {165536, 10}, {300000, 5}, {300002, 10}};

	ok(id_range_covered(1000, 1, 1000, NULL, 0), "the user's own id is the user's");
	ok(!id_range_covered(0, 1, 1000, sub, ELEMENTSOF(sub)), "root's is not");
	ok(!id_range_covered(999, 2, 1000, sub, ELEMENTSOF(sub)),
	   "a range that starts before the user's own id is not");
	ok(!id_range_covered(0, 65537, 1000, sub, ELEMENTSOF(sub)),
	   "a container's whole map (0 and the subuids) is not");
	ok(id_range_covered(100000, 65546, 1000, sub, ELEMENTSOF(sub)), "adjoining ranges add up");
	ok(id_range_covered(300000, 12, 1000, sub, ELEMENTSOF(sub)), "overlapping ranges add up");
	ok(!id_range_covered(300000, 13, 1000, sub, ELEMENTSOF(sub)), "one id past them is not");
	ok(!id_range_covered(165546, 1, 1000, sub, ELEMENTSOF(sub)), "nor one just after a range");
	ok(id_range_covered(999, 2, 999, (const IdRange[]){{1000, 1}}, 1),
	   "the own id and a range next to it add up");
}

int main(void)
{
	test_read();
	test_maps();
	test_covered();
	return tap_done();
}
