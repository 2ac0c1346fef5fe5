/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The user who answers for a process: what per-user limits count against.
 *
 * A user given subuids (/etc/subuid, newuidmap) can run a process as each
 * of them, in a user namespace of its own; were each of those uids a user
 * of its own, every per-uid limit would be 65536 times as large for that
 * one user.  So a process in a user namespace below ours is the owner's of
 * the outermost namespace on its way up that a user other than root made:
 * that user handed it its uids.  Namespaces root made (a container
 * manager's, with ranges the admin gave out) do not count: their uids are
 * each a user of their own, as without namespaces.  A process in our own
 * namespace, or only in root's below it, answers for itself: its uid.  uid
 * 0 is root.  Neither the process's uid nor its namespaces take it out of
 * that tree: entering a user namespace takes CAP_SYS_ADMIN in it.
 *
 * PRINCIPAL_UNKNOWN when that cannot be told (the process is gone, or its
 * namespace is not below ours): all such share one budget, lest exiting
 * right after connect() be a way around the limits.
 */

#include <sys/types.h>

#define PRINCIPAL_UNKNOWN ((uid_t)-2)

/* For the process behind pidfd (-EBADF: none known) running as uid. */
uid_t principal_of_pidfd(int pidfd, uid_t uid);
