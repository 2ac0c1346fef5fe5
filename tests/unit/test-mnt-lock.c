/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/sys-mnt-lock.c, judged by what the kernel then refuses: a locked
 * tree's flags cannot be cleared, by root either, the mounts below its top
 * cannot be unmounted, its top can; the same tree unlocked allows all of it
 * (so that each check can fail).  Inside a private mount namespace this
 * test makes; nothing reaches the host's.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys-mnt-lock.h"
#include "syscall-nr.h"
#include "tap.h"
#include "util.h"

#define MOUNT_ATTR_RDONLY_ 0x00000001
#define MOUNT_ATTR_NOSUID_ 0x00000002
#define MOUNT_ATTR_NODEV_  0x00000004
#define MOUNT_ATTR_NOEXEC_ 0x00000008
#define AT_RECURSIVE_	   0x8000
#define OPEN_TREE_CLONE_   1

struct attr {
	uint64_t set, clr, propagation, userns_fd;
};

static int setattr(int fd, const char *path, unsigned flags, uint64_t set, uint64_t clr)
{
	struct attr a = {.set = set, .clr = clr};

	return syscall(SYS_mount_setattr, fd, path, flags, &a, sizeof(a)) < 0 ? -errno : 0;
}

/* A detached tmpfs with attrs, a directory "sub" and a file "file" in it. */
static int tmpfs(unsigned attrs)
{
	_cleanup_close_ int fs = -EBADF;
	int mnt, f;

	fs = (int)syscall(SYS_fsopen, "tmpfs", 0);
	if (fs < 0 || syscall(SYS_fsconfig, fs, 6 /* CMD_CREATE */, NULL, NULL, 0) < 0)
		return -errno;
	mnt = (int)syscall(SYS_fsmount, fs, 0, 0);
	if (mnt < 0)
		return -errno;
	f = openat(mnt, "file", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (f < 0 || mkdirat(mnt, "sub", 0755) < 0) {
		safe_close(f);
		safe_close(mnt);
		return -EIO;
	}
	/* A file open for writing would keep it from going read-only. */
	safe_close(f);
	if (setattr(mnt, "", AT_EMPTY_PATH, attrs, 0) < 0) {
		safe_close(mnt);
		return -EIO;
	}
	return mnt;
}

/* Takes fd: an open fd on a mount keeps it busy. */
static int attach(int fd, const char *path)
{
	int r = syscall(SYS_move_mount, fd, "", AT_FDCWD, path, 4 /* F_EMPTY_PATH */) < 0 ? -errno
											  : 0;

	safe_close(fd);
	return r;
}

static size_t count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	size_t n = 0;

	if (!d)
		return 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* The flags of a single tmpfs. */
static void test_flags(void)
{
	MntLog log = {};
	unsigned attrs = MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_ | MOUNT_ATTR_RDONLY_;
	_cleanup_close_ int plain = tmpfs(attrs), locked = -EBADF;

	ok(plain >= 0, "a detached tmpfs, nosuid,nodev,ro");
	ok(setattr(plain, "", AT_EMPTY_PATH, 0, MOUNT_ATTR_NOSUID_) == 0,
	   "unlocked, root clears its nosuid");
	locked = mnt_lock_tree(tmpfs(attrs), &log);
	ok(locked >= 0, "locked: %s", strerror(locked < 0 ? -locked : 0));
	ok(log.n_steps == 1 && streq(log.steps[0].name, "lock"), "the step is in the log");
	ok(setattr(locked, "", AT_EMPTY_PATH, 0, MOUNT_ATTR_NOSUID_) == -EPERM,
	   "locked: root cannot clear nosuid");
	ok(setattr(locked, "", AT_EMPTY_PATH, 0, MOUNT_ATTR_NODEV_) == -EPERM, "locked: nor nodev");
	ok(setattr(locked, "", AT_EMPTY_PATH, 0, MOUNT_ATTR_RDONLY_) == -EPERM, "locked: nor ro");
	ok(setattr(locked, "", AT_EMPTY_PATH, MOUNT_ATTR_NOEXEC_, 0) == 0,
	   "locked: noexec may still be added");
	ok(faccessat(locked, "file", F_OK, 0) == 0, "the copy is the same filesystem");
	mnt_log_done(&log);
}

/* A tree: what is below its top stays locked once it is placed. */
static void test_submounts(void)
{
	_cleanup_close_ int top = tmpfs(0), locked = -EBADF, plain = -EBADF, sub = tmpfs(0);
	char dir[] = "/tmp/test-mnt-lock-XXXXXX", path[64], subpath[80];
	MntLog log = {};

	ok(top >= 0 && sub >= 0 && mkdtemp(dir), "two tmpfs and a place for them");
	/* top with sub on its "sub", attached, then cloned whole twice. */
	ok(attach(TAKE_FD(top), dir) == 0, "top attached");
	snprintf(path, sizeof(path), "%s/sub", dir);
	ok(attach(TAKE_FD(sub), path) == 0, "sub attached below it");
	plain = (int)syscall(SYS_open_tree, AT_FDCWD, dir, OPEN_TREE_CLONE_ | AT_RECURSIVE_);
	locked = mnt_lock_tree(
		(int)syscall(SYS_open_tree, AT_FDCWD, dir, OPEN_TREE_CLONE_ | AT_RECURSIVE_), &log);
	ok(plain >= 0 && locked >= 0, "a plain and a locked clone of the tree");
	ok(umount2(dir, MNT_DETACH) == 0, "the original tree gone again");

	/* The plain clone: its submount can go. */
	ok(attach(TAKE_FD(plain), dir) == 0, "plain clone placed");
	snprintf(subpath, sizeof(subpath), "%s/sub", dir);
	ok(umount2(subpath, 0) == 0, "plain: root unmounts the mount below");
	ok(umount2(dir, 0) == 0, "plain: and the top");

	ok(attach(TAKE_FD(locked), dir) == 0, "locked clone placed");
	ok(umount2(subpath, 0) < 0 && errno == EINVAL,
	   "locked: the mount below cannot be unmounted, not by root");
	ok(umount2(subpath, MNT_DETACH) < 0 && errno == EINVAL, "locked: nor detached");
	ok(umount2(dir, MNT_DETACH) == 0, "locked: its top can go, with all below it");
	rmdir(dir);
	mnt_log_done(&log);
}

/* A file mount and the failures: nothing left open, no child left. */
static void test_file_and_failures(void)
{
	_cleanup_close_ int top = tmpfs(0), file = -EBADF, locked = -EBADF;
	MntLog log = {};
	size_t before;
	struct stat st;
	int saved, r;

	file = (int)syscall(SYS_open_tree, top, "file", OPEN_TREE_CLONE_);
	ok(file >= 0, "a file's bind, detached");
	locked = mnt_lock_tree(TAKE_FD(file), &log);
	ok(locked >= 0 && fstat(locked, &st) == 0 && S_ISREG(st.st_mode),
	   "a file's tree is locked too, and is a file");
	ok(setattr(locked, "", AT_EMPTY_PATH, MOUNT_ATTR_NOSUID_, 0) == 0 &&
		   setattr(locked, "", AT_EMPTY_PATH, 0, MOUNT_ATTR_NOSUID_) == 0,
	   "a flag set after the copy is not locked: the attributes go before it");

	before = count_fds();
	r = mnt_lock_tree(open("/", O_PATH | O_CLOEXEC), &log);
	ok(r < 0, "an fd that is no detached tree fails (%s)", strerror(-r));
	ok(count_fds() == before, "and leaves no fd behind");
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "nor a child");

	saved = mnt_lock_ns_fd();
	mnt_lock_set_ns_fd(-EBADF);
	before = count_fds();
	r = mnt_lock_tree(tmpfs(0), &log);
	ok(r == -EOPNOTSUPP && streq(log.failed_step, "lock"),
	   "without the namespace: refused, step lock");
	ok(count_fds() == before, "the tree's fd taken all the same");
	mnt_lock_set_ns_fd(saved);
	mnt_log_done(&log);
}

int main(void)
{
	int r;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		ok(false, "a private mount namespace: %m");
		return tap_done();
	}
	r = mnt_lock_setup();
	ok(r == 0, "the namespace to lock through: %s", strerror(r < 0 ? -r : 0));
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "its maker is reaped");
	if (r < 0)
		return tap_done();
	test_flags();
	test_submounts();
	test_file_and_failures();
	return tap_done();
}
