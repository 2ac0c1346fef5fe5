/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The checks that let mountd's event loop answer a request itself (see
 * executor-nonblocking.h).
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/magic.h>
#include <linux/mount.h>
#include <linux/openat2.h>

#include "sys-mnt.h"
#include "executor-nonblocking.h"
#include "util.h"

#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID 0x200
#endif
#ifndef AT_HANDLE_MNT_ID_UNIQUE
#define AT_HANDLE_MNT_ID_UNIQUE 0x001
#endif

int nonblocking_namespace_root(int nsfs)
{
	_cleanup_close_ int ready = -EBADF;
	int p[2], fd = -EIO;
	char path[64], c;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return negative_errno();
	ready = p[0];
	pid = fork();
	if (pid < 0) {
		safe_close(p[1]);
		return negative_errno();
	}
	if (pid == 0) {
		/* setns() moves root and cwd to the namespace's root, as for a
		 * worker; the parent takes it from /proc/PID/root. */
		if (setns(nsfs, CLONE_NEWNS) < 0 || write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	safe_close(p[1]);
	/* EOF when the child could not join. */
	if (read(ready, &c, 1) == 1) {
		snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
		fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			fd = negative_errno();
	}
	(void)kill(pid, SIGKILL);
	(void)waitpid(pid, NULL, 0);
	return fd;
}

/* At least one plain component, none "..": see executor-nonblocking.h. */
static bool path_descends(const char *path)
{
	bool plain = false;

	for (const char *p = path; *p;) {
		size_t n;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return false;
		if (n > 0 && !(n == 1 && p[0] == '.'))
			plain = true;
		p += n;
	}
	return plain;
}

int nonblocking_resolve(int root_fd, const char *path)
{
	/* No symlinks: a symlink's body may end in ".." or "/". */
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_CACHED,
	};
	long fd;

	if (!path || !path_descends(path))
		return -EAGAIN;
	fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
	if (fd < 0)
		return errno == ELOOP ? -EAGAIN : negative_errno();
	return (int)fd;
}

/*
 * statfs() and fsinfo() of these read counters and fields in memory and
 * take spinlocks at most.  Left out on purpose: FUSE, NFS, CIFS, 9p, ceph
 * (a server), overlayfs (asks its upper layer), efivarfs (firmware), and
 * every filesystem on a block device: ext4's and xfs's statfs() read
 * project quota from disk, vfat's may count free clusters, and the device
 * may be a loop device over a file on FUSE.
 */
static const uint64_t memory_filesystems[] = {
	TMPFS_MAGIC,	     RAMFS_MAGIC,	 PROC_SUPER_MAGIC,   SYSFS_MAGIC,
	CGROUP2_SUPER_MAGIC, CGROUP_SUPER_MAGIC, DEVPTS_SUPER_MAGIC, 0x19800202 /* mqueue */,
	BPF_FS_MAGIC,	     TRACEFS_MAGIC,	 DEBUGFS_MAGIC,	     SECURITYFS_MAGIC,
	HUGETLBFS_MAGIC,
};

/* The unique mount ID of fd without asking its filesystem (statx() would
 * call its getattr): with no room for the handle itself name_to_handle_at()
 * fails with EOVERFLOW after filling in the mount ID, and a FID handle is
 * the VFS's alone. */
static int mount_id(int fd, uint64_t *ret)
{
	struct file_handle fh = {.handle_bytes = 0};
	uint64_t id = 0;

	if (syscall(SYS_name_to_handle_at, fd, "", &fh, &id,
		    AT_EMPTY_PATH | AT_HANDLE_FID | AT_HANDLE_MNT_ID_UNIQUE) < 0 &&
	    errno != EOVERFLOW)
		return -EAGAIN;
	if (id == 0)
		return -EAGAIN;
	*ret = id;
	return 0;
}

int nonblocking_filesystem(int fd, uint64_t mnt_ns_id)
{
	struct statmount sm = {};
	uint64_t mnt_id;
	int k;

	if (mount_id(fd, &mnt_id) < 0)
		return -EAGAIN;
	k = mnt_statmount_fixed(mnt_ns_id, mnt_id, STATMOUNT_SB_BASIC, &sm);
	if (k < 0 || !(sm.mask & STATMOUNT_SB_BASIC))
		return -EAGAIN;
	for (size_t i = 0; i < ELEMENTSOF(memory_filesystems); i++)
		if (sm.sb_magic == memory_filesystems[i])
			return 0;
	return -EAGAIN;
}

static int parent_of(uint64_t mnt_ns_id, uint64_t mnt_id, uint64_t *ret)
{
	struct statmount sm = {};
	int k = mnt_statmount_fixed(mnt_ns_id, mnt_id, STATMOUNT_MNT_BASIC, &sm);

	if (k < 0)
		return k;
	if (!(sm.mask & STATMOUNT_MNT_BASIC))
		return -EOPNOTSUPP;
	*ret = sm.mnt_parent_id;
	return 0;
}

int nonblocking_root_take(NonblockingRoot *r, int fd, uint64_t mnt_ns_id)
{
	int k;

	nonblocking_root_done(r);
	k = mount_id(fd, &r->mnt_id);
	if (k >= 0)
		k = parent_of(mnt_ns_id, r->mnt_id, &r->parent_id);
	if (k < 0) {
		safe_close(fd);
		*r = NONBLOCKING_ROOT_NULL;
		return k;
	}
	r->fd = fd;
	return 0;
}

int nonblocking_root_get(NonblockingRoot *r, uint64_t mnt_ns_id)
{
	uint64_t parent;

	if (r->fd < 0)
		return -EBADF;
	if (parent_of(mnt_ns_id, r->mnt_id, &parent) < 0 || parent != r->parent_id) {
		nonblocking_root_done(r);
		return -EBADF;
	}
	return r->fd;
}

void nonblocking_root_done(NonblockingRoot *r)
{
	safe_close(r->fd);
	*r = NONBLOCKING_ROOT_NULL;
}
