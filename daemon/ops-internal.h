/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Helpers of the operations (ops-*.c).  request.c, authorize.c and
 * ops-leftovers.c use the namespace and process ones too. */

#include <stdbool.h>
#include <stdlib.h>
#include <linux/mount.h> /* MS_*, MOUNT_ATTR_*; the syscalls are in sys-mnt.c */

#include "sys-mnt.h"
#include "ops.h"
#include "executor-worker.h"

#ifndef MNT_FORCE
#define MNT_FORCE 0x00000001
#endif
#ifndef MNT_DETACH
#define MNT_DETACH 0x00000002
#endif

/* A field name built at run time; valid until the next call. */
const char *ops_field(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

pid_t ops_namespace_pid(const OpsNamespace *ns);
int ops_path_validate(const char *path, bool allow_empty);
/* A filesystem type's name as fsopen() takes it: "ext4", "fuse.sshfs". */
bool ops_fstype_valid(const char *s);
/* "path" and "namespace": what a request on an existing mount names. */
int ops_path_in_namespace_validate(const char *path, const OpsNamespace *ns,
				   const char **ret_field);
/* A refusal at step, its reason in the log as an error message: -EPERM
 * (-ENOMEM if the reason could not be kept). */
int ops_refuse(MntLog *log, const char *step, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A parameter of fstype as the kernel is to get it from a non-root caller
 * (ops-fs-params.h): a value or a path as given; a block device as an fd the
 * caller opened (read, and write unless read_only), in *ret with *ret_fd
 * to close; an fd the kernel takes by number (fuse's fd=), passed as type
 * fd, as its number in the worker, written to ret_number (for root too);
 * anything else refused with -EPERM and a message, step
 * "fsconfig:KEY".  Root's: as given. */
#define OPS_FD_NUMBER_MAX 12
int ops_param_for_caller(const char *fstype, const MntParam *p, bool read_only, MntParam *ret,
			 int *ret_fd, char ret_number[static OPS_FD_NUMBER_MAX], MntLog *log);
int ops_attributes_validate(const OpsAttributes *a, bool allow_clear, const char **ret_field);
void ops_attributes_to_mount_attr(const OpsAttributes *a, struct mount_attr *ret);
int ops_placement_validate(const OpsPlacement *p, const char **ret_field);
void ops_placement_done(OpsPlacement *p);
int ops_place(int mount_fd, const OpsPlacement *place, MntLog *log);
int ops_finish_mount(int mount_fd, const OpsPlacement *place, OpsMountResult *ret, MntLog *log);
/* fn, with fds, in the namespace ns names (its "/" ns->root): through
 * worker_in_namespace(), its steps joining log and its failure log->failed_step.
 * ret_fd NULL: fn hands back nothing; else the one fd it hands back. */
int ops_run_in(const OpsNamespace *ns, const int *fds, size_t n_fds, WorkerFn fn, void *userdata,
	       MntLog *log, int *ret_fd);
