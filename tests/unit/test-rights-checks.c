// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a non-root caller may mount over and idmap with (executor-rights.h),
 * by the checks' answers on real files and user namespaces: character
 * devices, sockets, FIFOs, /proc and /sys files and mountd's runtime
 * directory are refused as mount points, a directory and a regular file of
 * the caller's on a tmpfs are not; an idmapping whose map would write ids
 * the caller does not own is refused.  Runs in a private mount namespace it
 * makes, with a tmpfs on /run there (mountd's runtime directory is
 * /run/mountd), never touching the host's mount table.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "executor-rights.h"
#include "sys-mnt.h"
#include "tap.h"
#include "util.h"

/* The adapter's IDL symbol, as in test-mountd-ops.c. */
const char io_mountd_mount_idl[] = "interface io.mountd.Mount\n";

#define CALLER 65534

static const Rights caller = {.uid = CALLER, .gid = CALLER};

/* The last message of log, or "". */
static const char *message(const MntLog *log)
{
	return log->n_messages > 0 ? log->messages[log->n_messages - 1].text : "";
}

/* rights_check_mount_point() as the caller on path (beneath the mount
 * there, or not): its result must be want, the log's failed step "target"
 * (none for 0) and its message contain want_text. */
static void mount_point_at(const char *path, bool beneath, int want, const char *want_text,
			   const char *what)
{
	_cleanup_close_ int fd = open(path, O_PATH | O_CLOEXEC);
	MntLog log = {};
	int k;

	if (fd < 0) {
		ok(false, "%s: open %s: %m", what, path);
		return;
	}
	k = rights_enter(&caller);
	if (k >= 0) {
		k = rights_check_mount_point(fd, beneath, "target", &log);
		rights_leave();
	}
	ok(k == want && (want == 0 ? !log.failed_step[0] : streq(log.failed_step, "target")) &&
		   strstr(message(&log), want_text),
	   "%s: %d, step '%s', \"%s\"", what, k, log.failed_step, message(&log));
	mnt_log_done(&log);
}

static void mount_point(const char *path, int want, const char *want_text, const char *what)
{
	mount_point_at(path, false, want, want_text, what);
}

static int write_file(const char *path, const char *text)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -errno;
}

/* A user namespace made by uid owner, with these maps (NULL: none), as an
 * fd; written by root here, as newuidmap and newgidmap would. */
static int make_userns(uid_t owner, const char *uid_map, const char *gid_map)
{
	int to_child[2], from_child[2], fd = -1, status;
	char path[64], c;
	pid_t pid;

	if (pipe(to_child) < 0 || pipe(from_child) < 0)
		return -errno;
	pid = fork();
	if (pid == 0) {
		close(to_child[1]);
		close(from_child[0]);
		if (setresgid(owner, owner, owner) < 0 || setresuid(owner, owner, owner) < 0 ||
		    unshare(CLONE_NEWUSER) < 0 || write(from_child[1], "r", 1) != 1)
			_exit(1);
		_exit(read(to_child[0], &c, 1) < 0);
	}
	close(to_child[0]);
	close(from_child[1]);
	if (pid > 0 && read(from_child[0], &c, 1) == 1) {
		snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
		if (!uid_map || write_file(path, uid_map) == 0) {
			snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
			if (!gid_map || write_file(path, gid_map) == 0) {
				snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
				fd = open(path, O_RDONLY | O_CLOEXEC);
			}
		}
	}
	close(to_child[1]);
	close(from_child[0]);
	if (pid > 0)
		(void)waitpid(pid, &status, 0);
	return fd;
}

static void idmap(int tree, uid_t owner, const char *uid_map, const char *gid_map, int want,
		  const char *want_text, const char *what)
{
	_cleanup_close_ int ns = make_userns(owner, uid_map, gid_map);
	MntLog log = {};
	int k;

	if (ns < 0) {
		ok(false, "%s: a user namespace: %s", what, strerror(-ns));
		return;
	}
	k = rights_enter(&caller);
	if (k >= 0) {
		k = rights_check_idmap(tree, ns, &log);
		rights_leave();
	}
	ok(k == want && (want == 0 ? !log.failed_step[0] : streq(log.failed_step, "idmap")) &&
		   strstr(message(&log), want_text),
	   "%s: %d, step '%s', \"%s\"", what, k, log.failed_step, message(&log));
	mnt_log_done(&log);
}

static int make_socket(const char *path)
{
	_cleanup_close_ int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return chown(path, CALLER, CALLER) < 0 ? -errno : 0;
}

static int make_owned(const char *path, bool dir)
{
	int fd;

	if (dir ? mkdir(path, 0755) < 0
		: (fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)) < 0)
		return -errno;
	if (!dir)
		close(fd);
	return chown(path, CALLER, CALLER) < 0 ? -errno : 0;
}

int main(void)
{
	_cleanup_close_ int tree = -EBADF;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("test", "/run", "tmpfs", 0, "mode=0755") < 0) {
		ok(false, "a private mount namespace with a tmpfs on /run: %m");
		return tap_done();
	}
	ok(make_owned("/run/dir", true) == 0 && make_owned("/run/file", false) == 0 &&
		   make_socket("/run/sock") == 0 && mkfifo("/run/fifo", 0666) == 0 &&
		   chown("/run/fifo", CALLER, CALLER) == 0 && mkdir("/run/mountd", 0755) == 0 &&
		   make_socket("/run/mountd/io.mountd.Mount") == 0 &&
		   make_owned("/run/mountd/mine", true) == 0 &&
		   make_owned("/run/mountd/mine/below", true) == 0 &&
		   make_owned("/run/mountd/file", false) == 0,
	   "the caller's files on a tmpfs, and mountd's runtime directory");

	/* Mount points. */
	mount_point("/run/dir", 0, "", "a directory of the caller's on a tmpfs");
	mount_point("/run/file", 0, "", "a regular file of the caller's on a tmpfs");
	mount_point("/dev/null", -EPERM, "not a character device", "/dev/null");
	mount_point("/run/sock", -EPERM, "not a socket", "a socket of the caller's");
	mount_point("/run/fifo", -EPERM, "not a FIFO", "a FIFO of the caller's");
	mount_point("/run/mountd/io.mountd.Mount", -EPERM, "not a socket", "mountd's own socket");
	mount_point("/run/mountd/mine", -EPERM, "mountd's runtime directory",
		    "a directory of the caller's in mountd's runtime directory");
	mount_point("/run/mountd/mine/below", -EPERM, "mountd's runtime directory",
		    "  and one below that");
	mount_point("/run/mountd/file", -EPERM, "mountd's runtime directory",
		    "a file of the caller's in mountd's runtime directory");
	mount_point("/run/mountd", -EPERM, "mountd's runtime directory",
		    "mountd's runtime directory itself");
	mount_point("/proc/self/status", -EPERM, "files of proc", "a /proc file");
	mount_point("/proc/self", -EPERM, "files of proc", "a /proc directory");
	if (access("/sys/kernel/uevent_seqnum", F_OK) == 0)
		mount_point("/sys/kernel/uevent_seqnum", -EPERM, "files of sysfs", "a sysfs file");
	if (access("/dev/pts/ptmx", F_OK) == 0)
		mount_point("/dev/pts/ptmx", -EPERM, "not a character device", "devpts's ptmx");
	mount_point("/run", -EPERM, "neither uid 65534's nor writable",
		    "root's directory on a tmpfs: the owner check still holds");

	/* Beneath a mount, the mount point is what that mount covers. */
	ok(mount("test", "/proc/sys", "tmpfs", 0, "mode=0755") == 0 &&
		   chown("/proc/sys", CALLER, CALLER) == 0 &&
		   mount("test", "/run/dir", "tmpfs", 0, "mode=0755") == 0 &&
		   chown("/run/dir", CALLER, CALLER) == 0,
	   "tmpfs of the caller's over /proc/sys and over its directory on a tmpfs");
	mount_point_at("/run/dir", true, 0, "", "beneath its tmpfs on its tmpfs directory");
	mount_point_at("/proc/sys", true, -EPERM, "beneath one on files of proc",
		       "beneath its tmpfs over /proc/sys: the mount point is proc's");
	mount_point("/proc/sys", 0, "", "  while over that tmpfs itself is fine");
	(void)umount2("/run/dir", MNT_DETACH);
	(void)umount2("/proc/sys", MNT_DETACH);

	/* Idmappings of a tree of the caller's. */
	tree = open("/run/dir", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ok(tree >= 0, "an fd on the caller's directory");
	idmap(tree, CALLER, "65534 100000 1", "65534 100000 1", 0, "",
	      "a mapping that writes only the caller's ids (65534 shown as 100000)");
	idmap(tree, CALLER, "0 65534 1", "0 65534 1", -EPERM, "writes uids 0-0 to disk",
	      "a rootless container's mapping (0 -> the caller): root's files on disk");
	idmap(tree, CALLER, "65534 100000 1\n0 100001 1", "65534 100000 1", -EPERM,
	      "writes uids 0-0", "  also as a second line");
	idmap(tree, CALLER, "65534 100000 1", "0 100000 1", -EPERM, "writes gids 0-0",
	      "ids the caller owns but root's gid");
	idmap(tree, CALLER, "65533 100000 2", "65534 100000 1", -EPERM, "writes uids 65533-65534",
	      "a range that reaches past the caller's own uid");
	idmap(tree, CALLER, NULL, NULL, -EPERM, "no uid map yet",
	      "a namespace without maps yet (its owner could write any after the check)");
	idmap(tree, CALLER, "65534 100000 1", NULL, -EPERM, "no gid map yet",
	      "  or without its gid map");
	idmap(tree, 0, "65534 100000 1", "65534 100000 1", -EPERM, "not uid 65534's",
	      "a namespace of root's");
	{
		_cleanup_close_ int roots = open("/run", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		idmap(roots, CALLER, "65534 100000 1", "65534 100000 1", -EPERM,
		      "root is not uid 65534's", "a tree of root's");
	}
	{
		_cleanup_close_ int ns = make_userns(CALLER, "0 65534 1", "0 65534 1");

		ok(ns >= 0 && rights_check_idmap(tree, ns, NULL) == 0,
		   "root may idmap with any mapping");
	}
	(void)umount2("/run", MNT_DETACH);
	return tap_done();
}
