/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the kernel does with each fsconfig() parameter of each filesystem
 * the guest kernel has, so that a non-root caller's parameters reach it
 * only in forms where the kernel checks the caller.  The table is the one
 * description (ops-fs-params.c); tests/unit/test-fs-params.sh holds it against
 * the kernel tree's parameter specs, key by key.
 */

#include <stdbool.h>

typedef enum FsParamKind {
	/* Not in the table (a filesystem or key mountd does not know):
	 * root's only. */
	FS_PARAM_UNKNOWN = 0,
	/* A flag, number or word the kernel takes as it is. */
	FS_PARAM_VALUE,
	/* A name the kernel looks up when the parameter is set (overlay's
	 * layers): set while the worker has the caller's rights, so the
	 * lookup is the caller's. */
	FS_PARAM_PATH,
	/* A block device's name the kernel turns into a device number and
	 * opens later without a permission check (ext4's journal_path): the
	 * caller opens the device itself and the kernel is given that fd. */
	FS_PARAM_DEVICE,
	/* An fd the kernel finds by its number in the process that makes the
	 * superblock (fuse's fd=): the caller passes the fd itself, and the
	 * kernel is given its number in the worker. */
	FS_PARAM_FD_NUMBER,
	/* Names something by number in the process that sets it or in the
	 * whole system (an fd number, a device number, a program the kernel
	 * runs as root): root's only. */
	FS_PARAM_ROOT,
	_FS_PARAM_KIND_MAX,
} FsParamKind;

/* fstype as fsopen() takes it ("fuse.sshfs" is fuse's); key a parameter
 * name. */
FsParamKind fs_param_kind(const char *fstype, const char *key);

/* Whether mountd knows fstype's parameters at all. */
bool fs_param_known_fstype(const char *fstype);

/* "value", "path", "device", "root", "unknown". */
const char *fs_param_kind_name(FsParamKind kind);

/* For tests: call fn for every filesystem in the table with key NULL,
 * then for each of its parameters. */
void fs_param_foreach(void (*fn)(const char *fstype, const char *key, FsParamKind kind,
				 void *userdata),
		      void *userdata);
