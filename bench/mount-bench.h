/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the sections of mount-bench share: the methods' roles, the mount
 * point they all use, and the helpers every method needs.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libmountd-client.h"

/* The floor is the least a program could do (the raw system calls), the
 * subject is mountd, the rivals are what a runtime would use instead; a
 * reference is the least any varlink service could cost (the floor's work
 * plus a bare round trip per call), to show how much of the subject's
 * time is the transport's. */
typedef enum { ROLE_FLOOR, ROLE_SUBJECT, ROLE_RIVAL, ROLE_REFERENCE } Role;

typedef struct Method {
	const char *name;
	Role role;
	/* One operation; NULL when not available here (printed as n/a, with
	 * why). */
	void (*once)(void);
	const char *why_not;
	/* Timed in every Nth round only: fork+exec is slow under TCG. */
	unsigned every;
	double *t;
	unsigned n;
} Method;

/* Where every method of a section mounts. */
extern const char *bench_dir;
/* One kept connection to mountd. */
extern MountdClient *bench_client;

/* umount2(); glibc's <sys/mount.h> and <linux/mount.h> do not mix. */
#ifndef MNT_DETACH
#define MNT_DETACH 2
#endif
static inline int bench_umount(const char *path, int flags)
{
	return syscall(__NR_umount2, path, flags);
}

_Noreturn void bench_die(const char *what);
/* fork+exec argv with stdout to /dev/null; dies unless it exits 0. */
void bench_run(char *const argv[]);
/* Call method with the JSON params and fds; dies on any error.  The reply is
 * left in *reply (when not NULL) for the caller to release. */
void bench_call(MountdClient *c, const char *method, const char *json, const int *fds, size_t n_fds,
		MountdReply *reply);

/* Image section (image-methods.c): set up from the GPT image at path; fills
 * m[0..4) with the floor, mountd and the rivals. */
void image_methods(const char *path, Method m[4]);
/* Untimed, after each image operation: until the image has no loop device
 * left, so that the next method does not find it busy. */
void image_settle(void);
/* What the image methods met, for the notes after the table. */
void image_notes(void);
/* A read-only autoclear loop device over offset..offset+size (0: to the
 * end) of fd, its node into dev; the open device (the caller closes it once
 * a superblock holds it). */
int bench_loop_over(int fd, uint64_t offset, uint64_t size, char dev[32]);
/* fsopen(fstype), source, ro, CMD_CREATE, fsmount read-only: the mount fd. */
int bench_fsmount_ro(const char *fstype, const char *source);
/* image_settle() for another image file: no loop device over it, no
 * bench-* or mountd-verity-* device-mapper device left, udev done. */
void image_settle_path(const char *path);
/* systemd-mountfsd's MountImage of an image fd, read-only: its root
 * partition's mount fd, or a negative errno and why. */
int image_mountfsd_fd(int image, char *why, size_t size);

/* Sections verity and erofs (verity-methods.c), from bench/run's
 * $MOUNTD_BENCH_VERITY_* and $MOUNTD_BENCH_EROFS: m[0..4) raw, mountd,
 * mountfsd, by hand; m[0..3) raw file, raw loop, mountd. */
void verity_methods(Method m[4]);
void erofs_methods(Method m[4]);
/* Section erofs8: erofs's first three, eight in a row per round (after
 * erofs_methods()). */
void erofs8_methods(Method m[3]);
void verity_settle(void);
void erofs_settle(void);
