/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The checks that let mountd's event loop answer a request itself (see
 * nonblocking.h).
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/magic.h>
#include <linux/mount.h>
#include <linux/openat2.h>

#include "mnt.h"
#include "nonblocking.h"
#include "util.h"

#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID 0x200
#endif
#ifndef AT_HANDLE_MNT_ID_UNIQUE
#define AT_HANDLE_MNT_ID_UNIQUE 0x001
#endif

static int send_fd(int sock, int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} control = {};
	char byte = 0;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = control.buf,
			    .msg_controllen = sizeof(control.buf)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

static int recv_fd(int sock)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} control = {};
	char byte;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = control.buf,
			    .msg_controllen = sizeof(control.buf)};
	struct cmsghdr *c;
	ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	int fd;

	if (n < 0)
		return -errno;
	c = CMSG_FIRSTHDR(&mh);
	if (n != 1 || !c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -EBADMSG;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

int nonblocking_namespace_root(int nsfs)
{
	_cleanup_close_ int a = -EBADF, b = -EBADF;
	int pair[2], fd, status;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
		return -errno;
	a = pair[0];
	b = pair[1];
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int root;

		/* setns() moves root and cwd to the namespace's root, as
		 * for a worker. */
		if (setns(nsfs, CLONE_NEWNS) < 0)
			_exit(1);
		root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		_exit(root < 0 || send_fd(b, root) < 0 ? 1 : 0);
	}
	b = safe_close(b);
	fd = recv_fd(a);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (fd >= 0)
			safe_close(fd);
		return fd < 0 ? fd : -EIO;
	}
	return fd;
}

/* At least one plain component, none "..": see nonblocking.h. */
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
		return errno == ELOOP ? -EAGAIN : -errno;
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
