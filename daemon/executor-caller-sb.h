/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A non-root caller's superblocks, made by the caller (ops-create.c says
 * which: every one not read from a block device, nor FUSE placed where the
 * caller does not control).  The kernel then decides what a user may mount:
 * only a filesystem it lets a user namespace mount (FS_USERNS_MOUNT), and
 * then an instance of that namespace's (a singleton such as cgroup2,
 * tracefs or devtmpfs, which a mount of root's would reconfigure for the
 * whole host, is EPERM).  And the superblock remembers its maker: overlay
 * keeps the credentials of whoever ran FSCONFIG_CMD_CREATE and copies up
 * and cleans its work directory with them for the mount's whole life; a
 * superblock's user namespace decides who may reconfigure it and whether
 * its device nodes and set-id files count.  A worker serving a non-root
 * caller forks a helper that takes the caller's
 * uid and gid (and the groups rights_enter() gave the worker): no
 * capabilities outside a user namespace the caller owns.  Where the caller
 * owns the target namespace's user namespace (a rootless container), the
 * helper joins it, so the superblock is what the container could make
 * itself; elsewhere (a namespace of root's a rule grants) it makes a new one
 * mapping the caller's uid and gid alone, as a rootless runtime would, and
 * stays in the target's mount namespace, where overlay's layers are.  In
 * that user namespace the helper calls fsopen() (for a new one, in a child
 * with a mount namespace of its own: fsopen() wants CAP_SYS_ADMIN over the
 * mount namespace), so the context belongs to that user namespace, and, when the worker has set the
 * parameters (paths resolved with the caller's rights, executor-rights.h), CMD_CREATE.
 * The worker, which may mount in the target namespace, does the rest:
 * fsmount() and the placement.  A reconfiguration is the caller's the same
 * way: the kernel checks its right to the superblock.
 */

#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>

#include "sys-mnt.h"

/* How many commands go to the helper before their answers are read. */
#define CALLER_SB_PIPELINE 8

typedef struct CallerSb {
	pid_t pid;
	int sock;	    /* to the helper */
	bool kept;	    /* the worker's kept helper, borrowed */
	int fs_fd;	    /* the context, from fsopen's answer */
	int failed;	    /* the first failure of a command, or 0 */
	unsigned n_pending; /* commands whose answers are not read yet */
	char pending[CALLER_SB_PIPELINE][MNT_STEP_MAX]; /* their steps */
} CallerSb;

#define CALLER_SB_NULL ((CallerSb){.pid = 0, .sock = -EBADF, .fs_fd = -EBADF})

/*
 * A superblock is made by the helper in one exchange: the worker sends its
 * commands (fsopen, each parameter, CMD_CREATE) without waiting, and reads
 * their answers when it has sent CMD_CREATE (or CALLER_SB_PIPELINE of them
 * wait).  The helper answers each with its result, the time its system call
 * took and the messages the context then holds, which are logged under the
 * command's step as mnt_fsconfig_param() would; after one fails it does
 * none of the rest.  The steps and their messages are logged as the answers
 * are read, each with the helper's time.
 */

/* Fork the helper as the caller whose filesystem identity the worker has
 * (executor-rights.h), in user namespace userns (borrowed; -EBADF: a new
 * one), logged as step "as-caller", and send it fsopen(fstype), step
 * "fsopen".  In the caller's own user namespace the helper is kept for the
 * worker's next superblock of the same caller (the same uid, gid and
 * groups), and forked again when the caller differs or the helper is
 * gone. */
int caller_sb_fsopen(const char *fstype, int userns, CallerSb *ret, MntLog *log);

/* The helper failed (it is gone, or out of step): a kept one is ended, and
 * the next request forks another; h's further calls fail. */
void caller_sb_fail(CallerSb *h);

/* Send a parameter for the helper to set: in its namespaces and with its
 * rights a path is looked up.  Negative: sending failed, or a command
 * before it did (its answer read to make room). */
int caller_sb_param(CallerSb *h, const MntParam *p, MntLog *log);

/* Send fd for the helper to hold and set as the string value of key, as
 * its own number for it (FUSE's fd=: the kernel looks the number up when
 * the superblock is made, in the process that makes it). */
int caller_sb_param_fd_number(CallerSb *h, char *key, int fd, MntLog *log);

/* Read the answers that wait: the first failure among them (or before), or
 * 0. */
int caller_sb_collect(CallerSb *h, MntLog *log);

/* Send FSCONFIG_CMD_CREATE(_EXCL) and read every answer: the context's fd
 * (the caller's to close), or the first failure. */
int caller_sb_create(CallerSb *h, unsigned cmd, MntLog *log);

/* FSCONFIG_CMD_RECONFIGURE of fs_fd's context (fspick()) by a process
 * with the caller's uid and gid: the kernel lets it through only where the
 * caller could reconfigure the superblock itself (CAP_SYS_ADMIN over its
 * user namespace: one the caller owns), not a superblock of root's that
 * merely appears in the caller's container.  Root's: directly. */
int caller_sb_reconfigure(int fs_fd, MntLog *log);

/* End the helper and reap it (a kept one stays, unless answers to h's
 * commands are left unread), and close the context. */
void caller_sb_done(CallerSb *h);
