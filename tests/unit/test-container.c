/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountd_container_open() against state files written as crun and runc
 * write them, naming real processes of this test, and a podman on PATH
 * that answers as `podman container inspect --format {{.State.Pid}}` does.
 * What is checked is which process the pidfd it returns refers to, and
 * what it says when it finds none or several.  Root's lookup reads /run:
 * the test runs in a mount namespace of its own with a tmpfs there, so the
 * state is only what it writes (root's in /run/crun, a user's rootless
 * containers' in /run/user/UID/crun).
 */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libmountd-client.h"
#include "tap.h"
#include "util.h"

static const char dir[] = "/run";

#define NOBODY 65534

static pid_t child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

/* A process of uid 65534's. */
static pid_t nobody_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	return pid;
}

static void chown_state(const char *rel, uid_t uid, mode_t mode)
{
	char path[512], *slash;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (chown(path, uid, uid) < 0 || chmod(path, mode) < 0)
		return;
	slash = strrchr(path, '/');
	*slash = 0;
	if (chown(path, uid, uid) < 0)
		return;
}

static unsigned long long start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		for (int field = 2; p && field <= 22; field++) {
			if (field == 22)
				sscanf(p, "%llu", &v);
			p = strchr(p + 1, ' ');
		}
	fclose(f);
	return v;
}

static void write_file(const char *rel, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (char *s = strchr(path + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		mkdir(path, 0755);
		*s = '/';
	}
	f = fopen(path, "we");
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static void rm(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	unlink(path);
}

/* The pid the kernel says a pidfd refers to. */
static int pidfd_pid(int pidfd)
{
	char path[64], line[256];
	int pid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Pid: %d", &pid) == 1)
			break;
	if (f)
		fclose(f);
	return pid;
}

static int open_name(const char *name, MountdContainer *c, char **error)
{
	free(*error);
	*error = NULL;
	mountd_container_done(c);
	return mountd_container_open(name, c, error);
}

/* A caller other than root, with its own runtime directory: its bare name
 * takes its own state and root's.  The pid found, or a negative errno
 * (-EIO: the child did not say); in a child of uid NOBODY, so that this
 * process stays root. */
static int open_as_nobody(const char *name)
{
	int fds[2], found = -EIO;
	pid_t c;

	if (pipe(fds) < 0)
		return -EIO;
	c = fork();
	if (c == 0) {
		MountdContainer f = {.pidfd = -EBADF};
		char *error = NULL;
		int r = -EPERM;

		close(fds[0]);
		if (setresgid(NOBODY, NOBODY, NOBODY) == 0 &&
		    setresuid(NOBODY, NOBODY, NOBODY) == 0 &&
		    setenv("XDG_RUNTIME_DIR", "/run/user/65534", 1) == 0)
			r = mountd_container_open(name, &f, &error);
		if (r == 0)
			r = f.pid;
		if (write(fds[1], &r, sizeof(r)) != sizeof(r))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (c < 0 || read(fds[0], &found, sizeof(found)) != sizeof(found))
		found = -EIO;
	close(fds[0]);
	if (c > 0)
		waitpid(c, NULL, 0);
	return found;
}

static void write_status(const char *rel, pid_t pid, unsigned long long start)
{
	write_file(rel, "{\"pid\": %d, \"process-start-time\": %llu}", pid, start);
}

/* A name's forms: what is no name, and whose container a name means. */
static void test_names(MountdContainer *c, char **error)
{
	static const char *const bad[] = {"../etc",	"-rf", "/web",	 "65534/", "a/b/c",
					  "65534/../x", "",    "-x/web", ".x/web"};
	int r;

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		r = open_name(bad[i], c, error);
		ok(r == -EINVAL && *error && strstr(*error, "not a container name"),
		   "\"%s\" is no container name: %d %s", bad[i], r, strna(*error));
	}
	r = open_name("no-such-user-here/web", c, error);
	ok(r == -EINVAL && *error && strstr(*error, "no such user no-such-user-here"),
	   "an unknown login: %s", strna(*error));
	r = open_name("4294967295/web", c, error);
	ok(r == -EINVAL && *error && strstr(*error, "no such uid"), "uid -1: %s", strna(*error));
	r = open_name("12345/web", c, error);
	ok(r == -ENOENT && *error && strstr(*error, "/run/user/12345/crun/web/status") &&
		   strstr(*error, "/run/user/12345/runc/web/state.json") &&
		   !strstr(*error, "podman") && !strstr(*error, "/run/crun/"),
	   "a user's name is looked for in that user's runtime directory only: %s", strna(*error));
}

/* Root's bare name is root's container only: a user's rootless container
 * of the same name is never taken for it (root's mountctl acts with every
 * right), only named as UID/NAME. */
static void test_users(MountdContainer *c, char **error, pid_t root_pid, pid_t gone)
{
	const char *u = "user/65534/crun/web/status";
	pid_t n = nobody_child(), n2 = nobody_child();
	char want[64];
	int r;

	usleep(100000);
	/* Root's own web has stopped; the user's runs. */
	write_status("crun/web/status", gone, 1);
	write_status(u, n, start_time(n));
	chown_state(u, NOBODY, 0644);
	r = open_name("web", c, error);
	ok(r == -ENOENT && c->pidfd < 0 && *error &&
		   strstr(*error, "/run/crun/web/status (not running"),
	   "root's web stopped, a user's web running: root's bare web finds none: %s",
	   strna(*error));
	ok(*error && strstr(*error, "taken only when named so: 65534/web"),
	   "  and says how the user's is named");
	r = open_name("65534/web", c, error);
	ok(r == 0 && c->pid == n && pidfd_pid(c->pidfd) == n &&
		   strstr(c->source, "/run/user/65534/"),
	   "65534/web: the user's (%d %s)", r, strna(c->source));
	r = open_name("nobody/web", c, error);
	ok(r == 0 && c->pid == n, "nobody/web, by login name: the same (%d)", r);
	ok(open_as_nobody("web") == n, "the user's own bare web is hers");

	/* Root's web running again: root's bare name is root's, the user's
	 * container notwithstanding. */
	write_status("crun/web/status", root_pid, start_time(root_pid));
	r = open_name("web", c, error);
	ok(r == 0 && c->pid == root_pid && streq(c->source, "crun state /run/crun/web/status"),
	   "both running: root's bare web is root's own (%d %s)", r, strna(c->source));
	ok(open_as_nobody("web") == -ENOTUNIQ,
	   "  the user's bare web is ambiguous: hers and root's");
	rm("crun/web/status");

	/* State in a user's directory counts only as that user's word about
	 * that user's own process. */
	write_status(u, root_pid, start_time(root_pid));
	chown_state(u, NOBODY, 0644);
	r = open_name("65534/web", c, error);
	snprintf(want, sizeof(want), "process %d is uid 0's", root_pid);
	ok(r == -ENOENT && *error && strstr(*error, "written by uid 65534") && strstr(*error, want),
	   "the user's state naming root's process: not trusted: %s", strna(*error));
	r = open_name("web", c, error);
	ok(r == -ENOENT && *error && !strstr(*error, "65534/web"),
	   "  nor offered to root as the user's: %s", strna(*error));
	write_status(u, n, start_time(n));
	chown_state(u, NOBODY, 0666);
	r = open_name("65534/web", c, error);
	ok(r == -ENOENT && *error && strstr(*error, "writable by others"),
	   "a state file anyone may write: not trusted: %s", strna(*error));
	chown_state(u, 0, 0644);
	r = open_name("65534/web", c, error);
	ok(r == -ENOENT && *error && strstr(*error, "uid 0's"),
	   "in the user's directory, state not written by the user: not hers: %s", strna(*error));

	/* A state file written by a user in root's /run is not root's. */
	write_status("crun/web/status", n, start_time(n));
	chown_state("crun/web/status", NOBODY, 0644);
	r = open_name("web", c, error);
	ok(r == -ENOENT && *error && strstr(*error, "/run/crun/web/status (uid 65534's"),
	   "a user's state file in /run: not root's container: %s", strna(*error));
	rm("crun/web/status");
	chown_state("crun/web", 0, 0755);

	/* Two runtimes of the user's with the name: ambiguous, both named. */
	write_status(u, n, start_time(n));
	chown_state(u, NOBODY, 0644);
	write_file("user/65534/runc/web/state.json",
		   "{\"init_process_pid\": %d, \"init_process_start\": %llu}", n2, start_time(n2));
	chown_state("user/65534/runc/web/state.json", NOBODY, 0644);
	r = open_name("65534/web", c, error);
	ok(r == -ENOTUNIQ && c->pidfd < 0 && *error && strstr(*error, "names 2 containers") &&
		   strstr(*error, "/run/user/65534/crun/web/status") &&
		   strstr(*error, "/run/user/65534/runc/web/state.json"),
	   "the user's crun and runc both know web: ambiguous, both listed: %s", strna(*error));
	rm("user/65534/runc/web/state.json");

	rm(u);
	kill(n, SIGKILL);
	kill(n2, SIGKILL);
	waitpid(n, NULL, 0);
	waitpid(n2, NULL, 0);
}

int main(void)
{
	_cleanup_(mountd_container_done) MountdContainer c = {.pidfd = -EBADF};
	_cleanup_free_ char *error = NULL;
	char bin[600], path[700];
	pid_t a, b, gone;
	int r;

	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root (a private /run, state files of other users)\n");
		return 0;
	}
	/* Only this test's state and programs: no container, machinectl or
	 * docker of the build machine. */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", dir, "tmpfs", 0, "mode=0755") < 0) {
		printf("Bail out! a private tmpfs on /run: %m\n");
		return 1;
	}
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	mkdir(bin, 0755);
	/* Root's crun ignores it, and so does the lookup for root. */
	setenv("XDG_RUNTIME_DIR", "/run/user/65534", 1);
	setenv("PATH", bin, 1);
	a = child();
	b = child();
	gone = child();
	kill(gone, SIGKILL);
	waitpid(gone, NULL, 0);
	usleep(100000);

	test_names(&c, &error);

	r = open_name("web", &c, &error);
	ok(r == -ENOENT && error && strstr(error, "/run/crun/web/status") &&
		   strstr(error, "/run/runc/web/state.json") &&
		   strstr(error, "podman (not installed)") &&
		   strstr(error, "machinectl (not installed)") && !strstr(error, "/run/user/"),
	   "none: the error lists where it looked: %s", strna(error));

	write_status("crun/web/status", a, start_time(a));
	r = open_name("web", &c, &error);
	ok(r == 0 && c.pid == a && pidfd_pid(c.pidfd) == a && strstr(c.source, "crun state"),
	   "crun's state: a pidfd of its process (%d %d %s)", r, c.pid, strna(c.source));
	ok(open_as_nobody("web") == a, "a user's bare name finds root's container too");
	rm("crun/web/status");

	test_users(&c, &error, a, gone);

	write_file("crun/web/status", "{\"pid\": %d, \"process-start-time\": %llu}", a,
		   start_time(a) + 1);
	r = open_name("web", &c, &error);
	ok(r == -ENOENT && error && strstr(error, "another process now"),
	   "a start time that is not the process's: a recycled pid, refused: %s", strna(error));

	write_file("crun/web/status", "{\"pid\": %d, \"process-start-time\": 1}", gone);
	r = open_name("web", &c, &error);
	ok(r == -ENOENT && error && strstr(error, "is gone"), "a process that exited: %s",
	   strna(error));

	/* runc wrote its start time as a string before 1.0. */
	write_file("runc/web/state.json",
		   "{\"init_process_pid\": %d, \"init_process_start\": \"%llu\"}", b,
		   start_time(b));
	r = open_name("web", &c, &error);
	ok(r == 0 && c.pid == b && pidfd_pid(c.pidfd) == b && strstr(c.source, "runc state"),
	   "runc's state (%d %s)", r, strna(c.source));

	write_file("crun/web/status", "{\"pid\": %d, \"process-start-time\": %llu}", a,
		   start_time(a));
	r = open_name("web", &c, &error);
	ok(r == -ENOTUNIQ && error && strstr(error, "names 2 containers") && c.pidfd < 0,
	   "crun and runc naming different processes: ambiguous: %s", strna(error));
	{
		char pa[32], pb[32];

		snprintf(pa, sizeof(pa), "pid %d (crun", a);
		snprintf(pb, sizeof(pb), "pid %d (runc", b);
		ok(error && strstr(error, pa) && strstr(error, pb), "  both are named");
	}

	write_file("runc/web/state.json",
		   "{\"init_process_pid\": %d, \"init_process_start\": %llu}", a, start_time(a));
	r = open_name("web", &c, &error);
	ok(r == 0 && c.pid == a, "two sources naming the same process are one container");

	rm("crun/web/status");
	rm("runc/web/state.json");
	write_file("bin/podman",
		   "#!/bin/sh\n[ \"$*\" = 'container inspect --format {{.State.Pid}} db' ] "
		   "&& echo %d && exit 0\necho \"Error: no such container $5\" >&2\nexit 125\n",
		   b);
	snprintf(path, sizeof(path), "%s/podman", bin);
	chmod(path, 0755);
	write_file("bin/docker", "#!/bin/sh\necho 0\n");
	snprintf(path, sizeof(path), "%s/docker", bin);
	chmod(path, 0755);
	r = open_name("db", &c, &error);
	ok(r == 0 && c.pid == b && pidfd_pid(c.pidfd) == b && streq(c.source, "podman"),
	   "podman's answer (%d %s)", r, strna(c.source));
	/* The programs answer for root's containers, never for a user's. */
	r = open_name("65534/db", &c, &error);
	ok(r == -ENOENT && error && !strstr(error, "podman"),
	   "65534/db: podman, which knows a db, is not asked: %s", strna(error));
	r = open_name("web", &c, &error);
	ok(r == -ENOENT && error && strstr(error, "podman (Error: no such container web)") &&
		   strstr(error, "docker (not running)"),
	   "a program's refusal and a stopped container are reported: %s", strna(error));

	kill(a, SIGKILL);
	kill(b, SIGKILL);
	while (wait(NULL) > 0)
		;
	return tap_done();
}
