/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Worker processes per (mount namespace, caller uid); see executor.h.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "executor-caps.h"
#include "executor.h"
#include "executor-message.h"
#include "executor-nonblocking.h"
#include "executor-reap.h"
#include "sys-mnt-lock.h"
#include "util.h"
#include "executor-worker.h"

/* How often the tasks left of a reaped worker's group are looked for. */
#define EXEC_SWEEP_USEC (250ULL * 1000)

/* Who may write a job's answer to the client's lent socket, in a word the
 * loop and the worker share (MAP_SHARED, one page each worker): the worker
 * only after LENT -> WRITING, the loop's own answer (timeout, a dead
 * worker) only after LENT -> REVOKED.  Whichever wins, the other knows. */
enum { TOKEN_NONE, TOKEN_LENT, TOKEN_WRITING, TOKEN_REVOKED };

typedef struct Job Job;
typedef struct Worker Worker;
typedef struct Group Group;
typedef struct Caller Caller;

struct Job {
	Executor *x;
	ExecKey key;
	Caller *caller;
	char *request;
	int *fds;
	size_t n_fds;
	int nsfs, owner_pidfd; /* ours, for a worker still to be forked */
	ExecDoneFn done;
	void *userdata;
	sd_event_source *deadline;
	Worker *worker; /* while it runs */
	bool queued;
	bool lent; /* its last fd is the client's socket (EXEC_MSG_REPLY_FD) */
	bool lost; /* its worker began to write to that socket, then went */
	TAILQ_ENTRY(Job) queue;
	LIST_ENTRY(Job) all;
};

struct Worker {
	Executor *x;
	Group *group;	 /* NULL once it serves no key any more */
	uid_t principal; /* whose worker it is, for its limits */
	/* Closed when idle (or its namespace's owner went): it exits at once.
	 * Like every worker, killed or not, it counts until reaped. */
	bool retiring;
	/* The worker itself is reaped; the record stays, and counts, until
	 * the last task of its process group is reaped too (a helper stuck
	 * in D state, reparented to us). */
	bool reaped;
	/* Also its process group's: whatever it forks (executor-caller-sb.c)
	 * is in it, and is counted and killed with it. */
	pid_t pid;
	int pidfd, sock;
	int *token; /* shared with the worker: TOKEN_* of its job */
	sd_event_source *sock_source, *pid_source, *idle_source;
	uint64_t idle_since; /* CLOCK_MONOTONIC of its last answer */
	Job *job;
	LIST_ENTRY(Worker) in_group;
	LIST_ENTRY(Worker) all;
};

struct Group {
	Executor *x;
	ExecKey key;
	NonblockingRoot root; /* the namespace's, from its first worker */
	int owner_pidfd;
	sd_event_source *owner_source;
	LIST_HEAD(, Worker) workers;
	LIST_ENTRY(Group) all;
};

struct Caller {
	uid_t uid;
	unsigned n_busy, n_queued;
	TAILQ_HEAD(, Job) queue;
	LIST_ENTRY(Caller) all;
};

struct Executor {
	sd_event *event;
	ExecHandlerFn handler;
	LIST_HEAD(, Job) jobs;
	LIST_HEAD(, Worker) workers;
	LIST_HEAD(, Group) groups;
	LIST_HEAD(, Caller) callers;
	size_t n_pending, n_workers;
	uint64_t idle_usec;
	/* While a reaped worker's group has tasks left: how they are reaped
	 * (they are our children now, and send no event of their own). */
	sd_event_source *sweep;
	bool freeing; /* start nothing new */
	/* dispatch_all() runs: callers are not freed under it, and a call
	 * from inside it only asks it to go round once more. */
	bool dispatching, dispatch_again;
};

void exec_reply_done(ExecReply *r)
{
	free(r->json);
	close_many(r->fds, r->n_fds);
	free(r->fds);
	*r = (ExecReply){};
}

/* ---- the worker process ------------------------------------------------------------ */

/* The answer straight to the client whose socket came with the job, when
 * it is small and carries no fds and the loop has not taken the socket
 * back: the bytes written, 0 when none (the loop then writes it all). */
static uint32_t worker_write_answer(int fd, const ExecReply *reply, int *token)
{
	size_t size = reply->json ? strlen(reply->json) + 1 : 0;
	int lent = TOKEN_LENT;
	ssize_t n;

	if (size == 0 || size > EXEC_DIRECT_MAX || reply->n_fds > 0 ||
	    !__atomic_compare_exchange_n(token, &lent, TOKEN_WRITING, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		return 0;
	n = send(fd, reply->json, size, MSG_DONTWAIT | MSG_NOSIGNAL);
	return n > 0 ? (uint32_t)n : 0;
}

_Noreturn static void worker_main(int sock, int nsfs, ExecHandlerFn handler, pid_t parent,
				  int *token)
{
	sigset_t all;
	int lock;

	/* A process group of its own, before it forks anything: mountd
	 * counts, kills and reaps the worker's tasks by it.  Die with
	 * mountd rather than linger inside a namespace. */
	if (setpgid(0, 0) < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(1);
	/* ps and pgrep tell the daemon from its workers. */
	(void)prctl(PR_SET_NAME, "mountd-worker");
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	/* Nothing of mountd's: its clients, its bus, its listening sockets.
	 * Both fds go above 4 first, so that neither dup2() clobbers the
	 * other. */
	sock = fcntl(sock, F_DUPFD, 6);
	nsfs = fcntl(nsfs, F_DUPFD, 6);
	/* And the namespace a tree is locked through (sys-mnt-lock.h). */
	lock = mnt_lock_ns_fd() >= 0 ? fcntl(mnt_lock_ns_fd(), F_DUPFD_CLOEXEC, 6) : -EBADF;
	if (sock < 0 || nsfs < 0 || dup2(sock, 3) < 0 || dup2(nsfs, 4) < 0 ||
	    (lock >= 0 && dup3(lock, 5, O_CLOEXEC) < 0) ||
	    close_range(lock >= 0 ? 6 : 5, ~0U, 0) < 0)
		_exit(1);
	sock = 3;
	nsfs = 4;
	mnt_lock_set_ns_fd(lock >= 0 ? 5 : -EBADF);
	worker_keep_host_dirs();
	if (caps_worker() < 0 || setns(nsfs, CLONE_NEWNS) < 0 || worker_set_home(nsfs) < 0)
		_exit(1);
	/* The root as a worker here sees it: for the loop to answer what
	 * cannot wait in this namespace itself (executor_namespace_root()). */
	{
		_cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (root >= 0 && exec_msg_send(sock, NULL, EXEC_MSG_ROOT, &root, 1, 0) < 0)
			_exit(1);
	}

	for (;;) {
		_cleanup_free_ int *fds = NULL;
		_cleanup_free_ char *text = NULL;
		_cleanup_close_ int client = -EBADF;
		ExecReply reply = {};
		uint32_t flags, written = 0;
		size_t n_fds;
		int r;

		r = exec_msg_recv(sock, 0, &flags, &text, &fds, &n_fds);
		if (r == -EPIPE) {
			worker_run_at_exit();
			_exit(0);
		}
		if (r < 0 || !text)
			_exit(1);
		if ((flags & EXEC_MSG_REPLY_FD) && n_fds > 0)
			client = fds[--n_fds];
		r = handler(text, fds, n_fds, &reply);
		/* The trace fd among them: its reader's EOF comes before the
		 * answer, whoever writes that. */
		close_many(fds, n_fds);
		if (r >= 0 && client >= 0)
			written = worker_write_answer(client, &reply, token);
		client = safe_close(client);
		if (r < 0 || !reply.json)
			r = exec_msg_send(sock, NULL, EXEC_MSG_NO_ANSWER, NULL, 0, 0);
		else
			r = exec_msg_send_written(sock, reply.json, 0, written, reply.fds,
						  reply.n_fds, 0);
		exec_reply_done(&reply);
		if (r < 0)
			_exit(1);
	}
}

/* ---- supervision ------------------------------------------------------------------ */

static void caller_dispatch(Caller *c, Executor *x);
static void dispatch_all(Executor *x);
static void worker_free(Worker *w);

static Caller *caller_get(Executor *x, uid_t uid)
{
	Caller *c;

	LIST_FOREACH(c, &x->callers, all)
	if (c->uid == uid)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->uid = uid;
	TAILQ_INIT(&c->queue);
	LIST_INSERT_HEAD(&x->callers, c, all);
	return c;
}

static void caller_maybe_free(Caller *c)
{
	if (c->n_busy == 0 && c->n_queued == 0) {
		LIST_REMOVE(c, all);
		free(c);
	}
}

static void job_free(Job *j)
{
	Executor *x = j->x;
	Caller *c = j->caller;

	if (j->queued) {
		TAILQ_REMOVE(&c->queue, j, queue);
		c->n_queued--;
	}
	if (j->worker) {
		j->worker->job = NULL;
		c->n_busy--;
	}
	LIST_REMOVE(j, all);
	x->n_pending--;
	sd_event_source_disable_unref(j->deadline);
	close_many(j->fds, j->n_fds);
	free(j->fds);
	free(j->request);
	safe_close(j->nsfs);
	safe_close(j->owner_pidfd);
	free(j);
	/* Its slot, and maybe its worker, are free: the caller's next job,
	 * or another's that waited for a worker. */
	dispatch_all(x);
}

/* Whether the loop may answer j itself: its client's socket, if lent, is
 * taken back unless its worker began to write to it. */
static bool job_take_back(Job *j)
{
	int lent = TOKEN_LENT;

	if (!j->lent || !j->worker || j->lost)
		return !j->lost;
	return __atomic_compare_exchange_n(j->worker->token, &lent, TOKEN_REVOKED, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) ||
	       lent == TOKEN_REVOKED;
}

/* Answer a job and forget it; the caller's next one may start. */
static void job_finish(Job *j, int r, ExecReply *reply)
{
	ExecReply empty = {.owner_pidfd = -EBADF, .nsfs = -EBADF};

	/* Answered by the loop (the worker timed out, died, broke, mountd
	 * stops): the connection ends instead if the worker may have written
	 * part of an answer. */
	if (r < 0 && !job_take_back(j))
		r = -ECONNABORTED;

	j->done(r, reply ?: &empty, j->userdata);
	exec_reply_done(&empty);
	job_free(j);
}

static void group_maybe_free(Group *g)
{
	if (!g || !LIST_EMPTY(&g->workers))
		return;
	LIST_REMOVE(g, all);
	sd_event_source_disable_unref(g->owner_source);
	safe_close(g->owner_pidfd);
	nonblocking_root_done(&g->root);
	free(g);
}

/* The worker serves its key no more: no new request goes to it. */
static void worker_detach(Worker *w)
{
	Group *g = w->group;

	if (!g)
		return;
	LIST_REMOVE(w, in_group);
	w->group = NULL;
	w->idle_source = sd_event_source_disable_unref(w->idle_source);
	group_maybe_free(g);
}

/* An idle worker ends: its socket closes, it sees EOF and exits; the
 * pidfd reaps it. */
static void worker_close(Worker *w)
{
	worker_detach(w);
	w->sock_source = sd_event_source_disable_unref(w->sock_source);
	w->sock = safe_close(w->sock);
}

static void worker_retire(Worker *w)
{
	w->retiring = true;
	worker_close(w);
}

/* The workers of principal p (or of all but root, for p == (uid_t)-1):
 * every record, busy, idle, killed or reaped with tasks of its group left,
 * until the kernel has reaped the last of them; *ret_going: of those, the
 * ones retired, which end without anyone's help. */
static unsigned workers_counted(Executor *x, uid_t p, unsigned *ret_going)
{
	unsigned n = 0, going = 0;
	Worker *w;

	LIST_FOREACH(w, &x->workers, all)
	if (p == (uid_t)-1 ? w->principal != 0 : w->principal == p) {
		n++;
		going += w->retiring;
	}
	*ret_going = going;
	return n;
}

/* The idle worker used least recently, of principal p (any for -1). */
static Worker *worker_lru_idle(Executor *x, uid_t p)
{
	Worker *w, *best = NULL;

	LIST_FOREACH(w, &x->workers, all)
	if (!w->job && w->sock >= 0 && w->group && !w->retiring &&
	    (p == (uid_t)-1 || w->principal == p) && (!best || w->idle_since < best->idle_since))
		best = w;
	return best;
}

/* Whether p's workers (workers_counted()) are below limit; idle ones, least
 * recently used first, are retired so that they will be. */
static bool room_below(Executor *x, uid_t p, unsigned limit)
{
	unsigned going, n = workers_counted(x, p, &going);
	Worker *w;

	/* A retired worker still counts until it is reaped (worker_free()
	 * dispatches again then): retire only as many as must go. */
	while (n - going >= limit && (w = worker_lru_idle(x, p))) {
		worker_retire(w);
		going++;
	}
	return n < limit;
}

/* Room for one more worker of principal p: within its own limit and the
 * executor's.  false: the job waits until a worker is reaped.  Root's own
 * workers are bounded (EXEC_WORKERS_ROOT) but it never waits for the
 * others': they cannot reach the unit's TasksMax (EXEC_WORKERS_MAX). */
static bool make_room(Executor *x, uid_t p)
{
	if (p == 0) {
		(void)room_below(x, 0, EXEC_WORKERS_ROOT);
		return true;
	}
	return room_below(x, p, EXEC_WORKERS_PER_UID) && room_below(x, (uid_t)-1, EXEC_WORKERS_MAX);
}

static int on_owner_exit(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Group *g = userdata;
	Worker *w, *next;

	g->owner_source = sd_event_source_disable_unref(g->owner_source);
	/* Idle ones end now, busy ones after their answer. */
	for (w = LIST_FIRST(&g->workers); w; w = next) {
		next = LIST_NEXT(w, in_group);
		if (w->job)
			worker_detach(w);
		else
			worker_retire(w);
	}
	return 0;
}

static Group *group_get(Executor *x, const ExecKey *key, int owner_pidfd)
{
	Group *g;

	LIST_FOREACH(g, &x->groups, all)
	if (g->key.mntns_id == key->mntns_id && g->key.uid == key->uid)
		return g;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	*g = (Group){.x = x, .key = *key, .root = NONBLOCKING_ROOT_NULL, .owner_pidfd = -EBADF};
	LIST_INIT(&g->workers);
	LIST_INSERT_HEAD(&x->groups, g, all);
	if (owner_pidfd >= 0) {
		g->owner_pidfd = fcntl(owner_pidfd, F_DUPFD_CLOEXEC, 3);
		if (g->owner_pidfd < 0 ||
		    sd_event_add_io(x->event, &g->owner_source, g->owner_pidfd, EPOLLIN,
				    on_owner_exit, g) < 0) {
			group_maybe_free(g);
			return NULL;
		}
	}
	return g;
}

/* The idle timer stays armed while a worker serves one request after
 * another and is moved on only when it fires early: re-arming it per
 * request reprogrammed the loop's timerfd twice a request. */
static int on_idle(sd_event_source *s, uint64_t usec, void *userdata)
{
	Worker *w = userdata;
	uint64_t until = w->idle_since + w->x->idle_usec;

	if (w->job || usec < until) {
		if (sd_event_source_set_time(s, w->job ? usec + w->x->idle_usec : until) >= 0 &&
		    sd_event_source_set_enabled(s, SD_EVENT_ONESHOT) >= 0)
			return 0;
	}
	worker_retire(w);
	return 0;
}

/* Kill the worker and whatever it started. */
static void worker_kill(Worker *w)
{
	if (!w->reaped)
		reap_kill(w->pidfd, w->pid);
}

/* Whether the reaped worker's process group has no task left, reaping
 * those that exited. */
static bool group_gone(Worker *w)
{
	Worker *i;

	/* Its number is a new worker's: the group ended before that one
	 * could get it, and waitid() must not reap the new one. */
	LIST_FOREACH(i, &w->x->workers, all)
	if (i != w && !i->reaped && i->pid == w->pid)
		return true;
	return reap_group_gone(w->pid);
}

static int on_sweep(sd_event_source *s, uint64_t usec, void *userdata);

/* Reaped workers whose groups have tasks left are looked at again; their
 * tasks may be in D state for as long as a FUSE server wants. */
static void sweep_arm(Executor *x)
{
	int enabled = SD_EVENT_OFF;

	if (x->sweep) {
		/* Armed already: not put off by every worker reaped. */
		if (sd_event_source_get_enabled(x->sweep, &enabled) >= 0 && enabled != SD_EVENT_OFF)
			return;
		(void)sd_event_source_set_time_relative(x->sweep, EXEC_SWEEP_USEC);
		(void)sd_event_source_set_enabled(x->sweep, SD_EVENT_ONESHOT);
		return;
	}
	if (sd_event_add_time_relative(x->event, &x->sweep, CLOCK_MONOTONIC, EXEC_SWEEP_USEC, 0,
				       on_sweep, x) < 0)
		/* Without the timer such a record is looked at when the next
		 * worker is reaped; it counts meanwhile, never less. */
		x->sweep = NULL;
}

static int on_sweep(sd_event_source *s, uint64_t usec, void *userdata)
{
	Executor *x = userdata;
	bool left = false;
	Worker *w;

again:
	LIST_FOREACH(w, &x->workers, all)
	if (w->reaped) {
		if (group_gone(w)) {
			worker_free(w); /* may start others: the list changes */
			goto again;
		}
		left = true;
	}
	if (left)
		sweep_arm(x);
	return 0;
}

static int on_worker_exit(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Worker *w = userdata;
	Executor *x = w->x;
	siginfo_t si = {};

	if (waitid((idtype_t)P_PIDFD, (id_t)fd, &si, WEXITED | WNOHANG) < 0) {
		if (errno != ECHILD)
			return 0;
	} else if (si.si_pid == 0)
		return 0;
	w->reaped = true;
	w->pid_source = sd_event_source_disable_unref(w->pid_source);
	w->pidfd = safe_close(w->pidfd);
	/* Detached first: the jobs job_finish() dispatches must not be
	 * given to it. */
	worker_close(w);
	if (w->job)
		job_finish(w->job, -ECONNRESET, NULL);
	if (group_gone(w)) {
		worker_free(w);
		return 0;
	}
	/* Counted still, and not about to end by itself. */
	w->retiring = false;
	sweep_arm(x);
	return 0;
}

/* Polled, not taken from the owner's event source: that event may still
 * wait in the same loop iteration as the answer. */
bool exec_reply_owner_gone(const ExecReply *r)
{
	struct pollfd p = {.fd = r->owner_pidfd, .events = POLLIN};

	return r->owner_pidfd >= 0 && poll(&p, 1, 0) > 0;
}

static int on_worker_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Worker *w = userdata;
	_cleanup_free_ char *text = NULL;
	ExecReply reply = {};
	uint32_t flags = 0, written = 0;
	int r;

	r = exec_msg_recv_written(fd, MSG_DONTWAIT, &flags, &written, &text, &reply.fds,
				  &reply.n_fds);
	if (r == -EAGAIN)
		return 0;
	if (r >= 0 && (flags & EXEC_MSG_ROOT)) {
		/* Kept with the key, and gone with it. */
		if (w->group && w->group->root.fd < 0 && reply.n_fds == 1) {
			(void)nonblocking_root_take(&w->group->root, reply.fds[0],
						    w->group->key.mntns_id);
			reply.n_fds = 0;
		}
		exec_reply_done(&reply);
		return 0;
	}
	if (r < 0 || !w->job) {
		/* A broken worker, or an answer nobody asked for: it goes. */
		exec_reply_done(&reply);
		worker_kill(w);
		if (w->job)
			job_finish(w->job, -ECONNRESET, NULL);
		worker_close(w);
		return 0;
	}
	reply.json = TAKE_PTR(text);
	reply.written = written <= strlen(reply.json) + 1 ? written : 0;
	reply.owner_pidfd = w->job->owner_pidfd;
	reply.nsfs = w->job->nsfs;
	(void)sd_event_now(w->x->event, CLOCK_MONOTONIC, &w->idle_since);
	if (!w->group)
		worker_close(w); /* its owner went while it worked */
	else if (!w->idle_source)
		(void)sd_event_add_time_relative(w->x->event, &w->idle_source, CLOCK_MONOTONIC,
						 w->x->idle_usec, 0, on_idle, w);
	job_finish(w->job, flags & EXEC_MSG_NO_ANSWER ? -EIO : 0, &reply);
	exec_reply_done(&reply);
	return 0;
}

static void worker_free(Worker *w)
{
	Executor *x;

	if (!w)
		return;
	x = w->x;
	worker_close(w);
	LIST_REMOVE(w, all);
	x->n_workers--;
	sd_event_source_disable_unref(w->pid_source);
	safe_close(w->pidfd);
	if (w->token)
		munmap(w->token, sizeof(*w->token));
	free(w);
	/* Room for a job that waited for a worker. */
	dispatch_all(x);
}

static int worker_spawn(Executor *x, Group *g, int nsfs, Worker **ret)
{
	_cleanup_free_ Worker *w = calloc(1, sizeof(Worker));
	int pair[2], r;
	pid_t parent = getpid(), pid;
	int *token;

	if (!w)
		return -ENOMEM;
	token = mmap(NULL, sizeof(*token), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		     0);
	if (token == MAP_FAILED)
		return negative_errno();
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) {
		r = negative_errno();
		munmap(token, sizeof(*token));
		return r;
	}
	pid = fork();
	if (pid < 0) {
		r = negative_errno();
		close_many(pair, 2);
		munmap(token, sizeof(*token));
		return r;
	}
	if (pid == 0)
		worker_main(pair[1], nsfs, x->handler, parent, token);
	/* As the worker does itself: whichever runs first, the group is set
	 * before the worker can fork. */
	(void)setpgid(pid, pid);
	safe_close(pair[1]);
	/* This worker's word, not the next one's. */
	(void)madvise(token, sizeof(*token), MADV_DONTFORK);
	*w = (Worker){
		.x = x, .principal = g->key.principal, .pid = pid, .sock = pair[0], .token = token};
	w->pidfd = pidfd_open(pid, 0);
	if (w->pidfd < 0) {
		r = negative_errno();
		(void)kill(pid, SIGKILL);
		(void)waitpid(pid, NULL, 0);
		safe_close(w->sock);
		munmap(w->token, sizeof(*w->token));
		return r;
	}
	LIST_INSERT_HEAD(&x->workers, w, all);
	x->n_workers++;
	LIST_INSERT_HEAD(&g->workers, w, in_group);
	w->group = g;
	r = sd_event_add_io(x->event, &w->pid_source, w->pidfd, EPOLLIN, on_worker_exit, w);
	if (r >= 0)
		r = sd_event_add_io(x->event, &w->sock_source, w->sock, EPOLLIN, on_worker_io, w);
	if (r < 0) {
		siginfo_t si;

		/* Nothing of the caller's ran in it yet: it dies at once, and
		 * is reaped here, not left a zombie nobody waits for. */
		worker_kill(w);
		(void)waitid((idtype_t)P_PIDFD, (id_t)w->pidfd, &si, WEXITED);
		worker_free(TAKE_PTR(w));
		return r;
	}
	*ret = TAKE_PTR(w);
	return 0;
}

/* fds: the request's, when it starts at once (borrowed: sent before
 * executor_submit() returns), or NULL for the job's own copies. */
static int job_start(Job *j, const int *fds, size_t n_fds)
{
	Executor *x = j->x;
	Worker *w = NULL, *i;
	Group *g;
	int r;

	g = group_get(x, &j->key, j->owner_pidfd);
	if (!g)
		return -ENOMEM;
	LIST_FOREACH(i, &g->workers, in_group)
	if (!i->job && i->sock >= 0) {
		w = i;
		break;
	}
	if (!w && !make_room(x, j->key.principal)) {
		group_maybe_free(g);
		return -EBUSY;
	}
	if (!w) {
		r = worker_spawn(x, g, j->nsfs, &w);
		if (r < 0) {
			group_maybe_free(g);
			/* The unit's TasksMax, reached while retired workers
			 * still exit: wait for one to be reaped (worker_free()
			 * dispatches again), not a refusal. */
			return r == -EAGAIN && x->n_workers > 0 ? -EBUSY : r;
		}
	}
	/* The worker is idle: its socket's buffer is empty, and the message
	 * fits it (large texts go by memfd), so this does not block. */
	if (!fds) {
		fds = j->fds;
		n_fds = j->n_fds;
	}
	*w->token = j->lent ? TOKEN_LENT : TOKEN_NONE;
	r = exec_msg_send(w->sock, j->request, j->lent ? EXEC_MSG_REPLY_FD : 0, fds, n_fds,
			  MSG_DONTWAIT);
	if (r < 0) {
		worker_kill(w);
		worker_close(w);
		return r;
	}
	close_many(j->fds, j->n_fds);
	j->n_fds = 0;
	w->job = j;
	j->worker = w;
	j->caller->n_busy++;
	return 0;
}

static void caller_dispatch(Caller *c, Executor *x)
{
	while (!x->freeing && c->n_busy < EXEC_BUSY_PER_UID && !TAILQ_EMPTY(&c->queue)) {
		Job *j = TAILQ_FIRST(&c->queue);
		int r;

		TAILQ_REMOVE(&c->queue, j, queue);
		j->queued = false;
		c->n_queued--;
		r = job_start(j, NULL, 0);
		if (r == -EBUSY) {
			/* No worker to be had yet: first in line still. */
			TAILQ_INSERT_HEAD(&c->queue, j, queue);
			j->queued = true;
			c->n_queued++;
			break;
		}
		if (r < 0)
			job_finish(j, r, NULL);
	}
}

/* Every caller whose jobs wait: a worker came free, or went.  Callers
 * with nothing left are freed at the end. */
static void dispatch_all(Executor *x)
{
	Caller *c, *next;

	if (x->dispatching) {
		x->dispatch_again = true;
		return;
	}
	x->dispatching = true;
	do {
		x->dispatch_again = false;
		LIST_FOREACH(c, &x->callers, all)
		if (!TAILQ_EMPTY(&c->queue))
			caller_dispatch(c, x);
	} while (x->dispatch_again);
	x->dispatching = false;
	/* While freeing, jobs still name their callers: executor_free() frees
	 * them last. */
	for (c = LIST_FIRST(&x->callers); c && !x->freeing; c = next) {
		next = LIST_NEXT(c, all);
		caller_maybe_free(c);
	}
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata)
{
	Job *j = userdata;
	Worker *w = j->worker;

	if (w) {
		/* Killed with whatever it started, and counted until the
		 * kernel lets the last of them die and we reap it (a lookup
		 * held up by the caller's own FUSE server may take forever). */
		worker_kill(w);
		worker_close(w);
	}
	job_finish(j, -ETIMEDOUT, NULL);
	return 0;
}

int executor_submit(Executor *x, const ExecKey *key, int *mntns_fd, int *owner_pidfd,
		    const char *request, const int *fds_in, size_t n_fds, int reply_fd,
		    uint64_t timeout_usec, ExecDoneFn done, void *userdata)
{
	int fds[EXEC_FDS_MAX + 1];
	Caller *c;
	Job *j;
	int r;

	if (n_fds > EXEC_FDS_MAX)
		return -E2BIG;
	/* No room for the client's socket: the loop writes the answer. */
	if (n_fds == EXEC_FDS_MAX)
		reply_fd = -EBADF;
	/* The client's socket goes last, as EXEC_MSG_REPLY_FD says. */
	if (n_fds)
		memcpy(fds, fds_in, sizeof(int) * n_fds);
	if (reply_fd >= 0)
		fds[n_fds++] = reply_fd;
	c = caller_get(x, key->principal);
	if (!c)
		return -ENOMEM;
	if (c->n_busy >= EXEC_BUSY_PER_UID && c->n_queued >= EXEC_QUEUED_PER_UID)
		return -EAGAIN;
	j = calloc(1, sizeof(*j));
	if (!j) {
		caller_maybe_free(c);
		return -ENOMEM;
	}
	/* The caller's fds, not copies: taken below only if this succeeds. */
	*j = (Job){.x = x,
		   .key = *key,
		   .caller = c,
		   .done = done,
		   .userdata = userdata,
		   .nsfs = *mntns_fd,
		   .owner_pidfd = owner_pidfd ? *owner_pidfd : -EBADF,
		   .lent = reply_fd >= 0};
	j->request = strdup(request);
	j->fds = calloc(n_fds ?: 1, sizeof(int));
	r = j->nsfs < 0 ? -EBADF : !j->request || !j->fds ? -ENOMEM : 0;
	LIST_INSERT_HEAD(&x->jobs, j, all);
	x->n_pending++;
	if (r >= 0)
		r = sd_event_add_time_relative(x->event, &j->deadline, CLOCK_MONOTONIC,
					       timeout_usec, 0, on_deadline, j);
	/* Copies of the fds only for a job that waits: one that starts now
	 * sends the caller's own.  It waits for a slot of its caller's, or
	 * for a worker (-EBUSY: make_room()). */
	if (r >= 0 && c->n_busy < EXEC_BUSY_PER_UID)
		r = job_start(j, fds, n_fds);
	else if (r >= 0)
		r = -EBUSY;
	if (r == -EBUSY && c->n_queued >= EXEC_QUEUED_PER_UID)
		r = -EAGAIN;
	else if (r == -EBUSY) {
		r = 0;
		for (size_t i = 0; r >= 0 && i < n_fds; i++) {
			j->fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
			if (j->fds[i] < 0)
				r = negative_errno();
			else
				j->n_fds++;
		}
		if (r >= 0) {
			TAILQ_INSERT_TAIL(&c->queue, j, queue);
			j->queued = true;
			c->n_queued++;
		}
	}
	if (r < 0) {
		j->nsfs = j->owner_pidfd = -EBADF; /* still the caller's */
		j->done = NULL;
		job_free(j);
		return r;
	}
	*mntns_fd = -EBADF;
	if (owner_pidfd)
		*owner_pidfd = -EBADF;
	return 0;
}

int executor_new(sd_event *event, ExecHandlerFn handler, uint64_t idle_usec, Executor **ret)
{
	Executor *x = calloc(1, sizeof(*x));
	int r;

	if (!x)
		return -ENOMEM;
	x->event = sd_event_ref(event);
	x->handler = handler;
	x->idle_usec = idle_usec ?: EXEC_IDLE_USEC;
	r = reap_setup();
	if (r < 0) {
		sd_event_unref(x->event);
		free(x);
		return r;
	}
	LIST_INIT(&x->jobs);
	LIST_INIT(&x->workers);
	LIST_INIT(&x->groups);
	LIST_INIT(&x->callers);
	*ret = x;
	return 0;
}

Executor *executor_free(Executor *x)
{
	Worker *w;

	if (!x)
		return NULL;
	x->freeing = true;
	x->sweep = sd_event_source_disable_unref(x->sweep);
	while ((w = LIST_FIRST(&x->workers))) {
		siginfo_t si;

		if (w->job) {
			Job *j = w->job;

			j->lost = !job_take_back(j);
			j->worker = NULL;
			w->job = NULL;
			j->caller->n_busy--;
		}
		if (!w->reaped) {
			worker_kill(w); /* its group too */
			(void)waitid((idtype_t)P_PIDFD, (id_t)w->pidfd, &si, WEXITED);
			w->reaped = true;
		}
		/* The rest of its group, our children now, unless its
		 * number is a new worker's. */
		if (!group_gone(w))
			reap_group_wait(w->pid);
		worker_free(w);
	}
	while (!LIST_EMPTY(&x->jobs)) {
		Job *j = LIST_FIRST(&x->jobs);

		if (j->queued) {
			TAILQ_REMOVE(&j->caller->queue, j, queue);
			j->queued = false;
			j->caller->n_queued--;
		}
		job_finish(j, -ECANCELED, NULL);
	}
	while (!LIST_EMPTY(&x->callers)) {
		Caller *c = LIST_FIRST(&x->callers);

		LIST_REMOVE(c, all);
		free(c);
	}
	sd_event_unref(x->event);
	free(x);
	return NULL;
}

size_t executor_pending(Executor *x)
{
	return x ? x->n_pending : 0;
}

int executor_namespace_root(Executor *x, uint64_t mntns_id)
{
	Group *g;

	LIST_FOREACH(g, &x->groups, all)
	{
		int fd = g->key.mntns_id == mntns_id ? nonblocking_root_get(&g->root, mntns_id)
						     : -EBADF;
		if (fd >= 0)
			return fd;
	}
	return -EBADF;
}

size_t executor_workers(Executor *x)
{
	return x ? x->n_workers : 0;
}
