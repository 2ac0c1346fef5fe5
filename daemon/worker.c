/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"
#include "worker.h"

void worker_reply_done(WorkerReply *r)
{
	close_many(r->fds, r->n_fds);
	r->n_fds = 0;
}

static int send_msg(int sock, const WorkerReply *reply)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * WORKER_FDS_MAX)];
	} control = {};
	struct iovec iov = {.iov_base = (void *)reply, .iov_len = sizeof(*reply)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (reply->n_fds > 0) {
		struct cmsghdr *c;

		mh.msg_control = &control;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * reply->n_fds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * reply->n_fds);
		memcpy(CMSG_DATA(c), reply->fds, sizeof(int) * reply->n_fds);
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL) < 0 ? negative_errno() : 0;
}

static int recv_msg(int sock, WorkerReply *ret)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * WORKER_FDS_MAX)];
	} control = {};
	WorkerReply reply = {};
	struct iovec iov = {.iov_base = &reply, .iov_len = sizeof(reply)};
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = &control,
		.msg_controllen = sizeof(control),
	};
	size_t n_fds = 0;
	ssize_t n;

	n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return negative_errno();
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			n_fds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			memcpy(ret->fds, CMSG_DATA(c), sizeof(int) * n_fds);
		}
	ret->n_fds = n_fds;
	/* A short or truncated message means the child died mid-send. */
	if (n != sizeof(reply) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    n_fds != reply.n_fds) {
		worker_reply_done(ret);
		return -EPROTO;
	}
	ret->error = reply.error;
	ret->value = reply.value;
	memcpy(ret->failed_step, reply.failed_step, sizeof(ret->failed_step));
	ret->failed_step[sizeof(ret->failed_step) - 1] = 0;
	ret->n_steps = MIN(reply.n_steps, (size_t)WORKER_STEPS_MAX);
	for (size_t i = 0; i < ret->n_steps; i++) {
		ret->steps[i] = reply.steps[i];
		ret->steps[i].name[sizeof(ret->steps[i].name) - 1] = 0;
	}
	return 0;
}

/* Close every fd but keep[] (sorted here): the child holds exactly the
 * request's fds, not the daemon's client connections or listening sockets. */
static int close_all_but(int *keep, size_t n)
{
	unsigned from = 3;

	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];
			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		if ((unsigned)keep[i] > from && close_range(from, (unsigned)keep[i] - 1, 0) < 0)
			return negative_errno();
		if ((unsigned)keep[i] + 1 > from)
			from = (unsigned)keep[i] + 1;
	}
	return close_range(from, ~0U, 0) < 0 ? negative_errno() : 0;
}

/* The child's work after it has the request: join, shed fds, run fn.
 * Returns fn's result, or a negative errno with the failing step in log. */
static int child_run(int sock, int ns_fd, WorkerFn fn, void *userdata, WorkerReply *in, MntLog *log,
		     WorkerReply *reply)
{
	int keep[WORKER_FDS_MAX + 2];
	_cleanup_close_ int root_fd = -EBADF;
	size_t n_keep;
	int r;

	if (ns_fd >= 0) {
		uint64_t start = mnt_step_start();

		r = setns(ns_fd, CLONE_NEWNS) < 0 ? negative_errno() : 0;
		if (mnt_log_result(log, "setns", start, r) < 0)
			return r;
	}
	memcpy(keep, in->fds, sizeof(int) * in->n_fds);
	n_keep = in->n_fds;
	keep[n_keep++] = sock;
	if (log->tracing)
		keep[n_keep++] = log->trace_fd;
	r = close_all_but(keep, n_keep);
	if (r < 0) {
		mnt_log_fail(log, "close_range");
		return r;
	}
	root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0) {
		mnt_log_fail(log, "open-root");
		return negative_errno();
	}
	r = fn(root_fd, in->fds, userdata, log, reply);
	if (r < 0)
		mnt_log_fail(log, "worker"); /* unless fn named its step */
	return r;
}

_Noreturn static void child(int sock, int ns_fd, WorkerFn fn, void *userdata, int trace_fd)
{
	WorkerReply reply = {}, in = {};
	/* The inherited trace fd: the child's steps are traced as they
	 * happen, like the parent's. */
	MntLog log = {.tracing = trace_fd >= 0, .trace_fd = trace_fd};
	int r;

	/* Die with the daemon rather than linger inside a namespace. */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	r = recv_msg(sock, &in);
	if (r < 0)
		_exit(1);
	r = child_run(sock, ns_fd, fn, userdata, &in, &log, &reply);
	reply.error = r < 0 ? r : 0;
	if (r < 0)
		reply.n_fds = 0;
	memcpy(reply.failed_step, log.failed_step, sizeof(reply.failed_step));
	reply.n_steps = MIN(log.n_steps, (size_t)WORKER_STEPS_MAX);
	memcpy(reply.steps, log.steps, sizeof(MntStep) * reply.n_steps);
	r = send_msg(sock, &reply);
	_exit(r < 0 ? 1 : 0);
}

/* The namespace an executor worker sits in, or -EBADF in mountd itself. */
static int home_fd = -EBADF;

int worker_set_home(int home_ns_fd)
{
	home_fd = home_ns_fd;
	return 0;
}

static bool same_namespace(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) >= 0 && fstat(b, &sb) >= 0 && sa.st_ino == sb.st_ino &&
	       sa.st_dev == sb.st_dev;
}

/* fn in this process, in ns_fd's namespace: a worker's own (the common
 * case: nothing to do) or another (setns() there and back).  The outcome
 * is put into ret as a forked child would send it, so that callers cannot
 * tell. */
static int run_here(int ns_fd, const int *fds, WorkerFn fn, void *userdata, const MntLog *log,
		    WorkerReply *ret)
{
	MntLog child = {.tracing = log && log->tracing, .trace_fd = log ? log->trace_fd : -EBADF};
	_cleanup_close_ int root_fd = -EBADF;
	bool away = ns_fd >= 0 && !same_namespace(ns_fd, home_fd);
	uint64_t start = mnt_step_start();
	int r;

	/* "setns" is the step of being in the namespace: 0 µs when the
	 * worker already is. */
	r = away && setns(ns_fd, CLONE_NEWNS) < 0 ? negative_errno() : 0;
	if (mnt_log_result(&child, "setns", start, r) >= 0) {
		root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root_fd < 0) {
			r = negative_errno();
			mnt_log_fail(&child, "open-root");
		} else {
			r = fn(root_fd, fds, userdata, &child, ret);
			if (r < 0 && !child.failed_step[0])
				mnt_log_fail(&child, "worker");
		}
	}
	/* A worker that cannot go home would serve the wrong namespace. */
	if (away && setns(home_fd, CLONE_NEWNS) < 0)
		_exit(1);
	ret->error = r < 0 ? r : 0;
	if (r < 0) {
		worker_reply_done(ret);
		ret->n_fds = 0;
	}
	memcpy(ret->failed_step, child.failed_step, sizeof(ret->failed_step));
	ret->n_steps = MIN(child.n_steps, (size_t)WORKER_STEPS_MAX);
	memcpy(ret->steps, child.steps, sizeof(MntStep) * ret->n_steps);
	/* The trace fd is the request's, not ours to close. */
	child.tracing = false;
	child.trace_fd = -EBADF;
	mnt_log_done(&child);
	return 0;
}

int worker_run(int ns_fd, const int *fds, size_t n_fds, WorkerFn fn, void *userdata,
	       const MntLog *log, WorkerReply *ret)
{
	_cleanup_close_ int parent_sock = -EBADF, child_sock = -EBADF;
	WorkerReply in = {.n_fds = n_fds};
	int pair[2], r, status;
	struct pollfd p;
	pid_t pid;

	*ret = (WorkerReply){};
	if (n_fds > WORKER_FDS_MAX)
		return -E2BIG;
	if (home_fd >= 0)
		return run_here(ns_fd, fds, fn, userdata, log, ret);
	memcpy(in.fds, fds, sizeof(int) * n_fds);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) {
		snprintf(ret->failed_step, sizeof(ret->failed_step), "socketpair");
		return negative_errno();
	}
	parent_sock = pair[0];
	child_sock = pair[1];

	pid = fork();
	if (pid < 0) {
		snprintf(ret->failed_step, sizeof(ret->failed_step), "fork");
		return negative_errno();
	}
	if (pid == 0) {
		parent_sock = safe_close(parent_sock);
		child(child_sock, ns_fd, fn, userdata,
		      log && log->tracing ? log->trace_fd : -EBADF);
	}
	child_sock = safe_close(child_sock);

	/* The request's fds go to the child over the socket like the results
	 * come back, so that it can drop everything it inherited. */
	r = send_msg(parent_sock, &in);
	if (r >= 0) {
		/* A mount syscall can block (a dead NFS server); bound the
		 * wait so the daemon stays responsive, and kill the child
		 * when it is exceeded. */
		p = (struct pollfd){.fd = parent_sock, .events = POLLIN};
		do
			r = poll(&p, 1, WORKER_TIMEOUT_MS);
		while (r < 0 && errno == EINTR);
		if (r == 0)
			r = -ETIMEDOUT;
		else if (r < 0)
			r = negative_errno();
		else
			r = recv_msg(parent_sock, ret);
	}
	if (r < 0)
		(void)kill(pid, SIGKILL);

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (r < 0)
		snprintf(ret->failed_step, sizeof(ret->failed_step), "worker");
	return r;
}
