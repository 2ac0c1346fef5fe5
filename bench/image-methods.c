// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mount-bench's image section: a GPT disk image (bench/run makes it) whose
 * root-x86-64 partition holds ext4, opened read-only, mounted read-only at
 * bench_dir and unmounted, four ways:
 *
 *   raw       the partition's offset from the GPT, LOOP_CONFIGURE (ro,
 *             autoclear, offset, size), fsopen..move_mount, umount2
 *   mountd    Create {"image":{"fd","partitionType"}} placed + Unmount
 *   mountfsd  systemd-mountfsd's io.systemd.MountFileSystem.MountImage
 *             (readOnly), its root mount fd attached with move_mount, umount2
 *   mount(8)  mount -o loop,ro,offset=,sizelimit= + umount
 *
 * After each, untimed, it waits until no loop device is left on the image:
 * a loop device (mountfsd's above all) goes some time after its last
 * mount, and a mount of the image meanwhile fails.  Then until udev has
 * handled their uevents (udevadm settle), which otherwise runs into the
 * next method's time.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <linux/mount.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench-stats.h"
#include "mount-bench.h"

#define ROOT_X86_64	"4f68bce3-e8cd-4db1-96e7-fbcaf984b709"
#define MOUNTFSD_SOCKET "/run/systemd/io.systemd.MountFileSystem"

static const char *image_path;
static int image_fd = -1;
static char mount8_opts[128];
static MountdClient *mountfsd;
static double udev_settle_max;
/* mountfsd's quirks, counted for the notes. */
static unsigned busy_retries[2], writable_answers, mountfsd_calls;
static double settle_max;

/* The root partition's byte offset and size, read from the GPT each time as a
 * program that is handed an image must. */
static void gpt_root(uint64_t *offset, uint64_t *size)
{
	/* root-x86-64 as stored on disk (mixed-endian GUID). */
	static const uint8_t want[16] = {0xe3, 0xbc, 0x68, 0x4f, 0xcd, 0xe8, 0xb1, 0x4d,
					 0x96, 0xe7, 0xfb, 0xca, 0xf9, 0x84, 0xb7, 0x09};
	uint8_t hdr[92], e[128];
	uint64_t lba;
	uint32_t n, size_e;

	if (pread(image_fd, hdr, sizeof(hdr), 512) != sizeof(hdr) || memcmp(hdr, "EFI PART", 8))
		bench_die("GPT header");
	memcpy(&lba, hdr + 72, 8);
	memcpy(&n, hdr + 80, 4);
	memcpy(&size_e, hdr + 84, 4);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t first, last;

		if (pread(image_fd, e, sizeof(e), lba * 512 + (uint64_t)i * size_e) != sizeof(e))
			bench_die("GPT entry");
		if (memcmp(e, want, 16))
			continue;
		memcpy(&first, e + 32, 8);
		memcpy(&last, e + 40, 8);
		*offset = first * 512;
		*size = (last - first + 1) * 512;
		return;
	}
	errno = ENOENT;
	bench_die("GPT: no root-x86-64 partition");
}

/* retries counts umount2's EBUSY: [0] raw, [1] mountfsd. */
static void attach_and_unmount(int mnt, unsigned *retries)
{
	if (syscall(__NR_move_mount, mnt, "", AT_FDCWD, bench_dir, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		bench_die("move_mount");
	close(mnt);
	/* mountfsd's mounts can be busy for a moment after their fds are closed. */
	for (unsigned i = 0; bench_umount(bench_dir, 0) < 0; i++) {
		if (errno != EBUSY || i == 1000)
			bench_die("umount2 image");
		(*retries)++;
		usleep(1000);
	}
}

int bench_loop_over(int fd, uint64_t offset, uint64_t size, char dev[32])
{
	struct loop_config cfg = {.fd = fd,
				  .info.lo_flags = LO_FLAGS_READ_ONLY | LO_FLAGS_AUTOCLEAR,
				  .info.lo_offset = offset,
				  .info.lo_sizelimit = size};
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC), loop, n;

	if (ctl < 0)
		bench_die("/dev/loop-control");
	for (;;) { /* another may take the free device first */
		n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0)
			bench_die("LOOP_CTL_GET_FREE");
		snprintf(dev, 32, "/dev/loop%d", n);
		loop = open(dev, O_RDONLY | O_CLOEXEC);
		if (loop < 0)
			bench_die(dev);
		if (ioctl(loop, LOOP_CONFIGURE, &cfg) == 0)
			break;
		if (errno != EBUSY)
			bench_die("LOOP_CONFIGURE");
		close(loop);
	}
	close(ctl);
	return loop;
}

int bench_fsmount_ro(const char *fstype, const char *source)
{
	int fs = syscall(__NR_fsopen, fstype, FSOPEN_CLOEXEC), mnt;

	if (fs < 0 || syscall(__NR_fsconfig, fs, FSCONFIG_SET_STRING, "source", source, 0) < 0 ||
	    syscall(__NR_fsconfig, fs, FSCONFIG_SET_FLAG, "ro", NULL, 0) < 0 ||
	    syscall(__NR_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		bench_die("fsopen/fsconfig");
	mnt = syscall(__NR_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY);
	if (mnt < 0)
		bench_die("fsmount");
	close(fs);
	return mnt;
}

static void image_raw(void)
{
	char dev[32];
	int loop, mnt;
	uint64_t offset, size;

	gpt_root(&offset, &size);
	loop = bench_loop_over(image_fd, offset, size, dev);
	mnt = bench_fsmount_ro("ext4", dev);
	close(loop); /* the superblock holds it now; autoclear when that goes */
	attach_and_unmount(mnt, &busy_retries[0]);
}

static void image_mountd(void)
{
	char create[384], unmount[128];

	snprintf(create, sizeof(create),
		 "{\"image\":{\"fd\":0,\"partitionType\":\"" ROOT_X86_64 "\"},"
		 "\"parameters\":[{\"key\":\"ro\",\"type\":\"flag\"}],"
		 "\"placement\":{\"path\":\"%s\"}}",
		 bench_dir);
	snprintf(unmount, sizeof(unmount), "{\"path\":\"%s\"}", bench_dir);
	bench_call(bench_client, "Create", create, &image_fd, 1, NULL);
	bench_call(bench_client, "Unmount", unmount, NULL, 0, NULL);
}

/* MountImage of fd; the root partition's mount fd, or a negative errno
 * with the error in why (for the probe before the rounds). */
int image_mountfsd_fd(int image, char *why, size_t size)
{
	json_object *params = json_tokener_parse("{\"imageFileDescriptor\":0,\"readOnly\":true}");
	json_object *parts, *p, *v;
	MountdReply r = {};
	int fd = -ENOENT, k;

	if (!mountfsd && (k = mountd_client_connect(&mountfsd, MOUNTFSD_SOCKET)) < 0) {
		snprintf(why, size, "%s: %s", MOUNTFSD_SOCKET, strerror(-k));
		json_object_put(params);
		return k;
	}
	k = mountd_client_call(mountfsd, "io.systemd.MountFileSystem.MountImage", params, &image, 1,
			       &r);
	json_object_put(params);
	if (k < 0) {
		snprintf(why, size, "MountImage: %s", strerror(-k));
		return k;
	}
	mountfsd_calls++;
	if (r.error) {
		snprintf(why, size, "MountImage: %s", r.error);
		mountd_reply_done(&r);
		return -EIO;
	}
	if (json_object_object_get_ex(r.parameters, "partitions", &parts))
		for (size_t i = 0; i < json_object_array_length(parts); i++) {
			p = json_object_array_get_idx(parts, i);
			if (!json_object_object_get_ex(p, "designator", &v) ||
			    strcmp(json_object_get_string(v), "root") != 0)
				continue;
			if (json_object_object_get_ex(p, "writable", &v) &&
			    json_object_get_boolean(v))
				writable_answers++;
			if (json_object_object_get_ex(p, "mountFileDescriptor", &v))
				fd = mountd_reply_take_fd(&r, json_object_get_int64(v));
		}
	if (fd < 0)
		snprintf(why, size, "MountImage: no root partition's mount fd in the reply");
	mountd_reply_done(&r);
	return fd;
}

static int mountfsd_mount(char *why, size_t size)
{
	return image_mountfsd_fd(image_fd, why, size);
}

static void image_mountfsd(void)
{
	char why[256];
	int mnt = mountfsd_mount(why, sizeof(why));

	if (mnt < 0) {
		fprintf(stderr, "%s\n", why);
		exit(1);
	}
	attach_and_unmount(mnt, &busy_retries[1]);
}

static void image_mount8(void)
{
	bench_run((char *const[]){"mount", "-o", mount8_opts, (char *)image_path, (char *)bench_dir,
				  NULL});
	bench_run((char *const[]){"umount", (char *)bench_dir, NULL});
}

/* Is there a /sys/block/PREFIX* device whose ATTR file reads as one of
 * values (a NULL-terminated list; a value ending in '*' is a prefix)? */
static int sys_block_has(const char *prefix, const char *attr, const char *const *values)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	int found = 0;

	if (!d)
		bench_die("/sys/block");
	while (!found && (de = readdir(d))) {
		char file[300], value[4096];
		FILE *f;

		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		snprintf(file, sizeof(file), "/sys/block/%s/%s", de->d_name, attr);
		f = fopen(file, "re");
		if (!f)
			continue; /* not configured */
		if (fgets(value, sizeof(value), f)) {
			value[strcspn(value, "\n")] = 0;
			for (const char *const *v = values; *v && !found; v++) {
				size_t n = strlen(*v);

				found = n && (*v)[n - 1] == '*' ? strncmp(value, *v, n - 1) == 0
								: strcmp(value, *v) == 0;
			}
		}
		fclose(f);
	}
	closedir(d);
	return found;
}

void image_settle_path(const char *path)
{
	double t0 = bench_now(), t;

	while (sys_block_has("loop", "loop/backing_file", (const char *const[]){path, NULL}) ||
	       sys_block_has("dm-", "dm/name",
			     (const char *const[]){"bench-*", "mountd-verity-*", NULL})) {
		if (bench_now() - t0 > 30) {
			fprintf(stderr, "%s: still on a loop or verity device after 30 s\n", path);
			exit(1);
		}
		usleep(2000);
	}
	t = bench_now() - t0;
	if (t > settle_max)
		settle_max = t;
	/* And udev done with the uevents of the loop devices (its probe of
	 * each, the device units): on two CPUs its work slows whatever runs
	 * beside it, so each method pays for its own uevents, not for those
	 * of the method before it. */
	t0 = bench_now();
	bench_run((char *const[]){"udevadm", "settle", "--timeout=30", NULL});
	t = bench_now() - t0;
	if (t > udev_settle_max)
		udev_settle_max = t;
}

void image_settle(void)
{
	image_settle_path(image_path);
}

void image_methods(const char *path, Method m[4])
{
	static char why[256];
	uint64_t offset, size;
	int fd;

	image_path = path;
	image_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (image_fd < 0)
		bench_die(path);
	gpt_root(&offset, &size);
	snprintf(mount8_opts, sizeof(mount8_opts), "loop,ro,offset=%llu,sizelimit=%llu",
		 (unsigned long long)offset, (unsigned long long)size);
	m[0].once = image_raw;
	m[1].once = image_mountd;
	m[3].once = image_mount8;
	if ((fd = mountfsd_mount(why, sizeof(why))) < 0) {
		m[2].why_not = why;
	} else {
		close(fd);
		image_settle();
		m[2].once = image_mountfsd;
	}
	for (int k = 0; k < 4; k++)
		if (m[k].once)
			m[k].why_not = NULL;
}

void image_notes(void)
{
	printf("image: %s, root partition %s; after each operation (untimed) up to %.0f ms until "
	       "the image had no loop device left, then up to %.0f ms until udev was done\n",
	       image_path, mount8_opts, settle_max * 1e3, udev_settle_max * 1e3);
	if (mountfsd_calls)
		printf("mountfsd: %u of %u ro MountImage answers said writable:true for the root "
		       "partition; umount2 of its mounts retried %u time(s) on EBUSY (raw's: %u)\n",
		       writable_answers, mountfsd_calls, busy_retries[1], busy_retries[0]);
}
