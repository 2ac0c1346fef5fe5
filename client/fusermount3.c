/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fusermount3 for mountd: the helper libfuse 3 runs to mount a FUSE
 * filesystem for a user who may not mount, with libfuse 3.17.2's command
 * line and protocol, but not setuid.  It opens /dev/fuse as the caller,
 * asks mountd to mount a filesystem served through it (Create), and hands
 * the fd to libfuse over the socket named by _FUSE_COMMFD (or --comm-fd);
 * -u asks mountd to unmount (Unmount, fsType fuse).  It checks nothing
 * itself: what the setuid one checks, mountd does, on what it resolves as
 * the caller (mountd(8), FUSE).  Installed as /usr/lib/mountd/fusermount3.
 */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/nsfs.h>

#ifndef PIDFD_GET_MNT_NAMESPACE
#define PIDFD_GET_MNT_NAMESPACE _IO(0xFF, 3)
#endif

#include "fusermount3-options.h"
#include "libmountd-client.h"
#include "scm-rights.h"
#include "util.h"
#include "version.h"

#define PROG "fusermount3"
/* The fusermount3 whose command line and protocol this one speaks. */
#define FUSERMOUNT_VERSION "3.17.2"
#define COMMFD_ENV	   "_FUSE_COMMFD"
#define FUSE_DEVICE	   "/dev/fuse"
/* Set by mountctl fuse: a pidfd, inherited through the FUSE program, whose
 * process's mount namespace gets the mount instead of the caller's. */
#define NAMESPACE_ENV "MOUNTD_FUSE_PIDFD"

/* That pidfd, or -EBADF: the caller's own namespace. */
static int target_pidfd = -EBADF;

_printf_(1, 2) static void log_error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int log_oom(void)
{
	log_error("failed to allocate memory");
	return -ENOMEM;
}

static void help(void)
{
	printf("%s: [options] mountpoint\n"
	       "Mounts and unmounts FUSE filesystems through mountd (not setuid).\n"
	       "Options:\n"
	       " -h                  print help\n"
	       " -V                  print version\n"
	       " -o opt[,opt...]     mount options\n"
	       " -u                  unmount\n"
	       " -q                  quiet\n"
	       " -z                  lazy unmount\n",
	       PROG);
}

/* The mount point as fusermount3 names it: the real path of the directory
 * it is in, and its last component as given (not followed). */
static int resolve_mount_point(const char *orig, char **ret)
{
	_cleanup_free_ char *copy = strdup(orig);
	const char *parent, *last = NULL;
	char buf[PATH_MAX], *end, *slash;
	int k;

	if (!copy)
		return log_oom();
	if (!*orig) {
		log_error("invalid mountpoint '%s'", orig);
		return -EINVAL;
	}
	parent = copy;
	for (end = copy + strlen(copy) - 1; end > copy && *end == '/'; end--)
		;
	if (*end != '/') {
		end[1] = 0;
		slash = strrchr(copy, '/');
		last = slash ? slash + 1 : copy;
		parent = !slash ? "." : slash == copy ? "/" : copy;
		if (streq(last, ".") || streq(last, "..")) {
			last = NULL;
			parent = copy;
		} else if (slash && slash != copy)
			*slash = 0;
	}
	if (!realpath(parent, buf)) {
		k = negative_errno();
		log_error("bad mount point %s: %s", orig, strerror(-k));
		return k;
	}
	if (!last)
		*ret = strdup(buf);
	else if (asprintf(ret, "%s%s%s", buf, streq(buf, "/") ? "" : "/", last) < 0)
		*ret = NULL;
	return *ret ? 0 : log_oom();
}

static int parse_fd(const char *s, int *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > INT_MAX)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

/* One call on a connection of its own.  0 with *reply filled (maybe an
 * error), or negative after saying why mountd could not be asked. */
static int call_mountd(const char *method, json_object *params, const int *fds, size_t n_fds,
		       MountdReply *reply)
{
	_cleanup_(mountd_client_freep) MountdClient *c = NULL;
	int k;

	k = mountd_client_connect(&c, NULL);
	if (k < 0) {
		log_error("cannot reach mountd at %s, which mounts for this fusermount3: %s",
			  mountd_socket_path(NULL), strerror(-k));
		return k;
	}
	k = mountd_client_call(c, method, params, fds, n_fds, reply);
	if (k < 0)
		log_error("no answer from mountd to %s: %s", method,
			  k == -ECONNRESET ? "connection closed" : strerror(-k));
	return k;
}

/* mountd's error, as one line, after what. */
static int log_reply_error(const MountdReply *reply, const char *what)
{
	_cleanup_free_ char *line = mountd_reply_error_string(reply);

	log_error("%s: %s", what, line ?: reply->error);
	return -EIO;
}

static int unmount_fuse(const char *path, bool lazy, bool quiet)
{
	_cleanup_(mountd_reply_done) MountdReply reply = {};
	_cleanup_json_ json_object *request = NULL;
	_cleanup_free_ char *what = NULL;
	int k;

	if (fuse_unmount_request(path, lazy, target_pidfd >= 0 ? 0 : -1, &request) < 0)
		return log_oom();
	k = call_mountd(MOUNTD_INTERFACE ".Unmount", request, &target_pidfd, target_pidfd >= 0,
			&reply);
	if (k < 0)
		return k;
	if (!reply.error)
		return 0;
	if (quiet)
		return -EIO;
	if (asprintf(&what, "failed to unmount %s", path) < 0)
		return log_oom();
	return log_reply_error(&reply, what);
}

/* As fusermount3 sends it: one byte, and fd beside it. */
static int send_fd(int sock, int fd)
{
	SCM_RIGHTS_BUFFER(1) control;
	char byte = 0;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n;

	scm_rights_put(&mh, &control, &fd, 1);
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return negative_errno();
	return n == 1 ? 0 : -EIO;
}

static int open_fuse_device(int *ret)
{
	int k;

	*ret = open(FUSE_DEVICE, O_RDWR | O_CLOEXEC);
	if (*ret >= 0)
		return 0;
	k = negative_errno();
	if (k == -ENODEV || k == -ENOENT)
		log_error("fuse device not found, try 'modprobe fuse' first");
	else
		log_error("failed to open %s: %s", FUSE_DEVICE, strerror(-k));
	return k;
}

/* The user namespace that owns the target's mount namespace, when it is
 * the caller's own (its rootless container) and not the one it runs in:
 * there mountd has the caller make the superblock (the kernel then holds
 * it to that namespace), so /dev/fuse must be opened there too (the kernel
 * takes only such a one) and user_id and group_id are the caller's ids as
 * that namespace maps them.  -ENOENT when it is none of that. */
static int target_userns(void)
{
	_cleanup_close_ int mntns = -EBADF, userns = -EBADF, own = -EBADF;
	struct stat a, b;
	uid_t owner;

	if (target_pidfd < 0)
		return -ENOENT;
	mntns = ioctl(target_pidfd, PIDFD_GET_MNT_NAMESPACE, 0);
	if (mntns < 0)
		return negative_errno();
	userns = ioctl(mntns, NS_GET_USERNS);
	if (userns < 0)
		return negative_errno();
	if (ioctl(userns, NS_GET_OWNER_UID, &owner) < 0)
		return negative_errno();
	own = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
	if (own < 0 || fstat(own, &a) < 0 || fstat(userns, &b) < 0)
		return negative_errno();
	if (owner != getuid() || (a.st_dev == b.st_dev && a.st_ino == b.st_ino))
		return -ENOENT;
	return TAKE_FD(userns);
}

/* In a child that joined userns: /dev/fuse opened there, and the caller's
 * ids as seen there, sent back over sock. */
static _Noreturn void open_in_userns(int sock, int userns)
{
	SCM_RIGHTS_BUFFER(1) control;
	unsigned ids[2];
	struct iovec iov = {.iov_base = ids, .iov_len = sizeof(ids)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	int fd;

	if (setns(userns, CLONE_NEWUSER) < 0)
		_exit(1);
	fd = open(FUSE_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		_exit(2);
	ids[0] = (unsigned)getuid();
	ids[1] = (unsigned)getgid();
	scm_rights_put(&mh, &control, &fd, 1);
	_exit(sendmsg(sock, &mh, MSG_NOSIGNAL) == sizeof(ids) ? 0 : 1);
}

/* /dev/fuse for the mount, and the user_id and group_id it names: in the
 * target's user namespace where that is the caller's (target_userns()). */
static int open_fuse_for_target(int *ret, uid_t *ret_uid, gid_t *ret_gid)
{
	_cleanup_close_ int userns = target_userns();
	_cleanup_free_ int *fds = NULL;
	SCM_RIGHTS_BUFFER(1) control;
	unsigned ids[2];
	struct iovec iov = {.iov_base = ids, .iov_len = sizeof(ids)};
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = &control,
		.msg_controllen = sizeof(control),
	};
	size_t n_fds = 0;
	int sv[2], status, k;
	ssize_t n;
	pid_t pid;

	*ret_uid = getuid();
	*ret_gid = getgid();
	/* None of the caller's, or no telling (a kernel without
	 * PIDFD_GET_MNT_NAMESPACE): as the caller, and the kernel decides. */
	if (userns < 0)
		return open_fuse_device(ret);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return negative_errno();
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		open_in_userns(sv[1], userns);
	}
	close(sv[1]);
	if (pid < 0) {
		k = negative_errno();
		close(sv[0]);
		return k;
	}
	n = recvmsg(sv[0], &mh, MSG_CMSG_CLOEXEC);
	k = n < 0 ? negative_errno() : 0;
	close(sv[0]);
	if (k >= 0)
		k = scm_rights_take(&mh, &fds, &n_fds);
	if (waitpid(pid, &status, 0) != pid && k >= 0)
		k = negative_errno();
	if (k >= 0 && (n != sizeof(ids) || n_fds != 1))
		k = -EIO;
	if (k < 0) {
		close_many(fds, n_fds);
		log_error("failed to open %s in the target's user namespace", FUSE_DEVICE);
		return k;
	}
	*ret = fds[0];
	*ret_uid = ids[0];
	*ret_gid = ids[1];
	return 0;
}

/* The type of what is at path now (S_IFDIR, S_IFREG), for rootmode: the
 * kernel refuses a root of another kind than its mount point's.  Whether
 * the caller may mount there is mountd's to judge, on what it resolves. */
static int mount_point_type(const char *path, mode_t *ret)
{
	_cleanup_close_ int fd = open(path, O_PATH | O_CLOEXEC);
	struct stat st;
	int k;

	if (fd < 0 || fstat(fd, &st) < 0) {
		k = negative_errno();
		log_error("failed to access mountpoint %s: %s", path, strerror(-k));
		return k;
	}
	*ret = st.st_mode & S_IFMT;
	return 0;
}

static int mount_fuse(const char *path, const char *opts, int commfd, bool *ret_auto_unmount)
{
	_cleanup_(fuse_options_done) FuseOptions o = FUSE_OPTIONS_NULL;
	_cleanup_(mountd_reply_done) MountdReply reply = {};
	_cleanup_json_ json_object *request = NULL;
	_cleanup_close_ int fuse_fd = -EBADF;
	_cleanup_free_ char *error = NULL;
	mode_t rootmode = 0;
	uid_t uid;
	gid_t gid;
	int k;

	k = fuse_options_parse(&o, opts, getuid(), &error);
	for (char **w = o.warnings; w && *w; w++)
		log_error("%s", *w);
	if (k == -ENOMEM)
		return log_oom();
	if (k < 0) {
		log_error("%s", error);
		return k;
	}
	if (o.auto_unmount && target_pidfd >= 0) {
		/* Its watcher would look at the mount point here, not there. */
		log_error("auto_unmount is not supported with a target namespace (%s)",
			  NAMESPACE_ENV);
		return -EINVAL;
	}
	k = open_fuse_for_target(&fuse_fd, &uid, &gid);
	if (k < 0)
		return k;
	/* A mount point in another namespace is a directory, as libfuse's
	 * programs want theirs. */
	if (target_pidfd >= 0)
		rootmode = S_IFDIR;
	else {
		k = mount_point_type(path, &rootmode);
		if (k < 0)
			return k;
	}
	if (fuse_create_request(&o, path, rootmode, uid, gid, target_pidfd >= 0 ? 1 : -1,
				&request) < 0)
		return log_oom();
	int fds[] = {fuse_fd, target_pidfd};
	k = call_mountd(MOUNTD_INTERFACE ".Create", request, fds, target_pidfd >= 0 ? 2 : 1,
			&reply);
	if (k < 0)
		return k;
	if (reply.error)
		return log_reply_error(&reply, "mount failed");
	k = send_fd(commfd, fuse_fd);
	if (k < 0) {
		log_error("sending file descriptor: %s", strerror(-k));
		/* Nobody will serve it: take it away again (what fails is said). */
		(void)unmount_fuse(path, true, false);
		return k;
	}
	*ret_auto_unmount = o.auto_unmount;
	return 0;
}

/* The auto_unmount watcher keeps only the socket: the fds libfuse's
 * program let it inherit would otherwise stay open as long as the mount. */
static int close_inherited_fds(int keep)
{
	int null;

	if (keep <= STDERR_FILENO)
		return -EINVAL;
	if ((keep > STDERR_FILENO + 1 && close_range(STDERR_FILENO + 1, keep - 1, 0) < 0) ||
	    close_range(keep + 1, ~0U, 0) < 0) {
		if (errno != ENOSYS)
			return negative_errno();
		for (long fd = STDERR_FILENO + 1, max = sysconf(_SC_OPEN_MAX); fd < max; fd++)
			if (fd != keep)
				(void)close((int)fd); /* EBADF: was not open */
	}
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0)
		return negative_errno();
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (null != fd && dup2(null, fd) < 0)
			return negative_errno();
	if (null > STDERR_FILENO)
		close(null);
	return 0;
}

/* As fusermount3 decides after its caller is gone: unmount only a mount
 * whose server died without unmounting it, one whose root answers
 * ENOTCONN.  One unmounted cleanly shows what is beneath instead, which
 * may be another mount that is not ours to take away. */
static bool should_auto_unmount(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == ENOTCONN;
}

/* Stay, as fusermount3 does, until the socket's other end is closed (the
 * filesystem's process has exited), then unmount: lazily and quietly. */
static int wait_then_unmount(const char *path, int commfd)
{
	sigset_t all;
	char buf[16];
	ssize_t n;
	int k;

	k = close_inherited_fds(commfd);
	if (k < 0) {
		log_error("cannot close the inherited file descriptors: %s", strerror(-k));
		return k;
	}
	/* A session of its own, deaf to signals: the terminal's ^C or hangup
	 * must not end the watch while the mount lives. */
	if (setsid() < 0 && errno != EPERM)
		return negative_errno();
	if (sigfillset(&all) < 0 || sigprocmask(SIG_BLOCK, &all, NULL) < 0)
		return negative_errno();
	do
		n = recv(commfd, buf, sizeof(buf), 0);
	while (n > 0 || (n < 0 && errno == EINTR));
	if (!should_auto_unmount(path))
		return 0;
	return unmount_fuse(path, true, true);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{"unmount", no_argument, NULL, 'u'},
		{"lazy", no_argument, NULL, 'z'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{"options", required_argument, NULL, 'o'},
		/* For libfuse alone, as in fusermount3: no short forms. */
		{"auto-unmount", no_argument, NULL, 'U'},
		{"comm-fd", required_argument, NULL, 'c'},
		{},
	};
	bool unmount = false, lazy = false, quiet = false, watch_only = false, auto_unmount = false;
	const char *opts = "", *commfd_text = NULL, *ns_text;
	_cleanup_free_ char *path = NULL;
	struct stat st;
	int opt, commfd;

	/* mountd knows its callers by their effective ids: set-user-ID root
	 * (a package's "chmod 4755" through the link to it), this would be
	 * root to mountd. */
	if (geteuid() != getuid() || getegid() != getgid()) {
		log_error("refusing to run set-user-ID or set-group-ID: mountd would take "
			  "the caller for its owner (see mountd(8), FUSE)");
		return EXIT_FAILURE;
	}
	while ((opt = getopt_long(argc, argv, "hVo:uzq", options, NULL)) >= 0)
		switch (opt) {
		case 'h':
			help();
			return EXIT_FAILURE; /* as fusermount3 */
		case 'V':
			printf("%s version: %s (mountd's fusermount3, mountd %s)\n", PROG,
			       FUSERMOUNT_VERSION, MOUNTD_VERSION);
			return EXIT_SUCCESS;
		case 'o':
			opts = optarg;
			break;
		case 'u':
			unmount = true;
			break;
		case 'U':
			unmount = watch_only = true;
			break;
		case 'c':
			commfd_text = optarg;
			break;
		case 'z':
			lazy = true;
			break;
		case 'q':
			quiet = true;
			break;
		default:
			return EXIT_FAILURE;
		}

	if (lazy && !unmount) {
		log_error("-z can only be used with -u");
		return EXIT_FAILURE;
	}
	if (optind >= argc) {
		log_error("missing mountpoint argument");
		return EXIT_FAILURE;
	}
	if (argc > optind + 1) {
		log_error("extra arguments after the mountpoint");
		return EXIT_FAILURE;
	}
	ns_text = getenv(NAMESPACE_ENV);
	if (ns_text && parse_fd(ns_text, &target_pidfd) < 0) {
		log_error("invalid %s: %s", NAMESPACE_ENV, ns_text);
		return EXIT_FAILURE;
	}
	if (target_pidfd >= 0) {
		/* A path in the target namespace, resolved there by mountd. */
		if (argv[optind][0] != '/') {
			log_error("with a target namespace (%s) the mount point must be "
				  "absolute: %s",
				  NAMESPACE_ENV, argv[optind]);
			return EXIT_FAILURE;
		}
		path = strdup(argv[optind]);
		if (!path) {
			(void)log_oom();
			return EXIT_FAILURE;
		}
	} else if (resolve_mount_point(argv[optind], &path) < 0)
		return EXIT_FAILURE;
	if (chdir("/") < 0) {
		log_error("failed to chdir to '/': %m");
		return EXIT_FAILURE;
	}
	if (unmount && !watch_only)
		return unmount_fuse(path, lazy, quiet) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;

	commfd_text = commfd_text ?: getenv(COMMFD_ENV);
	if (!commfd_text) {
		log_error("old style mounting not supported");
		return EXIT_FAILURE;
	}
	if (parse_fd(commfd_text, &commfd) < 0) {
		log_error("invalid %s: %s", COMMFD_ENV, commfd_text);
		return EXIT_FAILURE;
	}
	if (fstat(commfd, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		log_error("file descriptor %d is not a socket, can't send fuse fd", commfd);
		return EXIT_FAILURE;
	}
	if (!watch_only) {
		if (mount_fuse(path, opts, commfd, &auto_unmount) < 0)
			return EXIT_FAILURE;
		if (!auto_unmount)
			return EXIT_SUCCESS;
	}
	return wait_then_unmount(path, commfd) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
