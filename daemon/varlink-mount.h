/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The io.mountd.Mount varlink interface: JSON parameters → dispatch tables →
 * Ops*Request → ops_*() → reply.  The parsing helpers are exported for the
 * unit tests.
 */

#include <stddef.h>

#include <json-c/json.h>

#include "mnt.h"
#include "ops.h"
#include "varlink.h"

extern const char io_mountd_mount_idl[];

int varlink_mount_register(VarlinkServer *s);

/* Resolves an fd index of the request to a (borrowed) fd. */
typedef int (*FdLookup)(void *userdata, unsigned index);

/* Parse a "parameters" array into MntParams (fds looked up with lookup; the
 * MntParams own dups of them).  -EINVAL/-ERANGE/-E2BIG with *ret_field. */
int vm_params_from_json(json_object *a, FdLookup lookup, void *userdata, MntParam **ret,
			size_t *ret_n, const char **ret_field);
/* Decode base64 (RFC 4648, padding optional). */
int vm_unbase64(const char *s, void **ret, size_t *ret_size);
