/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A user namespace's id maps, read through an fd on it.  The kernel has
 * no call that reads them from the namespace itself, and mountd knows no
 * process in a namespace a caller passed: a child of the worker joins it
 * (setns(), which root may into any user namespace) and reads its own
 * /proc/self/uid_map and gid_map from mountd's /proc.  A map once written
 * never changes, so what was read holds for as long as the fd does.
 */

/* The uid_map and gid_map texts of the user namespace userns_fd, into
 * *ret_uid_map and *ret_gid_map (to be freed).  -EINVAL for an fd that is
 * no user namespace (or mountd's own); negative errno. */
int userns_read_maps(int userns_fd, char **ret_uid_map, char **ret_gid_map);
