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

#include "executor-caller-sb.h"
#include "ops-fs-params.h"
#include "sys-loopdev.h"
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
	ops_placement_done(&r->place);
	*r = (OpsCreateRequest){.image.fd = -EBADF};
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

/* A parameter of a superblock the caller makes is set by its helper: paths
 * are looked up in its namespaces, where CMD_CREATE will look for them. */
static int set_param(CallerSb *helper, int fs_fd, const MntParam *p, MntLog *log)
{
	if (helper->pid > 0)
		return caller_sb_param(helper, fs_fd, p, log);
	return mnt_fsconfig_param(fs_fd, p, log);
}

static int create_mount(const OpsCreateRequest *r, const char *fstype, const char *source,
			MntLog *log)
{
	_cleanup_close_ int fs_fd = -EBADF, mnt_fd = -EBADF;
	_cleanup_(caller_sb_done) CallerSb helper = CALLER_SB_NULL;
	_cleanup_close_ int userns = -EBADF;
	_cleanup_free_ char *device = NULL;
	RightsSaved saved;
	bool needs_device, by_caller;
	uid_t uid;
	gid_t gid;
	int k;

	/* A superblock that remembers its maker is a non-root caller's own
	 * (executor-caller-sb.h): in its container's user namespace, else in a new
	 * one of its own. */
	by_caller = rights_caller(&uid, &gid) && caller_sb_needed(fstype);
	if (by_caller) {
		userns = rights_callers_userns();
		if (userns < 0 && userns != -EPERM)
			return mnt_log_result(log, "as-caller", mnt_step_start(), userns);
	}
	if (by_caller)
		k = caller_sb_fsopen(fstype, userns, &helper, &fs_fd, log);
	else
		k = fs_fd = mnt_fsopen(fstype, log);
	if (k < 0)
		return k;
	needs_device = source && fstype_needs_device(fstype);
	/* A device the caller names is one it opens itself; the kernel is
	 * given the device's own name. */
	if (needs_device && source == r->source) {
		k = rights_open_device(source, has_param(r, "ro"), &device);
		if (k < 0) {
			mnt_log_fail(log, "source");
			return k;
		}
		if (device)
			source = device;
	}
	if (source) {
		MntParam p = {.type = MNT_PARAM_STRING,
			      .key = (char *)"source",
			      .value = (char *)source,
			      .fd = -EBADF};

		/* Not on a device, the source is a label to the filesystems
		 * mountd knows; one it does not may look it up. */
		if (!needs_device && source == r->source && rights_caller(&uid, &gid) &&
		    !fs_param_known_fstype(fstype)) {
			k = mnt_log_add(log, "fsconfig:source", 'e',
					"mountd: only root may give a source to a filesystem "
					"whose parameters mountd does not know");
			mnt_log_fail(log, "fsconfig:source");
			return k < 0 ? k : -EPERM;
		}
		k = set_param(&helper, fs_fd, &p, log);
		if (k < 0)
			return k;
	}
	for (size_t i = 0; i < r->n_params; i++) {
		_cleanup_close_ int param_fd = -EBADF;
		char number[OPS_FD_NUMBER_MAX];
		MntParam p;

		k = ops_param_for_caller(fstype, &r->params[i], has_param(r, "ro"), &p, &param_fd,
					 number, log);
		if (k < 0)
			return k;
		k = set_param(&helper, fs_fd, &p, log);
		if (k < 0)
			return k;
	}
	/* What FUSE asks of a user, once each parameter passed its own step. */
	if (ops_fuse_fstype(fstype)) {
		k = ops_fuse_check_create(r->params, r->n_params, log);
		if (k < 0)
			return k;
	}
	/* The parameters' paths were resolved with the caller's rights as
	 * they were set (by its helper, for a superblock it makes).  The superblock is the caller's
	 * to make where it remembers its maker, else mountd's, as any mount it makes.  A block
	 * device's name is looked up now, in mountd's own root: the target's
	 * /dev may be a user's. */
	CreateCmd args = {fs_fd, r->exclusive ? FSCONFIG_CMD_CREATE_EXCL : FSCONFIG_CMD_CREATE,
			  log};
	if (by_caller)
		k = caller_sb_create(&helper, fs_fd, args.cmd, log);
	else {
		saved = rights_suspend();
		k = needs_device ? worker_in_host_root(cmd_create, &args) : cmd_create(&args);
		rights_resume(&saved);
	}
	caller_sb_done(&helper);
	if (k < 0)
		return k;

	struct mount_attr a;
	ops_attributes_to_mount_attr(&r->attr, &a);
	mnt_fd = mnt_fsmount(fs_fd, (unsigned)a.attr_set, log);
	if (mnt_fd < 0)
		return mnt_fd;

	if (a.propagation) {
		struct mount_attr p = {.propagation = a.propagation};
		k = mnt_setattr(mnt_fd, "", AT_EMPTY_PATH, &p, log);
		if (k < 0)
			return k;
	}
	return TAKE_FD(mnt_fd);
}

int ops_create(const OpsCreateRequest *r, OpsMountResult *ret, MntLog *log)
{
	_cleanup_(loopdev_donep) LoopDev loop = LOOPDEV_NULL;
	_cleanup_free_ char *probed = NULL, *reply_fstype = NULL, *reply_loop = NULL;
	const char *fstype = r->fstype, *source = r->source;
	int k, mnt_fd;

	*ret = (OpsMountResult){.mount_fd = -EBADF};

	if (r->image.fd >= 0) {
		/* The caller opened the image; the loop device over it is
		 * mountd's to make (/dev/loop-control is root's). */
		RightsSaved saved = rights_suspend();

		k = loopdev_attach(r->image.fd, r->image.partition, r->image.partition_type, &loop,
				   fstype ? NULL : &probed, log);
		rights_resume(&saved);
		if (k < 0)
			return k;
		fstype = fstype ?: probed;
		source = loop.node;
	}

	/* What the reply says, had before anything is mounted: no mount is
	 * left behind for an answer that could not be written. */
	reply_fstype = strdup(fstype);
	reply_loop = loop.node ? strdup(loop.node) : NULL;
	if (!reply_fstype || (loop.node && !reply_loop))
		return -ENOMEM;

	mnt_fd = create_mount(r, fstype, source, log);
	if (mnt_fd < 0)
		return mnt_fd;
	test_stop_at("fsmount");
	k = ops_finish_mount(mnt_fd, &r->place, ret, log);
	if (k < 0)
		return k;
	ret->fstype = TAKE_PTR(reply_fstype);
	ret->loop_device = TAKE_PTR(reply_loop);
	/* The loop device stays as long as the mount uses it (autoclear);
	 * loopdev_done() only drops our own reference. */
	return 0;
}
