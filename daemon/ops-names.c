/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Names of attribute, enum and error values shared by the front ends; see
 * ops-names.h.
 */

#include <errno.h>
#include <string.h>

#include <linux/mount.h>

#include "ops-names.h"
#include "util.h"

const OpsAttributeName ops_attribute_names[] = {
	{"readOnly", MOUNT_ATTR_RDONLY},
	{"noSuid", MOUNT_ATTR_NOSUID},
	{"noDev", MOUNT_ATTR_NODEV},
	{"noExec", MOUNT_ATTR_NOEXEC},
	{"noDiratime", MOUNT_ATTR_NODIRATIME},
	{"noSymfollow", MOUNT_ATTR_NOSYMFOLLOW},
	{NULL, 0},
};

static const char *const atime_names[] = {"relatime", "noatime", "strictatime"};
static const uint64_t atime_flags[] = {MOUNT_ATTR_RELATIME, MOUNT_ATTR_NOATIME,
				       MOUNT_ATTR_STRICTATIME};

static const char *const propagation_names[_OPS_PROPAGATION_MAX] = {
	[OPS_PROPAGATION_PRIVATE] = "private",
	[OPS_PROPAGATION_SHARED] = "shared",
	[OPS_PROPAGATION_SLAVE] = "slave",
	[OPS_PROPAGATION_UNBINDABLE] = "unbindable",
};

static const char *const create_names[_MNT_CREATE_MAX] = {
	[MNT_CREATE_DIRECTORY] = "directory",
	[MNT_CREATE_FILE] = "file",
};

static int lookup(const char *const *names, int n, const char *s)
{
	for (int i = 0; s && i < n; i++)
		if (names[i] && streq(names[i], s))
			return i;
	return -EINVAL;
}

int ops_attributes_set_flag(OpsAttributes *a, const char *name, bool value)
{
	for (const OpsAttributeName *n = ops_attribute_names; n->name; n++) {
		if (!streq(n->name, name))
			continue;
		if (value)
			a->set |= n->flag;
		else
			a->clear |= n->flag;
		return 0;
	}
	return -EINVAL;
}

int ops_attributes_set_atime(OpsAttributes *a, const char *name)
{
	int i = lookup(atime_names, (int)ELEMENTSOF(atime_names), name);

	if (i < 0)
		return i;
	a->set = (a->set & ~(uint64_t)MOUNT_ATTR__ATIME) | atime_flags[i];
	return 0;
}

const char *ops_atime_to_string(uint64_t attr)
{
	for (size_t i = 0; i < ELEMENTSOF(atime_flags); i++)
		if ((attr & MOUNT_ATTR__ATIME) == atime_flags[i])
			return atime_names[i];
	return "relatime";
}

int ops_propagation_from_string(const char *s)
{
	return lookup(propagation_names, _OPS_PROPAGATION_MAX, s);
}

int mnt_create_from_string(const char *s)
{
	return lookup(create_names, _MNT_CREATE_MAX, s);
}

const char *ops_watch_event_to_string(OpsWatchEventType t)
{
	static const char *const names[] = {
		[OPS_WATCH_ADDED] = "added",
		[OPS_WATCH_REMOVED] = "removed",
		[OPS_WATCH_CHANGED] = "changed",
	};

	return (size_t)t < ELEMENTSOF(names) ? names[t] : NULL;
}

int mnt_param_type_from_string(const char *s)
{
	for (int t = 0; s && t < _MNT_PARAM_TYPE_MAX; t++)
		if (streq(mnt_param_type_to_string((MntParamType)t), s))
			return t;
	return -EINVAL;
}

OpsErrorKind ops_error_kind(int r, const MntLog *log)
{
	if (r == -ENOMEM)
		return OPS_ERROR_NO_MEMORY;
	if (log && log->failed_step[0])
		return OPS_ERROR_MOUNT_FAILED;
	if (r == -EPERM || r == -EACCES)
		return OPS_ERROR_PERMISSION_DENIED;
	return OPS_ERROR_INTERNAL;
}
