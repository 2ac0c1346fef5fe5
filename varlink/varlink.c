/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Varlink server on sd-event; see varlink.h for the contract.
 *
 * Per connection: bytes are read into an input buffer, every complete
 * (NUL-terminated) message is parsed into a request queue right away, and
 * requests are dispatched one at a time from a deferred event source, so a
 * method that answers synchronously never re-enters the dispatcher.  Answers
 * are queued as output messages and written from the same deferred source or
 * on EPOLLOUT; an answer never does I/O itself, so nothing a method calls can
 * tear down the connection under it.
 */

#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <sys/epoll.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>

#include <systemd/sd-daemon.h>

#include "json-dispatch.h"
#include "principal.h"
#include "util.h"
#include "varlink.h"

#ifndef SCM_PIDFD
#define SCM_PIDFD 76
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

#define READ_CHUNK  (64U * 1024)
#define SCM_MAX_FDS 253U
/* Control data a message may carry besides its fds: SCM_CREDENTIALS and
 * SCM_PIDFD. */
#define CONTROL_OTHER_SPACE (CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int)))
/* Unread output beyond this means the client stopped reading (e.g. a
 * stream it never consumes): drop it rather than grow without bound. */
#define OUTPUT_HARD_LIMIT(s) ((s)->max_message_size * 4 + READ_CHUNK)

#define log_vl(level, fmt, ...) fprintf(stderr, level "varlink: " fmt "\n", ##__VA_ARGS__)
/* A warning a peer caused: through the server's peer log when it has one. */
#define log_peer(s, uid, level, fmt, ...) peer_log(s, uid, level "varlink: " fmt, ##__VA_ARGS__)

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

typedef struct Interface Interface;
struct Interface {
	STAILQ_ENTRY(Interface) link;
	char *name;
	const char *idl;
	const VarlinkMethod *methods;
	void *userdata;
};

typedef struct Listener Listener;
struct Listener {
	SLIST_ENTRY(Listener) link;
	VarlinkServer *server;
	int fd;
	sd_event_source *source;
	sd_event_source *retry; /* accepting paused: out of fds */
	bool out_of_fds;	/* since the last connection accepted */
};

/* How long accepting pauses when the process is out of fds: the listener
 * stays readable, so retrying at once would spin the loop. */
#define ACCEPT_RETRY_USEC (100 * 1000)

static void listener_free(Listener *l)
{
	sd_event_source_disable_unref(l->source);
	sd_event_source_disable_unref(l->retry);
	safe_close(l->fd);
	free(l);
}

/* Fds that arrived with one recvmsg(); they belong to the message holding
 * the last byte that recvmsg() returned (the kernel ends a read right after
 * the segment that carried them). */
typedef struct FdBatch {
	uint64_t end; /* stream offset of that byte */
	int *fds;
	unsigned n;
} FdBatch;

typedef struct Request Request;
struct Request {
	STAILQ_ENTRY(Request) link;
	json_object *msg;
	int *fds;
	unsigned n_fds;
	size_t size; /* of its text, for the per-uid queue limit */
};

typedef struct OutMsg OutMsg;
struct OutMsg {
	STAILQ_ENTRY(OutMsg) link;
	char *data; /* includes the terminating NUL */
	size_t size, sent;
	int *fds; /* sent with the first byte */
	unsigned n_fds;
};

typedef struct Connection Connection;
struct Connection {
	unsigned n_ref;
	VarlinkServer *server; /* NULL once the server is gone */
	LIST_ENTRY(Connection) link;
	bool linked;

	int fd;
	sd_event_source *io, *defer;
	struct ucred ucred;
	int pidfd;
	uid_t principal; /* who the per-uid limits count this against */

	char *ibuf;
	size_t ilen, ialloc, istart, iscan;
	uint64_t ibase; /* stream offset of ibuf[0] */
	FdBatch *batches;
	size_t n_batches;

	STAILQ_HEAD(, Request) requests;
	unsigned n_queued;
	/* The queued requests' texts and fds, counted against the principal
	 * (VARLINK_QUEUED_BYTES_PER_UID); input_stalled: reading and parsing
	 * stopped on that limit, to go on when the principal's queue drains. */
	size_t queued_bytes;
	unsigned queued_fds;
	bool input_stalled;
	VarlinkCall *active; /* weak: cleared when it is answered or freed */

	STAILQ_HEAD(, OutMsg) output;
	size_t out_bytes;

	bool busy; /* on_conn_defer()'s work is running (conn_process()) */
	/* The peer's supplementary groups and comm, read at the first call
	 * that asks (both are the connecting process's, fixed since). */
	gid_t *peer_groups; /* NULL: not read yet */
	size_t n_peer_groups;
	char peer_comm[16];
	bool peer_comm_read;
	bool read_eof; /* client shut down its sending side */
	bool closing;  /* protocol violation: flush what is queued, then close */
	bool hung_up;  /* socket gone */
	bool overflow; /* client does not read its answers */
};

struct VarlinkServer {
	sd_event *event;
	char *vendor, *product, *version, *url;
	char *errno_error, *too_large_error, *reply_too_large_error, *held_error;
	STAILQ_HEAD(, Interface) interfaces; /* in registration order */
	SLIST_HEAD(, Listener) listeners;
	LIST_HEAD(, Connection) connections;
	unsigned n_connections;
	unsigned n_pending_calls; /* unanswered calls in existence */
	unsigned n_queued;	  /* requests read, not yet dispatched */
	size_t max_message_size;
	unsigned max_fds, max_connections, max_connections_per_uid, max_queued;
	bool draining;
	void (*idle_cb)(VarlinkServer *, void *);
	void *idle_userdata;
	VarlinkPeerLog peer_log;
	void *peer_log_userdata;
	uint64_t idle_since;
	sd_event_source *idle_defer;
};

struct VarlinkCall {
	unsigned n_ref;
	Connection *conn;
	char *method;
	VarlinkCallFlags flags;
	int *fds;
	unsigned n_fds;
	int *out_fds;
	unsigned n_out_fds;
	bool answered;
	bool disconnected;
	void (*disconnect_cb)(VarlinkCall *, void *);
	void *disconnect_userdata;
	void (*drain_cb)(VarlinkCall *, void *);
	void *drain_userdata;
	size_t held; /* varlink_call_set_held() */
};

static uint64_t now_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void fds_free(int *fds, unsigned n)
{
	if (fds)
		close_many(fds, n);
	free(fds);
}

/* ------------------------------------------------------------ small parts */

static void server_schedule_idle_check(VarlinkServer *s)
{
	if (s && s->idle_defer)
		(void)sd_event_source_set_enabled(s->idle_defer, SD_EVENT_ONESHOT);
}

static int on_idle_check(sd_event_source *src, void *userdata)
{
	VarlinkServer *s = userdata;
	(void)src;

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

static void conn_schedule(Connection *conn);

/* A request of conn's left the queue: what its principal's limit stopped
 * goes on. */
static void request_unqueued(Connection *conn, const Request *r)
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
		conn_schedule(c);
	}
}

static void request_free(Connection *conn, Request *r)
{
	if (!r)
		return;
	if (conn->server)
		conn->server->n_queued--;
	conn->n_queued--;
	request_unqueued(conn, r);
	json_object_put(r->msg);
	fds_free(r->fds, r->n_fds);
	free(r);
}

static Request *request_pop(Connection *conn)
{
	Request *r = STAILQ_FIRST(&conn->requests);
	if (r)
		STAILQ_REMOVE_HEAD(&conn->requests, link);
	return r;
}

static bool request_is_oneway(Request *r)
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

static const char *conn_describe(Connection *conn, char buf[static 64])
{
	if (conn->principal == conn->ucred.uid)
		snprintf(buf, 64, "pid %d (uid %u)", (int)conn->ucred.pid,
			 (unsigned)conn->ucred.uid);
	else
		snprintf(buf, 64, "pid %d (uid %u, user %u)", (int)conn->ucred.pid,
			 (unsigned)conn->ucred.uid, (unsigned)conn->principal);
	return buf;
}

_printf_(3, 4) static void peer_log(VarlinkServer *s, uid_t uid, const char *format, ...)
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

static Connection *conn_ref(Connection *conn)
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

static Connection *conn_unref(Connection *conn)
{
	if (!conn || --conn->n_ref > 0)
		return NULL;
	conn_close_socket(conn);
	conn->defer = sd_event_source_disable_unref(conn->defer);
	while (!STAILQ_EMPTY(&conn->requests))
		request_free(conn, request_pop(conn));
	conn->pidfd = safe_close(conn->pidfd);
	free(conn->peer_groups);
	free(conn);
	return NULL;
}

static void conn_schedule(Connection *conn)
{
	if (conn->defer)
		(void)sd_event_source_set_enabled(conn->defer, SD_EVENT_ONESHOT);
}

/* No further calls can be answered on this connection. */
static bool conn_is_dead(Connection *conn)
{
	return conn->hung_up || conn->closing || conn->overflow || !conn->server;
}

static void conn_unlink(Connection *conn)
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
		request_free(conn, request_pop(conn));
	server_schedule_idle_check(s);
	conn_unref(conn); /* the server's reference */
}

/* The client is gone (or broke the protocol): close the socket now, drop
 * the requests that wanted an answer, keep the oneway ones (their caller
 * expects nothing back), and tell the active call. */
static void conn_hangup(Connection *conn)
{
	if (conn->hung_up)
		return;
	conn_close_socket(conn);

	Request *r = STAILQ_FIRST(&conn->requests), *next;
	for (; r; r = next) {
		next = STAILQ_NEXT(r, link);
		if (!request_is_oneway(r)) {
			STAILQ_REMOVE(&conn->requests, r, Request, link);
			request_free(conn, r);
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
	conn_schedule(conn);
}

static bool conn_can_finish(Connection *conn)
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

static void conn_maybe_finish(Connection *conn)
{
	if (conn_can_finish(conn))
		conn_unlink(conn);
}

static void conn_update_events(Connection *conn)
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
	if (!STAILQ_EMPTY(&conn->output))
		events |= EPOLLOUT;
	/* Even with no events epoll reports EPOLLHUP, which is how a client
	 * hanging up in the middle of a call is noticed. */
	(void)sd_event_source_set_io_events(conn->io, events);
}

/* max: the largest text to queue (without its NUL); a larger one is
 * -EMSGSIZE with its size in *ret_size, and nothing is queued. */
static int conn_enqueue(Connection *conn, json_object *msg, int *fds, unsigned n_fds, size_t max,
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
	conn_schedule(conn);
	return 0;
}

/* Writes as much queued output as the socket takes; a message that carries
 * fds starts its own sendmsg() so the fds arrive with its first byte. */
static void conn_flush(Connection *conn)
{
	while (conn->fd >= 0 && !STAILQ_EMPTY(&conn->output)) {
		OutMsg *m = STAILQ_FIRST(&conn->output);
		struct iovec iov = {.iov_base = m->data + m->sent, .iov_len = m->size - m->sent};
		union {
			struct cmsghdr hdr;
			char buf[CMSG_SPACE(sizeof(int) * SCM_MAX_FDS)];
		} control;
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

		if (m->sent == 0 && m->n_fds > 0) {
			memset(&control, 0, sizeof(control));
			mh.msg_control = &control;
			mh.msg_controllen = CMSG_SPACE(sizeof(int) * m->n_fds);
			struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int) * m->n_fds);
			memcpy(CMSG_DATA(cm), m->fds, sizeof(int) * m->n_fds);
		}

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
					 "write to %s failed: %s", conn_describe(conn, d),
					 strerror(err));
			}
			conn_hangup(conn);
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
		request_free(conn, request_pop(conn));
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
		(void)conn_enqueue(conn, msg, NULL, 0, SIZE_MAX, NULL);
	conn_schedule(conn);
}

static bool method_name_valid(const char *m)
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
				 conn_describe(conn, d), s->max_fds);
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
				 conn_describe(conn, d));
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
static int conn_parse_input(Connection *conn)
{
	VarlinkServer *s = conn->server;
	char d[64];

	int r = conn_parse(conn);
	if (r == -EMSGSIZE) {
		log_peer(s, conn->principal, SD_WARNING,
			 "%s sent a message larger than %zu bytes, disconnecting",
			 conn_describe(conn, d), s->max_message_size);
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
static int conn_read(Connection *conn)
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
				 "read from %s failed: %s", conn_describe(conn, d), strerror(err));
		return -err;
	}

	/* Every fd that arrived is taken into fds (or closed) before anything
	 * can fail, so none is left behind. */
	int *fds = NULL;
	unsigned n_fds = 0;
	int r = 0;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET)
			continue;
		if (cm->cmsg_type == SCM_PIDFD) {
			int pidfd;
			memcpy(&pidfd, CMSG_DATA(cm), sizeof(pidfd));
			safe_close(pidfd);
			continue;
		}
		if (cm->cmsg_type != SCM_RIGHTS)
			continue;
		unsigned k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		int *more = r < 0 ? NULL : realloc(fds, sizeof(int) * (n_fds + k));
		if (!more) {
			close_many((int *)CMSG_DATA(cm), k);
			r = -ENOMEM;
			continue;
		}
		fds = more;
		memcpy(fds + n_fds, CMSG_DATA(cm), sizeof(int) * k);
		n_fds += k;
	}
	if (r >= 0 && (n_fds > s->max_fds || (mh.msg_flags & MSG_CTRUNC))) {
		log_peer(s, conn->principal, SD_WARNING, "%s sent more than %u fds, disconnecting",
			 conn_describe(conn, d), s->max_fds);
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

	r = conn_parse_input(conn);
	if (r < 0)
		return r;
	return 1;
}

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
	conn_schedule(conn);
	/* Only then can on_idle_check() find the server idle: a check that
	 * cannot costs an event loop iteration on every answer. */
	if (conn->server && conn->server->n_connections == 0 && conn->server->n_pending_calls == 0)
		server_schedule_idle_check(conn->server);
}

static VarlinkCall *call_free(VarlinkCall *c)
{
	if (!c->answered) {
		/* A method that neither answered nor kept the call would leave
		 * the client waiting forever. */
		if (!(c->flags & VARLINK_CALL_ONEWAY) && !conn_is_dead(c->conn)) {
			log_vl(SD_ERR, "call to %s dropped without an answer", c->method);
			(void)varlink_call_error_errno(c, -ECANCELED);
		}
		if (!c->answered)
			call_finish(c);
	}
	fds_free(c->fds, c->n_fds);
	free(c->method);
	conn_unref(c->conn);
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
	return conn_enqueue(c->conn, msg, NULL, 0, SIZE_MAX, &unused);
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
	return conn_enqueue(c->conn, msg, NULL, 0, SIZE_MAX, &unused);
}

/* 1 when an answer too large, or past its uid's limit, was replaced by
 * the error for it. */
static int call_send(VarlinkCall *c, json_object *msg, bool reply)
{
	Connection *conn = c->conn;
	VarlinkServer *s = conn->server;
	size_t size = 0, max = SIZE_MAX, room = SIZE_MAX;
	int r;

	if (conn_is_dead(conn))
		return -ENOTCONN;
	if (reply && s->reply_too_large_error)
		max = s->max_message_size;
	if (reply && s->held_error && conn->principal != 0) {
		size_t held = uid_held(s, conn->principal), limit = VARLINK_HELD_PER_UID(s);

		room = held < limit ? limit - held : 0;
	}
	r = conn_enqueue(conn, msg, c->out_fds, c->n_out_fds, MIN(max, room), &size);
	if (r == -EMSGSIZE && size > max) {
		char d[64];

		log_peer(s, conn->principal, SD_NOTICE,
			 "answer of %zu bytes to %s is larger than %zu, sending %s", size,
			 conn_describe(conn, d), s->max_message_size, s->reply_too_large_error);
		r = call_send_too_large(c, size);
		return r < 0 ? r : 1;
	}
	if (r == -EMSGSIZE) {
		char d[64];

		log_peer(s, conn->principal, SD_NOTICE,
			 "answer of %zu bytes to %s would make its uid's unread answers more than "
			 "%zu bytes, sending %s",
			 size, conn_describe(conn, d), (size_t)VARLINK_HELD_PER_UID(s),
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
static void conn_feed(Connection *conn)
{
	bool busy = conn->busy;

	/* Answers given from the callback are written here, not in it. */
	conn->busy = true;
	for (;;) {
		VarlinkCall *c = conn->active;
		size_t before;

		conn_flush(conn);
		if (conn_is_dead(conn) || conn->fd < 0 || !c || c->answered || !c->drain_cb ||
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

static void conn_settle(Connection *conn);

static int call_answer(VarlinkCall *c, const char *error, json_object *parameters, bool continues)
{
	_cleanup_json_ json_object *params = parameters;
	_cleanup_json_ json_object *msg = NULL;

	if (!c)
		return -EINVAL;
	if (c->answered)
		return -EALREADY;
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
	Connection *conn = c->conn;
	if (!conn->busy && conn->linked) {
		conn_ref(conn);
		conn_feed(conn);
		conn_update_events(conn);
		conn_settle(conn);
		conn_unref(conn);
	}
	return r;
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

static json_object *params_with_string(const char *key, const char *value)
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
				  params_with_string("parameter", parameter));
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
					  params_with_string("method", c->method));
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
		return -errno;
	groups = malloc(len ?: 1);
	if (!groups)
		return -ENOMEM;
	if (len > 0 && getsockopt(conn->fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0) {
		int r = -errno;

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
		conn->peer_comm[strcspn(conn->peer_comm, "\n")] = 0;
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
	conn_schedule(c->conn);
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

/* ------------------------------------------------------------ org.varlink.service */

static int vl_get_info(VarlinkCall *c, json_object *parameters, VarlinkCallFlags flags, void *ud)
{
	static const JsonDispatch table[] = {{}};
	VarlinkServer *s = ud;
	(void)flags;

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
	(void)flags;

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
					  params_with_string("interface", name));
	return varlink_call_reply(c, params_with_string("description", idl));
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
	request_unqueued(conn, req);

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
		conn_hangup(conn);
		return;
	}
	c->n_ref = 1;
	c->conn = conn_ref(conn);
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
	} else if (!method_name_valid(method)) {
		r = varlink_call_error(c, VARLINK_ERROR_METHOD_NOT_FOUND,
				       params_with_string("method", method));
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
					       params_with_string("interface", iface));
		else if (!m)
			r = varlink_call_error(c, VARLINK_ERROR_METHOD_NOT_FOUND,
					       params_with_string("method", method));
		else if ((m->flags & VARLINK_METHOD_MORE_ONLY) && !(c->flags & VARLINK_CALL_MORE))
			r = varlink_call_error(c, VARLINK_ERROR_EXPECTED_MORE, NULL);
		else if (!m->fn)
			r = varlink_call_error(c, VARLINK_ERROR_METHOD_NOT_IMPLEMENTED,
					       params_with_string("method", method));
		else
			r = m->fn(c, params, c->flags, userdata);
	}

	/* A failure after the method answered (e.g. varlink_call_dispatch()
	 * already sent InvalidParameter) needs nothing more. */
	if (r < 0 && !c->answered)
		(void)varlink_call_error_errno(c, r);
	varlink_call_unref(c);
}

/* What on_conn_defer() is for: requests to dispatch, complete messages
 * left in the buffer, output the socket has not taken, a client that
 * does not read, a connection to finish.  Conservative: when in doubt,
 * there is work. */
static bool conn_has_work(Connection *conn)
{
	if (!conn->linked)
		return false;
	return (conn->overflow && !conn->hung_up) || !STAILQ_EMPTY(&conn->output) ||
	       (!conn->active && !STAILQ_EMPTY(&conn->requests)) || conn->iscan < conn->ilen ||
	       conn_can_finish(conn);
}

/* After the connection's work was done in place: the deferred pass that
 * the work scheduled is dropped when nothing is left for it. */
static void conn_settle(Connection *conn)
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
			 "%s does not read its answers, disconnecting", conn_describe(conn, d));
		conn_hangup(conn);
	}
	conn_flush(conn);
	while (conn->linked && !conn->active && !STAILQ_EMPTY(&conn->requests) && !conn->closing) {
		/* Backpressure: let the client read before producing more. */
		if (conn->fd >= 0 && conn->out_bytes > conn->server->max_message_size)
			break;
		Request *r = request_pop(conn);
		if (conn->hung_up && !request_is_oneway(r)) {
			request_free(conn, r);
			continue;
		}
		conn_dispatch(conn, r);
	}
	/* Complete messages left in the buffer by the queue limits. */
	if (conn->ilen > conn->istart && conn->fd >= 0 && !conn->closing &&
	    conn->n_queued < conn->server->max_queued) {
		if (conn_parse_input(conn) < 0)
			conn_hangup(conn);
		else if (!STAILQ_EMPTY(&conn->requests) && !conn->active)
			conn_schedule(conn); /* else the end of the active call does */
	}
	conn_feed(conn);
	conn->busy = false;
	if (conn->linked) {
		conn_update_events(conn);
		conn_maybe_finish(conn);
	}
}

static int on_conn_defer(sd_event_source *src, void *userdata)
{
	Connection *conn = conn_ref(userdata);
	(void)src;

	conn_process(conn);
	conn_unref(conn);
	return 0;
}

static int on_conn_io(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	Connection *conn = conn_ref(userdata);
	VarlinkServer *s = conn->server;
	(void)src;
	(void)fd;

	if (revents & EPOLLOUT)
		conn_flush(conn);

	if ((revents & EPOLLIN) && conn->fd >= 0 && !conn->closing) {
		int r = conn_read(conn);
		if (r < 0)
			conn_hangup(conn);
	}

	if ((revents & (EPOLLHUP | EPOLLERR)) && conn->fd >= 0) {
		/* The peer is gone.  Pick up what it sent before leaving
		 * (a oneway call followed by close() is legitimate), unless
		 * we are draining and read nothing new anyway. */
		while (!s->draining && !conn->closing && conn->fd >= 0 && !conn->read_eof &&
		       conn_read(conn) > 0)
			;
		conn_hangup(conn);
	}
	/* The pass in place, not one loop iteration later: a request is
	 * dispatched in the iteration that read it. */
	conn_process(conn);
	conn_settle(conn);
	conn_unref(conn);
	return 0;
}

/* uc, pidfd (taken), principal: the peer, as on_accept() found it. */
static int conn_new(VarlinkServer *s, int fd, const struct ucred *uc, int pidfd, uid_t principal)
{
	_cleanup_close_ int owned = fd, owned_pidfd = pidfd;
	Connection *conn = calloc(1, sizeof(*conn));
	int r;

	if (!conn)
		return -ENOMEM;
	conn->n_ref = 1;
	conn->server = s;
	STAILQ_INIT(&conn->requests);
	STAILQ_INIT(&conn->output);
	conn->fd = TAKE_FD(owned);
	conn->pidfd = -EBADF;

	conn->ucred = *uc;
	conn->pidfd = TAKE_FD(owned_pidfd);
	conn->principal = principal;

	r = sd_event_add_io(s->event, &conn->io, conn->fd, EPOLLIN, on_conn_io, conn);
	if (r >= 0)
		r = sd_event_add_defer(s->event, &conn->defer, on_conn_defer, conn);
	if (r >= 0)
		r = sd_event_source_set_enabled(conn->defer, SD_EVENT_OFF);
	if (r < 0) {
		conn_unref(conn);
		return r;
	}

	conn->linked = true;
	LIST_INSERT_HEAD(&s->connections, conn, link);
	s->n_connections++;
	s->idle_since = 0;
	return 0;
}

static int on_accept_retry(sd_event_source *src, uint64_t usec, void *userdata)
{
	Listener *l = userdata;

	(void)src;
	(void)usec;
	return sd_event_source_set_enabled(l->source, SD_EVENT_ON);
}

static int on_accept(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	Listener *l = userdata;
	VarlinkServer *s = l->server;
	(void)src;
	(void)revents;

	_cleanup_close_ int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (cfd < 0 && (errno == EMFILE || errno == ENFILE)) {
		/* The connection waits in the backlog until an fd frees up;
		 * the clients already connected are still served (their
		 * requests fail where they need an fd, naming EMFILE). */
		if (!l->out_of_fds)
			log_vl(SD_WARNING, "accept failed: %m; retrying every %u ms",
			       (unsigned)(ACCEPT_RETRY_USEC / 1000));
		l->out_of_fds = true;
		(void)sd_event_source_set_enabled(l->source, SD_EVENT_OFF);
		if (!l->retry)
			(void)sd_event_add_time_relative(s->event, &l->retry, CLOCK_MONOTONIC,
							 ACCEPT_RETRY_USEC, 0, on_accept_retry, l);
		else
			(void)sd_event_source_set_time_relative(l->retry, ACCEPT_RETRY_USEC);
		(void)sd_event_source_set_enabled(l->retry, SD_EVENT_ONESHOT);
		return 0;
	}
	if (cfd >= 0 && l->out_of_fds) {
		l->out_of_fds = false;
		log_vl(SD_NOTICE, "accepting again");
	}
	if (cfd < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			log_vl(SD_WARNING, "accept failed: %m");
		return 0;
	}
	/* The limits keep users from crowding each other (and root) out;
	 * root itself is not counted: it could do whatever it asks anyway. */
	struct ucred uc;
	socklen_t len = sizeof(uc);
	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0 || len != sizeof(uc))
		return 0;
	/* The peer's identity is its process, pinned now: a peer that has
	 * exited already has none (SO_PEERPIDFD fails), and its pid may
	 * name another process by the time a call asks whose namespace is
	 * the caller's.  Such a connection is not served. */
	_cleanup_close_ int pidfd = -EBADF;
	len = sizeof(pidfd);
	/* 6.16+ hands out a pidfd of an exited peer too: a pidfd that
	 * polls readable is a process that has exited. */
	int err = getsockopt(cfd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0 ? errno : 0;
	if (err == 0 && poll(&(struct pollfd){.fd = pidfd, .events = POLLIN}, 1, 0) != 0)
		err = ESRCH;
	if (err != 0) {
		log_peer(s, uc.uid, SD_NOTICE,
			 "refusing a connection of pid %d (uid %u): its process cannot be pinned "
			 "(%s)",
			 (int)uc.pid, (unsigned)uc.uid, strerror(err));
		return 0;
	}
	/* Counted by the user who answers for the peer: a user's subuids
	 * are that user's (principal.h). */
	uid_t principal = principal_of_pidfd(pidfd, uc.uid);
	if (principal != 0) {
		unsigned mine = 0;
		Connection *c;

		LIST_FOREACH(c, &s->connections, link)
		mine += c->principal == principal;
		if (s->n_connections >= s->max_connections) {
			log_peer(s, principal, SD_WARNING,
				 "too many connections (%u), refusing pid %d (uid %u, user %u)",
				 s->n_connections, (int)uc.pid, (unsigned)uc.uid,
				 (unsigned)principal);
			return 0;
		}
		if (mine >= s->max_connections_per_uid) {
			log_peer(s, principal, SD_WARNING,
				 "user %u has %u connections already, refusing pid %d (uid %u)",
				 (unsigned)principal, mine, (int)uc.pid, (unsigned)uc.uid);
			return 0;
		}
	}
	int r = conn_new(s, TAKE_FD(cfd), &uc, TAKE_FD(pidfd), principal);
	if (r < 0)
		log_vl(SD_WARNING, "cannot set up connection: %s", strerror(-r));
	return 0;
}

/* ------------------------------------------------------------ server */

int varlink_server_new(VarlinkServer **ret, sd_event *event, const char *vendor,
		       const char *product, const char *version, const char *url)
{
	_cleanup_(varlink_server_freep) VarlinkServer *s = NULL;
	int r;

	if (!ret || !vendor || !product || !version || !url)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	STAILQ_INIT(&s->interfaces);
	SLIST_INIT(&s->listeners);
	LIST_INIT(&s->connections);
	if (event)
		s->event = sd_event_ref(event);
	else if ((r = sd_event_default(&s->event)) < 0)
		return r;
	s->max_message_size = VARLINK_DEFAULT_MAX_MESSAGE_SIZE;
	s->max_fds = VARLINK_DEFAULT_MAX_FDS;
	s->max_connections = VARLINK_DEFAULT_MAX_CONNECTIONS;
	s->max_connections_per_uid = VARLINK_DEFAULT_MAX_CONNECTIONS_PER_UID;
	s->max_queued = VARLINK_DEFAULT_MAX_QUEUED;
	s->idle_since = now_usec();

	s->vendor = strdup(vendor);
	s->product = strdup(product);
	s->version = strdup(version);
	s->url = strdup(url);
	if (!s->vendor || !s->product || !s->version || !s->url)
		return -ENOMEM;

	r = sd_event_add_defer(s->event, &s->idle_defer, on_idle_check, s);
	if (r < 0)
		return r;
	r = sd_event_source_set_enabled(s->idle_defer, SD_EVENT_OFF);
	if (r < 0)
		return r;

	*ret = TAKE_PTR(s);
	return 0;
}

VarlinkServer *varlink_server_free(VarlinkServer *s)
{
	if (!s)
		return NULL;

	while (!SLIST_EMPTY(&s->listeners)) {
		Listener *l = SLIST_FIRST(&s->listeners);
		SLIST_REMOVE_HEAD(&s->listeners, link);
		listener_free(l);
	}
	/* Calls the daemon still holds keep their connection object, detached
	 * from the server: answering them gives -ENOTCONN. */
	while (!LIST_EMPTY(&s->connections)) {
		Connection *conn = LIST_FIRST(&s->connections);
		conn_ref(conn);
		if (conn->active && !conn->active->answered)
			s->n_pending_calls--;
		conn->active = NULL;
		conn_unlink(conn);
		conn->server = NULL;
		conn_unref(conn);
	}
	while (!STAILQ_EMPTY(&s->interfaces)) {
		Interface *i = STAILQ_FIRST(&s->interfaces);
		STAILQ_REMOVE_HEAD(&s->interfaces, link);
		free(i->name);
		free(i);
	}
	sd_event_source_disable_unref(s->idle_defer);
	sd_event_unref(s->event);
	free(s->vendor);
	free(s->product);
	free(s->version);
	free(s->url);
	free(s->errno_error);
	free(s->too_large_error);
	free(s->reply_too_large_error);
	free(s->held_error);
	free(s);
	return NULL;
}

/* The first non-comment line must be "interface <name>". */
static int idl_interface_name(const char *idl, char **ret)
{
	const char *p = idl;

	while (*p) {
		p += strspn(p, " \t\r\n");
		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		break;
	}
	if (strncmp(p, "interface", 9) != 0 || !strchr(" \t", p[9]))
		return -EINVAL;
	p += 9;
	p += strspn(p, " \t");
	size_t n = strcspn(p, " \t\r\n#");
	if (n == 0 || n > 255)
		return -EINVAL;
	/* Reverse-domain name: labels of [A-Za-z0-9-], at least two. */
	bool dot = false;
	for (size_t i = 0; i < n; i++) {
		char ch = p[i];
		if (ch == '.') {
			if (i == 0 || i == n - 1 || p[i - 1] == '.')
				return -EINVAL;
			dot = true;
		} else if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			     (ch >= '0' && ch <= '9') || ch == '-'))
			return -EINVAL;
	}
	if (!dot)
		return -EINVAL;
	*ret = strndup(p, n);
	return *ret ? 0 : -ENOMEM;
}

int varlink_server_add_interface(VarlinkServer *s, const char *idl, const VarlinkMethod methods[],
				 void *userdata)
{
	_cleanup_free_ char *name = NULL;

	if (!s || !idl || !methods)
		return -EINVAL;
	int r = idl_interface_name(idl, &name);
	if (r < 0)
		return r;
	if (streq(name, "org.varlink.service"))
		return -EEXIST;
	Interface *i;
	STAILQ_FOREACH(i, &s->interfaces, link)
	if (streq(i->name, name))
		return -EEXIST;

	i = calloc(1, sizeof(*i));
	if (!i)
		return -ENOMEM;
	i->name = TAKE_PTR(name);
	i->idl = idl;
	i->methods = methods;
	i->userdata = userdata;
	STAILQ_INSERT_TAIL(&s->interfaces, i, link);
	return 0;
}

int varlink_server_listen_fd(VarlinkServer *s, int fd)
{
	_cleanup_close_ int owned = fd;

	if (!s || fd < 0)
		return -EINVAL;
	/* Errors with an errno need a name from the service's own interface. */
	if (!s->errno_error)
		return -EDESTADDRREQ;
	if (s->draining)
		return -ESHUTDOWN;
	/* accept() must not block when a client vanished between the wakeup
	 * and the call. */
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;

	Listener *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->server = s;
	int r = sd_event_add_io(s->event, &l->source, fd, EPOLLIN, on_accept, l);
	if (r < 0) {
		free(l);
		return r;
	}
	l->fd = TAKE_FD(owned);
	SLIST_INSERT_HEAD(&s->listeners, l, link);
	return 0;
}

/* Whether some process (systemd's socket unit, another instance) listens
 * on the AF_UNIX socket at path, from /proc/net/unix rather than by
 * connecting, which would start a socket-activated service. */
static bool socket_path_listening(const char *path)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/net/unix", "re");
	char line[4200], p[4097];
	unsigned flags;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		/* Num RefCount Protocol Flags Type St Inode Path; __SO_ACCEPTCON */
		if (sscanf(line, "%*s %*s %*s %x %*s %*s %*s %4096s", &flags, p) == 2 &&
		    (flags & 0x10000) && streq(p, path))
			return true;
	return false;
}

int varlink_server_listen_path(VarlinkServer *s, const char *path, mode_t mode)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;

	if (!s || !path)
		return -EINVAL;
	if (!s->errno_error)
		return -EDESTADDRREQ;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);

	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* A socket file left by a previous run would make bind() fail; one
	 * that is still served is not ours to take. */
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
		if (socket_path_listening(path))
			return -EADDRINUSE;
		(void)unlink(path);
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	/* chmod before listen(): nobody can connect in between. */
	if (chmod(path, mode) < 0)
		return -errno;
	if (listen(fd, SOMAXCONN) < 0)
		return -errno;
	return varlink_server_listen_fd(s, TAKE_FD(fd));
}

int varlink_server_listen_fds(VarlinkServer *s, int n)
{
	for (int fd = SD_LISTEN_FDS_START; fd < SD_LISTEN_FDS_START + n; fd++) {
		if (sd_is_socket(fd, AF_UNIX, SOCK_STREAM, 1) <= 0) {
			log_vl(SD_WARNING, "passed fd %d is not a listening AF_UNIX stream socket",
			       fd);
			return -EBADF;
		}
		/* Not for the workers, nor anything they exec. */
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
			return -errno;
		int r = varlink_server_listen_fd(s, fd);
		if (r < 0)
			return r;
	}
	return n;
}

int varlink_server_listen_auto(VarlinkServer *s, const char *fallback_path)
{
	int n = sd_listen_fds(true);
	if (n < 0)
		return n;
	if (n == 0) {
		if (!fallback_path)
			return -ENOENT;
		int r = varlink_server_listen_path(s, fallback_path, 0666);
		return r < 0 ? r : 1;
	}
	return varlink_server_listen_fds(s, n);
}

void varlink_server_stop_accepting(VarlinkServer *s)
{
	if (!s || s->draining)
		return;
	s->draining = true;
	while (!SLIST_EMPTY(&s->listeners)) {
		Listener *l = SLIST_FIRST(&s->listeners);
		SLIST_REMOVE_HEAD(&s->listeners, link);
		listener_free(l);
	}
	Connection *c;
	LIST_FOREACH(c, &s->connections, link)
	{
		conn_update_events(c);
		conn_schedule(c);
	}
	server_schedule_idle_check(s);
}

bool varlink_server_is_draining(VarlinkServer *s)
{
	return s && s->draining;
}

unsigned varlink_server_n_active(VarlinkServer *s)
{
	return s ? s->n_pending_calls + s->n_queued : 0;
}

unsigned varlink_server_n_connections(VarlinkServer *s)
{
	return s ? s->n_connections : 0;
}

int varlink_server_set_idle_callback(VarlinkServer *s, void (*cb)(VarlinkServer *, void *),
				     void *userdata)
{
	if (!s)
		return -EINVAL;
	s->idle_cb = cb;
	s->idle_userdata = userdata;
	return 0;
}

uint64_t varlink_server_idle_since(VarlinkServer *s)
{
	if (!s || s->n_connections > 0 || s->n_pending_calls > 0)
		return 0;
	return s->idle_since;
}

int varlink_server_set_errno_error(VarlinkServer *s, const char *error)
{
	if (!s || !error || !strchr(error, '.'))
		return -EINVAL;
	return free_and_strdup(&s->errno_error, error);
}

int varlink_server_set_held_limit_error(VarlinkServer *s, const char *error)
{
	if (!s || !error || !strchr(error, '.'))
		return -EINVAL;
	return free_and_strdup(&s->held_error, error);
}

int varlink_server_set_reply_too_large_error(VarlinkServer *s, const char *error)
{
	if (!s || !error || !strchr(error, '.'))
		return -EINVAL;
	return free_and_strdup(&s->reply_too_large_error, error);
}

int varlink_server_set_too_large_error(VarlinkServer *s, const char *error)
{
	if (!s || !error || !strchr(error, '.'))
		return -EINVAL;
	return free_and_strdup(&s->too_large_error, error);
}

size_t varlink_server_get_max_message_size(VarlinkServer *s)
{
	return s ? s->max_message_size : VARLINK_DEFAULT_MAX_MESSAGE_SIZE;
}

void varlink_server_set_max_message_size(VarlinkServer *s, size_t size)
{
	if (s && size > 0)
		s->max_message_size = size;
}

void varlink_server_set_max_fds(VarlinkServer *s, unsigned n)
{
	if (s)
		s->max_fds = MIN(n, SCM_MAX_FDS);
}

void varlink_server_set_max_connections(VarlinkServer *s, unsigned n)
{
	if (s && n > 0)
		s->max_connections = n;
}

void varlink_server_set_max_connections_per_uid(VarlinkServer *s, unsigned n)
{
	if (s && n > 0)
		s->max_connections_per_uid = n;
}

void varlink_server_set_peer_log(VarlinkServer *s, VarlinkPeerLog log, void *userdata)
{
	if (!s)
		return;
	s->peer_log = log;
	s->peer_log_userdata = userdata;
}
