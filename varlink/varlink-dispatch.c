/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Dispatch (see varlink-internal.h): org.varlink.service, finding a
 * request's method and calling it, and a connection's pass from its
 * deferred event source and its socket's events.
 */

#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <systemd/sd-daemon.h>

#include "json-dispatch.h"
#include "principal.h"
#include "varlink-internal.h"

static const char org_varlink_service_idl[] =
	"# The interface every varlink service provides: what the service is\n"
	"# and which interfaces it implements.\n"
	"interface org.varlink.service\n"
	"\n"
	"# Information about the service and the list of its interfaces.\n"
	"method GetInfo() -> (\n"
	"  vendor: string,\n"
	"  product: string,\n"
	"  version: string,\n"
	"  url: string,\n"
	"  interfaces: []string\n"
	")\n"
	"\n"
	"# The IDL text of one of the service's interfaces.\n"
	"method GetInterfaceDescription(interface: string) -> (description: string)\n"
	"\n"
	"# No interface of that name.\n"
	"error InterfaceNotFound (interface: string)\n"
	"\n"
	"# The interface has no method of that name.\n"
	"error MethodNotFound (method: string)\n"
	"\n"
	"# The method is declared but this service does not implement it.\n"
	"error MethodNotImplemented (method: string)\n"
	"\n"
	"# A parameter is missing, unknown or has an invalid value.\n"
	"error InvalidParameter (parameter: string)\n"
	"\n"
	"# The caller may not call this method.\n"
	"error PermissionDenied ()\n"
	"\n"
	"# The method must be called with \"more\": true.\n"
	"error ExpectedMore ()\n";

/* ------------------------------------------------------------ org.varlink.service */

static int vl_get_info(VarlinkCall *c, json_object *parameters, VarlinkCallFlags flags, void *ud)
{
	static const JsonDispatch table[] = {{}};
	VarlinkServer *s = ud;

	int r = varlink_call_dispatch(c, parameters, table, NULL);
	if (r < 0)
		return r;

	_cleanup_json_ json_object *p = json_object_new_object();
	json_object *ifaces = json_object_new_array();
	if (!p || !ifaces || json_object_object_add(p, "interfaces", ifaces) < 0) {
		json_object_put(ifaces);
		return -ENOMEM;
	}
	json_object_array_add(ifaces, json_object_new_string("org.varlink.service"));
	Interface *i;
	STAILQ_FOREACH(i, &s->interfaces, link)
	json_object_array_add(ifaces, json_object_new_string(i->name));
	json_object_object_add(p, "vendor", json_object_new_string(s->vendor));
	json_object_object_add(p, "product", json_object_new_string(s->product));
	json_object_object_add(p, "version", json_object_new_string(s->version));
	json_object_object_add(p, "url", json_object_new_string(s->url));
	return varlink_call_reply(c, TAKE_PTR(p));
}

static int vl_get_interface_description(VarlinkCall *c, json_object *parameters,
					VarlinkCallFlags flags, void *ud)
{
	static const JsonDispatch table[] = {
		JSON_FIELD("interface", JSON_T_STRING, json_dispatch_const_string, 0,
			   JSON_MANDATORY),
		{},
	};
	VarlinkServer *s = ud;
	const char *name = NULL;

	int r = varlink_call_dispatch(c, parameters, table, &name);
	if (r < 0)
		return r;

	const char *idl = NULL;
	if (streq(name, "org.varlink.service"))
		idl = org_varlink_service_idl;
	for (Interface *i = STAILQ_FIRST(&s->interfaces); i && !idl; i = STAILQ_NEXT(i, link))
		if (streq(i->name, name))
			idl = i->idl;
	if (!idl)
		return varlink_call_error(c, VARLINK_ERROR_INTERFACE_NOT_FOUND,
					  vl_params_with_string("interface", name));
	return varlink_call_reply(c, vl_params_with_string("description", idl));
}

static const VarlinkMethod org_varlink_service_methods[] = {
	{"GetInfo", vl_get_info, 0},
	{"GetInterfaceDescription", vl_get_interface_description, 0},
	{},
};

/* ------------------------------------------------------------ dispatch */

static const VarlinkMethod *find_method(VarlinkServer *s, const char *iface, const char *name,
					void **ret_userdata, bool *ret_iface_found)
{
	const VarlinkMethod *methods = NULL;
	void *userdata = NULL;

	if (streq(iface, "org.varlink.service")) {
		methods = org_varlink_service_methods;
		userdata = s;
	}
	for (Interface *i = STAILQ_FIRST(&s->interfaces); i && !methods; i = STAILQ_NEXT(i, link))
		if (streq(i->name, iface)) {
			methods = i->methods;
			userdata = i->userdata;
		}
	*ret_iface_found = methods != NULL;
	for (const VarlinkMethod *m = methods; m && m->name; m++)
		if (streq(m->name, name)) {
			*ret_userdata = userdata;
			return m;
		}
	return NULL;
}

static bool msg_flag(json_object *msg, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(msg, key, &v) && json_object_get_boolean(v);
}

static void conn_dispatch(Connection *conn, Request *req)
{
	VarlinkServer *s = conn->server;
	json_object *v;

	/* The request leaves the queue and becomes the active call. */
	conn->n_queued--;
	s->n_queued--;
	vl_request_unqueued(conn, req);

	VarlinkCall *c = calloc(1, sizeof(*c));
	json_object_object_get_ex(req->msg, "method", &v);
	char *method = strdup(json_object_get_string(v));
	if (!c || !method) {
		free(c);
		free(method);
		json_object_put(req->msg);
		fds_free(req->fds, req->n_fds);
		free(req);
		log_vl(SD_ERR, "out of memory, dropping connection");
		vl_conn_hangup(conn);
		return;
	}
	c->n_ref = 1;
	c->conn = vl_conn_ref(conn);
	c->method = method;
	c->fds = TAKE_PTR(req->fds);
	c->n_fds = req->n_fds;
	if (msg_flag(req->msg, "more"))
		c->flags |= VARLINK_CALL_MORE;
	if (msg_flag(req->msg, "oneway"))
		c->flags |= VARLINK_CALL_ONEWAY;
	conn->active = c;
	s->n_pending_calls++;
	s->idle_since = 0;

	_cleanup_json_ json_object *params = NULL;
	if (json_object_object_get_ex(req->msg, "parameters", &v) && v)
		params = json_object_get(v);
	else
		params = json_object_new_object();
	bool upgrade = msg_flag(req->msg, "upgrade");
	json_object_put(req->msg);
	free(req);

	int r = 0;
	const char *dot = strrchr(method, '.');
	if (!params) {
		r = -ENOMEM;
	} else if (upgrade) {
		/* No method of ours takes over the connection. */
		r = varlink_call_error_invalid_parameter(c, "upgrade");
	} else if (!vl_method_name_valid(method)) {
		r = varlink_call_error(c, VARLINK_ERROR_METHOD_NOT_FOUND,
				       vl_params_with_string("method", method));
	} else {
		_cleanup_free_ char *iface = strndup(method, (size_t)(dot - method));
		void *userdata = NULL;
		bool iface_found = false;
		const VarlinkMethod *m =
			iface ? find_method(s, iface, dot + 1, &userdata, &iface_found) : NULL;
		if (!iface)
			r = -ENOMEM;
		else if (!iface_found)
			r = varlink_call_error(c, VARLINK_ERROR_INTERFACE_NOT_FOUND,
					       vl_params_with_string("interface", iface));
		else if (!m)
			r = varlink_call_error(c, VARLINK_ERROR_METHOD_NOT_FOUND,
					       vl_params_with_string("method", method));
		else if ((m->flags & VARLINK_METHOD_MORE_ONLY) && !(c->flags & VARLINK_CALL_MORE))
			r = varlink_call_error(c, VARLINK_ERROR_EXPECTED_MORE, NULL);
		else if (!m->fn)
			r = varlink_call_error(c, VARLINK_ERROR_METHOD_NOT_IMPLEMENTED,
					       vl_params_with_string("method", method));
		else
			r = m->fn(c, params, c->flags, userdata);
	}

	/* A failure after the method answered (e.g. varlink_call_dispatch()
	 * already sent InvalidParameter) needs nothing more. */
	if (r < 0 && !c->answered)
		(void)varlink_call_error_errno(c, r);
	varlink_call_unref(c);
}

/* What vl_on_conn_defer() is for: requests to dispatch, complete messages
 * left in the buffer, output the socket has not taken, a client that
 * does not read, a connection to finish.  Conservative: when in doubt,
 * there is work. */
static bool conn_has_work(Connection *conn)
{
	if (!conn->linked)
		return false;
	return (conn->overflow && !conn->hung_up) || !STAILQ_EMPTY(&conn->output) ||
	       (!conn->active && !STAILQ_EMPTY(&conn->requests)) || conn->iscan < conn->ilen ||
	       vl_conn_can_finish(conn);
}

/* After the connection's work was done in place: the deferred pass that
 * the work scheduled is dropped when nothing is left for it. */
void vl_conn_settle(Connection *conn)
{
	if (conn->defer && !conn_has_work(conn))
		(void)sd_event_source_set_enabled(conn->defer, SD_EVENT_OFF);
}

static void conn_process(Connection *conn)
{
	conn->busy = true;
	if (conn->overflow && !conn->hung_up) {
		char d[64];
		log_peer(conn->server, conn->principal, SD_WARNING,
			 "%s does not read its answers, disconnecting", vl_conn_describe(conn, d));
		vl_conn_hangup(conn);
	}
	vl_conn_flush(conn);
	while (conn->linked && !conn->active && !STAILQ_EMPTY(&conn->requests) && !conn->closing) {
		/* Backpressure: let the client read before producing more. */
		if (conn->fd >= 0 && conn->out_bytes > conn->server->max_message_size)
			break;
		Request *r = vl_request_pop(conn);
		if (conn->hung_up && !vl_request_is_oneway(r)) {
			vl_request_free(conn, r);
			continue;
		}
		conn_dispatch(conn, r);
	}
	/* Complete messages left in the buffer by the queue limits. */
	if (conn->ilen > conn->istart && conn->fd >= 0 && !conn->closing &&
	    conn->n_queued < conn->server->max_queued) {
		if (vl_conn_parse_input(conn) < 0)
			vl_conn_hangup(conn);
		else if (!STAILQ_EMPTY(&conn->requests) && !conn->active)
			vl_conn_schedule(conn); /* else the end of the active call does */
	}
	vl_conn_feed(conn);
	conn->busy = false;
	if (conn->linked) {
		vl_conn_update_events(conn);
		vl_conn_maybe_finish(conn);
	}
}

int vl_on_conn_defer(sd_event_source *src, void *userdata)
{
	Connection *conn = vl_conn_ref(userdata);

	conn_process(conn);
	vl_conn_unref(conn);
	return 0;
}

int vl_on_conn_io(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	Connection *conn = vl_conn_ref(userdata);
	VarlinkServer *s = conn->server;

	if (revents & EPOLLOUT)
		vl_conn_flush(conn);

	if ((revents & EPOLLIN) && conn->fd >= 0 && !conn->closing) {
		int r = vl_conn_read(conn);
		if (r < 0)
			vl_conn_hangup(conn);
	}

	if ((revents & (EPOLLHUP | EPOLLERR)) && conn->fd >= 0) {
		/* The peer is gone.  Pick up what it sent before leaving
		 * (a oneway call followed by close() is legitimate), unless
		 * we are draining and read nothing new anyway. */
		while (!s->draining && !conn->closing && conn->fd >= 0 && !conn->read_eof &&
		       vl_conn_read(conn) > 0)
			;
		vl_conn_hangup(conn);
	}
	/* The pass in place, not one loop iteration later: a request is
	 * dispatched in the iteration that read it. */
	conn_process(conn);
	vl_conn_settle(conn);
	vl_conn_unref(conn);
	return 0;
}
