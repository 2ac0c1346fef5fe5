/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The errors mountd answers, described once for both front ends: the
 * varlink name (declared in io.mountd.Mount.varlink; tests/unit/test-ops-table
 * holds the two together), the D-Bus name, and the one string a D-Bus error
 * carries, made from the varlink error's parameters.  Which error a failure
 * becomes is ops_error_encode()'s (ops-table.h).
 */

#include <stddef.h>

#include <json-c/json.h>

#define OPS_ERROR_NAME_MOUNT_FAILED	 "io.mountd.Mount.MountFailed"
#define OPS_ERROR_NAME_NOT_SUPPORTED	 "io.mountd.Mount.NotSupported"
#define OPS_ERROR_NAME_INTERNAL		 "io.mountd.Mount.InternalError"
#define OPS_ERROR_NAME_PERMISSION	 "io.mountd.Mount.PermissionDenied"
#define OPS_ERROR_NAME_LIMIT		 "io.mountd.Mount.LimitExceeded"
#define OPS_ERROR_NAME_TOO_LARGE	 "io.mountd.Mount.MessageTooLarge"
#define OPS_ERROR_NAME_REPLY_TOO_LARGE	 "io.mountd.Mount.ReplyTooLarge"
#define OPS_ERROR_NAME_INVALID_PARAMETER "org.varlink.service.InvalidParameter"

typedef struct OpsError {
	const char *name;
	/* NULL for the transport's own errors, which only varlink answers
	 * (D-Bus has its own message limits and says so itself). */
	const char *bus_name;
	/* The D-Bus error's text from the varlink error's parameters. */
	int (*bus_text)(json_object *params, char **ret);
} OpsError;

extern const OpsError ops_errors[];
extern const size_t ops_errors_n;

/* The entry of a varlink error name; NULL if mountd does not answer it. */
const OpsError *ops_error_find(const char *name);
