/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A worker's tasks, counted until reaped (see executor-reap.h). */

#include <errno.h>
#include <signal.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "executor-reap.h"
#include "util.h"

int reap_setup(void)
{
	/* What a worker leaves when it dies (a helper in D state, its lookup
	 * held up by the caller's own FUSE server) is ours to reap, and
	 * counted until then, not pid 1's and forgotten. */
	return prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 ? negative_errno() : 0;
}

void reap_kill(int pidfd, pid_t pgid)
{
	/* This reaches the worker's own tasks.  One that runs as the caller
	 * (a helper, executor-caller-sb.c) is not ours to signal: mountd
	 * holds no CAP_KILL, and without it the kernel does not deliver a
	 * parent-death signal across uids either.  It ends when its system
	 * call returns and it finds the worker's socket closed; a signal
	 * would not end a FUSE request its server has read anyway.  It
	 * counts until it is reaped all the same. */
	(void)pidfd_send_signal(pidfd, SIGKILL, NULL, 0);
	(void)kill(-pgid, SIGKILL);
}

bool reap_group_gone(pid_t pgid)
{
	for (;;) {
		siginfo_t si = {};

		if (waitid(P_PGID, (id_t)pgid, &si, WEXITED | WNOHANG) < 0) {
			if (errno == EINTR)
				continue;
			return errno == ECHILD;
		}
		if (si.si_pid == 0)
			return false;
	}
}

void reap_group_wait(pid_t pgid)
{
	siginfo_t si;

	if (reap_group_gone(pgid))
		return;
	/* Tasks of ours are in it: the number is the group's. */
	(void)kill(-pgid, SIGKILL);
	while (waitid(P_PGID, (id_t)pgid, &si, WEXITED) == 0 || errno == EINTR)
		;
}
