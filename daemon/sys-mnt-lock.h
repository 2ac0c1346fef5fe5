/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A mount tree made by root, as a user may receive it: copied across the
 * kernel's user-namespace boundary, so that the kernel itself locks it.
 *
 * The kernel locks a mount's flags (MNT_LOCK_READONLY, _NODEV, _NOSUID,
 * _NOEXEC, _ATIME) and every mount below the top (MNT_LOCKED: unmounting
 * it would reveal what it covers) when it copies a tree into a mount
 * namespace of a less privileged user namespace (copy_mnt_ns(), and
 * propagation across user namespaces).  mountd makes mounts as root in
 * the initial user namespace, where nothing is locked: a mount it hands to
 * a user, or places where the user is root, would let that user clear
 * nodev on a superblock of root's or unmount a mask.  So such a tree takes
 * the kernel's own path once: attached in a small mount namespace of
 * root's, copied by unshare(CLONE_NEWUSER | CLONE_NEWNS) into a new one
 * owned by a new user namespace, and cloned from there (open_tree
 * OPEN_TREE_CLONE, recursive), which keeps the locks and clears MNT_LOCKED
 * on the clone's top only.  Neither mountd nor root can clear those flags
 * afterwards: can_change_locked_flags() holds for everyone.
 */

#include "sys-mnt.h"

/* Makes the small mount namespace (one private tmpfs with a directory and
 * a file to mount on), in a child: once, in mountd's main process before
 * any worker is forked.  Until it succeeded mnt_lock_tree() fails. */
int mnt_lock_setup(void);
/* Its nsfs fd (or -EBADF), for a worker to keep across close_range(), and
 * the worker's number for it afterwards. */
int mnt_lock_ns_fd(void);
void mnt_lock_set_ns_fd(int fd);

/* A copy of the detached tree mount_fd with its flags and submounts
 * locked by the kernel, as a new detached tree (fd, O_CLOEXEC); step
 * "lock" in log.  mount_fd is used up: its tree is gone afterwards,
 * whatever the outcome.  Propagation: the copy is private or a slave,
 * never a peer of what it was cloned from, so set what the request asks
 * for afterwards. */
int mnt_lock_tree(int mount_fd, MntLog *log);
