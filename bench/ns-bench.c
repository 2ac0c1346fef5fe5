// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A node's worth of containers: N processes, each in a mount namespace of
 * its own, and root asking mountd for one tmpfs Create + Unmount into each
 * (by pid), one namespace after the other, twice over.  In each namespace
 * the pair is made twice in a row: the first is a "first touch" when no
 * worker serves that namespace yet, the second is "served before", a worker
 * being there from the first.
 *
 * Per pass it prints the errors (every reply is counted, none is fatal),
 * the first touches' median and p99, the served pairs' median, p99 of a
 * first touch over the served median, and the most tasks (mountd and its
 * workers) and memory (their proportional set sizes, summed) seen, sampled
 * every 25 namespaces.  mountd is found by its process name.  Nothing is asserted
 * about time; it exits 1 only when it could not run.  -o writes CSV rows in
 * mount-bench's columns, no header (bench/README.md): per size and pass the
 * first touches (ratio_floor: their median over the served pairs') and the
 * served pairs.
 *
 * With -a N and a command after "--", the command runs once the passes over
 * N namespaces are done, with those N alive and each touched (load-bench's
 * levels with a node's worth of containers about, bench/run).
 *
 *   ns-bench [-n 300,1000] [-o CSV] [-a N -- COMMAND [ARG...]]
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-stats.h"
#include "libmountd-client.h"

#define MAX_SIZES 4U
#define PASSES	  2U

static _Noreturn void die(const char *what)
{
	perror(what);
	exit(1);
}

/* ------------------------------------------------------------- targets */

static pid_t *targets;
static unsigned n_targets;

/* A process in a mount namespace of its own that waits to be killed.  Its
 * mounts are slaves, as a container runtime makes them (rslave): shared with
 * the host's, every mount in one of N namespaces would propagate to all N. */
static pid_t target_new(void)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		struct mount_attr slave = {.propagation = MS_SLAVE};

		if (unshare(CLONE_NEWNS) < 0 ||
		    syscall(__NR_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &slave,
			    sizeof(slave)) < 0 ||
		    write(p[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		die("target namespace");
	close(p[0]);
	return pid;
}

static void targets_grow(unsigned n)
{
	pid_t *t = realloc(targets, n * sizeof(*t));

	if (!t)
		die("realloc");
	targets = t;
	while (n_targets < n)
		targets[n_targets++] = target_new();
}

static void targets_stop(void)
{
	for (unsigned i = 0; i < n_targets; i++)
		kill(targets[i], SIGKILL);
	for (unsigned i = 0; i < n_targets; i++)
		waitpid(targets[i], NULL, 0);
	n_targets = 0;
}

/* -------------------------------------------------------- mountd's use */

/* Proportional set size: pages shared by mountd and its workers (forked
 * from it) count once in the sum, not once in each. */
static long pss_kib(pid_t pid)
{
	const char *key = "Pss";
	char path[64], line[256];
	size_t len = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			v = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* comm and parent of pid; false when it is gone. */
static bool proc_stat(pid_t pid, char comm[32], pid_t *ppid)
{
	char path[64], buf[512], *open, *close_;
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	open = ok ? strchr(buf, '(') : NULL;
	close_ = ok ? strrchr(buf, ')') : NULL;
	if (!open || !close_ || close_ - open - 1 >= 32)
		return false;
	memcpy(comm, open + 1, close_ - open - 1);
	comm[close_ - open - 1] = 0;
	*ppid = (pid_t)strtol(close_ + 4, NULL, 10);
	return true;
}

typedef struct Use {
	unsigned tasks;
	long pss_kib;
} Use;

/* mountd (comm "mountd") and its children: how many, and their RSS. */
static Use mountd_use(void)
{
	DIR *d = opendir("/proc");
	pid_t *pids = NULL, main_pid = 0;
	size_t n = 0, cap = 0;
	struct dirent *e;
	Use u = {};

	if (!d)
		die("/proc");
	while ((e = readdir(d))) {
		pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);

		if (pid <= 0)
			continue;
		if (n == cap) {
			pid_t *p = realloc(pids, (cap = cap ? 2 * cap : 1024) * sizeof(*p));

			if (!p)
				die("realloc");
			pids = p;
		}
		pids[n++] = pid;
	}
	closedir(d);
	for (size_t i = 0; i < n && !main_pid; i++) {
		char comm[32];
		pid_t ppid;

		if (proc_stat(pids[i], comm, &ppid) && !strcmp(comm, "mountd"))
			main_pid = pids[i];
	}
	for (size_t i = 0; i < n && main_pid; i++) {
		char comm[32];
		pid_t ppid;

		if (pids[i] != main_pid && !(proc_stat(pids[i], comm, &ppid) && ppid == main_pid))
			continue;
		u.tasks++;
		u.pss_kib += pss_kib(pids[i]);
	}
	free(pids);
	return u;
}

/* --------------------------------------------------------------- calls */

static MountdClient *client;
static const char *dir = "/run/ns-bench";

typedef struct Pass {
	double *first, *served;
	unsigned n_first, n_served, errors;
	char last_error[128];
	Use most;
} Pass;

/* Create + Unmount by pid; false (counted, the error kept) on any error. */
static bool one_call(Pass *p, const char *method, const char *json)
{
	json_object *params = json_tokener_parse(json);
	MountdReply r = {};
	int k;

	if (!params)
		die("json");
	k = mountd_client_call(client, method, params, NULL, 0, &r);
	json_object_put(params);
	if (k < 0 || r.error) {
		p->errors++;
		snprintf(p->last_error, sizeof(p->last_error), "%s: %s", method,
			 k < 0 ? strerror(-k) : r.error);
		if (k < 0 && mountd_client_connect(&client, NULL) < 0)
			die("reconnect");
		mountd_reply_done(&r);
		return false;
	}
	mountd_reply_done(&r);
	return true;
}

static bool pair(Pass *p, pid_t pid, double *took)
{
	char create[512], unmount[256];
	double t0 = bench_now();
	bool ok;

	snprintf(create, sizeof(create),
		 "{\"fsType\":\"tmpfs\",\"parameters\":[{\"key\":\"size\",\"type\":\"string\","
		 "\"value\":\"1m\"}],\"placement\":{\"namespace\":{\"pid\":%d},\"path\":\"%s\"}}",
		 (int)pid, dir);
	snprintf(unmount, sizeof(unmount), "{\"namespace\":{\"pid\":%d},\"path\":\"%s\"}", (int)pid,
		 dir);
	ok = one_call(p, "Create", create);
	ok = one_call(p, "Unmount", unmount) && ok;
	*took = bench_now() - t0;
	return ok;
}

static void sample(Pass *p)
{
	Use u = mountd_use();

	if (u.tasks > p->most.tasks)
		p->most.tasks = u.tasks;
	if (u.pss_kib > p->most.pss_kib)
		p->most.pss_kib = u.pss_kib;
}

static void run_pass(Pass *p)
{
	p->first = calloc(n_targets, sizeof(double));
	p->served = calloc(n_targets, sizeof(double));
	if (!p->first || !p->served)
		die("calloc");
	for (unsigned i = 0; i < n_targets; i++) {
		double t;

		if (pair(p, targets[i], &t))
			p->first[p->n_first++] = t;
		if (pair(p, targets[i], &t))
			p->served[p->n_served++] = t;
		if (i % 25 == 0)
			sample(p);
	}
	sample(p);
}

/* cmd, with the namespaces alive; its exit status is its own business. */
static void run_alive(char **cmd)
{
	pid_t pid;

	printf("ns-bench: %u namespaces alive: running %s\n", n_targets, cmd[0]);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		execvp(cmd[0], cmd);
		_exit(127);
	}
	if (waitpid(pid, NULL, 0) < 0)
		die("waitpid");
}

int main(int argc, char **argv)
{
	unsigned sizes[MAX_SIZES] = {300, 1000}, n_sizes = 2, alive = 0;
	const char *csv_path = NULL;
	FILE *csv = NULL;
	Use idle;
	int opt;

	while ((opt = getopt(argc, argv, "n:o:a:")) >= 0) {
		if (opt == 'n') {
			char *s = optarg, *end;

			for (n_sizes = 0; *s && n_sizes < MAX_SIZES; s = *end ? end + 1 : end) {
				sizes[n_sizes] = (unsigned)strtoul(s, &end, 10);
				if (end == s || !sizes[n_sizes])
					goto usage;
				n_sizes++;
			}
		} else if (opt == 'o') {
			csv_path = optarg;
		} else if (opt == 'a') {
			alive = (unsigned)strtoul(optarg, NULL, 10);
		} else {
			goto usage;
		}
	}
	if (!n_sizes || (alive ? optind == argc : optind != argc))
		goto usage;
	if (csv_path && !(csv = fopen(csv_path, "we")))
		die(csv_path);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die(dir);
	if (mountd_client_connect(&client, NULL) < 0)
		die("connect to mountd");

	{
		/* A socket-activated mountd runs once it has answered. */
		Pass p = {};

		if (!one_call(&p, "org.varlink.service.GetInfo", "{}"))
			die("GetInfo");
	}
	idle = mountd_use();
	printf("ns-bench: N namespaces, root's tmpfs Create+Unmount by pid into each, twice in a "
	       "row, "
	       "one namespace after the other; two passes. mountd before: %u tasks, %ld KiB\n",
	       idle.tasks, idle.pss_kib);
	printf("%-6s %-4s %6s %7s %11s %11s %11s %9s %6s %9s\n", "ns", "pass", "pairs", "errors",
	       "first med", "first p99", "served med", "p99/srv", "tasks", "PSS KiB");
	{
		/* Untimed: mountd's first requests after its start fault in
		 * its pages and the kernel's caches; that is no first touch. */
		Pass p = {};

		targets_grow(1);
		run_pass(&p);
		free(p.first);
		free(p.served);
	}
	for (unsigned s = 0; s < n_sizes; s++) {
		targets_grow(sizes[s]);
		for (unsigned k = 0; k < PASSES; k++) {
			Pass p = {};
			BenchStats f, v;
			double f99;

			run_pass(&p);
			if (!p.n_first || !p.n_served) {
				printf("%-6u %-4u every pair failed: %s\n", n_targets, k + 1,
				       p.last_error);
				continue;
			}
			f = bench_stats(p.first, p.n_first);
			v = bench_stats(p.served, p.n_served);
			f99 = f.p99;
			printf("%-6u %-4u %6u %7u %8.2f ms %8.2f ms %8.2f ms %8.1fx %6u %9ld\n",
			       n_targets, k + 1, 2 * n_targets, p.errors, f.median * 1e3, f99 * 1e3,
			       v.median * 1e3, f99 / v.median, p.most.tasks, p.most.pss_kib);
			if (p.errors)
				printf("       last error: %s\n", p.last_error);
			if (csv) {
				fprintf(csv,
					"namespaces,first touch %u ns pass "
					"%u,%.1f,%.1f,%.1f,%.2f,\n",
					n_targets, k + 1, f.median * 1e6, f.min * 1e6, f.max * 1e6,
					f.median / v.median);
				fprintf(csv,
					"namespaces,served before %u ns pass "
					"%u,%.1f,%.1f,%.1f,1,\n",
					n_targets, k + 1, v.median * 1e6, v.min * 1e6, v.max * 1e6);
			}
			free(p.first);
			free(p.served);
		}
		if (n_targets == alive)
			run_alive(argv + optind);
	}
	targets_stop();
	if (csv)
		fclose(csv);
	return 0;
usage:
	fprintf(stderr, "usage: ns-bench [-n 300,1000] [-o CSV] [-a N -- COMMAND [ARG...]]\n");
	return 1;
}
