/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MountEntry (ops-mount-entry.h): the field list, and its two JSON writers
 * — json-c objects for one mount (Watch, D-Bus), and List's text written
 * directly, without the ~25 objects per mount that were most of what a
 * List of many mounts cost (test-ops-table compares the two).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "sys-mnt.h"
#include "ops-mount-entry.h"
#include "ops-names.h"
#include "ops-table-internal.h"
#include "util.h"

#define FIELD(name, kind, member, client_member) \
	{name, sizeof(name) - 1, MOUNT_ENTRY_##kind, offsetof(OpsMountEntry, member)},
const OpsMountEntryField ops_mount_entry_fields[] = {MOUNT_ENTRY_FIELDS(FIELD){}};
#undef FIELD

_Static_assert(offsetof(OpsMountEntry, dev_minor) ==
		       offsetof(OpsMountEntry, dev_major) + sizeof(uint32_t),
	       "MOUNT_ENTRY_DEVICE: the minor follows the major");

const char *ops_entry_kind_idl(MountEntryKind k, bool *ret_optional)
{
	*ret_optional = k == MOUNT_ENTRY_OPT_STRING;
	switch (k) {
	case MOUNT_ENTRY_U64:
	case MOUNT_ENTRY_U32:
		return "int";
	case MOUNT_ENTRY_ATTRIBUTES:
		return "Attributes";
	case MOUNT_ENTRY_STRING:
	case MOUNT_ENTRY_OPT_STRING:
	case MOUNT_ENTRY_PROPAGATION:
	case MOUNT_ENTRY_DEVICE:
		return "string";
	}
	return NULL;
}

#define MEMBER(e, f, type) (*(const type *)((const char *)(e) + (f)->offset))

static json_object *attributes_to_json(uint64_t attr)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	for (const JsonDispatch *e = ops_attributes_fields; e->name; e++) {
		json_object *v =
			e->callback == ops_dispatch_atime
				? json_object_new_string(ops_atime_to_string(attr))
				: json_object_new_boolean(!!(attr & *(const uint64_t *)e->data));

		if (json_add(o, e->name, v) < 0) {
			json_object_put(o);
			return NULL;
		}
	}
	return o;
}

/* One field's JSON; *ret NULL for an optional one that is absent. */
static int field_to_json(const OpsMountEntry *e, const OpsMountEntryField *f, json_object **ret)
{
	const char *s;
	char dev[32];

	*ret = NULL;
	switch (f->kind) {
	case MOUNT_ENTRY_U64:
		*ret = json_object_new_int64((int64_t)MEMBER(e, f, uint64_t));
		break;
	case MOUNT_ENTRY_U32:
		*ret = json_object_new_int64(MEMBER(e, f, uint32_t));
		break;
	case MOUNT_ENTRY_STRING:
	case MOUNT_ENTRY_OPT_STRING:
		s = MEMBER(e, f, char *);
		if (!s && f->kind == MOUNT_ENTRY_OPT_STRING)
			return 0;
		*ret = json_object_new_string(s ?: "");
		break;
	case MOUNT_ENTRY_ATTRIBUTES:
		*ret = attributes_to_json(MEMBER(e, f, uint64_t));
		break;
	case MOUNT_ENTRY_PROPAGATION:
		*ret = json_object_new_string(mnt_propagation_to_string(MEMBER(e, f, uint64_t)));
		break;
	case MOUNT_ENTRY_DEVICE:
		snprintf(dev, sizeof(dev), "%u:%u", MEMBER(e, f, uint32_t),
			 (&MEMBER(e, f, uint32_t))[1]);
		*ret = json_object_new_string(dev);
		break;
	}
	return *ret ? 0 : -ENOMEM;
}

json_object *ops_mount_entry_to_json(const OpsMountEntry *e)
{
	_cleanup_json_ json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	for (const OpsMountEntryField *f = ops_mount_entry_fields; f->name; f++) {
		json_object *v;

		if (field_to_json(e, f, &v) < 0 || (v && json_add(o, f->name, v) < 0))
			return NULL;
	}
	return TAKE_PTR(o);
}

/* ---- List's text, written directly ------------------------------------------ */

/* Where the mounts are written: json-c's buffer, and whether any append
 * failed (no memory), which makes the whole text fail. */
typedef struct MountsOut {
	struct printbuf *pb;
	bool failed;
} MountsOut;

/* printbuf_memappend_fast(), with its failure kept: an append inline while
 * the buffer has room.  A List of 10k mounts makes ~500k of them. */
static inline void out_put(MountsOut *o, const char *s, size_t n)
{
	struct printbuf *pb = o->pb;

	if (n < (size_t)(pb->size - pb->bpos)) {
		memcpy(pb->buf + pb->bpos, s, n);
		pb->bpos += (int)n;
		pb->buf[pb->bpos] = 0;
	} else if (n > INT_MAX || printbuf_memappend(pb, s, (int)n) < 0)
		o->failed = true;
}

#define out_literal(o, s) out_put((o), (s), sizeof(s) - 1)

/* A JSON string as json-c writes it (JSON_C_TO_STRING_NOSLASHESCAPE). */
static void out_string(MountsOut *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;

	out_literal(o, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char u[7] = "\\u00";
		const char *esc = u;

		switch (c) {
		case '"':
			esc = "\\\"";
			break;
		case '\\':
			esc = "\\\\";
			break;
		case '\b':
			esc = "\\b";
			break;
		case '\f':
			esc = "\\f";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\r':
			esc = "\\r";
			break;
		case '\t':
			esc = "\\t";
			break;
		default:
			if (c >= 0x20)
				continue;
			u[4] = hex[c >> 4];
			u[5] = hex[c & 15];
			u[6] = 0;
		}
		out_put(o, run, (size_t)(s - run));
		out_put(o, esc, strlen(esc));
		run = s + 1;
	}
	out_put(o, run, (size_t)(s - run));
	out_literal(o, "\"");
}

/* A number as json-c writes an int64 ("%" PRId64), without vsnprintf(). */
static void out_u64(MountsOut *o, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);
	bool negative = (int64_t)v < 0; /* json-c's int64: what it would print */

	if (negative)
		v = -v;
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10));
	if (negative)
		*--p = '-';
	out_put(o, p, (size_t)(buf + sizeof(buf) - p));
}

static void out_attributes(MountsOut *o, uint64_t attr)
{
	out_literal(o, "{");
	for (const JsonDispatch *f = ops_attributes_fields; f->name; f++) {
		if (f != ops_attributes_fields)
			out_literal(o, ",");
		out_string(o, f->name);
		out_literal(o, ":");
		if (f->callback == ops_dispatch_atime)
			out_string(o, ops_atime_to_string(attr));
		else if (attr & *(const uint64_t *)f->data)
			out_literal(o, "true");
		else
			out_literal(o, "false");
	}
	out_literal(o, "}");
}

/* ops_mount_entry_to_json(e), written as the plain JSON json-c would make
 * of it.  No printf: a List of 10k mounts would make 100k calls of it. */
static void out_mount_entry(MountsOut *o, const OpsMountEntry *e)
{
	bool first = true;

	out_literal(o, "{");
	for (const OpsMountEntryField *f = ops_mount_entry_fields; f->name; f++) {
		const char *s = NULL;

		if (f->kind == MOUNT_ENTRY_OPT_STRING && !MEMBER(e, f, char *))
			continue;
		if (!first)
			out_literal(o, ",");
		first = false;
		out_literal(o, "\"");
		out_put(o, f->name, f->name_len);
		out_literal(o, "\":");
		switch (f->kind) {
		case MOUNT_ENTRY_U64:
			out_u64(o, MEMBER(e, f, uint64_t));
			break;
		case MOUNT_ENTRY_U32:
			out_u64(o, MEMBER(e, f, uint32_t));
			break;
		case MOUNT_ENTRY_STRING:
		case MOUNT_ENTRY_OPT_STRING:
			s = MEMBER(e, f, char *);
			out_string(o, s ?: "");
			break;
		case MOUNT_ENTRY_ATTRIBUTES:
			out_attributes(o, MEMBER(e, f, uint64_t));
			break;
		case MOUNT_ENTRY_PROPAGATION:
			out_string(o, mnt_propagation_to_string(MEMBER(e, f, uint64_t)));
			break;
		case MOUNT_ENTRY_DEVICE:
			out_literal(o, "\"");
			out_u64(o, MEMBER(e, f, uint32_t));
			out_literal(o, ":");
			out_u64(o, (&MEMBER(e, f, uint32_t))[1]);
			out_literal(o, "\"");
			break;
		}
	}
	out_literal(o, "}");
}

/* 0, or -ENOMEM when the text could not be written whole. */
static int print_mounts(struct printbuf *pb, const OpsListResult *res)
{
	MountsOut o = {.pb = pb};

	out_literal(&o, "[");
	for (size_t i = 0; i < res->n_mounts && !o.failed; i++) {
		if (i > 0)
			out_literal(&o, ",");
		out_mount_entry(&o, &res->mounts[i]);
	}
	out_literal(&o, "]");
	return o.failed ? -ENOMEM : 0;
}

static int serialize_mounts(json_object *o, struct printbuf *pb, int level, int flags)
{
	return print_mounts(pb, json_object_get_userdata(o)) < 0 ? -1 : 0;
}

static void free_mounts(json_object *o, void *userdata)
{
	ops_list_result_done(userdata);
	free(userdata);
}

/* What reads the JSON back (mountd's loop for D-Bus, the client) sees the
 * same text as ops_mount_entry_to_json() would give. */
json_object *ops_mounts_to_json(OpsListResult *res)
{
	json_object *a = json_object_new_array();
	OpsListResult *own = malloc(sizeof(*own));

	if (!a || !own) {
		json_object_put(a);
		free(own);
		return NULL;
	}
	*own = *res;
	*res = (OpsListResult){};
	json_object_set_serializer(a, serialize_mounts, own, free_mounts);
	return a;
}

char *ops_mounts_to_text(const OpsListResult *res)
{
	struct printbuf *pb = printbuf_new();
	char *s;

	if (!pb)
		return NULL;
	s = print_mounts(pb, res) < 0 ? NULL : strndup(pb->buf, (size_t)pb->bpos);
	printbuf_free(pb);
	return s;
}
