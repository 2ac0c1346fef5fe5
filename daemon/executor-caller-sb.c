/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Superblocks made by the caller (see executor-caller-sb.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/mount.h>

#include "executor-caller-sb.h"
#include "executor-rights.h"
#include "scm-rights.h"
#include "util.h"
#include "executor-worker.h"

/* One message of iov's bytes, with fd beside it unless it is negative:
 * what was sent, or -errno. */
static ssize_t send_with_fd(int sock, struct iovec *iov, size_t n_iov, int fd)
{
	SCM_RIGHTS_BUFFER(1) control;
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = n_iov};
	ssize_t n;

	if (fd >= 0)
		scm_rights_put(&mh, &control, &fd, 1);
	n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	return n < 0 ? negative_errno() : n;
}

/* The helper's answers: a result, and with the first the context's fd. */
static int send_result(int sock, int r, int fd)
{
	struct iovec iov = {.iov_base = &r, .iov_len = sizeof(r)};

	return send_with_fd(sock, &iov, 1, fd) == sizeof(r) ? 0 : -EIO;
}

/* One message into buf, and the fd that came with it (-EBADF if none);
 * -EBADMSG for more than one. */
static ssize_t recv_with_fd(int sock, void *buf, size_t size, int *ret_fd)
{
	SCM_RIGHTS_BUFFER(1) control;
	_cleanup_free_ int *fds = NULL;
	size_t n_fds = 0;
	struct iovec iov = {.iov_base = buf, .iov_len = size};
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = &control,
		.msg_controllen = sizeof(control),
	};
	ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	int r;

	if (n < 0)
		return negative_errno();
	r = scm_rights_take(&mh, &fds, &n_fds);
	if (r >= 0 && (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		r = -EMSGSIZE;
	if (r >= 0 && n_fds > 1)
		r = -EBADMSG;
	if (r < 0) {
		close_many(fds, n_fds);
		return r;
	}
	*ret_fd = n_fds == 1 ? fds[0] : -EBADF;
	return n;
}

static int recv_result(int sock, int *ret_fd)
{
	int r = -EIO, fd = -EBADF;
	ssize_t n = recv_with_fd(sock, &r, sizeof(r), &fd);

	if (n < 0)
		return (int)n;
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

/* In the helper: the caller's user namespace, as the caller.  userns_fd
 * is the target namespace's owner when the caller owns it (its rootless
 * container), else -EBADF: then a new user namespace of the caller's, and
 * a mount namespace of that one's, a copy of the target's.  There fsopen()
 * is allowed, and overlay's layers, looked up there, are in a mount
 * namespace the creator has CAP_SYS_ADMIN over, as clone_private_mount()
 * wants.  Returns 1 then: the worker writes its maps. */
static int become_caller(uid_t uid, gid_t gid, int userns_fd)
{
	if (setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
		return negative_errno();
	if (userns_fd >= 0)
		return setns(userns_fd, CLONE_NEWUSER) < 0 ? negative_errno() : 0;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return negative_errno();
	return 1;
}

/* A parameter for the helper to set: fsconfig()'s command and aux, then
 * the key and value (NULs included) in the same message, and an fd beside
 * it that is aux when aux_is_fd.  Overlay's and tmpfs's values are short;
 * a longer one is refused rather than split. */
typedef struct ParamMsg {
	char op; /* 'p' */
	bool aux_is_fd;
	/* The fd beside it is the value, as its number in the helper (FUSE's
	 * fd=, which the kernel looks up at CMD_CREATE in the process that
	 * runs it): kept open until then. */
	bool fd_as_number;
	int cmd;
	int aux;
	uint32_t key_size;
	uint32_t value_size; /* 0: no value (NULL) */
} ParamMsg;

#define PARAM_VALUE_MAX 4096U
#define PARAM_MSG_MAX	(sizeof(ParamMsg) + MNT_KEY_MAX + 1 + PARAM_VALUE_MAX)

/* In the helper: set one parameter as the message says.  An fd given as
 * its number moves to *held (the one before closed). */
static int helper_param(int fs_fd, const char *buf, size_t n, int *fd, int *held)
{
	const char *key, *value;
	char number[16];
	ParamMsg m;
	int r;

	if (n < sizeof(m))
		return -EBADMSG;
	memcpy(&m, buf, sizeof(m));
	key = buf + sizeof(m);
	value = m.value_size ? key + m.key_size : NULL;
	if (m.key_size == 0 || m.key_size > MNT_KEY_MAX + 1 || m.value_size > PARAM_VALUE_MAX ||
	    n != sizeof(m) + m.key_size + m.value_size || key[m.key_size - 1] != 0 ||
	    (m.aux_is_fd || m.fd_as_number) != (*fd >= 0) || (m.aux_is_fd && m.fd_as_number) ||
	    (m.fd_as_number && (m.value_size || m.cmd != FSCONFIG_SET_STRING)))
		return -EBADMSG;
	if (m.fd_as_number) {
		snprintf(number, sizeof(number), "%d", *fd);
		r = syscall(SYS_fsconfig, fs_fd, m.cmd, key, number, 0) < 0 ? negative_errno() : 0;
		safe_close(*held);
		*held = *fd;
		*fd = -EBADF;
		return r;
	}
	return syscall(SYS_fsconfig, fs_fd, m.cmd, key, value, m.aux_is_fd ? *fd : m.aux) < 0
		       ? negative_errno()
		       : 0;
}

/* The helper's answer to a command: its result, how long the system call
 * took, and the messages the context holds after it, each NUL-terminated
 * as read: the worker logs them under the command's step. */
typedef struct HelperReply {
	int32_t r;
	uint32_t usec;
} HelperReply;

/* The kernel keeps at most 8 messages in a context, and the helper reads
 * them after every command. */
#define REPLY_MESSAGES 8
#define REPLY_MAX      (sizeof(HelperReply) + REPLY_MESSAGES * MNT_MESSAGE_MAX)

/* In the helper: answer r of a command that began at start, with fs_fd's
 * messages (if any) and fd beside it (if not negative). */
static int send_reply(int sock, int r, uint64_t start, int fs_fd, int fd)
{
	static char buf[REPLY_MAX];
	HelperReply h = {.r = r, .usec = (uint32_t)MIN(mnt_step_start() - start, UINT32_MAX)};
	size_t len = sizeof(h);
	struct iovec iov;

	memcpy(buf, &h, sizeof(h));
	for (unsigned i = 0; fs_fd >= 0 && i < REPLY_MESSAGES; i++) {
		ssize_t n = read(fs_fd, buf + len, MNT_MESSAGE_MAX - 1);

		if (n <= 0)
			break; /* ENODATA: no more */
		buf[len + n] = 0;
		len += strlen(buf + len) + 1;
	}
	iov = (struct iovec){.iov_base = buf, .iov_len = len};
	return send_with_fd(sock, &iov, 1, fd) == (ssize_t)len ? 0 : -EIO;
}

/* In the helper: the worker's commands until EOF, each answered in order
 * (send_reply()): 'o' and a filesystem type opens a new context (its fd
 * goes back with the answer; the one before is closed), 'p' sets a
 * parameter on it, 'c' or 'x' creates its superblock.  The worker sends a
 * context's commands without waiting for each answer, so after one fails
 * the rest of that context's are not done: -ECANCELED, until the next
 * 'o'. */
static int helper_serve(int sock)
{
	_cleanup_close_ int fs_fd = -EBADF, held = -EBADF;
	char buf[PARAM_MSG_MAX + 1]; /* a NUL after an 'o' */
	bool failed = false;
	int r;

	for (;;) {
		_cleanup_close_ int fd = -EBADF;
		ssize_t n = recv_with_fd(sock, buf, sizeof(buf) - 1, &fd);
		uint64_t start = mnt_step_start();

		if (n <= 0)
			return 0;
		if (buf[0] == 'o') {
			buf[n] = 0;
			fs_fd = safe_close(fs_fd);
			held = safe_close(held);
			if (n < 2 || strlen(buf + 1) != (size_t)n - 1)
				return -EBADMSG;
			fs_fd = (int)syscall(SYS_fsopen, buf + 1, FSOPEN_CLOEXEC);
			r = fs_fd < 0 ? negative_errno() : 0;
			failed = r < 0;
			if (send_reply(sock, r, start, -EBADF, fs_fd) < 0)
				return -EIO;
			continue;
		}
		if (!strchr("pcx", buf[0]))
			return -EBADMSG;
		if (failed)
			r = -ECANCELED;
		else if (fs_fd < 0)
			r = -EBADF;
		else if (buf[0] == 'p')
			r = helper_param(fs_fd, buf, (size_t)n, &fd, &held);
		else
			r = syscall(SYS_fsconfig, fs_fd,
				    buf[0] == 'x' ? FSCONFIG_CMD_CREATE_EXCL : FSCONFIG_CMD_CREATE,
				    NULL, NULL, 0) < 0
				    ? negative_errno()
				    : 0;
		failed = failed || r < 0;
		if (send_reply(sock, r, start, failed && r == -ECANCELED ? -EBADF : fs_fd, -EBADF) <
		    0)
			return -EIO;
		if (buf[0] != 'p') {
			fs_fd = safe_close(fs_fd);
			held = safe_close(held);
		}
	}
}

static _Noreturn void helper(int sock, uid_t uid, gid_t gid, int userns_fd)
{
	char cmd;
	int r;

	/* Nothing of the worker's goes along (its socket to mountd, the
	 * request's fds): its socket to us at 3, the user namespace at 4.
	 * Both go above 4 first, so that neither dup2() clobbers the other. */
	sock = fcntl(sock, F_DUPFD, 5);
	if (sock < 0 || (userns_fd >= 0 && (userns_fd = fcntl(userns_fd, F_DUPFD, 5)) < 0))
		_exit(1);
	if (dup2(sock, 3) < 0 || (userns_fd >= 0 && dup2(userns_fd, 4) < 0) ||
	    close_range(5, ~0U, 0) < 0)
		_exit(1);
	sock = 3;
	userns_fd = userns_fd >= 0 ? 4 : -EBADF;
	/* A relative path a filesystem looks up starts at the namespace's
	 * root, whatever directory the worker was in when it forked us. */
	if (chdir("/") < 0)
		_exit(1);
	/* What ps shows for the caller's process beside its worker. */
	(void)prctl(PR_SET_NAME, "mountd-caller");
	r = become_caller(uid, gid, userns_fd);
	safe_close(userns_fd);
	/* Changing ids clears it; the socket's EOF ends the helper too. */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* First where it stands: in the caller's namespace (0), in a new one
	 * whose maps it waits for ("g", or EOF), or failed. */
	if (send_result(sock, r, -EBADF) < 0 || r < 0)
		_exit(1);
	if (r == 1 && read(sock, &cmd, 1) != 1)
		_exit(1);
	_exit(helper_serve(sock) < 0 ? 1 : 0);
}

/* "ID ID 1" into the helper's new user namespace: the caller's id and no
 * other, as itself.  mountd writes it: the helper, having changed its ids,
 * is not dumpable, so its /proc files are root's. */
static int write_map(pid_t pid, const char *file, unsigned id)
{
	_cleanup_close_ int fd = -EBADF;
	char path[64], line[64];
	ssize_t n;
	int len;

	snprintf(path, sizeof(path), "%d/%s", (int)pid, file);
	fd = worker_host_openat(WORKER_HOST_PROC, path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return fd;
	len = snprintf(line, sizeof(line), "%u %u 1\n", id, id);
	n = write(fd, line, (size_t)len);
	if (n < 0)
		return negative_errno();
	return n == len ? 0 : -EIO;
}

static int map_caller(const CallerSb *h, uid_t uid, gid_t gid)
{
	RightsSaved saved = rights_suspend();
	int r;

	r = write_map(h->pid, "uid_map", uid);
	if (r >= 0)
		r = write_map(h->pid, "gid_map", gid);
	rights_resume(&saved);
	if (r >= 0 && write(h->sock, "g", 1) != 1)
		r = -EIO;
	return r;
}

/* The helper of the caller of the last request, kept where it joined the
 * caller's own user namespace: forking one for each superblock was most of
 * a non-root caller's Create (bench/README.md, "user").  One that made a
 * user namespace of its own is not kept: its mount namespace is a copy of
 * the target's as it was.  Its groups are the worker's when it forked. */
static struct {
	CallerSb h;
	uid_t uid;
	gid_t gid;
	struct stat userns, mntns; /* the helper's user namespace, its mount namespace */
	gid_t *groups;
	int n_groups;
} kept = {.h = CALLER_SB_NULL};

static void kept_drop(void)
{
	kept.h.kept = false;
	caller_sb_done(&kept.h);
	kept.groups = mfree(kept.groups);
	kept.n_groups = 0;
}

/* The worker's groups into *ret (to be freed), their count returned. */
static int own_groups(gid_t **ret)
{
	int n = getgroups(0, NULL);
	gid_t *g;

	if (n < 0)
		return negative_errno();
	g = calloc(n ?: 1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	n = getgroups(n, g);
	if (n < 0) {
		free(g);
		return negative_errno();
	}
	*ret = g;
	return n;
}

/* The mount namespace the worker is in now (it may visit another). */
static int mntns_stat(struct stat *ret)
{
	_cleanup_close_ int fd =
		worker_host_openat(WORKER_HOST_PROC, "thread-self/ns/mnt", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return fd;
	return fstat(fd, ret) < 0 ? negative_errno() : 0;
}

/* Whether the kept helper is this caller's, in these namespaces, and
 * alive (the caller may have killed it: it is the caller's uid). */
static bool kept_fits(uid_t uid, gid_t gid, const struct stat *userns, const struct stat *mntns,
		      const gid_t *groups, int n_groups)
{
	if (kept.h.pid <= 0)
		return false;
	if (kept.uid != uid || kept.gid != gid || !stat_inode_same(&kept.userns, userns) ||
	    !stat_inode_same(&kept.mntns, mntns) || kept.n_groups != n_groups ||
	    memcmp(kept.groups, groups, n_groups * sizeof(*groups)) != 0 ||
	    waitpid(kept.h.pid, NULL, WNOHANG) != 0) {
		kept_drop();
		return false;
	}
	return true;
}

/* A new helper in userns (or a new user namespace), as the caller. */
static int helper_start(uid_t uid, gid_t gid, int userns, CallerSb *ret)
{
	_cleanup_(caller_sb_done) CallerSb h = CALLER_SB_NULL;
	int sv[2], r;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return negative_errno();
	h.pid = fork();
	if (h.pid == 0) {
		safe_close(sv[0]);
		helper(sv[1], uid, gid, userns);
	}
	safe_close(sv[1]);
	h.sock = sv[0];
	if (h.pid < 0) {
		h.pid = 0;
		return negative_errno();
	}
	r = recv_result(h.sock, NULL);
	if (r == 1)
		r = map_caller(&h, uid, gid);
	if (r < 0)
		return r;
	*ret = h;
	h = CALLER_SB_NULL;
	return 0;
}

/* A command to the helper, its answer read later (caller_sb_collect()):
 * step names it in the log.  When as many answers wait as may, they are
 * read first, so that neither side's socket ever fills while the other
 * writes (a command is at most PARAM_MSG_MAX, an answer REPLY_MAX). */
static int pipeline_send(CallerSb *h, const char *step, struct iovec *iov, size_t n_iov, int fd,
			 MntLog *log)
{
	size_t size = 0;
	ssize_t n;

	if (h->n_pending == CALLER_SB_PIPELINE) {
		int r = caller_sb_collect(h, log);

		if (r < 0)
			return r;
	}
	if (h->failed < 0)
		return h->failed;
	for (size_t i = 0; i < n_iov; i++)
		size += iov[i].iov_len;
	n = h->sock < 0 ? -EBADF : send_with_fd(h->sock, iov, n_iov, fd);
	if (n != (ssize_t)size) {
		caller_sb_fail(h); /* gone, or out of step with us */
		mnt_log_fail(log, step);
		return h->failed = -EIO;
	}
	snprintf(h->pending[h->n_pending++], MNT_STEP_MAX, "%s", step);
	return 0;
}

int caller_sb_collect(CallerSb *h, MntLog *log)
{
	static char buf[REPLY_MAX + 1];

	for (unsigned i = 0; i < h->n_pending; i++) {
		const char *step = h->pending[i];
		HelperReply reply;
		int fd = -EBADF;
		ssize_t n = h->sock < 0 ? -EBADF : recv_with_fd(h->sock, buf, REPLY_MAX, &fd);

		if (n >= (ssize_t)sizeof(reply))
			memcpy(&reply, buf, sizeof(reply));
		if (n < (ssize_t)sizeof(reply) || (n > (ssize_t)sizeof(reply) && buf[n - 1] != 0) ||
		    reply.r > 0) {
			if (n >= 0)
				safe_close(fd);
			caller_sb_fail(h);
			if (h->failed == 0) {
				mnt_log_fail(log, step);
				h->failed = -EIO;
			}
			break;
		}
		if (h->failed < 0) {
			/* Not done after the first failure (-ECANCELED). */
			safe_close(fd);
			continue;
		}
		for (char *m = buf + sizeof(reply); m < buf + n; m += strlen(m) + 1) {
			int r = mnt_log_add_kernel(log, step, m);

			if (r < 0 && reply.r == 0)
				reply.r = r;
		}
		if (reply.r < 0) {
			safe_close(fd);
			mnt_log_fail(log, step);
			h->failed = reply.r;
			continue;
		}
		(void)mnt_log_step(log, step, reply.usec);
		if (fd >= 0) { /* the context, with fsopen's answer */
			safe_close(h->fs_fd);
			h->fs_fd = fd;
		}
	}
	h->n_pending = 0;
	return h->failed;
}

int caller_sb_fsopen(const char *fstype, int userns, CallerSb *ret, MntLog *log)
{
	_cleanup_(caller_sb_done) CallerSb h = CALLER_SB_NULL;
	_cleanup_free_ gid_t *groups = NULL;
	uint64_t start = mnt_step_start();
	size_t len = strlen(fstype);
	int n_groups = 0, r;
	struct stat userns_st = {}, mntns_st = {};
	struct iovec iov[2];
	uid_t uid;
	gid_t gid;

	if (!rights_caller(&uid, &gid))
		return mnt_log_result(log, "as-caller", start, -EPERM);
	if (len == 0 || len >= PARAM_MSG_MAX - 1)
		return mnt_log_result(log, "as-caller", start, -EINVAL);
	if (userns >= 0) {
		n_groups = own_groups(&groups);
		if (n_groups < 0)
			return mnt_log_result(log, "as-caller", start, n_groups);
		if (fstat(userns, &userns_st) < 0)
			return mnt_log_result(log, "as-caller", start, negative_errno());
		r = mntns_stat(&mntns_st);
		if (r < 0)
			return mnt_log_result(log, "as-caller", start, r);
	}
	if (userns >= 0 && kept_fits(uid, gid, &userns_st, &mntns_st, groups, n_groups)) {
		h.pid = kept.h.pid;
		h.sock = kept.h.sock;
		h.kept = true;
		(void)mnt_log_step(log, "as-caller", mnt_step_start() - start);
	} else {
		/* One child of the worker's at a time: its process group, which
		 * mountd counts as two tasks at most (executor.h). */
		kept_drop();
		r = helper_start(uid, gid, userns, &h);
		if (mnt_log_result(log, "as-caller", start, r) < 0)
			return r;
		if (userns >= 0) {
			kept.h = h;
			kept.uid = uid;
			kept.gid = gid;
			kept.userns = userns_st;
			kept.mntns = mntns_st;
			kept.groups = TAKE_PTR(groups);
			kept.n_groups = n_groups;
			worker_at_exit(kept_drop);
			h.kept = true;
		}
	}
	iov[0] = (struct iovec){.iov_base = (char *)"o", .iov_len = 1};
	iov[1] = (struct iovec){.iov_base = (void *)fstype, .iov_len = len};
	r = pipeline_send(&h, "fsopen", iov, 2, -EBADF, log);
	if (r < 0)
		return r;
	*ret = h;
	h = CALLER_SB_NULL;
	return 0;
}

void caller_sb_fail(CallerSb *h)
{
	if (!h->kept)
		return; /* caller_sb_done() ends it, as it would anyway */
	if (kept.h.pid == h->pid)
		kept_drop();
	/* The pid stays: set_param() must never fall back to mountd's own
	 * fsconfig() for this superblock.  What follows fails (EBADF). */
	h->sock = -EBADF;
}

int caller_sb_param(CallerSb *h, const MntParam *p, MntLog *log)
{
	char step[MNT_STEP_MAX];
	MntFsconfigArgs a;
	ParamMsg m = {.op = 'p'};
	struct iovec iov[3];
	size_t key_size = strlen(p->key) + 1;
	int r;

	r = mnt_param_fsconfig_args(p, &a);
	if (r < 0)
		return r;
	mnt_param_step(p, step);
	if (key_size > MNT_KEY_MAX + 1 || a.value_size > PARAM_VALUE_MAX)
		return mnt_log_result(log, step, mnt_step_start(), -E2BIG);
	m.cmd = a.cmd;
	m.aux = a.aux_is_fd ? -1 : a.aux;
	m.aux_is_fd = a.aux_is_fd;
	m.key_size = (uint32_t)key_size;
	m.value_size = (uint32_t)a.value_size;
	iov[0] = (struct iovec){.iov_base = &m, .iov_len = sizeof(m)};
	iov[1] = (struct iovec){.iov_base = p->key, .iov_len = key_size};
	iov[2] = (struct iovec){.iov_base = (void *)a.value, .iov_len = a.value_size};
	return pipeline_send(h, step, iov, 3, a.aux_is_fd ? a.aux : -EBADF, log);
}

int caller_sb_param_fd_number(CallerSb *h, char *key, int fd, MntLog *log)
{
	char step[MNT_STEP_MAX];
	ParamMsg m = {.op = 'p', .fd_as_number = true, .cmd = FSCONFIG_SET_STRING, .aux = -1};
	struct iovec iov[2];
	size_t key_size = strlen(key) + 1;

	mnt_param_step(&(MntParam){.type = MNT_PARAM_FD, .key = key, .fd = fd}, step);
	if (fd < 0)
		return mnt_log_result(log, step, mnt_step_start(), -EBADF);
	if (key_size > MNT_KEY_MAX + 1)
		return mnt_log_result(log, step, mnt_step_start(), -E2BIG);
	m.key_size = (uint32_t)key_size;
	iov[0] = (struct iovec){.iov_base = &m, .iov_len = sizeof(m)};
	iov[1] = (struct iovec){.iov_base = key, .iov_len = key_size};
	return pipeline_send(h, step, iov, 2, fd, log);
}

int caller_sb_create(CallerSb *h, unsigned cmd, MntLog *log)
{
	const char *step = cmd == FSCONFIG_CMD_CREATE_EXCL ? "fsconfig:CMD_CREATE_EXCL"
							   : "fsconfig:CMD_CREATE";
	struct iovec iov = {.iov_base = cmd == FSCONFIG_CMD_CREATE_EXCL ? "x" : "c", .iov_len = 1};
	int r;

	r = pipeline_send(h, step, &iov, 1, -EBADF, log);
	if (r >= 0)
		r = caller_sb_collect(h, log);
	if (r >= 0 && h->fs_fd < 0) {
		/* Every step done, and no context: out of step with us. */
		caller_sb_fail(h);
		mnt_log_fail(log, step);
		r = -EIO;
	}
	if (r < 0)
		return r;
	return TAKE_FD(h->fs_fd);
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
	/* Its only child, as in caller_sb_fsopen(). */
	kept_drop();
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
	/* Answers left unread would be read as the next superblock's. */
	if (h->n_pending > 0)
		caller_sb_fail(h);
	h->fs_fd = safe_close(h->fs_fd);
	if (h->kept) { /* the kept helper's, not ours to end */
		*h = CALLER_SB_NULL;
		return;
	}
	h->sock = safe_close(h->sock);
	if (h->pid > 0) {
		(void)kill(h->pid, SIGKILL);
		(void)waitpid(h->pid, NULL, 0);
	}
	*h = CALLER_SB_NULL;
}
