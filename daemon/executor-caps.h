/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Least privilege, per process.  mountd's main process decodes, pins,
 * authorizes and answers; it needs CAP_SYS_PTRACE (another user's
 * /proc/PID/ns/mnt and mountinfo) and CAP_SYS_ADMIN (listmount() and
 * statmount() of other namespaces) and nothing else in its effective set.
 * It keeps the rest permitted only for the workers it forks.  A worker
 * needs CAP_SYS_ADMIN (the mount calls), CAP_SYS_CHROOT (setns()),
 * CAP_SETUID/CAP_SETGID (the caller's fsuid, executor-rights.c) and
 * CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH (root's requests and mountd's own
 * steps), and drops everything else, permitted included.
 */

/* All three: 0, or a negative errno when the set cannot be had (then the
 * process should not go on).
 * caps_bound(): the outer limit, at start: every capability neither the
 * loop nor a worker uses leaves the bounding, permitted, effective,
 * inheritable and ambient sets, whatever mountd was started with (a
 * privileged container has them all). */
int caps_bound(void);
int caps_daemon(void);
int caps_worker(void);
