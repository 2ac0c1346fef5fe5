/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What mountd's event loop may look at itself, without a worker: a path in
 * mountd's own mount namespace or in one a worker serves, whose every step
 * is in memory already, on a filesystem that has nothing to wait for.  The
 * loop serves every caller, so it must never wait on a FUSE server, a
 * network, or a device a caller can stall (a loop device over a file on
 * FUSE); where any of that could happen these answer -EAGAIN and the
 * request goes to a worker as before.
 */

#include <errno.h>
#include <stdint.h>

/* An O_PATH fd of the root of the mount namespace nsfs names, as a worker
 * that setns()ed there sees it (mountd's own "/" may be a chroot inside
 * it): the root of a child that joins the namespace, by /proc/PID/root. */
int nonblocking_namespace_root(int nsfs);

/* path below root_fd (RESOLVE_IN_ROOT) from the dentry cache alone
 * (RESOLVE_CACHED), as an O_PATH fd; -EAGAIN where a step would have to
 * ask a filesystem, where the path names no component below the root, or
 * where it has ".." or a symlink: such a walk can end by revalidating a
 * dentry it jumped to, which a network filesystem does over the wire.
 * Every other error is the walk's own (ENOENT, EACCES, ...). */
int nonblocking_resolve(int root_fd, const char *path);

/* 0 when the filesystem fd is on answers statfs() and fsinfo() from memory
 * (tmpfs, proc, sysfs, cgroup, ...; nothing with a backing device, whose
 * quota or free-space counts may be read through a device a caller can
 * stall), -EAGAIN otherwise.  Asks the filesystem nothing: the mount ID
 * comes from name_to_handle_at(), the type from statmount() in the mount
 * namespace mnt_ns_id. */
int nonblocking_filesystem(int fd, uint64_t mnt_ns_id);

/* A namespace's root as a worker saw it when it joined, for the loop to
 * resolve from later.  A worker's root moves with pivot_root() (the kernel
 * moves every process's root off the old one); this fd would not.  So the
 * mount's parent is kept, and checked before each use: pivot_root()
 * attaches the old root under the new one, and unmounting it takes it out
 * of the namespace. */
typedef struct NonblockingRoot {
	int fd;
	uint64_t mnt_id, parent_id;
} NonblockingRoot;

#define NONBLOCKING_ROOT_NULL ((NonblockingRoot){.fd = -EBADF})

/* Takes fd, also on failure (then r stays empty). */
int nonblocking_root_take(NonblockingRoot *r, int fd, uint64_t mnt_ns_id);
/* The fd (borrowed) while it is still the root of namespace mnt_ns_id;
 * otherwise it is closed, and -EBADF. */
int nonblocking_root_get(NonblockingRoot *r, uint64_t mnt_ns_id);
void nonblocking_root_done(NonblockingRoot *r);
