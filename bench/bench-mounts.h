/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mounts the listing benchmarks walk (walk-bench, list-bench): a
 * private mount namespace with a tmpfs at base for the mount points, and
 * extra tmpfs mounts in it, each its own superblock with size=, nr_inodes=,
 * mode= and a source, some nosuid/nodev/noexec/noatime; every 1000th has a
 * space in its mount point and source (mountinfo escapes them), so
 * unescaping is compared too.
 */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscall-nr.h"
#include "util.h"

static inline void bench_die(const char *what)
{
	perror(what);
	exit(2);
}

static inline void *bench_xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		bench_die("realloc");
	return p;
}

/* The next space-separated field of a mountinfo line, NUL-terminated. */
static inline char *bench_next_field(char **p)
{
	char *f = *p, *sp;

	if (!f)
		return NULL;
	sp = strchr(f, ' ');
	if (sp) {
		*sp = '\0';
		*p = sp + 1;
	} else
		*p = NULL;
	return f;
}

#ifndef MNT_ID_REQ_SIZE_VER0
#define MNT_ID_REQ_SIZE_VER0 24
#endif
#ifndef LSMT_ROOT
#define LSMT_ROOT 0xffffffffffffffffULL
#endif

/* struct mnt_id_req of the final uapi, which the build's header may lack. */
struct bench_mnt_id_req {
	uint32_t size, spare;
	uint64_t mnt_id, param;
};

/* Every mount of this namespace by listmount() in batches, into *ids
 * (grown, *cap entries); returns how many, adds its calls to *calls. */
static inline size_t bench_listmount(uint64_t **ids, size_t *cap, unsigned long *calls)
{
	enum { BATCH = 4096 };
	struct bench_mnt_id_req req = {.size = MNT_ID_REQ_SIZE_VER0, .mnt_id = LSMT_ROOT};
	size_t n = 0;

	for (;;) {
		long got;

		if (*cap < n + BATCH) {
			*cap = n + BATCH;
			*ids = (uint64_t *)bench_xrealloc(*ids, *cap * sizeof(**ids));
		}
		got = syscall(__NR_listmount, &req, *ids + n, BATCH, 0);
		(*calls)++;
		if (got < 0)
			bench_die("listmount");
		n += (size_t)got;
		if (got < BATCH)
			return n;
		req.param = (*ids)[n - 1]; /* continue after the last one */
	}
}

/* The i-th extra mount, under base. */
static inline void bench_mount_add(const char *base, unsigned i)
{
	char path[128], src[64], size[32], inodes[32];
	const char *mode = i % 3 == 0 ? "0700" : i % 3 == 1 ? "0755" : "1777";
	unsigned attr = (i % 3 == 0 ? MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV : 0) |
			(i % 5 == 0 ? MOUNT_ATTR_NOEXEC : 0) |
			(i % 7 == 0 ? MOUNT_ATTR_NOATIME : 0);
	int fs, mnt;

	snprintf(path, sizeof(path), i % 1000 == 7 ? "%s/m %u" : "%s/m%u", base, i);
	snprintf(src, sizeof(src), i % 1000 == 7 ? "walk src %u" : "walk%u", i);
	snprintf(size, sizeof(size), "%uk", 4 * (1 + i % 4093));
	snprintf(inodes, sizeof(inodes), "%u", 100 + i % 9973);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		bench_die(path);
	fs = syscall(__NR_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0 || syscall(__NR_fsconfig, fs, FSCONFIG_SET_STRING, "source", src, 0) < 0 ||
	    syscall(__NR_fsconfig, fs, FSCONFIG_SET_STRING, "size", size, 0) < 0 ||
	    syscall(__NR_fsconfig, fs, FSCONFIG_SET_STRING, "nr_inodes", inodes, 0) < 0 ||
	    syscall(__NR_fsconfig, fs, FSCONFIG_SET_STRING, "mode", mode, 0) < 0 ||
	    syscall(__NR_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		bench_die("fsopen/fsconfig tmpfs");
	mnt = syscall(__NR_fsmount, fs, FSMOUNT_CLOEXEC, attr);
	if (mnt < 0 ||
	    syscall(__NR_move_mount, mnt, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		bench_die("fsmount/move_mount");
	close(mnt);
	close(fs);
}

/* A private mount namespace of this process, with a tmpfs at base. */
static inline void bench_mounts_setup(const char *base, const char *source)
{
	struct mount_attr priv = {.propagation = MS_PRIVATE};

	if (unshare(CLONE_NEWNS) < 0 ||
	    syscall(__NR_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &priv, sizeof(priv)) < 0)
		bench_die("private mount namespace");
	if (mkdir(base, 0755) < 0 && errno != EEXIST)
		bench_die(base);
	/* The extra mounts' directories live on a tmpfs of their own. */
	if (syscall(__NR_mount, source, base, "tmpfs", 0, "mode=0755,nr_inodes=0") < 0)
		bench_die(base);
}
