/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operation table (see ops-table.h): each method of io.mountd.Mount
 * described once, the JSON decoding of requests straight into the Ops*Request
 * structs of ops.h, the JSON encoding of replies and errors, and the worker
 * side of the executor.
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
#include "ops-table.h"
#include "rights.h"
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

	(void)e;
	(void)bad;
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

	(void)p;
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
	(void)e;
	(void)p;
	(void)bad;
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
static int dispatch_enum(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	int r;

	(void)bad;
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

	(void)bad;
	if (!v)
		return 0;
	if (json_object_get_boolean(v))
		a->set |= bit;
	else
		a->clear |= bit;
	return 0;
}

static int dispatch_atime(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	(void)e;
	(void)bad;
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
OPS_ATTRIBUTE_FLAGS(BIT)
#undef BIT

/* One boolean field per OPS_ATTRIBUTE_FLAGS() entry, its bit as data. */
static const JsonDispatch attributes_fields[] = {
#define FLAG(id, _name, bit)             \
	{.name = (_name),                \
	 .type = JSON_T_BOOLEAN,         \
	 .callback = dispatch_attr_flag, \
	 .flags = OPTIONAL,              \
	 .data = &attr_##id},
	OPS_ATTRIBUTE_FLAGS(FLAG)
#undef FLAG
		{.name = "atime",
		 .type = JSON_T_STRING,
		 .callback = dispatch_atime,
		 .flags = OPTIONAL,
		 .data = &ops_atime_enum},
	{},
};

static const JsonDispatch placement_fields[] = {
	FIELD("namespace", JSON_T_OBJECT, dispatch_nested, OpsPlacement, ns, OPTIONAL,
	      .data = namespace_fields),
	FIELD("path", JSON_T_STRING, json_dispatch_string, OpsPlacement, path, REQUIRED,
	      .max = MNT_PATH_MAX),
	FIELD("create", JSON_T_STRING, dispatch_enum, OpsPlacement, create, OPTIONAL,
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
	{},
};

static const JsonDispatch parameter_fields[] = {
	/* Lengths are checked by ops_params_validate(): one place for the
	 * limits and their errors. */
	FIELD("key", JSON_T_STRING, json_dispatch_string, JParam, key, REQUIRED),
	FIELD("type", JSON_T_STRING, dispatch_enum, JParam, type, REQUIRED,
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
#define ATTRIBUTES(_struct)                                                                   \
	FIELD("attributes", JSON_T_OBJECT, dispatch_nested, _struct, attr, OPTIONAL,          \
	      .data = attributes_fields),                                                     \
		FIELD("propagation", JSON_T_STRING, dispatch_enum, _struct, attr.propagation, \
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

static const JsonDispatch create_fields[] = {
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

static const JsonDispatch bind_fields[] = {
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

static const JsonDispatch reconfigure_fields[] = {
	NAMESPACE("namespace", OpsReconfigureRequest, ns),
	PATH("path", OpsReconfigureRequest, path),
	PARAMETERS(OpsReconfigureRequest, REQUIRED),
	TRACE_FD,
	INTERACTIVE,
	{},
};

static const JsonDispatch setattr_fields[] = {
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

static const JsonDispatch move_fields[] = {
	NAMESPACE("namespace", OpsMoveRequest, ns),
	PATH("from", OpsMoveRequest, from),
	PATH("to", OpsMoveRequest, to),
	FIELD("create", JSON_T_STRING, dispatch_enum, OpsMoveRequest, create, OPTIONAL,
	      .data = &ops_create_enum),
	FIELD("beneath", JSON_T_BOOLEAN, dispatch_bool, OpsMoveRequest, beneath, OPTIONAL),
	TRACE_FD,
	INTERACTIVE,
	{},
};

static const JsonDispatch unmount_fields[] = {
	NAMESPACE("namespace", OpsUnmountRequest, ns),
	PATH("path", OpsUnmountRequest, path),
	FIELD("detach", JSON_T_BOOLEAN, dispatch_bool, OpsUnmountRequest, detach, OPTIONAL),
	FIELD("force", JSON_T_BOOLEAN, dispatch_bool, OpsUnmountRequest, force, OPTIONAL),
	TRACE_FD,
	INTERACTIVE,
	{},
};

static const JsonDispatch info_fields[] = {
	NAMESPACE("namespace", OpsInfoRequest, ns),
	PATH("path", OpsInfoRequest, path),
	FIELD("attribute", JSON_T_STRING, json_dispatch_string, OpsInfoRequest, attribute, OPTIONAL,
	      .max = 64),
	FIELD("nth", JSON_T_UNSIGNED, json_dispatch_uint32, OpsInfoRequest, nth, OPTIONAL),
	FIELD("mth", JSON_T_UNSIGNED, json_dispatch_uint32, OpsInfoRequest, mth, OPTIONAL),
	FIELD("noFallback", JSON_T_BOOLEAN, dispatch_bool, OpsInfoRequest, no_fallback, OPTIONAL),
	{},
};

static const JsonDispatch namespace_only_fields[] = {
	NAMESPACE("namespace", OpsListRequest, ns),
	{},
};

/* ---- per-method glue ---------------------------------------------------------- */

static void create_init(void *p)
{
	*(OpsCreateRequest *)p = (OpsCreateRequest){
		.image.fd = -EBADF,
		.place.ns = OPS_NAMESPACE_NULL,
	};
}

static void bind_init(void *p)
{
	*(OpsBindRequest *)p = (OpsBindRequest){
		.source_ns = OPS_NAMESPACE_NULL,
		.source_fd = -EBADF,
		.recursive = true,
		.userns_fd = -EBADF,
		.place.ns = OPS_NAMESPACE_NULL,
	};
}

static void reconfigure_init(void *p)
{
	*(OpsReconfigureRequest *)p = (OpsReconfigureRequest){.ns = OPS_NAMESPACE_NULL};
}

static void setattr_init(void *p)
{
	*(OpsSetattrRequest *)p = (OpsSetattrRequest){
		.ns = OPS_NAMESPACE_NULL,
		.userns_fd = -EBADF,
	};
}

static void move_init(void *p)
{
	*(OpsMoveRequest *)p = (OpsMoveRequest){.ns = OPS_NAMESPACE_NULL};
}

static void unmount_init(void *p)
{
	*(OpsUnmountRequest *)p = (OpsUnmountRequest){.ns = OPS_NAMESPACE_NULL};
}

static void info_init(void *p)
{
	*(OpsInfoRequest *)p = (OpsInfoRequest){.ns = OPS_NAMESPACE_NULL};
}

static void list_init(void *p)
{
	*(OpsListRequest *)p = (OpsListRequest){.ns = OPS_NAMESPACE_NULL};
}

static void nothing_done(void *p)
{
	(void)p;
}

/* Without a placement the mount comes back as an fd: the operation then
 * touches no namespace but the caller's. */
static void create_targets(void *p, OpsTargets *ret)
{
	OpsCreateRequest *r = p;

	*ret = (OpsTargets){
		.target = r->place.path ? &r->place.ns : NULL,
		.target_field = "placement.namespace",
		.fstype = r->fstype,
		.attributes = r->attr.set,
		.attr = &r->attr,
		.new_mount = true,
		.image = r->image.fd >= 0,
	};
}

/* The source is cloned in its namespace (the caller's by default), which
 * must be the caller's to bind from, as the target is to bind to: whether
 * the source is a path read there or an fd (the kernel clones only a mount
 * of the namespace it runs in, so an fd of any other namespace fails). */
static void bind_targets(void *p, OpsTargets *ret)
{
	OpsBindRequest *r = p;

	*ret = (OpsTargets){
		.target = r->place.path ? &r->place.ns : NULL,
		.target_field = "placement.namespace",
		.source = &r->source_ns,
		.source_field = "sourceNamespace",
		.attributes = r->attr.set,
		.attr = &r->attr,
		.new_mount = true,
	};
}

static void setattr_targets(void *p, OpsTargets *ret)
{
	OpsSetattrRequest *r = p;

	*ret = (OpsTargets){
		.target = &r->ns,
		.target_field = "namespace",
		.attributes = r->attr.set,
		.attr = &r->attr,
	};
}

#define NS_TARGETS(_name, _struct)                                                               \
	static void _name(void *p, OpsTargets *ret)                                              \
	{                                                                                        \
		*ret = (OpsTargets){.target = &((_struct *)p)->ns, .target_field = "namespace"}; \
	}
NS_TARGETS(reconfigure_targets, OpsReconfigureRequest)
NS_TARGETS(move_targets, OpsMoveRequest)
NS_TARGETS(unmount_targets, OpsUnmountRequest)
NS_TARGETS(info_targets, OpsInfoRequest)
NS_TARGETS(list_targets, OpsListRequest)

static int list_validate(const void *p, const char **ret_field)
{
	const OpsNamespace *ns = &((const OpsListRequest *)p)->ns;

	if (ns->root) {
		/* List and Watch resolve no path: a root would mean nothing. */
		*ret_field = "namespace.root";
		return -EINVAL;
	}
	return ops_namespace_validate(ns, "namespace", ret_field);
}

static int create_execute(const void *req, OpsResult *res, MntLog *log)
{
	return ops_create(req, &res->mount, log);
}

static int bind_execute(const void *req, OpsResult *res, MntLog *log)
{
	return ops_bind(req, &res->mount, log);
}

static int reconfigure_execute(const void *req, OpsResult *res, MntLog *log)
{
	(void)res;
	return ops_reconfigure(req, log);
}

static int setattr_execute(const void *req, OpsResult *res, MntLog *log)
{
	(void)res;
	return ops_setattr(req, log);
}

static int move_execute(const void *req, OpsResult *res, MntLog *log)
{
	(void)res;
	return ops_move(req, log);
}

static int unmount_execute(const void *req, OpsResult *res, MntLog *log)
{
	(void)res;
	return ops_unmount(req, log);
}

static int info_execute(const void *req, OpsResult *res, MntLog *log)
{
	return ops_info(req, &res->info, log);
}

static int info_execute_nonblocking(const void *req, int root_fd, uint64_t mnt_ns_id,
				    OpsResult *res)
{
	return ops_info_nonblocking(req, root_fd, mnt_ns_id, &res->info);
}

static int list_execute(const void *req, OpsResult *res, MntLog *log)
{
	return ops_list(req, &res->list, log);
}

static void mount_result_done(OpsResult *res)
{
	ops_mount_result_done(&res->mount);
}

static void info_result_done(OpsResult *res)
{
	ops_info_result_done(&res->info);
}

static void list_result_done(OpsResult *res)
{
	ops_list_result_done(&res->list);
}

static void no_result_done(OpsResult *res)
{
	(void)res;
}

#define DONE(_fn, _type)             \
	static void _fn##_p(void *p) \
	{                            \
		_fn((_type *)p);     \
	}
DONE(ops_create_request_done, OpsCreateRequest)
DONE(ops_bind_request_done, OpsBindRequest)
DONE(ops_reconfigure_request_done, OpsReconfigureRequest)
DONE(ops_setattr_request_done, OpsSetattrRequest)
DONE(ops_move_request_done, OpsMoveRequest)
DONE(ops_unmount_request_done, OpsUnmountRequest)
DONE(ops_info_request_done, OpsInfoRequest)

#define VALIDATE(_fn, _type)                              \
	static int _fn##_p(const void *p, const char **f) \
	{                                                 \
		return _fn((const _type *)p, f);          \
	}
VALIDATE(ops_create_validate, OpsCreateRequest)
VALIDATE(ops_bind_validate, OpsBindRequest)
VALIDATE(ops_reconfigure_validate, OpsReconfigureRequest)
VALIDATE(ops_setattr_validate, OpsSetattrRequest)
VALIDATE(ops_move_validate, OpsMoveRequest)
VALIDATE(ops_unmount_validate, OpsUnmountRequest)
VALIDATE(ops_info_validate, OpsInfoRequest)

/* ---- the replies -------------------------------------------------------------- */

static const OpsReplyField create_reply[] = {
	{"mountId", OPS_REPLY_MOUNT_ID, true},
	{"fd", OPS_REPLY_MOUNT_FD, true},
	{"fsType", OPS_REPLY_FSTYPE, true},
	{"loopDevice", OPS_REPLY_LOOP_DEVICE, true},
	{"messages", OPS_REPLY_MESSAGES, true},
	{"steps", OPS_REPLY_STEPS, true},
	{},
};

/* open_tree() has no filesystem context: no messages on D-Bus. */
static const OpsReplyField bind_reply[] = {
	{"mountId", OPS_REPLY_MOUNT_ID, true},
	{"fd", OPS_REPLY_MOUNT_FD, true},
	{"messages", OPS_REPLY_MESSAGES, false},
	{"steps", OPS_REPLY_STEPS, true},
	{},
};

static const OpsReplyField reconfigure_reply[] = {
	{"messages", OPS_REPLY_MESSAGES, true},
	{"steps", OPS_REPLY_STEPS, true},
	{},
};

static const OpsReplyField steps_reply[] = {
	{"steps", OPS_REPLY_STEPS, true},
	{},
};

static const OpsReplyField info_reply[] = {
	{"source", OPS_REPLY_INFO_SOURCE, true},
	{"attribute", OPS_REPLY_INFO_ATTRIBUTE, true},
	{"values", OPS_REPLY_INFO_VALUES, true},
	{},
};

static const OpsReplyField list_reply[] = {
	{"mounts", OPS_REPLY_MOUNTS, true},
	{},
};

static const OpsReplyField watch_reply[] = {
	{"event", OPS_REPLY_EVENT, false},
	{"mount", OPS_REPLY_MOUNT, false},
	{},
};

static const OpsBusArg create_args[] = {{"fsType", "s"}, {"parameters", "a(ssv)"}, {}};
static const OpsBusArg bind_args[] = {{"sourcePath", "s"}, {}};
static const OpsBusArg reconfigure_args[] = {{"path", "s"}, {"parameters", "a(ssv)"}, {}};
static const OpsBusArg path_args[] = {{"path", "s"}, {}};
static const OpsBusArg move_args[] = {{"from", "s"}, {"to", "s"}, {}};
static const OpsBusArg no_args[] = {{}};

#define WORKER_METHOD_FIELDS(_name, _struct, _fields, _init, _done, _validate, _targets, _execute, \
			     _result_done, _reply, _args)                                          \
	.name = (_name), .run = OPS_RUN_WORKER, .request_size = sizeof(_struct),                   \
	.fields = (_fields), .request_init = (_init), .request_done = (_done),                     \
	.validate = (_validate), .targets = (_targets), .execute = (_execute),                     \
	.result_done = (_result_done), .reply = (_reply), .bus_args = (_args)
#define WORKER_METHOD(...)                        \
	{                                         \
		WORKER_METHOD_FIELDS(__VA_ARGS__) \
	}

/* List and Watch take a namespace and nothing else. */
#define NAMESPACE_ONLY                                                                      \
	.request_size = sizeof(OpsListRequest), .fields = namespace_only_fields,            \
	.request_init = list_init, .request_done = nothing_done, .validate = list_validate, \
	.targets = list_targets, .bus_args = no_args

const OpsMethod ops_methods[] = {
	WORKER_METHOD("Create", OpsCreateRequest, create_fields, create_init,
		      ops_create_request_done_p, ops_create_validate_p, create_targets,
		      create_execute, mount_result_done, create_reply, create_args),
	WORKER_METHOD("Bind", OpsBindRequest, bind_fields, bind_init, ops_bind_request_done_p,
		      ops_bind_validate_p, bind_targets, bind_execute, mount_result_done,
		      bind_reply, bind_args),
	WORKER_METHOD("Reconfigure", OpsReconfigureRequest, reconfigure_fields, reconfigure_init,
		      ops_reconfigure_request_done_p, ops_reconfigure_validate_p,
		      reconfigure_targets, reconfigure_execute, no_result_done, reconfigure_reply,
		      reconfigure_args),
	WORKER_METHOD("SetAttributes", OpsSetattrRequest, setattr_fields, setattr_init,
		      ops_setattr_request_done_p, ops_setattr_validate_p, setattr_targets,
		      setattr_execute, no_result_done, steps_reply, path_args),
	WORKER_METHOD("Move", OpsMoveRequest, move_fields, move_init, ops_move_request_done_p,
		      ops_move_validate_p, move_targets, move_execute, no_result_done, steps_reply,
		      move_args),
	WORKER_METHOD("Unmount", OpsUnmountRequest, unmount_fields, unmount_init,
		      ops_unmount_request_done_p, ops_unmount_validate_p, unmount_targets,
		      unmount_execute, no_result_done, steps_reply, path_args),
	{
		WORKER_METHOD_FIELDS("Info", OpsInfoRequest, info_fields, info_init,
				     ops_info_request_done_p, ops_info_validate_p, info_targets,
				     info_execute, info_result_done, info_reply, path_args),
		.execute_nonblocking = info_execute_nonblocking,
	},
	{
		.name = "List",
		.run = OPS_RUN_WORKER,
		NAMESPACE_ONLY,
		.execute = list_execute,
		.result_done = list_result_done,
		.reply = list_reply,
		.reply_in_parts = "mounts",
	},
	{
		.name = "Watch",
		.run = OPS_RUN_WATCH,
		NAMESPACE_ONLY,
		.result_done = no_result_done,
		.reply = watch_reply,
		.bus_reply_signature = "o",
	},
	{},
};

const OpsMethod *ops_method_find(const char *name)
{
	for (const OpsMethod *m = ops_methods; name && m->name; m++)
		if (streq(m->name, name))
			return m;
	return NULL;
}

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
	for (const JsonDispatch *e = attributes_fields; e->name; e++)
		json_object_object_add(
			o, e->name,
			e->callback == dispatch_atime
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
	for (const JsonDispatch *f = attributes_fields; f->name; f++) {
		if (f != attributes_fields)
			out_literal(o, ",");
		out_string(o, f->name);
		out_literal(o, ":");
		if (f->callback == dispatch_atime)
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
	(void)level;
	(void)flags;
	return print_mounts(pb, json_object_get_userdata(o)) < 0 ? -1 : 0;
}

static void free_mounts(json_object *o, void *userdata)
{
	(void)o;
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
	if (e->callback == dispatch_enum || e->callback == dispatch_atime) {
		enum_idl(e->callback == dispatch_enum ? e->data : &ops_atime_enum, buf, size);
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
	if (m && m->execute == info_execute && (r == -ENOSYS || r == -EOPNOTSUPP)) {
		const OpsInfoRequest *info = req;

		p = json_object_new_object();
		if (p)
			json_object_object_add(p, "attribute",
					       json_object_new_string(info && info->attribute
									      ? info->attribute
									      : "statfs"));
		*ret_name = OPS_ERROR_NAME_NOT_SUPPORTED;
	} else if (r == -EAGAIN && !(log && log->failed_step[0])) {
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

/* ---- the worker side ------------------------------------------------------------ */

static int answer(json_object *reply, char **ret)
{
	/* As the varlink server writes it: mountd may pass it on verbatim. */
	const char *s = json_object_to_json_string_ext(
		reply, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

	if (!s)
		return -ENOMEM;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

static int answer_error(const char *name, json_object *params, char **ret)
{
	_cleanup_json_ json_object *o = json_object_new_object();

	if (!o) {
		json_object_put(params);
		return -ENOMEM;
	}
	json_object_object_add(o, "error", json_object_new_string(name));
	json_object_object_add(o, "parameters", params);
	return answer(o, ret);
}

int ops_restrict_unprivileged(const OpsMethod *m, void *req, const char **ret_reason)
{
	const uint64_t kept = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	OpsTargets t = {};

	*ret_reason = NULL;
	if (m->targets)
		m->targets(req, &t);
	if (!t.attr)
		return 0;
	if (t.new_mount) {
		t.attr->set |= kept;
		t.attr->clear &= ~kept;
		return 0;
	}
	if (t.attr->clear & kept) {
		*ret_reason = "only root may clear nosuid or nodev";
		return -EPERM;
	}
	return 0;
}

/* The caller's identity mountd put in the message; absent for root. */
static int caller_rights(json_object *msg, Rights *ret, gid_t **ret_groups)
{
	json_object *c, *v;
	size_t n;

	*ret = (Rights){};
	*ret_groups = NULL;
	if (!json_object_object_get_ex(msg, "caller", &c))
		return 0;
	if (!json_object_object_get_ex(c, "uid", &v))
		return -EBADMSG;
	ret->uid = (uid_t)json_object_get_int64(v);
	if (!json_object_object_get_ex(c, "gid", &v))
		return -EBADMSG;
	ret->gid = (gid_t)json_object_get_int64(v);
	if (json_object_object_get_ex(c, "groups", &v) && (n = json_object_array_length(v)) > 0) {
		*ret_groups = calloc(n, sizeof(gid_t));
		if (!*ret_groups)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			(*ret_groups)[i] =
				(gid_t)json_object_get_int64(json_object_array_get_idx(v, i));
		ret->groups = *ret_groups;
		ret->n_groups = n;
	}
	/* Never root's rights by accident: the message names a non-root
	 * caller or none. */
	return ret->uid == 0 ? -EBADMSG : 0;
}

int ops_table_execute_nonblocking(const OpsMethod *m, const void *req, int root_fd,
				  uint64_t mnt_ns_id, json_object **ret_parameters)
{
	_cleanup_(mnt_log_done) MntLog log = {};
	OpsResult res = OPS_RESULT_NULL;
	int r, fd = -EBADF;

	*ret_parameters = NULL;
	if (!m->execute_nonblocking)
		return -EAGAIN;
	r = m->execute_nonblocking(req, root_fd, mnt_ns_id, &res);
	if (r >= 0) {
		r = ops_reply_encode(m, &res, &log, ret_parameters, &fd);
		/* No fds leave the loop this way: a result with one is a
		 * worker's to send. */
		if (r >= 0 && fd >= 0) {
			json_object_put(*ret_parameters);
			*ret_parameters = NULL;
			r = -EAGAIN;
		}
	}
	safe_close(fd);
	m->result_done(&res);
	return r;
}

int ops_table_execute(const char *request, int *fds, size_t n_fds, char **ret_reply, int **ret_fds,
		      size_t *ret_n_fds)
{
	_cleanup_free_ gid_t *groups = NULL;
	Rights rights;
	_cleanup_json_ json_object *msg = NULL, *reply = NULL, *params = NULL;
	_cleanup_(mnt_log_done) MntLog log = {};
	_cleanup_free_ void *req = NULL;
	OpsFds f = {.fds = fds, .n = n_fds, .trace_fd = -EBADF};
	OpsResult res = OPS_RESULT_NULL;
	const char *field, *name;
	const OpsMethod *m;
	json_object *v;
	int r, fd = -EBADF;

	*ret_reply = NULL;
	*ret_fds = NULL;
	*ret_n_fds = 0;
	msg = json_tokener_parse(request);
	if (!msg || !json_object_object_get_ex(msg, "method", &v) ||
	    !(m = ops_method_find(json_object_get_string(v))) || m->run != OPS_RUN_WORKER)
		return -EBADMSG;
	json_object_object_get_ex(msg, "parameters", &v);

	req = malloc(m->request_size);
	if (!req)
		return -ENOMEM;
	m->request_init(req);
	r = ops_request_decode(m, v, &f, req, &field);
	if (r < 0) {
		/* mountd decoded the same request before: this is a bug. */
		m->request_done(req);
		params = json_object_new_object();
		if (!params)
			return -ENOMEM;
		json_object_object_add(params, "parameter", json_object_new_string(field));
		return answer_error(OPS_ERROR_NAME_INVALID_PARAMETER, TAKE_PTR(params), ret_reply);
	}
	if (f.trace_fd >= 0) {
		int t = fcntl(f.trace_fd, F_DUPFD_CLOEXEC, 3);

		r = t < 0 ? negative_errno() : mnt_log_trace(&log, t);
		if (r < 0) {
			m->request_done(req);
			return r;
		}
	}
	r = caller_rights(msg, &rights, &groups);
	if (r >= 0 && rights.uid != 0) {
		const char *reason;

		r = ops_restrict_unprivileged(m, req, &reason);
	}
	if (r >= 0)
		r = rights_enter(&rights);
	if (r >= 0) {
		r = m->execute(req, &res, &log);
		rights_leave();
	} else
		mnt_log_fail(&log, "credentials");
	/* The trace's reader sees EOF before the reply: no copy of the fd
	 * may stay open here. */
	mnt_log_trace_end(&log);
	for (size_t i = 0; f.trace_fd >= 0 && i < n_fds; i++)
		if (fds[i] == f.trace_fd)
			fds[i] = safe_close(fds[i]);
	if (r < 0)
		r = ops_error_encode(m, req, r, &log, &name, &params) < 0
			    ? -ENOMEM
			    : answer_error(name, TAKE_PTR(params), ret_reply);
	else {
		r = ops_reply_encode(m, &res, &log, &params, &fd);
		if (r >= 0) {
			reply = json_object_new_object();
			if (!reply)
				r = -ENOMEM;
			else {
				json_object_object_add(reply, "parameters", TAKE_PTR(params));
				r = answer(reply, ret_reply);
			}
		}
		if (r >= 0 && fd >= 0) {
			*ret_fds = malloc(sizeof(int));
			if (!*ret_fds)
				r = -ENOMEM;
			else {
				(*ret_fds)[0] = TAKE_FD(fd);
				*ret_n_fds = 1;
			}
		}
	}
	safe_close(fd);
	m->result_done(&res);
	m->request_done(req);
	return r;
}
