/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operation table's requests (see ops-table.h): the field tables of
 * every method and the json_dispatch() callbacks that decode a request's
 * JSON straight into the Ops*Request structs of ops.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/mount.h>

#include "base64.h"
#include "ops-names.h"
#include "ops-table-internal.h"
#include "util.h"

/* ---- decoding: the fds of the request being decoded ------------------------ */

/* json_dispatch() callbacks see only their member; the fds a request
 * names by index are this decode's.  Both mountd's event loop and its
 * workers are single-threaded, and a decode never nests. */
static const OpsFds *decode_fds;

/* The dotted path of the field that failed, built inside out as the nested
 * decoders return ("pid" → "namespace.pid" → "placement.namespace.pid"):
 * both front ends name a field the same way. */
static char field_path[160];

static const char *field_prepend(const char *prefix, const char *inner)
{
	char tmp[sizeof(field_path)];

	snprintf(tmp, sizeof(tmp), "%s%s%s", prefix, inner ? "." : "", inner ?: "");
	memcpy(field_path, tmp, sizeof(field_path));
	return field_path;
}

static int dispatch_fd(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	int64_t index;

	if (!v) {
		*(int *)p = -EBADF;
		return 0;
	}
	index = json_object_get_int64(v);
	if (index < 0 || !decode_fds || (uint64_t)index >= decode_fds->n ||
	    decode_fds->fds[index] < 0)
		return -EINVAL;
	*(int *)p = decode_fds->fds[index];
	return 0;
}

/* traceFd is the log's, not the request's: it goes to the decode. */
static int dispatch_trace_fd(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	int fd = -EBADF, r;

	r = dispatch_fd(e, v, &fd, bad);
	if (r < 0)
		return r;
	((OpsFds *)decode_fds)->trace_fd = fd;
	return 0;
}

/* So is allowInteractiveAuthentication: a question for polkit, not for
 * the operation. */
static int dispatch_interactive(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	((OpsFds *)decode_fds)->interactive = v && json_object_get_boolean(v);
	return 0;
}

/* A nested object, naming its failing member with the path to it. */
static int dispatch_nested(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	const char *inner = NULL;
	int r;

	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_object))
		return -EINVAL;
	r = json_dispatch(v, e->data, p, &inner);
	if (r < 0 && inner)
		*bad = field_prepend(e->name, inner);
	return r;
}

static int dispatch_bool(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	return json_dispatch_boolean(e, v, p, bad);
}

/* An enum by name; e->data is its OpsEnumNames, the value its index. */
int ops_dispatch_enum(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	int r;

	if (!v)
		return 0;
	r = ops_enum_from_string(e->data, json_object_get_string(v));
	if (r < 0)
		return r;
	*(int *)p = r;
	return 0;
}

/* One boolean attribute: true sets its bit, false clears it, null leaves
 * it; e->data points to the MOUNT_ATTR_* bit. */
static int dispatch_attr_flag(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	OpsAttributes *a = p;
	uint64_t bit = *(const uint64_t *)e->data;

	if (!v)
		return 0;
	if (json_object_get_boolean(v))
		a->set |= bit;
	else
		a->clear |= bit;
	return 0;
}

int ops_dispatch_atime(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	return v ? ops_attributes_set_atime(p, json_object_get_string(v)) : 0;
}

_Static_assert(sizeof(MntCreate) == sizeof(int) && sizeof(OpsPropagation) == sizeof(int) &&
		       sizeof(MntParamType) == sizeof(int),
	       "enums are stored through int pointers");

/* The fsconfig() parameter list.  p points at a MntParam * followed by its
 * size_t count (checked for each request struct below). */
typedef struct ParamList {
	MntParam *params;
	size_t n;
} ParamList;

typedef struct JParam {
	char *key;
	int type;
	char *value;
	int fd;
} JParam;

static int param_from_json(json_object *o, const JsonDispatch *table, MntParam *p, const char **bad)
{
	JParam j = {.type = -1, .fd = -EBADF};
	int r;

	r = json_dispatch(o, table, &j, bad);
	if (r >= 0) {
		p->type = (MntParamType)j.type;
		p->key = TAKE_PTR(j.key);
		if (p->type == MNT_PARAM_BINARY && j.value) {
			r = base64_decode(j.value, &p->blob, &p->blob_size);
			if (r < 0)
				*bad = "value";
		} else
			p->value = TAKE_PTR(j.value);
	}
	if (r >= 0 && j.fd >= 0) {
		/* MntParam owns its fd. */
		p->fd = fcntl(j.fd, F_DUPFD_CLOEXEC, 3);
		if (p->fd < 0) {
			r = negative_errno();
			*bad = "fd";
		}
	}
	free(j.key);
	free(j.value);
	return r;
}

static int dispatch_params(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	ParamList *l = p;
	size_t n;
	int r = 0;

	if (!v)
		return 0;
	n = json_object_array_length(v);
	if (n > OPS_PARAMS_MAX)
		return -E2BIG;
	l->params = calloc(n ?: 1, sizeof(MntParam));
	if (!l->params)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		l->params[i] = (MntParam){.fd = -EBADF};
	l->n = n;
	for (size_t i = 0; i < n && r >= 0; i++) {
		const char *inner = NULL;

		r = param_from_json(json_object_array_get_idx(v, i), e->data, &l->params[i],
				    &inner);
		if (r < 0) {
			char prefix[32];

			snprintf(prefix, sizeof(prefix), "%s[%zu]", e->name, i);
			*bad = field_prepend(prefix, inner);
		}
	}
	return r == -ENOMEM ? r : r < 0 ? -EINVAL : 0;
}

/* ---- the field tables ------------------------------------------------------ */

#define FIELD(_name, _type, _cb, _struct, _member, _flags, ...)                      \
	{                                                                            \
		.name = (_name), .type = (_type), .callback = (_cb),                 \
		.offset = offsetof(_struct, _member), .flags = (_flags), __VA_ARGS__ \
	}
#define OPTIONAL JSON_NULLABLE
#define REQUIRED JSON_MANDATORY

static const JsonDispatch namespace_fields[] = {
	FIELD("pid", JSON_T_UNSIGNED, json_dispatch_int, OpsNamespace, pid, OPTIONAL, .min = 1,
	      .max = INT32_MAX),
	FIELD("pidfd", JSON_T_UNSIGNED, dispatch_fd, OpsNamespace, pidfd, OPTIONAL),
	FIELD("mntnsFd", JSON_T_UNSIGNED, dispatch_fd, OpsNamespace, mntns_fd, OPTIONAL),
	FIELD("root", JSON_T_STRING, json_dispatch_const_string, OpsNamespace, root, OPTIONAL),
	{},
};

#define BIT(id, name, bit) static const uint64_t attr_##id = bit;
MOUNT_ATTRIBUTE_FLAGS(BIT)
#undef BIT

/* One boolean field per MOUNT_ATTRIBUTE_FLAGS() entry, its bit as data. */
const JsonDispatch ops_attributes_fields[] = {
#define FLAG(id, _name, bit)             \
	{.name = (_name),                \
	 .type = JSON_T_BOOLEAN,         \
	 .callback = dispatch_attr_flag, \
	 .flags = OPTIONAL,              \
	 .data = &attr_##id},
	MOUNT_ATTRIBUTE_FLAGS(FLAG)
#undef FLAG
		{.name = "atime",
		 .type = JSON_T_STRING,
		 .callback = ops_dispatch_atime,
		 .flags = OPTIONAL,
		 .data = &ops_atime_enum},
	{},
};

static const JsonDispatch placement_fields[] = {
	FIELD("namespace", JSON_T_OBJECT, dispatch_nested, OpsPlacement, ns, OPTIONAL,
	      .data = namespace_fields),
	FIELD("path", JSON_T_STRING, json_dispatch_string, OpsPlacement, path, REQUIRED,
	      .max = MNT_PATH_MAX),
	FIELD("create", JSON_T_STRING, ops_dispatch_enum, OpsPlacement, create, OPTIONAL,
	      .data = &ops_create_enum),
	FIELD("beneath", JSON_T_BOOLEAN, dispatch_bool, OpsPlacement, beneath, OPTIONAL),
	{},
};

static const JsonDispatch image_fields[] = {
	FIELD("fd", JSON_T_UNSIGNED, dispatch_fd, OpsImage, fd, REQUIRED),
	FIELD("partition", JSON_T_UNSIGNED, json_dispatch_uint32, OpsImage, partition, OPTIONAL,
	      .max = 65535),
	FIELD("partitionType", JSON_T_STRING, json_dispatch_string, OpsImage, partition_type,
	      OPTIONAL, .max = 36),
	FIELD("hashFd", JSON_T_UNSIGNED, dispatch_fd, OpsImage, hash_fd, OPTIONAL),
	FIELD("rootHash", JSON_T_STRING, json_dispatch_string, OpsImage, root_hash, OPTIONAL,
	      .max = 128),
	FIELD("rootHashSignature", JSON_T_STRING, json_dispatch_string, OpsImage,
	      root_hash_signature, OPTIONAL, .max = 65536),
	{},
};

static const JsonDispatch parameter_fields[] = {
	/* Lengths are checked by ops_params_validate(): one place for the
	 * limits and their errors. */
	FIELD("key", JSON_T_STRING, json_dispatch_string, JParam, key, REQUIRED),
	FIELD("type", JSON_T_STRING, ops_dispatch_enum, JParam, type, REQUIRED,
	      .data = &ops_param_type_enum),
	FIELD("value", JSON_T_STRING, json_dispatch_string, JParam, value, OPTIONAL),
	FIELD("fd", JSON_T_UNSIGNED, dispatch_fd, JParam, fd, OPTIONAL),
	{},
};

#define NAMESPACE(_name, _struct, _member)                                       \
	FIELD(_name, JSON_T_OBJECT, dispatch_nested, _struct, _member, OPTIONAL, \
	      .data = namespace_fields)
#define PATH(_name, _struct, _member)                                                 \
	FIELD(_name, JSON_T_STRING, json_dispatch_string, _struct, _member, REQUIRED, \
	      .max = MNT_PATH_MAX)
#define ATTRIBUTES(_struct)                                                                       \
	FIELD("attributes", JSON_T_OBJECT, dispatch_nested, _struct, attr, OPTIONAL,              \
	      .data = ops_attributes_fields),                                                     \
		FIELD("propagation", JSON_T_STRING, ops_dispatch_enum, _struct, attr.propagation, \
		      OPTIONAL, .data = &ops_propagation_enum)
#define PLACEMENT(_struct)                                                           \
	FIELD("placement", JSON_T_OBJECT, dispatch_nested, _struct, place, OPTIONAL, \
	      .data = placement_fields)
#define PARAMETERS(_struct, _flags)                                                 \
	FIELD("parameters", JSON_T_ARRAY, dispatch_params, _struct, params, _flags, \
	      .data = parameter_fields)
#define TRACE_FD                                                                           \
	{                                                                                  \
		.name = "traceFd", .type = JSON_T_UNSIGNED, .callback = dispatch_trace_fd, \
		.flags = OPTIONAL                                                          \
	}
#define INTERACTIVE                                                               \
	{                                                                         \
		.name = "allowInteractiveAuthentication", .type = JSON_T_BOOLEAN, \
		.callback = dispatch_interactive, .flags = OPTIONAL               \
	}

#define PARAM_LIST_OK(_struct)                                                     \
	_Static_assert(offsetof(_struct, n_params) ==                              \
			       offsetof(_struct, params) + offsetof(ParamList, n), \
		       #_struct ": params and n_params laid out as a ParamList")
PARAM_LIST_OK(OpsCreateRequest);
PARAM_LIST_OK(OpsReconfigureRequest);

const JsonDispatch ops_create_fields[] = {
	FIELD("fsType", JSON_T_STRING, json_dispatch_string, OpsCreateRequest, fstype, OPTIONAL,
	      .max = OPS_FSTYPE_MAX),
	FIELD("source", JSON_T_STRING, json_dispatch_string, OpsCreateRequest, source, OPTIONAL,
	      .max = MNT_STRING_MAX),
	PARAMETERS(OpsCreateRequest, OPTIONAL),
	FIELD("exclusive", JSON_T_BOOLEAN, dispatch_bool, OpsCreateRequest, exclusive, OPTIONAL),
	FIELD("image", JSON_T_OBJECT, dispatch_nested, OpsCreateRequest, image, OPTIONAL,
	      .data = image_fields),
	ATTRIBUTES(OpsCreateRequest),
	PLACEMENT(OpsCreateRequest),
	TRACE_FD,
	INTERACTIVE,
	{},
};

const JsonDispatch ops_bind_fields[] = {
	NAMESPACE("sourceNamespace", OpsBindRequest, source_ns),
	FIELD("sourcePath", JSON_T_STRING, json_dispatch_string, OpsBindRequest, source_path,
	      OPTIONAL, .max = MNT_PATH_MAX),
	FIELD("sourceFd", JSON_T_UNSIGNED, dispatch_fd, OpsBindRequest, source_fd, OPTIONAL),
	FIELD("recursive", JSON_T_BOOLEAN, dispatch_bool, OpsBindRequest, recursive, OPTIONAL),
	FIELD("idmapUserNamespaceFd", JSON_T_UNSIGNED, dispatch_fd, OpsBindRequest, userns_fd,
	      OPTIONAL),
	ATTRIBUTES(OpsBindRequest),
	PLACEMENT(OpsBindRequest),
	TRACE_FD,
	INTERACTIVE,
	{},
};

const JsonDispatch ops_reconfigure_fields[] = {
	NAMESPACE("namespace", OpsReconfigureRequest, ns),
	PATH("path", OpsReconfigureRequest, path),
	PARAMETERS(OpsReconfigureRequest, REQUIRED),
	TRACE_FD,
	INTERACTIVE,
	{},
};

const JsonDispatch ops_setattr_fields[] = {
	NAMESPACE("namespace", OpsSetattrRequest, ns),
	PATH("path", OpsSetattrRequest, path),
	FIELD("recursive", JSON_T_BOOLEAN, dispatch_bool, OpsSetattrRequest, recursive, OPTIONAL),
	ATTRIBUTES(OpsSetattrRequest),
	FIELD("idmapUserNamespaceFd", JSON_T_UNSIGNED, dispatch_fd, OpsSetattrRequest, userns_fd,
	      OPTIONAL),
	TRACE_FD,
	INTERACTIVE,
	{},
};

const JsonDispatch ops_move_fields[] = {
	NAMESPACE("namespace", OpsMoveRequest, ns),
	PATH("from", OpsMoveRequest, from),
	PATH("to", OpsMoveRequest, to),
	FIELD("create", JSON_T_STRING, ops_dispatch_enum, OpsMoveRequest, create, OPTIONAL,
	      .data = &ops_create_enum),
	FIELD("beneath", JSON_T_BOOLEAN, dispatch_bool, OpsMoveRequest, beneath, OPTIONAL),
	TRACE_FD,
	INTERACTIVE,
	{},
};

const JsonDispatch ops_unmount_fields[] = {
	NAMESPACE("namespace", OpsUnmountRequest, ns),
	PATH("path", OpsUnmountRequest, path),
	FIELD("detach", JSON_T_BOOLEAN, dispatch_bool, OpsUnmountRequest, detach, OPTIONAL),
	FIELD("force", JSON_T_BOOLEAN, dispatch_bool, OpsUnmountRequest, force, OPTIONAL),
	FIELD("fsType", JSON_T_STRING, json_dispatch_string, OpsUnmountRequest, fstype, OPTIONAL,
	      .max = OPS_FSTYPE_MAX),
	TRACE_FD,
	INTERACTIVE,
	{},
};

const JsonDispatch ops_info_fields[] = {
	NAMESPACE("namespace", OpsInfoRequest, ns),
	PATH("path", OpsInfoRequest, path),
	FIELD("attribute", JSON_T_STRING, json_dispatch_string, OpsInfoRequest, attribute, OPTIONAL,
	      .max = 64),
	FIELD("nth", JSON_T_UNSIGNED, json_dispatch_uint32, OpsInfoRequest, nth, OPTIONAL),
	FIELD("mth", JSON_T_UNSIGNED, json_dispatch_uint32, OpsInfoRequest, mth, OPTIONAL),
	FIELD("noFallback", JSON_T_BOOLEAN, dispatch_bool, OpsInfoRequest, no_fallback, OPTIONAL),
	{},
};

const JsonDispatch ops_namespace_only_fields[] = {
	NAMESPACE("namespace", OpsListRequest, ns),
	{},
};

int ops_request_decode(const OpsMethod *m, json_object *parameters, const OpsFds *fds, void *req,
		       const char **ret_field)
{
	const char *bad = NULL, *field = NULL;
	int r;

	field_path[0] = 0;
	decode_fds = fds;
	r = json_dispatch(parameters, m->fields, req, &bad);
	decode_fds = NULL;
	if (r < 0) {
		if (r == -EBADMSG && !bad)
			bad = "parameters";
		*ret_field = bad ?: "parameters";
		return r == -ENOMEM ? r : -EINVAL;
	}
	r = m->validate(req, &field);
	if (r < 0) {
		*ret_field = field ?: "parameters";
		return r == -ENOMEM ? r : -EINVAL;
	}
	return 0;
}
