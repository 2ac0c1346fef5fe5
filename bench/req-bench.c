// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The cost of one mountd request against the syscalls it stands for, and
 * the floor under it (issue 13; bench/README.md, "Per-request cost"):
 *
 *   raw own       fsopen/fsconfig(size)/CMD_CREATE/fsmount/move_mount/umount2
 *   mountd own    Create (placed) + Unmount over one kept connection
 *   raw setns     the raw sequence in another process's namespace (setns
 *                 there and back around it)
 *   mountd pid    Create + Unmount naming that process by pid
 *   fsinfo        fsinfo(statfs) of a path (statfs() where there is none)
 *   mountd Info   Info {path} (statfs)
 *   GetInfo       org.varlink.service.GetInfo: a bare varlink round trip
 *   seqpacket     one byte to another process and back over SEQPACKET
 *
 * Methods run interleaved round by round, each round starting with the
 * next, one untimed warm-up each; median, min, p10 and max per method, and
 * the goals' ratios of medians.  Runs in a private mount namespace; the
 * other namespace is a child's.  Asserts nothing about time.
 *
 *   req-bench [ROUNDS] [METHOD...]     (METHODs: names as above, to run
 *                                       only those, e.g. under callgrind)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fsinfo.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-raw.h"
#include "bench-stats.h"
#include "libmountd-client.h"
#include "syscall-nr.h"

static const char *dir = "/run/req-bench";
static MountdClient *client;
static pid_t other_pid = -1;
static int own_ns = -1, other_ns = -1;
static int echo_fd = -1;
static char create_own[256], create_pid[320], unmount_own[128], unmount_pid[192], info[128];

_Noreturn static void die(const char *what)
{
	fprintf(stderr, "req-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void raw_sequence(void)
{
	const char *what;

	if (bench_tmpfs_at(dir, &what) < 0)
		die(what);
	if (syscall(__NR_umount2, dir, 0) < 0)
		die("umount2");
}

static void raw_own(void)
{
	raw_sequence();
}

static void raw_setns(void)
{
	if (setns(other_ns, CLONE_NEWNS) < 0)
		die("setns");
	raw_sequence();
	if (setns(own_ns, CLONE_NEWNS) < 0)
		die("setns back");
}

static void call_ok(const char *method, const char *json)
{
	json_object *params = json_tokener_parse(json);
	MountdReply reply = {};

	if (!params || mountd_client_call(client, method, params, NULL, 0, &reply) < 0)
		die(method);
	if (reply.error) {
		char *msg = mountd_reply_error_string(&reply);

		fprintf(stderr, "req-bench: %s: %s\n", method, msg ?: reply.error);
		exit(1);
	}
	mountd_reply_done(&reply);
	json_object_put(params);
}

static void mountd_own(void)
{
	call_ok("Create", create_own);
	call_ok("Unmount", unmount_own);
}

static void mountd_pid(void)
{
	call_ok("Create", create_pid);
	call_ok("Unmount", unmount_pid);
}

static void fsinfo_direct(void)
{
	struct fsinfo_params p = {.request = fsinfo_attr_statfs};
	struct fsinfo_statfs buf;
	struct statfs st;

	if (syscall(__NR_fsinfo, AT_FDCWD, dir, &p, &buf, sizeof(buf)) < 0 &&
	    (errno != ENOSYS || statfs(dir, &st) < 0))
		die("fsinfo");
}

static void mountd_info(void)
{
	call_ok("Info", info);
}

static void getinfo(void)
{
	call_ok("org.varlink.service.GetInfo", "{}");
}

static void seqpacket(void)
{
	char c = 'x';

	if (send(echo_fd, &c, 1, 0) != 1 || recv(echo_fd, &c, 1, 0) != 1)
		die("seqpacket");
}

typedef struct Bench {
	const char *name;
	void (*once)(void);
	double *t;
	unsigned n;
} Bench;

static Bench benches[] = {
	{.name = "raw own", .once = raw_own},	   {.name = "mountd own", .once = mountd_own},
	{.name = "raw setns", .once = raw_setns},  {.name = "mountd pid", .once = mountd_pid},
	{.name = "fsinfo", .once = fsinfo_direct}, {.name = "mountd Info", .once = mountd_info},
	{.name = "GetInfo", .once = getinfo},	   {.name = "seqpacket", .once = seqpacket},
};
#define N_BENCHES (sizeof(benches) / sizeof(*benches))

static double median_of(const char *name)
{
	for (size_t k = 0; k < N_BENCHES; k++)
		if (benches[k].n && !strcmp(benches[k].name, name))
			return bench_stats(benches[k].t, benches[k].n).median;
	return 0;
}

static void ratio(const char *what, const char *a, const char *b)
{
	double x = median_of(a), y = median_of(b);

	if (x > 0 && y > 0)
		printf("%-34s %7.2fx\n", what, x / y);
}

/* A process in a mount namespace of its own, with dir, until we exit. */
static void start_other(void)
{
	struct mount_attr priv = {.propagation = MS_PRIVATE};
	int p[2];
	char c, path[64];

	if (pipe(p) < 0)
		die("pipe");
	other_pid = fork();
	if (other_pid < 0)
		die("fork");
	if (other_pid == 0) {
		if (unshare(CLONE_NEWNS) < 0 || syscall(__NR_mount_setattr, AT_FDCWD, "/",
							AT_RECURSIVE, &priv, sizeof(priv)) < 0)
			_exit(1);
		if (write(p[1], "x", 1) == 1)
			pause();
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		die("the other namespace");
	close(p[0]);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)other_pid);
	other_ns = open(path, O_RDONLY | O_CLOEXEC);
	if (other_ns < 0)
		die(path);
}

static void start_echo(void)
{
	int sv[2];
	char c;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		die("socketpair");
	switch (fork()) {
	case -1:
		die("fork");
	case 0:
		close(sv[0]);
		while (recv(sv[1], &c, 1, 0) == 1)
			if (send(sv[1], &c, 1, 0) != 1)
				break;
		_exit(0);
	default:
		break;
	}
	close(sv[1]);
	echo_fd = sv[0];
}

static bool wanted(const char *name, int argc, char **argv)
{
	if (argc <= 2)
		return true;
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 150;
	struct mount_attr priv = {.propagation = MS_PRIVATE};
	Bench *b[N_BENCHES];
	size_t nb = 0;

	if (unshare(CLONE_NEWNS) < 0 ||
	    syscall(__NR_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &priv, sizeof(priv)) < 0)
		die("private mount namespace");
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die(dir);
	own_ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (own_ns < 0)
		die("/proc/self/ns/mnt");
	start_other();
	start_echo();
	if (mountd_client_connect(&client, NULL) < 0)
		die("connect to mountd");
	snprintf(create_own, sizeof(create_own),
		 "{\"fsType\":\"tmpfs\",\"parameters\":[{\"key\":\"size\",\"type\":\"string\","
		 "\"value\":\"1m\"}],\"placement\":{\"path\":\"%s\"}}",
		 dir);
	snprintf(create_pid, sizeof(create_pid),
		 "{\"fsType\":\"tmpfs\",\"parameters\":[{\"key\":\"size\",\"type\":\"string\","
		 "\"value\":\"1m\"}],\"placement\":{\"namespace\":{\"pid\":%d},\"path\":\"%s\"}}",
		 (int)other_pid, dir);
	snprintf(unmount_own, sizeof(unmount_own), "{\"path\":\"%s\"}", dir);
	snprintf(unmount_pid, sizeof(unmount_pid), "{\"namespace\":{\"pid\":%d},\"path\":\"%s\"}",
		 (int)other_pid, dir);
	snprintf(info, sizeof(info), "{\"path\":\"%s\"}", dir);

	for (size_t k = 0; k < N_BENCHES; k++)
		if (wanted(benches[k].name, argc, argv)) {
			b[nb] = &benches[k];
			b[nb]->t = calloc(rounds ?: 1, sizeof(double));
			if (!b[nb]->t)
				die("calloc");
			b[nb]->once(); /* warm up: the worker, the page cache */
			nb++;
		}
	for (unsigned r = 0; r < rounds; r++)
		for (size_t j = 0; j < nb; j++) {
			Bench *x = b[(r + j) % nb];
			double t0 = bench_now();

			x->once();
			x->t[x->n++] = bench_now() - t0;
		}

	printf("req-bench: %u rounds\n%-12s %10s %10s %10s %10s\n", rounds, "method", "median us",
	       "min us", "p10 us", "max us");
	for (size_t k = 0; k < nb && rounds; k++) {
		BenchStats st = bench_stats(b[k]->t, b[k]->n);

		qsort(b[k]->t, b[k]->n, sizeof(double), bench_cmp_double);
		printf("%-12s %10.1f %10.1f %10.1f %10.1f\n", b[k]->name, st.median * 1e6,
		       st.min * 1e6, b[k]->t[b[k]->n / 10] * 1e6, st.max * 1e6);
	}
	ratio("Create+Unmount vs raw (goal 1.5x)", "mountd own", "raw own");
	ratio("by pid vs raw setns (goal 2x)", "mountd pid", "raw setns");
	ratio("Info vs fsinfo (goal 20x)", "mountd Info", "fsinfo");
	ratio("GetInfo vs fsinfo", "GetInfo", "fsinfo");
	ratio("seqpacket vs fsinfo", "seqpacket", "fsinfo");
	mountd_client_free(client);
	kill(other_pid, SIGKILL);
	return 0;
}
