// SPDX-License-Identifier: LGPL-2.1-or-later
/* shared/principal.c: who answers for a process, by processes put where a
 * user's subuids, root's containers and nesting put them (the uid maps
 * written here by root, as newuidmap would).  Needs user namespaces a
 * non-root user may make: where there are none, the cases are skipped,
 * unless MOUNTD_TEST_STRICT is set (the guest). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "principal.h"
#include "tap.h"
#include "util.h"

#define USER	  1000
#define SUBUIDS	  100000 /* the user's, as /etc/subuid would give them */
#define CONTAINER 200000 /* a range root gave a container */

typedef struct Child {
	pid_t pid;
	int to_child, from_child;
} Child;

/* In the child: tell the parent, and wait for its go. */
static void child_sync(int to_parent, int from_parent)
{
	char c = 'r';

	if (write(to_parent, &c, 1) != 1 || read(from_parent, &c, 1) != 1)
		_exit(1);
}

static void child_fail(int to_parent)
{
	char c = 'f';

	(void)!write(to_parent, &c, 1);
	_exit(1);
}

/* The parent's side: 'r' ready, 'f' failed, 0 gone. */
static char parent_wait(Child *c)
{
	char r = 0;

	return read(c->from_child, &r, 1) == 1 ? r : 0;
}

static void parent_go(Child *c)
{
	char g = 'g';

	(void)!write(c->to_child, &g, 1);
}

static int write_file(pid_t pid, const char *name, const char *text)
{
	char path[64];
	_cleanup_close_ int fd = -EBADF;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return -errno;
	return 0;
}

static int map(pid_t pid, unsigned inside, unsigned outside, unsigned n)
{
	char line[64];
	int r;

	snprintf(line, sizeof(line), "%u %u %u\n", inside, outside, n);
	r = write_file(pid, "uid_map", line);
	return r < 0 ? r : write_file(pid, "gid_map", line);
}

static uid_t kernel_uid(pid_t pid)
{
	char path[64], line[256];
	unsigned uid = (unsigned)-1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid:\t%u", &uid) == 1)
			break;
	if (f)
		fclose(f);
	return (uid_t)uid;
}

static uid_t principal_of_pid(pid_t pid, uid_t uid)
{
	_cleanup_close_ int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

	return principal_of_pidfd(pidfd, uid);
}

/* The child's steps, in order: 'U' a user namespace, 'W' wait for the
 * parent (who maps it), then setresuid(ids[i]) for each 'S'. */
static Child spawn(bool as_user, const char *steps, const uid_t *ids)
{
	int down[2], up[2];
	Child c = {.pid = -1};

	if (pipe2(down, O_CLOEXEC) < 0 || pipe2(up, O_CLOEXEC) < 0)
		return c;
	c.pid = fork();
	if (c.pid == 0) {
		close(down[1]);
		close(up[0]);
		if (as_user && (setgroups(0, NULL) < 0 || setresgid(USER, USER, USER) < 0 ||
				setresuid(USER, USER, USER) < 0))
			child_fail(up[1]);
		for (const char *s = steps; *s; s++) {
			if (*s == 'U' && unshare(CLONE_NEWUSER) < 0)
				child_fail(up[1]);
			if (*s == 'W')
				child_sync(up[1], down[0]);
			if (*s == 'S') {
				uid_t id = *ids++;

				if (setresgid(id, id, id) < 0 || setresuid(id, id, id) < 0)
					child_fail(up[1]);
			}
		}
		child_sync(up[1], down[0]); /* done; wait to be killed */
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	c.to_child = down[1];
	c.from_child = up[0];
	return c;
}

static void reap(Child *c)
{
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
	}
	safe_close(c->to_child);
	safe_close(c->from_child);
}

static bool strict(void)
{
	return getenv("MOUNTD_TEST_STRICT") != NULL;
}

static bool userns_for_users(void)
{
	Child c = spawn(true, "U", NULL);
	bool ok = parent_wait(&c) == 'r';

	reap(&c);
	return ok;
}

static void test_no_namespace(void)
{
	Child c = spawn(true, "", NULL);

	ok(getuid() != 0 || principal_of_pid(getpid(), 0) == 0, "root answers for itself: 0");
	ok(parent_wait(&c) == 'r' && principal_of_pid(c.pid, USER) == USER,
	   "a user's process in our namespace answers for itself");
	reap(&c);
}

/* A child that makes a user namespace (as USER, or as root) whose ids
 * 0..9 the parent maps to outside.., then takes the rest of steps (ids as
 * spawn()'s).  Whether it came to run as kuid, and *ret its principal. */
static bool principal_in_mapped(bool as_user, const char *steps, const uid_t *ids, unsigned outside,
				uid_t kuid, uid_t *ret)
{
	Child c = spawn(as_user, steps, ids);
	bool set_up = parent_wait(&c) == 'r' && map(c.pid, 0, outside, 10) >= 0;

	if (set_up)
		parent_go(&c);
	set_up = set_up && parent_wait(&c) == 'r' && kernel_uid(c.pid) == kuid;
	*ret = principal_of_pid(c.pid, kuid);
	reap(&c);
	return set_up;
}

static void test_subuids(void)
{
	static const uid_t three[] = {3};
	uid_t p;
	bool set_up = principal_in_mapped(true, "UWS", three, SUBUIDS, SUBUIDS + 3, &p);

	ok(set_up && p == USER, "a process as one of the user's subuids (%u): the user's (%u)",
	   SUBUIDS + 3, (unsigned)p);
}

static void test_subuids_nested(void)
{
	static const uid_t three[] = {3};
	uid_t p;
	/* As subuid 3 it makes a namespace of its own: owned by the subuid. */
	bool set_up = principal_in_mapped(true, "UWSU", three, SUBUIDS, SUBUIDS + 3, &p);

	ok(set_up && p == USER,
	   "... in a namespace a subuid made inside: still the user's, the outermost (%u)",
	   (unsigned)p);
}

static void test_root_container(void)
{
	static const uid_t five[] = {5};
	uid_t p;
	bool set_up = principal_in_mapped(false, "UWS", five, CONTAINER, CONTAINER + 5, &p);

	ok(set_up && p == CONTAINER + 5,
	   "a process in a namespace root made: its own uid, as without one (%u)", (unsigned)p);
}

/* Maps pid's user namespace from inside its parent, userns_fd: only a
 * process there (or in it) may write the map of a nested one. */
static int map_from(int userns_fd, pid_t pid, unsigned inside, unsigned outside, unsigned n)
{
	pid_t helper = fork();
	int status;

	if (helper == 0)
		_exit(setns(userns_fd, CLONE_NEWUSER) < 0 || map(pid, inside, outside, n) < 0);
	return helper > 0 && waitpid(helper, &status, 0) == helper && WIFEXITED(status) &&
			       WEXITSTATUS(status) == 0
		       ? 0
		       : -EPERM;
}

static void test_root_container_nested(void)
{
	static const uid_t ids[] = {0, 0};
	/* The container's root (CONTAINER + 0) makes a namespace, whose 0
	 * is the container's 1 (CONTAINER + 1). */
	Child c = spawn(false, "UWSUWS", ids);
	bool set_up = parent_wait(&c) == 'r' && map(c.pid, 0, CONTAINER, 10) >= 0;
	_cleanup_close_ int container = -EBADF;
	char path[64];
	uid_t p;

	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)c.pid);
	container = open(path, O_RDONLY | O_CLOEXEC);
	set_up = set_up && container >= 0;
	if (set_up)
		parent_go(&c);
	set_up = set_up && parent_wait(&c) == 'r' && map_from(container, c.pid, 0, 1, 1) >= 0;
	if (set_up)
		parent_go(&c);
	set_up = set_up && parent_wait(&c) == 'r' && kernel_uid(c.pid) == CONTAINER + 1;
	p = principal_of_pid(c.pid, CONTAINER + 1);
	ok(set_up && p == CONTAINER,
	   "... and in one its root made inside: that root's, who handed out the uid (%u)",
	   (unsigned)p);
	reap(&c);
}

static void test_gone(void)
{
	pid_t pid = fork();
	_cleanup_close_ int pidfd = -EBADF;

	if (pid == 0)
		_exit(0);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	waitpid(pid, NULL, 0);
	ok(principal_of_pidfd(pidfd, USER) == PRINCIPAL_UNKNOWN,
	   "a process that is gone: unknown, not its uid");
	ok(principal_of_pidfd(-EBADF, USER) == PRINCIPAL_UNKNOWN, "no pidfd: unknown");
	ok(principal_of_pidfd(-EBADF, 0) == 0, "uid 0 is root without looking");
}

int main(void)
{
	if (getuid() != 0) {
		printf("1..0 # SKIP needs root (to write uid maps)\n");
		return 0;
	}
	test_no_namespace();
	test_gone();
	if (!userns_for_users()) {
		/* Some hosts let no user make a user namespace (a sysctl,
		 * a container's seccomp filter).  The guest does. */
		ok(!strict(), "a user may make a user namespace here%s",
		   strict() ? "" : " # SKIP not on this host");
		return tap_done();
	}
	test_subuids();
	test_subuids_nested();
	test_root_container();
	test_root_container_nested();
	return tap_done();
}
