/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The caller's rights for what a worker looks up and creates on its behalf.
 *
 * mountd runs as root for callers who are not.  In a worker serving a
 * non-root caller, every path (mount points, bind sources, Info paths,
 * directories placement.create makes, paths the kernel resolves from
 * fsconfig parameters such as overlay's lowerdir=) is resolved with the
 * caller's filesystem identity: fsuid, fsgid and supplementary groups.
 * The kernel then checks permissions as for the caller, creates files
 * owned by the caller, and — as it does for every fsuid change away from 0
 * — clears the file capabilities (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH,
 * CAP_FOWNER, ...) from the effective set.  CAP_SYS_ADMIN stays, so the
 * mount calls themselves still work.  Real and effective ids never change.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct Rights {
	uid_t uid;
	gid_t gid;
	const gid_t *groups;
	size_t n_groups;
} Rights;

/* Assume r's filesystem identity (root: nothing to do).  On failure the
 * worker is back to its own rights and the request must not run. */
int rights_enter(const Rights *r);
/* Back to mountd's own rights. */
void rights_leave(void);

/* 0 when the caller may change the mount or superblock whose root fd is
 * (root, or the caller owns that root directory), else -EPERM: a
 * superblock that merely appears in a namespace the caller owns (the
 * host's root filesystem in a rootless container) stays out of reach. */
int rights_check_owner(int fd);

/* For an idmapped mount of the tree whose root is mount_fd, with the
 * mapping of user namespace userns_fd: the caller must own both (the
 * mapping is one of its own containers', the files are its own), or the
 * mapping would hand it files of other owners.  -EPERM otherwise. */
int rights_check_idmap(int mount_fd, int userns_fd);

/* For a filesystem source given as a path: when it names a block device,
 * the caller must be able to open it (read, and write unless read_only),
 * and *ret_canonical (to be freed) is the device's own path, which the
 * kernel looks up again when it opens it; the caller cannot swap that
 * path, only one it owns.  Not a device: 0 and *ret_canonical NULL (the
 * filesystem takes the string as it is). */
int rights_check_device(const char *path, bool read_only, char **ret_canonical);

/* For a step mountd takes as itself for the caller (a loop device for an
 * image fd the caller opened): mountd's rights until rights_resume(). */
typedef struct RightsSaved {
	bool active;
	uid_t fsuid;
	gid_t fsgid;
} RightsSaved;
RightsSaved rights_suspend(void);
void rights_resume(const RightsSaved *s);
