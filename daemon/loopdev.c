/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <blkid/blkid.h>
#include <linux/loop.h>

#include "loopdev.h"
#include "test-hook.h"
#include "util.h"
#include "worker.h"

void loopdev_done(LoopDev *d)
{
	safe_close(d->fd);
	free(d->node);
	*d = LOOPDEV_NULL;
}

bool loopdev_uuid_valid(const char *s)
{
	/* 8-4-4-4-12 hex digits */
	if (strlen(s) != 36)
		return false;
	for (size_t i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
		} else if (!isxdigit((unsigned char)s[i]))
			return false;
	}
	return true;
}

static int configure(int image_fd, bool read_only, bool partscan, int *ret_fd, int *ret_nr)
{
	_cleanup_close_ int control = open("/dev/loop-control", O_RDWR | O_CLOEXEC);

	if (control < 0)
		return negative_errno();
	/* Another process can grab the free device between GET_FREE and
	 * CONFIGURE (EBUSY): take the next one. */
	for (int attempt = 0; attempt < 64; attempt++) {
		_cleanup_close_ int fd = -EBADF;
		struct loop_config config = {
			.fd = image_fd,
			.info.lo_flags = LO_FLAGS_AUTOCLEAR | (read_only ? LO_FLAGS_READ_ONLY : 0) |
					 (partscan ? LO_FLAGS_PARTSCAN : 0),
		};
		char node[64];
		int nr;

		nr = ioctl(control, LOOP_CTL_GET_FREE);
		if (nr < 0)
			return negative_errno();
		snprintf(node, sizeof(node), "/dev/loop%d", nr);
		fd = open(node, (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
		if (fd < 0)
			return negative_errno();
		if (ioctl(fd, LOOP_CONFIGURE, &config) < 0) {
			if (errno == EBUSY)
				continue;
			return negative_errno();
		}
		/* The loop is writable only when configured through a writable
		 * fd, but kernels without CONFIG_BLK_DEV_WRITE_MOUNTED refuse to
		 * mount a device someone holds open for writing.  Keep a
		 * read-only reference instead (taken before dropping the
		 * writable one, which would otherwise trigger autoclear). */
		int ro = open(node, O_RDONLY | O_CLOEXEC);
		if (ro < 0)
			return negative_errno();
		safe_close(fd);
		fd = ro;
		*ret_fd = TAKE_FD(fd);
		*ret_nr = nr;
		return 0;
	}
	return -EBUSY;
}

/* Find the partition number with the given GPT type on the whole device. */
static int find_partition_by_type(const char *node, const char *type, uint32_t *ret)
{
	blkid_probe pr = blkid_new_probe_from_filename(node);
	blkid_partlist pl;
	int r = -ENXIO;

	if (!pr)
		return -errno ?: -ENOMEM;
	/* The table only: no filesystem probing of the whole disk. */
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	if (blkid_do_safeprobe(pr) == 0 && (pl = blkid_probe_get_partitions(pr))) {
		int n = blkid_partlist_numof_partitions(pl);

		for (int i = 0; i < n; i++) {
			blkid_partition p = blkid_partlist_get_partition(pl, i);
			const char *t = blkid_partition_get_type_string(p);

			if (t && strcasecmp(t, type) == 0) {
				*ret = (uint32_t)blkid_partition_get_partno(p);
				r = 0;
				break;
			}
		}
	}
	blkid_free_probe(pr);
	return r;
}

/* The partition node of loop device nr (whole_fd).  LOOP_CONFIGURE with
 * LO_FLAGS_PARTSCAN scans the table before it returns, so sysfs knows at
 * once whether the partition exists: no waiting for one that never comes.
 * devtmpfs has made its node by then too; where /dev is filled by someone
 * else (udev), its creation is waited for with inotify, not by polling.
 * sysfs is the host's, which a worker keeps (the target's may have none). */
static int partition_node(int whole_fd, int nr, uint32_t partition, char **ret)
{
	int sys = worker_host_dir(WORKER_HOST_SYS_DEV_BLOCK);
	_cleanup_close_ int in = -EBADF;
	_cleanup_free_ char *node = NULL;
	char part[96];
	struct stat st;

	if (fstat(whole_fd, &st) < 0)
		return negative_errno();
	snprintf(part, sizeof(part), "%s%u:%u/loop%dp%u", sys >= 0 ? "" : "/sys/dev/block/",
		 major(st.st_rdev), minor(st.st_rdev), nr, partition);
	if (faccessat(sys >= 0 ? sys : AT_FDCWD, part, F_OK, 0) < 0)
		return -ENXIO;
	if (asprintf(&node, "/dev/loop%dp%u", nr, partition) < 0)
		return -ENOMEM;
	if (stat(node, &st) < 0 || !S_ISBLK(st.st_mode)) {
		/* Watch, then look again: a node made in between is not missed. */
		in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
		if (in >= 0 && inotify_add_watch(in, "/dev", IN_CREATE | IN_MOVED_TO) < 0)
			in = safe_close(in);
	}
	for (int waited = 0; stat(node, &st) < 0 || !S_ISBLK(st.st_mode); waited++) {
		char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
		struct pollfd p = {.fd = in, .events = POLLIN};

		if (in < 0 || waited >= 20 || poll(&p, 1, 100) < 0 ||
		    (read(in, buf, sizeof(buf)) < 0 && errno != EAGAIN))
			return -ENXIO;
	}
	*ret = TAKE_PTR(node);
	return 0;
}

int loopdev_attach(int image_fd, uint32_t partition, const char *partition_type, LoopDev *ret,
		   MntLog *log)
{
	_cleanup_(loopdev_donep) LoopDev d = LOOPDEV_NULL;
	bool want_part = partition > 0 || partition_type;
	uint64_t start = mnt_step_start();
	int flags, nr, r;

	flags = fcntl(image_fd, F_GETFL);
	if (flags < 0) {
		mnt_log_fail(log, "loop:image");
		return negative_errno();
	}
	r = configure(image_fd, (flags & O_ACCMODE) == O_RDONLY, want_part, &d.fd, &nr);
	if (mnt_log_result(log, "loop:configure", start, r) < 0)
		return r;
	test_stop_at("loop");
	if (asprintf(&d.node, "/dev/loop%d", nr) < 0)
		return -ENOMEM;
	if (want_part) {
		start = mnt_step_start();
		if (partition_type) {
			r = find_partition_by_type(d.node, partition_type, &partition);
			if (r < 0) {
				mnt_log_fail(log, "loop:partition");
				return r;
			}
		}
		free(d.node);
		d.node = NULL;
		r = partition_node(d.fd, nr, partition, &d.node);
		if (mnt_log_result(log, "loop:partition", start, r) < 0)
			return r;
	}
	*ret = d;
	d = LOOPDEV_NULL;
	return 0;
}

int loopdev_probe_fstype(const char *node, char **ret)
{
	blkid_probe pr = blkid_new_probe_from_filename(node);
	const char *type = NULL;
	int r = -EMEDIUMTYPE;

	if (!pr)
		return -errno ?: -ENOMEM;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	if (blkid_do_safeprobe(pr) == 0 && blkid_probe_lookup_value(pr, "TYPE", &type, NULL) == 0 &&
	    type) {
		*ret = strdup(type);
		r = *ret ? 0 : -ENOMEM;
	}
	blkid_free_probe(pr);
	return r;
}
