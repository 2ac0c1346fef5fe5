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
	/* The loop has no CAP_KILL: a task of the group that runs as the
	 * caller dies by its PR_SET_PDEATHSIG with the worker
	 * (executor-caller-sb.c). */
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
