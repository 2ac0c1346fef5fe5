/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The loop and device-mapper devices mountd has made for each user who is
 * not root, counted against that user (shared/principal.h says who answers
 * for a caller).  Such a device outlives the request: the mount holds it
 * (autoclear, deferred removal) until the last unmount, whatever happens to
 * mountd.  So the count is not mountd's memory but the kernel's state: a
 * record per device under /run/mountd/devices/PRINCIPAL/, named
 * "MAJOR:MINOR:DISKSEQ:WEIGHT", counts while that device still has that
 * disk sequence number and a size (a loop device that autoclear detached
 * keeps its number, with size 0; a device number used again has a new
 * one).  WEIGHT is the devices it stands for: a dm-verity device holds its
 * loop devices (one or two) and goes with them.  A mountd restarted (idle exit, a
 * crash) counts what its predecessor made.
 *
 * The user's directory is locked (flock) from the count to the record, so
 * two of a user's workers cannot both take the last one.  Root is not
 * counted: root's mounts are root's business, and root is always served.
 */

#include <stdbool.h>
#include <sys/types.h>

#include "sys-mnt.h"

/* What one user's mounts may hold at once; MOUNTD_DEVICES_PER_USER in
 * mountd's environment overrides it (mountd(8)). */
#define DEVICES_PER_USER 64U

typedef struct DeviceLedger {
	int dir; /* the user's directory, locked; -EBADF: nothing counted */
	unsigned held, max;
} DeviceLedger;

#define DEVICE_LEDGER_NULL ((DeviceLedger){.dir = -EBADF})

/* Locks principal's records and counts the devices still alive (dropping
 * the other records).  Whether the request needs any is known only once
 * the image is probed (a file-backed EROFS needs none): the count is
 * checked as each is added.  From a worker with mountd's own rights. */
int device_ledger_open(uid_t principal, DeviceLedger *ret, MntLog *log);
/* The device fd is open on counts for weight devices from now on, if the
 * user has that many left (-EDQUOT, step "devices", otherwise: the
 * caller drops the device). */
int device_ledger_add(DeviceLedger *l, int device_fd, unsigned weight, MntLog *log);
/* Unlocks. */
void device_ledger_close(DeviceLedger *l);
