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
 * caller's namespace), prints a table and the ratios; asserts nothing about
 * time.
 *
 *   mount-bench [ITERATIONS] [EXTRA_MOUNTS]
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

#include "libmountd-client.h"

static const char *dir = "/run/mount-bench";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

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
	run((char *const[]){ "mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", (char *)dir, NULL });
	run((char *const[]){ "umount", (char *)dir, NULL });
}

static void mountctl_once(void)
{
	run((char *const[]){ "mountctl", "mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs",
			     (char *)dir, NULL });
	run((char *const[]){ "mountctl", "umount", (char *)dir, NULL });
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
	unsigned scale; /* run 1/scale of the iterations: fork+exec is slow */
	double per_op;
} Bench;

static void measure(Bench *b, unsigned iterations)
{
	unsigned n = iterations / b->scale ?: 1;
	double start;

	b->once(); /* warm up: page cache, first connection */
	start = now();
	for (unsigned i = 0; i < n; i++)
		b->once();
	b->per_op = (now() - start) / n;
}

static void report(const char *title, Bench *benches, size_t n)
{
	printf("\n%s\n%-12s %12s %10s\n", title, "method", "per op (us)", "vs first");
	for (size_t i = 0; i < n; i++)
		printf("%-12s %12.1f %9.2fx\n", benches[i].name, benches[i].per_op * 1e6,
		       benches[i].per_op / benches[0].per_op);
}

int main(int argc, char **argv)
{
	unsigned iterations = argc > 1 ? (unsigned)atoi(argv[1]) : 200;
	unsigned extra = argc > 2 ? (unsigned)atoi(argv[2]) : 1000;
	struct mount_attr priv = { .propagation = MS_PRIVATE };
	Bench mount_benches[] = {
		{ "raw", raw_once, 1, 0 },
		{ "mountd", mountd_once, 1, 0 },
		{ "mount(8)", mount8_once, 4, 0 },
		{ "mountctl", mountctl_once, 4, 0 },
	};
	Bench list_benches[] = {
		{ "mountinfo", list_mountinfo, 1, 0 },
		{ "mountd", list_mountd, 1, 0 },
		{ "statfs-all", list_statfs, 1, 0 },
	};
	char path[128];

	if (unshare(CLONE_NEWNS) < 0 ||
	    syscall(__NR_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &priv, sizeof(priv)) < 0)
		die("private mount namespace");
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die(dir);
	if (mountd_client_connect(&client, NULL) < 0)
		die("connect to mountd");

	printf("mount-bench: %u iterations (fork+exec methods: a quarter), %u extra mounts\n",
	       iterations, extra);
	for (size_t i = 0; i < sizeof(mount_benches) / sizeof(*mount_benches); i++)
		measure(&mount_benches[i], iterations);
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
	for (size_t i = 0; i < sizeof(list_benches) / sizeof(*list_benches); i++)
		measure(&list_benches[i], iterations / 10 ?: 1);
	snprintf(path, sizeof(path), "list every mount (%u+ mounts)", extra);
	report(path, list_benches, sizeof(list_benches) / sizeof(*list_benches));
	mountd_client_free(client);
	return 0;
}
