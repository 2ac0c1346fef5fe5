/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the ops-table*.c files share, and no other file needs. */

#include "ops-table.h"

/* The request field tables (ops-table-decode.c) of the methods in
 * ops_methods[] (ops-table.c). */
extern const JsonDispatch ops_create_fields[];
extern const JsonDispatch ops_bind_fields[];
extern const JsonDispatch ops_reconfigure_fields[];
extern const JsonDispatch ops_setattr_fields[];
extern const JsonDispatch ops_move_fields[];
extern const JsonDispatch ops_unmount_fields[];
extern const JsonDispatch ops_info_fields[];
extern const JsonDispatch ops_namespace_only_fields[];

/* The attributes object, one field per MOUNT_ATTRIBUTE_FLAGS() entry and
 * "atime": what the encoders write of a mount's attributes. */
extern const JsonDispatch ops_attributes_fields[];

/* Callbacks the encoders recognize a field by (its IDL type, "atime"). */
int ops_dispatch_enum(const JsonDispatch *e, json_object *v, void *p, const char **bad);
int ops_dispatch_atime(const JsonDispatch *e, json_object *v, void *p, const char **bad);
