/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * fusermount3's -o list (client/fusermount3.c), read as libfuse 3.17.2's
 * fusermount3 reads it, and the io.mountd.Mount.Create request it becomes.
 * Apart from the program so that a host test can hold it
 * (tests/unit/test-fusermount3-options.c).
 *
 * The list is split at commas; in fsname= and subtype= a backslash takes
 * the next character as it is (libfuse escapes ',' and '\' there).  What
 * fusermount3 sets itself (fd=, rootmode=, user_id=, group_id=) is dropped,
 * as libfuse's fusermount3 drops it, with a note (libfuse's says nothing);
 * so are suid and dev from a user, as there.  Nothing here decides what the
 * caller may mount: mountd does, on what it resolves as the caller
 * (mountd(8), FUSE).
 */

#include <stdbool.h>
#include <sys/types.h>

#include <json-c/json.h>

/* The mount flags fusermount3 knows, as it keeps them (MS_* there): the
 * per-mount ones become Attributes, the superblock ones parameters. */
typedef enum FuseFlag {
	FUSE_FLAG_RDONLY = 1U << 0,
	FUSE_FLAG_NOSUID = 1U << 1,
	FUSE_FLAG_NODEV = 1U << 2,
	FUSE_FLAG_NOEXEC = 1U << 3,
	FUSE_FLAG_SYNC = 1U << 4,
	FUSE_FLAG_DIRSYNC = 1U << 5,
	FUSE_FLAG_LAZYTIME = 1U << 6,
	FUSE_FLAG_NOATIME = 1U << 7,
	FUSE_FLAG_NODIRATIME = 1U << 8,
	FUSE_FLAG_RELATIME = 1U << 9,
	FUSE_FLAG_STRICTATIME = 1U << 10,
	FUSE_FLAG_NOSYMFOLLOW = 1U << 11,
} FuseFlag;

typedef struct FuseOptions {
	/* fsname=, subtype=, unescaped; NULL when not given. */
	char *fsname, *subtype;
	bool blkdev, auto_unmount;
	/* FuseFlag; nosuid and nodev to start with, as fusermount3's. */
	unsigned flags;
	/* One of the atime words was given: the mode goes in the request. */
	bool atime_given;
	/* The parameters the list names for the filesystem, in its order
	 * (default_permissions, allow_other, max_read=, blksize=); an array,
	 * NULL when there are none. */
	json_object *parameters;
	/* Lines to print, without the program's name ("unsafe option suid
	 * ignored"); NULL-terminated, NULL when there are none. */
	char **warnings;
} FuseOptions;

#define FUSE_OPTIONS_NULL ((FuseOptions){.flags = FUSE_FLAG_NOSUID | FUSE_FLAG_NODEV})

void fuse_options_done(FuseOptions *o);

/* Read list (NULL or "": nothing) into o (FUSE_OPTIONS_NULL to start
 * with) for a caller with uid uid.  0; -EINVAL for an option
 * fusermount3 refuses, with *ret_error the line to print (free() it),
 * "unknown option 'foo'"; -ENOMEM.  o->warnings holds what was said on the
 * way, either way. */
int fuse_options_parse(FuseOptions *o, const char *list, uid_t uid, char **ret_error);

/* The Create request for o: a FUSE filesystem served through the /dev/fuse
 * fd sent at index 0, whose root is of type rootmode (st_mode & S_IFMT),
 * for user uid and group gid, placed at path: in the mount namespace of
 * the process whose pidfd is sent at pidfd_index, or, if that is
 * negative, the caller's own.  0 or -ENOMEM. */
int fuse_create_request(const FuseOptions *o, const char *path, mode_t rootmode, uid_t uid,
			gid_t gid, int pidfd_index, json_object **ret);

/* The Unmount request for the FUSE mount at path, in that namespace too. */
int fuse_unmount_request(const char *path, bool lazy, int pidfd_index, json_object **ret);
