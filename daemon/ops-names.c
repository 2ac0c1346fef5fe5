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

#define NAME(name, value)  name,
#define VALUE(name, value) value,
static const char *const atime_names[] = {MOUNT_ATIME_MODES(NAME)};
static const uint64_t atime_flags[] = {MOUNT_ATIME_MODES(VALUE)};
#undef NAME
#undef VALUE

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

/* A watch's stream: the events of ops-watch.c between "ready" and "gone". */
static const char *const watch_event_names[] = {"ready", "added", "removed", "changed", "gone"};

#define ENUM_NAMES(a)                            \
	{                                        \
		.names = (a), .n = ELEMENTSOF(a) \
	}
const OpsEnumNames ops_propagation_enum = ENUM_NAMES(propagation_names);
const OpsEnumNames ops_create_enum = ENUM_NAMES(create_names);
const OpsEnumNames ops_param_type_enum = ENUM_NAMES(mnt_param_type_names);
const OpsEnumNames ops_atime_enum = ENUM_NAMES(atime_names);
const OpsEnumNames ops_info_source_enum = ENUM_NAMES(ops_info_source_names);
const OpsEnumNames ops_watch_event_enum = ENUM_NAMES(watch_event_names);

int ops_enum_from_string(const OpsEnumNames *e, const char *s)
{
	for (size_t i = 0; s && i < e->n; i++)
		if (e->names[i] && streq(e->names[i], s))
			return (int)i;
	return -EINVAL;
}

static int lookup(const char *const *names, int n, const char *s)
{
	return ops_enum_from_string(&(OpsEnumNames){.names = names, .n = (size_t)n}, s);
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

const char *ops_watch_event_to_string(OpsWatchEventType t)
{
	_Static_assert(OPS_WATCH_ADDED == 0 && OPS_WATCH_REMOVED == 1 && OPS_WATCH_CHANGED == 2,
		       "watch_event_names[1 + t]");
	return (size_t)t < 3 ? watch_event_names[1 + t] : NULL;
}
