// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mount-bench's sections of images a user need not be trusted with (issue
 * 35), made by bench/run with the tools that make them for real:
 *
 *   verity  a signed DDI (systemd-repart: EROFS root, its verity hash and
 *           signature partitions; the key's certificate in /etc/verity.d),
 *           read-only, mounted at bench_dir and unmounted:
 *             raw       one LOOP_CONFIGURE over the data and hash partitions
 *                       (the tree at its offset, as mountd does), libcryptsetup
 *                       activation with the root hash (no wait for udev:
 *                       the device by its kernel name, as mountd does),
 *                       deferred removal, fsopen..move_mount, umount2
 *             mountd    Create {"image":{"fd"}} placed + Unmount (it finds
 *                       the partitions, checks the signature, sets it up)
 *             mountfsd  systemd-mountfsd's MountImage, its root mount fd
 *                       attached with move_mount, umount2
 *             by hand   losetup (twice), veritysetup open, mount, umount,
 *                       veritysetup close
 *   erofs   a plain EROFS file on a disk filesystem:
 *             raw       fsopen("erofs") with the file as the source
 *                       (6.12's file-backed mode), no loop device
 *             raw loop  the same through a loop device (LOOP_CONFIGURE)
 *             mountd    Create {"image":{"fd"}}: from the file itself
 *             mount(8)  mount -o loop,ro and umount: through a loop device,
 *                       as a user's tools do it without mountd
 *   erofs8  the same, eight in a row per timed round (containers starting
 *           together): what the loop device's uevents cost, udev's work on
 *           each (blkid of it, its rules) running beside the mounts that
 *           follow, rather than after the round
 *             raw, raw loop, mountd  as above, eight times
 *
 * After each, untimed, until the image has no loop or mountd-verity device
 * left and udev is done (image_settle()'s reasons).
 */
#include <errno.h>
#include <fcntl.h>
#include <libcryptsetup.h>
#include <libdevmapper.h>
#include <linux/mount.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mount-bench.h"

static int ddi_fd = -1, erofs_fd = -1;
static const char *ddi_path, *erofs_path;
/* From bench/run: the data and hash partitions' byte ranges, the root hash. */
static uint64_t data_off, data_size, hash_off, hash_size;
static unsigned char root_hash[64];
static size_t root_hash_size;
static char root_hash_hex[129];
static unsigned counter;

static void mount_ro(const char *fstype, const char *source)
{
	int mnt = bench_fsmount_ro(fstype, source);

	if (syscall(__NR_move_mount, mnt, "", AT_FDCWD, bench_dir, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		bench_die("move_mount");
	close(mnt);
}

static void verity_raw(void)
{
	struct crypt_device *cd = NULL;
	char loop[32], name[64], node[96];
	/* One loop device over the data and the hash partition after it, the
	 * tree at its offset: what mountd makes for such a DDI. */
	int fd = bench_loop_over(ddi_fd, data_off, hash_off + hash_size - data_off, loop), dev;
	struct crypt_params_verity params = {.hash_area_offset = hash_off - data_off};
	struct dm_task *t;
	struct dm_info info;

	if (hash_off < data_off + data_size)
		bench_die("a DDI whose hash partition is not after its data partition");
	snprintf(name, sizeof(name), "bench-verity-%u", counter++);
	dm_udev_set_sync_support(0);
	if (crypt_init_data_device(&cd, loop, loop) < 0 ||
	    crypt_load(cd, CRYPT_VERITY, &params) < 0 ||
	    crypt_activate_by_volume_key(cd, name, (const char *)root_hash, root_hash_size,
					 CRYPT_ACTIVATE_READONLY) < 0)
		bench_die("libcryptsetup verity");
	/* devtmpfs's dm-N node, there before udev is told: by its number. */
	t = dm_task_create(DM_DEVICE_INFO);
	if (!t || !dm_task_set_name(t, name) || !dm_task_run(t) || !dm_task_get_info(t, &info) ||
	    !info.exists)
		bench_die("device-mapper info");
	dm_task_destroy(t);
	snprintf(node, sizeof(node), "/dev/dm-%u", (unsigned)info.minor);
	close(fd);
	dev = open(node, O_RDONLY | O_CLOEXEC);
	if (dev < 0 || crypt_deactivate_by_name(cd, name, CRYPT_DEACTIVATE_DEFERRED) < 0)
		bench_die(node);
	mount_ro("erofs", node);
	close(dev);
	crypt_free(cd);
	if (bench_umount(bench_dir, 0) < 0)
		bench_die("umount2 verity");
}

/* mountd's Create of a whole image fd placed at bench_dir, and Unmount. */
static void mountd_image(const int *fd)
{
	char create[256], unmount[128];

	snprintf(create, sizeof(create), "{\"image\":{\"fd\":0},\"placement\":{\"path\":\"%s\"}}",
		 bench_dir);
	snprintf(unmount, sizeof(unmount), "{\"path\":\"%s\"}", bench_dir);
	bench_call(bench_client, "Create", create, fd, 1, NULL);
	bench_call(bench_client, "Unmount", unmount, NULL, 0, NULL);
}

static void verity_mountd(void)
{
	mountd_image(&ddi_fd);
}

static void verity_mountfsd(void)
{
	char why[256];
	int mnt = image_mountfsd_fd(ddi_fd, why, sizeof(why));

	if (mnt < 0) {
		fprintf(stderr, "%s\n", why);
		exit(1);
	}
	if (syscall(__NR_move_mount, mnt, "", AT_FDCWD, bench_dir, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		bench_die("move_mount");
	close(mnt);
	for (unsigned i = 0; bench_umount(bench_dir, 0) < 0; i++)
		if (errno != EBUSY || i == 1000)
			bench_die("umount2 mountfsd");
		else
			usleep(1000);
}

static void verity_by_hand(void)
{
	char off[32], size[32], hoff[32], hsize[32], name[64], node[96], *data, *hash;
	FILE *p;

	snprintf(off, sizeof(off), "%llu", (unsigned long long)data_off);
	snprintf(size, sizeof(size), "%llu", (unsigned long long)data_size);
	snprintf(hoff, sizeof(hoff), "%llu", (unsigned long long)hash_off);
	snprintf(hsize, sizeof(hsize), "%llu", (unsigned long long)hash_size);
	snprintf(name, sizeof(name), "bench-hand-%u", counter++);
	snprintf(node, sizeof(node), "/dev/mapper/%s", name);
	/* losetup --show prints the device: read it back. */
	char cmd[512];
	snprintf(cmd, sizeof(cmd),
		 "losetup -r -f --show -o %s --sizelimit %s %s && "
		 "losetup -r -f --show -o %s --sizelimit %s %s",
		 off, size, ddi_path, hoff, hsize, ddi_path);
	p = popen(cmd, "re");
	if (!p)
		bench_die("losetup");
	char a[64] = "", b[64] = "";
	if (!fgets(a, sizeof(a), p) || !fgets(b, sizeof(b), p))
		bench_die("losetup output");
	pclose(p);
	a[strcspn(a, "\n")] = 0;
	b[strcspn(b, "\n")] = 0;
	data = a;
	hash = b;
	bench_run((char *const[]){"veritysetup", "open", data, name, hash, root_hash_hex, NULL});
	bench_run((char *const[]){"mount", "-o", "ro", node, (char *)bench_dir, NULL});
	bench_run((char *const[]){"umount", (char *)bench_dir, NULL});
	bench_run((char *const[]){"veritysetup", "close", name, NULL});
	bench_run((char *const[]){"losetup", "-d", data, hash, NULL});
}

static void erofs_raw(void)
{
	mount_ro("erofs", erofs_path);
	if (bench_umount(bench_dir, 0) < 0)
		bench_die("umount2 erofs");
}

static void erofs_raw_loop(void)
{
	char dev[32];
	int loop = bench_loop_over(erofs_fd, 0, 0, dev);

	mount_ro("erofs", dev);
	close(loop);
	if (bench_umount(bench_dir, 0) < 0)
		bench_die("umount2 erofs loop");
}

static void erofs_mountd(void)
{
	mountd_image(&erofs_fd);
}

static void erofs_mount8(void)
{
	bench_run((char *const[]){"mount", "-t", "erofs", "-o", "loop,ro", (char *)erofs_path,
				  (char *)bench_dir, NULL});
	bench_run((char *const[]){"umount", (char *)bench_dir, NULL});
}

#define BURST 8

static void erofs_raw8(void)
{
	for (int i = 0; i < BURST; i++)
		erofs_raw();
}

static void erofs_raw_loop8(void)
{
	for (int i = 0; i < BURST; i++)
		erofs_raw_loop();
}

static void erofs_mountd8(void)
{
	for (int i = 0; i < BURST; i++)
		erofs_mountd();
}

static uint64_t env_u64(const char *name)
{
	const char *v = getenv(name);

	if (!v)
		bench_die(name);
	return strtoull(v, NULL, 0);
}

void verity_methods(Method m[4])
{
	const char *hex = getenv("MOUNTD_BENCH_VERITY_ROOTHASH");
	char why[256];
	int fd;

	ddi_path = getenv("MOUNTD_BENCH_VERITY_DDI");
	if (!ddi_path || !hex)
		return;
	ddi_fd = open(ddi_path, O_RDONLY | O_CLOEXEC);
	if (ddi_fd < 0)
		bench_die(ddi_path);
	data_off = env_u64("MOUNTD_BENCH_VERITY_DATA_OFFSET");
	data_size = env_u64("MOUNTD_BENCH_VERITY_DATA_SIZE");
	hash_off = env_u64("MOUNTD_BENCH_VERITY_HASH_OFFSET");
	hash_size = env_u64("MOUNTD_BENCH_VERITY_HASH_SIZE");
	snprintf(root_hash_hex, sizeof(root_hash_hex), "%s", hex);
	root_hash_size = strlen(root_hash_hex) / 2;
	for (size_t i = 0; i < root_hash_size && i < sizeof(root_hash); i++)
		sscanf(root_hash_hex + 2 * i, "%2hhx", &root_hash[i]);
	m[0].once = verity_raw;
	m[1].once = verity_mountd;
	m[3].once = verity_by_hand;
	fd = image_mountfsd_fd(ddi_fd, why, sizeof(why));
	if (fd >= 0) {
		close(fd);
		m[2].once = verity_mountfsd;
	} else
		m[2].why_not = strdup(why);
	for (int k = 0; k < 4; k++)
		if (m[k].once)
			m[k].why_not = NULL;
}

void erofs_methods(Method m[4])
{
	erofs_path = getenv("MOUNTD_BENCH_EROFS");
	if (!erofs_path)
		return;
	if (erofs_fd < 0)
		erofs_fd = open(erofs_path, O_RDONLY | O_CLOEXEC);
	if (erofs_fd < 0)
		bench_die(erofs_path);
	m[0].once = erofs_raw;
	m[1].once = erofs_raw_loop;
	m[2].once = erofs_mountd;
	m[3].once = erofs_mount8;
	for (int k = 0; k < 4; k++)
		m[k].why_not = NULL;
}

void erofs8_methods(Method m[3])
{
	if (erofs_fd < 0)
		return;
	m[0].once = erofs_raw8;
	m[1].once = erofs_raw_loop8;
	m[2].once = erofs_mountd8;
	for (int k = 0; k < 3; k++)
		m[k].why_not = NULL;
}

void verity_settle(void)
{
	if (ddi_path)
		image_settle_path(ddi_path);
}

void erofs_settle(void)
{
	if (erofs_path)
		image_settle_path(erofs_path);
}
