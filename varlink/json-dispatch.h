/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Table-driven decoding of a JSON object into a C struct, one table per
 * method (after systemd's sd_json_dispatch).  Each table entry names a field,
 * the JSON type it must have, a callback that converts the value into the
 * struct member at `offset`, and flags.  Fields not in the table are refused,
 * so a method never sees parameters it does not understand.
 *
 *	struct create_req { char *fstype; uint32_t flags; char **options; int fd; };
 *	static const JsonDispatch create_table[] = {
 *		JSON_FIELD("fstype", JSON_T_STRING, json_dispatch_string,
 *			   offsetof(struct create_req, fstype), JSON_MANDATORY, .max = 64),
 *		JSON_FIELD("flags", JSON_T_UNSIGNED, json_dispatch_uint32,
 *			   offsetof(struct create_req, flags), 0),
 *		JSON_FIELD("options", JSON_T_ARRAY, json_dispatch_strv,
 *			   offsetof(struct create_req, options), JSON_NULLABLE),
 *		JSON_FIELD("fd", JSON_T_UNSIGNED, json_dispatch_fd_index,
 *			   offsetof(struct create_req, fd), 0),
 *		{}
 *	};
 *	struct create_req req = { .fd = -1 };
 *	const char *bad;
 *	r = json_dispatch(params, create_table, &req, &bad);
 *	...
 *	json_dispatch_done(create_table, &req);   // frees what the callbacks allocated
 *
 * Return values of json_dispatch() (ret_bad_field names the field for all but
 * -ENOMEM; it points into the table or into the JSON object's keys, so it is
 * valid while both live):
 *	-EBADMSG  a field not in the table (or obj is not an object: field NULL)
 *	-ENOENT   a JSON_MANDATORY field is missing
 *	-EINVAL   wrong JSON type (null without JSON_NULLABLE included) or invalid
 *	          value (embedded NUL, unknown enum name, ...)
 *	-ERANGE   number or length outside [min, max]
 *	-ENOMEM
 * For nested objects the innermost field is named.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

typedef struct JsonDispatch JsonDispatch;

typedef enum JsonFieldType {
	JSON_T_ANY = 0,
	JSON_T_STRING,
	JSON_T_INTEGER,	 /* signed integer (no fractions) */
	JSON_T_UNSIGNED, /* integer >= 0 */
	JSON_T_BOOLEAN,
	JSON_T_OBJECT,
	JSON_T_ARRAY,
} JsonFieldType;

typedef enum JsonDispatchFlags {
	JSON_MANDATORY = 1 << 0, /* must be present */
	JSON_NULLABLE = 1 << 1,	 /* null accepted; the callback sees v == NULL */
} JsonDispatchFlags;

/* v is NULL for a JSON null (only with JSON_NULLABLE).  p points to the
 * struct member (userdata + offset).  On failure the callback may set
 * *ret_bad_field (for nested tables); else the entry's name is reported. */
typedef int (*JsonDispatchCallback)(const JsonDispatch *entry, json_object *v, void *p,
				    const char **ret_bad_field);

struct JsonDispatch {
	const char *name; /* NULL terminates the table */
	JsonFieldType type;
	JsonDispatchCallback callback;
	size_t offset;
	JsonDispatchFlags flags;
	/* Ranges: integers: [min, max] within the C type, each bound applying
	 * when set: 0 leaves that side at the C type's limit (so a range that
	 * ends at 0 needs a callback of its own).
	 * Strings and string arrays: max = max length in bytes of each string
	 * (0 = unlimited); arrays also: min = max number of elements (0 = any). */
	int64_t min, max;
	/* json_dispatch_object: the sub-table (const JsonDispatch *);
	 * json_dispatch_enum: NULL-terminated const char *const[] of names. */
	const void *data;
};

/* One table entry with designated initializers (plain positional ones that
 * omit min/max/data trip -Wmissing-field-initializers); extras go last:
 * JSON_FIELD("size", JSON_T_UNSIGNED, json_dispatch_uint64, offsetof(T, size), 0, .max = 1024) */
#define JSON_FIELD(_name, _type, _callback, _offset, _flags, ...)                               \
	{                                                                                       \
		.name = (_name), .type = (_type), .callback = (_callback), .offset = (_offset), \
		.flags = (_flags), __VA_ARGS__                                                  \
	}

int json_dispatch(json_object *obj, const JsonDispatch table[], void *userdata,
		  const char **ret_bad_field);

/* Frees what the standard callbacks allocated (strings, string arrays, json
 * refs, nested tables) and resets those members; safe after a failed or
 * partial json_dispatch and on a zero-initialised struct. */
void json_dispatch_done(const JsonDispatch table[], void *userdata);

/* Standard callbacks; each comment gives the member type it writes. */
/* char *: strdup'd copy; null → NULL */
int json_dispatch_string(const JsonDispatch *e, json_object *v, void *p, const char **bad);
/* const char *: borrowed from the JSON object */
int json_dispatch_const_string(const JsonDispatch *e, json_object *v, void *p, const char **bad);
/* char **: NULL-terminated copies; null → NULL */
int json_dispatch_strv(const JsonDispatch *e, json_object *v, void *p, const char **bad);
/* int64_t */
int json_dispatch_int64(const JsonDispatch *e, json_object *v, void *p, const char **bad);
/* int */
int json_dispatch_int(const JsonDispatch *e, json_object *v, void *p, const char **bad);
/* uint64_t */
int json_dispatch_uint64(const JsonDispatch *e, json_object *v, void *p, const char **bad);
/* uint32_t */
int json_dispatch_uint32(const JsonDispatch *e, json_object *v, void *p, const char **bad);
/* bool */
int json_dispatch_boolean(const JsonDispatch *e, json_object *v, void *p, const char **bad);
/* int: index into the call's fds; null → -1 */
int json_dispatch_fd_index(const JsonDispatch *e, json_object *v, void *p, const char **bad);
/* int: index of the name in e->data */
int json_dispatch_enum(const JsonDispatch *e, json_object *v, void *p, const char **bad);
/* nested struct, decoded with the e->data sub-table */
int json_dispatch_object(const JsonDispatch *e, json_object *v, void *p, const char **bad);
/* json_object *: a new reference to the value */
int json_dispatch_json(const JsonDispatch *e, json_object *v, void *p, const char **bad);

/* Largest fd index accepted (SCM_MAX_FD - 1). */
#define JSON_DISPATCH_FD_INDEX_MAX 252
