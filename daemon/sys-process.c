/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Processes and their mount namespaces (see sys-process.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys-process.h"
#include "util.h"

/* <linux/pidfd.h> clashes with glibc's <fcntl.h>; the ioctl is uapi (6.11). */
#ifndef PIDFD_GET_MNT_NAMESPACE
#define PIDFD_GET_MNT_NAMESPACE _IO(0xFF, 3)
#endif

int pidfd_get_pid(int pidfd, pid_t *ret)
{
	_cleanup_fclose_ FILE *f = NULL;
	char p[64], line[256];

	snprintf(p, sizeof(p), "/proc/self/fdinfo/%d", pidfd);
	f = fopen(p, "re");
	if (!f)
		return negative_errno();
	while (fgets(line, sizeof(line), f)) {
		int pid;

		if (sscanf(line, "Pid: %d", &pid) == 1) {
			if (pid <= 0)
				return -ESRCH; /* exited (-1) or in another pid ns (0) */
			*ret = pid;
			return 0;
		}
	}
	return -EBADF; /* not a pidfd */
}

int process_mntns(pid_t pid, int pidfd)
{
	char path[64];
	int fd, r;

	if (pidfd >= 0) {
		fd = ioctl(pidfd, PIDFD_GET_MNT_NAMESPACE, 0);
		if (fd >= 0)
			return fd;
		/* Anything but a kernel without the ioctl (before 6.11) is the
		 * answer: the process gone, or no fd left (EMFILE). */
		if (errno != ENOTTY && errno != EINVAL)
			return negative_errno();
		/* Through /proc, then make sure the pidfd's process is still
		 * the one behind that pid. */
		r = pidfd_get_pid(pidfd, &pid);
		if (r < 0)
			return r == -EBADF ? -ESRCH : r;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	r = pidfd >= 0 ? pidfd_get_pid(pidfd, &(pid_t){0}) : 0;
	if (r < 0) {
		safe_close(fd);
		return r == -EBADF ? -ESRCH : r;
	}
	return fd;
}

int process_in_mntns(dev_t dev, ino_t ino, pid_t skip_children_of)
{
	_cleanup_closedir_ DIR *d = opendir("/proc");
	struct dirent *de;

	if (!d)
		return negative_errno();
	while ((de = readdir(d))) {
		char p[sizeof(de->d_name) + 16];
		unsigned long long parent;
		struct stat st;
		int fd;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%s/ns/mnt", de->d_name);
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) >= 0 && st.st_dev == dev && st.st_ino == ino &&
		    (skip_children_of <= 0 ||
		     proc_stat_number((pid_t)strtol(de->d_name, NULL, 10), 4, &parent) < 0 ||
		     parent != (unsigned long long)skip_children_of))
			return fd;
		safe_close(fd);
	}
	return -ESRCH;
}
