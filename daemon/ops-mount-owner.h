/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Whose an existing mount is: what Move, Unmount and SetAttributes may act
 * on for a caller other than root.  Each mount an operation touches is
 * judged by its unique mount id on an fd held to it, never on a name looked
 * up again, and the operation then acts on that fd (or, for umount2(),
 * which takes no fd, on the fd's own magic link: sys-mnt.c).
 */

#include <stdint.h>
#include <sys/types.h>

#include "sys-mnt.h"

/* 0 when the caller may change mount id, whose root fd is (O_PATH, held
 * to id): root always; another caller when mountd made it for the caller
 * (ops_mount_record()), it is a FUSE mount made for it (its user_id), or
 * its root directory, as the mount shows it, is the caller's.  Else
 * -EPERM at step what, the reason in the log.  The rights of the caller
 * must be entered (executor-rights.h). */
int ops_mount_check_callers(int fd, uint64_t id, const char *what, MntLog *log);

/* The same for every mount below id, each opened by its mount point and
 * held to its id (mnt_open_by_id()): a mount hidden under another, or one
 * that moved meanwhile, cannot be judged and is refused (-EBUSY). */
int ops_mount_check_below(uint64_t id, const char *what, MntLog *log);

/* Record that mountd made mount id (a new mount placed in the worker's
 * namespace) for principal, with every mount below it that came along,
 * and drop the records of principal's mounts that are gone.  0 where
 * mountd keeps no records (mountd itself). */
int ops_mount_record(uid_t principal, uint64_t id);
