/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Devices made for a user, counted from records the kernel's state keeps
 * true (see sys-device-ledger.h).
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "executor-worker.h"
#include "sys-device-ledger.h"
#include "util.h"

#define LEDGER_DIR "devices"

static unsigned devices_per_user(void)
{
	const char *e = getenv("MOUNTD_DEVICES_PER_USER");
	char *end;
	unsigned long n;

	if (!e || !*e)
		return DEVICES_PER_USER;
	errno = 0;
	n = strtoul(e, &end, 10);
	if (errno || *end || n > 65536)
		return DEVICES_PER_USER;
	return (unsigned)n;
}

/* Block device attribute name as a number; -errno when the device is
 * gone. */
static int sys_number(dev_t dev, const char *name, uint64_t *ret)
{
	char line[32], *end;
	int r = worker_host_block_attr(dev, name, line, sizeof(line));

	if (r < 0)
		return r;
	errno = 0;
	*ret = strtoull(line, &end, 10);
	return errno || *end ? -EIO : 0;
}

/* The devices a record still stands for: its weight while the device is
 * the one recorded and attached, else 0; -1 for a name that is no record. */
static int record_weight(const char *name)
{
	unsigned maj, min, weight;
	uint64_t seq, now, size;
	int n = -1;

	if (sscanf(name, "%u:%u:%" SCNu64 ":%u%n", &maj, &min, &seq, &weight, &n) != 4 || n < 0 ||
	    name[n] || weight == 0 || weight > 3)
		return -1;
	if (sys_number(makedev(maj, min), "diskseq", &now) < 0 || now != seq ||
	    sys_number(makedev(maj, min), "size", &size) < 0 || size == 0)
		return 0;
	return (int)weight;
}

static int refuse(DeviceLedger *l, unsigned want, MntLog *log)
{
	char text[192];
	int k;

	snprintf(text, sizeof(text),
		 "mountd: this user's mounts hold %u loop and device-mapper devices, %u more "
		 "would pass the %u mountd makes for one user",
		 l->held, want, l->max);
	k = mnt_log_add(log, "devices", 'e', text);
	mnt_log_fail(log, "devices");
	return k < 0 ? k : -EDQUOT;
}

int device_ledger_open(uid_t principal, DeviceLedger *ret, MntLog *log)
{
	_cleanup_close_ int dir = -EBADF;
	_cleanup_(closedirp) DIR *d = NULL;
	DeviceLedger l = {.dir = -EBADF, .max = devices_per_user()};
	struct dirent *de;
	int fd, r;

	dir = worker_run_dir(LEDGER_DIR, principal, true);
	if (dir < 0) {
		mnt_log_fail(log, "devices");
		return dir;
	}
	if (flock(dir, LOCK_EX) < 0) {
		mnt_log_fail(log, "devices");
		return negative_errno();
	}
	fd = dup(dir);
	if (fd < 0 || !(d = fdopendir(fd))) {
		r = negative_errno();
		safe_close(fd);
		mnt_log_fail(log, "devices");
		return r;
	}
	while ((errno = 0, de = readdir(d))) {
		int w;

		if (de->d_name[0] == '.')
			continue;
		w = record_weight(de->d_name);
		if (w > 0)
			l.held += (unsigned)w;
		else
			(void)unlinkat(dir, de->d_name, 0);
	}
	if (errno) {
		mnt_log_fail(log, "devices");
		return negative_errno();
	}
	l.dir = TAKE_FD(dir);
	*ret = l;
	return 0;
}

int device_ledger_add(DeviceLedger *l, int device_fd, unsigned weight, MntLog *log)
{
	_cleanup_close_ int fd = -EBADF;
	struct stat st;
	uint64_t seq;
	char name[64];
	int r;

	if (l->dir < 0)
		return 0;
	if (l->held + weight > l->max)
		return refuse(l, weight, log);
	if (fstat(device_fd, &st) < 0 || !S_ISBLK(st.st_mode))
		r = -ENOTBLK;
	else
		r = sys_number(st.st_rdev, "diskseq", &seq);
	if (r < 0) {
		mnt_log_fail(log, "devices");
		return r;
	}
	snprintf(name, sizeof(name), "%u:%u:%" PRIu64 ":%u", major(st.st_rdev), minor(st.st_rdev),
		 seq, weight);
	fd = openat(l->dir, name, O_CREAT | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		mnt_log_fail(log, "devices");
		return negative_errno();
	}
	l->held += weight;
	return 0;
}

void device_ledger_close(DeviceLedger *l)
{
	/* Closing the directory drops the lock. */
	safe_close(l->dir);
	*l = DEVICE_LEDGER_NULL;
}
