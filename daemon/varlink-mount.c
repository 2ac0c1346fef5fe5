/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The varlink front end of the mount operations.  Thin on purpose: decode
 * with the dispatch tables, check with ops_*_validate() before any system
 * call, call the operation, encode.  Error mapping:
 *   dispatch/validation failure        → org.varlink.service.InvalidParameter{parameter}
 *   a failed step (log.failed_step)    → io.mountd.Mount.MountFailed{step, errno, ...}
 *   anything else                      → io.mountd.Mount.InternalError{errno, errnoName}
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>

#include <systemd/sd-event.h>

#include "json-dispatch.h"
#include "util.h"
#include "authorize.h"
#include "ops-call.h"
#include "job.h"
#include "ops-names.h"
#include "varlink-mount.h"
#include "watch.h"

#define ERROR_MOUNT_FAILED  "io.mountd.Mount.MountFailed"
#define ERROR_NOT_SUPPORTED "io.mountd.Mount.NotSupported"

static const char *const propagation_names[] = {"private", "shared", "slave", "unbindable", NULL};
static const char *const create_names[] = {"directory", "file", NULL};
static const char *const atime_names[] = {"relatime", "noatime", "strictatime", NULL};
static const char *const param_type_names[] = {"flag",	     "string", "binary", "path",
					       "path_empty", "fd",     NULL};

/* ---- JSON-side shapes: what the dispatch tables fill ---------------------- */

typedef struct JNamespace {
	int pid;
	int pidfd;
	int mntns_fd;
} JNamespace;

#define JNAMESPACE_NULL ((JNamespace){.pid = 0, .pidfd = -1, .mntns_fd = -1})

/* -1 unset (or null), 0 false, 1 true */
typedef struct JAttributes {
	int read_only, nosuid, nodev, noexec, atime, nodiratime, nosymfollow;
} JAttributes;

#define JATTRIBUTES_NULL ((JAttributes){-1, -1, -1, -1, -1, -1, -1})

typedef struct JPlacement {
	JNamespace ns;
	char *path;
	int create;
	int beneath;
} JPlacement;

#define JPLACEMENT_NULL ((JPlacement){.ns = JNAMESPACE_NULL, .create = -1, .beneath = -1})

typedef struct JImage {
	int fd;
	uint32_t partition;
	char *partition_type;
} JImage;

static int dispatch_tristate(const JsonDispatch *e, json_object *v, void *p, const char **bad)
{
	(void)e;
	(void)bad;
	if (!v) {
		*(int *)p = -1;
		return 0;
	}
	if (!json_object_is_type(v, json_type_boolean))
		return -EINVAL;
	*(int *)p = json_object_get_boolean(v);
	return 0;
}

static const JsonDispatch namespace_table[] = {
	{.name = "pid",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_int,
	 .offset = offsetof(JNamespace, pid),
	 .flags = JSON_NULLABLE,
	 .min = 1,
	 .max = INT32_MAX},
	{.name = "pidfd",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_fd_index,
	 .offset = offsetof(JNamespace, pidfd),
	 .flags = JSON_NULLABLE},
	{.name = "mntnsFd",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_fd_index,
	 .offset = offsetof(JNamespace, mntns_fd),
	 .flags = JSON_NULLABLE},
	{},
};

static const JsonDispatch attributes_table[] = {
	{.name = "readOnly",
	 .type = JSON_T_BOOLEAN,
	 .callback = dispatch_tristate,
	 .offset = offsetof(JAttributes, read_only),
	 .flags = JSON_NULLABLE},
	{.name = "noSuid",
	 .type = JSON_T_BOOLEAN,
	 .callback = dispatch_tristate,
	 .offset = offsetof(JAttributes, nosuid),
	 .flags = JSON_NULLABLE},
	{.name = "noDev",
	 .type = JSON_T_BOOLEAN,
	 .callback = dispatch_tristate,
	 .offset = offsetof(JAttributes, nodev),
	 .flags = JSON_NULLABLE},
	{.name = "noExec",
	 .type = JSON_T_BOOLEAN,
	 .callback = dispatch_tristate,
	 .offset = offsetof(JAttributes, noexec),
	 .flags = JSON_NULLABLE},
	{.name = "atime",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_enum,
	 .offset = offsetof(JAttributes, atime),
	 .flags = JSON_NULLABLE,
	 .data = atime_names},
	{.name = "noDiratime",
	 .type = JSON_T_BOOLEAN,
	 .callback = dispatch_tristate,
	 .offset = offsetof(JAttributes, nodiratime),
	 .flags = JSON_NULLABLE},
	{.name = "noSymfollow",
	 .type = JSON_T_BOOLEAN,
	 .callback = dispatch_tristate,
	 .offset = offsetof(JAttributes, nosymfollow),
	 .flags = JSON_NULLABLE},
	{},
};

static const JsonDispatch placement_table[] = {
	{.name = "namespace",
	 .type = JSON_T_OBJECT,
	 .callback = json_dispatch_object,
	 .offset = offsetof(JPlacement, ns),
	 .flags = JSON_NULLABLE,
	 .data = namespace_table},
	{.name = "path",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_string,
	 .offset = offsetof(JPlacement, path),
	 .flags = JSON_MANDATORY,
	 .max = MNT_PATH_MAX},
	{.name = "create",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_enum,
	 .offset = offsetof(JPlacement, create),
	 .flags = JSON_NULLABLE,
	 .data = create_names},
	{.name = "beneath",
	 .type = JSON_T_BOOLEAN,
	 .callback = dispatch_tristate,
	 .offset = offsetof(JPlacement, beneath),
	 .flags = JSON_NULLABLE},
	{},
};

static const JsonDispatch image_table[] = {
	{.name = "fd",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_fd_index,
	 .offset = offsetof(JImage, fd),
	 .flags = JSON_MANDATORY},
	{.name = "partition",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_uint32,
	 .offset = offsetof(JImage, partition),
	 .flags = JSON_NULLABLE,
	 .min = 0,
	 .max = 65535},
	{.name = "partitionType",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_string,
	 .offset = offsetof(JImage, partition_type),
	 .flags = JSON_NULLABLE,
	 .max = 36},
	{},
};

typedef struct JParam {
	char *key;
	int type;
	char *value;
	int fd;
} JParam;

static const JsonDispatch param_table[] = {
	/* Lengths are checked by ops_params_validate() so that the limit
	 * and the error are in one place for both front ends. */
	{.name = "key",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_string,
	 .offset = offsetof(JParam, key),
	 .flags = JSON_MANDATORY},
	{.name = "type",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_enum,
	 .offset = offsetof(JParam, type),
	 .flags = JSON_MANDATORY,
	 .data = param_type_names},
	{.name = "value",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_string,
	 .offset = offsetof(JParam, value),
	 .flags = JSON_NULLABLE},
	{.name = "fd",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_fd_index,
	 .offset = offsetof(JParam, fd),
	 .flags = JSON_NULLABLE},
	{},
};

/* ---- conversions --------------------------------------------------------- */

int vm_unbase64(const char *s, void **ret, size_t *ret_size)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(s), out = 0;
	uint32_t acc = 0;
	int bits = 0;
	_cleanup_free_ uint8_t *buf = malloc(n / 4 * 3 + 3);

	if (!buf)
		return -ENOMEM;
	while (n > 0 && s[n - 1] == '=')
		n--;
	for (size_t i = 0; i < n; i++) {
		const char *c = s[i] ? strchr(alphabet, s[i]) : NULL;

		if (!c)
			return -EINVAL;
		acc = acc << 6 | (uint32_t)(c - alphabet);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[out++] = (uint8_t)(acc >> bits);
		}
	}
	/* Leftover bits must be padding zeros, and a lone 6-bit group is not
	 * a byte. */
	if (bits >= 6 || (acc & ((1u << bits) - 1)))
		return -EINVAL;
	*ret = TAKE_PTR(buf);
	*ret_size = out;
	return 0;
}

static int dup_fd(FdLookup lookup, void *userdata, int index)
{
	int fd = lookup(userdata, (unsigned)index);

	if (fd < 0)
		return fd;
	fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	return fd < 0 ? negative_errno() : fd;
}

int vm_params_from_json(json_object *a, FdLookup lookup, void *userdata, MntParam **ret,
			size_t *ret_n, const char **ret_field)
{
	MntParam *params = NULL;
	size_t n, i;
	int r = 0;

	*ret = NULL;
	*ret_n = 0;
	if (!a)
		return 0;
	if (!json_object_is_type(a, json_type_array)) {
		*ret_field = "parameters";
		return -EINVAL;
	}
	n = json_object_array_length(a);
	if (n > OPS_PARAMS_MAX) {
		*ret_field = "parameters";
		return -E2BIG;
	}
	params = calloc(n ?: 1, sizeof(MntParam));
	if (!params)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		params[i].fd = -EBADF;

	for (i = 0; i < n && r >= 0; i++) {
		JParam j = {.type = -1, .fd = -1};
		MntParam *p = &params[i];
		const char *bad = NULL;

		r = json_dispatch(json_object_array_get_idx(a, i), param_table, &j, &bad);
		if (r < 0) {
			static char field[96];

			snprintf(field, sizeof(field), "parameters[%zu]%s%s", i, bad ? "." : "",
				 bad ?: "");
			*ret_field = field;
		} else {
			p->type = (MntParamType)j.type;
			p->key = TAKE_PTR(j.key);
			if (p->type == MNT_PARAM_BINARY && j.value) {
				r = vm_unbase64(j.value, &p->blob, &p->blob_size);
				if (r < 0) {
					static char field[96];
					snprintf(field, sizeof(field), "parameters[%zu].value", i);
					*ret_field = field;
				}
			} else
				p->value = TAKE_PTR(j.value);
			if (r >= 0 && j.fd >= 0) {
				p->fd = dup_fd(lookup, userdata, j.fd);
				if (p->fd < 0) {
					static char field[96];
					snprintf(field, sizeof(field), "parameters[%zu].fd", i);
					*ret_field = field;
					r = p->fd == -ENOMEM ? -ENOMEM : -EINVAL;
				}
			}
		}
		json_dispatch_done(param_table, &j);
	}
	if (r < 0) {
		for (i = 0; i < n; i++)
			mnt_param_done(&params[i]);
		free(params);
		return r;
	}
	*ret = params;
	*ret_n = n;
	return 0;
}

static int call_fd_lookup(void *userdata, unsigned index)
{
	return varlink_call_peek_fd(userdata, index);
}

static json_object *vm_messages_to_json(const MntLog *log)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < log->n_messages; i++) {
		const MntMessage *m = &log->messages[i];
		json_object *o = json_object_new_object();
		char level[2] = {m->level, 0};

		if (!o)
			break;
		json_object_object_add(o, "step", json_object_new_string(m->step));
		json_object_object_add(o, "level", json_object_new_string(level));
		json_object_object_add(o, "text", json_object_new_string(m->text));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *vm_steps_to_json(const MntLog *log)
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

/* Fill an OpsNamespace from its JSON form; unset means the caller's. */
static int namespace_convert(VarlinkCall *call, const JNamespace *j, const char *field,
			     OpsNamespace *ret)
{
	*ret = OPS_NAMESPACE_NULL;
	ret->pid = j->pid;
	if (j->pidfd >= 0) {
		ret->pidfd = varlink_call_peek_fd(call, (unsigned)j->pidfd);
		if (ret->pidfd < 0)
			return varlink_call_error_invalid_parameter(call, "pidfd"), -EINVAL;
	}
	if (j->mntns_fd >= 0) {
		ret->mntns_fd = varlink_call_peek_fd(call, (unsigned)j->mntns_fd);
		if (ret->mntns_fd < 0)
			return varlink_call_error_invalid_parameter(call, "mntnsFd"), -EINVAL;
	}
	if (ops_namespace_is_set(ret))
		return 0;

	/* Nothing named: the namespace of the process that called us. */
	ret->pidfd = varlink_call_get_peer_pidfd(call);
	if (ret->pidfd < 0) {
		struct ucred uc;
		int r = varlink_call_get_peer_ucred(call, &uc);

		ret->pidfd = -EBADF;
		if (r < 0)
			return r;
		ret->pid = uc.pid;
	}
	(void)field;
	return 0;
}

static void attributes_convert(const JAttributes *j, int propagation, OpsAttributes *ret)
{
	static const struct {
		size_t off;
		uint64_t bit;
	} map[] = {
		{offsetof(JAttributes, read_only), MOUNT_ATTR_RDONLY},
		{offsetof(JAttributes, nosuid), MOUNT_ATTR_NOSUID},
		{offsetof(JAttributes, nodev), MOUNT_ATTR_NODEV},
		{offsetof(JAttributes, noexec), MOUNT_ATTR_NOEXEC},
		{offsetof(JAttributes, nodiratime), MOUNT_ATTR_NODIRATIME},
		{offsetof(JAttributes, nosymfollow), MOUNT_ATTR_NOSYMFOLLOW},
	};
	static const uint64_t atime[] = {MOUNT_ATTR_RELATIME, MOUNT_ATTR_NOATIME,
					 MOUNT_ATTR_STRICTATIME};

	*ret = (OpsAttributes){};
	for (size_t i = 0; i < ELEMENTSOF(map); i++) {
		int v = *(const int *)((const char *)j + map[i].off);
		if (v == 1)
			ret->set |= map[i].bit;
		else if (v == 0)
			ret->clear |= map[i].bit;
	}
	if (j->atime >= 0 && j->atime < (int)ELEMENTSOF(atime))
		ret->set |= atime[j->atime];
	ret->propagation =
		propagation >= 0 ? (OpsPropagation)(propagation + 1) : OPS_PROPAGATION_UNCHANGED;
}

static int placement_convert(VarlinkCall *call, JPlacement *j, OpsPlacement *ret)
{
	int r;

	*ret = (OpsPlacement){.ns = OPS_NAMESPACE_NULL};
	if (!j->path)
		return 0;
	r = namespace_convert(call, &j->ns, "placement.namespace", &ret->ns);
	if (r < 0)
		return r;
	ret->path = TAKE_PTR(j->path);
	ret->create = j->create >= 0 ? (MntCreate)(j->create + 1) : MNT_CREATE_NONE;
	ret->beneath = j->beneath == 1;
	return 0;
}

/* ---- authorization ------------------------------------------------------- */

/* Ask the policy (policy.c via authorize.c) before anything is done.  0:
 * allowed; 1: denied, and the call answered with PermissionDenied and the
 * reason; negative: the facts could not be gathered. */
static int vm_authorize(VarlinkCall *call, const OpsNamespace *ns, const char *fstype,
			uint64_t attributes)
{
	_cleanup_free_ gid_t *groups = NULL;
	_cleanup_free_ char *reason = NULL;
	AuthCaller caller = {.pidfd = varlink_call_get_peer_pidfd(call)};
	const char *method = varlink_call_method(call), *dot;
	struct ucred uc;
	int r;

	r = varlink_call_get_peer_ucred(call, &uc);
	if (r < 0)
		return r;
	caller.id.uid = uc.uid;
	caller.id.gid = uc.gid;
	caller.pid = uc.pid;
	if (caller.pidfd < 0)
		caller.pidfd = -EBADF;
	if (uc.uid != 0) {
		r = varlink_call_get_peer_groups(call, &groups, &caller.id.n_groups);
		if (r < 0)
			return r;
		caller.id.groups = groups;
	}
	dot = method ? strrchr(method, '.') : NULL;
	r = authorize(&caller, dot ? dot + 1 : method, ns, fstype, attributes, &reason);
	if (r != -EPERM)
		return r;

	json_object *p = json_object_new_object();
	if (!p)
		return -ENOMEM;
	json_object_object_add(p, "reason", json_object_new_string(reason ?: "denied by policy"));
	r = varlink_call_error(call, "org.varlink.service.PermissionDenied", p);
	return r < 0 ? r : 1;
}

/* ---- replies --------------------------------------------------------------- */

static int reply_failure(VarlinkCall *call, int r, const MntLog *log)
{
	json_object *p;

	if (r == -ENOMEM || !log->failed_step[0])
		return varlink_call_error_errno(call, r);
	p = json_object_new_object();
	if (!p)
		return -ENOMEM;
	json_object_object_add(p, "step", json_object_new_string(log->failed_step));
	json_object_object_add(p, "errno", json_object_new_int(-r));
	json_object_object_add(p, "errnoName", json_object_new_string(strerrorname_np(-r) ?: "?"));
	json_object_object_add(p, "messages", vm_messages_to_json(log));
	json_object_object_add(p, "steps", vm_steps_to_json(log));
	return varlink_call_error(call, ERROR_MOUNT_FAILED, p);
}

static int reply_invalid(VarlinkCall *call, int r, const char *field)
{
	if (r == -ENOMEM)
		return varlink_call_error_errno(call, r);
	return varlink_call_error_invalid_parameter(call, field ?: "parameters");
}

static int reply_mount(VarlinkCall *call, OpsMountResult *res, const MntLog *log)
{
	_cleanup_json_ json_object *p = json_object_new_object();

	if (!p)
		return -ENOMEM;
	json_object_object_add(p, "mountId", json_object_new_int64((int64_t)res->mount_id));
	if (res->mount_fd >= 0) {
		int index = varlink_call_push_fd(call, TAKE_FD(res->mount_fd));
		if (index < 0)
			return index;
		json_object_object_add(p, "fd", json_object_new_int(index));
	}
	if (res->fstype)
		json_object_object_add(p, "fsType", json_object_new_string(res->fstype));
	if (res->loop_device)
		json_object_object_add(p, "loopDevice", json_object_new_string(res->loop_device));
	json_object_object_add(p, "messages", vm_messages_to_json(log));
	json_object_object_add(p, "steps", vm_steps_to_json(log));
	return varlink_call_reply(call, TAKE_PTR(p));
}

/* The reply of a change without results of its own: its steps. */
static int reply_steps(VarlinkCall *call, const MntLog *log, bool with_messages)
{
	json_object *p = json_object_new_object();

	if (!p)
		return -ENOMEM;
	if (with_messages)
		json_object_object_add(p, "messages", vm_messages_to_json(log));
	json_object_object_add(p, "steps", vm_steps_to_json(log));
	return varlink_call_reply(call, p);
}

/* Give log the request's trace fd (its index, or -1 for none): the steps
 * and messages go there as they happen, and the fd is closed before the
 * reply, so that the client's reader sees EOF first. */
static int vm_trace_start(VarlinkCall *call, int index, MntLog *log)
{
	int fd;

	if (index < 0)
		return 0;
	fd = varlink_call_take_fd(call, (unsigned)index);
	if (fd < 0)
		return -EINVAL;
	return mnt_log_trace(log, fd);
}

/* ---- operations run as jobs, off the event loop (job.c, ops-call.c) -------- */

static int reply_info(VarlinkCall *call, const OpsInfoRequest *req, const OpsInfoResult *res, int r,
		      const MntLog *log);

typedef struct VmJob {
	VarlinkCall *call; /* holds the request's fds */
	OpsCall op;
} VmJob;

static void vm_job_free(VmJob *j)
{
	ops_call_done(&j->op);
	varlink_call_unref(j->call);
	free(j);
}

static void vm_job_run(void *userdata)
{
	VmJob *j = userdata;

	ops_call_run(&j->op);
}

static void vm_job_done(void *userdata)
{
	VmJob *j = userdata;
	OpsCall *c = &j->op;
	int r;

	if (c->kind == OPS_CALL_INFO)
		r = reply_info(j->call, c->req, &c->info, c->r, &c->log);
	else if (c->r < 0)
		r = reply_failure(j->call, c->r, &c->log);
	else if (c->kind == OPS_CALL_CREATE || c->kind == OPS_CALL_BIND)
		r = reply_mount(j->call, &c->res, &c->log);
	else
		r = reply_steps(j->call, &c->log, c->kind == OPS_CALL_RECONFIGURE);
	if (r < 0 && !varlink_call_is_answered(j->call))
		(void)varlink_call_error_errno(j->call, r);
	vm_job_free(j);
}

/* Run an operation and answer when it is done, tracing it to the fd at
 * trace_index (-1: none); req and log move into the job (see
 * ops_call_init()). */
static int vm_start(VarlinkCall *call, OpsCallKind kind, void *req, size_t size, int trace_index,
		    MntLog *log)
{
	_cleanup_(sd_event_unrefp) sd_event *event = NULL;
	VmJob *j;
	int r;

	r = vm_trace_start(call, trace_index, log);
	if (r < 0)
		return reply_invalid(call, r, "traceFd");
	r = sd_event_default(&event);
	if (r < 0)
		return r;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	r = ops_call_init(&j->op, kind, req, size, log);
	if (r < 0) {
		free(j);
		return r;
	}
	j->call = varlink_call_ref(call);
	r = job_submit(event, vm_job_run, vm_job_done, j);
	if (r < 0) {
		vm_job_free(j);
		return r;
	}
	return 0;
}

/* ---- methods --------------------------------------------------------------- */

typedef struct CreateParams {
	char *fstype;
	char *source;
	json_object *parameters;
	bool exclusive;
	JImage image;
	JAttributes attributes;
	int propagation;
	JPlacement placement;
	int trace_fd;
} CreateParams;

static const JsonDispatch create_table[] = {
	{.name = "fsType",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_string,
	 .offset = offsetof(CreateParams, fstype),
	 .flags = JSON_NULLABLE,
	 .max = OPS_FSTYPE_MAX},
	{.name = "source",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_string,
	 .offset = offsetof(CreateParams, source),
	 .flags = JSON_NULLABLE,
	 .max = MNT_STRING_MAX},
	{.name = "parameters",
	 .type = JSON_T_ARRAY,
	 .callback = json_dispatch_json,
	 .offset = offsetof(CreateParams, parameters),
	 .flags = JSON_NULLABLE},
	{.name = "exclusive",
	 .type = JSON_T_BOOLEAN,
	 .callback = json_dispatch_boolean,
	 .offset = offsetof(CreateParams, exclusive),
	 .flags = JSON_NULLABLE},
	{.name = "image",
	 .type = JSON_T_OBJECT,
	 .callback = json_dispatch_object,
	 .offset = offsetof(CreateParams, image),
	 .flags = JSON_NULLABLE,
	 .data = image_table},
	{.name = "attributes",
	 .type = JSON_T_OBJECT,
	 .callback = json_dispatch_object,
	 .offset = offsetof(CreateParams, attributes),
	 .flags = JSON_NULLABLE,
	 .data = attributes_table},
	{.name = "propagation",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_enum,
	 .offset = offsetof(CreateParams, propagation),
	 .flags = JSON_NULLABLE,
	 .data = propagation_names},
	{.name = "placement",
	 .type = JSON_T_OBJECT,
	 .callback = json_dispatch_object,
	 .offset = offsetof(CreateParams, placement),
	 .flags = JSON_NULLABLE,
	 .data = placement_table},
	{.name = "traceFd",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_fd_index,
	 .offset = offsetof(CreateParams, trace_fd),
	 .flags = JSON_NULLABLE},
	{},
};

static void create_params_done(CreateParams *p)
{
	json_dispatch_done(create_table, p);
}

static int method_create(VarlinkCall *call, json_object *parameters, VarlinkCallFlags flags,
			 void *userdata)
{
	_cleanup_(create_params_done) CreateParams p = {
		.trace_fd = -1,
		.image = {.fd = -1},
		.attributes = JATTRIBUTES_NULL,
		.propagation = -1,
		.placement = JPLACEMENT_NULL,
	};
	_cleanup_(ops_create_request_done) OpsCreateRequest req = {.image.fd = -EBADF};
	_cleanup_(mnt_log_done) MntLog log = {};
	const char *field = NULL;
	int r;

	(void)flags;
	(void)userdata;
	r = varlink_call_dispatch(call, parameters, create_table, &p);
	if (r < 0)
		return r;

	req.fstype = TAKE_PTR(p.fstype);
	req.source = TAKE_PTR(p.source);
	req.exclusive = p.exclusive;
	r = vm_params_from_json(p.parameters, call_fd_lookup, call, &req.params, &req.n_params,
				&field);
	if (r < 0)
		return reply_invalid(call, r, field);
	if (p.image.fd >= 0) {
		req.image.fd = varlink_call_peek_fd(call, (unsigned)p.image.fd);
		if (req.image.fd < 0)
			return varlink_call_error_invalid_parameter(call, "image.fd");
		req.image.partition = p.image.partition;
		req.image.partition_type = TAKE_PTR(p.image.partition_type);
	}
	attributes_convert(&p.attributes, p.propagation, &req.attr);
	r = placement_convert(call, &p.placement, &req.place);
	if (r < 0)
		return varlink_call_is_answered(call) ? 0 : r;

	r = ops_create_validate(&req, &field);
	if (r < 0)
		return reply_invalid(call, r, field);
	r = vm_authorize(call, req.place.path ? &req.place.ns : NULL, req.fstype, req.attr.set);
	if (r != 0)
		return r < 0 ? r : 0;
	return vm_start(call, OPS_CALL_CREATE, &req, sizeof(req), p.trace_fd, &log);
}

typedef struct BindParams {
	JNamespace source_ns;
	char *source_path;
	int source_fd;
	int recursive;
	int userns_fd;
	JAttributes attributes;
	int propagation;
	JPlacement placement;
	int trace_fd;
} BindParams;

static const JsonDispatch bind_table[] = {
	{.name = "sourceNamespace",
	 .type = JSON_T_OBJECT,
	 .callback = json_dispatch_object,
	 .offset = offsetof(BindParams, source_ns),
	 .flags = JSON_NULLABLE,
	 .data = namespace_table},
	{.name = "sourcePath",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_string,
	 .offset = offsetof(BindParams, source_path),
	 .flags = JSON_NULLABLE,
	 .max = MNT_PATH_MAX},
	{.name = "sourceFd",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_fd_index,
	 .offset = offsetof(BindParams, source_fd),
	 .flags = JSON_NULLABLE},
	{.name = "recursive",
	 .type = JSON_T_BOOLEAN,
	 .callback = dispatch_tristate,
	 .offset = offsetof(BindParams, recursive),
	 .flags = JSON_NULLABLE},
	{.name = "idmapUserNamespaceFd",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_fd_index,
	 .offset = offsetof(BindParams, userns_fd),
	 .flags = JSON_NULLABLE},
	{.name = "attributes",
	 .type = JSON_T_OBJECT,
	 .callback = json_dispatch_object,
	 .offset = offsetof(BindParams, attributes),
	 .flags = JSON_NULLABLE,
	 .data = attributes_table},
	{.name = "propagation",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_enum,
	 .offset = offsetof(BindParams, propagation),
	 .flags = JSON_NULLABLE,
	 .data = propagation_names},
	{.name = "placement",
	 .type = JSON_T_OBJECT,
	 .callback = json_dispatch_object,
	 .offset = offsetof(BindParams, placement),
	 .flags = JSON_NULLABLE,
	 .data = placement_table},
	{.name = "traceFd",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_fd_index,
	 .offset = offsetof(BindParams, trace_fd),
	 .flags = JSON_NULLABLE},
	{},
};

static void bind_params_done(BindParams *p)
{
	json_dispatch_done(bind_table, p);
}

static int method_bind(VarlinkCall *call, json_object *parameters, VarlinkCallFlags flags,
		       void *userdata)
{
	_cleanup_(bind_params_done) BindParams p = {
		.trace_fd = -1,
		.source_ns = JNAMESPACE_NULL,
		.source_fd = -1,
		.recursive = -1,
		.userns_fd = -1,
		.attributes = JATTRIBUTES_NULL,
		.propagation = -1,
		.placement = JPLACEMENT_NULL,
	};
	_cleanup_(ops_bind_request_done) OpsBindRequest req = {
		.source_fd = -EBADF,
		.userns_fd = -EBADF,
	};
	_cleanup_(mnt_log_done) MntLog log = {};
	const char *field = NULL;
	int r;

	(void)flags;
	(void)userdata;
	r = varlink_call_dispatch(call, parameters, bind_table, &p);
	if (r < 0)
		return r;

	r = namespace_convert(call, &p.source_ns, "sourceNamespace", &req.source_ns);
	if (r < 0)
		return varlink_call_is_answered(call) ? 0 : r;
	req.source_path = TAKE_PTR(p.source_path);
	if (p.source_fd >= 0) {
		req.source_fd = varlink_call_peek_fd(call, (unsigned)p.source_fd);
		if (req.source_fd < 0)
			return varlink_call_error_invalid_parameter(call, "sourceFd");
	}
	if (p.userns_fd >= 0) {
		req.userns_fd = varlink_call_peek_fd(call, (unsigned)p.userns_fd);
		if (req.userns_fd < 0)
			return varlink_call_error_invalid_parameter(call, "idmapUserNamespaceFd");
	}
	req.recursive = p.recursive != 0;
	attributes_convert(&p.attributes, p.propagation, &req.attr);
	r = placement_convert(call, &p.placement, &req.place);
	if (r < 0)
		return varlink_call_is_answered(call) ? 0 : r;

	r = ops_bind_validate(&req, &field);
	if (r < 0)
		return reply_invalid(call, r, field);
	/* A source named by path is read in its namespace: that namespace
	 * must be the caller's to bind from, as the target is to bind to. */
	if (!req.source_path)
		r = 0;
	else
		r = vm_authorize(call, &req.source_ns, NULL, req.attr.set);
	if (r == 0)
		r = vm_authorize(call, req.place.path ? &req.place.ns : NULL, NULL, req.attr.set);
	if (r != 0)
		return r < 0 ? r : 0;
	return vm_start(call, OPS_CALL_BIND, &req, sizeof(req), p.trace_fd, &log);
}

typedef struct ReconfigureParams {
	JNamespace ns;
	char *path;
	json_object *parameters;
	int trace_fd;
} ReconfigureParams;

static const JsonDispatch reconfigure_table[] = {
	{.name = "namespace",
	 .type = JSON_T_OBJECT,
	 .callback = json_dispatch_object,
	 .offset = offsetof(ReconfigureParams, ns),
	 .flags = JSON_NULLABLE,
	 .data = namespace_table},
	{.name = "path",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_string,
	 .offset = offsetof(ReconfigureParams, path),
	 .flags = JSON_MANDATORY,
	 .max = MNT_PATH_MAX},
	{.name = "parameters",
	 .type = JSON_T_ARRAY,
	 .callback = json_dispatch_json,
	 .offset = offsetof(ReconfigureParams, parameters),
	 .flags = JSON_MANDATORY},
	{.name = "traceFd",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_fd_index,
	 .offset = offsetof(ReconfigureParams, trace_fd),
	 .flags = JSON_NULLABLE},
	{},
};

static void reconfigure_params_done(ReconfigureParams *p)
{
	json_dispatch_done(reconfigure_table, p);
}

static int method_reconfigure(VarlinkCall *call, json_object *parameters, VarlinkCallFlags flags,
			      void *userdata)
{
	_cleanup_(reconfigure_params_done)
		ReconfigureParams p = {.trace_fd = -1, .ns = JNAMESPACE_NULL};
	_cleanup_(ops_reconfigure_request_done) OpsReconfigureRequest req = {};
	_cleanup_(mnt_log_done) MntLog log = {};
	const char *field = NULL;
	int r;

	(void)flags;
	(void)userdata;
	r = varlink_call_dispatch(call, parameters, reconfigure_table, &p);
	if (r < 0)
		return r;
	r = namespace_convert(call, &p.ns, "namespace", &req.ns);
	if (r < 0)
		return varlink_call_is_answered(call) ? 0 : r;
	req.path = TAKE_PTR(p.path);
	r = vm_params_from_json(p.parameters, call_fd_lookup, call, &req.params, &req.n_params,
				&field);
	if (r < 0)
		return reply_invalid(call, r, field);
	r = ops_reconfigure_validate(&req, &field);
	if (r < 0)
		return reply_invalid(call, r, field);
	r = vm_authorize(call, &req.ns, NULL, 0);
	if (r != 0)
		return r < 0 ? r : 0;
	return vm_start(call, OPS_CALL_RECONFIGURE, &req, sizeof(req), p.trace_fd, &log);
}

typedef struct SetattrParams {
	JNamespace ns;
	char *path;
	bool recursive;
	JAttributes attributes;
	int propagation;
	int userns_fd;
	int trace_fd;
} SetattrParams;

static const JsonDispatch setattr_table[] = {
	{.name = "namespace",
	 .type = JSON_T_OBJECT,
	 .callback = json_dispatch_object,
	 .offset = offsetof(SetattrParams, ns),
	 .flags = JSON_NULLABLE,
	 .data = namespace_table},
	{.name = "path",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_string,
	 .offset = offsetof(SetattrParams, path),
	 .flags = JSON_MANDATORY,
	 .max = MNT_PATH_MAX},
	{.name = "recursive",
	 .type = JSON_T_BOOLEAN,
	 .callback = json_dispatch_boolean,
	 .offset = offsetof(SetattrParams, recursive),
	 .flags = JSON_NULLABLE},
	{.name = "attributes",
	 .type = JSON_T_OBJECT,
	 .callback = json_dispatch_object,
	 .offset = offsetof(SetattrParams, attributes),
	 .flags = JSON_NULLABLE,
	 .data = attributes_table},
	{.name = "propagation",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_enum,
	 .offset = offsetof(SetattrParams, propagation),
	 .flags = JSON_NULLABLE,
	 .data = propagation_names},
	{.name = "idmapUserNamespaceFd",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_fd_index,
	 .offset = offsetof(SetattrParams, userns_fd),
	 .flags = JSON_NULLABLE},
	{.name = "traceFd",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_fd_index,
	 .offset = offsetof(SetattrParams, trace_fd),
	 .flags = JSON_NULLABLE},
	{},
};

static void setattr_params_done(SetattrParams *p)
{
	json_dispatch_done(setattr_table, p);
}

static int method_setattr(VarlinkCall *call, json_object *parameters, VarlinkCallFlags flags,
			  void *userdata)
{
	_cleanup_(setattr_params_done) SetattrParams p = {
		.trace_fd = -1,
		.ns = JNAMESPACE_NULL,
		.attributes = JATTRIBUTES_NULL,
		.propagation = -1,
		.userns_fd = -1,
	};
	_cleanup_(ops_setattr_request_done) OpsSetattrRequest req = {.userns_fd = -EBADF};
	_cleanup_(mnt_log_done) MntLog log = {};
	const char *field = NULL;
	int r;

	(void)flags;
	(void)userdata;
	r = varlink_call_dispatch(call, parameters, setattr_table, &p);
	if (r < 0)
		return r;
	r = namespace_convert(call, &p.ns, "namespace", &req.ns);
	if (r < 0)
		return varlink_call_is_answered(call) ? 0 : r;
	req.path = TAKE_PTR(p.path);
	req.recursive = p.recursive;
	if (p.userns_fd >= 0) {
		req.userns_fd = varlink_call_peek_fd(call, (unsigned)p.userns_fd);
		if (req.userns_fd < 0)
			return varlink_call_error_invalid_parameter(call, "idmapUserNamespaceFd");
	}
	attributes_convert(&p.attributes, p.propagation, &req.attr);
	r = ops_setattr_validate(&req, &field);
	if (r < 0)
		return reply_invalid(call, r, field);
	r = vm_authorize(call, &req.ns, NULL, 0);
	if (r != 0)
		return r < 0 ? r : 0;
	return vm_start(call, OPS_CALL_SETATTR, &req, sizeof(req), p.trace_fd, &log);
}

typedef struct MoveParams {
	JNamespace ns;
	char *from;
	char *to;
	int create;
	bool beneath;
	int trace_fd;
} MoveParams;

static const JsonDispatch move_table[] = {
	{.name = "namespace",
	 .type = JSON_T_OBJECT,
	 .callback = json_dispatch_object,
	 .offset = offsetof(MoveParams, ns),
	 .flags = JSON_NULLABLE,
	 .data = namespace_table},
	{.name = "from",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_string,
	 .offset = offsetof(MoveParams, from),
	 .flags = JSON_MANDATORY,
	 .max = MNT_PATH_MAX},
	{.name = "to",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_string,
	 .offset = offsetof(MoveParams, to),
	 .flags = JSON_MANDATORY,
	 .max = MNT_PATH_MAX},
	{.name = "create",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_enum,
	 .offset = offsetof(MoveParams, create),
	 .flags = JSON_NULLABLE,
	 .data = create_names},
	{.name = "beneath",
	 .type = JSON_T_BOOLEAN,
	 .callback = json_dispatch_boolean,
	 .offset = offsetof(MoveParams, beneath),
	 .flags = JSON_NULLABLE},
	{.name = "traceFd",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_fd_index,
	 .offset = offsetof(MoveParams, trace_fd),
	 .flags = JSON_NULLABLE},
	{},
};

static void move_params_done(MoveParams *p)
{
	json_dispatch_done(move_table, p);
}

static int method_move(VarlinkCall *call, json_object *parameters, VarlinkCallFlags flags,
		       void *userdata)
{
	_cleanup_(move_params_done)
		MoveParams p = {.trace_fd = -1, .ns = JNAMESPACE_NULL, .create = -1};
	_cleanup_(ops_move_request_done) OpsMoveRequest req = {};
	_cleanup_(mnt_log_done) MntLog log = {};
	const char *field = NULL;
	int r;

	(void)flags;
	(void)userdata;
	r = varlink_call_dispatch(call, parameters, move_table, &p);
	if (r < 0)
		return r;
	r = namespace_convert(call, &p.ns, "namespace", &req.ns);
	if (r < 0)
		return varlink_call_is_answered(call) ? 0 : r;
	req.from = TAKE_PTR(p.from);
	req.to = TAKE_PTR(p.to);
	req.create = p.create >= 0 ? (MntCreate)(p.create + 1) : MNT_CREATE_NONE;
	req.beneath = p.beneath;
	r = ops_move_validate(&req, &field);
	if (r < 0)
		return reply_invalid(call, r, field);
	r = vm_authorize(call, &req.ns, NULL, 0);
	if (r != 0)
		return r < 0 ? r : 0;
	return vm_start(call, OPS_CALL_MOVE, &req, sizeof(req), p.trace_fd, &log);
}

typedef struct UnmountParams {
	JNamespace ns;
	char *path;
	bool detach, force;
	int trace_fd;
} UnmountParams;

static const JsonDispatch unmount_table[] = {
	{.name = "namespace",
	 .type = JSON_T_OBJECT,
	 .callback = json_dispatch_object,
	 .offset = offsetof(UnmountParams, ns),
	 .flags = JSON_NULLABLE,
	 .data = namespace_table},
	{.name = "path",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_string,
	 .offset = offsetof(UnmountParams, path),
	 .flags = JSON_MANDATORY,
	 .max = MNT_PATH_MAX},
	{.name = "detach",
	 .type = JSON_T_BOOLEAN,
	 .callback = json_dispatch_boolean,
	 .offset = offsetof(UnmountParams, detach),
	 .flags = JSON_NULLABLE},
	{.name = "force",
	 .type = JSON_T_BOOLEAN,
	 .callback = json_dispatch_boolean,
	 .offset = offsetof(UnmountParams, force),
	 .flags = JSON_NULLABLE},
	{.name = "traceFd",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_fd_index,
	 .offset = offsetof(UnmountParams, trace_fd),
	 .flags = JSON_NULLABLE},
	{},
};

static void unmount_params_done(UnmountParams *p)
{
	json_dispatch_done(unmount_table, p);
}

static int method_unmount(VarlinkCall *call, json_object *parameters, VarlinkCallFlags flags,
			  void *userdata)
{
	_cleanup_(unmount_params_done) UnmountParams p = {.trace_fd = -1, .ns = JNAMESPACE_NULL};
	_cleanup_(ops_unmount_request_done) OpsUnmountRequest req = {};
	_cleanup_(mnt_log_done) MntLog log = {};
	const char *field = NULL;
	int r;

	(void)flags;
	(void)userdata;
	r = varlink_call_dispatch(call, parameters, unmount_table, &p);
	if (r < 0)
		return r;
	r = namespace_convert(call, &p.ns, "namespace", &req.ns);
	if (r < 0)
		return varlink_call_is_answered(call) ? 0 : r;
	req.path = TAKE_PTR(p.path);
	req.detach = p.detach;
	req.force = p.force;
	r = ops_unmount_validate(&req, &field);
	if (r < 0)
		return reply_invalid(call, r, field);
	r = vm_authorize(call, &req.ns, NULL, 0);
	if (r != 0)
		return r < 0 ? r : 0;
	return vm_start(call, OPS_CALL_UNMOUNT, &req, sizeof(req), p.trace_fd, &log);
}

typedef struct InfoParams {
	JNamespace ns;
	char *path;
	char *attribute;
	uint32_t nth, mth;
	bool no_fallback;
} InfoParams;

static const JsonDispatch info_table[] = {
	{.name = "namespace",
	 .type = JSON_T_OBJECT,
	 .callback = json_dispatch_object,
	 .offset = offsetof(InfoParams, ns),
	 .flags = JSON_NULLABLE,
	 .data = namespace_table},
	{.name = "path",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_string,
	 .offset = offsetof(InfoParams, path),
	 .flags = JSON_MANDATORY,
	 .max = MNT_PATH_MAX},
	{.name = "attribute",
	 .type = JSON_T_STRING,
	 .callback = json_dispatch_string,
	 .offset = offsetof(InfoParams, attribute),
	 .flags = JSON_NULLABLE,
	 .max = 64},
	{.name = "nth",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_uint32,
	 .offset = offsetof(InfoParams, nth),
	 .flags = JSON_NULLABLE},
	{.name = "mth",
	 .type = JSON_T_UNSIGNED,
	 .callback = json_dispatch_uint32,
	 .offset = offsetof(InfoParams, mth),
	 .flags = JSON_NULLABLE},
	{.name = "noFallback",
	 .type = JSON_T_BOOLEAN,
	 .callback = json_dispatch_boolean,
	 .offset = offsetof(InfoParams, no_fallback),
	 .flags = JSON_NULLABLE},
	{},
};

static void info_params_done(InfoParams *p)
{
	json_dispatch_done(info_table, p);
}

/* The answer to Info, from the job's outcome. */
static int reply_info(VarlinkCall *call, const OpsInfoRequest *req, const OpsInfoResult *res, int r,
		      const MntLog *log)
{
	_cleanup_json_ json_object *reply = NULL;
	json_object *values;

	if (r == -ENOSYS || r == -EOPNOTSUPP) {
		json_object *e = json_object_new_object();
		if (!e)
			return -ENOMEM;
		json_object_object_add(e, "attribute",
				       json_object_new_string(req->attribute ?: "statfs"));
		return varlink_call_error(call, ERROR_NOT_SUPPORTED, e);
	}
	if (r < 0)
		return reply_failure(call, r, log);

	reply = json_object_new_object();
	values = json_object_new_array();
	if (!reply || !values) {
		json_object_put(values);
		return -ENOMEM;
	}
	json_object_object_add(reply, "source",
			       json_object_new_string(ops_info_source_to_string(res->source)));
	json_object_object_add(reply, "attribute", json_object_new_string(res->attribute));
	json_object_object_add(reply, "values", values);
	for (size_t i = 0; i < res->n_values; i++) {
		const OpsValue *v = &res->values[i];
		json_object *o = json_object_new_object();

		if (!o)
			return -ENOMEM;
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
		json_object_array_add(values, o);
	}
	return varlink_call_reply(call, TAKE_PTR(reply));
}

static int method_info(VarlinkCall *call, json_object *parameters, VarlinkCallFlags flags,
		       void *userdata)
{
	_cleanup_(info_params_done) InfoParams p = {.ns = JNAMESPACE_NULL};
	_cleanup_(ops_info_request_done) OpsInfoRequest req = {};
	_cleanup_(mnt_log_done) MntLog log = {};
	const char *field = NULL;
	int r;

	(void)flags;
	(void)userdata;
	r = varlink_call_dispatch(call, parameters, info_table, &p);
	if (r < 0)
		return r;
	r = namespace_convert(call, &p.ns, "namespace", &req.ns);
	if (r < 0)
		return varlink_call_is_answered(call) ? 0 : r;
	req.path = TAKE_PTR(p.path);
	req.attribute = TAKE_PTR(p.attribute);
	req.nth = p.nth;
	req.mth = p.mth;
	req.no_fallback = p.no_fallback;
	r = ops_info_validate(&req, &field);
	if (r < 0)
		return reply_invalid(call, r, field);
	r = vm_authorize(call, &req.ns, NULL, 0);
	if (r != 0)
		return r < 0 ? r : 0;
	return vm_start(call, OPS_CALL_INFO, &req, sizeof(req), -1, &log);
}

static json_object *attributes_to_json(uint64_t attr)
{
	json_object *o = json_object_new_object();
	const char *atime;

	if (!o)
		return NULL;
	json_object_object_add(o, "readOnly", json_object_new_boolean(attr & MOUNT_ATTR_RDONLY));
	json_object_object_add(o, "noSuid", json_object_new_boolean(attr & MOUNT_ATTR_NOSUID));
	json_object_object_add(o, "noDev", json_object_new_boolean(attr & MOUNT_ATTR_NODEV));
	json_object_object_add(o, "noExec", json_object_new_boolean(attr & MOUNT_ATTR_NOEXEC));
	switch (attr & MOUNT_ATTR__ATIME) {
	case MOUNT_ATTR_NOATIME:
		atime = "noatime";
		break;
	case MOUNT_ATTR_STRICTATIME:
		atime = "strictatime";
		break;
	default:
		atime = "relatime";
	}
	json_object_object_add(o, "atime", json_object_new_string(atime));
	json_object_object_add(o, "noDiratime",
			       json_object_new_boolean(attr & MOUNT_ATTR_NODIRATIME));
	json_object_object_add(o, "noSymfollow",
			       json_object_new_boolean(attr & MOUNT_ATTR_NOSYMFOLLOW));
	return o;
}

static json_object *mount_entry_to_json(const OpsMountEntry *e)
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

typedef struct NamespaceOnlyParams {
	JNamespace ns;
} NamespaceOnlyParams;

static const JsonDispatch namespace_only_table[] = {
	{.name = "namespace",
	 .type = JSON_T_OBJECT,
	 .callback = json_dispatch_object,
	 .offset = offsetof(NamespaceOnlyParams, ns),
	 .flags = JSON_NULLABLE,
	 .data = namespace_table},
	{},
};

static int method_list(VarlinkCall *call, json_object *parameters, VarlinkCallFlags flags,
		       void *userdata)
{
	NamespaceOnlyParams p = {.ns = JNAMESPACE_NULL};
	_cleanup_(ops_list_result_done) OpsListResult res = {};
	_cleanup_(mnt_log_done) MntLog log = {};
	_cleanup_json_ json_object *reply = NULL;
	OpsListRequest req;
	json_object *mounts;
	const char *field = NULL;
	int r;

	(void)flags;
	(void)userdata;
	r = varlink_call_dispatch(call, parameters, namespace_only_table, &p);
	if (r < 0)
		return r;
	r = namespace_convert(call, &p.ns, "namespace", &req.ns);
	if (r < 0)
		return varlink_call_is_answered(call) ? 0 : r;
	r = ops_namespace_validate(&req.ns, "namespace", &field);
	if (r < 0)
		return reply_invalid(call, r, field);
	r = vm_authorize(call, &req.ns, NULL, 0);
	if (r != 0)
		return r < 0 ? r : 0;
	r = ops_list(&req, &res, &log);
	if (r < 0)
		return reply_failure(call, r, &log);

	reply = json_object_new_object();
	mounts = json_object_new_array();
	if (!reply || !mounts) {
		json_object_put(mounts);
		return -ENOMEM;
	}
	json_object_object_add(reply, "mounts", mounts);
	for (size_t i = 0; i < res.n_mounts; i++)
		json_object_array_add(mounts, mount_entry_to_json(&res.mounts[i]));
	return varlink_call_reply(call, TAKE_PTR(reply));
}

/* ---- Watch: a "more" stream (watch.c drives it) ------------------------------ */

static void watch_on_event(Watch *w, const OpsWatchEvent *e, void *userdata)
{
	json_object *p = json_object_new_object();

	(void)w;
	if (!p)
		return;
	json_object_object_add(p, "event",
			       json_object_new_string(ops_watch_event_to_string(e->type)));
	json_object_object_add(p, "mount", mount_entry_to_json(&e->mount));
	(void)varlink_call_notify(userdata, p);
}

static void watch_on_end(Watch *w, int r, void *userdata)
{
	VarlinkCall *call = userdata;

	(void)w;
	if (r < 0 && r != -ESHUTDOWN)
		(void)varlink_call_error_errno(call, r);
	else {
		json_object *p = json_object_new_object();

		if (p)
			json_object_object_add(p, "event", json_object_new_string("gone"));
		(void)varlink_call_reply(call, p);
	}
	varlink_call_unref(call);
}

static const WatchCallbacks watch_callbacks = {
	.event = watch_on_event,
	.end = watch_on_end,
};

static void watch_on_disconnect(VarlinkCall *call, void *userdata)
{
	watch_free(userdata);
	varlink_call_unref(call);
}

static int method_watch(VarlinkCall *call, json_object *parameters, VarlinkCallFlags flags,
			void *userdata)
{
	NamespaceOnlyParams p = {.ns = JNAMESPACE_NULL};
	_cleanup_(mnt_log_done) MntLog log = {};
	_cleanup_(sd_event_unrefp) sd_event *event = NULL;
	Watch *w;
	json_object *ready;
	OpsNamespace ns;
	const char *field = NULL;
	int r;

	(void)flags;
	(void)userdata;
	r = varlink_call_dispatch(call, parameters, namespace_only_table, &p);
	if (r < 0)
		return r;
	r = namespace_convert(call, &p.ns, "namespace", &ns);
	if (r < 0)
		return varlink_call_is_answered(call) ? 0 : r;
	r = ops_namespace_validate(&ns, "namespace", &field);
	if (r < 0)
		return reply_invalid(call, r, field);
	r = vm_authorize(call, &ns, NULL, 0);
	if (r != 0)
		return r < 0 ? r : 0;
	r = sd_event_default(&event);
	if (r < 0)
		return r;

	r = watch_new(event, &ns, &watch_callbacks, call, &w, &log);
	if (r < 0)
		return reply_failure(call, r, &log);
	r = varlink_call_set_disconnect_callback(call, watch_on_disconnect, w);
	if (r < 0) {
		watch_free(w);
		return r;
	}
	varlink_call_ref(call);
	ready = json_object_new_object();
	if (ready)
		json_object_object_add(ready, "event", json_object_new_string("ready"));
	(void)varlink_call_notify(call, ready);
	return 0;
}

int varlink_mount_register(VarlinkServer *s)
{
	static const VarlinkMethod methods[] = {
		{"Create", method_create, 0},
		{"Bind", method_bind, 0},
		{"Reconfigure", method_reconfigure, 0},
		{"SetAttributes", method_setattr, 0},
		{"Move", method_move, 0},
		{"Unmount", method_unmount, 0},
		{"Info", method_info, 0},
		{"List", method_list, 0},
		{"Watch", method_watch, VARLINK_METHOD_MORE_ONLY},
		{},
	};
	int r;

	r = varlink_server_add_interface(s, io_mountd_mount_idl, methods, NULL);
	if (r < 0)
		return r;
	return varlink_server_set_errno_error(s, "io.mountd.Mount.InternalError");
}
