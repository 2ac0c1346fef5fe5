/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operation table (see ops-table.h): each method of io.mountd.Mount
 * described once.  Its requests are decoded in ops-table-decode.c, its
 * replies and errors encoded in ops-table-encode.c, and the worker side of
 * the executor is ops-table-execute.c.
 */
#include <errno.h>

#include "ops-table-internal.h"
#include "util.h"

/* ---- per-method glue ---------------------------------------------------------- */

static void create_init(void *p)
{
	*(OpsCreateRequest *)p = (OpsCreateRequest){
		.image.fd = -EBADF,
		.image.hash_fd = -EBADF,
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
		.path = r->place.path,
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
		.path = r->place.path,
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

/* A type the request names is a fact the policy may match (fstype=) and
 * the worker holds it to: nothing else is unmounted. */
static void unmount_targets(void *p, OpsTargets *ret)
{
	OpsUnmountRequest *r = p;

	*ret = (OpsTargets){.target = &r->ns, .target_field = "namespace", .fstype = r->fstype};
}
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
	return ops_reconfigure(req, log);
}

static int setattr_execute(const void *req, OpsResult *res, MntLog *log)
{
	return ops_setattr(req, log);
}

static int move_execute(const void *req, OpsResult *res, MntLog *log)
{
	return ops_move(req, log);
}

static int unmount_execute(const void *req, OpsResult *res, MntLog *log)
{
	return ops_unmount(req, log);
}

static int info_execute(const void *req, OpsResult *res, MntLog *log)
{
	return ops_info(req, &res->info, log);
}

/* fsinfo() missing, or the attribute unknown to the filesystem. */
static int info_encode_error(const void *req, int r, const char **ret_name,
			     json_object **ret_params)
{
	const OpsInfoRequest *info = req;
	_cleanup_json_ json_object *p = NULL;

	if (r != -ENOSYS && r != -EOPNOTSUPP)
		return 0;
	p = json_object_new_object();
	if (json_add(p, "attribute", json_object_new_string(info->attribute ?: "statfs")) < 0)
		return -ENOMEM;
	*ret_name = OPS_ERROR_NAME_NOT_SUPPORTED;
	*ret_params = TAKE_PTR(p);
	return 1;
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

/* verity came last, after steps: D-Bus's positional arguments before it
 * stay where they were. */
static const OpsReplyField create_reply[] = {
	{"mountId", OPS_REPLY_MOUNT_ID, true},	{"fd", OPS_REPLY_MOUNT_FD, true},
	{"fsType", OPS_REPLY_FSTYPE, true},	{"loopDevice", OPS_REPLY_LOOP_DEVICE, true},
	{"messages", OPS_REPLY_MESSAGES, true}, {"steps", OPS_REPLY_STEPS, true},
	{"verity", OPS_REPLY_VERITY, true},	{},
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
	.request_size = sizeof(OpsListRequest), .fields = ops_namespace_only_fields,        \
	.request_init = list_init, .request_done = nothing_done, .validate = list_validate, \
	.targets = list_targets, .bus_args = no_args

const OpsMethod ops_methods[] = {
	WORKER_METHOD("Create", OpsCreateRequest, ops_create_fields, create_init,
		      ops_create_request_done_p, ops_create_validate_p, create_targets,
		      create_execute, mount_result_done, create_reply, create_args),
	WORKER_METHOD("Bind", OpsBindRequest, ops_bind_fields, bind_init, ops_bind_request_done_p,
		      ops_bind_validate_p, bind_targets, bind_execute, mount_result_done,
		      bind_reply, bind_args),
	WORKER_METHOD("Reconfigure", OpsReconfigureRequest, ops_reconfigure_fields,
		      reconfigure_init, ops_reconfigure_request_done_p, ops_reconfigure_validate_p,
		      reconfigure_targets, reconfigure_execute, no_result_done, reconfigure_reply,
		      reconfigure_args),
	WORKER_METHOD("SetAttributes", OpsSetattrRequest, ops_setattr_fields, setattr_init,
		      ops_setattr_request_done_p, ops_setattr_validate_p, setattr_targets,
		      setattr_execute, no_result_done, steps_reply, path_args),
	WORKER_METHOD("Move", OpsMoveRequest, ops_move_fields, move_init, ops_move_request_done_p,
		      ops_move_validate_p, move_targets, move_execute, no_result_done, steps_reply,
		      move_args),
	WORKER_METHOD("Unmount", OpsUnmountRequest, ops_unmount_fields, unmount_init,
		      ops_unmount_request_done_p, ops_unmount_validate_p, unmount_targets,
		      unmount_execute, no_result_done, steps_reply, path_args),
	{
		WORKER_METHOD_FIELDS("Info", OpsInfoRequest, ops_info_fields, info_init,
				     ops_info_request_done_p, ops_info_validate_p, info_targets,
				     info_execute, info_result_done, info_reply, path_args),
		.execute_nonblocking = info_execute_nonblocking,
		.encode_error = info_encode_error,
		.reads = true,
	},
	{
		.name = "List",
		.run = OPS_RUN_WORKER,
		NAMESPACE_ONLY,
		.execute = list_execute,
		.result_done = list_result_done,
		.reply = list_reply,
		.reply_in_parts = "mounts",
		.reads = true,
	},
	{
		.name = "Watch",
		.run = OPS_RUN_WATCH,
		NAMESPACE_ONLY,
		.result_done = no_result_done,
		.reply = watch_reply,
		.bus_reply_signature = "o",
		.reads = true,
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

int ops_method_names(char ***ret)
{
	size_t n = 0;
	char **names;

	while (ops_methods[n].name)
		n++;
	names = calloc(n + 1, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		names[i] = (char *)ops_methods[i].name;
	*ret = names;
	return 0;
}
