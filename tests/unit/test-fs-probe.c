// SPDX-License-Identifier: LGPL-2.1-or-later
/* shared/fs-probe.c: the filesystem type in a range of a file, and what is
 * said when there is none, on files this test makes (no devices, no
 * mounts): mountd's image probe and mountctl's block-device probe. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs-probe.h"
#include "tap.h"
#include "util.h"

static const FsProbeHints hints = {.partition = "PARTITION-HINT", .fstype = "TYPE-HINT"};
static char dir[] = "/tmp/test-fs-probe-XXXXXX";

/* Run a shell command with $D the test's directory; true when it worked. */
static bool sh(const char *cmd)
{
	char full[1024];

	snprintf(full, sizeof(full), "D=%s; %s", dir, cmd);
	return system(full) == 0;
}

/* Probe name (in the test's directory) at offset..offset+size. */
static int probe(const char *name, uint64_t offset, uint64_t size, char **type, char *why, size_t n)
{
	char path[256];
	_cleanup_close_ int fd = -EBADF;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	why[0] = 0;
	return fs_probe_type(fd, offset, size, &hints, type, why, n);
}

int main(void)
{
	char why[384], *type = NULL;
	int r;

	if (!mkdtemp(dir))
		return 1;

	ok(sh("truncate -s 1M $D/empty"), "an empty file");
	r = probe("empty", 0, 0, &type, why, sizeof(why));
	ok(r == -EMEDIUMTYPE && !type && streq(why, "no filesystem signature found"),
	   "  has no filesystem signature: %d '%s'", r, why);

	ok(sh("truncate -s 8M $D/swap && mkswap -q $D/swap >/dev/null"), "a swap area");
	r = probe("swap", 0, 0, &type, why, sizeof(why));
	ok(r == -EMEDIUMTYPE && !type && streq(why, "swap: not a filesystem"),
	   "  is not a filesystem: %d '%s'", r, why);

	ok(sh("truncate -s 8M $D/ext4 && mkfs.ext4 -q -F $D/ext4 >/dev/null 2>&1"), "an ext4");
	r = probe("ext4", 0, 0, &type, why, sizeof(why));
	ok(r == 0 && type && streq(type, "ext4"), "  is ext4: %d %s", r, strna(type));
	free(type);
	type = NULL;

	/* An ext4 1 MiB into a file, as a partition of an image. */
	ok(sh("truncate -s 9M $D/inside && mkfs.ext4 -q -F -E offset=1048576 $D/inside 8M "
	      ">/dev/null 2>&1"),
	   "an ext4 1 MiB into a file");
	r = probe("inside", 1048576, 8 << 20, &type, why, sizeof(why));
	ok(r == 0 && type && streq(type, "ext4"), "  is ext4 at that offset: %d %s", r,
	   strna(type));
	free(type);
	type = NULL;
	r = probe("inside", 0, 1048576, &type, why, sizeof(why));
	ok(r == -EMEDIUMTYPE, "  and nothing before it: %d '%s'", r, why);

	/* A whole disk: a partition table, no filesystem (run from the top of
	 * the tree, as every host test). */
	ok(sh("truncate -s 8M $D/disk && python3 tests/guest/mkgpt.py $D/disk "
	      "2048:8192:0fc63daf-8483-4772-8e79-3d69d8477de4"),
	   "a GPT disk image");
	r = probe("disk", 0, 0, &type, why, sizeof(why));
	ok(r == -EMEDIUMTYPE &&
		   streq(why, "no filesystem signature, but a gpt partition table: PARTITION-HINT"),
	   "  names its partition table, and the hint: %d '%s'", r, why);

	/* A FAT boot sector over the ext4: two filesystems claim the file. */
	ok(sh("cp $D/ext4 $D/both && printf '\\353\\074\\220mkfs.fat\\000\\002\\004\\001\\000"
	      "\\002\\000\\002\\000\\100\\370\\010\\000' | dd of=$D/both conv=notrunc status=none "
	      "&& "
	      "printf 'FAT16   ' | dd of=$D/both bs=1 seek=54 conv=notrunc status=none && "
	      "printf '\\125\\252' | dd of=$D/both bs=1 seek=510 conv=notrunc status=none"),
	   "a FAT boot sector written over an ext4");
	r = probe("both", 0, 0, &type, why, sizeof(why));
	ok(r == -EMEDIUMTYPE && strstr(why, "more than one filesystem signature (") &&
		   strstr(why, "ext4") && strstr(why, "TYPE-HINT"),
	   "  is two filesystems, and the hint says what to do: %d '%s'", r, why);
	free(type);
	type = NULL;

	(void)sh("rm -rf $D");
	return tap_done();
}
