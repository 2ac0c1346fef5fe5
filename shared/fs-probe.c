/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What filesystem is in a range of a file or device (see fs-probe.h). */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fs-probe.h"
#include "util.h"

void fs_probe_freep(blkid_probe *pr)
{
	if (*pr)
		blkid_free_probe(*pr);
}

/* A probe of offset..offset+size (0: to the end) of fd. */
static int probe_fd(int fd, uint64_t offset, uint64_t size, blkid_probe *ret)
{
	_cleanup_blkid_ blkid_probe pr = blkid_new_probe();

	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, fd, (blkid_loff_t)offset, (blkid_loff_t)size) < 0)
		return -EIO;
	*ret = TAKE_PTR(pr);
	return 0;
}

int fs_probe_table(int fd, uint64_t offset, uint64_t size, const char *only, blkid_probe *ret)
{
	_cleanup_blkid_ blkid_probe pr = NULL;
	int r;

	r = probe_fd(fd, offset, size, &pr);
	if (r < 0)
		return r;
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	if (only && blkid_probe_filter_partitions_type(pr, BLKID_FLTR_ONLYIN,
						       (char *[]){(char *)only, NULL}) < 0)
		return -ENOMEM;
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	if (blkid_do_safeprobe(pr) != 0)
		return -ENXIO;
	*ret = TAKE_PTR(pr);
	return 0;
}

/* The type of partition table at offset..offset+size into ret ("gpt",
 * "dos", ...), or false when there is none. */
static bool partition_table(int fd, uint64_t offset, uint64_t size, char *ret, size_t n)
{
	_cleanup_blkid_ blkid_probe pr = NULL;
	const char *type = NULL;

	if (fs_probe_table(fd, offset, size, NULL, &pr) < 0 ||
	    blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL) != 0 || !type)
		return false;
	snprintf(ret, n, "%s", type);
	return true;
}

/* What libblkid sees at offset..offset+size with every prober, for the
 * error of a probe that found no one filesystem there: whoever handed a
 * LUKS or swap volume, or one with two filesystems' signatures, learns
 * which.  Each signature in turn (blkid_do_probe(), not safeprobe: how
 * libblkid reports an ambivalent result differs between versions).  Off
 * the fast path. */
static void explain(int fd, uint64_t offset, uint64_t size, const FsProbeHints *hints, char *why,
		    size_t why_size)
{
	_cleanup_blkid_ blkid_probe pr = NULL;
	char found[256] = "", table[32];
	const char *type, *usage;
	size_t n = 0, n_fs = 0;

	if (probe_fd(fd, offset, size, &pr) < 0) {
		snprintf(why, why_size, "the probe failed");
		return;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE);
	while (n < 4 && blkid_do_probe(pr) == 0) {
		if (blkid_probe_lookup_value(pr, "TYPE", &type, NULL) != 0 || !type)
			continue;
		if (blkid_probe_lookup_value(pr, "USAGE", &usage, NULL) == 0 && usage &&
		    streq(usage, "filesystem"))
			n_fs++;
		size_t len = strlen(found);
		snprintf(found + len, sizeof(found) - len, "%s%s", n ? ", " : "", type);
		n++;
	}
	if (n == 0 && partition_table(fd, offset, size, table, sizeof(table)))
		snprintf(why, why_size, "no filesystem signature, but a %s partition table: %s",
			 table, hints->partition);
	else if (n == 0)
		snprintf(why, why_size, "no filesystem signature found");
	else if (n_fs > 1)
		snprintf(why, why_size, "more than one filesystem signature (%s): %s", found,
			 hints->fstype);
	else if (n_fs == 0)
		snprintf(why, why_size, "%s: not a filesystem", found);
	else
		snprintf(why, why_size, "%s: the probe failed", found);
}

int fs_probe_type(int fd, uint64_t offset, uint64_t size, const FsProbeHints *hints, char **ret,
		  char *why, size_t why_size)
{
	_cleanup_blkid_ blkid_probe pr = NULL;
	const char *type = NULL;
	int r;

	*ret = NULL;
	r = probe_fd(fd, offset, size, &pr);
	if (r < 0)
		return r;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	if (blkid_probe_filter_superblocks_usage(pr, BLKID_FLTR_ONLYIN, BLKID_USAGE_FILESYSTEM) < 0)
		return -ENOMEM;
	r = blkid_do_safeprobe(pr);
	if (r != 0 || blkid_probe_lookup_value(pr, "TYPE", &type, NULL) != 0 || !type) {
		explain(fd, offset, size, hints, why, why_size);
		return -EMEDIUMTYPE;
	}
	*ret = strdup(type);
	return *ret ? 0 : -ENOMEM;
}
