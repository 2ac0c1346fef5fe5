/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The names the front ends use for the values of the operations' requests
 * and results (attribute and enum names, error names), kept in one place so
 * that varlink and D-Bus spell them the same and decode them the same way.
 * The strings are those of daemon/io.mountd.Mount.varlink.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys-mnt.h"
#include "mount-entry.h"
#include "ops.h"

/* The names of an enum's values, indexed by value (NULL: a value without a
 * name, such as "unchanged"); the decoders and the IDL check read them. */
typedef struct OpsEnumNames {
	const char *const *names;
	size_t n;
} OpsEnumNames;

extern const OpsEnumNames ops_propagation_enum; /* OpsPropagation */
extern const OpsEnumNames ops_create_enum;	/* MntCreate */
extern const OpsEnumNames ops_param_type_enum;	/* MntParamType */
extern const OpsEnumNames ops_atime_enum;	/* names only: see ops_attributes_set_atime() */
extern const OpsEnumNames ops_info_source_enum; /* OpsInfoSource */
extern const OpsEnumNames ops_watch_event_enum; /* "ready", the OpsWatchEventType names, "gone" */

/* The value of name s, or -EINVAL. */
int ops_enum_from_string(const OpsEnumNames *e, const char *s);

/* "relatime", "noatime", "strictatime". */
int ops_attributes_set_atime(OpsAttributes *a, const char *name);
/* The atime mode of a MOUNT_ATTR_* set, by name. */
const char *ops_atime_to_string(uint64_t attr);

/* "added", "removed", "changed". */
const char *ops_watch_event_to_string(OpsWatchEventType t);
