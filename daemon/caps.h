/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Least privilege, per process.  mountd's main process decodes, pins,
 * authorizes and answers; it needs CAP_SYS_PTRACE (another user's
 * /proc/PID/ns/mnt and mountinfo) and CAP_SYS_ADMIN (listmount() and
 * statmount() of other namespaces) and nothing else in its effective set.
 * It keeps the rest permitted only for the workers it forks.  A worker
 * needs CAP_SYS_ADMIN (the mount calls), CAP_SYS_CHROOT (setns()),
 * CAP_SETUID/CAP_SETGID (the caller's fsuid, rights.c) and
 * CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH (root's requests and mountd's own
 * steps), and drops everything else, permitted included.
 */

/* Both: 0, or a negative errno when the set cannot be had (then the
 * process should not go on). */
int caps_daemon(void);
int caps_worker(void);
