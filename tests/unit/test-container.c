/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountd_container_open() against state files written as crun and runc
 * write them, naming real processes of this test, and a podman on PATH
 * that answers as `podman container inspect --format {{.State.Pid}}` does.
 * What is checked is which process the pidfd it returns refers to, and
 * what it says when it finds none or several.
 */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libmountd-client.h"
#include "tap.h"
#include "util.h"

static char dir[] = "/tmp/test-container.XXXXXX";

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

int main(void)
{
	_cleanup_(mountd_container_done) MountdContainer c = {.pidfd = -EBADF};
	_cleanup_free_ char *error = NULL;
	char bin[600], path[700];
	pid_t a, b, gone;
	int r;

	if (!mkdtemp(dir))
		return 1;
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	mkdir(bin, 0755);
	/* Only this test's state and programs: no machinectl or docker of the
	 * build machine. */
	setenv("XDG_RUNTIME_DIR", dir, 1);
	setenv("PATH", bin, 1);
	a = child();
	b = child();
	gone = child();
	kill(gone, SIGKILL);
	waitpid(gone, NULL, 0);
	usleep(100000);

	r = open_name("../etc", &c, &error);
	ok(r == -EINVAL && error && strstr(error, "not a container name"),
	   "a path is no container name: %d %s", r, strna(error));
	r = open_name("-rf", &c, &error);
	ok(r == -EINVAL, "nor an option");

	r = open_name("web", &c, &error);
	ok(r == -ENOENT && error && strstr(error, "/crun/web/status") &&
		   strstr(error, "/runc/web/state.json") &&
		   strstr(error, "podman (not installed)") &&
		   strstr(error, "machinectl (not installed)"),
	   "none: the error lists where it looked: %s", strna(error));

	write_file("crun/web/status", "{\"pid\": %d, \"process-start-time\": %llu}", a,
		   start_time(a));
	r = open_name("web", &c, &error);
	ok(r == 0 && c.pid == a && pidfd_pid(c.pidfd) == a && strstr(c.source, "crun state"),
	   "crun's state: a pidfd of its process (%d %d %s)", r, c.pid, strna(c.source));

	/* Root's tool reading a user's runtime directory: a state file is
	 * that user's word about that user's own process only. */
	chown_state("crun/web/status", 65534, 0644);
	r = open_name("web", &c, &error);
	ok(r == -ENOENT && error && strstr(error, "written by uid 65534"),
	   "a user's state file naming root's process: not trusted: %s", strna(error));
	{
		pid_t n = nobody_child();

		usleep(100000);
		write_file("crun/web/status", "{\"pid\": %d, \"process-start-time\": %llu}", n,
			   start_time(n));
		chown_state("crun/web/status", 65534, 0644);
		r = open_name("web", &c, &error);
		ok(r == 0 && c.pid == n,
		   "a user's state file naming its own process: that container");
		chown_state("crun/web/status", 65534, 0666);
		r = open_name("web", &c, &error);
		ok(r == -ENOENT && error && strstr(error, "writable by others"),
		   "a state file anyone may write: not trusted: %s", strna(error));
		kill(n, SIGKILL);
		waitpid(n, NULL, 0);
	}
	rm("crun/web/status");
	chown_state("crun/web", 0, 0755);

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
	r = open_name("web", &c, &error);
	ok(r == -ENOENT && error && strstr(error, "podman (Error: no such container web)") &&
		   strstr(error, "docker (not running)"),
	   "a program's refusal and a stopped container are reported: %s", strna(error));

	kill(a, SIGKILL);
	kill(b, SIGKILL);
	while (wait(NULL) > 0)
		;
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "/bin/rm -rf %s", dir);
		if (system(cmd) != 0)
			return 1;
	}
	return tap_done();
}
