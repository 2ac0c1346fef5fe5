/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The floor the request benchmarks (mount-bench, req-bench) measure mountd
 * against: a tmpfs made and attached with the new mount API, nothing else.
 */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscall-nr.h"
#include "util.h"

/* A 1 MiB tmpfs at path.  0, or -1 with errno set and what failed in
 * *ret_what. */
static inline int bench_tmpfs_at(const char *path, const char **ret_what)
{
	_cleanup_close_ int fs = syscall(__NR_fsopen, "tmpfs", FSOPEN_CLOEXEC), mnt = -EBADF;

	*ret_what = "fsopen/fsconfig";
	if (fs < 0 || syscall(__NR_fsconfig, fs, FSCONFIG_SET_STRING, "size", "1m", 0) < 0 ||
	    syscall(__NR_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return -1;
	*ret_what = "fsmount/move_mount";
	mnt = syscall(__NR_fsmount, fs, FSMOUNT_CLOEXEC, 0);
	if (mnt < 0 ||
	    syscall(__NR_move_mount, mnt, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return -1;
	return 0;
}
