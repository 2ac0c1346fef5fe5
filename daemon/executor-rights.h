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
	/* The policy let this caller mount images only when a key mountd
	 * trusts signed them (image=signed; sys-verity.h). */
	bool images_signed_only;
	/* The user who answers for the caller (shared/principal.h): whose
	 * devices the request's count as (sys-device-ledger.h). */
	uid_t principal;
} Rights;

/* Assume r's filesystem identity (root: nothing to do).  On failure the
 * worker is back to its own rights and the request must not run. */
int rights_enter(const Rights *r);
/* Back to mountd's own rights. */
void rights_leave(void);
/* The caller whose identity the worker has taken: false for root. */
bool rights_caller(uid_t *ret_uid, gid_t *ret_gid);
/* Rights.images_signed_only of the caller entered. */
bool rights_images_signed_only(void);
/* Rights.principal of the caller entered; false for root. */
bool rights_principal(uid_t *ret);

/* 0 when the caller may change the mount or superblock whose root fd is
 * (root, or the caller owns that root directory), else -EPERM: a
 * superblock that merely appears in a namespace the caller owns (the
 * host's root filesystem in a rootless container) stays out of reach. */
int rights_check_owner(int fd);

/* The user namespace that owns the worker's mount namespace, when the
 * caller owns it (a rootless container of the caller's); -EPERM when it is
 * someone else's (the host's namespace: root's), and for root. */
int rights_callers_userns(void);

/* A mount point fd (as resolved with the caller's rights) that a non-root
 * caller may mount on.  In any namespace, as fusermount3 requires, only a
 * directory or a regular file, on a filesystem of ordinary files (not
 * procfs, sysfs, devtmpfs, devpts, ...), and never mountd's runtime
 * directory or its socket (beneath: the mount that fd's mount covers must
 * be on such a filesystem too).  Then anything in a namespace of its own user
 * namespace's, where it could mount itself; elsewhere only what it owns or
 * may write to (not someone else's sticky directory), or its own namespace
 * would let it cover root's directories.  -EPERM with the reason at step
 * otherwise.  Root: 0. */
typedef struct MntLog MntLog;
int rights_check_mount_point(int fd, bool beneath, const char *step, MntLog *log);

/* For an idmapped mount of the tree whose root is mount_fd, with the
 * mapping of user namespace userns_fd: the caller must own both (the
 * mapping is one of its own containers', the files are its own), and every
 * id the mapping can write to disk must be one the caller owns: its uid or
 * gid, or in its ranges in mountd's /etc/subuid and /etc/subgid.  Writing
 * through an idmapped mount stores, for the writer's id, the id the
 * namespace has for it (the left column of its uid_map and gid_map): with a
 * rootless container's mapping (0 -> the caller), the caller's own writes
 * would be root's files on disk.  A namespace without both maps yet is
 * refused (its owner could write them after the check).  -EPERM with the
 * reason at step "idmap", or negative errno.  Root: 0. */
int rights_check_idmap(int mount_fd, int userns_fd, MntLog *log);

/* The source of a filesystem that reads a block device, as a non-root
 * caller names it: opened as the caller (read, and write unless
 * read_only), so that the kernel checks the caller's right to the device
 * at open time; it must be a block device (-ENOTBLK), and a name that does
 * not resolve is refused like any other (-ENOENT), never left for root to
 * look up.  *ret_name (to be freed) is the device's own name in mountd's
 * /dev ("/dev/" + its DEVNAME in mountd's /sys), which the kernel looks up
 * in mountd's root (worker_in_host_root()): only root makes names there.
 * Root: 0 and *ret_name NULL (root's names are its own). */
int rights_open_device(const char *path, bool read_only, char **ret_name);
/* The device itself, opened as rights_open_device() opens it (whoever the
 * worker acts for), as an fd to give the kernel. */
int rights_open_device_fd(const char *path, bool read_only);

/* For a step mountd takes as itself for the caller (a loop device for an
 * image fd the caller opened): mountd's rights until rights_resume(). */
typedef struct RightsSaved {
	bool active;
	uid_t fsuid;
	gid_t fsgid;
} RightsSaved;
RightsSaved rights_suspend(void);
void rights_resume(const RightsSaved *s);

/* What no non-root caller gets, whatever the policy says: new mounts are
 * nosuid,nodev (forced into req), and only root clears either on a mount.
 * -EPERM with *ret_reason for a request of method m that asks for it. */
typedef struct OpsMethod OpsMethod;
int ops_restrict_unprivileged(const OpsMethod *m, void *req, const char **ret_reason);
