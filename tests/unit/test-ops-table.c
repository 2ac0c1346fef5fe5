/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operation table against the interface file: every method, every
 * parameter and reply field, its type and whether it is optional, every
 * named type and enum, both ways.  A field renamed or retyped in one place
 * only fails here.
 *
 * Usage: test-ops-table [IDL-FILE]   (default: the one in daemon/, run from the top)
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/mount.h>

#include "ops-table.h"
#include "tap.h"
#include "util.h"

/* ---- a small parser of the varlink IDL ------------------------------------- */

typedef struct IdlField {
	char name[64];
	char type[256]; /* without the leading '?' */
	bool optional;
} IdlField;

typedef struct IdlBlock {
	char kind[16]; /* interface, type, method, error */
	char name[64];
	IdlField in[32], out[32];
	size_t n_in, n_out;
} IdlBlock;

static IdlBlock blocks[64];
static size_t n_blocks;

/* The text without comments, as one line. */
static char *strip_comments(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;
	bool comment = false;

	for (const char *p = text; out && *p; p++) {
		if (*p == '#')
			comment = true;
		if (*p == '\n') {
			comment = false;
			*o++ = ' ';
		} else if (!comment)
			*o++ = *p;
	}
	if (out)
		*o = 0;
	return out;
}

static const char *skip_space(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* "( a: T, b: ?(x, y) )" at p; returns the position after ")". */
static const char *parse_fields(const char *p, IdlField *fields, size_t *n)
{
	p = skip_space(p);
	if (*p != '(')
		return NULL;
	p++;
	for (;;) {
		IdlField *f = &fields[*n];
		size_t len = 0;
		int depth = 0;

		p = skip_space(p);
		if (*p == ')')
			return p + 1;
		while (*p && (isalnum((unsigned char)*p) || *p == '_') && len + 1 < sizeof(f->name))
			f->name[len++] = *p++;
		f->name[len] = 0;
		p = skip_space(p);
		if (*p != ':')
			return NULL;
		p = skip_space(p + 1);
		f->optional = *p == '?';
		if (f->optional)
			p++;
		len = 0;
		while (*p && (depth > 0 || (*p != ',' && *p != ')'))) {
			if (*p == '(')
				depth++;
			else if (*p == ')')
				depth--;
			if (!isspace((unsigned char)*p) || (len > 0 && f->type[len - 1] == ','))
				if (len + 1 < sizeof(f->type))
					f->type[len++] = *p == ',' ? ',' : *p;
			p++;
		}
		f->type[len] = 0;
		(*n)++;
		if (*p == ',')
			p++;
	}
}

static int parse_idl(const char *path)
{
	_cleanup_free_ char *text = NULL, *flat = NULL;
	size_t size = 0;
	FILE *f = fopen(path, "re");
	const char *p;

	if (!f)
		return -errno;
	if (getdelim(&text, &size, 0, f) < 0) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	flat = strip_comments(text);
	if (!flat)
		return -ENOMEM;
	for (p = flat; (p = skip_space(p)) && *p;) {
		IdlBlock *b = &blocks[n_blocks];
		int len = 0;

		if (sscanf(p, "%15s %63[A-Za-z0-9_.]%n", b->kind, b->name, &len) < 2)
			return -EINVAL;
		p += len;
		if (streq(b->kind, "interface"))
			continue;
		p = parse_fields(p, b->in, &b->n_in);
		if (!p)
			return -EINVAL;
		if (streq(b->kind, "method")) {
			p = skip_space(p);
			if (strncmp(p, "->", 2) != 0)
				return -EINVAL;
			p = parse_fields(p + 2, b->out, &b->n_out);
			if (!p)
				return -EINVAL;
		}
		n_blocks++;
	}
	return 0;
}

static const IdlBlock *find_block(const char *kind, const char *name)
{
	for (size_t i = 0; i < n_blocks; i++)
		if (streq(blocks[i].kind, kind) && streq(blocks[i].name, name))
			return &blocks[i];
	return NULL;
}

/* ---- comparing -------------------------------------------------------------- */

static void compare_fields(const char *where, const JsonDispatch *table, const IdlField *idl,
			   size_t n_idl);

static void compare_field(const char *where, const JsonDispatch *e, const IdlField *f)
{
	char type[256];
	const char *t = f->type;

	ok(!(e->flags & JSON_MANDATORY) == f->optional, "%s.%s: %s in both", where, e->name,
	   f->optional ? "optional" : "required");
	ops_field_idl_type(e, type, sizeof(type));
	if (streq(type, "object") || streq(type, "array")) {
		const IdlBlock *b;

		if (streq(type, "array")) {
			ok(strncmp(t, "[]", 2) == 0, "%s.%s: an array in both", where, e->name);
			t += 2;
		}
		b = find_block("type", t);
		ok(b, "%s.%s: its type %s is declared", where, e->name, t);
		if (b) {
			char sub[160];

			snprintf(sub, sizeof(sub), "%s.%s", where, e->name);
			compare_fields(sub, e->data, b->in, b->n_in);
		}
		return;
	}
	ok(streq(type, t), "%s.%s: type %s in the table, %s in the IDL", where, e->name, type, t);
}

static void compare_fields(const char *where, const JsonDispatch *table, const IdlField *idl,
			   size_t n_idl)
{
	for (const JsonDispatch *e = table; e->name; e++) {
		const IdlField *f = NULL;

		for (size_t i = 0; i < n_idl; i++)
			if (streq(idl[i].name, e->name))
				f = &idl[i];
		ok(f, "%s.%s: in the table and in the IDL", where, e->name);
		if (f)
			compare_field(where, e, f);
	}
	for (size_t i = 0; i < n_idl; i++) {
		bool found = false;

		for (const JsonDispatch *e = table; e->name; e++)
			found = found || streq(e->name, idl[i].name);
		ok(found, "%s.%s: in the IDL and in the table", where, idl[i].name);
	}
}

static void compare_reply(const OpsMethod *m, const IdlBlock *b)
{
	size_t n = 0;

	for (const OpsReplyField *r = m->reply; r->name; r++, n++) {
		const IdlField *f = NULL;
		bool optional;
		const char *type = ops_reply_kind_idl(r->kind, &optional);

		for (size_t i = 0; i < b->n_out; i++)
			if (streq(b->out[i].name, r->name))
				f = &b->out[i];
		ok(f, "%s reply.%s: in the table and in the IDL", m->name, r->name);
		if (f)
			ok(streq(type, f->type) && optional == f->optional,
			   "%s reply.%s: %s%s in the table, %s%s in the IDL", m->name, r->name,
			   optional ? "?" : "", type, f->optional ? "?" : "", f->type);
	}
	ok(n == b->n_out, "%s reply: %zu fields in the table, %zu in the IDL", m->name, n,
	   b->n_out);
}

/* List writes its mounts straight from the entries: the text must be what
 * json-c makes of ops_mount_entry_to_json(), byte for byte. */
static void test_mounts_text(void)
{
	OpsMountEntry m[] = {
		{.id = 0x100000001ULL,
		 .parent_id = 0x100000001ULL,
		 .id_old = 21,
		 .parent_id_old = 1,
		 .dev_major = 254,
		 .dev_minor = 1,
		 .fstype = (char *)"ext4",
		 .source = (char *)"/dev/vda",
		 .root = (char *)"/",
		 .mount_point = (char *)"/",
		 .options = (char *)"rw,relatime",
		 .attr = MOUNT_ATTR_RELATIME,
		 .propagation = 1 << 20,
		 .peer_group = 1},
		{.id = UINT64_MAX,
		 .parent_id = 7,
		 .id_old = UINT32_MAX,
		 .parent_id_old = 0,
		 .fstype = (char *)"fuse.x\"y",
		 .source = (char *)"a \\ b\n\t\x01\x1f\x7f é",
		 .root = (char *)"/r/",
		 .mount_point = (char *)"/mnt/a b/\"q\"",
		 .options = NULL,
		 .attr = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOATIME |
			 MOUNT_ATTR_IDMAP,
		 .propagation = 1 << 19,
		 .master = 3},
		{.fstype = NULL,
		 .source = NULL,
		 .root = NULL,
		 .mount_point = NULL,
		 .attr = MOUNT_ATTR_STRICTATIME | MOUNT_ATTR_NODIRATIME | MOUNT_ATTR_NOSYMFOLLOW,
		 .propagation = 1 << 17},
	};
	OpsListResult res = {.mounts = m, .n_mounts = 3}, none = {};
	json_object *a = json_object_new_array();
	char *text, *empty;
	const char *want;

	for (size_t i = 0; i < res.n_mounts; i++)
		json_object_array_add(a, ops_mount_entry_to_json(&m[i]));
	want = json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	text = ops_mounts_to_text(&res);
	ok(text && streq(text, want), "List's mounts as text equal json-c's of the entries");
	if (text && !streq(text, want))
		fprintf(stderr, "# got  %s\n# want %s\n", text, want);
	empty = ops_mounts_to_text(&none);
	ok(empty && streq(empty, "[]"), "no mounts: []");
	free(text);
	free(empty);
	json_object_put(a);
}

/* MountEntry's field list (ops-mount-entry.h) against the IDL's type, in
 * order; and the JSON of an entry has exactly the listed keys, the D-Bus
 * struct one complete type per field. */
static void test_mount_entry(void)
{
	const IdlBlock *b = find_block("type", "MountEntry");
	OpsMountEntry e = {.source = (char *)"s", .options = (char *)"o"};
	json_object *o = ops_mount_entry_to_json(&e);
	size_t n = 0, n_types = 0;

	ok(b, "type MountEntry is in the IDL");
	for (const OpsMountEntryField *f = ops_mount_entry_fields; f->name; f++, n++) {
		bool optional;
		const char *type = ops_entry_kind_idl(f->kind, &optional);
		const IdlField *i = b && n < b->n_in ? &b->in[n] : NULL;

		ok(i && streq(i->name, f->name) && streq(i->type, type) && i->optional == optional,
		   "MountEntry field %zu: %s %s%s in the table, %s %s%s in the IDL", n, f->name,
		   optional ? "?" : "", type, i ? i->name : "-", i && i->optional ? "?" : "",
		   i ? i->type : "-");
		ok(o && json_object_object_get_ex(o, f->name, NULL), "MountEntry JSON has %s",
		   f->name);
	}
	ok(b && n == b->n_in, "MountEntry: %zu fields in the table, %zu in the IDL", n,
	   b ? b->n_in : 0);
	ok(o && (size_t)json_object_object_length(o) == n, "MountEntry JSON: %d keys, %zu fields",
	   o ? json_object_object_length(o) : -1, n);
	/* Complete types: a{sv} counts once. */
	for (const char *c = OPS_MOUNT_ENTRY_SIGNATURE; *c; c++, n_types++)
		if (*c == 'a')
			c = strchr(c, '}');
	ok(n_types == n, "D-Bus %s: %zu types, %zu fields", OPS_MOUNT_ENTRY_SIGNATURE, n_types, n);
	json_object_put(o);
}

/* The error table (ops-errors.c) against the IDL's error declarations, both
 * ways, and what D-Bus callers read of each. */
static void test_errors(void)
{
	static const char prefix[] = "io.mountd.Mount.";
	size_t n_table = 0, n_idl = 0;

	for (size_t i = 0; i < ops_errors_n; i++) {
		const OpsError *e = &ops_errors[i];

		ok(ops_error_find(e->name) == e, "error %s: found by its name", e->name);
		ok(!e->bus_name == !e->bus_text, "error %s: a D-Bus name and text, or neither",
		   e->name);
		if (!startswith(e->name, prefix))
			continue;
		n_table++;
		ok(find_block("error", e->name + strlen(prefix)),
		   "error %s: in the table and in the IDL", e->name);
	}
	for (size_t i = 0; i < n_blocks; i++)
		if (streq(blocks[i].kind, "error")) {
			char name[128];

			n_idl++;
			snprintf(name, sizeof(name), "%s%s", prefix, blocks[i].name);
			ok(ops_error_find(name), "error %s: in the IDL and in the table", name);
		}
	ok(n_table == n_idl, "%zu io.mountd.Mount errors in the table, %zu in the IDL", n_table,
	   n_idl);
	ok(!ops_error_find("io.mountd.Mount.NoSuchError"), "an unknown error name is not found");

	/* MountFailed's one D-Bus string: step, errno, messages, steps done. */
	json_object *p = json_tokener_parse(
		"{\"step\":\"fsconfig:size\",\"errno\":22,\"errnoName\":\"EINVAL\","
		"\"messages\":[{\"step\":\"fsconfig:size\",\"level\":\"e\",\"text\":\"tmpfs: Bad "
		"value\"}],"
		"\"steps\":[{\"step\":\"fsopen\"},{\"step\":\"fsconfig:source\"}]}");
	_cleanup_free_ char *text = NULL;
	const OpsError *mf = ops_error_find(OPS_ERROR_NAME_MOUNT_FAILED);

	ok(mf && mf->bus_text(p, &text) == 0 && text &&
		   streq(text, "fsconfig:size: EINVAL (Invalid argument)\n"
			       "fsconfig:size: e tmpfs: Bad value\n"
			       "steps done: fsopen, fsconfig:source"),
	   "MountFailed on D-Bus: the step, errno, messages and steps done, a line each (%s)",
	   text ?: "(none)");
	json_object_put(p);
}

int main(int argc, char **argv)
{
	const char *idl = argc > 1 ? argv[1] : "daemon/io.mountd.Mount.varlink";
	size_t n_methods = 0, n_idl_methods = 0;
	int r;

	r = parse_idl(idl);
	test_mounts_text();
	ok(r == 0 && n_blocks > 0, "%s parses (%zu declarations)", idl, n_blocks);
	if (r < 0)
		return tap_done();

	for (const OpsMethod *m = ops_methods; m->name; m++) {
		const IdlBlock *b = find_block("method", m->name);

		n_methods++;
		ok(b, "method %s: in the table and in the IDL", m->name);
		if (!b)
			continue;
		compare_fields(m->name, m->fields, b->in, b->n_in);
		compare_reply(m, b);
	}
	for (size_t i = 0; i < n_blocks; i++)
		if (streq(blocks[i].kind, "method")) {
			n_idl_methods++;
			ok(ops_method_find(blocks[i].name),
			   "method %s: in the IDL and in the table", blocks[i].name);
		}
	ok(n_methods == n_idl_methods, "%zu methods in the table, %zu in the IDL", n_methods,
	   n_idl_methods);

	test_errors();
	test_mount_entry();
	return tap_done();
}
