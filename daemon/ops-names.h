/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The names the front ends use for the values of the operations' requests
 * and results (attribute and enum names, error names), kept in one place so
 * that varlink and D-Bus spell them the same and decode them the same way.
 * The strings are those of daemon/io.mountd.Mount.varlink.
 */

#include <stdbool.h>
#include <stdint.h>

#include "mnt.h"
#include "ops.h"

/* Per-mount boolean attributes ("readOnly" → MOUNT_ATTR_RDONLY, ...);
 * terminated by { NULL, 0 }. */
typedef struct OpsAttributeName {
	const char *name;
	uint64_t flag;
} OpsAttributeName;

extern const OpsAttributeName ops_attribute_names[];

/* "readOnly": true sets the bit, false clears it.  -EINVAL for an unknown
 * name. */
int ops_attributes_set_flag(OpsAttributes *a, const char *name, bool value);
/* "relatime", "noatime", "strictatime". */
int ops_attributes_set_atime(OpsAttributes *a, const char *name);
/* The atime mode of a MOUNT_ATTR_* set, by name. */
const char *ops_atime_to_string(uint64_t attr);

/* "private", "shared", "slave", "unbindable"; OPS_PROPAGATION_UNCHANGED has
 * no name. */
int ops_propagation_from_string(const char *s);
/* "added", "removed", "changed". */
const char *ops_watch_event_to_string(OpsWatchEventType t);
/* "directory", "file". */
int mnt_create_from_string(const char *s);
/* "flag", "string", "binary", "path", "path_empty", "fd". */
int mnt_param_type_from_string(const char *s);

/*
 * How a failed operation is reported.  Both front ends map the same way:
 *   -ENOMEM                           → OPS_ERROR_NO_MEMORY
 *   a failed step in log->failed_step → OPS_ERROR_MOUNT_FAILED
 *   -EPERM/-EACCES (no step)          → OPS_ERROR_PERMISSION_DENIED
 *   anything else                     → OPS_ERROR_INTERNAL
 * (-ENOSYS/-EOPNOTSUPP of Info → OPS_ERROR_NOT_SUPPORTED is decided by the
 * Info method itself; validation failures are InvalidParameter.)
 */
typedef enum OpsErrorKind {
	OPS_ERROR_NO_MEMORY,
	OPS_ERROR_MOUNT_FAILED,
	OPS_ERROR_PERMISSION_DENIED,
	OPS_ERROR_INTERNAL,
} OpsErrorKind;

OpsErrorKind ops_error_kind(int r, const MntLog *log);
