/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operation table's answers (see ops-table.h): the JSON encoding of
 * replies (List's mounts written directly) and of errors, and the IDL and
 * D-Bus types of request and reply fields.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "ops-names.h"
#include "ops-table-internal.h"
#include "util.h"

/* ---- encoding replies ------------------------------------------------------- */

static json_object *messages_to_json(const MntLog *log)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < log->n_messages; i++) {
		const MntMessage *msg = &log->messages[i];
		json_object *o = json_object_new_object();
		char level[2] = {msg->level, 0};

		if (!o)
			break;
		json_object_object_add(o, "step", json_object_new_string(msg->step));
		json_object_object_add(o, "level", json_object_new_string(level));
		json_object_object_add(o, "text", json_object_new_string(msg->text));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *steps_to_json(const MntLog *log)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < log->n_steps; i++) {
		json_object *o = json_object_new_object();

		if (!o)
			break;
		json_object_object_add(o, "step", json_object_new_string(log->steps[i].name));
		json_object_object_add(o, "usec",
				       json_object_new_int64((int64_t)log->steps[i].usec));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *attributes_to_json(uint64_t attr)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	for (const JsonDispatch *e = ops_attributes_fields; e->name; e++)
		json_object_object_add(
			o, e->name,
			e->callback == ops_dispatch_atime
				? json_object_new_string(ops_atime_to_string(attr))
				: json_object_new_boolean(!!(attr & *(const uint64_t *)e->data)));
	return o;
}

json_object *ops_mount_entry_to_json(const OpsMountEntry *e)
{
	json_object *o = json_object_new_object();
	char dev[32];

	if (!o)
		return NULL;
	json_object_object_add(o, "id", json_object_new_int64((int64_t)e->id));
	json_object_object_add(o, "parentId", json_object_new_int64((int64_t)e->parent_id));
	json_object_object_add(o, "oldId", json_object_new_int64(e->id_old));
	json_object_object_add(o, "oldParentId", json_object_new_int64(e->parent_id_old));
	json_object_object_add(o, "fsType", json_object_new_string(e->fstype ?: ""));
	if (e->source)
		json_object_object_add(o, "source", json_object_new_string(e->source));
	json_object_object_add(o, "root", json_object_new_string(e->root ?: ""));
	json_object_object_add(o, "mountPoint", json_object_new_string(e->mount_point ?: ""));
	if (e->options)
		json_object_object_add(o, "options", json_object_new_string(e->options));
	json_object_object_add(o, "attributes", attributes_to_json(e->attr));
	json_object_object_add(o, "propagation",
			       json_object_new_string(mnt_propagation_to_string(e->propagation)));
	json_object_object_add(o, "peerGroup", json_object_new_int64((int64_t)e->peer_group));
	json_object_object_add(o, "master", json_object_new_int64((int64_t)e->master));
	snprintf(dev, sizeof(dev), "%u:%u", e->dev_major, e->dev_minor);
	json_object_object_add(o, "device", json_object_new_string(dev));
	return o;
}

static json_object *info_values_to_json(const OpsInfoResult *res)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < res->n_values; i++) {
		const OpsValue *v = &res->values[i];
		json_object *o = json_object_new_object();

		if (!o)
			break;
		json_object_object_add(o, "name", json_object_new_string(v->name));
		switch (v->type) {
		case OPS_VALUE_U64:
			json_object_object_add(o, "number", json_object_new_uint64(v->u));
			break;
		case OPS_VALUE_S64:
			json_object_object_add(o, "number", json_object_new_int64(v->s));
			break;
		case OPS_VALUE_STRING:
			json_object_object_add(o, "text", json_object_new_string(v->str ?: ""));
			break;
		case OPS_VALUE_BOOL:
			json_object_object_add(o, "flag", json_object_new_boolean(v->b));
			break;
		}
		json_object_array_add(a, o);
	}
	return a;
}

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

/* ops_mount_entry_to_json(e), written as the plain JSON json-c would make
 * of it, without the ~25 objects per mount: what a List of many mounts
 * costs is mostly those (test-ops-table compares the two).  No printf:
 * a List of 10k mounts would make 100k calls of it. */
static void out_mount_entry(MountsOut *o, const OpsMountEntry *e)
{
	out_literal(o, "{\"id\":");
	out_u64(o, e->id);
	out_literal(o, ",\"parentId\":");
	out_u64(o, e->parent_id);
	out_literal(o, ",\"oldId\":");
	out_u64(o, e->id_old);
	out_literal(o, ",\"oldParentId\":");
	out_u64(o, e->parent_id_old);
	out_literal(o, ",\"fsType\":");
	out_string(o, e->fstype ?: "");
	if (e->source) {
		out_literal(o, ",\"source\":");
		out_string(o, e->source);
	}
	out_literal(o, ",\"root\":");
	out_string(o, e->root ?: "");
	out_literal(o, ",\"mountPoint\":");
	out_string(o, e->mount_point ?: "");
	if (e->options) {
		out_literal(o, ",\"options\":");
		out_string(o, e->options);
	}
	out_literal(o, ",\"attributes\":{");
	for (const JsonDispatch *f = ops_attributes_fields; f->name; f++) {
		if (f != ops_attributes_fields)
			out_literal(o, ",");
		out_string(o, f->name);
		out_literal(o, ":");
		if (f->callback == ops_dispatch_atime)
			out_string(o, ops_atime_to_string(e->attr));
		else if (e->attr & *(const uint64_t *)f->data)
			out_literal(o, "true");
		else
			out_literal(o, "false");
	}
	out_literal(o, "},\"propagation\":");
	out_string(o, mnt_propagation_to_string(e->propagation));
	out_literal(o, ",\"peerGroup\":");
	out_u64(o, e->peer_group);
	out_literal(o, ",\"master\":");
	out_u64(o, e->master);
	out_literal(o, ",\"device\":\"");
	out_u64(o, e->dev_major);
	out_literal(o, ":");
	out_u64(o, e->dev_minor);
	out_literal(o, "\"}");
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

/* The mounts as an array that serializes straight from the result (taken
 * from res); its elements are not objects of their own.  What reads the
 * JSON back (mountd's loop for D-Bus, the client) sees the same text. */
static json_object *mounts_to_json(OpsListResult *res)
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

/* Exported for test-ops-table: the text mounts_to_json() writes. */
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

int ops_reply_encode(const OpsMethod *m, OpsResult *res, const MntLog *log, json_object **ret,
		     int *out_fd)
{
	_cleanup_json_ json_object *p = json_object_new_object();

	*out_fd = -EBADF;
	if (!p)
		return -ENOMEM;
	for (const OpsReplyField *f = m->reply; f->name; f++) {
		json_object *v = NULL;

		switch (f->kind) {
		case OPS_REPLY_MOUNT_ID:
			v = json_object_new_int64((int64_t)res->mount.mount_id);
			break;
		case OPS_REPLY_MOUNT_FD:
			if (res->mount.mount_fd < 0)
				continue;
			*out_fd = TAKE_FD(res->mount.mount_fd);
			v = json_object_new_int(0);
			break;
		case OPS_REPLY_FSTYPE:
		case OPS_REPLY_LOOP_DEVICE: {
			const char *s = f->kind == OPS_REPLY_FSTYPE ? res->mount.fstype
								    : res->mount.loop_device;
			if (!s)
				continue;
			v = json_object_new_string(s);
			break;
		}
		case OPS_REPLY_MESSAGES:
			v = messages_to_json(log);
			break;
		case OPS_REPLY_STEPS:
			v = steps_to_json(log);
			break;
		case OPS_REPLY_INFO_SOURCE:
			v = json_object_new_string(ops_info_source_to_string(res->info.source));
			break;
		case OPS_REPLY_INFO_ATTRIBUTE:
			v = json_object_new_string(res->info.attribute);
			break;
		case OPS_REPLY_INFO_VALUES:
			v = info_values_to_json(&res->info);
			break;
		case OPS_REPLY_MOUNTS:
			v = mounts_to_json(&res->list);
			break;
		case OPS_REPLY_EVENT:
		case OPS_REPLY_MOUNT:
		case _OPS_REPLY_KIND_MAX:
			continue; /* streamed by the front ends */
		}
		if (!v)
			return -ENOMEM;
		json_object_object_add(p, f->name, v);
	}
	*ret = TAKE_PTR(p);
	return 0;
}

/* An enum as the IDL spells it: "(a, b, c)". */
static void enum_idl(const OpsEnumNames *names, char *buf, size_t size)
{
	size_t len = (size_t)snprintf(buf, size, "(");

	for (size_t i = 0; i < names->n && len < size; i++)
		if (names->names[i])
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len > 1 ? ", " : "",
						names->names[i]);
	if (len < size)
		snprintf(buf + len, size - len, ")");
}

void ops_field_idl_type(const JsonDispatch *e, char *buf, size_t size)
{
	if (e->callback == ops_dispatch_enum || e->callback == ops_dispatch_atime) {
		enum_idl(e->callback == ops_dispatch_enum ? e->data : &ops_atime_enum, buf, size);
		return;
	}
	switch (e->type) {
	case JSON_T_STRING:
		snprintf(buf, size, "string");
		break;
	case JSON_T_INTEGER:
	case JSON_T_UNSIGNED:
		snprintf(buf, size, "int");
		break;
	case JSON_T_BOOLEAN:
		snprintf(buf, size, "bool");
		break;
	case JSON_T_OBJECT:
		snprintf(buf, size, "object");
		break;
	case JSON_T_ARRAY:
		snprintf(buf, size, "array");
		break;
	default:
		snprintf(buf, size, "any");
	}
}

static const struct {
	const char *signature, *idl;
	bool optional;
} reply_kinds[_OPS_REPLY_KIND_MAX] = {
	[OPS_REPLY_MOUNT_ID] = {"t", "int", false},
	[OPS_REPLY_MOUNT_FD] = {"ah", "int", true},
	[OPS_REPLY_FSTYPE] = {"s", "string", false},
	[OPS_REPLY_LOOP_DEVICE] = {"s", "string", true},
	[OPS_REPLY_MESSAGES] = {"a(sss)", "[]Message", false},
	[OPS_REPLY_STEPS] = {"a(st)", "[]Step", false},
	[OPS_REPLY_INFO_SOURCE] = {"s", NULL, false}, /* ops_info_source_enum */
	[OPS_REPLY_INFO_ATTRIBUTE] = {"s", "string", false},
	[OPS_REPLY_INFO_VALUES] = {"a(sv)", "[]InfoValue", false},
	[OPS_REPLY_MOUNTS] = {"a(" OPS_MOUNT_ENTRY_SIGNATURE ")", "[]MountEntry", false},
	[OPS_REPLY_EVENT] = {"s", NULL, false}, /* ops_watch_event_enum */
	[OPS_REPLY_MOUNT] = {"(" OPS_MOUNT_ENTRY_SIGNATURE ")", "MountEntry", true},
};

const char *ops_reply_kind_signature(OpsReplyKind k)
{
	return (size_t)k < _OPS_REPLY_KIND_MAX ? reply_kinds[k].signature : NULL;
}

const char *ops_reply_kind_idl(OpsReplyKind k, bool *ret_optional)
{
	static char buf[160];

	if ((size_t)k >= _OPS_REPLY_KIND_MAX)
		return NULL;
	*ret_optional = reply_kinds[k].optional;
	if (reply_kinds[k].idl)
		return reply_kinds[k].idl;
	enum_idl(k == OPS_REPLY_EVENT ? &ops_watch_event_enum : &ops_info_source_enum, buf,
		 sizeof(buf));
	return buf;
}

/* ---- errors ------------------------------------------------------------------ */

static json_object *errno_json(int r)
{
	json_object *p = json_object_new_object();

	if (p) {
		json_object_object_add(p, "errno", json_object_new_int(-r));
		json_object_object_add(p, "errnoName",
				       json_object_new_string(strerrorname_np(-r) ?: "?"));
	}
	return p;
}

int ops_error_encode(const OpsMethod *m, const void *req, int r, const MntLog *log,
		     const char **ret_name, json_object **ret_params)
{
	json_object *p;

	if (r >= 0)
		r = -EIO;
	if (m && req && m->encode_error) {
		int k = m->encode_error(req, r, ret_name, ret_params);

		if (k != 0)
			return k < 0 ? k : 0;
	}
	if (r == -EAGAIN && !(log && log->failed_step[0])) {
		p = json_object_new_object();
		*ret_name = OPS_ERROR_NAME_LIMIT;
	} else if (r != -ENOMEM && log && log->failed_step[0]) {
		p = json_object_new_object();
		if (p) {
			json_object_object_add(p, "step", json_object_new_string(log->failed_step));
			json_object_object_add(p, "errno", json_object_new_int(-r));
			json_object_object_add(p, "errnoName",
					       json_object_new_string(strerrorname_np(-r) ?: "?"));
			json_object_object_add(p, "messages", messages_to_json(log));
			json_object_object_add(p, "steps", steps_to_json(log));
		}
		*ret_name = OPS_ERROR_NAME_MOUNT_FAILED;
	} else if (r == -EPERM || r == -EACCES) {
		char reason[128];

		p = json_object_new_object();
		snprintf(reason, sizeof(reason), "%s: %s", strerrorname_np(-r) ?: "?",
			 strerror(-r));
		if (p)
			json_object_object_add(p, "reason", json_object_new_string(reason));
		*ret_name = OPS_ERROR_NAME_PERMISSION;
	} else {
		p = errno_json(r);
		*ret_name = OPS_ERROR_NAME_INTERNAL;
	}
	if (!p)
		return -ENOMEM;
	*ret_params = p;
	return 0;
}
