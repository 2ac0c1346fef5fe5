/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/ops-fs-params.c: how keys are found.  With --dump, the table as lines
 * "FSTYPE" and "FSTYPE KEY KIND" for tests/unit/test-fs-params.sh, which
 * holds it against the kernel tree's parameter specs, and for
 * tests/guest/36-mountd-attacks.sh, against the guest kernel's filesystems.
 */

#include <stdio.h>
#include <string.h>

#include "ops-fs-params.h"
#include "tap.h"
#include "util.h"

static void dump(const char *fstype, const char *key, FsParamKind kind, void *userdata)
{
	if (key)
		printf("%s %s %s\n", fstype, key, fs_param_kind_name(kind));
	else
		printf("%s\n", fstype);
}

int main(int argc, char **argv)
{
	if (argc > 1 && streq(argv[1], "--dump")) {
		fs_param_foreach(dump, NULL);
		return 0;
	}
	/* The word lists the table is written in (shared/util.h). */
	ok(word_in("a bb  c", "bb", 2, " ") && word_in("a bb  c", "c", 1, " ") &&
		   !word_in("a bb c", "b", 1, " ") && !word_in("a bbc", "bb", 2, " ") &&
		   !word_in("", "a", 1, " ") && !word_in(NULL, "a", 1, " "),
	   "word_in() finds whole words only");
	ok(word_in("rw,user_id=1000,,group_id=0", "user_id=1000", 12, ",") &&
		   !word_in("user_id=10000", "user_id=1000", 12, ","),
	   "  in comma-separated options too, not a prefix of another");
	ok(fs_param_kind("tmpfs", "size") == FS_PARAM_VALUE, "tmpfs size is a value");
	ok(fs_param_kind("tmpfs", "ro") == FS_PARAM_VALUE,
	   "the VFS's superblock flags are values for every filesystem");
	ok(fs_param_kind("overlay", "upperdir") == FS_PARAM_PATH, "overlay's layers are paths");
	ok(fs_param_kind("overlay", "lowerdir+") == FS_PARAM_PATH, "  lowerdir+ too");
	ok(fs_param_kind("ext4", "journal_path") == FS_PARAM_DEVICE,
	   "ext4's journal_path is a device the caller must open");
	ok(fs_param_kind("ext4", "journal_dev") == FS_PARAM_ROOT,
	   "ext4's journal_dev (a device number) is root's");
	ok(fs_param_kind("fuse.sshfs", "fd") == FS_PARAM_FD_NUMBER,
	   "fuse's fd is an fd passed and given to the kernel by its number, with a subtype too");
	ok(fs_param_kind("fuseblk", "fd") == FS_PARAM_ROOT,
	   "fuseblk's fd is root's (a block device)");
	ok(fs_param_kind("fuse.sshfs", "allow_other") == FS_PARAM_VALUE,
	   "fuse.sshfs has fuse's values");
	ok(fs_param_kind("cgroup", "release_agent") == FS_PARAM_ROOT,
	   "cgroup v1's release_agent (a program run as root) is root's");
	ok(fs_param_kind("9p", "rfdno") == FS_PARAM_ROOT, "9p's fd numbers are root's");
	ok(fs_param_kind("tmpfs", "nosuchkey") == FS_PARAM_UNKNOWN, "an unknown key is unknown");
	ok(fs_param_kind("tmpfs", "siz") == FS_PARAM_UNKNOWN &&
		   fs_param_kind("tmpfs", "size2") == FS_PARAM_UNKNOWN,
	   "keys match whole words only");
	ok(fs_param_kind("nfs", "ro") == FS_PARAM_UNKNOWN && !fs_param_known_fstype("nfs"),
	   "a filesystem not in the table knows no key, not even ro");
	ok(fs_param_kind("tmpfs.x", "size") == FS_PARAM_VALUE, "a subtype is its type's");
	ok(fs_param_kind(NULL, "size") == FS_PARAM_UNKNOWN &&
		   fs_param_kind("tmpfs", NULL) == FS_PARAM_UNKNOWN,
	   "no type or no key: unknown");
	return tap_done();
}
