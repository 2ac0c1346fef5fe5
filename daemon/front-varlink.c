/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The varlink front end: io.mountd.Mount, generic over the operation table
 * (ops-table.c).  A call's JSON parameters and fds go to request.c as they
 * came; its answer goes back as it comes.  What is varlink's own is here:
 * the peer's credentials, fds by index, and the Watch stream.
 */

#include <errno.h>
#include <string.h>

#include <systemd/sd-event.h>

#include "json-scan.h"
#include "log.h"
#include "ops-names.h"
#include "executor.h"
#include "request.h"
#include "util.h"
#include "front-varlink.h"
#include "ops-watch-events.h"

typedef struct VmCall {
	VarlinkCall *call;
	/* The server lends them for the callback only; the answer (and its
	 * audit record) may come later. */
	json_object *parameters;
	int *fds; /* borrowed from the call */
	gid_t *groups;
} VmCall;

static VmCall *vm_call_free(VmCall *v)
{
	varlink_call_unref(v->call);
	json_object_put(v->parameters);
	free(v->fds);
	free(v->groups);
	free(v);
	return NULL;
}
DEFINE_TRIVIAL_CLEANUP_FUNC(VmCall *, vm_call_free);

static const OpsMethod *call_method(VarlinkCall *call)
{
	const char *name = varlink_call_method(call), *dot = name ? strrchr(name, '.') : NULL;

	return ops_method_find(dot ? dot + 1 : name);
}

/* Only when an answer of the most a worker writes itself would be sent
 * at all: a server whose message limit is lower (MemoryMax=) keeps its
 * ReplyTooLarge. */
static int vm_lend_socket(void *userdata)
{
	VmCall *v = userdata;

	if (varlink_server_get_max_message_size(varlink_call_server(v->call)) < EXEC_DIRECT_MAX)
		return -EBUSY;
	return varlink_call_lend_socket(v->call);
}

/* The call as request.c takes it: the method, the parameters as sent, the
 * fds by index and who asked. */
static int vm_call_new(VarlinkCall *call, json_object *parameters, RequestCall *rc, VmCall **ret)
{
	_cleanup_(vm_call_freep) VmCall *v = calloc(1, sizeof(VmCall));
	unsigned n = varlink_call_n_fds(call);
	struct ucred uc;
	int r;

	if (!v)
		return -ENOMEM;
	v->call = varlink_call_ref(call);
	v->parameters = json_object_get(parameters);
	v->fds = calloc(n ?: 1, sizeof(int));
	if (!v->fds)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		v->fds[i] = varlink_call_peek_fd(call, i);
	r = varlink_call_get_peer_ucred(call, &uc);
	if (r < 0)
		return r;
	*rc = (RequestCall){
		.method = call_method(call),
		.parameters = v->parameters,
		.fds = v->fds,
		.n_fds = n,
		.caller = {.id = {.uid = uc.uid, .gid = uc.gid},
			   .pid = uc.pid,
			   .principal = varlink_call_get_peer_principal(call)},
		.parameters_as_text = true,
		.lend_socket = vm_lend_socket,
	};
	rc->caller.comm = varlink_call_get_peer_comm(call);
	rc->caller.pidfd = varlink_call_get_peer_pidfd(call);
	if (rc->caller.pidfd < 0)
		rc->caller.pidfd = -EBADF;
	if (uc.uid != 0) {
		r = varlink_call_get_peer_groups(call, &v->groups, &rc->caller.id.n_groups);
		if (r < 0)
			return r;
		rc->caller.id.groups = v->groups;
	}
	if (!rc->method)
		return -EOPNOTSUPP;
	rc->userdata = v;
	*ret = TAKE_PTR(v);
	return 0;
}

static void vm_send(VarlinkCall *call, RequestAnswer *a)
{
	int r;

	if (a->lent_lost) {
		varlink_call_lent_lost(call);
		return;
	}
	if (a->lent_written > 0) {
		(void)varlink_call_lent_answered(call, a->lent_message, a->lent_written);
		return;
	}
	/* Lent but not written to: the answer is the loop's to write. */
	varlink_call_lend_end(call);
	if (a->error) {
		r = varlink_call_error(call, a->error, TAKE_PTR(a->parameters));
	} else {
		for (size_t i = 0; i < a->n_fds; i++) {
			/* The reply names them 0..n-1, the order they are pushed. */
			r = varlink_call_push_fd(call, TAKE_FD(a->fds[i]));
			if (r < 0) {
				(void)varlink_call_error_errno(call, r);
				return;
			}
		}
		a->n_fds = 0;
		r = varlink_call_reply(call, TAKE_PTR(a->parameters));
	}
	if (r < 0 && r != -ENOTCONN && !varlink_call_is_answered(call))
		(void)varlink_call_error_errno(call, r);
}

/* ---- an answer of one array in parts ("more": List) ------------------------ */

/* About this much JSON of whole elements a part. */
#define VM_PART_SIZE (1024U * 1024)

/* The answer {"KEY":[E, ...]} as the worker wrote it, sent as
 * {"KEY":[E...]} parts of about VM_PART_SIZE, each when the client has
 * taken most of the one before (varlink_call_set_drain_callback()): no
 * message is larger than a client reads, however many mounts there are,
 * and mountd holds the text once rather than again in its output. */
typedef struct VmStream {
	VarlinkCall *call;
	json_object *owner; /* the answer's parameters: they own the text */
	const char *text;
	size_t prefix_len; /* {"KEY":[ */
	const char *next;  /* the next element */
	const char *close; /* the array's "]", when the text ends "]}" */
} VmStream;

typedef struct VmPart {
	const VmStream *stream;
	const char *start;
	size_t len;
} VmPart;

static int serialize_part(json_object *o, struct printbuf *pb, int level, int flags)
{
	const VmPart *part = json_object_get_userdata(o);

	if (printbuf_memappend(pb, part->stream->text, (int)part->stream->prefix_len) < 0 ||
	    printbuf_memappend(pb, part->start, (int)part->len) < 0 ||
	    printbuf_memappend(pb, "]}", 2) < 0)
		return -1;
	return 0;
}

static void vm_stream_free(VmStream *st)
{
	(void)varlink_call_set_disconnect_callback(st->call, NULL, NULL);
	varlink_call_unref(st->call);
	json_object_put(st->owner);
	free(st);
}

static void vm_stream_disconnected(VarlinkCall *call, void *userdata)
{
	vm_stream_free(userdata);
}

/* Whole elements from st->next on, up to about size bytes of them: the
 * part ends at *ret_end and the next starts at *ret_next; *ret_last when
 * the array ends there.  -EBADMSG for text that is no array of values. */
static int vm_stream_cut(const VmStream *st, size_t size, const char **ret_end,
			 const char **ret_next, bool *ret_last)
{
	const char *p = st->next;

	*ret_last = false;
	while ((size_t)(p - st->next) < size) {
		if (json_scan_value(&p) < 0)
			return -EBADMSG;
		*ret_end = p;
		p = json_scan_ws(p);
		if (*p == ']') {
			p = json_scan_ws(p + 1);
			if (*p != '}' || *json_scan_ws(p + 1))
				return -EBADMSG;
			*ret_last = true;
			break;
		}
		if (*p++ != ',')
			return -EBADMSG;
		p = json_scan_ws(p);
	}
	*ret_next = p;
	return 0;
}

/* Where the array of a text that ends with it ("...]}") closes; NULL for
 * any other end. */
static const char *vm_array_close(const char *text, size_t len)
{
	const char *p = text + len;
	int want = '}';

	while (p > text) {
		char c = *--p;

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if (c != want)
			return NULL;
		if (want == ']')
			return p;
		want = ']';
	}
	return NULL;
}

/* The next part, or the last as the final reply. */
static void vm_stream_next(VarlinkCall *call, void *userdata)
{
	VmStream *st = userdata;
	/* Well below what a message may be, which memory.max can make
	 * smaller than VM_PART_SIZE (mountd.c). */
	size_t size = MIN(VM_PART_SIZE,
			  varlink_server_get_max_message_size(varlink_call_server(call)) / 2);
	const char *end = st->next, *next;
	json_object *o = NULL;
	VmPart part;
	bool last;
	int r;

	/* The rest in one part: nothing to cut, no scan of it.  The text is
	 * the worker's, as mountd wrote it (a small answer goes from the
	 * worker to the client unread); the scan finds where to cut. */
	if (st->close && (size_t)(st->close - st->next) <= size) {
		end = st->close;
		next = st->close;
		last = true;
		r = 0;
	} else
		r = vm_stream_cut(st, size, &end, &next, &last);
	if (r == -EBADMSG)
		log_error("a worker's answer of %zu bytes is no array at %zu", strlen(st->text),
			  (size_t)(st->next - st->text));
	if (r >= 0 && !(o = json_object_new_object()))
		r = -ENOMEM;
	if (r < 0) {
		(void)varlink_call_error_errno(call, r);
		vm_stream_free(st);
		return;
	}
	part = (VmPart){.stream = st, .start = st->next, .len = (size_t)(end - st->next)};
	/* Written out before notify()/reply() return: part may be on the stack. */
	json_object_set_serializer(o, serialize_part, &part, NULL);
	st->next = next;
	if (last) {
		(void)varlink_call_reply(call, o);
		vm_stream_free(st);
		return;
	}
	r = varlink_call_notify(call, o);
	if (r < 0) {
		/* Over (-ENOTCONN, -EMSGSIZE: answered), or not. */
		if (!varlink_call_is_answered(call))
			(void)varlink_call_error_errno(call, r);
		vm_stream_free(st);
	}
}

/* 1 when a's parameters went to a stream (taken), 0 when they are to go
 * in one reply: a method without parts, no such array, or an empty one. */
static int vm_stream_start(VarlinkCall *call, const OpsMethod *m, RequestAnswer *a)
{
	char prefix[64];
	size_t n, len;
	VmStream *st;
	int r;

	if (!m->reply_in_parts || !a->text || a->error || a->n_fds > 0)
		return 0;
	/* As the worker writes it: the array alone, in no other shape. */
	n = (size_t)snprintf(prefix, sizeof(prefix), "{\"%s\":[", m->reply_in_parts);
	if (n >= sizeof(prefix) || strncmp(a->text, prefix, n) != 0 ||
	    *json_scan_ws(a->text + n) == ']')
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	*st = (VmStream){
		.call = varlink_call_ref(call),
		.owner = TAKE_PTR(a->parameters),
		.text = a->text,
		.prefix_len = n,
		.next = json_scan_ws(a->text + n),
	};
	len = strlen(a->text);
	st->close = vm_array_close(a->text, len);
	/* Counted against the caller's unread answers until the last part. */
	varlink_call_set_held(call, len);
	r = varlink_call_set_drain_callback(call, vm_stream_next, st);
	if (r >= 0)
		r = varlink_call_set_disconnect_callback(call, vm_stream_disconnected, st);
	if (r < 0) {
		a->parameters = TAKE_PTR(st->owner);
		(void)varlink_call_set_drain_callback(call, NULL, NULL);
		vm_stream_free(st);
		return r;
	}
	return 1;
}

static void vm_done(RequestAnswer *a, void *userdata)
{
	VmCall *v = userdata;
	int r = 0;

	if (varlink_call_flags(v->call) & VARLINK_CALL_MORE)
		r = vm_stream_start(v->call, call_method(v->call), a);
	if (r < 0)
		(void)varlink_call_error_errno(v->call, r);
	else if (r == 0)
		vm_send(v->call, a);
	vm_call_free(v);
}

/* The worker has the trace fd: the call's copy goes, so that the client
 * sees EOF on it before the reply. */
static void vm_drop_fd(size_t index, void *userdata)
{
	VmCall *v = userdata;

	safe_close(varlink_call_take_fd(v->call, (unsigned)index));
	v->fds[index] = -EBADF;
}

static int method_call(VarlinkCall *call, json_object *parameters, VarlinkCallFlags flags,
		       void *userdata)
{
	RequestCall rc;
	VmCall *v;
	int r;

	r = vm_call_new(call, parameters, &rc, &v);
	if (r < 0)
		return r;
	rc.done = vm_done;
	rc.drop_fd = vm_drop_fd;
	r = request_start(&rc);
	if (r < 0) {
		/* Lent for a job that did not start: answered here. */
		varlink_call_lend_end(call);
		vm_call_free(v);
	}
	return r;
}

/* ---- Watch: a "more" stream (ops-watch-events.c drives it) ------------------------------ */

static int watch_on_event(Watch *w, const OpsWatchEvent *e, void *userdata)
{
	_cleanup_json_ json_object *p = json_object_new_object();

	if (json_add(p, "event", json_object_new_string(ops_watch_event_to_string(e->type))) < 0 ||
	    json_add(p, "mount", ops_mount_entry_to_json(&e->mount)) < 0)
		return -ENOMEM;
	return varlink_call_notify(userdata, TAKE_PTR(p));
}

static void watch_on_end(Watch *w, int r, void *userdata)
{
	VarlinkCall *call = userdata;

	if (r < 0 && r != -ESHUTDOWN)
		(void)varlink_call_error_errno(call, r);
	else {
		_cleanup_json_ json_object *p = json_object_new_object();

		/* Without memory for "gone", the error says it is over. */
		if (json_add(p, "event", json_object_new_string("gone")) < 0)
			(void)varlink_call_error_errno(call, -ENOMEM);
		else
			(void)varlink_call_reply(call, TAKE_PTR(p));
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

static void watch_refused(RequestAnswer *a, void *userdata)
{
	vm_send(userdata, a);
}

static int method_watch(VarlinkCall *call, json_object *parameters, VarlinkCallFlags flags,
			void *userdata)
{
	_cleanup_(vm_call_freep) VmCall *v = NULL;
	_cleanup_(mnt_log_done) MntLog log = {};
	_cleanup_(sd_event_unrefp) sd_event *event = NULL;
	_cleanup_close_ int pin = -EBADF;
	RequestCall rc;
	OpsNamespace ns;
	json_object *ready;
	Watch *w;
	int r;

	r = vm_call_new(call, parameters, &rc, &v);
	if (r < 0)
		return r;
	rc.done = watch_refused;
	rc.userdata = call;
	r = request_prepare_watch(&rc, &ns, &pin);
	if (r != 0)
		return r < 0 ? r : 0;
	r = sd_event_default(&event);
	if (r < 0)
		return r;
	r = watch_new(event, &ns, rc.caller.principal, &watch_callbacks, call, &w, &log);
	if (r < 0) {
		RequestAnswer a = {};

		r = ops_error_encode(rc.method, NULL, r, &log, &a.error, &a.parameters);
		if (r >= 0)
			vm_send(call, &a);
		request_answer_done(&a);
		return r < 0 ? r : 0;
	}
	r = varlink_call_set_disconnect_callback(call, watch_on_disconnect, w);
	if (r < 0) {
		watch_free(w);
		return r;
	}
	varlink_call_ref(call);
	ready = json_object_new_object();
	if (json_add(ready, "event", json_object_new_string("ready")) < 0) {
		/* The client would wait for "ready" forever. */
		json_object_put(ready);
		watch_free(w);
		varlink_call_unref(call);
		return -ENOMEM;
	}
	(void)varlink_call_notify(call, ready);
	return 0;
}

int varlink_mount_register(VarlinkServer *s)
{
	/* As many as the table has, kept by the server: one array for good. */
	static VarlinkMethod *methods;
	size_t n = 0;
	int r;

	if (!methods) {
		while (ops_methods[n].name)
			n++;
		methods = calloc(n + 1, sizeof(VarlinkMethod));
		if (!methods)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			const OpsMethod *m = &ops_methods[i];

			methods[i] = (VarlinkMethod){
				.name = m->name,
				.fn = m->run == OPS_RUN_WATCH ? method_watch : method_call,
				.flags = m->run == OPS_RUN_WATCH ? VARLINK_METHOD_MORE_ONLY : 0,
			};
		}
	}
	r = varlink_server_add_interface(s, io_mountd_mount_idl, methods, NULL);
	if (r < 0)
		return r;
	r = varlink_server_set_too_large_error(s, OPS_ERROR_NAME_TOO_LARGE);
	if (r < 0)
		return r;
	r = varlink_server_set_reply_too_large_error(s, OPS_ERROR_NAME_REPLY_TOO_LARGE);
	if (r < 0)
		return r;
	r = varlink_server_set_held_limit_error(s, OPS_ERROR_NAME_LIMIT);
	if (r < 0)
		return r;
	return varlink_server_set_errno_error(s, OPS_ERROR_NAME_INTERNAL);
}
