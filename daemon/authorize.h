/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The step between decoding a request and running it, shared by the varlink
 * and D-Bus front ends: work out the facts authorize-policy.c decides on (whose is the
 * target namespace, is it the caller's own) and ask the policy.
 */

#include <stdint.h>
#include <sys/types.h>

#include "ops.h"
#include "authorize-policy.h"

typedef struct OpsMethod OpsMethod; /* ops-table.h, which includes this */

typedef struct AuthCaller {
	PolicyCaller id;
	pid_t pid;
	int pidfd; /* borrowed, -EBADF if the front end has none */
	/* Who per-user limits count this caller against (shared/principal.h):
	 * its uid, or the user whose subuid it is; 0 only for root. */
	uid_t principal;
	/* For the journal record: the caller's comm, borrowed, as the front
	 * end knows it (varlink: read once per connection); NULL: read from
	 * /proc/PID/comm with the answer. */
	const char *comm;
} AuthCaller;

/* The policy mountd runs with. */
extern Policy auth_policy;

/* (Re)load the policy file.  A file that does not parse is reported
 * (stderr: the journal) and changes nothing: the policy loaded before
 * stays; when there was none (start-up), only root is served until a
 * good one is loaded, and every refusal says why.  0 or negative errno. */
int auth_policy_load(const char *path);

/* With an image, *ret_image_signed_only (may be NULL) says whether only
 * a signed one is allowed (image=signed).
 * 0 when caller may call method m on namespace ns (NULL: a
 * request that touches no namespace but the caller's own, e.g. a mount fd
 * returned to it); -EPERM when a deny rule decided, -EACCES when no rule
 * allowed it, either with a line a person can act on in *ret_reason (to be
 * freed; NULL for root, whom no rule binds); other negative errnos when the
 * facts could not be gathered. */
int authorize(const AuthCaller *caller, const OpsMethod *m, const OpsNamespace *ns, bool image,
	      const char *fstype, uint64_t attributes, char **ret_reason,
	      bool *ret_image_signed_only);
