/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Processes and their mount namespaces, through pidfds and /proc: what the
 * request path pins (a pid or pidfd's namespace), what an operation on a
 * namespace goes through (a process still in it), and what a pidfd names.
 */

#include <sys/types.h>

/* The pid a pidfd's process has in mountd's pid namespace; -ESRCH once it
 * has exited, -EBADF for an fd that is no pidfd. */
int pidfd_get_pid(int pidfd, pid_t *ret);
/* The mount namespace of a process (by pidfd when >= 0, else by pid) as an
 * nsfs fd; -ESRCH when the pidfd's process is gone. */
int process_mntns(pid_t pid, int pidfd);
/* An nsfs fd of the mount namespace with that device and inode, through any
 * process still in it but the children of skip_children_of (> 0: mountd's
 * workers); -ESRCH when none is (gone, or held only by fds). */
int process_in_mntns(dev_t dev, ino_t ino, pid_t skip_children_of);
