/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Calls (see varlink.h): answering them (replies, "more" streams, errors),
 * the limits on what an answer may hold and a user may leave unread, fds
 * in and out, and what a method may ask of its call and its peer.
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

/* ------------------------------------------------------------ calls */

static void call_finish(VarlinkCall *c)
{
	Connection *conn = c->conn;

	c->answered = true;
	fds_free(c->out_fds, c->n_out_fds);
	c->out_fds = NULL;
	c->n_out_fds = 0;
	if (conn->server)
		conn->server->n_pending_calls--;
	if (conn->active == c)
		conn->active = NULL;
	vl_conn_schedule(conn);
	/* Only then can vl_on_idle_check() find the server idle: a check that
	 * cannot costs an event loop iteration on every answer. */
	if (conn->server && conn->server->n_connections == 0 && conn->server->n_pending_calls == 0)
		vl_server_schedule_idle_check(conn->server);
}

static VarlinkCall *call_free(VarlinkCall *c)
{
	if (!c->answered) {
		/* A method that neither answered nor kept the call would leave
		 * the client waiting forever. */
		if (!(c->flags & VARLINK_CALL_ONEWAY) && !vl_conn_is_dead(c->conn)) {
			log_vl(SD_ERR, "call to %s dropped without an answer", c->method);
			(void)varlink_call_error_errno(c, -ECANCELED);
		}
		if (!c->answered)
			call_finish(c);
	}
	fds_free(c->fds, c->n_fds);
	free(c->method);
	vl_conn_unref(c->conn);
	free(c);
	return NULL;
}

VarlinkCall *varlink_call_ref(VarlinkCall *c)
{
	if (c)
		c->n_ref++;
	return c;
}

VarlinkCall *varlink_call_unref(VarlinkCall *c)
{
	if (!c || --c->n_ref > 0)
		return NULL;
	return call_free(c);
}

/* In place of an answer larger than the client reads: the error the
 * server was given for it, which ends the call. */
static int call_send_too_large(VarlinkCall *c, size_t size)
{
	VarlinkServer *s = c->conn->server;
	_cleanup_json_ json_object *msg = json_object_new_object();
	json_object *p = json_object_new_object();
	size_t unused;

	if (!msg || !p || json_object_object_add(msg, "parameters", p) < 0) {
		json_object_put(p);
		return -ENOMEM;
	}
	if (json_object_object_add(msg, "error", json_object_new_string(s->reply_too_large_error)) <
		    0 ||
	    json_object_object_add(p, "size", json_object_new_int64((int64_t)size)) < 0 ||
	    json_object_object_add(p, "limit",
				   json_object_new_int64((int64_t)s->max_message_size)) < 0)
		return -ENOMEM;
	fds_free(c->out_fds, c->n_out_fds);
	c->out_fds = NULL;
	c->n_out_fds = 0;
	return vl_conn_enqueue(c->conn, msg, NULL, 0, SIZE_MAX, &unused);
}

/* What a user's connections hold for their clients: output not written
 * yet, and what their calls keep to send (varlink_call_set_held()). */
static size_t uid_held(VarlinkServer *s, uid_t principal)
{
	Connection *c;
	size_t n = 0;

	LIST_FOREACH(c, &s->connections, link)
	if (c->principal == principal)
		n += c->out_bytes + (c->active ? c->active->held : 0);
	return n;
}

/* In place of an answer past its uid's limit: the error for it, no
 * parameters, which ends the call. */
static int call_send_held(VarlinkCall *c)
{
	_cleanup_json_ json_object *msg = json_object_new_object();
	size_t unused;

	if (!msg ||
	    json_object_object_add(msg, "error",
				   json_object_new_string(c->conn->server->held_error)) < 0 ||
	    json_object_object_add(msg, "parameters", json_object_new_object()) < 0)
		return -ENOMEM;
	fds_free(c->out_fds, c->n_out_fds);
	c->out_fds = NULL;
	c->n_out_fds = 0;
	return vl_conn_enqueue(c->conn, msg, NULL, 0, SIZE_MAX, &unused);
}

/* 1 when an answer too large, or past its uid's limit, was replaced by
 * the error for it. */
static int call_send(VarlinkCall *c, json_object *msg, bool reply)
{
	Connection *conn = c->conn;
	VarlinkServer *s = conn->server;
	size_t size = 0, max = SIZE_MAX, room = SIZE_MAX;
	int r;

	if (vl_conn_is_dead(conn))
		return -ENOTCONN;
	if (reply && s->reply_too_large_error)
		max = s->max_message_size;
	if (reply && s->held_error && conn->principal != 0) {
		size_t held = uid_held(s, conn->principal), limit = VARLINK_HELD_PER_UID(s);

		room = held < limit ? limit - held : 0;
	}
	r = vl_conn_enqueue(conn, msg, c->out_fds, c->n_out_fds, MIN(max, room), &size);
	if (r == -EMSGSIZE && size > max) {
		char d[64];

		log_peer(s, conn->principal, SD_NOTICE,
			 "answer of %zu bytes to %s is larger than %zu, sending %s", size,
			 vl_conn_describe(conn, d), s->max_message_size, s->reply_too_large_error);
		r = call_send_too_large(c, size);
		return r < 0 ? r : 1;
	}
	if (r == -EMSGSIZE) {
		char d[64];

		log_peer(s, conn->principal, SD_NOTICE,
			 "answer of %zu bytes to %s would make its uid's unread answers more than "
			 "%zu bytes, sending %s",
			 size, vl_conn_describe(conn, d), (size_t)VARLINK_HELD_PER_UID(s),
			 s->held_error);
		r = call_send_held(c);
		return r < 0 ? r : 1;
	}
	if (r < 0)
		return r;
	c->out_fds = NULL;
	c->n_out_fds = 0;
	return 0;
}

/* A stream that makes its messages as the client takes them
 * (varlink_call_set_drain_callback()): the active call is asked for the
 * next one whenever less than a message's worth is left to write. */
void vl_conn_feed(Connection *conn)
{
	bool busy = conn->busy;

	/* Answers given from the callback are written here, not in it. */
	conn->busy = true;
	for (;;) {
		VarlinkCall *c = conn->active;
		size_t before;

		vl_conn_flush(conn);
		if (vl_conn_is_dead(conn) || conn->fd < 0 || !c || c->answered || !c->drain_cb ||
		    conn->out_bytes >= VARLINK_STREAM_LOW_WATER)
			break;
		before = conn->out_bytes;
		varlink_call_ref(c);
		c->drain_cb(c, c->drain_userdata);
		bool sent = c->answered || conn->out_bytes != before;
		varlink_call_unref(c);
		if (!sent)
			break; /* it had nothing now: asked again after the next write */
	}
	conn->busy = busy;
}

/* Write what the answer functions queued, now, when the answer comes from
 * outside the connection's pass (see call_answer()). */
static void call_write_now(VarlinkCall *c)
{
	Connection *conn = c->conn;

	if (!conn->busy && conn->linked) {
		vl_conn_ref(conn);
		vl_conn_feed(conn);
		vl_conn_update_events(conn);
		vl_conn_settle(conn);
		vl_conn_unref(conn);
	}
}

static int call_answer(VarlinkCall *c, const char *error, json_object *parameters, bool continues)
{
	_cleanup_json_ json_object *params = parameters;
	_cleanup_json_ json_object *msg = NULL;

	if (!c)
		return -EINVAL;
	if (c->answered)
		return -EALREADY;
	if (c->conn->lent && c->conn->active == c)
		return -EBUSY;
	if (continues && !(c->flags & VARLINK_CALL_MORE))
		return -EINVAL;
	if (params && !json_object_is_type(params, json_type_object))
		return -EINVAL;

	if (!(c->flags & VARLINK_CALL_ONEWAY)) {
		msg = json_object_new_object();
		if (!msg)
			return -ENOMEM;
		if (error &&
		    json_object_object_add(msg, "error", json_object_new_string(error)) < 0)
			return -ENOMEM;
		if (!params && !(params = json_object_new_object()))
			return -ENOMEM;
		if (json_object_object_add(msg, "parameters", TAKE_PTR(params)) < 0)
			return -ENOMEM;
		if (continues &&
		    json_object_object_add(msg, "continues", json_object_new_boolean(true)) < 0)
			return -ENOMEM;
	}

	int r = msg ? call_send(c, msg, !error) : 0;
	if (r > 0) {
		/* The error in its place ended the call. */
		continues = false;
		r = -EMSGSIZE;
	}
	if (!continues || r == -ENOTCONN)
		call_finish(c);
	/* Answered from outside the connection's pass (a method that replied
	 * later, from another event source): write it now rather than one
	 * loop iteration later, and leave the deferred pass out if that was
	 * all it had to do.  Inside the pass, the pass writes it. */
	call_write_now(c);
	return r;
}

int varlink_call_lend_socket(VarlinkCall *c)
{
	Connection *conn = c->conn;

	if (c->answered || c->flags || conn->active != c || conn->lent ||
	    !STAILQ_EMPTY(&conn->output) || c->n_out_fds > 0 || conn->fd < 0 ||
	    vl_conn_is_dead(conn) || conn->closing || conn->overflow)
		return -EBUSY;
	conn->lent = true;
	return conn->fd;
}

void varlink_call_lend_end(VarlinkCall *c)
{
	if (!c->conn->lent || c->conn->active != c)
		return;
	c->conn->lent = false;
	vl_conn_schedule(c->conn);
	call_write_now(c);
}

int varlink_call_lent_answered(VarlinkCall *c, const char *message, size_t written)
{
	Connection *conn = c->conn;
	size_t size = strlen(message) + 1;

	if (!conn->lent || conn->active != c || c->answered || written == 0 || written > size)
		return -EINVAL;
	conn->lent = false;
	if (written < size && !vl_conn_is_dead(conn)) {
		/* The rest, before anything queued meanwhile. */
		OutMsg *m = calloc(1, sizeof(*m));

		if (!m || !(m->data = malloc(size - written))) {
			free(m);
			/* Half an answer cannot be taken back. */
			call_finish(c);
			vl_conn_hangup(conn);
			return -ENOMEM;
		}
		memcpy(m->data, message + written, size - written);
		m->size = size - written;
		STAILQ_INSERT_HEAD(&conn->output, m, link);
		conn->out_bytes += m->size;
	}
	call_finish(c);
	call_write_now(c);
	return 0;
}

void varlink_call_lent_lost(VarlinkCall *c)
{
	Connection *conn = c->conn;

	if (!conn->lent || conn->active != c)
		return;
	conn->lent = false;
	/* Whatever the stream holds now, no answer can follow it. */
	call_finish(c);
	vl_conn_hangup(conn);
}

int varlink_call_reply(VarlinkCall *c, json_object *parameters)
{
	return call_answer(c, NULL, parameters, false);
}

int varlink_call_notify(VarlinkCall *c, json_object *parameters)
{
	return call_answer(c, NULL, parameters, true);
}

int varlink_call_error(VarlinkCall *c, const char *error, json_object *parameters)
{
	if (!error || !strchr(error, '.')) {
		json_object_put(parameters);
		return -EINVAL;
	}
	return call_answer(c, error, parameters, false);
}

json_object *vl_params_with_string(const char *key, const char *value)
{
	json_object *p = json_object_new_object();
	if (p && json_object_object_add(p, key, json_object_new_string(value ?: "")) < 0) {
		json_object_put(p);
		return NULL;
	}
	return p;
}

int varlink_call_error_invalid_parameter(VarlinkCall *c, const char *parameter)
{
	return varlink_call_error(c, VARLINK_ERROR_INVALID_PARAMETER,
				  vl_params_with_string("parameter", parameter));
}

int varlink_call_error_errno(VarlinkCall *c, int error)
{
	if (!c)
		return -EINVAL;
	error = abs(error);
	switch (error) {
	case EPERM:
	case EACCES:
		return varlink_call_error(c, VARLINK_ERROR_PERMISSION_DENIED, NULL);
	case EOPNOTSUPP:
	case ENOSYS:
		return varlink_call_error(c, VARLINK_ERROR_METHOD_NOT_IMPLEMENTED,
					  vl_params_with_string("method", c->method));
	}

	json_object *p = json_object_new_object();
	if (p) {
		const char *name = strerrorname_np(error);
		json_object_object_add(p, "errno", json_object_new_int(error));
		if (name)
			json_object_object_add(p, "errnoName", json_object_new_string(name));
	}
	VarlinkServer *s = c->conn->server;
	/* Set before listening (varlink_server_listen_fd()); a call whose
	 * server is gone is not answered anyway. */
	return varlink_call_error(c, s && s->errno_error ? s->errno_error : "", p);
}

int varlink_call_peek_fd(VarlinkCall *c, unsigned index)
{
	if (!c)
		return -EINVAL;
	if (index >= c->n_fds)
		return -ENXIO;
	return c->fds[index] >= 0 ? c->fds[index] : -EBADF;
}

int varlink_call_take_fd(VarlinkCall *c, unsigned index)
{
	int fd = varlink_call_peek_fd(c, index);
	if (fd >= 0)
		c->fds[index] = -EBADF;
	return fd;
}

unsigned varlink_call_n_fds(VarlinkCall *c)
{
	return c ? c->n_fds : 0;
}

int varlink_call_push_fd(VarlinkCall *c, int fd)
{
	_cleanup_close_ int owned = fd;

	if (!c || fd < 0)
		return -EINVAL;
	if (c->answered)
		return -EALREADY;
	if (c->conn->server && c->n_out_fds >= c->conn->server->max_fds)
		return -E2BIG;
	int *n = realloc(c->out_fds, sizeof(int) * (c->n_out_fds + 1));
	if (!n)
		return -ENOMEM;
	c->out_fds = n;
	n[c->n_out_fds] = TAKE_FD(owned);
	return (int)c->n_out_fds++;
}

int varlink_call_get_peer_ucred(VarlinkCall *c, struct ucred *ret)
{
	if (!c || !ret)
		return -EINVAL;
	*ret = c->conn->ucred;
	return 0;
}

uid_t varlink_call_get_peer_principal(VarlinkCall *c)
{
	return c ? c->conn->principal : PRINCIPAL_UNKNOWN;
}

int varlink_call_get_peer_pidfd(VarlinkCall *c)
{
	if (!c)
		return -EINVAL;
	return c->conn->pidfd >= 0 ? c->conn->pidfd : -EOPNOTSUPP;
}

static int conn_read_peer_groups(Connection *conn)
{
	socklen_t len = 0;
	gid_t *groups;

	/* The first getsockopt() only learns the size (ERANGE). */
	if (getsockopt(conn->fd, SOL_SOCKET, SO_PEERGROUPS, NULL, &len) < 0 && errno != ERANGE)
		return negative_errno();
	groups = malloc(len ?: 1);
	if (!groups)
		return -ENOMEM;
	if (len > 0 && getsockopt(conn->fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0) {
		int r = negative_errno();

		free(groups);
		return r;
	}
	conn->peer_groups = groups;
	conn->n_peer_groups = len / sizeof(gid_t);
	return 0;
}

int varlink_call_get_peer_groups(VarlinkCall *c, gid_t **ret, size_t *ret_n)
{
	Connection *conn;
	int r;

	if (!c || !ret || !ret_n)
		return -EINVAL;
	conn = c->conn;
	if (!conn->peer_groups) {
		r = conn_read_peer_groups(conn);
		if (r < 0)
			return r;
	}
	*ret = malloc(sizeof(gid_t) * (conn->n_peer_groups ?: 1));
	if (!*ret)
		return -ENOMEM;
	if (conn->n_peer_groups > 0)
		memcpy(*ret, conn->peer_groups, sizeof(gid_t) * conn->n_peer_groups);
	*ret_n = conn->n_peer_groups;
	return 0;
}

const char *varlink_call_get_peer_comm(VarlinkCall *c)
{
	Connection *conn;

	if (!c)
		return "";
	conn = c->conn;
	if (!conn->peer_comm_read) {
		char path[64];
		_cleanup_close_ int fd = -EBADF;
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)conn->ucred.pid);
		fd = conn->ucred.pid > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -EBADF;
		n = fd >= 0 ? read(fd, conn->peer_comm, sizeof(conn->peer_comm) - 1) : -1;
		conn->peer_comm[n > 0 ? n : 0] = 0;
		/* Only the kernel's newline at the end: a newline in the
		 * name itself is the peer's, for the caller to escape. */
		if (n > 0 && conn->peer_comm[n - 1] == '\n')
			conn->peer_comm[n - 1] = 0;
		conn->peer_comm_read = true;
	}
	return conn->peer_comm;
}

int varlink_call_set_disconnect_callback(VarlinkCall *c, void (*cb)(VarlinkCall *, void *),
					 void *userdata)
{
	if (!c)
		return -EINVAL;
	c->disconnect_cb = cb;
	c->disconnect_userdata = userdata;
	return 0;
}

void varlink_call_set_held(VarlinkCall *c, size_t bytes)
{
	if (c)
		c->held = bytes;
}

int varlink_call_set_drain_callback(VarlinkCall *c, void (*cb)(VarlinkCall *, void *),
				    void *userdata)
{
	if (!c || c->answered || c->conn->active != c || !(c->flags & VARLINK_CALL_MORE))
		return -EINVAL;
	c->drain_cb = cb;
	c->drain_userdata = userdata;
	/* First asked from the connection's pass, never from in here. */
	vl_conn_schedule(c->conn);
	return 0;
}

const char *varlink_call_method(VarlinkCall *c)
{
	return c ? c->method : NULL;
}

VarlinkCallFlags varlink_call_flags(VarlinkCall *c)
{
	return c ? c->flags : 0;
}

bool varlink_call_is_answered(VarlinkCall *c)
{
	return !c || c->answered;
}

VarlinkServer *varlink_call_server(VarlinkCall *c)
{
	return c ? c->conn->server : NULL;
}

int varlink_call_dispatch(VarlinkCall *c, json_object *parameters, const JsonDispatch *table,
			  void *userdata)
{
	const char *bad = NULL;
	int r = json_dispatch(parameters, table, userdata, &bad);
	if (r >= 0)
		return r;
	if (r == -ENOMEM)
		(void)varlink_call_error_errno(c, r);
	else
		(void)varlink_call_error_invalid_parameter(c, bad ?: "parameters");
	return r;
}
