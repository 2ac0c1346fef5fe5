/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The parameter table (see ops-fs-params.h).  One row per filesystem of the
 * guest kernel (kernel/mountd.config and what is always built in), its
 * keys as space-separated words by kind, as 6.12's parameter specs (or,
 * for the filesystems still parsed the old way, their option tables)
 * name them.  A key that is a value in one form and something else in
 * another (ext4's "journal" is gone, "journal_dev" a device number) is
 * listed by what it can do at worst.
 */

#include <string.h>

#include "ops-fs-params.h"
#include "util.h"

typedef struct FsParams {
	const char *fstype;
	/* Space-separated keys, by kind; NULL: none. */
	const char *kinds[_FS_PARAM_KIND_MAX];
} FsParams;

#define TMPFS_VALUES                                                                    \
	"gid huge mode mpol nr_blocks nr_inodes size uid inode32 inode64 noswap quota " \
	"usrquota grpquota usrquota_block_hardlimit usrquota_inode_hardlimit "          \
	"grpquota_block_hardlimit grpquota_inode_hardlimit"
#define EXT4_VALUES                                                                     \
	"bsddf minixdf grpid bsdgroups nogrpid sysvgroups resgid resuid sb errors "     \
	"nouid32 debug oldalloc orlov user_xattr acl norecovery noload bh nobh commit " \
	"min_batch_time max_batch_time journal_checksum nojournal_checksum "            \
	"journal_async_commit abort data data_err usrjquota grpjquota jqfmt grpquota "  \
	"quota noquota usrquota prjquota barrier nobarrier i_version dax stripe "       \
	"delalloc nodelalloc warn_on_error nowarn_on_error debug_want_extra_isize "     \
	"mblk_io_submit nomblk_io_submit block_validity noblock_validity "              \
	"inode_readahead_blks journal_ioprio auto_da_alloc noauto_da_alloc "            \
	"dioread_nolock nodioread_nolock dioread_lock discard nodiscard init_itable "   \
	"noinit_itable fc_debug_force fc_debug_max_replay max_dir_size_kb "             \
	"test_dummy_encryption inlinecrypt nombcache no_mbcache "                       \
	"prefetch_block_bitmaps no_prefetch_block_bitmaps mb_optimize_scan check "      \
	"nocheck reservation noreservation journal"
#define EXT4                                                                        \
	{                                                                           \
		[FS_PARAM_VALUE] = EXT4_VALUES, [FS_PARAM_DEVICE] = "journal_path", \
		[FS_PARAM_ROOT] = "journal_dev"                                     \
	}
/* fd= is a number in the fd table of whoever makes the superblock: the
 * worker, or the caller's helper (executor-caller-sb.h).  user_id, group_id
 * and allow_other a caller sets as ops-fuse.h allows.  fuseblk reads a
 * block device (fusermount's "blkdev"): root's. */
#define FUSE_VALUES \
	"subtype rootmode user_id group_id default_permissions allow_other max_read blksize"
#define FUSE                                                                \
	{                                                                   \
		[FS_PARAM_VALUE] = FUSE_VALUES, [FS_PARAM_FD_NUMBER] = "fd" \
	}
#define FUSEBLK                                                        \
	{                                                              \
		[FS_PARAM_VALUE] = FUSE_VALUES, [FS_PARAM_ROOT] = "fd" \
	}
#define ID_MODE                                   \
	{                                         \
		[FS_PARAM_VALUE] = "uid gid mode" \
	}
#define NONE \
	{    \
	}

static const FsParams table[] = {
	{"tmpfs", {[FS_PARAM_VALUE] = TMPFS_VALUES}},
	{"devtmpfs", {[FS_PARAM_VALUE] = TMPFS_VALUES}},
	{"ramfs", {[FS_PARAM_VALUE] = "mode"}},
	{"overlay",
	 {[FS_PARAM_VALUE] = "default_permissions redirect_dir index uuid nfs_export userxattr "
			     "xino metacopy verity fsync volatile",
	  [FS_PARAM_PATH] = "lowerdir lowerdir+ datadir+ upperdir workdir"}},
	{"ext4", EXT4},
	{"ext3", EXT4},
	{"ext2", EXT4},
	{"squashfs", {[FS_PARAM_VALUE] = "errors threads"}},
	{"erofs",
	 {[FS_PARAM_VALUE] = "user_xattr acl cache_strategy dax directio",
	  /* device= names another device or file the kernel opens when the
	   * superblock is made, in mountd's root and with its rights; fsid=
	   * and domain_id= name fscache's (on-demand) blobs. */
	  [FS_PARAM_ROOT] = "device fsid domain_id"}},
	{"fuse", FUSE},
	{"fuseblk", FUSEBLK},
	{"9p",
	 {[FS_PARAM_VALUE] = "debug dfltuid dfltgid afid uname aname nodevmap noxattr directio "
			     "ignoreqv cache cachetag access posixacl locktimeout loose fscache "
			     "mmap readahead none msize noextend trans version",
	  /* trans=fd speaks 9p over fds of the worker's, by number; port and
	   * privport are the network's. */
	  [FS_PARAM_ROOT] = "rfdno wfdno port privport"}},
	{"proc", {[FS_PARAM_VALUE] = "gid hidepid subset"}},
	{"sysfs", NONE},
	{"devpts", {[FS_PARAM_VALUE] = "uid gid mode ptmxmode newinstance max"}},
	{"mqueue", NONE},
	{"cgroup2",
	 {[FS_PARAM_VALUE] = "nsdelegate favordynmods memory_localevents memory_recursiveprot "
			     "memory_hugetlb_accounting pids_localevents"}},
	{"cpuset", {[FS_PARAM_VALUE] = "cpuset_v2_mode"}},
	{"cgroup",
	 {[FS_PARAM_VALUE] = "all clone_children cpuset_v2_mode name none noprefix xattr "
			     "favordynmods nofavordynmods",
	  /* A program the kernel runs as root when a cgroup empties. */
	  [FS_PARAM_ROOT] = "release_agent"}},
	{"autofs",
	 {[FS_PARAM_VALUE] = "direct gid ignore indirect maxproto minproto offset strictexpire "
			     "uid",
	  /* fd= is the daemon's pipe by number; pgrp= names its processes. */
	  [FS_PARAM_ROOT] = "fd pgrp"}},
	{"bpf",
	 {[FS_PARAM_VALUE] = "uid gid mode",
	  /* Delegating BPF commands is the host's to grant. */
	  [FS_PARAM_ROOT] = "delegate_cmds delegate_maps delegate_progs delegate_attachs"}},
	{"tracefs", ID_MODE},
	{"debugfs", ID_MODE},
	{"configfs", NONE},
	{"binfmt_misc", NONE},
	{"securityfs", NONE},
	{"pstore", {[FS_PARAM_VALUE] = "kmsg_bytes"}},
	{"fusectl", NONE},
};

static const FsParams *find(const char *fstype)
{
	size_t n;

	if (!fstype)
		return NULL;
	/* "fuse.sshfs": fuse with a subtype. */
	n = strcspn(fstype, ".");
	for (size_t i = 0; i < ELEMENTSOF(table); i++)
		if (strlen(table[i].fstype) == n && strncmp(table[i].fstype, fstype, n) == 0)
			return &table[i];
	return NULL;
}

static bool has_word(const char *words, const char *word)
{
	return word_in(words, word, strlen(word), " ");
}

/* The superblock flags the VFS takes for every filesystem before it asks
 * the filesystem (vfs_parse_sb_flag()). */
static const char sb_flags[] =
	"dirsync lazytime mand posixacl ro sync async nolazytime nomand rw silent";

FsParamKind fs_param_kind(const char *fstype, const char *key)
{
	const FsParams *f = find(fstype);

	if (!f || !key)
		return FS_PARAM_UNKNOWN;
	if (has_word(sb_flags, key))
		return FS_PARAM_VALUE;
	/* The worst kind a key has wins, should it be listed twice. */
	for (int k = _FS_PARAM_KIND_MAX - 1; k > FS_PARAM_UNKNOWN; k--)
		if (has_word(f->kinds[k], key))
			return (FsParamKind)k;
	return FS_PARAM_UNKNOWN;
}

bool fs_param_known_fstype(const char *fstype)
{
	return find(fstype);
}

const char *fs_param_kind_name(FsParamKind kind)
{
	static const char *const names[_FS_PARAM_KIND_MAX] = {
		[FS_PARAM_UNKNOWN] = "unknown",	    [FS_PARAM_VALUE] = "value",
		[FS_PARAM_PATH] = "path",	    [FS_PARAM_DEVICE] = "device",
		[FS_PARAM_FD_NUMBER] = "fd-number", [FS_PARAM_ROOT] = "root",
	};

	return (unsigned)kind < _FS_PARAM_KIND_MAX ? names[kind] : "unknown";
}

void fs_param_foreach(void (*fn)(const char *fstype, const char *key, FsParamKind kind,
				 void *userdata),
		      void *userdata)
{
	for (size_t i = 0; i < ELEMENTSOF(table); i++) {
		/* Each filesystem once on its own, keys or not. */
		fn(table[i].fstype, NULL, FS_PARAM_UNKNOWN, userdata);
		for (int k = FS_PARAM_VALUE; k < _FS_PARAM_KIND_MAX; k++)
			for (const char *p = table[i].kinds[k]; p && *p;) {
				size_t n = strcspn(p, " ");
				char key[64];

				if (n > 0 && n < sizeof(key)) {
					memcpy(key, p, n);
					key[n] = 0;
					fn(table[i].fstype, key, (FsParamKind)k, userdata);
				}
				p += n;
				p += strspn(p, " ");
			}
	}
}
