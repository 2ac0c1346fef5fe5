/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The io.mountd.Mount varlink interface, served from the operation table
 * (ops-table.h) through request.c.
 */

#include "varlink.h"

extern const char io_mountd_mount_idl[];

int varlink_mount_register(VarlinkServer *s);
