/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * FUSE for a caller other than root, as fusermount3 gives it to users
 * (client/fusermount3.c asks for it).  The kernel checks the /dev/fuse file
 * it is given (that it is one, opened in the superblock's user namespace);
 * what the setuid fusermount3 checks itself mountd checks here, in the
 * worker, on what it resolved with the caller's rights: the superblock
 * names the caller as its user (user_id, group_id: whoever it lets in),
 * others reach it (allow_other) only where the host's /etc/fuse.conf says
 * user_allow_other, a user has fewer than mount_max FUSE mounts in the
 * namespace (1000 unless fuse.conf says otherwise), and a FUSE mount is
 * unmounted for a user only if its user_id is the user's.  The mount point
 * is checked as for every mount of such a caller (rights_check_mount_point()),
 * and the mount is nosuid and nodev as all of them are.
 */

#include <stdbool.h>
#include <stddef.h>

#include "sys-mnt.h"

/* fuse or fuseblk, with a subtype or not: "fuse.sshfs". */
bool ops_fuse_fstype(const char *fstype);

/* A non-root caller's new FUSE superblock with these parameters, in the
 * worker's namespace: 0, or -EPERM with the reason at step "fuse".  Root:
 * 0. */
int ops_fuse_check_create(const MntParam *params, size_t n_params, MntLog *log);

/* Whether a non-root caller may unmount a FUSE mount whose superblock
 * options (statmount's) are sb_opts: its user_id is the caller's.  0, or
 * -EPERM with the reason at step "fsType".  Root: 0. */
int ops_fuse_check_owner(const char *sb_opts, MntLog *log);
