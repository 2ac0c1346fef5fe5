/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Ids a user owns besides its own: its subordinate ranges (/etc/subuid,
 * /etc/subgid, as newuidmap and newgidmap read them), and the ranges of
 * ids a user namespace's map covers.
 *
 * What mountd lets a user put on disk through an idmapped mount is held to
 * these: a user who could write any other id there could write root's
 * files.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct IdRange {
	uint32_t start;
	uint32_t count;
} IdRange;

/* A user's ranges can only be as many as the file has lines: more than
 * this many of one user's is an error (-E2BIG), not a reason to read on. */
#define SUBID_RANGES_MAX 1024

/* The ranges of the subuid or subgid file f for the user named name
 * (NULL: known by its number only) with number id: lines "NAME:START:COUNT"
 * or "ID:START:COUNT", as newuidmap takes them; malformed lines and empty
 * ranges are skipped.  *ret (to be freed) and *ret_n; negative errno. */
int subid_read(FILE *f, const char *name, uint32_t id, IdRange **ret, size_t *ret_n);

/* The ids on the left of a user namespace's uid_map or gid_map text
 * ("FIRST LOWER COUNT" lines): the namespace's own, which an idmapped mount
 * writes to disk.  -EBADMSG for text that is no map. */
int idmap_inner_ranges(const char *text, IdRange **ret, size_t *ret_n);

/* Whether every id of [start, start + count) is own or in one of ranges. */
bool id_range_covered(uint64_t start, uint64_t count, uint32_t own, const IdRange *ranges,
		      size_t n);
