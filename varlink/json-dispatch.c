/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table-driven JSON → C struct decoding; see json-dispatch.h. */

#include <inttypes.h>
#include <limits.h>

#include "json-dispatch.h"
#include "util.h"

static bool type_matches(JsonFieldType t, json_object *v)
{
	switch (t) {
	case JSON_T_ANY:
		return true;
	case JSON_T_STRING:
		return json_object_is_type(v, json_type_string);
	case JSON_T_INTEGER:
		return json_object_is_type(v, json_type_int);
	case JSON_T_UNSIGNED:
		/* json-c keeps values above INT64_MAX as uint64; negative
		 * values are rejected here so callbacks can read them as such. */
		return json_object_is_type(v, json_type_int) &&
		       (json_object_get_int64(v) >= 0 || json_object_get_uint64(v) > INT64_MAX);
	case JSON_T_BOOLEAN:
		return json_object_is_type(v, json_type_boolean);
	case JSON_T_OBJECT:
		return json_object_is_type(v, json_type_object);
	case JSON_T_ARRAY:
		return json_object_is_type(v, json_type_array);
	}
	return false;
}

static const JsonDispatch *table_find(const JsonDispatch table[], const char *name)
{
	for (const JsonDispatch *e = table; e->name; e++)
		if (streq(e->name, name))
			return e;
	return NULL;
}

int json_dispatch(json_object *obj, const JsonDispatch table[], void *userdata,
		  const char **ret_bad_field)
{
	const char *dummy;
	if (!ret_bad_field)
		ret_bad_field = &dummy;
	*ret_bad_field = NULL;

	/* A missing "parameters" is the same as {}. */
	if (obj && !json_object_is_type(obj, json_type_object))
		return -EBADMSG;

	if (obj) {
		json_object_object_foreach(obj, key, v)
		{
			const JsonDispatch *e = table_find(table, key);
			if (!e) {
				*ret_bad_field = key;
				return -EBADMSG;
			}
			if (!v) {
				if (!(e->flags & JSON_NULLABLE)) {
					*ret_bad_field = e->name;
					return -EINVAL;
				}
			} else if (!type_matches(e->type, v)) {
				*ret_bad_field = e->name;
				return -EINVAL;
			}
			if (!e->callback)
				continue;
			const char *bad = NULL;
			int r = e->callback(e, v, (uint8_t *)userdata + e->offset, &bad);
			if (r < 0) {
				*ret_bad_field = bad ?: e->name;
				return r;
			}
		}
	}

	for (const JsonDispatch *e = table; e->name; e++)
		if ((e->flags & JSON_MANDATORY) &&
		    (!obj || !json_object_object_get_ex(obj, e->name, NULL))) {
			*ret_bad_field = e->name;
			return -ENOENT;
		}
	return 0;
}

void json_dispatch_done(const JsonDispatch table[], void *userdata)
{
	for (const JsonDispatch *e = table; e->name; e++) {
		void *p = (uint8_t *)userdata + e->offset;
		if (e->callback == json_dispatch_string) {
			char **s = p;
			free(*s);
			*s = NULL;
		} else if (e->callback == json_dispatch_strv) {
			char ***l = p;
			*l = strv_free(*l);
		} else if (e->callback == json_dispatch_json) {
			json_object **j = p;
			json_object_put(*j);
			*j = NULL;
		} else if (e->callback == json_dispatch_object)
			json_dispatch_done(e->data, p);
	}
}

/* Checks a string value and returns it with its length. */
static int string_check(const JsonDispatch *e, json_object *v, const char **ret)
{
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;

	const char *s = json_object_get_string(v);
	size_t len = (size_t)json_object_get_string_len(v);
	/* "\u0000" decodes to an embedded NUL, which C strings cannot carry:
	 * refuse it rather than silently truncating a path or a name. */
	if (strlen(s) != len)
		return -EINVAL;
	if (e->max > 0 && len > (uint64_t)e->max)
		return -ERANGE;
	*ret = s;
	return 0;
}

int json_dispatch_string(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	char **out = p;
	const char *s = NULL;

	if (v) {
		int r = string_check(e, v, &s);
		if (r < 0)
			return r;
	}
	return free_and_strdup(out, s);
}

int json_dispatch_const_string(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	const char **out = p;
	const char *s = NULL;

	if (v) {
		int r = string_check(e, v, &s);
		if (r < 0)
			return r;
	}
	*out = s;
	return 0;
}

int json_dispatch_strv(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	char ***out = p;

	if (!v) {
		*out = strv_free(*out);
		return 0;
	}
	if (!json_object_is_type(v, json_type_array))
		return -EINVAL;

	size_t n = json_object_array_length(v);
	if (e->min > 0 && n > (uint64_t)e->min)
		return -ERANGE;

	_cleanup_strv_free_ char **l = calloc(n + 1, sizeof(char *));
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *s;
		int r = string_check(e, json_object_array_get_idx(v, i), &s);
		if (r < 0)
			return r;
		l[i] = strdup(s);
		if (!l[i])
			return -ENOMEM;
	}
	strv_free(*out);
	*out = TAKE_PTR(l);
	return 0;
}

/* Reads an integer of either sign and checks it against [lo, hi], where the
 * entry's own bounds (each if set) narrow the C type's. */
static int signed_check(const JsonDispatch *e, json_object *v, int64_t lo, int64_t hi, int64_t *ret)
{
	if (!json_object_is_type(v, json_type_int))
		return -EINVAL;
	int64_t x = json_object_get_int64(v);
	/* json-c saturates uint64 values above INT64_MAX */
	if (x == INT64_MAX && json_object_get_uint64(v) > INT64_MAX)
		return -ERANGE;
	if (e->min != 0)
		lo = MAX(lo, e->min);
	if (e->max != 0)
		hi = MIN(hi, e->max);
	if (x < lo || x > hi)
		return -ERANGE;
	*ret = x;
	return 0;
}

static int unsigned_check(const JsonDispatch *e, json_object *v, uint64_t hi, uint64_t *ret)
{
	uint64_t lo = 0;

	if (!json_object_is_type(v, json_type_int))
		return -EINVAL;
	if (json_object_get_int64(v) < 0)
		return -ERANGE;
	uint64_t x = json_object_get_uint64(v);
	if (e->min > 0)
		lo = (uint64_t)e->min;
	if (e->max > 0)
		hi = MIN(hi, (uint64_t)e->max);
	if (x < lo || x > hi)
		return -ERANGE;
	*ret = x;
	return 0;
}

int json_dispatch_int64(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	int64_t x;
	if (!v)
		return 0;
	int r = signed_check(e, v, INT64_MIN, INT64_MAX, &x);
	if (r < 0)
		return r;
	*(int64_t *)p = x;
	return 0;
}

int json_dispatch_int(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	int64_t x;
	if (!v)
		return 0;
	int r = signed_check(e, v, INT_MIN, INT_MAX, &x);
	if (r < 0)
		return r;
	*(int *)p = (int)x;
	return 0;
}

int json_dispatch_uint64(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	uint64_t x;
	if (!v)
		return 0;
	int r = unsigned_check(e, v, UINT64_MAX, &x);
	if (r < 0)
		return r;
	*(uint64_t *)p = x;
	return 0;
}

int json_dispatch_uint32(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	uint64_t x;
	if (!v)
		return 0;
	int r = unsigned_check(e, v, UINT32_MAX, &x);
	if (r < 0)
		return r;
	*(uint32_t *)p = (uint32_t)x;
	return 0;
}

int json_dispatch_boolean(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_boolean))
		return -EINVAL;
	*(bool *)p = json_object_get_boolean(v);
	return 0;
}

int json_dispatch_fd_index(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	uint64_t x;
	if (!v) {
		*(int *)p = -1;
		return 0;
	}
	/* Only the index is checked here: whether that many fds came with
	 * the message is known to the caller (varlink_call_peek_fd()). */
	static const JsonDispatch range = {.max = JSON_DISPATCH_FD_INDEX_MAX};
	int r = unsigned_check(&range, v, JSON_DISPATCH_FD_INDEX_MAX, &x);
	if (r < 0)
		return r;
	*(int *)p = (int)x;
	return 0;
}

int json_dispatch_enum(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	const char *const *names = e->data;
	const char *s;

	if (!v)
		return 0;
	int r = string_check(e, v, &s);
	if (r < 0)
		return r;
	for (int i = 0; names && names[i]; i++)
		if (streq(names[i], s)) {
			*(int *)p = i;
			return 0;
		}
	return -EINVAL;
}

int json_dispatch_object(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_object))
		return -EINVAL;
	return json_dispatch(v, e->data, p, bad);
}

int json_dispatch_json(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	json_object **out = p;

	json_object_put(*out);
	*out = v ? json_object_get(v) : NULL;
	return 0;
}
