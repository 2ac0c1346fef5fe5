/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Subordinate ids and user namespace maps (see subid.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "subid.h"
#include "util.h"

static int range_add(IdRange **ranges, size_t *n, uint64_t start, uint64_t count)
{
	IdRange *a;

	if (*n >= SUBID_RANGES_MAX)
		return -E2BIG;
	a = realloc(*ranges, (*n + 1) * sizeof(**ranges));
	if (!a)
		return -ENOMEM;
	*ranges = a;
	a[(*n)++] = (IdRange){.start = (uint32_t)start, .count = (uint32_t)count};
	return 0;
}

/* A decimal id as newuidmap reads one: digits only, below 2^32 - 1 (which
 * is no id). */
static bool parse_id(const char *s, uint64_t *ret)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*ret = strtoull(s, &end, 10);
	return errno == 0 && !*end && *ret < UINT32_MAX;
}

int subid_read(FILE *f, const char *name, uint32_t id, IdRange **ret, size_t *ret_n)
{
	_cleanup_free_ IdRange *ranges = NULL;
	_cleanup_free_ char *line = NULL;
	size_t size = 0, n = 0;
	char number[16];
	ssize_t len;

	snprintf(number, sizeof(number), "%" PRIu32, id);
	errno = 0;
	while ((len = getline(&line, &size, f)) >= 0) {
		char *owner, *start_s, *count_s, *save = NULL;
		uint64_t start, count;
		int k;

		line[strcspn(line, "\n")] = 0;
		owner = strtok_r(line, ":", &save);
		start_s = strtok_r(NULL, ":", &save);
		count_s = strtok_r(NULL, ":", &save);
		if (!owner || !start_s || !count_s || strtok_r(NULL, ":", &save))
			continue;
		if (!streq(owner, number) && !(name && streq(owner, name)))
			continue;
		/* A range that does not fit in 32 bits is no one's. */
		if (!parse_id(start_s, &start) || !parse_id(count_s, &count) || count == 0 ||
		    start + count > UINT32_MAX)
			continue;
		k = range_add(&ranges, &n, start, count);
		if (k < 0)
			return k;
	}
	if (ferror(f))
		return errno > 0 ? -errno : -EIO;
	*ret = TAKE_PTR(ranges);
	*ret_n = n;
	return 0;
}

int idmap_inner_ranges(const char *text, IdRange **ret, size_t *ret_n)
{
	_cleanup_free_ IdRange *ranges = NULL;
	size_t n = 0;

	for (const char *p = text; *p;) {
		unsigned long long first, lower, count;
		int used = 0, k;

		p += strspn(p, " \t\n");
		if (!*p)
			break;
		if (sscanf(p, "%llu %llu %llu%n", &first, &lower, &count, &used) != 3 ||
		    first + count > UINT32_MAX || count == 0 || count > UINT32_MAX)
			return -EBADMSG;
		k = range_add(&ranges, &n, first, count);
		if (k < 0)
			return k;
		p += used;
	}
	*ret = TAKE_PTR(ranges);
	*ret_n = n;
	return 0;
}

bool id_range_covered(uint64_t start, uint64_t count, uint32_t own, const IdRange *ranges, size_t n)
{
	uint64_t pos = start, end = start + count;

	/* Ranges may overlap and come in any order: step from range to
	 * range, each taking pos on to its end. */
	while (pos < end) {
		bool moved = false;

		if (pos == own) {
			pos++;
			continue;
		}
		for (size_t i = 0; i < n; i++)
			if (ranges[i].start <= pos &&
			    pos < (uint64_t)ranges[i].start + ranges[i].count) {
				pos = (uint64_t)ranges[i].start + ranges[i].count;
				moved = true;
			}
		if (!moved)
			return false;
	}
	return true;
}
