/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What a mountd killed mid-change leaves behind, and how its successor
 * removes it.  A detached mount (fsmount, open_tree) dies with the process
 * holding its fd, and a loop device is made with autoclear and goes with
 * its last fd; a mount point made for placement.create (or Move's create)
 * is a directory or file in someone's tree and stays.  So it is recorded
 * under /run/mountd/leftovers before it is made and the record removed once
 * the mount is on it or it is gone again; leftovers_clean() at start takes
 * what the records name away, where it is still what was made.
 */

#include "sys-mnt.h"

/* The record of one creation; name[0] == 0: none. */
typedef struct Leftover {
	char name[48];
} Leftover;

/* mnt_resolve_create_in_root() with a record, when path is missing: written
 * before anything is created (failing to write it fails the request, step
 * "record:<what>"),
 * completed with the device and inode of what was made, dropped when
 * nothing was.  root is the request's namespace root root_fd stands for
 * (NULL: the namespace's own), for the record.  From inside a worker only. */
int leftover_resolve_create(int root_fd, const char *root, const char *path, MntCreate create,
			    const char *what, MntLog *log, MntCreated *ret_created, Leftover *ret);
/* The creation is settled (the mount placed, or the mount point removed
 * again): drop its record. */
void leftover_done(Leftover *l);

/* At start, before serving: for each record, remove what it names in the
 * recorded namespace if that namespace still has a process, and the thing
 * is still an empty directory (or empty file) with the recorded device and
 * inode, i.e. what was made and nothing since; then drop the record. */
void leftovers_clean(void);
