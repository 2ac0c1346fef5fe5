// SPDX-License-Identifier: GPL-2.0
/*
 * The new mount API on our guest kernel, as mountd relies on it: each case
 * runs in a child with a private mount namespace, so nothing leaks into the
 * guest's own mount table or into the next case.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"

static int sys_fsopen(const char *fs, unsigned int flags)
{
	return syscall(__NR_fsopen, fs, flags);
}

static int sys_fsconfig(int fd, unsigned int cmd, const char *key, const void *val, int aux)
{
	return syscall(__NR_fsconfig, fd, cmd, key, val, aux);
}

static int sys_fsmount(int fd, unsigned int flags, unsigned int attr)
{
	return syscall(__NR_fsmount, fd, flags, attr);
}

static int sys_move_mount(int from_dfd, const char *from, int to_dfd, const char *to,
			  unsigned int flags)
{
	return syscall(__NR_move_mount, from_dfd, from, to_dfd, to, flags);
}

static int sys_open_tree(int dfd, const char *path, unsigned int flags)
{
	return syscall(__NR_open_tree, dfd, path, flags);
}

static int sys_fspick(int dfd, const char *path, unsigned int flags)
{
	return syscall(__NR_fspick, dfd, path, flags);
}

static int sys_mount_setattr(int dfd, const char *path, unsigned int flags, struct mount_attr *attr)
{
	return syscall(__NR_mount_setattr, dfd, path, flags, attr, sizeof(*attr));
}

/* A fresh tmpfs, detached, from the context API. */
static int new_tmpfs(const char *size)
{
	int fs, mnt;

	fs = sys_fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return -1;
	if (sys_fsconfig(fs, FSCONFIG_SET_STRING, "size", size, 0) < 0 ||
	    sys_fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		close(fs);
		return -1;
	}
	mnt = sys_fsmount(fs, FSMOUNT_CLOEXEC, 0);
	close(fs);
	return mnt;
}

static int is_mount_point(const char *path)
{
	char buf[512], target[256];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "%*d %*d %*s %*s %255s", target) == 1 && !strcmp(target, path))
			found = 1;
	fclose(f);
	return found;
}

FIXTURE(ns)
{
	char dir[64];
};

FIXTURE_SETUP(ns)
{
	struct mount_attr attr = {.propagation = MS_PRIVATE};
	int mnt;

	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, sys_mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &attr));
	/* Scratch space that lives only in this namespace. */
	mnt = new_tmpfs("16m");
	ASSERT_GE(mnt, 0);
	ASSERT_EQ(0, sys_move_mount(mnt, "", AT_FDCWD, "/tmp", MOVE_MOUNT_F_EMPTY_PATH));
	close(mnt);
	strcpy(self->dir, "/tmp/t");
	ASSERT_EQ(0, mkdir(self->dir, 0755));
}

FIXTURE_TEARDOWN(ns)
{
}

TEST_F(ns, tmpfs_create_mount_move)
{
	struct statvfs sv;
	char path[128];
	int mnt, fd;

	mnt = new_tmpfs("4m");
	ASSERT_GE(mnt, 0);
	/* Detached: usable through the fd before it is anywhere in the tree. */
	fd = openat(mnt, "hello", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(5, write(fd, "world", 5));
	close(fd);
	ASSERT_FALSE(is_mount_point(self->dir));
	ASSERT_EQ(0, sys_move_mount(mnt, "", AT_FDCWD, self->dir, MOVE_MOUNT_F_EMPTY_PATH));
	close(mnt);
	ASSERT_TRUE(is_mount_point(self->dir));
	snprintf(path, sizeof(path), "%s/hello", self->dir);
	ASSERT_EQ(0, access(path, R_OK));
	ASSERT_EQ(0, statvfs(self->dir, &sv));
	/* size=4m took effect. */
	ASSERT_EQ(4u << 20, sv.f_blocks * sv.f_frsize);
}

TEST_F(ns, bad_option_reports_kernel_message)
{
	char msg[512];
	ssize_t n;
	int fs;

	fs = sys_fsopen("tmpfs", FSOPEN_CLOEXEC);
	ASSERT_GE(fs, 0);
	ASSERT_EQ(-1, sys_fsconfig(fs, FSCONFIG_SET_STRING, "nr_inodes", "lots", 0));
	ASSERT_EQ(EINVAL, errno);
	n = read(fs, msg, sizeof(msg) - 1);
	ASSERT_GT(n, 2);
	msg[n] = '\0';
	TH_LOG("kernel said: %s", msg);
	/* "e " marks an error; the text names the parameter at fault. */
	ASSERT_EQ(0, strncmp(msg, "e ", 2));
	ASSERT_NE(NULL, strstr(msg, "nr_inodes"));
	/* The log is drained by reading: nothing more queued. */
	ASSERT_EQ(-1, read(fs, msg, sizeof(msg)));
	ASSERT_EQ(ENODATA, errno);
	close(fs);
}

TEST_F(ns, unknown_parameter_rejected)
{
	char msg[512];
	ssize_t n;
	int fs;

	fs = sys_fsopen("tmpfs", FSOPEN_CLOEXEC);
	ASSERT_GE(fs, 0);
	ASSERT_EQ(-1, sys_fsconfig(fs, FSCONFIG_SET_FLAG, "no_such_option", NULL, 0));
	n = read(fs, msg, sizeof(msg) - 1);
	ASSERT_GT(n, 0);
	msg[n] = '\0';
	ASSERT_NE(NULL, strstr(msg, "no_such_option"));
	close(fs);
}

/* A fresh tmpfs at path, holding an empty directory named marker. */
static int mount_tmpfs_at(const char *path, const char *marker)
{
	int mnt = new_tmpfs("1m"), ret;

	if (mnt < 0)
		return -1;
	ret = mkdirat(mnt, marker, 0755);
	if (!ret)
		ret = sys_move_mount(mnt, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH);
	close(mnt);
	return ret;
}

/*
 * dir/src (a tmpfs) with dir/src/sub (another tmpfs) cloned onto dir/dst,
 * with or without its submounts.
 */
static void bind_src_tree(struct __test_metadata *_metadata, const char *dir, bool recursive)
{
	char src[128], sub[160], dst[128];
	int tree;

	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(sub, sizeof(sub), "%s/sub", src);
	snprintf(dst, sizeof(dst), "%s/dst", dir);
	ASSERT_EQ(0, mkdir(src, 0755));
	ASSERT_EQ(0, mount_tmpfs_at(src, "sub"));
	ASSERT_EQ(0, mount_tmpfs_at(sub, "marker"));
	ASSERT_EQ(0, mkdir(dst, 0755));
	tree = sys_open_tree(AT_FDCWD, src,
			     OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (recursive ? AT_RECURSIVE : 0));
	ASSERT_GE(tree, 0);
	ASSERT_EQ(0, sys_move_mount(tree, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH));
	close(tree);
	ASSERT_TRUE(is_mount_point(dst));
}

TEST_F(ns, recursive_bind_carries_submounts)
{
	char probe[160];

	bind_src_tree(_metadata, self->dir, true);
	snprintf(probe, sizeof(probe), "%s/dst/sub", self->dir);
	ASSERT_TRUE(is_mount_point(probe));
	snprintf(probe, sizeof(probe), "%s/dst/sub/marker", self->dir);
	ASSERT_EQ(0, access(probe, F_OK));
}

TEST_F(ns, non_recursive_bind_leaves_submounts)
{
	char probe[160];

	bind_src_tree(_metadata, self->dir, false);
	snprintf(probe, sizeof(probe), "%s/dst/sub", self->dir);
	ASSERT_FALSE(is_mount_point(probe));
	/* The source's own directory is there, empty: sub's tmpfs stayed behind. */
	ASSERT_EQ(0, access(probe, F_OK));
	snprintf(probe, sizeof(probe), "%s/dst/sub/marker", self->dir);
	ASSERT_NE(0, access(probe, F_OK));
}

TEST_F(ns, fspick_reconfigure_read_only)
{
	char path[128];
	int mnt, fs, fd;

	mnt = new_tmpfs("1m");
	ASSERT_GE(mnt, 0);
	ASSERT_EQ(0, sys_move_mount(mnt, "", AT_FDCWD, self->dir, MOVE_MOUNT_F_EMPTY_PATH));
	close(mnt);
	snprintf(path, sizeof(path), "%s/before", self->dir);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_GE(fd, 0);
	close(fd);

	fs = sys_fspick(AT_FDCWD, self->dir, FSPICK_CLOEXEC);
	ASSERT_GE(fs, 0);
	ASSERT_EQ(0, sys_fsconfig(fs, FSCONFIG_SET_FLAG, "ro", NULL, 0));
	ASSERT_EQ(0, sys_fsconfig(fs, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0));
	close(fs);

	snprintf(path, sizeof(path), "%s/after", self->dir);
	ASSERT_EQ(-1, open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
	ASSERT_EQ(EROFS, errno);
	snprintf(path, sizeof(path), "%s/before", self->dir);
	ASSERT_EQ(0, access(path, F_OK));
}

TEST_F(ns, mount_setattr_read_only_is_per_mount)
{
	struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY};
	char path[128];
	int mnt, tree;

	mnt = new_tmpfs("1m");
	ASSERT_GE(mnt, 0);
	ASSERT_EQ(0, sys_move_mount(mnt, "", AT_FDCWD, self->dir, MOVE_MOUNT_F_EMPTY_PATH));
	close(mnt);
	/* A second mount of the same superblock keeps its own flags. */
	tree = sys_open_tree(AT_FDCWD, self->dir, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	ASSERT_GE(tree, 0);
	ASSERT_EQ(0, sys_mount_setattr(tree, "", AT_EMPTY_PATH, &attr));
	ASSERT_EQ(-1, openat(tree, "x", O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
	ASSERT_EQ(EROFS, errno);
	close(tree);
	snprintf(path, sizeof(path), "%s/y", self->dir);
	ASSERT_LE(0, open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
}

TEST_HARNESS_MAIN
