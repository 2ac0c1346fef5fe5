/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A worker's tasks, counted until reaped (executor.h).  Each worker is a
 * process group of its own (pgid: its pid), and whatever it forks is in
 * it.  mountd is the subreaper of what a dead worker leaves, so once the
 * worker itself is reaped every task left of its group is mountd's child:
 * waitid(P_PGID) sees all of them, and no one else's.
 */

#include <stdbool.h>
#include <sys/types.h>

/* In mountd's main process, before the first worker is forked. */
int reap_setup(void);

/* SIGKILL to the worker (by pidfd) and to its group, while the worker is
 * not reaped: until then the worker holds the group's number. */
void reap_kill(int pidfd, pid_t pgid);

/* Of a reaped worker's group: reap the tasks that have exited; true when
 * none of ours is left. */
bool reap_group_gone(pid_t pgid);

/* Of a reaped worker's group: kill what is left, and wait until it is
 * reaped (for mountd's exit). */
void reap_group_wait(pid_t pgid);
