/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Create: a new superblock from a filesystem context (fsopen, fsconfig for
 * each parameter in the order given, FSCONFIG_CMD_CREATE[_EXCL], fsmount),
 * optionally on a loop device made from an image fd, then placed into a
 * namespace or handed back as a detached mount fd.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "executor-caller-sb.h"
#include "ops-fs-params.h"
#include "base64.h"
#include "sys-device-ledger.h"
#include "sys-loopdev.h"
#include "sys-mnt-lock.h"
#include "sys-verity.h"
#include "ops-internal.h"
#include "executor-rights.h"
#include "test-hook.h"
#include "ops-fuse.h"
#include "util.h"
#include "executor-worker.h"

void ops_create_request_done(OpsCreateRequest *r)
{
	free(r->fstype);
	free(r->source);
	for (size_t i = 0; i < r->n_params; i++)
		mnt_param_done(&r->params[i]);
	free(r->params);
	free(r->image.partition_type);
	free(r->image.root_hash);
	free(r->image.root_hash_signature);
	ops_placement_done(&r->place);
	*r = (OpsCreateRequest){.image.fd = -EBADF, .image.hash_fd = -EBADF};
}

int ops_create_validate(const OpsCreateRequest *r, const char **ret_field)
{
	int k;

	if (r->fstype ? !ops_fstype_valid(r->fstype) : r->image.fd < 0) {
		*ret_field = "fsType";
		return -EINVAL;
	}
	if (r->source) {
		if (!*r->source) {
			*ret_field = "source";
			return -EINVAL;
		}
		if (strlen(r->source) > MNT_STRING_MAX) {
			*ret_field = "source";
			return -ERANGE;
		}
		if (r->image.fd >= 0) {
			/* The loop device is the source. */
			*ret_field = "source";
			return -EINVAL;
		}
	}
	if (r->image.fd < 0 && (r->image.partition || r->image.partition_type)) {
		*ret_field = "image.fd";
		return -EINVAL;
	}
	if (r->image.partition && r->image.partition_type) {
		*ret_field = "image.partitionType";
		return -EINVAL;
	}
	if (r->image.partition_type && !loopdev_uuid_valid(r->image.partition_type)) {
		*ret_field = "image.partitionType";
		return -EINVAL;
	}
	/* A bare image's hash tree comes with the root hash that heads it; a
	 * DDI's are in its partitions. */
	if (r->image.hash_fd >= 0 &&
	    (r->image.fd < 0 || r->image.partition || r->image.partition_type)) {
		*ret_field = "image.hashFd";
		return -EINVAL;
	}
	if ((r->image.hash_fd >= 0) != !!r->image.root_hash) {
		*ret_field = "image.rootHash";
		return -EINVAL;
	}
	if (r->image.root_hash_signature && !r->image.root_hash) {
		*ret_field = "image.rootHashSignature";
		return -EINVAL;
	}
	k = ops_params_validate(r->params, r->n_params, ret_field);
	if (k < 0)
		return k;
	/* The source has one way in, the field, where it is checked as a
	 * source: as a parameter it would pass as any other string. */
	for (size_t i = 0; i < r->n_params; i++)
		if (streq(r->params[i].key, "source")) {
			*ret_field = ops_field("parameters[%zu].key", i);
			return -EINVAL;
		}
	k = ops_attributes_validate(&r->attr, false, ret_field);
	if (k < 0)
		return k;
	return ops_placement_validate(&r->place, ret_field);
}

static bool has_param(const OpsCreateRequest *r, const char *key)
{
	for (size_t i = 0; i < r->n_params; i++)
		if (streq(r->params[i].key, key))
			return true;
	return false;
}

/* Does filesystem type fstype ("fuse.sshfs": "fuse") read a block device,
 * whose name its source is?  From mountd's /proc/filesystems, after fsopen()
 * has loaded it: a type listed without "nodev", or not listed at all. */
static bool fstype_needs_device(const char *fstype)
{
	_cleanup_fclose_ FILE *f = worker_host_fopen(WORKER_HOST_PROC, "filesystems");
	size_t n = strcspn(fstype, ".");
	char line[128];

	if (!f)
		return true;
	while (fgets(line, sizeof(line), f)) {
		char *name = strchr(line, '\t');

		if (!name)
			continue;
		name++;
		name[strcspn(name, "\n")] = 0;
		if (strlen(name) == n && strncmp(name, fstype, n) == 0)
			return !startswith(line, "nodev");
	}
	return true;
}

typedef struct CreateCmd {
	int fs_fd;
	unsigned cmd;
	MntLog *log;
} CreateCmd;

static int cmd_create(void *userdata)
{
	const CreateCmd *a = userdata;

	return mnt_fsconfig_cmd(a->fs_fd, a->cmd, a->log);
}

/* The source parameter, when there is one (ret_p->key NULL if not): a
 * device the caller names is one it opens itself, and the kernel is given
 * the device's own name (*device, to be freed).  Not on a device, the source
 * is a label to the filesystems mountd knows; one it does not may look it
 * up, so only root gives one. */
static int source_param(const OpsCreateRequest *r, const char *fstype, const char *source,
			char **device, MntParam *ret_p, MntLog *log)
{
	bool needs_device = source && fstype_needs_device(fstype);
	uid_t uid;
	gid_t gid;
	int k;

	*ret_p = (MntParam){.fd = -EBADF};
	if (!source)
		return 0;
	if (needs_device && source == r->source) {
		k = rights_open_device(source, has_param(r, "ro"), device);
		if (k < 0) {
			mnt_log_fail(log, "source");
			return k;
		}
		if (*device)
			source = *device;
	}
	if (!needs_device && source == r->source && rights_caller(&uid, &gid) &&
	    !fs_param_known_fstype(fstype)) {
		k = mnt_log_add(log, "fsconfig:source", 'e',
				"mountd: only root may give a source to a filesystem "
				"whose parameters mountd does not know");
		mnt_log_fail(log, "fsconfig:source");
		return k < 0 ? k : -EPERM;
	}
	*ret_p = (MntParam){.type = MNT_PARAM_STRING,
			    .key = (char *)"source",
			    .value = (char *)source,
			    .fd = -EBADF};
	return 0;
}

/* A parameter as the kernel gets it for this caller (ops_param_for_caller()),
 * and what it holds until it is set. */
typedef struct PreparedParam {
	MntParam p;
	int fd;
	char number[OPS_FD_NUMBER_MAX];
} PreparedParam;

/* A superblock the caller makes, by its helper (executor-caller-sb.h):
 * every parameter is looked at before the helper is asked for anything,
 * then the whole context goes to it in one exchange, and its paths are
 * looked up in the helper's namespaces, where CMD_CREATE looks for them.
 * The context's fd, or a failure. */
static int context_by_caller(const OpsCreateRequest *r, const char *fstype, const char *source,
			     bool read_only, FuseLedger *fuse, MntLog *log)
{
	_cleanup_(caller_sb_done) CallerSb helper = CALLER_SB_NULL;
	_cleanup_close_ int userns = -EBADF;
	_cleanup_free_ char *device = NULL;
	_cleanup_free_ PreparedParam *params = NULL;
	MntParam src;
	size_t n = 0;
	int k;

	params = calloc(r->n_params ?: 1, sizeof(*params));
	if (!params)
		return -ENOMEM;
	k = source_param(r, fstype, source, &device, &src, log);
	for (; k >= 0 && n < r->n_params; n++)
		k = ops_param_for_caller(fstype, &r->params[n], has_param(r, "ro"), &params[n].p,
					 &params[n].fd, params[n].number, log);
	if (k >= 0 && ops_fuse_fstype(fstype))
		k = ops_fuse_check_create(r->params, r->n_params, false, fuse, log);
	/* In its container's user namespace, else in a new one of its own. */
	if (k >= 0) {
		userns = rights_callers_userns();
		if (userns < 0 && userns != -EPERM)
			k = mnt_log_result(log, "as-caller", mnt_step_start(), userns);
	}
	/* The kernel takes for a FUSE superblock only a /dev/fuse opened in
	 * its user namespace, and no caller has opened one in a namespace the
	 * helper makes only now. */
	if (k >= 0 && userns == -EPERM && ops_fuse_fstype(fstype))
		k = ops_refuse(log, "fuse",
			       "mountd: a FUSE mount comes back as an fd only in a namespace of "
			       "a user namespace of the caller's (its rootless container), "
			       "where it is made; elsewhere place it");
	if (k >= 0)
		k = caller_sb_fsopen(fstype, userns, &helper, log);
	if (k >= 0 && src.key)
		k = caller_sb_param(&helper, &src, log);
	for (size_t i = 0; k >= 0 && i < n; i++)
		/* An fd the kernel finds by number goes to the helper, which
		 * makes the superblock, as the fd itself. */
		if (fs_param_kind(fstype, r->params[i].key) == FS_PARAM_FD_NUMBER &&
		    r->params[i].type == MNT_PARAM_FD)
			k = caller_sb_param_fd_number(&helper, r->params[i].key, r->params[i].fd,
						      log);
		else
			k = caller_sb_param(&helper, &params[i].p, log);
	if (k >= 0 && read_only && !has_param(r, "ro"))
		k = caller_sb_param(
			&helper,
			&(MntParam){.type = MNT_PARAM_FLAG, .key = (char *)"ro", .fd = -EBADF},
			log);
	if (k >= 0)
		k = caller_sb_create(&helper,
				     r->exclusive ? FSCONFIG_CMD_CREATE_EXCL : FSCONFIG_CMD_CREATE,
				     log);
	for (size_t i = 0; i < n; i++)
		safe_close(params[i].fd);
	return k;
}

/* A superblock mountd makes: each parameter set as it comes, its paths
 * resolved with the caller's rights (executor-rights.h).  The context's
 * fd, or a failure. */
static int context_by_mountd(const OpsCreateRequest *r, const char *fstype, const char *source,
			     bool read_only, FuseLedger *fuse, MntLog *log)
{
	_cleanup_close_ int fs_fd = -EBADF;
	_cleanup_free_ char *device = NULL;
	bool needs_device = source && fstype_needs_device(fstype);
	RightsSaved saved;
	MntParam src;
	int k;

	fs_fd = mnt_fsopen(fstype, log);
	if (fs_fd < 0)
		return fs_fd;
	k = source_param(r, fstype, source, &device, &src, log);
	if (k >= 0 && src.key)
		k = mnt_fsconfig_param(fs_fd, &src, log);
	if (k < 0)
		return k;
	for (size_t i = 0; i < r->n_params; i++) {
		PreparedParam p = {.fd = -EBADF};

		k = ops_param_for_caller(fstype, &r->params[i], has_param(r, "ro"), &p.p, &p.fd,
					 p.number, log);
		if (k >= 0)
			k = mnt_fsconfig_param(fs_fd, &p.p, log);
		safe_close(p.fd);
		if (k < 0)
			return k;
	}
	if (read_only && !has_param(r, "ro")) {
		MntParam p = {.type = MNT_PARAM_FLAG, .key = (char *)"ro", .fd = -EBADF};

		k = mnt_fsconfig_param(fs_fd, &p, log);
		if (k < 0)
			return k;
	}
	/* What FUSE asks of a user, once each parameter passed its own step. */
	if (ops_fuse_fstype(fstype)) {
		k = ops_fuse_check_create(r->params, r->n_params, true, fuse, log);
		if (k < 0)
			return k;
	}
	/* The superblock is mountd's, as any mount it makes.  A block device's
	 * name is looked up now, in mountd's own root: the target's /dev may
	 * be a user's. */
	CreateCmd args = {fs_fd, r->exclusive ? FSCONFIG_CMD_CREATE_EXCL : FSCONFIG_CMD_CREATE,
			  log};
	saved = rights_suspend();
	k = needs_device ? worker_in_host_root(cmd_create, &args) : cmd_create(&args);
	rights_resume(&saved);
	if (k < 0)
		return k;
	return TAKE_FD(fs_fd);
}

/* Whether a non-root caller's superblock is made by the caller, in a user
 * namespace of its own (executor-caller-sb.h), rather than by mountd.
 * Which filesystems a user can ever get follows from this and the kernel,
 * not from a list of mountd's: what the kernel lets a user namespace
 * mount (FS_USERNS_MOUNT), made there, where the kernel refuses the rest
 * (singletons such as cgroup2 outside a cgroup namespace, devtmpfs,
 * tracefs, debugfs: a "new" mount of one by root reconfigures the host's)
 * and gives the others an instance of the namespace's own; and a
 * filesystem that reads a block device, from an image fd or a device the
 * caller opened itself.  FUSE placed where the caller controls nothing
 * (the host's namespace: fusermount3's case) stays mountd's, as the setuid
 * fusermount3's was root's: made in a user namespace of the caller's, it
 * would serve no one else even with allow_other, and its /dev/fuse is one
 * opened there, never the caller's. */
static bool sb_by_caller(const OpsCreateRequest *r, const char *fstype, const char *source)
{
	_cleanup_close_ int userns = -EBADF;
	uid_t uid;
	gid_t gid;

	if (!rights_caller(&uid, &gid))
		return false;
	if ((source || r->image.fd >= 0) && fstype_needs_device(fstype))
		return false;
	if (ops_fuse_fstype(fstype) && r->place.path) {
		userns = rights_callers_userns();
		return userns >= 0;
	}
	return true;
}

/* read_only: the source is a read-only device (dm-verity), which the
 * kernel opens for writing unless the superblock is read-only. */
static int create_mount(const OpsCreateRequest *r, const char *fstype, const char *source,
			bool read_only, MntLog *log)
{
	_cleanup_close_ int fs_fd = -EBADF, mnt_fd = -EBADF;
	_cleanup_(ops_fuse_ledger_close) FuseLedger fuse = FUSE_LEDGER_NULL;
	bool by_caller = sb_by_caller(r, fstype, source);
	uid_t uid;
	gid_t gid;
	int k;

	if (by_caller)
		fs_fd = context_by_caller(r, fstype, source, read_only, &fuse, log);
	else
		fs_fd = context_by_mountd(r, fstype, source, read_only, &fuse, log);
	if (fs_fd < 0)
		return fs_fd;

	struct mount_attr a;
	ops_attributes_to_mount_attr(&r->attr, &a);
	if (read_only)
		a.attr_set |= MOUNT_ATTR_RDONLY;
	mnt_fd = mnt_fsmount(fs_fd, (unsigned)a.attr_set, log);
	if (mnt_fd < 0)
		return mnt_fd;
	k = ops_fuse_ledger_add(&fuse, mnt_fd, log);
	if (k < 0)
		return k;
	/* A superblock of root's reaches a user only with its flags locked
	 * by the kernel; one the caller's user namespace made is the
	 * kernel's to judge already (SB_I_NODEV, suid only inside it). */
	if (!by_caller && rights_caller(&uid, &gid)) {
		mnt_fd = mnt_lock_tree(TAKE_FD(mnt_fd), log);
		if (mnt_fd < 0)
			return mnt_fd;
	}

	if (a.propagation) {
		struct mount_attr p = {.propagation = a.propagation};
		k = mnt_setattr(mnt_fd, "", AT_EMPTY_PATH, &p, log);
		if (k < 0)
			return k;
	}
	return TAKE_FD(mnt_fd);
}

/* What an image is mounted from: a device made over it (a loop device, or
 * a dm-verity device over two), or for EROFS the file itself. */
typedef struct ImageSource {
	LoopDev loop;
	VerityDev verity;
	int file; /* a read-only file description of mountd's own */
	char file_name[64];
	char *fstype; /* probed */
} ImageSource;

static void image_source_done(ImageSource *s)
{
	loopdev_done(&s->loop);
	verity_done(&s->verity);
	safe_close(s->file);
	free(s->fstype);
}

static int refuse_unsigned(MntLog *log)
{
	int k = mnt_log_add(log, "verity:signature", 'e',
			    "mountd: the policy lets this caller mount signed images only: a "
			    "DDI with a -verity-sig partition, or hashFd, rootHash and "
			    "rootHashSignature");

	mnt_log_fail(log, "verity:signature");
	return k < 0 ? k : -EKEYREJECTED;
}

/* EROFS mounts a regular file as it is (6.12's file-backed mode): the
 * kernel opens the name it is given, here that of mountd's own read-only
 * file description of the caller's fd (the reader), through mountd's /proc. */
static bool erofs_file(const char *fstype, int reader)
{
	struct stat st;

	return streq(fstype, "erofs") && fstat(reader, &st) >= 0 && S_ISREG(st.st_mode);
}

static int image_verity(const OpsCreateRequest *r, int reader, const Ddi *ddi, bool signed_only,
			ImageSource *s, const char **ret_source, MntLog *log)
{
	_cleanup_free_ void *sig = NULL;
	VerityRequest vr = {.hash_fd = r->image.hash_fd,
			    .root_hash = r->image.root_hash,
			    .signed_only = signed_only};
	int k;

	if (r->image.root_hash_signature &&
	    base64_decode(r->image.root_hash_signature, &sig, &vr.signature_size) < 0) {
		mnt_log_fail(log, "verity:signature");
		return -EBADMSG;
	}
	vr.signature = sig;
	k = verity_attach(r->image.fd, reader, ddi, &vr, &s->verity, r->fstype ? NULL : &s->fstype,
			  log);
	if (k < 0)
		return k;
	*ret_source = s->verity.node;
	return 0;
}

static int image_source(const OpsCreateRequest *r, bool signed_only, ImageSource *s,
			const char **ret_source, MntLog *log)
{
	_cleanup_close_ int reader = -EBADF;
	bool whole = !r->image.partition && !r->image.partition_type;
	const char *fstype = r->fstype;
	uint64_t start = mnt_step_start();
	Ddi ddi;
	int k;

	/* One file description of mountd's own reads the image for every
	 * look at it.  Where there is none, the loop device's step says why. */
	k = loopdev_image_reader(r->image.fd, &reader);
	if (r->image.hash_fd >= 0) {
		if (mnt_log_result(log, "verity:image", start, k) < 0)
			return k;
		return image_verity(r, reader, NULL, signed_only, s, ret_source, log);
	}
	if (whole && reader >= 0) {
		k = verity_ddi_probe(reader, &ddi, log);
		if (k < 0)
			return k;
		if (k > 0)
			return image_verity(r, reader, &ddi, signed_only, s, ret_source, log);
	}
	if (signed_only)
		return refuse_unsigned(log);
	if (whole && reader >= 0) {
		/* The type decides whether a loop device is needed at all. */
		if (!fstype) {
			start = mnt_step_start();
			k = loopdev_probe_fstype(reader, 0, 0, &s->fstype, log);
			if (mnt_log_result(log, "probe", start, k) < 0)
				return k;
			fstype = s->fstype;
		}
		if (erofs_file(fstype, reader)) {
			s->file = TAKE_FD(reader);
			snprintf(s->file_name, sizeof(s->file_name), "/proc/self/fd/%d", s->file);
			*ret_source = s->file_name;
			return mnt_log_result(log, "erofs:file", mnt_step_start(), 0);
		}
	}
	/* The caller opened the image; the loop device over it is mountd's
	 * to make (/dev/loop-control is root's). */
	k = loopdev_attach(r->image.fd, reader, r->image.partition, r->image.partition_type,
			   &s->loop, fstype ? NULL : &s->fstype, log);
	if (k < 0)
		return k;
	*ret_source = s->loop.node;
	return 0;
}

/* image_source(), or with loop_only a loop device over the whole image
 * (file-backed EROFS refused by the file's filesystem), with the devices
 * it makes counted against a caller who is not root
 * (sys-device-ledger.h): the lock on the caller's records is held from
 * the count to the record, and a device past the limit is dropped again
 * with the request. */
static int image_source_counted(const OpsCreateRequest *r, bool loop_only, ImageSource *s,
				const char **ret_source, MntLog *log)
{
	_cleanup_(device_ledger_close) DeviceLedger ledger = DEVICE_LEDGER_NULL;
	uid_t principal;
	int k;

	if (rights_principal(&principal)) {
		k = device_ledger_open(principal, &ledger, log);
		if (k < 0)
			return k;
	}
	if (loop_only) {
		k = loopdev_attach(r->image.fd, -EBADF, 0, NULL, &s->loop, NULL, log);
		*ret_source = s->loop.node;
	} else
		k = image_source(r, rights_images_signed_only(), s, ret_source, log);
	if (k < 0)
		return k;
	if (s->verity.fd >= 0)
		/* Its loop devices go with it. */
		return device_ledger_add(&ledger, s->verity.fd, s->verity.devices, log);
	if (s->loop.fd >= 0)
		return device_ledger_add(&ledger, s->loop.fd, 1, log);
	return 0;
}

int ops_create(const OpsCreateRequest *r, OpsMountResult *ret, MntLog *log)
{
	_cleanup_(image_source_done)
		ImageSource img = {.loop = LOOPDEV_NULL, .verity = VERITY_DEV_NULL, .file = -EBADF};
	_cleanup_free_ char *reply_fstype = NULL, *reply_loop = NULL, *reply_hash = NULL,
			    *reply_signer = NULL;
	const char *fstype = r->fstype, *source = r->source;
	/* Made in the caller's own user namespace (create_mount()): for
	 * ops_finish_mount(), whose mounts of superblocks the caller did not
	 * make are the ones to lock. */
	int k, mnt_fd;

	*ret = (OpsMountResult){.mount_fd = -EBADF};

	if (r->image.fd >= 0) {
		RightsSaved saved = rights_suspend();

		k = image_source_counted(r, false, &img, &source, log);
		rights_resume(&saved);
		if (k < 0)
			return k;
		fstype = fstype ?: img.fstype;
	}

	/* What the reply says, had before anything is mounted: no mount is
	 * left behind for an answer that could not be written. */
	reply_fstype = strdup(fstype);
	reply_loop = img.loop.node ? strdup(img.loop.node) : NULL;
	reply_hash = img.verity.root_hash ? strdup(img.verity.root_hash) : NULL;
	reply_signer = img.verity.signer ? strdup(img.verity.signer) : NULL;
	if (!reply_fstype || (img.loop.node && !reply_loop) ||
	    (img.verity.root_hash && !reply_hash) || (img.verity.signer && !reply_signer))
		return -ENOMEM;

	mnt_fd = create_mount(r, fstype, source, img.verity.name != NULL, log);
	if (mnt_fd == -ENOTBLK && img.file >= 0) {
		/* EROFS reads a file itself only where its filesystem reads
		 * folios (not tmpfs): there a loop device it is. */
		RightsSaved saved = rights_suspend();

		mnt_log_fail_instead(log, "");
		k = mnt_log_add(
			log, "erofs:file", 'i',
			"mountd: EROFS cannot read this file itself; through a loop device");
		if (k >= 0)
			k = image_source_counted(r, true, &img, &source, log);
		rights_resume(&saved);
		if (k < 0)
			return k;
		reply_loop = strdup(img.loop.node);
		if (!reply_loop)
			return -ENOMEM;
		/* EROFS is read-only: so is its superblock on the device. */
		mnt_fd = create_mount(r, fstype, source, true, log);
	}
	if (mnt_fd < 0) {
		/* A block that does not match the tree failed it. */
		if (verity_corrupted(&img.verity)) {
			k = mnt_log_add(log, "verity:data", 'e',
					"dm-verity: the image's data does not match its root hash");
			mnt_log_fail_instead(log, "verity:data");
			return k < 0 ? k : -EBADMSG;
		}
		return mnt_fd;
	}
	test_stop_at("fsmount");
	k = ops_finish_mount(mnt_fd, &r->place, ret, log);
	if (k < 0)
		return k;
	ret->fstype = TAKE_PTR(reply_fstype);
	ret->loop_device = TAKE_PTR(reply_loop);
	ret->verity_root_hash = TAKE_PTR(reply_hash);
	ret->verity_signer = TAKE_PTR(reply_signer);
	/* The loop device stays as long as the mount uses it (autoclear);
	 * loopdev_done() only drops our own reference. */
	return 0;
}
