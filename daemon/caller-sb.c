/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Superblocks made by the caller (see caller-sb.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/mount.h>

#include "caller-sb.h"
#include "rights.h"
#include "util.h"
#include "worker.h"

/* The filesystems whose superblocks are the caller's: overlay keeps its
 * creator's credentials; a tmpfs's user namespace decides who may change it
 * (caller_sb_reconfigure()).  FUSE keeps its user_id too, but takes it from
 * a parameter and needs /dev/fuse opened in the context's user namespace:
 * it is not made this way yet. */
static const char *const remember_creator[] = {"overlay", "tmpfs", NULL};

bool caller_sb_needed(const char *fstype)
{
	for (const char *const *f = remember_creator; *f; f++)
		if (streq(fstype, *f))
			return true;
	return false;
}

/* The helper's answers: a result, and with the first the context's fd. */
static int send_result(int sock, int r, int fd)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} control = {};
	struct iovec iov = {.iov_base = &r, .iov_len = sizeof(r)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (fd >= 0) {
		mh.msg_control = &control;
		mh.msg_controllen = sizeof(control);
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == sizeof(r) ? 0 : -EIO;
}

static int recv_result(int sock, int *ret_fd)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} control;
	int r = -EIO;
	struct iovec iov = {.iov_base = &r, .iov_len = sizeof(r)};
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = &control,
		.msg_controllen = sizeof(control),
	};
	ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	int fd = -EBADF;

	if (n < 0)
		return negative_errno();
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (n != sizeof(r) || r > 1) {
		safe_close(fd);
		return -EIO;
	}
	if (ret_fd)
		*ret_fd = fd;
	else
		safe_close(fd);
	return r;
}

/* In the helper: the caller's user namespace (the target's, which the
 * caller owns), as the caller. */
static int become_caller(uid_t uid, gid_t gid, int userns_fd)
{
	if (setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
		return negative_errno();
	if (setns(userns_fd, CLONE_NEWUSER) < 0)
		return negative_errno();
	return 0;
}

static _Noreturn void helper(int sock, const char *fstype, uid_t uid, gid_t gid, int userns_fd)
{
	int r, fs_fd = -EBADF;
	char cmd;

	/* Nothing of the worker's goes along (its socket to mountd, the
	 * request's fds): its socket to us at 3, the user namespace at 4.
	 * Both go above 4 first, so that neither dup2() clobbers the other. */
	sock = fcntl(sock, F_DUPFD, 5);
	if (userns_fd >= 0)
		userns_fd = fcntl(userns_fd, F_DUPFD, 5);
	if (sock < 0 || userns_fd == -1 || dup2(sock, 3) < 0 ||
	    (userns_fd >= 0 && dup2(userns_fd, 4) < 0) || close_range(5, ~0U, 0) < 0)
		_exit(1);
	sock = 3;
	userns_fd = userns_fd >= 0 ? 4 : -EBADF;
	r = become_caller(uid, gid, userns_fd);
	safe_close(userns_fd);
	/* Changing ids clears it; the socket's EOF ends the helper too. */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* First where it stands: in the namespace (0), or failed. */
	if (send_result(sock, r, -EBADF) < 0 || r < 0)
		_exit(1);
	fs_fd = (int)syscall(SYS_fsopen, fstype, FSOPEN_CLOEXEC);
	r = fs_fd < 0 ? negative_errno() : 0;
	if (send_result(sock, r, fs_fd) < 0 || r < 0)
		_exit(1);
	if (read(sock, &cmd, 1) != 1)
		_exit(0);
	r = syscall(SYS_fsconfig, fs_fd,
		    cmd == 'x' ? FSCONFIG_CMD_CREATE_EXCL : FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0
		    ? negative_errno()
		    : 0;
	(void)send_result(sock, r, -EBADF);
	_exit(0);
}

int caller_sb_fsopen(const char *fstype, int userns, CallerSb *ret, int *ret_fs_fd, MntLog *log)
{
	_cleanup_(caller_sb_done) CallerSb h = CALLER_SB_NULL;
	uint64_t start = mnt_step_start();
	int sv[2], r, fd = -EBADF;
	uid_t uid;
	gid_t gid;

	if (!rights_caller(&uid, &gid))
		return mnt_log_result(log, "as-caller", start, -EPERM);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return mnt_log_result(log, "as-caller", start, negative_errno());
	h.pid = fork();
	if (h.pid == 0) {
		safe_close(sv[0]);
		helper(sv[1], fstype, uid, gid, userns);
	}
	safe_close(sv[1]);
	h.sock = sv[0];
	if (h.pid < 0) {
		h.pid = 0;
		return mnt_log_result(log, "as-caller", start, negative_errno());
	}
	r = recv_result(h.sock, NULL);
	if (mnt_log_result(log, "as-caller", start, r) < 0)
		return r;
	start = mnt_step_start();
	r = recv_result(h.sock, &fd);
	if (mnt_log_result(log, "fsopen", start, r) < 0)
		return r;
	*ret_fs_fd = fd;
	*ret = h;
	h = CALLER_SB_NULL;
	return 0;
}

int caller_sb_create(CallerSb *h, int fs_fd, unsigned cmd, MntLog *log)
{
	const char *step = cmd == FSCONFIG_CMD_CREATE_EXCL ? "fsconfig:CMD_CREATE_EXCL"
							   : "fsconfig:CMD_CREATE";
	uint64_t start = mnt_step_start();
	char c = cmd == FSCONFIG_CMD_CREATE_EXCL ? 'x' : 'c';
	int r;

	r = write(h->sock, &c, 1) == 1 ? recv_result(h->sock, NULL) : -EIO;
	(void)mnt_log_drain(log, fs_fd, step);
	return mnt_log_result(log, step, start, r);
}

int caller_sb_reconfigure(int fs_fd, MntLog *log)
{
	const char *step = "fsconfig:CMD_RECONFIGURE";
	uint64_t start = mnt_step_start();
	int status, r;
	uid_t uid;
	gid_t gid;
	pid_t pid;

	if (!rights_caller(&uid, &gid))
		return mnt_fsconfig_cmd(fs_fd, FSCONFIG_CMD_RECONFIGURE, log);
	pid = fork();
	if (pid == 0) {
		/* The context's fd alone goes along, at 3. */
		int fd = fcntl(fs_fd, F_DUPFD, 4);

		if (fd < 0 || dup2(fd, 3) < 0 || close_range(4, ~0U, 0) < 0)
			_exit(EBADF);
		fs_fd = 3;
		if (setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
			_exit(EPERM);
		_exit(syscall(SYS_fsconfig, fs_fd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0) < 0
			      ? errno
			      : 0);
	}
	if (pid < 0)
		r = negative_errno();
	else if (waitpid(pid, &status, 0) != pid)
		r = negative_errno();
	else
		r = WIFEXITED(status) ? -WEXITSTATUS(status) : -EIO;
	(void)mnt_log_drain(log, fs_fd, step);
	return mnt_log_result(log, step, start, r);
}

void caller_sb_done(CallerSb *h)
{
	h->sock = safe_close(h->sock);
	if (h->pid > 0) {
		(void)kill(h->pid, SIGKILL);
		(void)waitpid(h->pid, NULL, 0);
	}
	h->pid = 0;
}
