/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's locks on a tree mountd made, by copying it across a user
 * namespace boundary (sys-mnt-lock.h says why).  Both steps run in a
 * forked child: entering and leaving mount and user namespaces would
 * change the calling worker for good, and a new user namespace cannot be
 * left at all.
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/mount.h>

#include "sys-mnt-lock.h"
#include "scm-rights.h"
#include "syscall-nr.h"
#include "util.h"

#ifndef MNT_DETACH
#define MNT_DETACH 0x00000002
#endif

/* The two mount points of the small namespace's tmpfs: a tree is put on
 * the one whose kind (directory or not) its root has. */
#define LOCK_DIR_NAME  "d"
#define LOCK_FILE_NAME "f"
#define LOCK_DIR       "/" LOCK_DIR_NAME
#define LOCK_FILE      "/" LOCK_FILE_NAME

static int lock_ns = -EBADF;

int mnt_lock_ns_fd(void)
{
	return lock_ns;
}

void mnt_lock_set_ns_fd(int fd)
{
	lock_ns = fd;
}

/* The child's answer: 0 with an fd, or -errno without one. */
static void child_answer(int sock, int r, int fd)
{
	SCM_RIGHTS_BUFFER(1) control;
	struct iovec iov = {.iov_base = &r, .iov_len = sizeof(r)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (r >= 0)
		scm_rights_put(&mh, &control, &fd, 1);
	_exit(sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(r) ? 0 : 1);
}

/* Fork fn(sock, userdata) in a child that dies with us, and take its
 * answer: an fd, or a negative errno. */
static int run_child(void (*fn)(int sock, void *userdata), void *userdata)
{
	_cleanup_free_ int *fds = NULL;
	SCM_RIGHTS_BUFFER(1) control;
	int pair[2], answer = -EPROTO, r;
	struct iovec iov = {.iov_base = &answer, .iov_len = sizeof(answer)};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = &control,
			    .msg_controllen = sizeof(control)};
	size_t n_fds = 0;
	ssize_t n;
	pid_t pid, parent = getpid();

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
		return negative_errno();
	pid = fork();
	if (pid < 0) {
		r = negative_errno();
		close_many(pair, 2);
		return r;
	}
	if (pid == 0) {
		safe_close(pair[0]);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(1);
		fn(pair[1], userdata);
		_exit(1);
	}
	safe_close(pair[1]);
	do
		n = recvmsg(pair[0], &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	r = n < 0 ? negative_errno() : 0;
	if (r >= 0)
		r = scm_rights_take(&mh, &fds, &n_fds);
	safe_close(pair[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (r >= 0 && (mh.msg_flags & MSG_CTRUNC))
		r = -EBADMSG;
	/* Nothing, or a short message: the child died on the way. */
	if (r >= 0 && n != (ssize_t)sizeof(answer))
		r = -EPROTO;
	if (r >= 0 && answer >= 0 && n_fds != 1)
		r = -EPROTO;
	if (r >= 0 && answer < 0)
		r = answer;
	if (r < 0) {
		close_many(fds, n_fds);
		return r;
	}
	return fds[0];
}

static void setup_child(int sock, void *userdata)
{
	struct mount_attr private = {.propagation = MS_PRIVATE};
	_cleanup_close_ int ns = -EBADF, fs = -EBADF, mnt = -EBADF, file = -EBADF;

	if (unshare(CLONE_NEWNS) < 0)
		child_answer(sock, negative_errno(), -EBADF);
	ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		child_answer(sock, negative_errno(), -EBADF);
	/* Nothing done here may reach the namespace this is a copy of. */
	if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &private, sizeof(private)) < 0)
		child_answer(sock, negative_errno(), -EBADF);
	fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0 || syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0755", 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "size", "64k", 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		child_answer(sock, negative_errno(), -EBADF);
	mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
			   MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (mnt < 0 || mkdirat(mnt, LOCK_DIR_NAME, 0755) < 0)
		child_answer(sock, negative_errno(), -EBADF);
	file = openat(mnt, LOCK_FILE_NAME, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	if (file < 0)
		child_answer(sock, negative_errno(), -EBADF);
	/* The tmpfs becomes the namespace's only mount: a copy of it costs
	 * one mount, whatever the host has. */
	if (syscall(SYS_move_mount, mnt, "", AT_FDCWD, "/", MOVE_MOUNT_F_EMPTY_PATH) < 0 ||
	    fchdir(mnt) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
	    syscall(SYS_umount2, ".", MNT_DETACH) < 0 || chdir("/") < 0)
		child_answer(sock, negative_errno(), -EBADF);
	child_answer(sock, 0, ns);
}

int mnt_lock_setup(void)
{
	int fd = run_child(setup_child, NULL);

	if (fd < 0)
		return fd;
	safe_close(lock_ns);
	lock_ns = fd;
	return 0;
}

static void lock_child(int sock, void *userdata)
{
	int mount_fd = *(const int *)userdata, fd, r;
	const char *mount_point = LOCK_DIR;

	/* A private copy of the small namespace, the tree attached in it
	 * (onto the directory, or the file for a tree whose root is none:
	 * asking the tree's filesystem which it is would be refused by a
	 * FUSE mount not made for root, and a failed move leaves nothing)... */
	if (setns(lock_ns, CLONE_NEWNS) < 0 || unshare(CLONE_NEWNS) < 0)
		child_answer(sock, negative_errno(), -EBADF);
	if (syscall(SYS_move_mount, mount_fd, "", AT_FDCWD, LOCK_DIR, MOVE_MOUNT_F_EMPTY_PATH) <
	    0) {
		r = negative_errno();
		if (r != -EINVAL || syscall(SYS_move_mount, mount_fd, "", AT_FDCWD, LOCK_FILE,
					    MOVE_MOUNT_F_EMPTY_PATH) < 0)
			child_answer(sock, r, -EBADF);
		mount_point = LOCK_FILE;
	}
	/* ...copied by the kernel into a namespace of a new user namespace:
	 * copy_mnt_ns() locks every mount of the copy... */
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		child_answer(sock, negative_errno(), -EBADF);
	/* ...and a clone keeps those locks. */
	fd = (int)syscall(SYS_open_tree, AT_FDCWD, mount_point,
			  OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	child_answer(sock, fd < 0 ? negative_errno() : 0, fd);
}

int mnt_lock_tree(int mount_fd, MntLog *log)
{
	_cleanup_close_ int fd = mount_fd;
	uint64_t start = mnt_step_start();

	if (lock_ns < 0)
		/* No namespace to copy through: nothing leaves unlocked. */
		return mnt_log_result(log, "lock", start, -EOPNOTSUPP);
	return mnt_log_result(log, "lock", start, run_child(lock_child, &fd));
}
