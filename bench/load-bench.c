// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mountd under load: many clients at once, each a process with its own
 * varlink connection (libmountd-client), each making tmpfs mounts in turn:
 * Create (placement, directory created), Info (statfs), List, Unmount.
 *
 * Bench (no -g): in a private mount namespace, as root, requests/s with 1,
 * 2, 8 and 32 clients (-l), the levels interleaved round by round, and each
 * method's median and p99 latency; then a soak of -N requests in four parts;
 * mountd's RSS and fd counts, and its workers', when it is idle after start,
 * busy, and idle again after the levels and after each part of the soak.
 * -m adds that many tmpfs mounts to the namespace first (bench-mounts.h), -s
 * names the CSV's sections ("load" by default).  Tables on stdout, a CSV
 * with -o (bench/README.md).
 *
 * Load (-g, for tests/guest/75-mountd-load.sh): client groups of given
 * uids into the namespace of -p, each client a bounded number of requests;
 * -w Watch streams per group; a "flood" group keeps going until the other
 * groups are done (or its bound).  Prints what every group got, by kind of
 * error, and what each Watch saw; judging it is the caller's business.
 *
 *   load-bench [-l 1,2,8,32] [-t REQS_PER_LEVEL] [-r ROUNDS] [-N SOAK] [-o CSV]
 *              [-m EXTRA_MOUNTS] [-s LABEL]
 *   load-bench -g COUNT:UID:REQS[:flood] ... [-w WATCHES] [-p PID] [-d DIR]
 *
 * Asserts nothing about time; exits 1 only when it could not run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-mounts.h"
#include "bench-stats.h"
#include "libmountd-client.h"
#include "util.h"

#define MAX_CLIENTS 256U
#define MAX_GROUPS  8U
#define MAX_LEVELS  8U

enum { M_CREATE, M_INFO, M_LIST, M_UNMOUNT, M_COUNT };
static const char *const method_names[M_COUNT] = {"Create", "Info", "List", "Unmount"};

typedef struct Group {
	unsigned count, requests;
	uid_t uid;
	bool flood;
} Group;

/* What one client (or Watch) did; in memory shared with the parent. */
typedef struct ClientStat {
	unsigned group;
	bool watch, connected, finished;
	unsigned done, ok, limit, other, transport;
	unsigned ready, added, removed, changed, gone;
	double t_end;
	char first_error[256];
} ClientStat;

typedef struct Sample {
	float us;
	uint8_t method;
} Sample;

typedef struct Shared {
	volatile int go, others_done;
	double t_go;
	ClientStat st[MAX_CLIENTS];
} Shared;

static struct {
	const char *dir, *label;
	pid_t target;	/* 0: the caller's own namespace */
	unsigned extra; /* tmpfs mounts added to the namespace first */
} opt = {.dir = "/run/load-bench", .label = "load"};

static _Noreturn void die(const char *what, int r)
{
	fprintf(stderr, "load-bench: %s: %s\n", what, strerror(r < 0 ? -r : r));
	exit(1);
}

static void add_namespace(json_object *o)
{
	json_object *ns;

	if (opt.target <= 0)
		return;
	ns = json_object_new_object();
	json_object_object_add(ns, "pid", json_object_new_int(opt.target));
	json_object_object_add(o, "namespace", ns);
}

static json_object *request_params(unsigned method, const char *path)
{
	json_object *o = json_object_new_object(), *p, *param, *params;

	switch (method) {
	case M_CREATE:
		json_object_object_add(o, "fsType", json_object_new_string("tmpfs"));
		param = json_object_new_object();
		json_object_object_add(param, "key", json_object_new_string("size"));
		json_object_object_add(param, "type", json_object_new_string("string"));
		json_object_object_add(param, "value", json_object_new_string("1m"));
		params = json_object_new_array();
		json_object_array_add(params, param);
		json_object_object_add(o, "parameters", params);
		p = json_object_new_object();
		add_namespace(p);
		json_object_object_add(p, "path", json_object_new_string(path));
		json_object_object_add(p, "create", json_object_new_string("directory"));
		json_object_object_add(o, "placement", p);
		break;
	case M_INFO:
		add_namespace(o);
		json_object_object_add(o, "path", json_object_new_string(path));
		json_object_object_add(o, "attribute", json_object_new_string("statfs"));
		break;
	case M_LIST:
		add_namespace(o);
		break;
	case M_UNMOUNT:
		add_namespace(o);
		json_object_object_add(o, "path", json_object_new_string(path));
		break;
	}
	return o;
}

static void note_error(ClientStat *st, const char *method, const char *what)
{
	if (!st->first_error[0])
		snprintf(st->first_error, sizeof(st->first_error), "%s: %s", method, what);
}

static void become(uid_t uid)
{
	if (uid == 0)
		return;
	if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
		die("setresuid", errno);
}

/* One call; the outcome goes into st.  false: the connection is gone. */
static bool one_call(MountdClient *c, ClientStat *st, unsigned method, const char *path,
		     Sample *sample)
{
	_cleanup_json_ json_object *params = request_params(method, path);
	MountdMountList list = {};
	MountdReply reply = {};
	double t0 = bench_now();
	/* List as a C client reads it: in parts, into structs. */
	int r = method == M_LIST
			? mountd_client_list(c, params, NULL, 0, &list)
			: mountd_client_call(c, method_names[method], params, NULL, 0, &reply);

	if (sample)
		*sample = (Sample){.us = (bench_now() - t0) * 1e6, .method = method};
	st->done++;
	if (r < 0) {
		st->transport++;
		note_error(st, method_names[method], strerror(-r));
		return false;
	}
	if (method == M_LIST) {
		reply = list.reply;
		list.reply = (MountdReply){};
		mountd_mount_list_done(&list);
	}
	if (!reply.error)
		st->ok++;
	else if (strcmp(reply.error, MOUNTD_INTERFACE ".LimitExceeded") == 0)
		st->limit++;
	else {
		_cleanup_free_ char *msg = mountd_reply_error_string(&reply);

		st->other++;
		note_error(st, method_names[method], msg ?: reply.error);
	}
	mountd_reply_done(&reply);
	return true;
}

static void client_main(Shared *sh, unsigned id, const Group *g, Sample *samples, unsigned cap)
{
	ClientStat *st = &sh->st[id];
	_cleanup_(mountd_client_freep) MountdClient *c = NULL;
	char path[256];
	bool mounted = false;
	int r;

	become(g->uid);
	snprintf(path, sizeof(path), "%s/u%u-%u", opt.dir, (unsigned)g->uid, id);
	r = mountd_client_connect(&c, NULL);
	if (r < 0) {
		st->transport++;
		note_error(st, "connect", strerror(-r));
		st->finished = true;
		_exit(0);
	}
	st->connected = true;
	while (!sh->go)
		usleep(200);
	/* Whole cycles only, so that no mount is left behind: Create, Info,
	 * List, Unmount; Info stands in for Unmount when Create failed. */
	for (unsigned i = 0; i < g->requests; i++) {
		unsigned m = i % M_COUNT, ok = st->ok, limit = st->limit, other = st->other;

		if (m == M_CREATE && g->flood && sh->others_done)
			break;
		if (m == M_UNMOUNT && !mounted)
			m = M_INFO;
		if (!one_call(c, st, m, path, i < cap ? &samples[i] : NULL))
			break;
		if (m == M_CREATE)
			mounted = st->ok > ok;
		/* Refused for the uid's rate (LimitExceeded): the mount is
		 * still there.  Ask again a little later, as a client should;
		 * each try counts as a request. */
		while (m == M_UNMOUNT && st->ok == ok && st->limit > limit && st->other == other) {
			limit = st->limit;
			usleep(20 * 1000);
			if (!one_call(c, st, m, path, NULL))
				break;
		}
		if (m == M_UNMOUNT)
			mounted = false;
	}
	st->t_end = bench_now();
	st->finished = true;
	_exit(0);
}

static int on_watch_reply(MountdClient *c, MountdReply *reply, void *userdata)
{
	ClientStat *st = userdata;
	json_object *v;
	const char *e;

	if (reply->error) {
		_cleanup_free_ char *msg = mountd_reply_error_string(reply);

		st->other++;
		note_error(st, "Watch", msg ?: reply->error);
		return 1;
	}
	e = json_object_object_get_ex(reply->parameters, "event", &v) ? json_object_get_string(v)
								      : "";
	if (strcmp(e, "ready") == 0)
		st->ready++;
	else if (strcmp(e, "added") == 0)
		st->added++;
	else if (strcmp(e, "removed") == 0)
		st->removed++;
	else if (strcmp(e, "changed") == 0)
		st->changed++;
	else if (strcmp(e, "gone") == 0)
		st->gone++;
	return 0;
}

/* A Watch stream until the parent kills it; counts what it sees. */
static void watch_main(Shared *sh, unsigned id, const Group *g)
{
	ClientStat *st = &sh->st[id];
	_cleanup_(mountd_client_freep) MountdClient *c = NULL;
	_cleanup_json_ json_object *params = json_object_new_object();
	int r;

	become(g->uid);
	add_namespace(params);
	r = mountd_client_connect(&c, NULL);
	if (r >= 0) {
		st->connected = true;
		mountd_client_set_timeout(c, 0);
		r = mountd_client_call_more(c, "Watch", params, NULL, 0, on_watch_reply, st);
	}
	if (r < 0) {
		st->transport++;
		note_error(st, "Watch", strerror(-r));
	}
	st->finished = true;
	_exit(0);
}

typedef struct Run {
	Shared *sh;
	Sample *samples; /* cap per client */
	unsigned cap, n_clients, n_watches;
	pid_t pids[MAX_CLIENTS];
	unsigned flood_done_at_others_end;
	bool flood_running_at_others_end, any_flood;
	double elapsed;
	/* Taken once half the requests are done, if mid_pid is set. */
	pid_t mid_pid;
	const char *mid_when;
	struct Snapshot *mid;
} Run;

static Shared *shared_new(size_t samples)
{
	void *p = mmap(NULL, sizeof(Shared) + samples * sizeof(Sample), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap", errno);
	return p;
}

static void shared_free(Run *run)
{
	munmap(run->sh, sizeof(Shared) + (size_t)run->cap * MAX_CLIENTS * sizeof(Sample));
}

static pid_t spawn(void (*fn)(Shared *, unsigned, const Group *), Shared *sh, unsigned id,
		   const Group *g)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork", errno);
	if (pid == 0) {
		/* No client outlives a generator that died. */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(1);
		fn(sh, id, g);
	}
	return pid;
}

static void client_entry(Shared *sh, unsigned id, const Group *g);
static void snapshot_mid(Run *run, unsigned total);
static Run *current;
static void client_entry(Shared *sh, unsigned id, const Group *g)
{
	client_main(sh, id, g, current->samples + (size_t)id * current->cap, current->cap);
}

static bool all_watches_ready(Run *run)
{
	for (unsigned i = run->n_clients; i < run->n_clients + run->n_watches; i++)
		if (!run->sh->st[i].ready && !run->sh->st[i].finished)
			return false;
	return true;
}

/* Runs the groups to their end; every client's record stays in run->sh. */
static void run_groups(Run *run, const Group *groups, unsigned n_groups, unsigned watches,
		       unsigned cap)
{
	unsigned n = 0, total = 0;

	for (unsigned k = 0; k < n_groups; k++) {
		n += groups[k].count;
		total += groups[k].count * groups[k].requests;
	}
	if (n + watches * n_groups > MAX_CLIENTS)
		die("too many clients", E2BIG);
	/* Everything but the caller's mid-run snapshot request. */
	*run = (Run){.cap = cap,
		     .n_clients = n,
		     .n_watches = watches * n_groups,
		     .mid_pid = run->mid_pid,
		     .mid_when = run->mid_when,
		     .mid = run->mid};
	run->sh = shared_new((size_t)cap * MAX_CLIENTS);
	run->samples = (Sample *)(run->sh + 1);
	current = run;

	/* Watches first, and ready, so that they see every client's mounts. */
	n = run->n_clients;
	for (unsigned k = 0; k < n_groups; k++)
		for (unsigned w = 0; w < watches; w++, n++) {
			run->sh->st[n] = (ClientStat){.group = k, .watch = true};
			run->pids[n] = spawn(watch_main, run->sh, n, &groups[k]);
		}
	while (!all_watches_ready(run))
		usleep(10000);

	n = 0;
	for (unsigned k = 0; k < n_groups; k++) {
		run->any_flood |= groups[k].flood;
		for (unsigned i = 0; i < groups[k].count; i++, n++) {
			run->sh->st[n] = (ClientStat){.group = k};
			run->pids[n] = spawn(client_entry, run->sh, n, &groups[k]);
		}
	}
	/* A client that could not connect has finished without connecting. */
	for (;;) {
		unsigned settled = 0;

		for (unsigned i = 0; i < run->n_clients; i++)
			settled += run->sh->st[i].connected || run->sh->st[i].finished;
		if (settled == run->n_clients)
			break;
		usleep(1000);
	}
	run->sh->t_go = bench_now();
	run->sh->go = 1;
	if (run->mid_pid > 0)
		snapshot_mid(run, total);

	n = 0;
	for (unsigned k = 0; k < n_groups; k++)
		for (unsigned i = 0; i < groups[k].count; i++, n++)
			if (!groups[k].flood)
				(void)waitpid(run->pids[n], NULL, 0);
	if (run->any_flood) {
		n = 0;
		for (unsigned k = 0; k < n_groups; k++)
			for (unsigned i = 0; i < groups[k].count; i++, n++)
				if (groups[k].flood) {
					run->flood_done_at_others_end += run->sh->st[n].done;
					run->flood_running_at_others_end |=
						!run->sh->st[n].finished;
				}
	}
	run->sh->others_done = 1;
	for (unsigned i = 0; i < run->n_clients; i++)
		(void)waitpid(run->pids[i], NULL, 0);
	run->elapsed = 0;
	for (unsigned i = 0; i < run->n_clients; i++)
		run->elapsed = MAX(run->elapsed, run->sh->st[i].t_end - run->sh->t_go);
	for (unsigned i = run->n_clients; i < run->n_clients + run->n_watches; i++) {
		(void)kill(run->pids[i], SIGTERM);
		(void)waitpid(run->pids[i], NULL, 0);
	}
}

/* ------------------------------------------------------------ load (-g) */

static int load_main(const Group *groups, unsigned n_groups, unsigned watches)
{
	Run run = {};
	unsigned n = 0;

	run_groups(&run, groups, n_groups, watches, 0);
	for (unsigned k = 0; k < n_groups; k++) {
		ClientStat sum = {};
		unsigned finished = 0;

		for (unsigned i = 0; i < groups[k].count; i++, n++) {
			ClientStat *s = &run.sh->st[n];

			sum.done += s->done;
			sum.ok += s->ok;
			sum.limit += s->limit;
			sum.other += s->other;
			sum.transport += s->transport;
			finished += s->finished;
			if (s->first_error[0])
				printf("error group=%u uid=%u client=%u %s\n", k,
				       (unsigned)groups[k].uid, n, s->first_error);
		}
		printf("group=%u uid=%u clients=%u flood=%d requests=%u ok=%u limit=%u "
		       "other=%u transport=%u finished=%u\n",
		       k, (unsigned)groups[k].uid, groups[k].count, groups[k].flood, sum.done,
		       sum.ok, sum.limit, sum.other, sum.transport, finished);
	}
	for (; n < run.n_clients + run.n_watches; n++) {
		ClientStat *s = &run.sh->st[n];

		if (s->first_error[0])
			printf("error watch group=%u uid=%u %s\n", s->group,
			       (unsigned)groups[s->group].uid, s->first_error);
		printf("watch group=%u uid=%u ready=%u added=%u removed=%u changed=%u gone=%u "
		       "other=%u transport=%u ended=%d\n",
		       s->group, (unsigned)groups[s->group].uid, s->ready, s->added, s->removed,
		       s->changed, s->gone, s->other, s->transport, s->finished);
	}
	if (run.any_flood)
		printf("flood requests_when_others_done=%u still_running=%s\n",
		       run.flood_done_at_others_end,
		       run.flood_running_at_others_end ? "yes" : "no");
	shared_free(&run);
	return 0;
}

/* ----------------------------------------------------------- bench mode */

/* mountd's process or one of its workers, from /proc. */
typedef struct ProcUse {
	long rss_kib, anon_kib, file_kib;
	int fds;
} ProcUse;

typedef struct Snapshot {
	const char *when;
	ProcUse mountd, workers; /* workers: summed */
	unsigned n_workers;
} Snapshot;

static long status_kib(pid_t pid, const char *key)
{
	char path[64], line[256];
	size_t len = strlen(key);
	long v = -1;
	_cleanup_fclose_ FILE *f = NULL;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, key, len) == 0 && line[len] == ':')
			v = strtol(line + len + 1, NULL, 10);
	return v;
}

static int count_fds(pid_t pid)
{
	char path[64];
	struct dirent *de;
	int n = 0;
	_cleanup_closedir_ DIR *d = NULL;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	return n;
}

static ProcUse proc_use(pid_t pid)
{
	return (ProcUse){.rss_kib = status_kib(pid, "VmRSS"),
			 .anon_kib = status_kib(pid, "RssAnon"),
			 .file_kib = status_kib(pid, "RssFile"),
			 .fds = count_fds(pid)};
}

/* The parent of /proc/NAME, or -1. */
static pid_t parent_of(const char *name)
{
	char path[300], buf[512], *p;
	int parent;
	ssize_t len;
	_cleanup_close_ int fd = -EBADF;

	snprintf(path, sizeof(path), "/proc/%s/stat", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (len <= 0)
		return -1;
	buf[len] = 0;
	/* comm may hold anything but ends with the last ')'. */
	p = strrchr(buf, ')');
	return p && sscanf(p + 1, " %*c %d", &parent) == 1 ? parent : -1;
}

static bool is_mountd(pid_t pid)
{
	char path[64], comm[32] = "";
	_cleanup_fclose_ FILE *f = NULL;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	return f && fgets(comm, sizeof(comm), f) && strcmp(comm, "mountd\n") == 0;
}

/* Every process of /proc for which keep(pid, parent, data) holds, up to max. */
static unsigned scan_proc(bool (*keep)(pid_t, pid_t, pid_t), pid_t data, pid_t *out, unsigned max)
{
	_cleanup_closedir_ DIR *d = opendir("/proc");
	struct dirent *de;
	unsigned n = 0;

	while (d && n < max && (de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9' &&
		    keep(atoi(de->d_name), parent_of(de->d_name), data))
			out[n++] = atoi(de->d_name);
	return n;
}

static bool is_child(pid_t pid, pid_t parent, pid_t ppid)
{
	return parent == ppid;
}

/* The children of ppid: its workers. */
static unsigned children(pid_t ppid, pid_t *out, unsigned max)
{
	return scan_proc(is_child, ppid, out, max);
}

static bool is_main_mountd(pid_t pid, pid_t parent, pid_t unused)
{
	return is_mountd(pid) && !is_mountd(parent);
}

/* SO_PEERCRED names the process that listen()ed: systemd (pid 1) when the
 * socket is a socket unit's.  Then mountd is the process called mountd
 * whose parent is not (its workers are its children); one just activated
 * by our connection may still be systemd's "(mountd)": give it 10 s. */
static pid_t find_mountd(pid_t peer)
{
	pid_t found[2];
	unsigned n = 0;

	if (is_mountd(peer))
		return peer;
	for (unsigned i = 0; i < 100 && (n = scan_proc(is_main_mountd, 0, found, 2)) == 0; i++)
		usleep(100000);
	if (n == 0)
		die("no process called mountd", ESRCH);
	if (n > 1)
		die("several processes called mountd", ENOTUNIQ);
	return found[0];
}

static Snapshot snapshot(pid_t mountd, const char *when)
{
	pid_t w[MAX_CLIENTS];
	Snapshot s = {.when = when, .mountd = proc_use(mountd)};
	unsigned n = children(mountd, w, MAX_CLIENTS);

	for (unsigned i = 0; i < n; i++) {
		ProcUse u = proc_use(w[i]);

		if (u.rss_kib < 0 || u.fds < 0)
			continue; /* exited meanwhile */
		s.n_workers++;
		s.workers.rss_kib += u.rss_kib;
		s.workers.anon_kib += u.anon_kib;
		s.workers.file_kib += u.file_kib;
		s.workers.fds += u.fds;
	}
	return s;
}

/* While the clients work: half of them done is well past any warm-up. */
static void snapshot_mid(Run *run, unsigned total)
{
	for (;;) {
		unsigned done = 0, finished = 0;

		for (unsigned i = 0; i < run->n_clients; i++) {
			done += run->sh->st[i].done;
			finished += run->sh->st[i].finished;
		}
		if (done >= total / 2 || finished == run->n_clients)
			break;
		usleep(10000);
	}
	*run->mid = snapshot(run->mid_pid, run->mid_when);
}

/* Idle workers exit after a while (EXEC_IDLE_USEC); wait for that, and
 * then for mountd to give freed heap back (1 s after its last request). */
static void wait_idle(pid_t mountd, unsigned max_s)
{
	pid_t w[4];

	for (unsigned i = 0; i < max_s * 10 && children(mountd, w, 4) > 0; i++)
		usleep(100000);
	sleep(2);
}

typedef struct Level {
	unsigned clients;
	pid_t mid_pid; /* take *mid half-way through a round */
	const char *mid_when;
	Snapshot *mid;
	double *per_req; /* wall time per completed request, one per round */
	unsigned n_rounds;
	float *lat[M_COUNT];
	unsigned n_lat[M_COUNT];
	unsigned errors;
} Level;

static void level_round(Level *lv, unsigned requests)
{
	Group g = {.count = lv->clients, .requests = requests / lv->clients, .uid = 0};
	unsigned done = 0;
	Run run = {.mid_pid = lv->mid_pid, .mid_when = lv->mid_when, .mid = lv->mid};

	g.requests -= g.requests % M_COUNT;
	if (g.requests < M_COUNT)
		g.requests = M_COUNT;
	run_groups(&run, &g, 1, 0, g.requests);
	for (unsigned i = 0; i < run.n_clients; i++) {
		ClientStat *s = &run.sh->st[i];

		done += s->ok;
		lv->errors += s->done - s->ok;
		if (s->first_error[0])
			fprintf(stderr, "load-bench: %u clients: %s\n", lv->clients,
				s->first_error);
		for (unsigned j = 0; j < s->done && j < run.cap; j++) {
			Sample *x = &run.samples[(size_t)i * run.cap + j];
			unsigned *n = &lv->n_lat[x->method];

			lv->lat[x->method] = realloc(lv->lat[x->method], (*n + 1) * sizeof(float));
			if (!lv->lat[x->method])
				die("realloc", ENOMEM);
			lv->lat[x->method][(*n)++] = x->us;
		}
	}
	lv->per_req[lv->n_rounds++] = done ? run.elapsed / done : 0;
	shared_free(&run);
}

static BenchStats float_stats(const float *v, unsigned n)
{
	double *d = calloc(n ?: 1, sizeof(*d));
	BenchStats st = {};

	if (!d)
		die("calloc", ENOMEM);
	for (unsigned i = 0; i < n; i++)
		d[i] = v[i];
	if (n)
		st = bench_stats(d, n);
	free(d);
	return st;
}

static void print_snapshot(const Snapshot *s)
{
	printf("%-28s %8ld %8ld %8ld %5d %8u %10ld %8d\n", s->when, s->mountd.rss_kib,
	       s->mountd.anon_kib, s->mountd.file_kib, s->mountd.fds, s->n_workers,
	       s->workers.rss_kib, s->workers.fds);
}

static void csv_row(FILE *f, const char *section, const char *method, BenchStats st, double ratio)
{
	if (f)
		fprintf(f, "%s,%s,%.1f,%.1f,%.1f,%.3f,\n", section, method, st.median * 1e6,
			st.min * 1e6, st.max * 1e6, ratio);
}

/* The soak's parts, an idle snapshot after each. */
#define SOAK_PARTS 4

static int bench_main(unsigned *levels, unsigned n_levels, unsigned per_level, unsigned rounds,
		      unsigned soak, const char *csv)
{
	struct mount_attr priv = {.propagation = MS_PRIVATE};
	_cleanup_(mountd_client_freep) MountdClient *ctl = NULL;
	_cleanup_fclose_ FILE *out = NULL;
	Level lv[MAX_LEVELS] = {};
	/* Start, busy, after the levels, busy in the soak, after each part. */
	Snapshot snaps[4 + SOAK_PARTS];
	unsigned n_snaps = 3;
	unsigned busiest = 0;
	char busy[64];
	struct ucred cred;
	socklen_t len = sizeof(cred);
	double base = 0;
	int r;

	if (unshare(CLONE_NEWNS) < 0 ||
	    syscall(__NR_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &priv, sizeof(priv)) < 0)
		die("private mount namespace", errno);
	if (mkdir(opt.dir, 0755) < 0 && errno != EEXIST)
		die(opt.dir, errno);
	if (opt.extra) {
		const char *base = "/run/load-bench-mounts";

		if ((mkdir(base, 0755) < 0 && errno != EEXIST) ||
		    syscall(__NR_mount, "load-bench", base, "tmpfs", 0, "mode=0755,nr_inodes=0") <
			    0)
			die(base, errno);
		for (unsigned i = 0; i < opt.extra; i++)
			bench_mount_add(base, i);
	}
	r = mountd_client_connect(&ctl, NULL);
	if (r < 0)
		die("connect to mountd", r);
	if (getsockopt(mountd_client_get_fd(ctl), SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		die("SO_PEERCRED", errno);
	cred.pid = find_mountd(cred.pid);
	/* Started by this connection (socket activation) or earlier: either
	 * way let its start-up settle and any workers of earlier use end. */
	wait_idle(cred.pid, 60);
	snaps[0] = snapshot(cred.pid, "idle after start");

	printf("\nload-bench: %u rounds x %u requests per level (Create, Info, List, Unmount "
	       "in turn), soak %u, %ld CPUs, %u extra mounts\n",
	       rounds, per_level, soak, sysconf(_SC_NPROCESSORS_ONLN), opt.extra);
	for (unsigned k = 0; k < n_levels; k++) {
		lv[k].clients = levels[k];
		lv[k].per_req = calloc(rounds, sizeof(double));
		if (!lv[k].per_req)
			die("calloc", ENOMEM);
		if (levels[k] > levels[busiest])
			busiest = k;
	}
	snprintf(busy, sizeof(busy), "busy: %u clients, mid-round", levels[busiest]);
	lv[busiest].mid_pid = cred.pid;
	lv[busiest].mid_when = busy;
	lv[busiest].mid = &snaps[1];
	for (unsigned rd = 0; rd < rounds; rd++)
		for (unsigned j = 0; j < n_levels; j++)
			level_round(&lv[(rd + j) % n_levels], per_level);
	wait_idle(cred.pid, 60);
	snaps[2] = snapshot(cred.pid, "idle after the levels");
	if (soak) {
		/* In parts, each followed by an idle snapshot: growth shows
		 * as a rise from part to part, not only against the start. */
		static char when[SOAK_PARTS][48];
		unsigned per_part = soak / SOAK_PARTS / 8 / M_COUNT * 8 * M_COUNT, done = 0,
			 errors = 0;
		double elapsed = 0;

		n_snaps = 4;
		for (unsigned part = 0; part < SOAK_PARTS; part++) {
			Level s = {.clients = 8};
			double t = 0;

			s.per_req = &t;
			if (part == (SOAK_PARTS - 1) / 2) {
				s.mid_pid = cred.pid;
				s.mid_when = "busy: soak, mid-way";
				s.mid = &snaps[3];
			}
			level_round(&s, per_part);
			done += per_part;
			elapsed += t * per_part;
			errors += s.errors;
			wait_idle(cred.pid, 60);
			snprintf(when[part], sizeof(when[part]), "idle after %u soak requests",
				 done);
			snaps[n_snaps++] = snapshot(cred.pid, when[part]);
			for (unsigned m = 0; m < M_COUNT; m++)
				free(s.lat[m]);
		}
		printf("soak: %u requests by 8 clients in %u parts, %.0f requests/s, %u errors\n",
		       done, SOAK_PARTS, elapsed > 0 ? done / elapsed : 0, errors);
	}

	if (csv) {
		/* The results dir may not exist yet: make it (one level). */
		_cleanup_free_ char *parent = strdup(csv);

		if (parent && strrchr(parent, '/')) {
			*strrchr(parent, '/') = 0;
			(void)mkdir(parent, 0755);
		}
		out = fopen(csv, "we");
		if (!out)
			die(csv, errno);
		fprintf(out, "section,method,median_us,min_us,max_us,ratio_floor,ratio_rival\n");
	}
	printf("\n%-8s %10s %10s %10s %8s %10s %10s %10s %10s %7s\n", "clients", "req/s", "min",
	       "max", "vs 1", "Create us", "Info us", "List us", "Unmount us", "errors");
	for (unsigned k = 0; k < n_levels; k++) {
		BenchStats st = bench_stats(lv[k].per_req, lv[k].n_rounds);
		char section[64];

		if (k == 0 || lv[k].clients == 1)
			base = st.median;
		snprintf(section, sizeof(section), "%s %u clients", opt.label, lv[k].clients);
		printf("%-8u %10.0f %10.0f %10.0f %7.2fx", lv[k].clients, 1 / st.median, 1 / st.max,
		       1 / st.min, base / st.median);
		csv_row(out, section, "request", st, st.median / base);
		for (unsigned m = 0; m < M_COUNT; m++) {
			BenchStats ms = float_stats(lv[k].lat[m], lv[k].n_lat[m]);
			BenchStats b = float_stats(lv[0].lat[m], lv[0].n_lat[m]);

			printf(" %10.0f", ms.median);
			ms.median /= 1e6, ms.min /= 1e6, ms.max /= 1e6;
			csv_row(out, section, method_names[m], ms,
				b.median ? ms.median * 1e6 / b.median : 0);
		}
		printf(" %7u\n", lv[k].errors);
	}
	printf("(req/s: completed requests over the wall time of the round, median over "
	       "rounds; min/max: slowest/fastest round; vs 1: against the first level; "
	       "method columns: median latency of one call)\n");
	printf("\n%-8s %10s %10s %10s %10s  (p99 latency of one call)\n", "clients", "Create us",
	       "Info us", "List us", "Unmount us");
	for (unsigned k = 0; k < n_levels; k++) {
		printf("%-8u", lv[k].clients);
		for (unsigned m = 0; m < M_COUNT; m++)
			printf(" %10.0f", float_stats(lv[k].lat[m], lv[k].n_lat[m]).p99);
		printf("\n");
	}

	printf("\nmountd pid %d (workers are forked from it: their RSS counts pages they share "
	       "with it)\n%-28s %8s %8s %8s %5s %8s %10s %8s\n",
	       (int)cred.pid, "when", "RSS KiB", "anon", "file", "fds", "workers", "wRSS KiB",
	       "w fds");
	for (unsigned i = 0; i < n_snaps; i++)
		print_snapshot(&snaps[i]);
	for (unsigned k = 0; k < n_levels; k++) {
		free(lv[k].per_req);
		for (unsigned m = 0; m < M_COUNT; m++)
			free(lv[k].lat[m]);
	}
	return 0;
}

static unsigned parse_levels(const char *s, unsigned *out)
{
	unsigned n = 0;

	for (char *end; *s && n < MAX_LEVELS; s = *end ? end + 1 : end) {
		unsigned long v = strtoul(s, &end, 10);

		if (v == 0 || v > MAX_CLIENTS || (*end && *end != ','))
			die("-l: a list of client counts like 1,2,8,32", EINVAL);
		out[n++] = v;
	}
	return n;
}

static Group parse_group(const char *s)
{
	Group g = {};
	unsigned uid;
	char flood[8] = "";

	if (sscanf(s, "%u:%u:%u:%7s", &g.count, &uid, &g.requests, flood) < 3 || g.count == 0 ||
	    g.count > MAX_CLIENTS || (flood[0] && strcmp(flood, "flood") != 0))
		die("-g: COUNT:UID:REQUESTS[:flood]", EINVAL);
	g.uid = uid;
	g.flood = flood[0];
	/* Rounded up to whole cycles. */
	g.requests = (g.requests + M_COUNT - 1) / M_COUNT * M_COUNT;
	return g;
}

int main(int argc, char **argv)
{
	unsigned levels[MAX_LEVELS] = {1, 2, 8, 32}, n_levels = 4;
	unsigned per_level = 400, rounds = 3, soak = 5000, watches = 0, n_groups = 0;
	Group groups[MAX_GROUPS];
	const char *csv = NULL;
	int c;

	while ((c = getopt(argc, argv, "l:t:r:N:o:g:w:p:d:m:s:")) >= 0)
		switch (c) {
		case 'l':
			n_levels = parse_levels(optarg, levels);
			break;
		case 't':
			per_level = strtoul(optarg, NULL, 10);
			break;
		case 'r':
			rounds = strtoul(optarg, NULL, 10) ?: 1;
			break;
		case 'N':
			soak = strtoul(optarg, NULL, 10);
			break;
		case 'o':
			csv = optarg;
			break;
		case 'g':
			if (n_groups == MAX_GROUPS)
				die("-g: too many groups", E2BIG);
			groups[n_groups++] = parse_group(optarg);
			break;
		case 'w':
			watches = strtoul(optarg, NULL, 10);
			break;
		case 'p':
			opt.target = atoi(optarg);
			break;
		case 'd':
			opt.dir = optarg;
			break;
		case 'm':
			opt.extra = strtoul(optarg, NULL, 10);
			break;
		case 's':
			opt.label = optarg;
			break;
		default:
			fprintf(stderr, "usage: see the top of bench/load-bench.c\n");
			return 2;
		}
	/* A client killed mid-call must not take the parent with it. */
	signal(SIGPIPE, SIG_IGN);
	if (n_groups)
		return load_main(groups, n_groups, watches);
	return bench_main(levels, n_levels, per_level, rounds, soak, csv);
}
