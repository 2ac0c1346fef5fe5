/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A connection's I/O (see varlink-internal.h): its request queue and the
 * per-uid limits on queued input, reading and splitting messages with the
 * fds that came with them, writing answers, hangup and the end of a
 * connection.
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
#include "scm-rights.h"
#include "varlink-internal.h"

/* ------------------------------------------------------------ small parts */

void vl_server_schedule_idle_check(VarlinkServer *s)
{
	if (s && s->idle_defer)
		(void)sd_event_source_set_enabled(s->idle_defer, SD_EVENT_ONESHOT);
}

int vl_on_idle_check(sd_event_source *src, void *userdata)
{
	VarlinkServer *s = userdata;

	if (s->n_connections > 0 || s->n_pending_calls > 0) {
		s->idle_since = 0;
		return 0;
	}
	if (s->idle_since == 0) {
		s->idle_since = now_usec();
		if (s->idle_cb)
			s->idle_cb(s, s->idle_userdata);
	}
	return 0;
}

/* A principal other than root past its share of queued input: its
 * connections that have a request queued already read and parse no more.
 * One with nothing queued may always finish its message. */
static bool uid_input_full(VarlinkServer *s, uid_t principal)
{
	size_t bytes = 0;
	unsigned fds = 0;
	Connection *c;

	if (principal == 0)
		return false;
	LIST_FOREACH(c, &s->connections, link)
	if (c->principal == principal) {
		bytes += c->queued_bytes;
		fds += c->queued_fds;
	}
	return bytes >= VARLINK_QUEUED_BYTES_PER_UID || fds >= VARLINK_QUEUED_FDS_PER_UID;
}

/* A request of conn's left the queue: what its principal's limit stopped
 * goes on. */
void vl_request_unqueued(Connection *conn, const Request *r)
{
	VarlinkServer *s = conn->server;
	Connection *c;

	conn->queued_bytes -= r->size;
	conn->queued_fds -= r->n_fds;
	if (!s || conn->principal == 0)
		return;
	LIST_FOREACH(c, &s->connections, link)
	if (c->principal == conn->principal && c->input_stalled) {
		c->input_stalled = false;
		vl_conn_schedule(c);
	}
}

void vl_request_free(Connection *conn, Request *r)
{
	if (!r)
		return;
	if (conn->server)
		conn->server->n_queued--;
	conn->n_queued--;
	vl_request_unqueued(conn, r);
	json_object_put(r->msg);
	fds_free(r->fds, r->n_fds);
	free(r);
}

Request *vl_request_pop(Connection *conn)
{
	Request *r = STAILQ_FIRST(&conn->requests);
	if (r)
		STAILQ_REMOVE_HEAD(&conn->requests, link);
	return r;
}

bool vl_request_is_oneway(Request *r)
{
	json_object *v;
	return json_object_object_get_ex(r->msg, "oneway", &v) && json_object_get_boolean(v);
}

static void outmsg_free(OutMsg *m)
{
	if (!m)
		return;
	free(m->data);
	fds_free(m->fds, m->n_fds);
	free(m);
}

const char *vl_conn_describe(Connection *conn, char buf[static 64])
{
	if (conn->principal == conn->ucred.uid)
		snprintf(buf, 64, "pid %d (uid %u)", (int)conn->ucred.pid,
			 (unsigned)conn->ucred.uid);
	else
		snprintf(buf, 64, "pid %d (uid %u, user %u)", (int)conn->ucred.pid,
			 (unsigned)conn->ucred.uid, (unsigned)conn->principal);
	return buf;
}

_printf_(3, 4) void vl_peer_log(VarlinkServer *s, uid_t uid, const char *format, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, format);
	(void)vsnprintf(line, sizeof(line), format, ap);
	va_end(ap);
	if (s->peer_log)
		s->peer_log(uid, line, s->peer_log_userdata);
	else
		fprintf(stderr, "%s\n", line);
}

/* ------------------------------------------------------------ connections */

Connection *vl_conn_ref(Connection *conn)
{
	conn->n_ref++;
	return conn;
}

static void conn_close_socket(Connection *conn)
{
	conn->io = sd_event_source_disable_unref(conn->io);
	conn->fd = safe_close(conn->fd);
	while (!STAILQ_EMPTY(&conn->output)) {
		OutMsg *m = STAILQ_FIRST(&conn->output);
		STAILQ_REMOVE_HEAD(&conn->output, link);
		outmsg_free(m);
	}
	conn->out_bytes = 0;
	for (size_t i = 0; i < conn->n_batches; i++)
		fds_free(conn->batches[i].fds, conn->batches[i].n);
	free(conn->batches);
	conn->batches = NULL;
	conn->n_batches = 0;
	free(conn->ibuf);
	conn->ibuf = NULL;
	conn->ilen = conn->ialloc = conn->istart = conn->iscan = 0;
	conn->hung_up = true;
}

Connection *vl_conn_unref(Connection *conn)
{
	if (!conn || --conn->n_ref > 0)
		return NULL;
	conn_close_socket(conn);
	conn->defer = sd_event_source_disable_unref(conn->defer);
	while (!STAILQ_EMPTY(&conn->requests))
		vl_request_free(conn, vl_request_pop(conn));
	conn->pidfd = safe_close(conn->pidfd);
	free(conn->peer_groups);
	free(conn);
	return NULL;
}

void vl_conn_schedule(Connection *conn)
{
	if (conn->defer)
		(void)sd_event_source_set_enabled(conn->defer, SD_EVENT_ONESHOT);
}

/* No further calls can be answered on this connection. */
bool vl_conn_is_dead(Connection *conn)
{
	return conn->hung_up || conn->closing || conn->overflow || !conn->server;
}

void vl_conn_unlink(Connection *conn)
{
	VarlinkServer *s = conn->server;

	if (!conn->linked)
		return;
	conn->linked = false;
	LIST_REMOVE(conn, link);
	s->n_connections--;

	conn_close_socket(conn);
	conn->defer = sd_event_source_disable_unref(conn->defer);
	while (!STAILQ_EMPTY(&conn->requests))
		vl_request_free(conn, vl_request_pop(conn));
	vl_server_schedule_idle_check(s);
	vl_conn_unref(conn); /* the server's reference */
}

/* The client is gone (or broke the protocol): close the socket now, drop
 * the requests that wanted an answer, keep the oneway ones (their caller
 * expects nothing back), and tell the active call. */
void vl_conn_hangup(Connection *conn)
{
	if (conn->hung_up)
		return;
	conn_close_socket(conn);

	Request *r = STAILQ_FIRST(&conn->requests), *next;
	for (; r; r = next) {
		next = STAILQ_NEXT(r, link);
		if (!vl_request_is_oneway(r)) {
			STAILQ_REMOVE(&conn->requests, r, Request, link);
			vl_request_free(conn, r);
		}
	}

	VarlinkCall *c = conn->active;
	if (c && !c->answered && !c->disconnected) {
		c->disconnected = true;
		if (c->disconnect_cb) {
			varlink_call_ref(c);
			c->disconnect_cb(c, c->disconnect_userdata);
			varlink_call_unref(c);
		}
	}
	vl_conn_schedule(conn);
}

bool vl_conn_can_finish(Connection *conn)
{
	if (!conn->linked || conn->active || !STAILQ_EMPTY(&conn->requests))
		return false;
	if (conn->fd >= 0) {
		if (!STAILQ_EMPTY(&conn->output))
			return false;
		if (!conn->read_eof && !conn->closing && !conn->server->draining)
			return false;
	}
	return true;
}

void vl_conn_maybe_finish(Connection *conn)
{
	if (vl_conn_can_finish(conn))
		vl_conn_unlink(conn);
}

void vl_conn_update_events(Connection *conn)
{
	VarlinkServer *s = conn->server;
	uint32_t events = 0;

	if (conn->fd < 0 || !conn->io)
		return;
	if (!conn->read_eof && !conn->closing && !s->draining && conn->n_queued < s->max_queued) {
		if (conn->n_queued > 0 && uid_input_full(s, conn->principal))
			conn->input_stalled = true;
		else
			events |= EPOLLIN;
	}
	if (!STAILQ_EMPTY(&conn->output) && !conn->lent)
		events |= EPOLLOUT;
	/* Even with no events epoll reports EPOLLHUP, which is how a client
	 * hanging up in the middle of a call is noticed. */
	(void)sd_event_source_set_io_events(conn->io, events);
}

/* max: the largest text to queue (without its NUL); a larger one is
 * -EMSGSIZE with its size in *ret_size, and nothing is queued. */
int vl_conn_enqueue(Connection *conn, json_object *msg, int *fds, unsigned n_fds, size_t max,
		    size_t *ret_size)
{
	const char *text = json_object_to_json_string_ext(
		msg, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		return -ENOMEM;
	size_t size = strlen(text);
	if (size > max) {
		*ret_size = size;
		return -EMSGSIZE;
	}

	OutMsg *m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->size = size + 1;
	m->data = malloc(m->size);
	if (!m->data) {
		free(m);
		return -ENOMEM;
	}
	memcpy(m->data, text, m->size);
	m->fds = fds;
	m->n_fds = n_fds;

	STAILQ_INSERT_TAIL(&conn->output, m, link);
	conn->out_bytes += m->size;
	if (conn->out_bytes > OUTPUT_HARD_LIMIT(conn->server))
		conn->overflow = true;
	vl_conn_schedule(conn);
	return 0;
}

/* Writes as much queued output as the socket takes; a message that carries
 * fds starts its own sendmsg() so the fds arrive with its first byte. */
void vl_conn_flush(Connection *conn)
{
	while (conn->fd >= 0 && !conn->lent && !STAILQ_EMPTY(&conn->output)) {
		OutMsg *m = STAILQ_FIRST(&conn->output);
		struct iovec iov = {.iov_base = m->data + m->sent, .iov_len = m->size - m->sent};
		SCM_RIGHTS_BUFFER(SCM_MAX_FDS) control;
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

		if (m->sent == 0 && m->n_fds > 0)
			scm_rights_put(&mh, &control, m->fds, m->n_fds);

		ssize_t n = sendmsg(conn->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			if (errno != EPIPE && errno != ECONNRESET) {
				char d[64];
				int err = errno;

				log_peer(conn->server, conn->principal, SD_WARNING,
					 "write to %s failed: %s", vl_conn_describe(conn, d),
					 strerror(err));
			}
			vl_conn_hangup(conn);
			return;
		}
		if (m->n_fds > 0) {
			fds_free(m->fds, m->n_fds);
			m->fds = NULL;
			m->n_fds = 0;
		}
		m->sent += (size_t)n;
		conn->out_bytes -= (size_t)n;
		if (m->sent == m->size) {
			STAILQ_REMOVE_HEAD(&conn->output, link);
			outmsg_free(m);
		}
	}
}

/* Sends a final error for a request that has no call (oversize) and closes
 * the connection once it is out. */
static void conn_fail(Connection *conn, const char *error, json_object *parameters)
{
	_cleanup_json_ json_object *params = parameters;
	_cleanup_json_ json_object *msg = json_object_new_object();

	while (!STAILQ_EMPTY(&conn->requests))
		vl_request_free(conn, vl_request_pop(conn));
	conn->closing = true;
	if (conn->active && !conn->active->answered && !conn->active->disconnected) {
		VarlinkCall *c = conn->active;
		c->disconnected = true;
		if (c->disconnect_cb) {
			varlink_call_ref(c);
			c->disconnect_cb(c, c->disconnect_userdata);
			varlink_call_unref(c);
		}
	}
	/* error NULL: close without an answer. */
	if (error && msg &&
	    json_object_object_add(msg, "error", json_object_new_string(error)) == 0 &&
	    json_object_object_add(msg, "parameters",
				   TAKE_PTR(params) ?: json_object_new_object()) == 0)
		(void)vl_conn_enqueue(conn, msg, NULL, 0, SIZE_MAX, NULL);
	vl_conn_schedule(conn);
}

bool vl_method_name_valid(const char *m)
{
	/* interface name: dot-separated labels of [A-Za-z0-9-]; then
	 * ".Method" with a leading capital and alphanumerics. */
	const char *dot = strrchr(m, '.');
	if (!dot || dot == m || !dot[1])
		return false;
	if (!(dot[1] >= 'A' && dot[1] <= 'Z'))
		return false;
	for (const char *p = dot + 1; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

/* Protocol-level validation; false means disconnect.  Semantics (unknown
 * method, parameters) are checked at dispatch, where errors go back. */
static bool request_valid(json_object *msg)
{
	json_object *v;

	if (!json_object_is_type(msg, json_type_object))
		return false;
	if (!json_object_object_get_ex(msg, "method", &v) ||
	    !json_object_is_type(v, json_type_string))
		return false;
	if (json_object_object_get_ex(msg, "parameters", &v) && v &&
	    !json_object_is_type(v, json_type_object))
		return false;
	bool oneway = false, more = false;
	const char *flags[] = {"oneway", "more", "upgrade"};
	for (size_t i = 0; i < ELEMENTSOF(flags); i++)
		if (json_object_object_get_ex(msg, flags[i], &v) && v) {
			if (!json_object_is_type(v, json_type_boolean))
				return false;
			if (i == 0)
				oneway = json_object_get_boolean(v);
			else if (i == 1)
				more = json_object_get_boolean(v);
		}
	/* A oneway call cannot stream answers back. */
	return !(oneway && more);
}

/* Moves the fd batches that end inside [from, to] (stream offsets) into one
 * array for the message occupying that range. */
static int conn_take_fds(Connection *conn, uint64_t from, uint64_t to, int **ret, unsigned *ret_n)
{
	size_t k = 0;
	unsigned total = 0;

	*ret = NULL;
	*ret_n = 0;
	while (k < conn->n_batches && conn->batches[k].end <= to) {
		if (conn->batches[k].end < from)
			return -EPROTO; /* cannot happen: batches are consumed in order */
		total += conn->batches[k].n;
		k++;
	}
	if (k == 0)
		return 0;
	if (total > conn->server->max_fds)
		return -E2BIG;

	int *fds = malloc(sizeof(int) * total);
	if (!fds)
		return -ENOMEM;
	unsigned n = 0;
	for (size_t i = 0; i < k; i++) {
		memcpy(fds + n, conn->batches[i].fds, sizeof(int) * conn->batches[i].n);
		n += conn->batches[i].n;
		free(conn->batches[i].fds);
	}
	memmove(conn->batches, conn->batches + k, sizeof(FdBatch) * (conn->n_batches - k));
	conn->n_batches -= k;
	*ret = fds;
	*ret_n = n;
	return 0;
}

/* Splits the input buffer at NULs into queued requests.  Returns < 0 when the
 * connection must be dropped (the caller does that). */
static int conn_parse(Connection *conn)
{
	VarlinkServer *s = conn->server;
	char d[64];

	/* Parse no further than the queue limit: the rest waits in the buffer
	 * (and the socket, as reading stops too) until the queue drains. */
	while (conn->n_queued < s->max_queued) {
		if (conn->n_queued > 0 && uid_input_full(s, conn->principal)) {
			conn->input_stalled = true;
			break;
		}
		char *nul = memchr(conn->ibuf + conn->iscan, 0, conn->ilen - conn->iscan);
		if (!nul) {
			conn->iscan = conn->ilen;
			if (conn->ilen - conn->istart > s->max_message_size)
				return -EMSGSIZE;
			break;
		}
		size_t len = (size_t)(nul - (conn->ibuf + conn->istart));
		if (len > s->max_message_size)
			return -EMSGSIZE;

		uint64_t from = conn->ibase + conn->istart;
		int *fds = NULL;
		unsigned n_fds = 0;
		int r = conn_take_fds(conn, from, from + len, &fds, &n_fds);
		if (r == -E2BIG) {
			log_peer(s, conn->principal, SD_WARNING,
				 "%s sent more than %u fds with one message, disconnecting",
				 vl_conn_describe(conn, d), s->max_fds);
			return r;
		}
		if (r < 0)
			return r;

		json_tokener *tok = json_tokener_new();
		if (!tok) {
			fds_free(fds, n_fds);
			return -ENOMEM;
		}
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
		json_object *msg = json_tokener_parse_ex(tok, conn->ibuf + conn->istart, (int)len);
		bool ok = msg && json_tokener_get_error(tok) == json_tokener_success;
		/* JSON allows whitespace after the value, nothing else. */
		for (size_t i = ok ? json_tokener_get_parse_end(tok) : len; i < len; i++)
			if (!strchr(" \t\r\n", conn->ibuf[conn->istart + i]))
				ok = false;
		json_tokener_free(tok);
		if (!ok || !request_valid(msg)) {
			log_peer(s, conn->principal, SD_WARNING,
				 "%s sent a malformed message, disconnecting",
				 vl_conn_describe(conn, d));
			json_object_put(msg);
			fds_free(fds, n_fds);
			return -EBADMSG;
		}

		Request *req = calloc(1, sizeof(*req));
		if (!req) {
			json_object_put(msg);
			fds_free(fds, n_fds);
			return -ENOMEM;
		}
		req->msg = msg;
		req->fds = fds;
		req->n_fds = n_fds;
		req->size = len;
		STAILQ_INSERT_TAIL(&conn->requests, req, link);
		conn->n_queued++;
		s->n_queued++;
		conn->queued_bytes += len;
		conn->queued_fds += n_fds;

		conn->istart += len + 1;
		conn->iscan = conn->istart;
	}

	if (conn->istart > 0) {
		memmove(conn->ibuf, conn->ibuf + conn->istart, conn->ilen - conn->istart);
		conn->ibase += conn->istart;
		conn->ilen -= conn->istart;
		conn->iscan -= conn->istart;
		conn->istart = 0;
	}
	return 0;
}

/* conn_parse() plus what its failures mean: an oversize message is answered
 * before the connection closes; < 0 means drop the connection now. */
int vl_conn_parse_input(Connection *conn)
{
	VarlinkServer *s = conn->server;
	char d[64];

	int r = conn_parse(conn);
	if (r == -EMSGSIZE) {
		log_peer(s, conn->principal, SD_WARNING,
			 "%s sent a message larger than %zu bytes, disconnecting",
			 vl_conn_describe(conn, d), s->max_message_size);
		json_object *p = json_object_new_object();
		if (p)
			json_object_object_add(p, "limit",
					       json_object_new_int64((int64_t)s->max_message_size));
		/* Stop reading, say why, close after the answer is out. */
		free(conn->ibuf);
		conn->ibuf = NULL;
		conn->ilen = conn->ialloc = conn->istart = conn->iscan = 0;
		conn_fail(conn, s->too_large_error, p);
		return 0;
	}
	return r;
}

/* One recvmsg(); 1 if data came, 0 on EAGAIN/EOF, < 0 if the connection must
 * be dropped. */
int vl_conn_read(Connection *conn)
{
	VarlinkServer *s = conn->server;
	char d[64];

	if (conn->ialloc - conn->ilen < READ_CHUNK) {
		size_t n = conn->ilen + READ_CHUNK;
		char *b = realloc(conn->ibuf, n);
		if (!b)
			return -ENOMEM;
		conn->ibuf = b;
		conn->ialloc = n;
	}

	/* Room for max_fds and for the other control messages the socket may
	 * carry with every message: SCM_CREDENTIALS where SO_PASSCRED is set
	 * (PassCredentials= in the socket unit), SCM_PIDFD where SO_PASSPIDFD
	 * is.  Without that room a message with fewer than max_fds fds is
	 * truncated.  The limit itself is counted below, on what arrived. */
	union {
		struct cmsghdr hdr;
		char buf[CONTROL_OTHER_SPACE + CMSG_SPACE(sizeof(int) * SCM_MAX_FDS)];
	} control;
	struct iovec iov = {.iov_base = conn->ibuf + conn->ilen,
			    .iov_len = conn->ialloc - conn->ilen};
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = &control,
		.msg_controllen = CONTROL_OTHER_SPACE + CMSG_SPACE(sizeof(int) * s->max_fds),
	};

	ssize_t n = recvmsg(conn->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0) {
		int err = errno;
		if (err == EAGAIN || err == EINTR)
			return 0;
		if (err != ECONNRESET)
			log_peer(conn->server, conn->principal, SD_WARNING,
				 "read from %s failed: %s", vl_conn_describe(conn, d),
				 strerror(err));
		return -err;
	}

	/* Every fd that arrived is taken into fds (or closed) before anything
	 * can fail, so none is left behind. */
	int *fds = NULL;
	size_t n_fds = 0;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_PIDFD) {
			int pidfd;
			memcpy(&pidfd, CMSG_DATA(cm), sizeof(pidfd));
			safe_close(pidfd);
		}
	int r = scm_rights_take(&mh, &fds, &n_fds);
	if (r >= 0 && (n_fds > s->max_fds || (mh.msg_flags & MSG_CTRUNC))) {
		log_peer(s, conn->principal, SD_WARNING, "%s sent more than %u fds, disconnecting",
			 vl_conn_describe(conn, d), s->max_fds);
		r = -E2BIG;
	}
	if (r < 0) {
		fds_free(fds, n_fds);
		return r;
	}

	if (n == 0) {
		fds_free(fds, n_fds);
		conn->read_eof = true;
		return 0;
	}

	if (n_fds > 0) {
		FdBatch *b = realloc(conn->batches, sizeof(FdBatch) * (conn->n_batches + 1));
		if (!b) {
			fds_free(fds, n_fds);
			return -ENOMEM;
		}
		conn->batches = b;
		b[conn->n_batches++] = (FdBatch){
			.end = conn->ibase + conn->ilen + (size_t)n - 1, .fds = fds, .n = n_fds};
	}
	conn->ilen += (size_t)n;

	r = vl_conn_parse_input(conn);
	if (r < 0)
		return r;
	return 1;
}
