/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The varlink server's own (see varlink.h for the contract): its types, and
 * what its files share, which nothing outside varlink/ sees.
 *
 * Per connection: bytes are read into an input buffer, every complete
 * (NUL-terminated) message is parsed into a request queue right away, and
 * requests are dispatched one at a time from a deferred event source, so a
 * method that answers synchronously never re-enters the dispatcher.  Answers
 * are queued as output messages and written from the same deferred source or
 * on EPOLLOUT; an answer never does I/O itself, so nothing a method calls can
 * tear down the connection under it.
 *
 *   varlink.c             the server: listening, accepting, settings
 *   varlink-connection.c  a connection's I/O: queues, reading, writing, hangup
 *   varlink-call.c        calls: answers, their limits, fds, the peer
 *   varlink-dispatch.c    org.varlink.service, dispatch, a connection's pass
 */

#include <sys/queue.h>
#include <time.h>

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
#define log_peer(s, uid, level, fmt, ...) vl_peer_log(s, uid, level "varlink: " fmt, ##__VA_ARGS__)

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
	/* An fd held in reserve: a peer accepted with the last free fd still
	 * needs one for its pidfd (varlink.c, on_accept()). */
	int spare;
};

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
	/* The socket is lent for the active call's answer
	 * (varlink_call_lend_socket()): nothing is written meanwhile. */
	bool lent;
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

static inline uint64_t now_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static inline void fds_free(int *fds, unsigned n)
{
	if (fds)
		close_many(fds, n);
	free(fds);
}

/* ---- varlink-connection.c */
void vl_server_schedule_idle_check(VarlinkServer *s);
int vl_on_idle_check(sd_event_source *src, void *userdata);
void vl_request_unqueued(Connection *conn, const Request *r);
void vl_request_free(Connection *conn, Request *r);
Request *vl_request_pop(Connection *conn);
bool vl_request_is_oneway(Request *r);
const char *vl_conn_describe(Connection *conn, char buf[static 64]);
_printf_(3, 4) void vl_peer_log(VarlinkServer *s, uid_t uid, const char *format, ...);
Connection *vl_conn_ref(Connection *conn);
Connection *vl_conn_unref(Connection *conn);
void vl_conn_schedule(Connection *conn);
bool vl_conn_is_dead(Connection *conn);
void vl_conn_unlink(Connection *conn);
void vl_conn_hangup(Connection *conn);
bool vl_conn_can_finish(Connection *conn);
void vl_conn_maybe_finish(Connection *conn);
void vl_conn_update_events(Connection *conn);
int vl_conn_enqueue(Connection *conn, json_object *msg, int *fds, unsigned n_fds, size_t max,
		    size_t *ret_size);
void vl_conn_flush(Connection *conn);
bool vl_method_name_valid(const char *m);
int vl_conn_parse_input(Connection *conn);
int vl_conn_read(Connection *conn);

/* ---- varlink-call.c */
void vl_conn_feed(Connection *conn);
json_object *vl_params_with_string(const char *key, const char *value);

/* ---- varlink-dispatch.c */
void vl_conn_settle(Connection *conn);
int vl_on_conn_defer(sd_event_source *src, void *userdata);
int vl_on_conn_io(sd_event_source *src, int fd, uint32_t revents, void *userdata);
