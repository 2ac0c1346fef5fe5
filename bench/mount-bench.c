// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Every ratio of issue 13 in one run and one table: what mountd costs against
 * the raw system calls (the floor) and against what a runtime would use
 * instead (the rivals), section by section:
 *
 *   tmpfs   Create (placed) + Unmount in the caller's namespace: raw
 *           fsopen..move_mount + umount2, mountd, mount(8) + umount,
 *           mountctl mount + umount
 *   by-pid  the same into another process's namespace: raw setns there and
 *           back around the syscalls, mountd naming the pid, nsenter -m -t
 *           PID mount/umount
 *   host    the same as by-pid into pid 1's namespace, on its /run: a
 *           shared mount with copies in the services' namespaces, whose
 *           mountinfo systemd watches; what a runtime placing mounts on the
 *           host pays, raw or through mountd
 *   idle    tmpfs's floor, mountd and reference with 50 ms idle after each
 *           operation, as requests come from a runtime
 *   conn    the same, each call on a connection of its own (mountctl, a
 *           hook, varlinkctl): the reference's round trips too
 *   user    tmpfs's floor, mountd and reference as a user (uid 1000) in a
 *           user and mount namespace of its own: its rootless container,
 *           which the policy must let it mount tmpfs in (bench/run writes
 *           such a policy); mountd makes the superblock with its credentials
 *   info    statfs of a path: fsinfo() direct, mountd Info from the bench's
 *           private namespace (a worker answers) and in mountd's own (the
 *           loop answers), statfs() direct
 *   user-info  the same as uid 1000 in its container, of a directory there
 *           (not pid 1's namespace, which is the policy's to grant)
 *   list    every mount with EXTRA more: a C parse of mountinfo, mountd List,
 *           listmount + statmount per mount
 *   image   a read-only GPT image's root partition (image-methods.c)
 *   verity  a signed DDI on dm-verity; erofs  an EROFS file with and
 *           without a loop device (verity-methods.c)
 *
 * The methods of a section run interleaved, round by round, each round
 * starting with the next method, so that whatever the machine does meanwhile
 * falls on all of them; the table gives median, min and max, the ratio of
 * medians to the floor, and mountd's median over each rival's.  With
 * $MOUNTD_BENCH_CSV it writes the same rows there as CSV (bench/README.md).
 * Runs in a private mount namespace.  Asserts nothing about time.
 *
 *   mount-bench [ROUNDS] [EXTRA_MOUNTS]      ($MOUNTD_BENCH_IMAGE: the image)
 *
 * $MOUNTD_BENCH_SECTIONS (e.g. "tmpfs,image") runs only those sections, for
 * A/B runs of two builds in one boot.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/fsinfo.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-raw.h"
#include "bench-stats.h"
#include "mount-bench.h"
#include "syscall-nr.h"
#include "util.h"

const char *bench_dir = "/run/mount-bench";
MountdClient *bench_client;

void bench_die(const char *what)
{
	perror(what);
	exit(1);
}

void bench_run(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		bench_die("fork");
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "%s %s failed\n", argv[0], argv[1] ?: "");
		exit(1);
	}
}

void bench_call(MountdClient *c, const char *method, const char *json, const int *fds, size_t n_fds,
		MountdReply *reply)
{
	json_object *params = json_tokener_parse(json);
	MountdReply r = {};

	if (!params || mountd_client_call(c, method, params, fds, n_fds, &r) < 0)
		bench_die(method);
	json_object_put(params);
	if (r.error) {
		char *msg = mountd_reply_error_string(&r);

		fprintf(stderr, "%s: %s\n", method, msg ?: r.error);
		exit(1);
	}
	if (reply)
		*reply = r;
	else
		mountd_reply_done(&r);
}

/* A 1 MiB tmpfs at path, with the new mount API and nothing else. */
static void tmpfs_at(const char *path)
{
	const char *what;

	if (bench_tmpfs_at(path, &what) < 0)
		bench_die(what);
}

/* ------------------------------------------------------------ tmpfs */

static void tmpfs_raw(void)
{
	tmpfs_at(bench_dir);
	if (bench_umount(bench_dir, 0) < 0)
		bench_die("umount2");
}

/* A call mountd's varlink library answers by itself, with no mount code:
 * what the transport alone costs a call. */
static void bare_round_trip(void)
{
	bench_call(bench_client, "org.varlink.service.GetInfo", "{}", NULL, 0, NULL);
}

/* The raw work plus what two calls of any varlink service cost at least. */
static void tmpfs_reference(void)
{
	bare_round_trip();
	tmpfs_raw();
	bare_round_trip();
}

static void tmpfs_mount8(void)
{
	bench_run((char *const[]){"mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs",
				  (char *)bench_dir, NULL});
	bench_run((char *const[]){"umount", (char *)bench_dir, NULL});
}

static void tmpfs_mountctl(void)
{
	bench_run((char *const[]){"mountctl", "mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs",
				  (char *)bench_dir, NULL});
	bench_run((char *const[]){"mountctl", "umount", (char *)bench_dir, NULL});
}

/* Create's and Unmount's parameters at bench_dir; ns is "" or a
 * "namespace" member and comma. */
static void pair_json(const char *ns, char create[static 512], char unmount[static 256])
{
	snprintf(create, 512,
		 "{\"fsType\":\"tmpfs\",\"parameters\":[{\"key\":\"size\",\"type\":\"string\","
		 "\"value\":\"1m\"}],\"placement\":{%s\"path\":\"%s\"}}",
		 ns, bench_dir);
	snprintf(unmount, 256, "{%s\"path\":\"%s\"}", ns, bench_dir);
}

static char tmpfs_create[512], tmpfs_unmount[256];

static void mountd_pair(const char *ns)
{
	char create[512], unmount[256];

	pair_json(ns, create, unmount);
	bench_call(bench_client, "Create", create, NULL, 0, NULL);
	bench_call(bench_client, "Unmount", unmount, NULL, 0, NULL);
}

static void tmpfs_mountd(void)
{
	mountd_pair("");
}

/* A runtime's requests come now and then, not back to back: after 50 ms
 * idle, the caches a tight loop keeps warm (TCG's translations, the CPUs'
 * own, the scheduler's) are cold again, for the raw syscalls as for mountd. */
static void idle_settle(void)
{
	usleep(50 * 1000);
}

/* One call on a connection of its own, as mountctl, varlinkctl and a hook
 * each make one: connect, call, close. */
static void call_connected(const char *method, const char *json)
{
	MountdClient *c;

	if (mountd_client_connect(&c, NULL) < 0)
		bench_die("connect to mountd");
	bench_call(c, method, json, NULL, 0, NULL);
	mountd_client_free(c);
}

static void conn_mountd(void)
{
	call_connected("Create", tmpfs_create);
	call_connected("Unmount", tmpfs_unmount);
}

static void conn_reference(void)
{
	call_connected("org.varlink.service.GetInfo", "{}");
	tmpfs_raw();
	call_connected("org.varlink.service.GetInfo", "{}");
}

/* A user's rootless container: uid BENCH_USER in a user namespace of its
 * own, as root there, and a mount namespace that user namespace owns. */
#define BENCH_USER     1000
#define BENCH_USER_DIR "/run/mount-bench-user"

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		r = -errno;
	close(fd);
	return r;
}

static int user_enter(void)
{
	char map[64];

	if (setgroups(0, NULL) < 0 || setresgid(BENCH_USER, BENCH_USER, BENCH_USER) < 0 ||
	    setresuid(BENCH_USER, BENCH_USER, BENCH_USER) < 0 ||
	    /* the change of uid left its /proc/self root's */
	    prctl(PR_SET_DUMPABLE, 1) < 0 || unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return -errno;
	snprintf(map, sizeof(map), "0 %d 1", BENCH_USER);
	if (write_file("/proc/self/setgroups", "deny") < 0 ||
	    write_file("/proc/self/uid_map", map) < 0 || write_file("/proc/self/gid_map", map) < 0)
		return -errno;
	return 0;
}

/* ----------------------------------------------------------- by pid */

/* A process in a mount namespace of its own, as a container's would be. */
static pid_t target = -1;
static char target_pid[16], target_ns_json[64], by_pid[16];
static int self_ns = -1, target_ns = -1;

static void target_open(pid_t pid)
{
	char path[64];

	snprintf(target_pid, sizeof(target_pid), "%d", (int)pid);
	snprintf(target_ns_json, sizeof(target_ns_json), "\"namespace\":{\"pid\":%d},", (int)pid);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	target_ns = open(path, O_RDONLY | O_CLOEXEC);
	self_ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (target_ns < 0 || self_ns < 0)
		bench_die("open ns/mnt");
}

static void target_start(void)
{
	int p[2];
	char c;

	if (pipe2(p, O_CLOEXEC) < 0)
		bench_die("pipe");
	target = fork();
	if (target < 0)
		bench_die("fork");
	if (target == 0) {
		if (unshare(CLONE_NEWNS) < 0 || write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		bench_die("target namespace");
	close(p[0]);
	target_open(target);
	memcpy(by_pid, target_pid, sizeof(by_pid));
}

static void target_stop(void)
{
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	close(target_ns);
	close(self_ns);
}

/* pid 1's namespace as the target.  Its /run is the same tmpfs as the
 * bench's own (a private copy of the mount, not of the filesystem), so
 * bench_dir is there already. */
static void host_start(void)
{
	target_open(1);
}

static void host_stop(void)
{
	close(target_ns);
	close(self_ns);
}

static void pid_raw(void)
{
	if (setns(target_ns, CLONE_NEWNS) < 0)
		bench_die("setns");
	tmpfs_raw();
	if (setns(self_ns, CLONE_NEWNS) < 0)
		bench_die("setns back");
}

static void pid_reference(void)
{
	bare_round_trip();
	pid_raw();
	bare_round_trip();
}

static void pid_mountd(void)
{
	mountd_pair(target_ns_json);
}

static void pid_nsenter(void)
{
	bench_run((char *const[]){"nsenter", "-m", "-t", target_pid, "mount", "-t", "tmpfs", "-o",
				  "size=1m", "tmpfs", (char *)bench_dir, NULL});
	bench_run((char *const[]){"nsenter", "-m", "-t", target_pid, "umount", (char *)bench_dir,
				  NULL});
}

/* ------------------------------------------------------------- info */

static void info_fsinfo(void)
{
	struct fsinfo_params p = {.request = fsinfo_attr_statfs};
	struct fsinfo_statfs st;

	if (syscall(__NR_fsinfo, AT_FDCWD, bench_dir, &p, &st, sizeof(st)) < 0)
		bench_die("fsinfo");
}

static void info_reference(void)
{
	bare_round_trip();
	info_fsinfo();
}

static void info_statfs(void)
{
	struct statfs st;

	if (statfs(bench_dir, &st) < 0)
		bench_die("statfs");
}

static void info_mountd(void)
{
	char info[128];

	snprintf(info, sizeof(info), "{\"path\":\"%s\"}", bench_dir);
	bench_call(bench_client, "Info", info, NULL, 0, NULL);
}

/* The same directory of /run's tmpfs, in mountd's own namespace (pid 1's:
 * the bench runs in a private copy of it), where the loop answers. */
static void info_mountd_ns(void)
{
	char info[160];

	snprintf(info, sizeof(info), "{\"path\":\"%s\",\"namespace\":{\"pid\":1}}", bench_dir);
	bench_call(bench_client, "Info", info, NULL, 0, NULL);
}

/* ------------------------------------------------------------- list */

/* What a program that lists the mounts keeps of each: all of mountinfo. */
typedef struct Entry {
	unsigned long id, parent;
	char *dev, *root, *point, *opts, *fstype, *source, *super;
} Entry;

static Entry *entries;
static size_t n_entries, cap_entries;

static char *field(char **p)
{
	char *f = strsep(p, " ");

	if (!f)
		bench_die("mountinfo: short line");
	return f;
}

static void list_mountinfo(void)
{
	static char *buf;
	static size_t cap;
	size_t len = 0;
	ssize_t n;
	char *line, *next;
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		bench_die("mountinfo");
	for (;;) {
		if (cap - len < 65536 && !(buf = realloc(buf, cap = cap * 2 + 65536)))
			bench_die("realloc");
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0)
			bench_die("read mountinfo");
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = 0;
	n_entries = 0;
	for (next = buf; (line = strsep(&next, "\n")) && *line;) {
		Entry *e;
		char *f;

		if (n_entries == cap_entries &&
		    !(entries = realloc(entries,
					(cap_entries = cap_entries * 2 + 256) * sizeof(*entries))))
			bench_die("realloc");
		e = &entries[n_entries++];
		e->id = strtoul(field(&line), NULL, 10);
		e->parent = strtoul(field(&line), NULL, 10);
		e->dev = field(&line);
		e->root = mountinfo_unescape(field(&line));
		e->point = mountinfo_unescape(field(&line));
		e->opts = field(&line);
		while (strcmp(f = field(&line), "-") != 0) /* optional fields */
			;
		e->fstype = field(&line);
		e->source = mountinfo_unescape(field(&line));
		e->super = field(&line);
	}
	if (n_entries == 0)
		bench_die("mountinfo empty");
}

/* Into C structs with libmountd-client's List reader, as the C parse of
 * mountinfo it is compared with: a usable result, not just the bytes. */
static void list_mountd(void)
{
	MountdMountList l = {};

	if (mountd_client_list(bench_client, NULL, NULL, 0, &l) < 0 || l.reply.error)
		bench_die("List");
	if (l.n_mounts < n_entries)
		bench_die("List: fewer mounts than mountinfo");
	mountd_mount_list_done(&l);
}

/* What List reports of each mount, source aside (6.12's statmount has none). */
#define LIST_MASK                                                              \
	(STATMOUNT_SB_BASIC | STATMOUNT_MNT_BASIC | STATMOUNT_PROPAGATE_FROM | \
	 STATMOUNT_MNT_ROOT | STATMOUNT_MNT_POINT | STATMOUNT_FS_TYPE | STATMOUNT_MNT_OPTS)

static void list_statmount(void)
{
	static uint64_t ids[4096];
	static union {
		struct statmount sm;
		char bytes[65536];
	} buf;
	struct mnt_id_req req = {.size = MNT_ID_REQ_SIZE_VER0, .mnt_id = LSMT_ROOT};
	size_t total = 0;
	long n;

	do {
		n = syscall(__NR_listmount, &req, ids, ELEMENTSOF(ids), 0);
		if (n < 0)
			bench_die("listmount");
		for (long i = 0; i < n; i++) {
			struct mnt_id_req one = {
				.size = MNT_ID_REQ_SIZE_VER0, .mnt_id = ids[i], .param = LIST_MASK};

			if (syscall(__NR_statmount, &one, &buf, sizeof(buf), 0) < 0)
				bench_die("statmount");
		}
		if (n > 0)
			req.param = ids[n - 1];
		total += n;
	} while (n == (long)ELEMENTSOF(ids));
	if (total == 0)
		bench_die("listmount: none");
}

/* EXTRA tmpfs mounts under a tmpfs of their own, gone in one detach after. */
static const char *many = "/run/mount-bench-many";

static void many_mount(unsigned extra)
{
	char path[128];

	if (mkdir(many, 0755) < 0 && errno != EEXIST)
		bench_die(many);
	tmpfs_at(many);
	for (unsigned i = 0; i < extra; i++) {
		snprintf(path, sizeof(path), "%s/%u", many, i);
		if (mkdir(path, 0755) < 0)
			bench_die(path);
		tmpfs_at(path);
	}
}

/* ---------------------------------------------------------- harness */

typedef struct Section {
	const char *name; /* the CSV's */
	const char *title;
	Method *m;
	size_t n;
	unsigned rounds;
	void (*settle)(void); /* untimed, after each operation */
} Section;

static void measure(Section *s)
{
	for (size_t k = 0; k < s->n; k++) {
		s->m[k].t = calloc(s->rounds, sizeof(*s->m[k].t));
		if (!s->m[k].t)
			bench_die("calloc");
		if (!s->m[k].once)
			continue;
		s->m[k].once(); /* warm up: page cache, the first connection, a worker */
		if (s->settle)
			s->settle();
	}
	for (unsigned r = 0; r < s->rounds; r++)
		for (size_t j = 0; j < s->n; j++) {
			Method *x = &s->m[(r + j) % s->n];
			double t0;

			if (!x->once || r % x->every)
				continue;
			t0 = bench_now();
			x->once();
			x->t[x->n++] = bench_now() - t0;
			if (s->settle)
				s->settle();
		}
}

/* measure(s) in a child that entered the user's container with a
 * connection of its own; the times come back through shared memory.  Where
 * the child cannot run them (no user namespaces, no policy), the methods
 * say n/a, and why is on stderr. */
static void measure_as_user(Section *s)
{
	size_t per = s->rounds + 1, size = s->n * (sizeof(unsigned) + per * sizeof(double));
	unsigned *n = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	double *t = (double *)(n + s->n);
	int status;
	pid_t pid;

	if (n == MAP_FAILED)
		bench_die("mmap");
	if (mkdir(BENCH_USER_DIR, 0755) < 0 && errno != EEXIST)
		bench_die(BENCH_USER_DIR);
	if (chown(BENCH_USER_DIR, BENCH_USER, BENCH_USER) < 0)
		bench_die(BENCH_USER_DIR);
	fflush(stdout); /* not twice, should the child exit() */
	pid = fork();
	if (pid < 0)
		bench_die("fork");
	if (pid == 0) {
		int r = user_enter();

		if (r < 0) {
			fprintf(stderr, "user section: entering a user namespace: %s\n",
				strerror(-r));
			_exit(2);
		}
		bench_dir = BENCH_USER_DIR;
		if (mountd_client_connect(&bench_client, NULL) < 0)
			_exit(3);
		measure(s);
		for (size_t k = 0; k < s->n; k++) {
			n[k] = s->m[k].n;
			memcpy(t + k * per, s->m[k].t, n[k] * sizeof(double));
		}
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		bench_die("waitpid");
	for (size_t k = 0; k < s->n; k++) {
		Method *m = &s->m[k];

		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			m->why_not = "uid 1000 could not run it (above)";
			continue;
		}
		m->t = calloc(per, sizeof(double));
		if (!m->t)
			bench_die("calloc");
		m->n = n[k];
		memcpy(m->t, t + k * per, n[k] * sizeof(double));
	}
	munmap(n, size);
	(void)rmdir(BENCH_USER_DIR);
}

static double role_median(const Section *s, Role role)
{
	for (size_t k = 0; k < s->n; k++)
		if (s->m[k].role == role && s->m[k].n)
			return bench_stats(s->m[k].t, s->m[k].n).median;
	return 0;
}

/* One table, and the same rows as CSV to csv (may be NULL). */
static void report(Section *sections, size_t n, FILE *csv)
{
	printf("\n%-8s %-22s %11s %11s %11s %9s %9s %6s\n", "section", "method", "median us",
	       "min us", "max us", "vs floor", "mountd/it", "rounds");
	if (csv)
		fprintf(csv, "section,method,median_us,min_us,max_us,ratio_floor,ratio_rival\n");
	for (size_t i = 0; i < n; i++) {
		Section *s = &sections[i];
		double floor = role_median(s, ROLE_FLOOR), subject = role_median(s, ROLE_SUBJECT);

		if (!s->rounds)
			continue; /* not asked for */

		for (size_t k = 0; k < s->n; k++) {
			Method *m = &s->m[k];
			const char *sec = k ? "" : s->name;
			char vs_floor[16] = "", vs_rival[16] = "", show_floor[16] = "",
			     show_rival[16] = "";
			BenchStats st;

			if (!m->n) {
				printf("%-8s %-22s n/a: %s\n", sec, m->name,
				       m->why_not ?: "not run");
				continue;
			}
			st = bench_stats(m->t, m->n);
			if (floor > 0) {
				snprintf(vs_floor, sizeof(vs_floor), "%.3f", st.median / floor);
				snprintf(show_floor, sizeof(show_floor), "%.2fx",
					 st.median / floor);
			}
			if (m->role == ROLE_RIVAL && subject > 0) {
				snprintf(vs_rival, sizeof(vs_rival), "%.3f", subject / st.median);
				snprintf(show_rival, sizeof(show_rival), "%.3fx",
					 subject / st.median);
			}
			printf("%-8s %-22s %11.1f %11.1f %11.1f %9s %9s %6u\n", sec, m->name,
			       st.median * 1e6, st.min * 1e6, st.max * 1e6, show_floor, show_rival,
			       m->n);
			if (csv)
				fprintf(csv, "%s,%s,%.1f,%.1f,%.1f,%s,%s\n", s->name, m->name,
					st.median * 1e6, st.min * 1e6, st.max * 1e6, vs_floor,
					vs_rival);
		}
	}
}

/* Is name one of the comma-separated list's? */
static bool section_wanted(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p; p = strchr(p, ',')) {
		p += *p == ',';
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == 0))
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 200;
	unsigned extra = argc > 2 ? (unsigned)atoi(argv[2]) : 1000;
	const char *image = getenv("MOUNTD_BENCH_IMAGE"), *csv_path = getenv("MOUNTD_BENCH_CSV"),
		   *only = getenv("MOUNTD_BENCH_SECTIONS");
	struct mount_attr priv = {.propagation = MS_PRIVATE};
	Method tmpfs[] = {
		{.name = "raw syscalls", .role = ROLE_FLOOR, .once = tmpfs_raw, .every = 1},
		{.name = "mountd", .role = ROLE_SUBJECT, .once = tmpfs_mountd, .every = 1},
		{.name = "raw + 2 round trips",
		 .role = ROLE_REFERENCE,
		 .once = tmpfs_reference,
		 .every = 1},
		{.name = "mount(8)+umount", .role = ROLE_RIVAL, .once = tmpfs_mount8, .every = 4},
		{.name = "mountctl", .role = ROLE_RIVAL, .once = tmpfs_mountctl, .every = 4},
	};
	Method pid[] = {
		{.name = "raw setns+syscalls", .role = ROLE_FLOOR, .once = pid_raw, .every = 1},
		{.name = "mountd by pid", .role = ROLE_SUBJECT, .once = pid_mountd, .every = 1},
		{.name = "raw + 2 round trips",
		 .role = ROLE_REFERENCE,
		 .once = pid_reference,
		 .every = 1},
		{.name = "nsenter mount+umount",
		 .role = ROLE_RIVAL,
		 .once = pid_nsenter,
		 .every = 4},
	};
	/* idle and host measure tmpfs's and by-pid's methods in other
	 * conditions: copies, before any result is in them. */
	Method idle[3], user[3], uinfo[4], host[ELEMENTSOF(pid)];
	Method conn[] = {
		tmpfs[0],
		{.name = "mountd, connection each",
		 .role = ROLE_SUBJECT,
		 .once = conn_mountd,
		 .every = 1},
		{.name = "raw + 2 connected trips",
		 .role = ROLE_REFERENCE,
		 .once = conn_reference,
		 .every = 1},
		{.name = "mountd, one connection",
		 .role = ROLE_RIVAL,
		 .once = tmpfs_mountd,
		 .every = 1},
	};
	Method info[] = {
		{.name = "fsinfo() direct", .role = ROLE_FLOOR, .once = info_fsinfo, .every = 1},
		{.name = "mountd Info", .role = ROLE_SUBJECT, .once = info_mountd, .every = 1},
		{.name = "mountd Info, mountd ns",
		 .role = ROLE_SUBJECT,
		 .once = info_mountd_ns,
		 .every = 1},
		{.name = "fsinfo + round trip",
		 .role = ROLE_REFERENCE,
		 .once = info_reference,
		 .every = 1},
		{.name = "statfs() direct", .role = ROLE_RIVAL, .once = info_statfs, .every = 1},
	};
	Method list[] = {
		{.name = "mountinfo C parse",
		 .role = ROLE_FLOOR,
		 .once = list_mountinfo,
		 .every = 1},
		{.name = "mountd List", .role = ROLE_SUBJECT, .once = list_mountd, .every = 1},
		{.name = "listmount+statmount",
		 .role = ROLE_RIVAL,
		 .once = list_statmount,
		 .every = 1},
	};
	Method img[4] = {
		{.name = "raw loop+syscalls",
		 .role = ROLE_FLOOR,
		 .why_not = "no image ($MOUNTD_BENCH_IMAGE)",
		 .every = 1},
		{.name = "mountd", .role = ROLE_SUBJECT, .why_not = "no image", .every = 1},
		{.name = "mountfsd MountImage",
		 .role = ROLE_RIVAL,
		 .why_not = "no image",
		 .every = 1},
		{.name = "mount(8) -o loop+umount",
		 .role = ROLE_RIVAL,
		 .why_not = "no image",
		 .every = 1},
	};
	Method verity[4] = {
		{.name = "raw loop+libcryptsetup",
		 .role = ROLE_FLOOR,
		 .why_not = "no DDI ($MOUNTD_BENCH_VERITY_DDI)",
		 .every = 1},
		{.name = "mountd", .role = ROLE_SUBJECT, .why_not = "no DDI", .every = 1},
		{.name = "mountfsd MountImage",
		 .role = ROLE_RIVAL,
		 .why_not = "no DDI",
		 .every = 1},
		{.name = "losetup+veritysetup+mount",
		 .role = ROLE_RIVAL,
		 .why_not = "no DDI",
		 .every = 4},
	};
	Method erofs[4] = {
		{.name = "raw, from the file",
		 .role = ROLE_FLOOR,
		 .why_not = "no EROFS file ($MOUNTD_BENCH_EROFS)",
		 .every = 1},
		{.name = "raw, through a loop device",
		 .role = ROLE_RIVAL,
		 .why_not = "no EROFS file",
		 .every = 1},
		{.name = "mountd", .role = ROLE_SUBJECT, .why_not = "no EROFS file", .every = 1},
		{.name = "mount -o loop,ro",
		 .role = ROLE_RIVAL,
		 .why_not = "no EROFS file",
		 .every = 4},
	};
	Method erofs8[3] = {
		{.name = "raw, from the file x8",
		 .role = ROLE_FLOOR,
		 .why_not = "no EROFS file ($MOUNTD_BENCH_EROFS)",
		 .every = 1},
		{.name = "raw, through a loop device x8",
		 .role = ROLE_RIVAL,
		 .why_not = "no EROFS file",
		 .every = 1},
		{.name = "mountd x8", .role = ROLE_SUBJECT, .why_not = "no EROFS file", .every = 1},
	};
	Section sections[] = {
		{"tmpfs", "tmpfs Create (placed) + Unmount, own namespace", tmpfs,
		 ELEMENTSOF(tmpfs), 0, NULL},
		{"by-pid", "the same into another namespace, by pid", pid, ELEMENTSOF(pid), 0,
		 NULL},
		{"host", "the same into pid 1's namespace, on its shared /run", host,
		 ELEMENTSOF(host), 0, NULL},
		{"idle", "tmpfs as its section, 50 ms idle after each operation", idle,
		 ELEMENTSOF(idle), 0, idle_settle},
		{"conn", "tmpfs as its section, a connection of its own for each call", conn,
		 ELEMENTSOF(conn), 0, NULL},
		{"user", "tmpfs as its section, by uid 1000 in its rootless container", user,
		 ELEMENTSOF(user), 0, NULL},
		{"info", "statfs of a path", info, ELEMENTSOF(info), 0, NULL},
		{"user-info",
		 "info as its section (but pid 1's namespace), by uid 1000 in its container", uinfo,
		 ELEMENTSOF(uinfo), 0, NULL},
		{"list", "every mount", list, ELEMENTSOF(list), 0, NULL},
		{"image", "ro GPT image's ext4 root partition: mount + unmount", img,
		 ELEMENTSOF(img), 0, image_settle},
		{"verity", "signed DDI (EROFS root) on dm-verity: mount + unmount", verity,
		 ELEMENTSOF(verity), 0, verity_settle},
		{"erofs", "EROFS file: mount + unmount", erofs, ELEMENTSOF(erofs), 0, erofs_settle},
		{"erofs8", "EROFS file: 8 x (mount + unmount) in a row", erofs8, ELEMENTSOF(erofs8),
		 0, erofs_settle},
	};
	Section *s_tmpfs = &sections[0], *s_pid = &sections[1], *s_host = &sections[2],
		*s_idle = &sections[3], *s_conn = &sections[4], *s_user = &sections[5],
		*s_info = &sections[6], *s_uinfo = &sections[7], *s_list = &sections[8],
		*s_image = &sections[9], *s_verity = &sections[10], *s_erofs = &sections[11],
		*s_erofs8 = &sections[12];
	FILE *csv = NULL;

	memcpy(idle, tmpfs, sizeof(idle));
	memcpy(user, tmpfs, sizeof(user));
	/* A user's Info of pid 1's namespace is a question of the policy's. */
	uinfo[0] = info[0];
	uinfo[1] = info[1];
	uinfo[2] = info[3];
	uinfo[3] = info[4];
	memcpy(host, pid, sizeof(host));
	host[1].name = "mountd by pid 1";
	if (rounds < 10)
		rounds = 10;
	s_tmpfs->rounds = s_pid->rounds = s_host->rounds = s_info->rounds = rounds;
	s_list->rounds = rounds / 10;
	s_idle->rounds = rounds / 4;
	s_conn->rounds = s_user->rounds = s_uinfo->rounds = rounds;
	/* More than List's: the image goal is a ratio close to its bound,
	 * and TCG's medians of 20 rounds moved it by 10-20% from run to run. */
	s_image->rounds = rounds / 4;
	s_verity->rounds = s_erofs->rounds = s_erofs8->rounds = rounds / 8;
	if (unshare(CLONE_NEWNS) < 0 ||
	    syscall(__NR_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &priv, sizeof(priv)) < 0)
		bench_die("private mount namespace");
	if (mkdir(bench_dir, 0755) < 0 && errno != EEXIST)
		bench_die(bench_dir);
	pair_json("", tmpfs_create, tmpfs_unmount);
	if (mountd_client_connect(&bench_client, NULL) < 0)
		bench_die("connect to mountd");
	if (csv_path && !(csv = fopen(csv_path, "we")))
		bench_die(csv_path);

	printf("mount-bench: %u rounds (fork+exec methods: every 4th; list: %u; image: %u), "
	       "%u extra mounts for list\n",
	       rounds, s_list->rounds, s_image->rounds, extra);
	for (size_t i = 0; i < ELEMENTSOF(sections); i++) {
		Section *s = &sections[i];

		if (only && !section_wanted(only, s->name)) {
			s->rounds = 0;
			continue;
		}
		fprintf(stderr, "measuring %s: %s\n", s->name, s->title);
		if (s == s_pid)
			target_start();
		if (s == s_host)
			host_start();
		if (s == s_list)
			many_mount(extra);
		if (s == s_image && image)
			image_methods(image, img);
		if (s == s_verity)
			verity_methods(verity);
		if (s == s_erofs || s == s_erofs8)
			erofs_methods(erofs);
		if (s == s_erofs8)
			erofs8_methods(erofs8);
		if (s == s_user || s == s_uinfo)
			measure_as_user(s);
		else
			measure(s);
		if (s == s_pid)
			target_stop();
		if (s == s_host)
			host_stop();
		if (s == s_list && bench_umount(many, MNT_DETACH) < 0)
			bench_die("umount many");
	}
	report(sections, ELEMENTSOF(sections), csv);
	printf("vs floor: median / the floor's median; mountd/it: mountd's median / that rival's "
	       "(below 1: mountd is faster)\n"
	       "\"+ round trip(s)\": the floor's work with a bare varlink call "
	       "(org.varlink.service.GetInfo, no mount code) per call mountd needs: the least "
	       "any varlink service could take\nlist: %zu mounts; by-pid: target pid %s\n",
	       n_entries, by_pid);
	if (image)
		image_notes();
	if (csv && fclose(csv) != 0)
		bench_die(csv_path);
	mountd_client_free(bench_client);
	return 0;
}
