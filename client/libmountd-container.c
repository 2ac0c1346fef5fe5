/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A container's name → a pidfd of its first process (see libmountd-client.h
 * for the sources and the order).  Every source is asked and every answer
 * kept, so that a name two runtimes know is reported as ambiguous rather
 * than silently taken from the first, and a name none knows is reported
 * with the places looked at.
 *
 * Whose containers a name means is fixed before anything is read: root's
 * mountctl acts with every right, so a user must not be able to slip her
 * container under a name root uses (mountd judges nothing for root).  A
 * bare name is root's and the caller's own; another user's rootless
 * container only ever as UID/NAME (or LOGIN/NAME), and then only that
 * user's state counts.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libmountd-client.h"
#include "util.h"

extern char **environ;

typedef struct Match {
	int pid;
	int pidfd;
	char *source;
} Match;

typedef struct Search {
	/* The container's name, without the owner of a qualified one. */
	const char *name;
	/* A qualified name's user (looked for in /run/user/UID only). */
	bool qualified;
	uid_t owner;
	/* A state file counts only when one of these wrote it. */
	uid_t writers[2];
	size_t n_writers;
	Match matches[8];
	size_t n_matches;
	/* What was looked at and found wanting, "; "-separated. */
	FILE *looked;
	char *looked_text;
	size_t looked_size;
} Search;

static void search_done(Search *s)
{
	for (size_t i = 0; i < s->n_matches; i++) {
		safe_close(s->matches[i].pidfd);
		free(s->matches[i].source);
	}
	if (s->looked)
		fclose(s->looked);
	free(s->looked_text);
}

_printf_(2, 3) static void looked(Search *s, const char *fmt, ...)
{
	va_list ap;

	if (ftell(s->looked) > 0)
		fputs(", ", s->looked);
	va_start(ap, fmt);
	vfprintf(s->looked, fmt, ap);
	va_end(ap);
}

/* Keep a match (pidfd taken); the same process found twice is one. */
_printf_(4, 5) static void add_match(Search *s, int pid, int pidfd, const char *fmt, ...)
{
	va_list ap;
	char *source = NULL;

	for (size_t i = 0; i < s->n_matches; i++)
		if (s->matches[i].pid == pid) {
			safe_close(pidfd);
			return;
		}
	va_start(ap, fmt);
	if (vasprintf(&source, fmt, ap) < 0)
		source = NULL;
	va_end(ap);
	if (s->n_matches == ELEMENTSOF(s->matches) || !source) {
		free(source);
		safe_close(pidfd);
		return;
	}
	s->matches[s->n_matches++] = (Match){.pid = pid, .pidfd = pidfd, .source = source};
}

/* Names as runtimes and machined allow them, and nothing a path or a
 * command line could read as more than a name. */
static bool name_valid(const char *name)
{
	static const char alnum[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t n = strlen(name);

	/* strchr() finds the terminator too: n > 0 keeps it out. */
	if (n == 0 || n > 255 || !strchr(alnum, name[0]))
		return false;
	for (const char *p = name; *p; p++)
		if (!strchr(alnum, *p) && !strchr("_.-:@+", *p))
			return false;
	return true;
}

static bool pidfd_exited(int pidfd)
{
	struct pollfd p = {.fd = pidfd, .events = POLLIN};

	return poll(&p, 1, 0) != 0;
}

/* Who wrote a state file: the owner of the file and of its directory, when
 * both are one user's and nobody else may write either; -EPERM otherwise.
 * The file is opened without following a symlink, and read from that fd. */
static int state_writer(const char *path, int *ret_fd, uid_t *ret_uid)
{
	_cleanup_free_ char *dir = strdup(path);
	_cleanup_close_ int fd = -EBADF;
	struct stat f, d;
	char *slash;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (!slash)
		return -EINVAL;
	*slash = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return negative_errno();
	if (fstat(fd, &f) < 0 || lstat(dir, &d) < 0)
		return negative_errno();
	if (!S_ISREG(f.st_mode) || !S_ISDIR(d.st_mode) || f.st_uid != d.st_uid ||
	    (f.st_mode & 0022) || (d.st_mode & 0022))
		return -EPERM;
	*ret_uid = f.st_uid;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

static bool writer_trusted(const Search *s, uid_t uid)
{
	for (size_t i = 0; i < s->n_writers; i++)
		if (s->writers[i] == uid)
			return true;
	return false;
}

/* A runtime's state file: the pid under pid_key, its start time under
 * start_key.  Only from a writer the search trusts, and then from root or
 * from the user whose process it names: a user's file naming another's
 * process (root's container, for root's mountctl) is not that container's
 * state. */
static void try_state_file(Search *s, const char *runtime, const char *path, const char *pid_key,
			   const char *start_key)
{
	_cleanup_json_ json_object *state = NULL;
	_cleanup_close_ int pidfd = -EBADF, fd = -EBADF;
	unsigned long long start, actual;
	char proc[64];
	struct stat ps;
	json_object *v;
	uid_t writer;
	int pid, r;

	r = state_writer(path, &fd, &writer);
	if (r == -ENOENT) {
		looked(s, "%s", path);
		return;
	}
	if (r < 0) {
		looked(s, "%s (%s)", path,
		       r == -EPERM ? "not one user's, or writable by others" : strerror(-r));
		return;
	}
	if (!writer_trusted(s, writer)) {
		looked(s, "%s (uid %u's; that user's containers are named %u/%s)", path,
		       (unsigned)writer, (unsigned)writer, s->name);
		return;
	}
	state = json_object_from_fd(fd);
	if (!state || !json_object_object_get_ex(state, pid_key, &v)) {
		looked(s, "%s (not %s's state)", path, runtime);
		return;
	}
	pid = json_object_get_int(v);
	/* json-c reads numbers written as strings too (older runc). */
	start = json_object_object_get_ex(state, start_key, &v)
			? (unsigned long long)json_object_get_int64(v)
			: 0;
	if (pid <= 0) {
		looked(s, "%s (not running)", path);
		return;
	}
	pidfd = pidfd_open(pid, 0);
	snprintf(proc, sizeof(proc), "/proc/%d", pid);
	if (pidfd < 0 || proc_stat_number(pid, 22, &actual) < 0 || stat(proc, &ps) < 0 ||
	    pidfd_exited(pidfd)) {
		looked(s, "%s (not running: process %d is gone)", path, pid);
		return;
	}
	if (start && actual != start) {
		looked(s, "%s (not running: pid %d is another process now)", path, pid);
		return;
	}
	if (writer != 0 && writer != ps.st_uid) {
		looked(s, "%s (written by uid %u, but process %d is uid %u's)", path,
		       (unsigned)writer, pid, (unsigned)ps.st_uid);
		return;
	}
	add_match(s, pid, TAKE_FD(pidfd), "%s state %s", runtime, path);
}

/* Run argv, its stdout into *ret_out (trailing newlines cut); its stderr's
 * first line into *ret_err.  Returns the exit status, or -ENOENT when the
 * program is not installed. */
static int run_capture(char *const argv[], char **ret_out, char **ret_err)
{
	_cleanup_close_ int out = memfd_create("out", MFD_CLOEXEC);
	_cleanup_close_ int errfd = memfd_create("err", MFD_CLOEXEC);
	posix_spawn_file_actions_t fa;
	char *texts[2] = {};
	int fds[2] = {out, errfd};
	int status, r;
	pid_t pid;

	*ret_out = *ret_err = NULL;
	if (out < 0 || errfd < 0)
		return negative_errno();
	if (posix_spawn_file_actions_init(&fa) != 0)
		return -ENOMEM;
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, errfd, 2);
	r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0)
		return -r;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return negative_errno();
	for (size_t i = 0; i < 2; i++) {
		off_t size = lseek(fds[i], 0, SEEK_END);
		size_t n;

		if (size < 0 || size > 65536)
			size = size < 0 ? 0 : 65536;
		texts[i] = calloc(1, (size_t)size + 1);
		if (!texts[i] || pread(fds[i], texts[i], (size_t)size, 0) < 0) {
			free(texts[0]);
			free(texts[1]);
			return -ENOMEM;
		}
		n = strcspn(texts[i], i == 0 ? "" : "\n");
		texts[i][n] = 0;
		while (n > 0 && texts[i][n - 1] == '\n')
			texts[i][--n] = 0;
	}
	*ret_out = texts[0];
	*ret_err = texts[1];
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A program that prints the pid of the container's first process. */
static int query_pid(Search *s, const char *label, char *const argv[], int *ret_pid)
{
	_cleanup_free_ char *out = NULL, *error = NULL;
	char *end;
	long pid;
	int r;

	r = run_capture(argv, &out, &error);
	if (r == -ENOENT) {
		looked(s, "%s (not installed)", label);
		return r;
	}
	if (r < 0) {
		looked(s, "%s (%s)", label, strerror(-r));
		return r;
	}
	if (r > 0) {
		looked(s, "%s (%s)", label, *error ? error : "failed");
		return -ESRCH;
	}
	errno = 0;
	pid = strtol(out, &end, 10);
	if (errno || end == out || *end || pid < 0 || pid > INT32_MAX) {
		looked(s, "%s (unexpected answer \"%s\")", label, out);
		return -EBADMSG;
	}
	if (pid == 0) {
		looked(s, "%s (not running)", label);
		return -ESRCH;
	}
	*ret_pid = (int)pid;
	return 0;
}

/* Asked twice, around pidfd_open(): a pid the program names after the
 * pidfd is open is the container's, not a recycled one. */
static void try_command(Search *s, const char *label, char *const argv[])
{
	_cleanup_close_ int pidfd = -EBADF;
	int pid, again;

	if (query_pid(s, label, argv, &pid) < 0)
		return;
	pidfd = pidfd_open(pid, 0);
	if (pidfd < 0 || query_pid(s, label, argv, &again) < 0 || again != pid ||
	    pidfd_exited(pidfd)) {
		looked(s, "%s (not running: process %d is gone)", label, pid);
		return;
	}
	add_match(s, pid, TAKE_FD(pidfd), "%s", label);
}

/* The runtime directories whose crun/ and runc/ are looked in: a qualified
 * name's user's; for root /run alone (root's crun and runc keep their state
 * there, whatever $XDG_RUNTIME_DIR says); for another user /run and the
 * user's own.  NULL-terminated; -ENOMEM. */
static int runtime_dirs(const Search *s, char ***ret)
{
	_cleanup_strv_free_ char **l = calloc(3, sizeof(char *));
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	size_t n = 0;
	int k;

	if (!l)
		return -ENOMEM;
	if (s->qualified)
		k = asprintf(&l[n], "/run/user/%u", (unsigned)s->owner);
	else
		k = asprintf(&l[n], "/run");
	if (k < 0)
		return -ENOMEM;
	n++;
	if (!s->qualified && getuid() != 0) {
		if (xdg && xdg[0] == '/')
			l[n] = strdup(xdg);
		else if (asprintf(&l[n], "/run/user/%u", (unsigned)getuid()) < 0)
			l[n] = NULL;
		if (!l[n])
			return -ENOMEM;
	}
	*ret = TAKE_PTR(l);
	return 0;
}

/* crun's and runc's state in the runtime directories. */
static int search_states(Search *s)
{
	_cleanup_strv_free_ char **dirs = NULL;
	int k = runtime_dirs(s, &dirs);

	if (k < 0)
		return k;
	for (char **d = dirs; *d; d++) {
		_cleanup_free_ char *path = NULL;

		if (asprintf(&path, "%s/crun/%s/status", *d, s->name) < 0)
			return -ENOMEM;
		try_state_file(s, "crun", path, "pid", "process-start-time");
	}
	for (char **d = dirs; *d; d++) {
		_cleanup_free_ char *path = NULL;

		if (asprintf(&path, "%s/runc/%s/state.json", *d, s->name) < 0)
			return -ENOMEM;
		try_state_file(s, "runc", path, "init_process_pid", "init_process_start");
	}
	return 0;
}

static int search(Search *s)
{
	char *name = (char *)s->name;
	int k = search_states(s);

	/* The programs answer for root's containers (or the caller's own);
	 * none of them for another user's. */
	if (k < 0 || s->qualified)
		return k;
	try_command(s, "podman",
		    (char *const[]){"podman", "container", "inspect", "--format", "{{.State.Pid}}",
				    name, NULL});
	try_command(s, "docker",
		    (char *const[]){"docker", "container", "inspect", "--format", "{{.State.Pid}}",
				    name, NULL});
	try_command(
		s, "machinectl",
		(char *const[]){"machinectl", "show", "--property=Leader", "--value", name, NULL});
	return 0;
}

static void search_init(Search *s, const char *name, bool qualified, uid_t owner)
{
	*s = (Search){.name = name, .qualified = qualified, .owner = owner};
	if (qualified)
		s->writers[s->n_writers++] = owner;
	else {
		s->writers[s->n_writers++] = 0;
		if (getuid() != 0)
			s->writers[s->n_writers++] = getuid();
	}
}

/* For root's bare name that found nothing: the users' running containers of
 * that name, "UID/NAME, ...", so that the error says how to name one.
 * NULL when there are none; -ENOMEM. */
static int users_with(const char *name, char **ret)
{
	_cleanup_closedir_ DIR *d = opendir("/run/user");
	_cleanup_free_ char *text = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	size_t size = 0;
	struct dirent *de;
	bool any = false;

	*ret = NULL;
	if (!d)
		return 0;
	f = open_memstream(&text, &size);
	if (!f)
		return -ENOMEM;
	while ((de = readdir(d))) {
		_cleanup_(search_done) Search u = {};
		char *end;
		unsigned long uid;
		int k;

		errno = 0;
		uid = strtoul(de->d_name, &end, 10);
		if (!isdigit((unsigned char)de->d_name[0]) || *end || errno || uid >= UINT32_MAX)
			continue;
		search_init(&u, name, true, (uid_t)uid);
		u.looked = open_memstream(&u.looked_text, &u.looked_size);
		if (!u.looked)
			return -ENOMEM;
		k = search_states(&u);
		if (k < 0)
			return k;
		if (u.n_matches > 0) {
			fprintf(f, "%s%lu/%s", any ? ", " : "", uid, name);
			any = true;
		}
	}
	if (fflush(f) != 0 || ferror(f))
		return -ENOMEM;
	if (any) {
		fclose(TAKE_PTR(f));
		*ret = TAKE_PTR(text);
	}
	return 0;
}

_printf_(2, 3) static int invalid(char **ret_error, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vasprintf(ret_error, fmt, ap);
	va_end(ap);
	if (k < 0) {
		*ret_error = NULL;
		return -ENOMEM;
	}
	return -EINVAL;
}

/* "NAME", or "OWNER/NAME" for the rootless container NAME of the user
 * OWNER (a uid or a login name).  -EINVAL with *ret_error for anything
 * else; -ENOMEM. */
static int parse_name(const char *arg, bool *ret_qualified, uid_t *ret_owner, char **ret_name,
		      char **ret_error)
{
	_cleanup_free_ char *owner = NULL, *buf = NULL;
	const char *slash = arg ? strchr(arg, '/') : NULL;
	const char *name = slash ? slash + 1 : arg;
	struct passwd pw, *found = NULL;
	unsigned long uid;
	char *end;
	int k;

	*ret_qualified = slash;
	*ret_owner = 0;
	if (slash) {
		owner = strndup(arg, (size_t)(slash - arg));
		if (!owner)
			return -ENOMEM;
	}
	/* A login as useradd allows it ("..", "-x" are none). */
	if (!name || !name_valid(name) ||
	    (owner && (!owner[0] || strchr(".-", owner[0]) || !name_valid(owner))))
		return invalid(ret_error, "\"%s\" is not a container name", strna(arg));
	if (owner) {
		errno = 0;
		uid = strtoul(owner, &end, 10);
		if (isdigit((unsigned char)owner[0])) {
			if (*end || errno || uid >= UINT32_MAX)
				return invalid(ret_error, "\"%s\": no such uid %s", arg, owner);
			*ret_owner = (uid_t)uid;
		} else {
			buf = malloc(16384);
			if (!buf)
				return -ENOMEM;
			k = getpwnam_r(owner, &pw, buf, 16384, &found);
			if (k == ENOMEM || k == ERANGE)
				return -ENOMEM;
			if (!found)
				return invalid(ret_error, "\"%s\": no such user %s", arg, owner);
			*ret_owner = pw.pw_uid;
		}
	}
	*ret_name = strdup(name);
	return *ret_name ? 0 : -ENOMEM;
}

int mountd_container_open(const char *arg, MountdContainer *ret, char **ret_error)
{
	_cleanup_(search_done) Search s = {};
	_cleanup_free_ char *name = NULL, *users = NULL;
	char *error = NULL;
	bool qualified;
	uid_t owner;
	int r;

	*ret = (MountdContainer){.pidfd = -EBADF};
	if (ret_error)
		*ret_error = NULL;
	r = parse_name(arg, &qualified, &owner, &name, &error);
	if (r < 0)
		goto fail;
	search_init(&s, name, qualified, owner);
	s.looked = open_memstream(&s.looked_text, &s.looked_size);
	if (!s.looked)
		return -ENOMEM;
	r = search(&s);
	if (r < 0)
		return r;
	if (fflush(s.looked) != 0)
		return -ENOMEM;

	if (s.n_matches == 1) {
		*ret = (MountdContainer){.pidfd = TAKE_FD(s.matches[0].pidfd),
					 .pid = s.matches[0].pid,
					 .source = TAKE_PTR(s.matches[0].source)};
		return 0;
	}
	if (s.n_matches == 0) {
		/* Root is told of the users' containers of that name, never
		 * given one. */
		if (!qualified && getuid() == 0) {
			r = users_with(name, &users);
			if (r < 0)
				return r;
		}
		r = -ENOENT;
		if (asprintf(&error, "no running container \"%s\"; looked at %s%s%s%s", arg,
			     s.looked_text ?: "",
			     users ? "; a user's container is taken only when named so: " : "",
			     users ?: "", users ? " (UID/NAME)" : "") < 0)
			error = NULL;
	} else {
		_cleanup_free_ char *list = NULL;
		size_t size = 0;
		FILE *f = open_memstream(&list, &size);

		r = -ENOTUNIQ;
		if (f) {
			for (size_t i = 0; i < s.n_matches; i++)
				fprintf(f, "%spid %d (%s)", i ? ", " : "", s.matches[i].pid,
					s.matches[i].source);
			fclose(f);
		}
		if (asprintf(&error, "\"%s\" names %zu containers: %s", arg, s.n_matches,
			     strna(list)) < 0)
			error = NULL;
	}
fail:
	if (ret_error)
		*ret_error = error;
	else
		free(error);
	return r;
}

void mountd_container_done(MountdContainer *c)
{
	safe_close(c->pidfd);
	free(c->source);
	*c = (MountdContainer){.pidfd = -EBADF};
}
