/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * polkit as the second authority, after the policy file: where no rule of
 * mountd.policy(5) decided a non-root caller's change, polkit is asked
 * whether the caller may, for one of mountd's actions
 * (units/io.mountd.policy):
 *
 *	io.mountd.mount-own-container   in a namespace the caller's user owns
 *	io.mountd.mount-signed-image    an image a trusted key signed (asked
 *	                                first: a caller allowed it is held to
 *	                                signed images, sys-verity.h)
 *	io.mountd.mount-image           any filesystem image, anywhere
 *	io.mountd.mount-other-namespace any other namespace (the host's too)
 *
 * The question is asynchronous: the loop goes on serving others while
 * polkit (or the user at an authentication prompt) answers.  Without a
 * system bus or polkitd, mountd is policy-file only.
 */

#include <stdbool.h>

#include <systemd/sd-event.h>

#include "authorize.h"

typedef struct PolkitQuery PolkitQuery;

/* authorized: 1 yes, 0 no, negative errno when polkit could not answer. */
typedef void (*PolkitDone)(int authorized, void *userdata);

/* Connects to the system bus; 0, or negative when there is none (then
 * polkit_check() answers -ENOTCONN). */
int polkit_setup(sd_event *event);
void polkit_shutdown(void);

/* Asks; done runs once, later, never from within this call.  0 when
 * asked, negative errno when not (done does not run).  details: key,
 * value, ..., NULL: what the request wants, for the rules to look at
 * (action.lookup(KEY) in /etc/polkit-1/rules.d; mountd(8) lists them). */
int polkit_check(const AuthCaller *caller, const char *action, char *const *details,
		 bool interactive, PolkitDone done, void *userdata);
