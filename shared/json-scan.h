/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Finding where a JSON value ends without parsing it into objects.  The
 * client's List reader (client/libmountd-list.c) skips what it does not
 * read, and mountd cuts a List's reply into parts between its mounts
 * (daemon/front-varlink.c).  The text must be NUL-terminated: a NUL ends
 * every scan, as a failure.
 */

/* Nesting no message of ours comes near; a deeper value is refused, not
 * followed. */
#define JSON_SCAN_DEPTH_MAX 64

/* p past any JSON whitespace. */
const char *json_scan_ws(const char *p);

/* The value at *pp (after whitespace), unread: 0 with *pp just past it, or
 * -EBADMSG (*pp unchanged) for text that is no JSON value. */
int json_scan_value(const char **pp);
