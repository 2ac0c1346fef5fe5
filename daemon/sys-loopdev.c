/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/loop.h>

#include "fs-probe.h"
#include "sys-loopdev.h"
#include "test-hook.h"
#include "util.h"
#include "executor-worker.h"

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

/* The loop device reads (and writes) with mountd's rights through
 * whatever file the fd names: only as far as the caller's open allowed.
 * Not through an O_PATH or write-only fd.  Its F_GETFL into ret_flags. */
static int image_fd_readable(int image_fd, int *ret_flags)
{
	int flags = fcntl(image_fd, F_GETFL);

	if (flags < 0)
		return negative_errno();
	if ((flags & O_PATH) || (flags & O_ACCMODE) == O_WRONLY)
		return -EBADF;
	if (ret_flags)
		*ret_flags = flags;
	return 0;
}

/* The image for libblkid to read: an open file description of mountd's
 * own (libblkid seeks, and the caller's file offset is the caller's),
 * read-only, made through /proc's link to the caller's fd.  Only from an
 * fd the caller can read through: reading from the copy gives it nothing
 * it did not have.  Reads go to the file's page cache, not through the
 * loop device's queue. */
int loopdev_image_reader(int image_fd, int *ret)
{
	int proc = worker_host_dir(WORKER_HOST_PROC), fd, r;
	struct stat st;
	char path[64];

	r = image_fd_readable(image_fd, NULL);
	if (r < 0)
		return r;
	if (fstat(image_fd, &st) < 0)
		return negative_errno();
	/* What LOOP_CONFIGURE takes, and its answer otherwise. */
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return -EINVAL;
	snprintf(path, sizeof(path), "%sself/fd/%d", proc >= 0 ? "" : "/proc/", image_fd);
	fd = openat(proc >= 0 ? proc : AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return negative_errno();
	*ret = fd;
	return 0;
}

static int configure(int image_fd, bool read_only, uint64_t offset, uint64_t size, int *ret_fd,
		     int *ret_nr)
{
	/* mountd's own /dev: the target namespace's may be a user's. */
	_cleanup_close_ int control = worker_host_open("/dev/loop-control", O_RDWR | O_CLOEXEC);

	if (control < 0)
		return negative_errno();
	/* Another process can grab the free device between GET_FREE and
	 * CONFIGURE (EBUSY): take the next one. */
	for (int attempt = 0; attempt < 64; attempt++) {
		_cleanup_close_ int fd = -EBADF;
		struct loop_config config = {
			.fd = image_fd,
			.info.lo_flags = LO_FLAGS_AUTOCLEAR | (read_only ? LO_FLAGS_READ_ONLY : 0),
			.info.lo_offset = offset,
			.info.lo_sizelimit = size,
		};
		char node[64];
		int nr;

		nr = ioctl(control, LOOP_CTL_GET_FREE);
		if (nr < 0)
			return negative_errno();
		snprintf(node, sizeof(node), "/dev/loop%d", nr);
		fd = worker_host_open(node, (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
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
		int ro = worker_host_open(node, O_RDONLY | O_CLOEXEC);
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

/* Where partition number `partition`, or the one of GPT type `type`, lies
 * in the image: bytes from its start, and its length. */
static int find_partition(int reader, uint32_t partition, const char *type, uint64_t *ret_offset,
			  uint64_t *ret_size)
{
	_cleanup_blkid_ blkid_probe pr = NULL;
	blkid_partlist pl;
	int n, r;

	r = fs_probe_table(reader, 0, 0, NULL, &pr);
	if (r < 0)
		return r;
	pl = blkid_probe_get_partitions(pr);
	if (!pl)
		return -ENXIO;
	n = blkid_partlist_numof_partitions(pl);
	for (int i = 0; i < n; i++) {
		blkid_partition p = blkid_partlist_get_partition(pl, i);
		const char *t = type ? blkid_partition_get_type_string(p) : NULL;
		blkid_loff_t start = blkid_partition_get_start(p),
			     size = blkid_partition_get_size(p);

		if (type ? !t || strcasecmp(t, type) != 0
			 : blkid_partition_get_partno(p) != (int)partition)
			continue;
		/* In 512-byte sectors, whatever the table's own sector size. */
		if (start < 0 || size <= 0)
			return -ENXIO;
		*ret_offset = (uint64_t)start * 512;
		*ret_size = (uint64_t)size * 512;
		return 0;
	}
	return -ENXIO;
}

/* The filesystem type of offset..offset+size of the image; why there is
 * none into the log.  Only filesystems are looked for (fs-probe.h): 18
 * reads of 18 KiB for an ext4 partition against 44 of 283 KiB with every
 * prober, with a libblkid that maps and protects a buffer per read (a 4x
 * shorter probe under TCG). */
int loopdev_probe_fstype(int reader, uint64_t offset, uint64_t size, char **ret, MntLog *log)
{
	static const FsProbeHints hints = {
		.partition = "name a partition (partition or partitionType)",
		.fstype = "give fsType",
	};
	char why[384];
	int r = fs_probe_type(reader, offset, size, &hints, ret, why, sizeof(why));

	if (r == -EMEDIUMTYPE)
		mnt_log_add(log, "probe", 'e', why);
	return r;
}

int loopdev_attach(int image_fd, int reader, uint32_t partition, const char *partition_type,
		   LoopDev *ret, char **ret_fstype, MntLog *log)
{
	_cleanup_(loopdev_donep) LoopDev d = LOOPDEV_NULL;
	_cleanup_close_ int own_reader = -EBADF;
	_cleanup_free_ char *fstype = NULL;
	bool want_part = partition > 0 || partition_type;
	uint64_t start = mnt_step_start(), offset = 0, size = 0;
	int flags, nr = -1, r;

	/* Read-only from a read-only fd (configure() below). */
	r = image_fd_readable(image_fd, &flags);
	if (r < 0) {
		mnt_log_fail(log, "loop:image");
		return r;
	}
	/* Only libblkid reads the image: without a table or a type to read,
	 * the kernel alone looks at it. */
	if ((want_part || ret_fstype) && reader < 0) {
		r = loopdev_image_reader(image_fd, &own_reader);
		if (r < 0) {
			mnt_log_fail(log, r == -EINVAL ? "loop:configure" : "loop:image");
			return r;
		}
		reader = own_reader;
	}
	/* A partition gets a loop device over its bytes alone (what mount -o
	 * loop,offset=,sizelimit= makes), read from the table by libblkid:
	 * no partition scan of an untrusted table by the kernel, no
	 * partition devices for udev to probe, none to wait for. */
	if (want_part) {
		r = find_partition(reader, partition, partition_type, &offset, &size);
		if (mnt_log_result(log, "loop:partition", start, r) < 0)
			return r;
		start = mnt_step_start();
	}
	if (ret_fstype) {
		/* The bytes the loop device will show, from the file, before
		 * there is a device: what is no filesystem is refused without
		 * one, and the mount follows LOOP_CONFIGURE at once, as
		 * mount(8)'s does, rather than after udev has started its own
		 * probe of the new device and queued its reads ahead of the
		 * filesystem's. */
		r = loopdev_probe_fstype(reader, offset, size, &fstype, log);
		if (mnt_log_result(log, "probe", start, r) < 0)
			return r;
		start = mnt_step_start();
	}
	r = configure(image_fd, (flags & O_ACCMODE) == O_RDONLY, offset, size, &d.fd, &nr);
	if (mnt_log_result(log, "loop:configure", start, r) < 0)
		return r;
	test_stop_at("loop");
	if (asprintf(&d.node, "/dev/loop%d", nr) < 0)
		return -ENOMEM;
	if (ret_fstype)
		*ret_fstype = TAKE_PTR(fstype);
	*ret = d;
	d = LOOPDEV_NULL;
	return 0;
}

int loopdev_attach_range(int image_fd, uint64_t offset, uint64_t size, LoopDev *ret, MntLog *log)
{
	_cleanup_(loopdev_donep) LoopDev d = LOOPDEV_NULL;
	uint64_t start = mnt_step_start();
	int nr = -1, r;

	r = image_fd_readable(image_fd, NULL);
	if (r >= 0)
		/* Read-only whatever the fd allows: what is on top checks
		 * what it reads and writes nothing. */
		r = configure(image_fd, true, offset, size, &d.fd, &nr);
	if (mnt_log_result(log, "loop:configure", start, r) < 0)
		return r;
	if (asprintf(&d.node, "/dev/loop%d", nr) < 0)
		return -ENOMEM;
	*ret = d;
	d = LOOPDEV_NULL;
	return 0;
}
