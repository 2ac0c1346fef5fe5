/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What filesystem libblkid finds in a range of a file or block device:
 * mountd's image mounts (daemon/sys-loopdev.c) and mountctl's block devices
 * ask the same question and give the same answer when there is none.
 */

#include <stddef.h>
#include <stdint.h>

#include <blkid/blkid.h>

#include "util.h"

void fs_probe_freep(blkid_probe *pr);
#define _cleanup_blkid_ _cleanup_(fs_probe_freep)

/* How to put it right, in the caller's words, for the two answers that
 * can be put right: a partition table where a filesystem was expected
 * ("name a partition (partition or partitionType)"), and more than one
 * filesystem's signature ("give fsType"). */
typedef struct FsProbeHints {
	const char *partition;
	const char *fstype;
} FsProbeHints;

/* The filesystem type at offset..offset+size (0: to the end) of fd, into
 * *ret (to be freed).  Only filesystems are looked for: what else libblkid
 * knows (RAID members, LUKS, swap, journals, caches) is no type to hand
 * fsopen(), which would only try to load a module of that name; it is
 * also most of a probe's reads.  Exactly one filesystem's signature must
 * be there: otherwise -EMEDIUMTYPE, and why (what is there, from a second
 * probe with every prober) as one line into why[why_size]. */
int fs_probe_type(int fd, uint64_t offset, uint64_t size, const FsProbeHints *hints, char **ret,
		  char *why, size_t why_size);

/* The partition table at offset..offset+size (0: to the end) of fd,
 * probed: the table only, no filesystem probing of the whole disk; only a
 * table of type only ("gpt") unless NULL.  -ENXIO when there is none. */
int fs_probe_table(int fd, uint64_t offset, uint64_t size, const char *only, blkid_probe *ret);
