// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The cost of one "new tmpfs attached at a directory, then unmounted", made
 * four ways in the same run, so the ratios compare like with like:
 *
 *   raw       fsopen/fsconfig/fsmount/move_mount + umount2 in this process
 *   mount(8)  fork+exec mount -t tmpfs … and umount
 *   mountd    Create + Unmount over varlink with libmountd-client
 *   mountctl  fork+exec mountctl mount … and mountctl umount
 *
 * and one listing of every mount in a namespace holding many mounts:
 * /proc/self/mountinfo parsed, mountd's List, and fsinfo-free statfs() per
 * mount point.  Runs in a private mount namespace (mountd mounts into the
 * caller's namespace).  The methods of a table run interleaved, round by
 * round, each round starting with the next method, so that whatever the
 * machine does meanwhile falls on all of them; each time is kept, and the
 * table gives the median, min and max and the ratio of medians.  Asserts
 * nothing about time.
 *
 *   mount-bench [ROUNDS] [EXTRA_MOUNTS]
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-stats.h"
#include "libmountd-client.h"

static const char *dir = "/run/mount-bench";

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void run(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "%s failed\n", argv[0]);
		exit(1);
	}
}

/* A 1 MiB tmpfs at path, with the new mount API and nothing else. */
static void tmpfs_at(const char *path)
{
	int fs = syscall(__NR_fsopen, "tmpfs", FSOPEN_CLOEXEC), mnt;

	if (fs < 0 || syscall(__NR_fsconfig, fs, FSCONFIG_SET_STRING, "size", "1m", 0) < 0 ||
	    syscall(__NR_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		die("fsopen/fsconfig");
	mnt = syscall(__NR_fsmount, fs, FSMOUNT_CLOEXEC, 0);
	if (mnt < 0 ||
	    syscall(__NR_move_mount, mnt, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		die("fsmount/move_mount");
	close(mnt);
	close(fs);
}

static void raw_once(void)
{
	tmpfs_at(dir);
	if (syscall(__NR_umount2, dir, 0) < 0)
		die("umount2");
}

static void mount8_once(void)
{
	run((char *const[]){"mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", (char *)dir, NULL});
	run((char *const[]){"umount", (char *)dir, NULL});
}

static void mountctl_once(void)
{
	run((char *const[]){"mountctl", "mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs",
			    (char *)dir, NULL});
	run((char *const[]){"mountctl", "umount", (char *)dir, NULL});
}

static void call_ok(MountdClient *c, const char *method, const char *json)
{
	json_object *params = json_tokener_parse(json);
	MountdReply reply = {};

	if (!params || mountd_client_call(c, method, params, NULL, 0, &reply) < 0)
		die(method);
	if (reply.error) {
		char *msg = mountd_reply_error_string(&reply);

		fprintf(stderr, "%s: %s\n", method, msg ?: reply.error);
		exit(1);
	}
	mountd_reply_done(&reply);
	json_object_put(params);
}

static MountdClient *client;

static void mountd_once(void)
{
	char create[256], unmount[128];

	snprintf(create, sizeof(create),
		 "{\"fsType\":\"tmpfs\",\"parameters\":[{\"key\":\"size\",\"type\":\"string\","
		 "\"value\":\"1m\"}],\"placement\":{\"path\":\"%s\"}}",
		 dir);
	snprintf(unmount, sizeof(unmount), "{\"path\":\"%s\"}", dir);
	call_ok(client, "Create", create);
	call_ok(client, "Unmount", unmount);
}

static void list_mountinfo(void)
{
	char line[4096];
	unsigned n = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		die("mountinfo");
	while (fgets(line, sizeof(line), f)) {
		int id, parent;
		char target[1024];

		if (sscanf(line, "%d %d %*s %*s %1023s", &id, &parent, target) == 3)
			n++;
	}
	fclose(f);
	if (n == 0)
		die("mountinfo empty");
}

static void list_statfs(void)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		die("mountinfo");
	while (fgets(line, sizeof(line), f)) {
		char target[1024];
		struct statfs sfs;

		if (sscanf(line, "%*d %*d %*s %*s %1023s", target) == 1)
			(void)statfs(target, &sfs);
	}
	fclose(f);
}

static void list_mountd(void)
{
	call_ok(client, "List", "{}");
}

typedef struct Bench {
	const char *name;
	void (*once)(void);
	unsigned every; /* timed in every Nth round only: fork+exec is slow */
	double *t;
	unsigned n;
} Bench;

static void measure(Bench *b, size_t nb, unsigned rounds)
{
	for (size_t k = 0; k < nb; k++) {
		b[k].t = calloc(rounds, sizeof(*b[k].t));
		if (!b[k].t)
			die("calloc");
		b[k].n = 0;
		b[k].once(); /* warm up: page cache, first connection */
	}
	for (unsigned r = 0; r < rounds; r++)
		for (size_t j = 0; j < nb; j++) {
			Bench *x = &b[(r + j) % nb];
			double t0;

			if (r % x->every)
				continue;
			t0 = bench_now();
			x->once();
			x->t[x->n++] = bench_now() - t0;
		}
}

static void report(const char *title, Bench *b, size_t nb)
{
	double first = bench_stats(b[0].t, b[0].n).median;

	printf("\n%s\n%-12s %12s %10s %10s %9s %7s\n", title, "method", "median (us)", "min", "max",
	       "vs first", "rounds");
	for (size_t k = 0; k < nb; k++) {
		BenchStats st = bench_stats(b[k].t, b[k].n);

		printf("%-12s %12.1f %10.1f %10.1f %8.2fx %7u\n", b[k].name, st.median * 1e6,
		       st.min * 1e6, st.max * 1e6, st.median / first, b[k].n);
		free(b[k].t);
	}
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 200;
	unsigned extra = argc > 2 ? (unsigned)atoi(argv[2]) : 1000;
	struct mount_attr priv = {.propagation = MS_PRIVATE};
	Bench mount_benches[] = {
		{.name = "raw", .once = raw_once, .every = 1},
		{.name = "mountd", .once = mountd_once, .every = 1},
		{.name = "mount(8)", .once = mount8_once, .every = 4},
		{.name = "mountctl", .once = mountctl_once, .every = 4},
	};
	Bench list_benches[] = {
		{.name = "mountinfo", .once = list_mountinfo, .every = 1},
		{.name = "mountd", .once = list_mountd, .every = 1},
		{.name = "statfs-all", .once = list_statfs, .every = 1},
	};
	char path[128];

	if (unshare(CLONE_NEWNS) < 0 ||
	    syscall(__NR_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &priv, sizeof(priv)) < 0)
		die("private mount namespace");
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die(dir);
	if (mountd_client_connect(&client, NULL) < 0)
		die("connect to mountd");

	if (rounds < 4)
		rounds = 4;
	printf("mount-bench: %u rounds (fork+exec methods: every 4th), %u extra mounts\n", rounds,
	       extra);
	measure(mount_benches, sizeof(mount_benches) / sizeof(*mount_benches), rounds);
	report("tmpfs: create, attach, unmount", mount_benches,
	       sizeof(mount_benches) / sizeof(*mount_benches));

	/* A namespace with many mounts, as on a busy container host. */
	for (unsigned i = 0; i < extra; i++) {
		snprintf(path, sizeof(path), "%s/%u", dir, i);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			die(path);
	}
	for (unsigned i = 0; i < extra; i++) {
		snprintf(path, sizeof(path), "%s/%u", dir, i);
		tmpfs_at(path);
	}
	measure(list_benches, sizeof(list_benches) / sizeof(*list_benches), rounds / 10 ?: 1);
	snprintf(path, sizeof(path), "list every mount (%u+ mounts)", extra);
	report(path, list_benches, sizeof(list_benches) / sizeof(*list_benches));
	mountd_client_free(client);
	return 0;
}
