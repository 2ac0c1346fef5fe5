/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Image files as block devices: LOOP_CONFIGURE an image fd onto a free loop
 * device in one step, with autoclear (the device disappears when its last
 * user, normally the mount, goes away) and read-only when the image fd is.
 * A partition is picked by number or by GPT type UUID (libblkid) and gets a
 * loop device over its bytes alone (offset and size limit, no partition
 * scan); the filesystem type there can be probed.  libblkid reads the image
 * through an open file of mountd's own, never the caller's fd.
 */

#include <stdbool.h>
#include <stdint.h>

#include "sys-mnt.h"

typedef struct LoopDev {
	int fd;	    /* the loop device, keeps it alive until closed */
	char *node; /* "/dev/loop3": what to mount */
} LoopDev;

#define LOOPDEV_NULL ((LoopDev){.fd = -EBADF})

void loopdev_done(LoopDev *d);
static inline void loopdev_donep(LoopDev *d)
{
	loopdev_done(d);
}

bool loopdev_uuid_valid(const char *s);
/* partition 0 and type NULL: the whole image.  With ret_fstype, the
 * filesystem type there is probed too, from the image before the loop
 * device is made (the "probe" step).  reader: the image's reader where the
 * caller has one already (loopdev_image_reader()), else -EBADF. */
int loopdev_attach(int image_fd, int reader, uint32_t partition, const char *partition_type,
		   LoopDev *ret, char **ret_fstype, MntLog *log);

/* A read-only loop device over offset..offset+size (0: to the end) of the
 * image, whatever the fd allows (dm-verity's data and hash areas). */
int loopdev_attach_range(int image_fd, uint64_t offset, uint64_t size, LoopDev *ret, MntLog *log);
/* An open file description of mountd's own on the image, read-only, for
 * libblkid and the like: only from an fd the caller can read through
 * (-EBADF otherwise), a regular file or block device (-EINVAL). */
int loopdev_image_reader(int image_fd, int *ret);
/* The filesystem type at offset..offset+size of a reader (step "probe"). */
int loopdev_probe_fstype(int reader, uint64_t offset, uint64_t size, char **ret, MntLog *log);
