/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host unit test of varlink/json-dispatch.c; prints TAP. */

#include <stddef.h>

#include "json-dispatch.h"
#include "tap.h"
#include "util.h"

enum { MODE_RO, MODE_RW };
static const char *const mode_names[] = {"ro", "rw", NULL};

struct inner {
	char *source;
	uint64_t size;
};

struct req {
	char *fstype;
	const char *label;
	uint32_t flags;
	uint64_t big;
	int64_t offset;
	int level;
	bool recursive;
	char **options;
	int fd;
	int mode;
	struct inner inner;
	json_object *extra;
};

static const JsonDispatch inner_table[] = {
	JSON_FIELD("source", JSON_T_STRING, json_dispatch_string, offsetof(struct inner, source),
		   JSON_MANDATORY),
	JSON_FIELD("size", JSON_T_UNSIGNED, json_dispatch_uint64, offsetof(struct inner, size), 0),
	{},
};

static const JsonDispatch table[] = {
	JSON_FIELD("fstype", JSON_T_STRING, json_dispatch_string, offsetof(struct req, fstype),
		   JSON_MANDATORY | JSON_NULLABLE, .max = 8),
	JSON_FIELD("label", JSON_T_STRING, json_dispatch_const_string, offsetof(struct req, label),
		   0),
	JSON_FIELD("flags", JSON_T_UNSIGNED, json_dispatch_uint32, offsetof(struct req, flags), 0),
	JSON_FIELD("big", JSON_T_UNSIGNED, json_dispatch_uint64, offsetof(struct req, big), 0),
	JSON_FIELD("offset", JSON_T_INTEGER, json_dispatch_int64, offsetof(struct req, offset), 0),
	JSON_FIELD("level", JSON_T_INTEGER, json_dispatch_int, offsetof(struct req, level), 0,
		   .min = -3, .max = 3),
	JSON_FIELD("recursive", JSON_T_BOOLEAN, json_dispatch_boolean,
		   offsetof(struct req, recursive), 0),
	JSON_FIELD("options", JSON_T_ARRAY, json_dispatch_strv, offsetof(struct req, options),
		   JSON_NULLABLE, .min = 3, .max = 16),
	JSON_FIELD("fd", JSON_T_UNSIGNED, json_dispatch_fd_index, offsetof(struct req, fd),
		   JSON_NULLABLE),
	JSON_FIELD("mode", JSON_T_STRING, json_dispatch_enum, offsetof(struct req, mode), 0,
		   .data = mode_names),
	JSON_FIELD("inner", JSON_T_OBJECT, json_dispatch_object, offsetof(struct req, inner), 0,
		   .data = inner_table),
	JSON_FIELD("extra", JSON_T_ANY, json_dispatch_json, offsetof(struct req, extra), 0),
	{},
};

/* Decodes text with the table; returns the result and the bad field. */
static int run(const char *text, struct req *req, const char **bad)
{
	_cleanup_json_ json_object *j = json_tokener_parse(text);
	static char badbuf[64];

	if (!j) {
		fprintf(stderr, "test bug: unparsable %s\n", text);
		exit(2);
	}
	*req = (struct req){.fd = -2, .mode = -1};
	*bad = NULL;
	int r = json_dispatch(j, table, req, bad);
	/* Bad field names may point into j, which goes away here. */
	if (*bad) {
		snprintf(badbuf, sizeof(badbuf), "%s", *bad);
		*bad = badbuf;
	}
	return r;
}

static void expect_fail(const char *text, int err, const char *field, const char *name)
{
	struct req req;
	const char *bad;
	int r = run(text, &req, &bad);
	json_dispatch_done(table, &req);
	if (r != err || !streq_ptr(bad, field))
		fprintf(stderr, "# %s: got %d (%s), want %d (%s)\n", name, r, strna(bad), err,
			field);
	ok(r == err && streq_ptr(bad, field), name);
}

/* One bound set, the other left 0: that side is open. */
struct bounded {
	uint64_t at_least;
	int64_t signed_at_least;
	int at_most;
};

static const JsonDispatch bounded_table[] = {
	JSON_FIELD("atLeast", JSON_T_UNSIGNED, json_dispatch_uint64,
		   offsetof(struct bounded, at_least), 0, .min = 10),
	JSON_FIELD("signedAtLeast", JSON_T_INTEGER, json_dispatch_int64,
		   offsetof(struct bounded, signed_at_least), 0, .min = 5),
	JSON_FIELD("atMost", JSON_T_INTEGER, json_dispatch_int, offsetof(struct bounded, at_most),
		   0, .max = 3),
	{},
};

static int run_bounded(const char *text)
{
	_cleanup_json_ json_object *j = json_tokener_parse(text);
	struct bounded b = {};
	const char *bad = NULL;

	return j ? json_dispatch(j, bounded_table, &b, &bad) : -EBADMSG;
}

static void test_one_sided_ranges(void)
{
	ok(run_bounded("{\"atLeast\":10}") == 0 &&
		   run_bounded("{\"atLeast\":18446744073709551615}") == 0,
	   "unsigned .min only: at the bound and far above it pass");
	ok(run_bounded("{\"atLeast\":9}") == -ERANGE, "unsigned .min only: below it is refused");
	ok(run_bounded("{\"signedAtLeast\":5}") == 0 &&
		   run_bounded("{\"signedAtLeast\":9223372036854775807}") == 0 &&
		   run_bounded("{\"signedAtLeast\":4}") == -ERANGE,
	   "signed .min only: no upper bound");
	ok(run_bounded("{\"atMost\":3}") == 0 && run_bounded("{\"atMost\":-2147483648}") == 0 &&
		   run_bounded("{\"atMost\":4}") == -ERANGE,
	   "signed .max only: no lower bound but the type's");
}

int main(void)
{
	struct req req;
	const char *bad;
	int r;

	{
		_cleanup_json_ json_object *j = json_tokener_parse(
			"{\"fstype\":\"ext4\",\"label\":\"root\",\"flags\":4294967295,"
			"\"big\":18446744073709551615,\"offset\":-5,\"level\":-3,"
			"\"recursive\":true,\"options\":[\"a\",\"b=c\"],\"fd\":2,\"mode\":\"rw\","
			"\"inner\":{\"source\":\"/dev/vda\",\"size\":7},\"extra\":[1,2]}");
		req = (struct req){.fd = -1};
		r = json_dispatch(j, table, &req, &bad);
		ok(r == 0, "full decode succeeds");
		ok(streq_ptr(req.fstype, "ext4") && streq_ptr(req.label, "root"), "strings");
		ok(req.flags == UINT32_MAX && req.big == UINT64_MAX, "uint32/uint64 at the top");
		ok(req.offset == -5 && req.level == -3, "signed, lower bound inclusive");
		ok(req.recursive, "boolean");
		ok(strv_length(req.options) == 2 && streq(req.options[0], "a") &&
			   streq(req.options[1], "b=c"),
		   "string array");
		ok(req.fd == 2, "fd index");
		ok(req.mode == MODE_RW, "enum by name");
		ok(streq_ptr(req.inner.source, "/dev/vda") && req.inner.size == 7, "nested object");
		ok(json_object_is_type(req.extra, json_type_array), "any json kept by reference");
		json_dispatch_done(table, &req);
		ok(!req.fstype && !req.options && !req.inner.source && !req.extra,
		   "done frees and resets");
	}

	r = run("{\"fstype\":null,\"options\":null,\"fd\":null}", &req, &bad);
	ok(r == 0 && !req.fstype && !req.options && req.fd == -1, "nullable fields take null");
	json_dispatch_done(table, &req);

	r = run("{\"fstype\":\"xfs\"}", &req, &bad);
	ok(r == 0 && req.mode == -1 && req.fd == -2 && !req.inner.source,
	   "absent optional fields keep their defaults");
	json_dispatch_done(table, &req);

	{
		struct req q = {};
		r = json_dispatch(NULL, table, &q, &bad);
		ok(r == -ENOENT && streq_ptr(bad, "fstype"), "missing parameters object = {}");
		static const JsonDispatch empty[] = {{}};
		r = json_dispatch(NULL, empty, NULL, &bad);
		ok(r == 0, "no parameters for an empty table");
		_cleanup_json_ json_object *a = json_object_new_array();
		r = json_dispatch(a, table, &q, &bad);
		ok(r == -EBADMSG && bad == NULL, "non-object refused");
	}

	expect_fail("{\"fstype\":\"x\",\"bogus\":1}", -EBADMSG, "bogus", "unknown field named");
	expect_fail("{\"flags\":1}", -ENOENT, "fstype", "missing mandatory field named");
	expect_fail("{\"fstype\":1}", -EINVAL, "fstype", "wrong type: number for string");
	expect_fail("{\"fstype\":\"x\",\"flags\":\"1\"}", -EINVAL, "flags",
		    "wrong type: string for number");
	expect_fail("{\"fstype\":\"x\",\"flags\":1.5}", -EINVAL, "flags", "fraction refused");
	expect_fail("{\"fstype\":\"x\",\"flags\":-1}", -EINVAL, "flags",
		    "negative refused for unsigned");
	expect_fail("{\"fstype\":\"x\",\"flags\":4294967296}", -ERANGE, "flags", "uint32 overflow");
	expect_fail("{\"fstype\":\"x\",\"level\":4}", -ERANGE, "level", "int above max");
	expect_fail("{\"fstype\":\"x\",\"level\":-4}", -ERANGE, "level", "int below min");
	expect_fail("{\"fstype\":\"x\",\"offset\":18446744073709551615}", -ERANGE, "offset",
		    "int64 overflow");
	expect_fail("{\"fstype\":\"123456789\"}", -ERANGE, "fstype", "string longer than max");
	expect_fail("{\"fstype\":\"a\\u0000b\"}", -EINVAL, "fstype", "embedded NUL refused");
	expect_fail("{\"fstype\":\"x\",\"label\":null}", -EINVAL, "label",
		    "null refused when not nullable");
	expect_fail("{\"fstype\":\"x\",\"recursive\":1}", -EINVAL, "recursive",
		    "number for boolean");
	expect_fail("{\"fstype\":\"x\",\"mode\":\"rx\"}", -EINVAL, "mode", "unknown enum name");
	expect_fail("{\"fstype\":\"x\",\"options\":[\"a\",1]}", -EINVAL, "options",
		    "non-string array element");
	expect_fail("{\"fstype\":\"x\",\"options\":[\"a\",\"b\",\"c\",\"d\"]}", -ERANGE, "options",
		    "too many array elements");
	expect_fail("{\"fstype\":\"x\",\"options\":\"a\"}", -EINVAL, "options", "string for array");
	expect_fail("{\"fstype\":\"x\",\"fd\":253}", -ERANGE, "fd", "fd index beyond SCM_MAX_FD");
	expect_fail("{\"fstype\":\"x\",\"inner\":{\"size\":1}}", -ENOENT, "source",
		    "nested: missing field named innermost");
	expect_fail("{\"fstype\":\"x\",\"inner\":{\"source\":\"s\",\"what\":1}}", -EBADMSG, "what",
		    "nested: unknown field named innermost");
	expect_fail("{\"fstype\":\"x\",\"inner\":[]}", -EINVAL, "inner", "array for object");

	/* A failure after some fields were filled must leave nothing behind
	 * that json_dispatch_done() cannot free (checked under valgrind). */
	r = run("{\"fstype\":\"x\",\"options\":[\"a\"],\"inner\":{\"source\":\"s\"},\"zzz\":0}",
		&req, &bad);
	ok(r == -EBADMSG, "partial decode fails");
	json_dispatch_done(table, &req);

	test_one_sided_ranges();
	return tap_done();
}
