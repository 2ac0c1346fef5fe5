/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operation table's answers (see ops-table.h): the JSON encoding of
 * replies (a mount's: ops-mount-entry.c) and of errors, and the IDL and
 * D-Bus types of request and reply fields.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ops-names.h"
#include "ops-table-internal.h"
#include "util.h"

/* ---- encoding replies ------------------------------------------------------- */

static json_object *messages_to_json(const MntLog *log)
{
	_cleanup_json_ json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < log->n_messages; i++) {
		const MntMessage *msg = &log->messages[i];
		_cleanup_json_ json_object *o = json_object_new_object();
		char level[2] = {msg->level, 0};

		if (json_add(o, "step", json_object_new_string(msg->step)) < 0 ||
		    json_add(o, "level", json_object_new_string(level)) < 0 ||
		    json_add(o, "text", json_object_new_string(msg->text)) < 0 ||
		    json_add(a, NULL, TAKE_PTR(o)) < 0)
			return NULL;
	}
	return TAKE_PTR(a);
}

static json_object *steps_to_json(const MntLog *log)
{
	_cleanup_json_ json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < log->n_steps; i++) {
		_cleanup_json_ json_object *o = json_object_new_object();

		if (json_add(o, "step", json_object_new_string(log->steps[i].name)) < 0 ||
		    json_add(o, "usec", json_object_new_int64((int64_t)log->steps[i].usec)) < 0 ||
		    json_add(a, NULL, TAKE_PTR(o)) < 0)
			return NULL;
	}
	return TAKE_PTR(a);
}

static json_object *info_value_to_json(const OpsValue *v)
{
	_cleanup_json_ json_object *o = json_object_new_object();
	int r = json_add(o, "name", json_object_new_string(v->name));

	switch (v->type) {
	case OPS_VALUE_U64:
		r = r ?: json_add(o, "number", json_object_new_uint64(v->u));
		break;
	case OPS_VALUE_S64:
		r = r ?: json_add(o, "number", json_object_new_int64(v->s));
		break;
	case OPS_VALUE_STRING:
		r = r ?: json_add(o, "text", json_object_new_string(v->str ?: ""));
		break;
	case OPS_VALUE_BOOL:
		r = r ?: json_add(o, "flag", json_object_new_boolean(v->b));
		break;
	}
	return r < 0 ? NULL : TAKE_PTR(o);
}

static json_object *info_values_to_json(const OpsInfoResult *res)
{
	_cleanup_json_ json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < res->n_values; i++)
		if (json_add(a, NULL, info_value_to_json(&res->values[i])) < 0)
			return NULL;
	return TAKE_PTR(a);
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
		case OPS_REPLY_VERITY:
			if (!res->mount.verity_root_hash)
				continue;
			v = json_object_new_object();
			if (json_add(v, "rootHash",
				     json_object_new_string(res->mount.verity_root_hash)) < 0 ||
			    (res->mount.verity_signer &&
			     json_add(v, "signedBy",
				      json_object_new_string(res->mount.verity_signer)) < 0)) {
				json_object_put(v);
				return -ENOMEM;
			}
			break;
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
			v = ops_mounts_to_json(&res->list);
			break;
		case OPS_REPLY_EVENT:
		case OPS_REPLY_MOUNT:
		case _OPS_REPLY_KIND_MAX:
			continue; /* streamed by the front ends */
		}
		if (json_add(p, f->name, v) < 0)
			return -ENOMEM;
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
	[OPS_REPLY_VERITY] = {"(ss)", "Verity", true},
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
	_cleanup_json_ json_object *p = json_object_new_object();

	if (json_add(p, "errno", json_object_new_int(-r)) < 0 ||
	    json_add(p, "errnoName", json_object_new_string(errno_name(r))) < 0)
		return NULL;
	return TAKE_PTR(p);
}

int ops_error_encode(const OpsMethod *m, const void *req, int r, const MntLog *log,
		     const char **ret_name, json_object **ret_params)
{
	_cleanup_json_ json_object *p = NULL;
	int k = 0;

	if (r >= 0)
		r = -EIO;
	if (m && req && m->encode_error) {
		k = m->encode_error(req, r, ret_name, ret_params);
		if (k != 0)
			return k < 0 ? k : 0;
	}
	if (r == -EAGAIN && !(log && log->failed_step[0])) {
		p = json_object_new_object();
		*ret_name = OPS_ERROR_NAME_LIMIT;
	} else if (r != -ENOMEM && log && log->failed_step[0]) {
		p = json_object_new_object();
		k = json_add(p, "step", json_object_new_string(log->failed_step)) ?:
			json_add(p, "errno", json_object_new_int(-r)) ?:
			json_add(p, "errnoName", json_object_new_string(errno_name(r))) ?:
			json_add(p, "messages", messages_to_json(log)) ?:
			json_add(p, "steps", steps_to_json(log));
		*ret_name = OPS_ERROR_NAME_MOUNT_FAILED;
	} else if (r == -EPERM || r == -EACCES) {
		char reason[128];

		p = json_object_new_object();
		snprintf(reason, sizeof(reason), "%s: %s", errno_name(r), strerror(-r));
		k = json_add(p, "reason", json_object_new_string(reason));
		*ret_name = OPS_ERROR_NAME_PERMISSION;
	} else {
		p = errno_json(r);
		*ret_name = OPS_ERROR_NAME_INTERNAL;
	}
	if (k < 0 || !p)
		return -ENOMEM;
	*ret_params = TAKE_PTR(p);
	return 0;
}
