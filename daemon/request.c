/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * From a decoded call to its answer, for both front ends (see request.h).
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mount-entry.h"
#include "request-audit.h"
#include "executor.h"
#include "log.h"
#include "executor-nonblocking.h"
#include "authorize-policy.h"
#include "authorize-polkit.h"
#include "sys-process.h"
#include "request-ratelimit.h"
#include "ops-internal.h"
#include "request.h"
#include "executor-rights.h"
#include "util.h"

static Executor *executor;
/* A change that is still running after this long is given up: its
 * worker is killed, and the caller told (REQUEST_TIMEOUT_USEC_DEFAULT). */
static uint64_t timeout_usec = REQUEST_TIMEOUT_USEC_DEFAULT;
static uint64_t own_ns_id;				 /* mountd's own mount namespace */
static NonblockingRoot own_root = NONBLOCKING_ROOT_NULL; /* as a worker there sees it */
static size_t n_pending;
static void (*idle_cb)(void *);
static void *idle_userdata;

void request_answer_done(RequestAnswer *a)
{
	json_object_put(a->parameters);
	close_many(a->fds, a->n_fds);
	free(a->fds);
	*a = (RequestAnswer){};
}

/* Calls being started: an answer given meanwhile is written by the front
 * end after request_start() returns. */
static unsigned n_starting;

static void answer(const RequestCall *c, RequestAnswer *a)
{
	/* Before done(), which may take the answer's parameters. */
	audit_request(&c->caller, c->method ? c->method->name : "?", c->method && !c->method->reads,
		      c->parameters, c->authorized_by, a->error, a->error ? a->parameters : NULL);
	c->done(a, c->userdata);
	request_answer_done(a);
	/* Given later (a worker's, polkit's), the answer is out when done()
	 * returns: both front ends write at once.  Its record follows now
	 * rather than one loop iteration later. */
	if (n_starting == 0)
		audit_flush();
}

int request_answer_errno(int r, RequestAnswer *ret)
{
	*ret = (RequestAnswer){};
	return ops_error_encode(NULL, NULL, r, NULL, &ret->error, &ret->parameters);
}

/* lent_lost: the worker may have written part of an answer to the client
 * itself; the record says what failed, the connection ends. */
static void answer_failure(const RequestCall *c, const void *req, int r, const MntLog *log,
			   bool lent_lost)
{
	RequestAnswer a = {};

	if (ops_error_encode(c->method, req, r, log, &a.error, &a.parameters) < 0)
		(void)request_answer_errno(-ENOMEM, &a);
	a.lent_lost = lent_lost;
	answer(c, &a);
}

static void answer_invalid(const RequestCall *c, int r, const char *field)
{
	RequestAnswer a = {};

	if (r == -ENOMEM) {
		answer_failure(c, NULL, r, NULL, false);
		return;
	}
	a.error = OPS_ERROR_NAME_INVALID_PARAMETER;
	a.parameters = json_object_new_object();
	if (json_add(a.parameters, "parameter", json_object_new_string(field)) < 0) {
		json_object_put(a.parameters);
		answer_failure(c, NULL, -ENOMEM, NULL, false);
		return;
	}
	answer(c, &a);
}

/* Past the caller's rate (request-ratelimit.h): answered LimitExceeded before
 * anything is done for it, and recorded only when the rate limit says.
 * 1 when answered, 0 to go on, negative when no answer could be made. */
static int answer_rate_limited(const RequestCall *c)
{
	RateVerdict v = ratelimit_take(c->caller.principal);
	char reason[96];
	RequestAnswer a;
	int r;

	if (v == RATE_PASS)
		return 0;
	r = request_answer_errno(-EAGAIN, &a);
	if (r < 0)
		return r;
	if (v == RATE_REFUSE) {
		RequestCall limited = *c;

		snprintf(reason, sizeof(reason), "rate limit: %s", ratelimit_describe());
		limited.authorized_by = reason;
		answer(&limited, &a);
		return 1;
	}
	c->done(&a, c->userdata);
	request_answer_done(&a);
	return 1;
}

/* ---- namespaces ---------------------------------------------------------- */

/* A namespace a request names, held from authorization to the end. */
typedef struct Pin {
	int pidfd; /* the process that named it, if one did */
	int nsfs;  /* the mount namespace */
	uint64_t id;
} Pin;

#define PIN_NULL ((Pin){.pidfd = -EBADF, .nsfs = -EBADF})

static void pin_done(Pin *p)
{
	p->pidfd = safe_close(p->pidfd);
	p->nsfs = safe_close(p->nsfs);
}

/* Pin ns (a pid becomes a pidfd here, once) and rewrite it to name the
 * pinned process, so that the policy and everything after see one process.
 * Failures are the "namespace" step, as they always were. */
static int pin(OpsNamespace *ns, Pin *ret, MntLog *log)
{
	int r;

	*ret = PIN_NULL;
	if (ns->pid > 0) {
		ret->pidfd = pidfd_open(ns->pid, 0);
		if (ret->pidfd < 0) {
			mnt_log_fail(log, "namespace");
			/* No such process: as /proc/PID/ns/mnt has always said. */
			return errno == ESRCH ? -ENOENT : negative_errno();
		}
		*ns = OPS_NAMESPACE_NULL;
		ns->pidfd = ret->pidfd;
	} else if (ns->pidfd >= 0) {
		ret->pidfd = fcntl(ns->pidfd, F_DUPFD_CLOEXEC, 3);
		if (ret->pidfd < 0) {
			mnt_log_fail(log, "namespace");
			return negative_errno();
		}
	}
	if (ret->pidfd >= 0) {
		ret->nsfs = process_mntns(0, ret->pidfd);
		if (ret->nsfs < 0) {
			r = ret->nsfs;
			mnt_log_fail(log, "namespace");
			return r;
		}
	} else {
		ret->nsfs = ops_namespace_open(ns, log);
		if (ret->nsfs < 0)
			return ret->nsfs;
	}
	r = mnt_ns_id(ret->nsfs, &ret->id);
	if (r < 0)
		mnt_log_fail(log, "namespace");
	return r;
}

/* Where the request names no namespace, the caller's is meant: the one of
 * the process pinned when it connected, never of whatever has its pid now
 * (a D-Bus caller of a bus daemon without ProcessFD has none: -ESRCH). */
static int default_namespace(OpsNamespace *ns, const AuthCaller *caller, MntLog *log)
{
	if (!ns || ops_namespace_is_set(ns))
		return 0;
	if (caller->pidfd < 0) {
		mnt_log_fail(log, "namespace");
		return -ESRCH;
	}
	ns->pidfd = caller->pidfd;
	return 0;
}

/* Point the JSON at a pinned namespace: {"mntnsFd": index}, with the
 * request's root in it kept. */
static int json_set_namespace(json_object *params, const char *path, int index)
{
	_cleanup_free_ char *copy = strdup(path);
	json_object *o = params, *ns, *old, *root = NULL;
	char *dot, *key;

	if (!copy)
		return -ENOMEM;
	key = copy;
	while ((dot = strchr(key, '.'))) {
		*dot = 0;
		if (!json_object_object_get_ex(o, key, &o) ||
		    !json_object_is_type(o, json_type_object))
			return -EINVAL;
		key = dot + 1;
	}
	ns = json_object_new_object();
	if (json_add(ns, "mntnsFd", json_object_new_int(index)) < 0)
		return -ENOMEM;
	if (json_object_object_get_ex(o, key, &old) && json_object_is_type(old, json_type_object) &&
	    json_object_object_get_ex(old, "root", &root) &&
	    json_add(ns, "root", json_object_get(root)) < 0)
		return -ENOMEM;
	return json_add(o, key, TAKE_PTR(ns));
}

/* ---- running in a worker -------------------------------------------------- */

/* A request handed to the executor (executor.c queues it as its Job), as
 * the loop keeps it until the worker's answer: the call to answer. */
typedef struct Submitted {
	RequestCall call;
	char *authorized_by;
} Submitted;

static void submitted_free(Submitted *sub)
{
	free(sub->authorized_by);
	free(sub);
}

/* A change whose namespace lost its processes while it ran: the process
 * that named the namespace has exited and no process is left in it. */
static bool submitted_namespace_gone(const Submitted *sub, const ExecReply *reply)
{
	struct stat st;
	int fd;

	if (sub->call.method->reads || !exec_reply_owner_gone(reply) || fstat(reply->nsfs, &st) < 0)
		return false;
	/* The worker that served it is in it still: it does not count. */
	fd = process_in_mntns(st.st_dev, st.st_ino, getpid());
	if (fd >= 0) {
		safe_close(fd);
		return false;
	}
	return fd == -ESRCH;
}

static void pending_dec(void)
{
	if (--n_pending == 0 && idle_cb)
		idle_cb(idle_userdata);
}

static int serialize_text(json_object *o, struct printbuf *pb, int level, int flags)
{
	const char *text = json_object_get_userdata(o);

	return printbuf_memappend(pb, text, (int)strlen(text));
}

static void free_text(json_object *o, void *userdata)
{
	free(userdata);
}

/* The parameters of a worker's success reply, {"parameters":P} (the only
 * key: an error's text starts with "error"), as an object that serializes
 * to P as the worker wrote it: a List of many mounts is neither parsed nor
 * written again here.  NULL when the text has another shape.  Its bytes
 * end at the first NUL, so they cannot split the varlink stream. */
static json_object *parameters_as_text(char **text)
{
	static const char prefix[] = "{\"parameters\":";
	const size_t skip = sizeof(prefix) - 1;
	size_t n = *text ? strlen(*text) : 0;
	json_object *o;

	if (n <= skip + 2 || strncmp(*text, prefix, skip) != 0 || (*text)[n - 1] != '}' ||
	    (*text)[skip] != '{')
		return NULL;
	o = json_object_new_object();
	if (!o)
		return NULL;
	memmove(*text, *text + skip, n - skip - 1);
	(*text)[n - skip - 1] = 0;
	json_object_set_serializer(o, serialize_text, TAKE_PTR(*text), free_text);
	return o;
}

static void submitted_done(int r, ExecReply *reply, void *userdata)
{
	Submitted *sub = userdata;
	RequestAnswer a = {};
	_cleanup_json_ json_object *msg = NULL;
	json_object *v;

	/* The answer stays the worker's: the mount was made, and lasts as
	 * long as anything (an fd of the namespace the caller holds, say)
	 * keeps the namespace; a failure would be untrue then. */
	if (r >= 0 && submitted_namespace_gone(sub, reply))
		log_notice("%s into a namespace whose last process exited during the request: "
			   "made, and there for as long as something holds the namespace",
			   sub->call.method->name);
	if (r >= 0 && reply->written > 0) {
		/* Out already, as the worker wrote it: parsed for the record. */
		a.lent_message = reply->json;
		a.lent_written = reply->written;
	} else if (r >= 0 && sub->call.parameters_as_text) {
		a.parameters = parameters_as_text(&reply->json);
		a.text = a.parameters ? json_object_get_userdata(a.parameters) : NULL;
	}
	if (r >= 0 && !a.parameters) {
		msg = reply->json ? json_tokener_parse(reply->json) : NULL;
		/* Written already, the answer cannot be taken back for another:
		 * the record says only that it was not understood here. */
		if (a.lent_written > 0 && (!msg || !json_object_is_type(msg, json_type_object))) {
			log_error("a worker's answer, out already, is no JSON object");
			json_object_put(TAKE_PTR(msg));
			msg = json_object_new_object();
			if (msg && json_add(msg, "error", json_object_new_string("EBADMSG")) < 0)
				json_object_put(TAKE_PTR(msg));
		}
		if (!msg || !json_object_is_type(msg, json_type_object))
			r = -EBADMSG;
	}
	if (r < 0) {
		_cleanup_(mnt_log_done) MntLog log = {};

		/* The executor's own failures, not the method's: the worker
		 * timed out, died or the caller has too many calls running
		 * (-EAGAIN). */
		if (r != -EAGAIN)
			mnt_log_fail(&log, "worker");
		answer_failure(&sub->call, NULL, r, &log, r == -ECONNABORTED || a.lent_written > 0);
	} else {
		if (msg && json_object_object_get_ex(msg, "error", &v))
			a.error = json_object_get_string(v);
		/* Unless it is the worker's text, as it is. */
		if (!a.parameters && json_object_object_get_ex(msg, "parameters", &v))
			a.parameters = json_object_get(v);
		else if (!a.parameters)
			a.parameters = json_object_new_object();
		a.fds = TAKE_PTR(reply->fds);
		a.n_fds = reply->n_fds;
		reply->n_fds = 0;
		answer(&sub->call, &a);
	}
	submitted_free(sub);
	pending_dec();
}

/* The caller's identity, for the worker to look paths up with (executor-rights.h);
 * root's too, so that no message is taken for root's by what it lacks. */
static int caller_to_json(const AuthCaller *caller, bool images_signed_only, json_object *msg)
{
	_cleanup_json_ json_object *c = json_object_new_object(), *groups = json_object_new_array();

	if (json_add(c, "uid", json_object_new_int64(caller->id.uid)) < 0 ||
	    json_add(c, "gid", json_object_new_int64(caller->id.gid)) < 0 ||
	    json_add(c, "principal", json_object_new_int64(caller->principal)) < 0)
		return -ENOMEM;
	if (images_signed_only &&
	    json_add(c, "imagesSignedOnly", json_object_new_boolean(true)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < caller->id.n_groups; i++)
		if (json_add(groups, NULL, json_object_new_int64(caller->id.groups[i])) < 0)
			return -ENOMEM;
	if (json_add(c, "groups", TAKE_PTR(groups)) < 0 || json_add(msg, "caller", TAKE_PTR(c)) < 0)
		return -ENOMEM;
	return 0;
}

static int run_in_worker(const RequestCall *c, void *req, OpsTargets *t, Pin *target, Pin *source,
			 const AuthCaller *caller, int trace_fd)
{
	_cleanup_json_ json_object *params = NULL, *msg = NULL;
	_cleanup_free_ int *fds = NULL;
	size_t n = c->n_fds;
	const char *text;
	ExecKey key;
	Submitted *sub;
	int r;

	/* The worker sees the pinned namespaces only, by fd. */
	if (c->parameters) {
		if (json_object_deep_copy(c->parameters, &params, NULL) < 0)
			return -ENOMEM;
	} else
		params = json_object_new_object();
	if (!params)
		return -ENOMEM;
	fds = malloc(sizeof(int) * (n + 2));
	if (!fds)
		return -ENOMEM;
	if (n > 0)
		memcpy(fds, c->fds, sizeof(int) * n);
	if (t->target && t->target_field) {
		r = json_set_namespace(params, t->target_field, (int)n);
		if (r < 0)
			return r;
		fds[n++] = target->nsfs;
	}
	if (t->source && t->source_field) {
		r = json_set_namespace(params, t->source_field, (int)n);
		if (r < 0)
			return r;
		fds[n++] = source->nsfs;
	}
	msg = json_object_new_object();
	if (!msg)
		return -ENOMEM;
	if (json_add(msg, "method", json_object_new_string(c->method->name)) < 0 ||
	    json_add(msg, "parameters", TAKE_PTR(params)) < 0)
		return -ENOMEM;
	r = caller_to_json(caller, c->images_signed_only, msg);
	if (r < 0)
		return r;
	text = json_object_to_json_string_ext(msg, JSON_C_TO_STRING_PLAIN);
	if (!text)
		return -ENOMEM;

	sub = calloc(1, sizeof(*sub));
	if (!sub)
		return -ENOMEM;
	sub->call = *c;
	if (c->authorized_by) {
		/* The audit record names who authorized it: never run without. */
		sub->authorized_by = strdup(c->authorized_by);
		if (!sub->authorized_by) {
			submitted_free(sub);
			return -ENOMEM;
		}
		sub->call.authorized_by = sub->authorized_by;
	}
	/* Keyed by namespace and caller: a worker serves one caller's
	 * requests in one namespace, and is reused for the next. */
	key = (ExecKey){
		.mntns_id = target->id, .uid = caller->id.uid, .principal = caller->principal};
	/* Its workers end with the process that named the namespace, so as
	 * not to keep it alive; mountd's own namespace lives as long as
	 * mountd, whoever named it.  The pin's fds go to the job (fds[]
	 * names the nsfs too: the job keeps it open until it is sent). */
	r = executor_submit(executor, &key, &target->nsfs,
			    target->id == own_ns_id ? NULL : &target->pidfd, text, fds, n,
			    c->lend_socket ? c->lend_socket(c->userdata) : -EBADF, timeout_usec,
			    submitted_done, sub);
	if (r < 0) {
		submitted_free(sub);
		return r;
	}
	n_pending++;
	/* The worker holds its own copy of the trace fd now. */
	if (trace_fd >= 0 && c->drop_fd)
		for (size_t i = 0; i < c->n_fds; i++)
			if (c->fds[i] == trace_fd) {
				c->drop_fd(i, c->userdata);
				break;
			}
	return 0;
}

/* ---- the path ------------------------------------------------------------- */

#define POLKIT_ACTION_IMAGE	   "io.mountd.mount-image"
#define POLKIT_ACTION_SIGNED_IMAGE "io.mountd.mount-signed-image"

/* What polkit is asked when the policy file did not allow a change. */
static const char *polkit_action(const OpsTargets *t, const Pin *target, uid_t uid)
{
	/* Signed images first: a caller allowed those is held to them. */
	if (t->image)
		return POLKIT_ACTION_SIGNED_IMAGE;
	if (policy_namespace_owner(target->nsfs) == uid)
		return "io.mountd.mount-own-container";
	return "io.mountd.mount-other-namespace";
}

static void answer_denied(const RequestCall *c, const char *reason)
{
	RequestAnswer a = {.error = OPS_ERROR_NAME_PERMISSION};

	a.parameters = json_object_new_object();
	/* Without memory for the reason, still a refusal, with none. */
	(void)json_add(a.parameters, "reason",
		       json_object_new_string(reason ?: "denied by policy"));
	answer(c, &a);
}

/* Decode, default, pin and authorize: 0 to go on, 1 answered, 2 for
 * polkit to decide (*ret_reason: the policy's, *ret_interactive). */
static int prepare(const RequestCall *c, void *req, OpsTargets *t, Pin *target, Pin *source,
		   int *ret_trace_fd, char **ret_reason, bool *ret_interactive,
		   bool *ret_signed_only)
{
	_cleanup_(mnt_log_done) MntLog log = {};
	_cleanup_free_ char *reason = NULL;
	OpsFds f = {.fds = c->fds, .n = c->n_fds, .trace_fd = -EBADF};
	const char *field = NULL;
	int r;

	r = ops_request_decode(c->method, c->parameters, &f, req, &field);
	if (r < 0) {
		answer_invalid(c, r, field);
		return 1;
	}
	if (f.trace_fd >= 0) {
		int fl = fcntl(f.trace_fd, F_GETFL);

		if (fl < 0 || ((fl & O_ACCMODE) != O_WRONLY && (fl & O_ACCMODE) != O_RDWR)) {
			answer_invalid(c, -EBADF, "traceFd");
			return 1;
		}
	}
	*ret_trace_fd = f.trace_fd;
	*ret_interactive = f.interactive;

	if (c->caller.id.uid != 0) {
		const char *why;

		r = ops_restrict_unprivileged(c->method, req, &why);
		if (r == -EPERM) {
			reason = strdup(why);
			if (!reason) {
				r = -ENOMEM;
				goto failed;
			}
			goto denied;
		}
	}
	c->method->targets(req, t);
	r = default_namespace(t->target, &c->caller, &log);
	if (r >= 0)
		r = default_namespace(t->source, &c->caller, &log);
	if (r < 0)
		goto failed;
	if (t->source) {
		r = pin(t->source, source, &log);
		if (r >= 0) {
			r = authorize(&c->caller, c->method, t->source, false, NULL, t->attributes,
				      &reason, NULL);
			if (r == -EPERM || r == -EACCES)
				goto denied;
		}
		if (r < 0)
			goto failed;
	}
	/* Without a target the operation runs in the caller's own namespace. */
	if (t->target)
		r = pin(t->target, target, &log);
	else {
		OpsNamespace own = OPS_NAMESPACE_NULL;

		r = default_namespace(&own, &c->caller, &log);
		if (r >= 0)
			r = pin(&own, target, &log);
	}
	if (r < 0)
		goto failed;
	free(reason);
	r = authorize(&c->caller, c->method, t->target, t->image, t->fstype, t->attributes, &reason,
		      ret_signed_only);
	if (r == -EACCES && c->method->run == OPS_RUN_WORKER && !c->method->reads) {
		*ret_reason = TAKE_PTR(reason);
		return 2;
	}
	if (r == 0)
		*ret_reason = TAKE_PTR(reason);
	if (r == -EPERM || r == -EACCES)
		goto denied;
	if (r < 0)
		goto failed;
	return 0;

denied:
	answer_denied(c, reason);
	return 1;
failed:
	answer_failure(c, req, r, &log, false);
	return 1;
}

static void request_freep(void **req, const OpsMethod *m)
{
	if (*req) {
		m->request_done(*req);
		free(*req);
	}
}

/* In the loop, where nothing on the way can wait (executor-nonblocking.h): no hop
 * to a worker and back.  -EAGAIN: a worker's to run. */
static int run_nonblocking(const RequestCall *c, const void *req, int root_fd, uint64_t mntns_id)
{
	RequestAnswer a = {};

	if (ops_table_execute_nonblocking(c->method, req, root_fd, mntns_id, &a.parameters) < 0)
		return -EAGAIN;
	answer(c, &a);
	return 0;
}

/* Authorized: run it. */
static void run_prepared(const RequestCall *c, void *req, OpsTargets *t, Pin *target, Pin *source,
			 int trace_fd)
{
	int r, root_fd = -EBADF;

	/* mountd's own namespace, or one a worker serves already; a traced
	 * request's steps are a worker's to write.  Root's requests only: the
	 * loop's effective capabilities (executor-caps.h) are not enough to take on
	 * another caller's identity, and it must not look up paths as itself
	 * for one.  Root's lookups lack CAP_DAC_* here: where one fails for
	 * that, a worker answers. */
	if (c->method->execute_nonblocking && trace_fd < 0 && c->caller.id.uid == 0)
		root_fd = target->id == own_ns_id ? nonblocking_root_get(&own_root, own_ns_id)
						  : executor_namespace_root(executor, target->id);
	if (root_fd >= 0 && run_nonblocking(c, req, root_fd, target->id) == 0)
		return;
	r = run_in_worker(c, req, t, target, source, &c->caller, trace_fd);

	if (r < 0) {
		_cleanup_(mnt_log_done) MntLog log = {};

		answer_failure(c, req, r, &log, false);
	}
}

/* A request waiting for polkit's answer, with all it was prepared with. */
typedef struct Pending {
	RequestCall call;
	void *req;
	OpsTargets t;
	Pin target, source;
	int trace_fd;
	char *reason;
	bool interactive;
	const char *action;
	/* What polkit's rules see: key, value, ..., NULL (pending_details()). */
	char *details[2 * 7 + 1];
	char owner[16], attributes[128];
} Pending;

/* The request as polkit's rules see it (action.lookup(KEY)); mountd(8)
 * lists the keys.  image_trust follows the action asked. */
static void pending_details(Pending *p)
{
	uid_t owner = policy_namespace_owner(p->target.nsfs);
	size_t n = 0, len = 0;

	if (owner == (uid_t)-1)
		p->owner[0] = '\0';
	else
		snprintf(p->owner, sizeof(p->owner), "%u", (unsigned)owner);
	p->attributes[0] = '\0';
#define ATTRIBUTE_WORD_(id, name, bit)                                                            \
	if ((p->t.attributes & (bit)) && len < sizeof(p->attributes))                             \
		len += (size_t)snprintf(p->attributes + len, sizeof(p->attributes) - len, "%s%s", \
					len ? "," : "", name);
	MOUNT_ATTRIBUTE_FLAGS(ATTRIBUTE_WORD_)
#undef ATTRIBUTE_WORD_
	p->details[n++] = (char *)"method";
	p->details[n++] = (char *)p->call.method->name;
	p->details[n++] = (char *)"fstype";
	p->details[n++] = (char *)(p->t.fstype ?: "");
	p->details[n++] = (char *)"source";
	p->details[n++] = (char *)(p->t.image ? "image" : "");
	p->details[n++] = (char *)"target_path";
	p->details[n++] = (char *)(p->t.path ?: "");
	p->details[n++] = (char *)"target_namespace_owner";
	p->details[n++] = p->owner;
	p->details[n++] = (char *)"attributes";
	p->details[n++] = p->attributes;
	p->details[n++] = (char *)"image_trust";
	p->details[n++] = (char *)(!p->t.image					  ? ""
				   : streq(p->action, POLKIT_ACTION_SIGNED_IMAGE) ? "signed"
										  : "any");
	p->details[n] = NULL;
}

static void pending_free(Pending *p)
{
	pin_done(&p->target);
	pin_done(&p->source);
	request_freep(&p->req, p->call.method);
	free(p->reason);
	free(p);
}

static void on_polkit(int authorized, void *userdata)
{
	Pending *p = userdata;

	/* Not allowed signed images: perhaps any image. */
	if (authorized == 0 && streq(p->action, POLKIT_ACTION_SIGNED_IMAGE)) {
		p->action = POLKIT_ACTION_IMAGE;
		pending_details(p);
		if (polkit_check(&p->call.caller, p->action, p->details, p->interactive, on_polkit,
				 p) >= 0)
			return;
		p->action = POLKIT_ACTION_SIGNED_IMAGE;
	}
	if (authorized > 0) {
		_cleanup_free_ char *by = NULL;

		/* Not run without naming who authorized it (the audit record). */
		if (asprintf(&by, "polkit: %s", p->action) < 0) {
			by = NULL;
			answer_failure(&p->call, p->req, -ENOMEM, NULL, false);
		} else {
			p->call.authorized_by = by;
			p->call.images_signed_only = streq(p->action, POLKIT_ACTION_SIGNED_IMAGE);
			run_prepared(&p->call, p->req, &p->t, &p->target, &p->source, p->trace_fd);
		}
	} else {
		_cleanup_free_ char *why = NULL;

		if (asprintf(&why, "%s; polkit: %s %s", p->reason ?: "denied by policy", p->action,
			     authorized == 0 ? "not authorized" : strerror(-authorized)) < 0)
			why = NULL;
		answer_denied(&p->call, why ?: p->reason);
	}
	pending_free(p);
	pending_dec();
}

static int start(const RequestCall *c);

int request_start(const RequestCall *c)
{
	int r;

	n_starting++;
	r = start(c);
	n_starting--;
	return r;
}

static int start(const RequestCall *c)
{
	const OpsMethod *m = c->method;
	Pin target = PIN_NULL, source = PIN_NULL;
	_cleanup_free_ char *reason = NULL;
	bool interactive = false, signed_only = false;
	OpsTargets t = {};
	void *req;
	int r, trace_fd = -EBADF;

	if (m->run == OPS_RUN_WATCH)
		return -EINVAL;
	r = answer_rate_limited(c);
	if (r != 0)
		return r < 0 ? r : 0;
	req = malloc(m->request_size);
	if (!req)
		return -ENOMEM;
	m->request_init(req);
	r = prepare(c, req, &t, &target, &source, &trace_fd, &reason, &interactive, &signed_only);
	if (r == 2) {
		Pending *p = calloc(1, sizeof(*p));

		/* No memory to wait for polkit is no denial: InternalError. */
		if (!p)
			answer_failure(c, req, -ENOMEM, NULL, false);
		else {
			*p = (Pending){.call = *c,
				       .req = req,
				       .t = t,
				       .target = target,
				       .source = source,
				       .trace_fd = trace_fd,
				       .reason = TAKE_PTR(reason),
				       .interactive = interactive,
				       .action = polkit_action(&t, &target, c->caller.id.uid)};
			pending_details(p);
			r = polkit_check(&c->caller, p->action, p->details, interactive, on_polkit,
					 p);
			if (r >= 0) {
				n_pending++;
				return 0;
			}
			/* No polkit: the policy file's answer stands. */
			reason = TAKE_PTR(p->reason);
			free(p);
			answer_denied(c, reason);
		}
		r = 0;
	} else if (r == 0) {
		RequestCall authorized = *c;

		authorized.authorized_by = reason;
		authorized.images_signed_only = signed_only;
		run_prepared(&authorized, req, &t, &target, &source, trace_fd);
	}
	r = 0;
	pin_done(&target);
	pin_done(&source);
	request_freep(&req, m);
	return r;
}

static int prepare_watch(const RequestCall *c, OpsNamespace *ret_ns, int *ret_pin);

int request_prepare_watch(const RequestCall *c, OpsNamespace *ret_ns, int *ret_pin)
{
	int r;

	n_starting++;
	r = prepare_watch(c, ret_ns, ret_pin);
	n_starting--;
	return r;
}

static int prepare_watch(const RequestCall *c, OpsNamespace *ret_ns, int *ret_pin)
{
	Pin target = PIN_NULL, source = PIN_NULL;
	OpsListRequest req;
	_cleanup_free_ char *reason = NULL;
	bool interactive;
	OpsTargets t = {};
	int r, trace_fd;

	r = answer_rate_limited(c);
	if (r != 0)
		return r;
	c->method->request_init(&req);
	/* Never 2: reading is the policy file's alone. */
	r = prepare(c, &req, &t, &target, &source, &trace_fd, &reason, &interactive, NULL);
	pin_done(&source);
	if (r > 0) {
		pin_done(&target);
		return 1;
	}
	/* The watch follows the pinned process (its exit ends the watch),
	 * or the namespace alone when none named it. */
	*ret_ns = OPS_NAMESPACE_NULL;
	if (target.pidfd >= 0) {
		ret_ns->pidfd = target.pidfd;
		*ret_pin = TAKE_FD(target.pidfd);
	} else {
		ret_ns->mntns_fd = target.nsfs;
		*ret_pin = TAKE_FD(target.nsfs);
	}
	pin_done(&target);
	return 0;
}

/* ---- setup ----------------------------------------------------------------- */

static int handle(const char *request, int *fds, size_t n_fds, ExecReply *ret)
{
	*ret = (ExecReply){};
	return ops_table_execute(request, fds, n_fds, &ret->json, &ret->fds, &ret->n_fds);
}

int request_setup(sd_event *event, uint64_t worker_idle_usec, uint64_t request_timeout_usec)
{
	_cleanup_close_ int fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || mnt_ns_id(fd, &own_ns_id) < 0)
		own_ns_id = 0;
	/* Without it, every request goes to a worker. */
	if (own_ns_id != 0)
		(void)nonblocking_root_take(&own_root, nonblocking_namespace_root(fd), own_ns_id);
	/* Without polkit the policy file alone decides; without the deferred
	 * journal record, records go out before the answer, as they did. */
	(void)polkit_setup(event);
	(void)audit_setup(event, NULL);
	timeout_usec = request_timeout_usec ?: REQUEST_TIMEOUT_USEC_DEFAULT;
	return executor_new(event, handle, worker_idle_usec, &executor);
}

void request_shutdown(void)
{
	executor = executor_free(executor);
	nonblocking_root_done(&own_root);
	polkit_shutdown();
	audit_shutdown();
}

size_t request_pending(void)
{
	return n_pending;
}

void request_set_idle_callback(void (*cb)(void *userdata), void *userdata)
{
	idle_cb = cb;
	idle_userdata = userdata;
}
