/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Records of mount points about to be made (see ops-leftovers.h).  A record is
 * a small text file: "ns DEV INO\ntype T\nmade DEV INO\nroot N\npath
 * ROOTPATH" with the paths last (they may hold anything but NUL); "made 0
 * 0" until the creation happened.  The first N bytes of ROOTPATH are the
 * request's namespace root (0 without one), under which the rest is
 * resolved.  Records are written to a temporary name and renamed, so a kill
 * never leaves half a record.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ops-leftovers.h"
#include "request-escape.h"
#include "log.h"
#include "sys-process.h"
#include "executor-rights.h"
#include "test-hook.h"
#include "util.h"
#include "executor-worker.h"

#define RUN_DIR	   "/run/mountd"
#define RECORDS	   "leftovers"
#define CLEAN_USEC (5 * 1000 * 1000)

typedef struct Record {
	uint64_t ns_dev, ns_ino, made_dev, made_ino;
	int type;
	size_t root_len;
	char *path; /* root and path, joined */
} Record;

static int records_dir(void)
{
	int run = worker_host_dir(WORKER_HOST_RUN), fd;

	if (run < 0)
		return -ENOENT;
	if (mkdirat(run, RECORDS, 0700) < 0 && errno != EEXIST)
		return negative_errno();
	fd = openat(run, RECORDS, O_PATH | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? negative_errno() : fd;
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, buf, n);

		if (k < 0)
			return negative_errno();
		buf += k;
		n -= (size_t)k;
	}
	return 0;
}

static int record_write(const char *name, const Record *r)
{
	_cleanup_close_ int dir = records_dir(), fd = -EBADF;
	_cleanup_free_ char *text = NULL;
	char tmp[sizeof(((Leftover *)0)->name) + 8];
	int n, k;

	if (dir < 0)
		return dir;
	n = asprintf(&text,
		     "ns %" PRIu64 " %" PRIu64 "\ntype %d\nmade %" PRIu64 " %" PRIu64
		     "\nroot %zu\npath %s",
		     r->ns_dev, r->ns_ino, r->type, r->made_dev, r->made_ino, r->root_len, r->path);
	if (n < 0)
		return -ENOMEM;
	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	fd = openat(dir, tmp, O_CREAT | O_TRUNC | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return negative_errno();
	k = write_all(fd, text, (size_t)n);
	if (k >= 0 && renameat(dir, tmp, dir, name) < 0)
		k = negative_errno();
	if (k < 0)
		(void)unlinkat(dir, tmp, 0);
	return k;
}

/* The record is mountd's file, whoever the worker acts for. */
static int record_write_as_mountd(const char *name, const Record *r)
{
	RightsSaved saved = rights_suspend();
	int k = record_write(name, r);

	rights_resume(&saved);
	return k;
}

struct record_before {
	Record *record;
	Leftover *leftover;
};

/* Write the record of what is about to be made, in the namespace this
 * worker is in now: the one it will create in. */
static int record_before_create(void *userdata)
{
	static unsigned counter;
	struct record_before *b = userdata;
	int proc = worker_host_dir(WORKER_HOST_PROC), r;
	struct stat st;

	if (fstatat(proc >= 0 ? proc : AT_FDCWD, proc >= 0 ? "self/ns/mnt" : "/proc/self/ns/mnt",
		    &st, 0) < 0)
		return negative_errno();
	b->record->ns_dev = st.st_dev;
	b->record->ns_ino = st.st_ino;
	snprintf(b->leftover->name, sizeof(b->leftover->name), "%d-%u", (int)getpid(), counter++);
	r = record_write_as_mountd(b->leftover->name, b->record);
	if (r < 0)
		*b->leftover = (Leftover){};
	return r;
}

int leftover_resolve_create(int root_fd, const char *root, const char *path, MntCreate create,
			    const char *what, MntLog *log, MntCreated *ret_created, Leftover *ret)
{
	_cleanup_free_ char *joined = NULL;
	Record r = {.type = (int)create, .root_len = root ? strlen(root) : 0};
	struct record_before b = {.record = &r, .leftover = ret};
	/* Only a missing mount point gets a record: one that is there already
	 * is not made (most Create requests of a runtime that asks for create
	 * every time). */
	const MntBeforeCreate before = {
		.step = "record", .fn = record_before_create, .userdata = &b};
	struct stat st;
	int fd;

	*ret = (Leftover){};
	if (asprintf(&joined, "%s%s", root ?: "", path) < 0)
		return -ENOMEM;
	r.path = joined;
	fd = mnt_resolve_create_in_root(root_fd, path, create, what,
					create == MNT_CREATE_NONE ? NULL : &before, log,
					ret_created);
	if (fd < 0 || !ret_created->name) {
		leftover_done(ret);
		return fd;
	}
	/* Best effort: a record without the inode is one the successor does
	 * not trust, and this worker undoes its own failures anyway. */
	if (fstatat(ret_created->dir_fd, ret_created->name, &st, AT_SYMLINK_NOFOLLOW) >= 0) {
		r.made_dev = st.st_dev;
		r.made_ino = st.st_ino;
		(void)record_write_as_mountd(ret->name, &r);
	}
	test_stop_at("mountpoint");
	return fd;
}

void leftover_done(Leftover *l)
{
	_cleanup_close_ int dir = -EBADF;
	RightsSaved saved;

	if (!l->name[0])
		return;
	saved = rights_suspend();
	dir = records_dir();
	if (dir >= 0)
		(void)unlinkat(dir, l->name, 0);
	rights_resume(&saved);
	*l = (Leftover){};
}

/* ---- at start ------------------------------------------------------------------ */

static int record_read(int dir, const char *name, Record *ret)
{
	_cleanup_close_ int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char buf[MNT_PATH_MAX + 256];
	const char *p, *q;
	ssize_t n;

	if (fd < 0)
		return negative_errno();
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return negative_errno();
	buf[n] = 0;
	*ret = (Record){};
	if (sscanf(buf, "ns %" SCNu64 " %" SCNu64 "\ntype %d\nmade %" SCNu64 " %" SCNu64 "\n",
		   &ret->ns_dev, &ret->ns_ino, &ret->type, &ret->made_dev, &ret->made_ino) != 5)
		return -EBADMSG;
	p = strstr(buf, "\npath ");
	if (!p || (ret->type != MNT_CREATE_DIRECTORY && ret->type != MNT_CREATE_FILE))
		return -EBADMSG;
	/* Before the path: the path itself may hold "\nroot ". */
	q = memmem(buf, (size_t)(p - buf), "\nroot ", strlen("\nroot "));
	if (q && sscanf(q, "\nroot %zu", &ret->root_len) != 1)
		return -EBADMSG;
	ret->path = strdup(p + strlen("\npath "));
	if (!ret->path)
		return -ENOMEM;
	if (ret->root_len >= strlen(ret->path)) {
		ret->path = mfree(ret->path);
		return -EBADMSG;
	}
	return 0;
}

/* In a child that joined the namespace: remove what r names if it is
 * still what was made.  Exits with 0 or the errno. */
_Noreturn static void remove_in_ns(int ns_fd, const Record *r)
{
	_cleanup_free_ char *parent = NULL, *name = NULL, *under = NULL;
	_cleanup_close_ int root = -EBADF, dir = -EBADF;
	bool is_dir = r->type == MNT_CREATE_DIRECTORY;
	struct stat st;
	int k;

	if (setns(ns_fd, CLONE_NEWNS) < 0)
		_exit(errno);
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		_exit(errno);
	if (r->root_len > 0) {
		/* Resolved as the request resolved it: under its root. */
		under = strndup(r->path, r->root_len);
		if (!under)
			_exit(ENOMEM);
		k = mnt_resolve_in_root(root, under, MNT_CREATE_NONE, "root", NULL);
		if (k < 0)
			_exit(-k);
		safe_close(root);
		root = k;
	}
	k = mnt_split_last(r->path + r->root_len, &parent, &name);
	if (k < 0)
		_exit(-k);
	dir = mnt_resolve_in_root(root, parent, MNT_CREATE_NONE, "parent", NULL);
	if (dir < 0)
		_exit(-dir);
	/* A mount placed on it shows the mount's root here: not the inode. */
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		_exit(errno);
	if (st.st_dev != r->made_dev || st.st_ino != r->made_ino ||
	    (is_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode) || st.st_size != 0))
		_exit(ESTALE);
	/* rmdir refuses a directory someone has put something in. */
	_exit(unlinkat(dir, name, is_dir ? AT_REMOVEDIR : 0) < 0 ? errno : 0);
}

static int clean_one(const Record *r)
{
	_cleanup_close_ int ns_fd = -EBADF, pidfd = -EBADF;
	struct pollfd p;
	siginfo_t si = {};
	pid_t pid;

	if (r->made_ino == 0)
		return -ENODATA; /* killed before it knew what it made */
	ns_fd = process_in_mntns(r->ns_dev, r->ns_ino, 0);
	if (ns_fd < 0)
		return ns_fd;
	/* setns() changes the whole process: never mountd's own. */
	pid = fork();
	if (pid < 0)
		return negative_errno();
	if (pid == 0)
		remove_in_ns(ns_fd, r);
	pidfd = pidfd_open(pid, 0);
	p = (struct pollfd){.fd = pidfd, .events = POLLIN};
	/* A filesystem that does not answer must not keep mountd from
	 * serving. */
	if (pidfd < 0 || poll(&p, 1, CLEAN_USEC / 1000) <= 0) {
		(void)kill(pid, SIGKILL);
		(void)waitpid(pid, NULL, 0);
		return -ETIMEDOUT;
	}
	if (waitid(P_PID, (id_t)pid, &si, WEXITED) < 0)
		return negative_errno();
	return si.si_code == CLD_EXITED ? -si.si_status : -EINTR;
}

void leftovers_clean(void)
{
	_cleanup_closedir_ DIR *d = opendir(RUN_DIR "/" RECORDS);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		Record r;
		int k;

		if (de->d_name[0] == '.') {
			if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
				(void)unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		k = record_read(dirfd(d), de->d_name, &r);
		if (k >= 0) {
			/* The path is a caller's: one line, bounded. */
			char path[PATH_MAX];

			(void)escape_text(r.path, path, sizeof(path));
			k = clean_one(&r);
			if (k >= 0)
				log_notice("removed %s, left by a mountd killed while making it",
					   path);
			else
				log_notice("left %s alone (%s): no longer what a killed mountd "
					   "made, or not reachable",
					   path, errno_name(k));
			free(r.path);
		}
		(void)unlinkat(dirfd(d), de->d_name, 0);
	}
}
