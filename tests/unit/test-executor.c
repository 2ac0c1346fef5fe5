/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The executor on its own, with a test handler: replies and fds round
 * trip, a key's worker is reused (no fork per request), per-uid limits
 * hold one user without holding another, deadlines and crashes are
 * answered, a worker counts until every task of its group is reaped
 * (the children it leaves are ours to reap), a worker ends with its namespace's
 * owner, large texts go by memfd, and freeing leaves no child.
 *
 * Workers setns() into this process's own mount namespace: nothing is
 * mounted anywhere.
 */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "executor.h"
#include "sys-mnt.h"
#include "tap.h"
#include "util.h"
#include "executor-worker.h"

/* The handler: "pid" answers the worker's pid; "fd" the inode of fds[0]
 * and a dup of it; "sleep N" sleeps N ms first; "block" reads fds[0] to
 * EOF first; "crash" aborts; "child N" forks a child (as a helper is
 * forked) that lives N ms more, and answers its pid; "echo ..."
 * answers the text itself; "inherited N" whether fd N is open, and not one
 * the worker opened itself (worker_keep_host_dirs()). */
static int handler(const char *request, int *fds, size_t n_fds, ExecReply *ret)
{
	char buf[128];

	if (streq(request, "block") && n_fds == 1) {
		char c;

		/* Until the test closes the pipe's other end. */
		while (read(fds[0], &c, 1) > 0)
			;
		request = "pid";
	}
	if (strncmp(request, "sleep ", 6) == 0) {
		usleep((useconds_t)atoi(request + 6) * 1000);
		request = "pid";
	}
	if (streq(request, "crash"))
		abort();
	if (strncmp(request, "child ", 6) == 0) {
		pid_t child = fork();

		if (child < 0)
			return -errno;
		if (child == 0) {
			usleep((useconds_t)atoi(request + 6) * 1000);
			_exit(0);
		}
		snprintf(buf, sizeof(buf), "%d", (int)child);
		ret->json = strdup(buf);
		return ret->json ? 0 : -ENOMEM;
	}
	if (strncmp(request, "echo ", 5) == 0) {
		ret->json = strdup(request + 5);
		return ret->json ? 0 : -ENOMEM;
	}
	if (strncmp(request, "inherited ", 10) == 0) {
		int fd = atoi(request + 10);
		bool own = false;

		for (int d = 0; d < _WORKER_HOST_DIR_MAX; d++)
			own = own || fd == worker_host_dir(d);
		snprintf(buf, sizeof(buf), "%d", !own && fcntl(fd, F_GETFD) >= 0);
	} else if (streq(request, "fd") && n_fds == 1) {
		struct stat st;

		if (fstat(fds[0], &st) < 0)
			return -errno;
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)st.st_ino);
		ret->fds = malloc(sizeof(int));
		if (!ret->fds)
			return -ENOMEM;
		ret->fds[0] = fds[0];
		fds[0] = -EBADF; /* handed on */
		ret->n_fds = 1;
	} else
		snprintf(buf, sizeof(buf), "%d", (int)getpid());
	ret->json = strdup(buf);
	return ret->json ? 0 : -ENOMEM;
}

typedef struct Answer {
	bool done;
	int r;
	char *text;
	int fd;
	size_t written;
} Answer;

static void on_done(int r, ExecReply *reply, void *userdata)
{
	Answer *a = userdata;

	a->done = true;
	a->r = r;
	a->text = TAKE_PTR(reply->json);
	a->written = reply->written;
	if (reply->n_fds > 0) {
		a->fd = reply->fds[0];
		reply->fds[0] = -EBADF;
	}
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Run the loop until every answer in a[0..n) is in, or 10 s pass. */
static bool wait_all(sd_event *e, Answer *a, size_t n)
{
	uint64_t end = now_ms() + 10000;

	for (;;) {
		size_t done = 0;

		for (size_t i = 0; i < n; i++)
			done += a[i].done;
		if (done == n)
			return true;
		if (now_ms() > end)
			return false;
		(void)sd_event_run(e, 100 * 1000);
	}
}

static void answer_done(Answer *a)
{
	free(a->text);
	safe_close(a->fd);
	*a = (Answer){.fd = -EBADF};
}

static int nsfd = -EBADF;
static uint64_t ns_id;

/* As uid, counted against principal (a user's subuid: the user). */
static int submit_lent(Executor *x, uid_t uid, uid_t principal, int owner, const char *text,
		       const int *fds, size_t n, int reply_fd, uint64_t timeout_ms, Answer *a)
{
	ExecKey key = {.mntns_id = ns_id, .uid = uid, .principal = principal};
	/* Copies for the executor to take, as request.c's pins are taken. */
	_cleanup_close_ int ns = fcntl(nsfd, F_DUPFD_CLOEXEC, 3);
	_cleanup_close_ int own = owner >= 0 ? fcntl(owner, F_DUPFD_CLOEXEC, 3) : -EBADF;

	*a = (Answer){.fd = -EBADF};
	return executor_submit(x, &key, &ns, owner >= 0 ? &own : NULL, text, fds, n, reply_fd,
			       timeout_ms * 1000, on_done, a);
}

static int submit_as(Executor *x, uid_t uid, uid_t principal, int owner, const char *text,
		     const int *fds, size_t n, uint64_t timeout_ms, Answer *a)
{
	return submit_lent(x, uid, principal, owner, text, fds, n, -EBADF, timeout_ms, a);
}

static int submit(Executor *x, uid_t uid, int owner, const char *text, const int *fds, size_t n,
		  uint64_t timeout_ms, Answer *a)
{
	return submit_as(x, uid, uid, owner, text, fds, n, timeout_ms, a);
}

/* Our fds but the event loop's own (epoll, timerfds), which it makes as it
 * needs them. */
static size_t count_fds(void)
{
	_cleanup_(closedirp) DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	size_t n = 0;

	while (d && (de = readdir(d))) {
		char link[PATH_MAX] = "";

		if (readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1) > 0 &&
		    !startswith(link, "anon_inode:"))
			n++;
	}
	return n;
}

static size_t fds_before;

static bool alive(pid_t pid)
{
	return kill(pid, 0) == 0;
}

/* How many of pids live once retired workers have exited (they do at
 * once): waited for until at most limit do, for 5 s at the most. */
static unsigned live_after_retiring(sd_event *e, const pid_t *pids, unsigned n, unsigned limit)
{
	unsigned live = 0;

	for (uint64_t end = now_ms() + 5000; now_ms() < end;) {
		live = 0;
		for (unsigned i = 0; i < n; i++)
			live += pids[i] > 0 && alive(pids[i]);
		if (live <= limit)
			break;
		(void)sd_event_run(e, 50 * 1000);
	}
	return live;
}

int main(void)
{
	_cleanup_(sd_event_unrefp) sd_event *e = NULL;
	Executor *x = NULL;
	Answer a[EXEC_BUSY_PER_UID + EXEC_QUEUED_PER_UID + 4], b;
	pid_t first;
	int r;

	nsfd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	ok(nsfd >= 0 && mnt_ns_id(nsfd, &ns_id) == 0, "our mount namespace and its id");
	fds_before = count_fds();
	ok(sd_event_new(&e) >= 0 && executor_new(e, handler, 0, &x) == 0, "an executor");

	/* A reply and an fd, both ways. */
	{
		_cleanup_close_ int dir = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
		struct stat st, got;

		r = submit(x, 0, -EBADF, "fd", &dir, 1, 5000, &a[0]);
		ok(r == 0 && wait_all(e, a, 1) && a[0].r == 0, "a request is answered");
		ok(fstat(dir, &st) == 0 && a[0].text && strtoull(a[0].text, NULL, 10) == st.st_ino,
		   "the request's fd reached the worker");
		ok(a[0].fd >= 0 && fstat(a[0].fd, &got) == 0 && got.st_ino == st.st_ino,
		   "the reply's fd came back");
		answer_done(&a[0]);
	}

	/* One hop: the answer written by the worker to the client's socket
	 * itself, unless it has fds; not at all once the loop answered a
	 * deadline. */
	{
		static const char msg[] = "{\"parameters\":{\"x\":1}}";
		int sv[2] = {-EBADF, -EBADF};
		_cleanup_close_ int dir = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
		char got[64] = "";

		ok(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0,
		   "a client's socket");
		r = submit_lent(x, 0, 0, -EBADF, "echo {\"parameters\":{\"x\":1}}", NULL, 0, sv[0],
				5000, &a[0]);
		ok(r == 0 && wait_all(e, a, 1) && a[0].r == 0 && a[0].written == sizeof(msg),
		   "lent: the worker wrote the whole answer");
		ok(recv(sv[1], got, sizeof(got), MSG_DONTWAIT) == (ssize_t)sizeof(msg) &&
			   memcmp(got, msg, sizeof(msg)) == 0,
		   "lent: the client got it, NUL-terminated");
		answer_done(&a[0]);
		r = submit_lent(x, 0, 0, -EBADF, "fd", &dir, 1, sv[0], 5000, &a[0]);
		ok(r == 0 && wait_all(e, a, 1) && a[0].r == 0 && a[0].written == 0 && a[0].fd >= 0,
		   "lent: an answer with fds is left to the loop");
		ok(recv(sv[1], got, sizeof(got), MSG_DONTWAIT) < 0 && errno == EAGAIN,
		   "lent: and nothing was written to the client");
		answer_done(&a[0]);
		{
			int many[EXEC_FDS_MAX];

			for (size_t i = 0; i < EXEC_FDS_MAX; i++)
				many[i] = dir;
			r = submit_lent(x, 0, 0, -EBADF, "echo {}", many, EXEC_FDS_MAX, sv[0], 5000,
					&a[0]);
			ok(r == 0 && wait_all(e, a, 1) && a[0].r == 0 && a[0].written == 0,
			   "lent: a request with all the fds it may have still runs, answered by "
			   "the loop");
			answer_done(&a[0]);
		}
		r = submit_lent(x, 0, 0, -EBADF, "sleep 400", NULL, 0, sv[0], 50, &a[0]);
		ok(r == 0 && wait_all(e, a, 1) && a[0].r == -ETIMEDOUT,
		   "lent: past its deadline the loop answers");
		usleep(600 * 1000);
		ok(recv(sv[1], got, sizeof(got), MSG_DONTWAIT) < 0 && errno == EAGAIN,
		   "lent: and the killed worker wrote nothing after it");
		answer_done(&a[0]);
		close_many(sv, 2);
	}

	/* Reuse: one worker for one key, request after request. */
	{
		bool same = true;

		r = submit(x, 0, -EBADF, "pid", NULL, 0, 5000, &a[0]);
		ok(r == 0 && wait_all(e, a, 1) && a[0].text, "the worker's pid");
		first = a[0].text ? atoi(a[0].text) : 0;
		ok(first > 0 && first != getpid(), "it ran in another process");
		answer_done(&a[0]);
		for (int i = 0; i < 100; i++) {
			r = submit(x, 0, -EBADF, "pid", NULL, 0, 5000, &a[0]);
			same = same && r == 0 && wait_all(e, a, 1) && a[0].text &&
			       atoi(a[0].text) == first;
			answer_done(&a[0]);
		}
		ok(same, "100 more requests of the key: the same worker answered all");
		ok(executor_workers(x) == 1, "one worker alive (%zu)", executor_workers(x));
		{
			int root = executor_namespace_root(x, ns_id);
			struct stat st, want;

			ok(root >= 0 && fstat(root, &st) == 0 && stat("/", &want) == 0 &&
				   st.st_dev == want.st_dev && st.st_ino == want.st_ino,
			   "the worker handed over its namespace's root");
			ok(executor_namespace_root(x, ns_id + 1) == -EBADF,
			   "  and no root for a namespace no worker serves");
		}
		r = submit(x, 0, -EBADF, "inherited 5", NULL, 0, 5000, &a[0]);
		ok(r == 0 && wait_all(e, a, 1) && a[0].text && streq(a[0].text, "0"),
		   "the worker holds none of our fds");
		answer_done(&a[0]);
	}

	/* Per-uid limits: uid 1000 fills its busy workers and its queue with
	 * requests that block until we say; one more is refused; uid 0 is
	 * served meanwhile. */
	{
		size_t n = EXEC_BUSY_PER_UID + EXEC_QUEUED_PER_UID, answered = 0, early = 0;
		int pipe_fds[2] = {-EBADF, -EBADF};
		bool all = pipe2(pipe_fds, O_CLOEXEC) == 0;

		for (size_t i = 0; all && i < n; i++)
			all = submit(x, 1000, -EBADF, "block", &pipe_fds[0], 1, 60000, &a[i]) == 0;
		ok(all, "%zu requests of one uid accepted (%u running, %u waiting)", n,
		   EXEC_BUSY_PER_UID, EXEC_QUEUED_PER_UID);
		ok(submit(x, 1000, -EBADF, "pid", NULL, 0, 5000, &a[n]) == -EAGAIN,
		   "one more is refused with -EAGAIN");
		ok(submit_as(x, 101000, 1000, -EBADF, "pid", NULL, 0, 5000, &a[n]) == -EAGAIN,
		   "  and one as another uid of the same user (a subuid)");
		ok(submit(x, 0, -EBADF, "pid", NULL, 0, 5000, &b) == 0 && wait_all(e, &b, 1) &&
			   b.r == 0,
		   "another uid is answered while that one is at its limit");
		answer_done(&b);
		for (size_t i = 0; i < n; i++)
			early += a[i].done;
		ok(early == 0, "  while none of the blocked ones was (%zu)", early);
		ok(executor_workers(x) <= 1 + EXEC_BUSY_PER_UID + 1,
		   "at most %u workers for the busy uid (%zu in all)", EXEC_BUSY_PER_UID,
		   executor_workers(x));
		safe_close(pipe_fds[0]);
		safe_close(pipe_fds[1]);
		for (uint64_t end = now_ms() + 20000; answered < n && now_ms() < end;) {
			answered = 0;
			for (size_t i = 0; i < n; i++)
				answered += a[i].done && a[i].r == 0;
			(void)sd_event_run(e, 100 * 1000);
		}
		ok(answered == n, "all %zu were answered in turn once unblocked (%zu)", n,
		   answered);
		for (size_t i = 0; i < n; i++)
			answer_done(&a[i]);
	}

	/* A deadline: answered at once, the worker killed, capacity back. */
	{
		pid_t pid;

		r = submit(x, 2000, -EBADF, "pid", NULL, 0, 5000, &a[0]);
		ok(r == 0 && wait_all(e, a, 1) && a[0].text, "uid 2000's worker");
		pid = a[0].text ? atoi(a[0].text) : 0;
		answer_done(&a[0]);
		r = submit(x, 2000, -EBADF, "sleep 5000", NULL, 0, 200, &a[0]);
		ok(r == 0 && wait_all(e, a, 1) && a[0].r == -ETIMEDOUT,
		   "a request past its deadline: -ETIMEDOUT");
		answer_done(&a[0]);
		for (uint64_t end = now_ms() + 5000; alive(pid) && now_ms() < end;)
			(void)sd_event_run(e, 50 * 1000);
		ok(!alive(pid), "  its worker was killed and reaped");
		r = submit(x, 2000, -EBADF, "pid", NULL, 0, 5000, &a[0]);
		ok(r == 0 && wait_all(e, a, 1) && a[0].r == 0, "  the uid is served again");
		answer_done(&a[0]);
	}

	/* A deadline kills what the worker started too. */
	{
		pid_t child;

		r = submit(x, 2100, -EBADF, "child 30000", NULL, 0, 5000, &a[0]);
		ok(r == 0 && wait_all(e, a, 1) && a[0].text, "a worker's child");
		child = a[0].text ? atoi(a[0].text) : 0;
		answer_done(&a[0]);
		r = submit(x, 2100, -EBADF, "sleep 5000", NULL, 0, 200, &a[0]);
		ok(r == 0 && wait_all(e, a, 1) && a[0].r == -ETIMEDOUT, "  its worker's deadline");
		answer_done(&a[0]);
		for (uint64_t end = now_ms() + 5000; alive(child) && now_ms() < end;)
			(void)sd_event_run(e, 50 * 1000);
		ok(child > 0 && !alive(child), "  the child was killed with it, and reaped by us");
	}

	/* What a dead worker leaves counts against its user until it is
	 * reaped: past the limit the user's next worker waits for it, root
	 * does not. */
	{
		enum { N = EXEC_WORKERS_PER_UID };
		size_t base = executor_workers(x);
		pid_t children[N];
		bool made = true, lingering = true;
		Answer late;

		for (unsigned i = 0; i < N; i++) {
			r = submit_as(x, 600000 + i, 6000, -EBADF, "child 3000", NULL, 0, 5000,
				      &a[0]);
			made = made && r == 0 && wait_all(e, a, 1) && a[0].text;
			children[i] = made ? atoi(a[0].text) : 0;
			answer_done(&a[0]);
			r = submit_as(x, 600000 + i, 6000, -EBADF, "crash", NULL, 0, 5000, &a[0]);
			made = made && r == 0 && wait_all(e, a, 1) && a[0].r == -ECONNRESET;
			answer_done(&a[0]);
		}
		ok(made, "%u workers of one user died, each leaving a child", N);
		/* Their workers are reaped: the loop has answered each crash. */
		for (unsigned i = 0; i < N; i++)
			lingering = lingering && alive(children[i]);
		ok(lingering && executor_workers(x) == base + N,
		   "  counted while the children live (%zu)", executor_workers(x) - base);
		r = submit_as(x, 600000 + N, 6000, -EBADF, "pid", NULL, 0, 5000, &late);
		for (uint64_t end = now_ms() + 500; now_ms() < end;)
			(void)sd_event_run(e, 50 * 1000);
		ok(r == 0 && !late.done, "  the user's next request waits");
		r = submit(x, 0, -EBADF, "pid", NULL, 0, 5000, &a[0]);
		ok(r == 0 && wait_all(e, a, 1) && a[0].r == 0, "  root is served meanwhile");
		answer_done(&a[0]);
		ok(wait_all(e, &late, 1) && late.r == 0, "  and is served once they are gone");
		answer_done(&late);
		lingering = false;
		for (unsigned i = 0; i < N; i++)
			lingering = lingering || alive(children[i]);
		ok(!lingering, "  each reaped by us, no zombie left");
	}

	/* A crash: -ECONNRESET, and the next request works. */
	r = submit(x, 3000, -EBADF, "crash", NULL, 0, 5000, &a[0]);
	ok(r == 0 && wait_all(e, a, 1) && a[0].r == -ECONNRESET, "a worker that dies: -ECONNRESET");
	answer_done(&a[0]);
	r = submit(x, 3000, -EBADF, "pid", NULL, 0, 5000, &a[0]);
	ok(r == 0 && wait_all(e, a, 1) && a[0].r == 0, "  and the next request is served");
	answer_done(&a[0]);

	/* The owner: when the process that named the namespace exits, the
	 * key's idle workers end. */
	{
		pid_t owner = fork(), worker;
		_cleanup_close_ int pidfd = -EBADF;

		if (owner == 0) {
			pause();
			_exit(0);
		}
		pidfd = pidfd_open(owner, 0);
		r = submit(x, 4000, pidfd, "pid", NULL, 0, 5000, &a[0]);
		ok(r == 0 && wait_all(e, a, 1) && a[0].text, "a worker for an owned namespace");
		worker = a[0].text ? atoi(a[0].text) : 0;
		answer_done(&a[0]);
		ok(worker > 0 && alive(worker), "  alive while its owner lives");
		kill(owner, SIGKILL);
		waitpid(owner, NULL, 0);
		for (uint64_t end = now_ms() + 5000; alive(worker) && now_ms() < end;)
			(void)sd_event_run(e, 50 * 1000);
		ok(!alive(worker), "  gone when its owner exits");
	}

	/* A text larger than a datagram. */
	{
		size_t size = 2 * 1024 * 1024;
		char *big = malloc(size + 6);

		if (big) {
			memcpy(big, "echo ", 5);
			memset(big + 5, 'x', size);
			big[size + 5] = 0;
		}
		r = big ? submit(x, 0, -EBADF, big, NULL, 0, 5000, &a[0]) : -ENOMEM;
		ok(r == 0 && wait_all(e, a, 1) && a[0].r == 0 && a[0].text &&
			   strlen(a[0].text) == size && a[0].text[size - 1] == 'x',
		   "a 2 MiB request and its 2 MiB answer go by memfd");
		answer_done(&a[0]);
		free(big);
	}

	/* One user's workers, idle ones too, are bounded however many keys
	 * (namespaces, subuids) it spreads its requests over: past the limit
	 * its least recently used idle worker ends. */
	{
		enum { N = EXEC_WORKERS_PER_UID + 6 };
		pid_t pids[N];
		bool answered = true, spread = true;
		unsigned live = 0;

		for (unsigned i = 0; i < N; i++) {
			r = submit_as(x, 300000 + i, 3000, -EBADF, "pid", NULL, 0, 5000, &a[0]);
			answered =
				answered && r == 0 && wait_all(e, a, 1) && a[0].r == 0 && a[0].text;
			pids[i] = answered ? atoi(a[0].text) : 0;
			spread = spread && (i == 0 || pids[i] != pids[i - 1]);
			answer_done(&a[0]);
		}
		ok(answered && spread, "a user's requests under %u keys, one worker each", N);
		live = live_after_retiring(e, pids, N, EXEC_WORKERS_PER_UID);
		ok(live == EXEC_WORKERS_PER_UID, "  of which %u stay alive, idle, not %u", live, N);
		ok(alive(pids[N - 1]) && !alive(pids[0]), "  the least recently used went first");
		r = submit(x, 0, -EBADF, "pid", NULL, 0, 5000, &a[0]);
		ok(r == 0 && wait_all(e, a, 1) && a[0].r == 0, "  root is served meanwhile");
		answer_done(&a[0]);
	}

	/* Root's idle workers are bounded too, and root is never refused for
	 * them: a request into each of more namespaces than it keeps. */
	{
		enum { N = EXEC_WORKERS_ROOT + 6 };
		pid_t pids[N];
		bool answered = true;
		unsigned live = 0;

		for (unsigned i = 0; i < N; i++) {
			r = submit_as(x, 400000 + i, 0, -EBADF, "pid", NULL, 0, 5000, &a[0]);
			answered =
				answered && r == 0 && wait_all(e, a, 1) && a[0].r == 0 && a[0].text;
			pids[i] = answered ? atoi(a[0].text) : 0;
			answer_done(&a[0]);
		}
		ok(answered, "root's requests under %u keys, every one answered", N);
		live = live_after_retiring(e, pids, N, EXEC_WORKERS_ROOT);
		ok(live == EXEC_WORKERS_ROOT, "  of which %u stay alive, idle, not %u", live, N);
		ok(alive(pids[N - 1]) && !alive(pids[0]), "  the least recently used went first");
	}

	/* Freeing: pending requests are cancelled, no child is left. */
	r = submit(x, 5000, -EBADF, "sleep 5000", NULL, 0, 60000, &a[0]);
	(void)sd_event_run(e, 0);
	x = executor_free(x);
	ok(r == 0 && a[0].done && a[0].r == -ECANCELED, "freeing cancels what is pending");
	answer_done(&a[0]);
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "and leaves no child");
	ok(count_fds() == fds_before, "and no fd: the roots went with their workers (%zu, %zu)",
	   count_fds(), fds_before);

	safe_close(nsfd);
	return tap_done();
}
