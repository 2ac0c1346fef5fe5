/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * FUSE for a caller other than root, as fusermount3 gives it to users
 * (client/fusermount3.c asks for it).  The kernel checks the /dev/fuse file
 * it is given (that it is one, opened in the superblock's user namespace).
 * Where the superblock goes into a namespace of the caller's own user
 * namespace (its rootless container), or back to it as an fd there, the
 * caller makes it (ops-create.c, executor-caller-sb.h): the kernel then
 * holds user_id and group_id to the ids that namespace maps and serves
 * allow_other to its processes only.  Placed where the caller controls
 * nothing (the host's namespace: fusermount3's case), mountd makes it, and
 * what the setuid fusermount3 checks itself mountd checks here, in the
 * worker, on what it resolved with the caller's rights: the superblock
 * names the caller as its user (user_id, group_id: whoever it lets in),
 * others reach it (allow_other) only where the host's /etc/fuse.conf says
 * user_allow_other.  Either way a user holds fewer than mount_max FUSE
 * superblocks (1000 unless fuse.conf says otherwise; FuseLedger below), and
 * a FUSE mount is unmounted for a user only if its user_id is the user's
 * or it is in the user's own container.  The mount point is checked as for
 * every mount of such a caller (rights_check_mount_point()), and the mount
 * is nosuid and nodev as all of them are.
 */

#include <stdbool.h>
#include <stddef.h>

#include "sys-mnt.h"

/* fuse or fuseblk, with a subtype or not: "fuse.sshfs". */
bool ops_fuse_fstype(const char *fstype);

/* The FUSE superblocks mountd made for a user (principal), counted while
 * the kernel still has them: a record each under
 * /run/mountd/fuse/PRINCIPAL/, "DEV:INO", DEV the superblock's device
 * number and INO the inode of its connection's directory in mountd's
 * fusectl (/sys/fs/fuse/connections/DEV), which lives exactly as long as
 * the superblock; a device number used again has a new one.  So a
 * superblock held as a detached mount fd counts as one in a namespace.
 * Where mountd has no fusectl mounted, only the namespace's mounts count.
 * The directory is locked from the count to the record. */
typedef struct FuseLedger {
	int dir; /* locked; -EBADF: nothing to record */
} FuseLedger;

#define FUSE_LEDGER_NULL ((FuseLedger){.dir = -EBADF})

/* A non-root caller's new FUSE superblock with these parameters, made by
 * mountd (root_made: it then serves whomever its user_id and allow_other
 * say, so fusermount3's rules hold) or by the caller in a user namespace
 * of its own (the kernel holds the ids to that namespace's, and
 * allow_other to its processes): 0 with the user's records locked in *ret,
 * or -EPERM with the reason at step "fuse".  mount_max counts what the
 * user holds: its records, and the mounts in the worker's namespace that
 * name it.  Root: 0, nothing locked. */
int ops_fuse_check_create(const MntParam *params, size_t n_params, bool root_made, FuseLedger *ret,
			  MntLog *log);
/* Record the superblock of mnt_fd, a new FUSE mount, in l (if open). */
int ops_fuse_ledger_add(FuseLedger *l, int mnt_fd, MntLog *log);
void ops_fuse_ledger_close(FuseLedger *l);

/* Whether a non-root caller may unmount a FUSE mount whose superblock
 * options (statmount's) are sb_opts: its user_id is the caller's.  0, or
 * -EPERM with the reason at step "fsType".  Root: 0. */
int ops_fuse_check_owner(const char *sb_opts, MntLog *log);
