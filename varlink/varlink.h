/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A small varlink server (https://varlink.org) on sd-event.
 *
 * Wire format: NUL-terminated JSON messages on an AF_UNIX SOCK_STREAM socket.
 *   request: {"method": "iface.Method", "parameters": {...}, "oneway": b, "more": b, "upgrade": b}
 *   reply:   {"parameters": {...}, "continues": b}
 *   error:   {"error": "iface.Name", "parameters": {...}}
 * File descriptors travel as SCM_RIGHTS with the message that refers to them
 * (systemd's convention): parameters carry the fd's index in that message.
 *
 * The server implements org.varlink.service (GetInfo, GetInterfaceDescription)
 * itself.  Requests on one connection are handled strictly in order, one call
 * at a time; further requests the client pipelined are queued.
 *
 * Lifetime of a call: the method callback gets a VarlinkCall that the server
 * holds a reference on for the duration of the callback.  The call ends with
 * exactly one varlink_call_reply() or varlink_call_error() (for "oneway"
 * calls these send nothing).  A method that answers later takes its own
 * reference with varlink_call_ref() and drops it after answering.
 *
 * Method return values:
 *   0          a final reply/error was sent, or the call was ref'd for later.
 *   negative   if no final reply was sent yet, the server answers with
 *              varlink_call_error_errno(): -EPERM/-EACCES → PermissionDenied,
 *              -EOPNOTSUPP/-ENOSYS → MethodNotImplemented{method}, anything
 *              else (including -EINVAL) → the server's errno error (see
 *              varlink_server_set_errno_error()) {errno, errnoName}.  Methods
 *              that know which parameter is wrong should send
 *              varlink_call_error_invalid_parameter() themselves.  If a final
 *              reply was already sent the value is only logged.
 * A method returning 0 without answering and without keeping a reference is a
 * bug: the server then answers with the errno error for ECANCELED, so the
 * client never hangs.
 *
 * `parameters` is borrowed for the duration of the callback (never NULL: a
 * request without parameters gets {}); json_object_get() it to keep it.
 *
 * When the client hangs up: the active call's disconnect callback runs, its
 * later answers return -ENOTCONN (and end it); queued requests that expect an
 * answer are dropped, queued oneway requests still run.  A connection that
 * breaks the protocol (malformed JSON, no "method", "parameters" not an
 * object, oneway with more, too many fds) is closed without an answer.
 *
 * Logging goes to stderr with sd-daemon <N> priority prefixes.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <json-c/json.h>
#include <systemd/sd-event.h>

typedef struct VarlinkServer VarlinkServer;
typedef struct VarlinkCall VarlinkCall;
typedef struct JsonDispatch JsonDispatch; /* json-dispatch.h */

/* Standard errors of org.varlink.service, with their parameters. */
#define VARLINK_ERROR_INTERFACE_NOT_FOUND    "org.varlink.service.InterfaceNotFound" /* interface */
#define VARLINK_ERROR_METHOD_NOT_FOUND	     "org.varlink.service.MethodNotFound"    /* method */
#define VARLINK_ERROR_METHOD_NOT_IMPLEMENTED "org.varlink.service.MethodNotImplemented"
#define VARLINK_ERROR_INVALID_PARAMETER	     "org.varlink.service.InvalidParameter" /* parameter */
#define VARLINK_ERROR_PERMISSION_DENIED	     "org.varlink.service.PermissionDenied"
#define VARLINK_ERROR_EXPECTED_MORE	     "org.varlink.service.ExpectedMore"

/* Defaults of the limits (each settable, see below). */
#define VARLINK_DEFAULT_MAX_MESSAGE_SIZE	(16U * 1024 * 1024)
#define VARLINK_DEFAULT_MAX_FDS			16U
#define VARLINK_DEFAULT_MAX_CONNECTIONS		1024U
#define VARLINK_DEFAULT_MAX_CONNECTIONS_PER_UID 64U
/* A stream fed by its drain callback is asked for its next message while
 * less than this is left to write. */
#define VARLINK_STREAM_LOW_WATER (256U * 1024)
/* Pipelined requests queued per connection before we stop reading. */
#define VARLINK_DEFAULT_MAX_QUEUED 64U

typedef enum VarlinkMethodFlags {
	VARLINK_METHOD_MORE_ONLY = 1 << 0, /* must be called with "more": else ExpectedMore */
} VarlinkMethodFlags;

typedef enum VarlinkCallFlags {
	VARLINK_CALL_MORE = 1 << 0,
	VARLINK_CALL_ONEWAY = 1 << 1,
} VarlinkCallFlags;

typedef int (*VarlinkMethodFn)(VarlinkCall *call, json_object *parameters, VarlinkCallFlags flags,
			       void *userdata);

typedef struct VarlinkMethod {
	const char *name; /* unqualified, e.g. "Create" */
	VarlinkMethodFn fn;
	VarlinkMethodFlags flags;
} VarlinkMethod;

/* ---- server ---- */

int varlink_server_new(VarlinkServer **ret, sd_event *event, const char *vendor,
		       const char *product, const char *version, const char *url);
/* Closes every connection.  Calls the daemon still holds stay valid (answers
 * return -ENOTCONN) but their disconnect callbacks do not run: end streams
 * before freeing the server. */
VarlinkServer *varlink_server_free(VarlinkServer *s);
static inline void varlink_server_freep(VarlinkServer **s)
{
	if (*s)
		varlink_server_free(*s);
}

/* idl: the full interface text, served verbatim by GetInterfaceDescription;
 * the interface name is parsed from its "interface x.y" line.  methods[] is
 * terminated by an entry with name == NULL; the array and idl must outlive
 * the server (normally static).  -EEXIST for a duplicate interface name,
 * -EINVAL for text without a valid interface line. */
int varlink_server_add_interface(VarlinkServer *s, const char *idl, const VarlinkMethod methods[],
				 void *userdata);

int varlink_server_listen_fd(VarlinkServer *s, int fd); /* takes ownership, also on failure */
/* Binds path (replacing a stale socket file, never one another process
 * listens on: -EADDRINUSE), chmod()s it to mode. */
int varlink_server_listen_path(VarlinkServer *s, const char *path, mode_t mode);
/* Listens on the n sockets passed from SD_LISTEN_FDS_START on, each a
 * listening AF_UNIX stream socket (-EBADF otherwise); takes them. */
int varlink_server_listen_fds(VarlinkServer *s, int n);
/* Uses the sockets systemd passed (sd_listen_fds), else binds fallback_path
 * with mode 0666.  Returns the number of sockets listened on. */
int varlink_server_listen_auto(VarlinkServer *s, const char *fallback_path);

/* Graceful shutdown: close the listening sockets, read no further requests,
 * finish the calls already read (active and queued), close each connection as
 * it runs out of work.  When the last one is gone the idle callback runs.
 * Streaming calls never finish on their own: the daemon must end them. */
void varlink_server_stop_accepting(VarlinkServer *s);
bool varlink_server_is_draining(VarlinkServer *s);

unsigned varlink_server_n_active(VarlinkServer *s); /* calls being processed or queued */
unsigned varlink_server_n_connections(VarlinkServer *s);

/* cb runs whenever the server becomes idle: no connection and no call left
 * (calls still referenced by the daemon after a disconnect count). */
int varlink_server_set_idle_callback(VarlinkServer *s, void (*cb)(VarlinkServer *, void *),
				     void *userdata);
/* CLOCK_MONOTONIC time (usec) since which the server is idle; 0 while busy. */
uint64_t varlink_server_idle_since(VarlinkServer *s);

/* The error, declared in one of the service's own interfaces, that errno
 * errors go out as ({errno, errnoName}); copied.  The spec has none, so it
 * must be set before listening: the listen functions fail with
 * -EDESTADDRREQ until it is. */
int varlink_server_set_errno_error(VarlinkServer *s, const char *error);
/* The error ({limit: bytes}) sent before closing a connection whose request
 * exceeds the size limit; copied.  Unset, such a connection is closed
 * without an answer, as for other protocol violations. */
int varlink_server_set_too_large_error(VarlinkServer *s, const char *error);
/* The error ({size, limit: bytes}) a call gets in place of a reply or
 * notification larger than the size limit, which clients do not read
 * either (sd-varlink's limit is 16 MiB too); it ends the call, and the
 * call's answer returns -EMSGSIZE.  Unset, such answers are sent. */
int varlink_server_set_reply_too_large_error(VarlinkServer *s, const char *error);
/* What a uid other than root's connections may hold for their clients:
 * output not yet written plus what their calls keep to send
 * (varlink_call_set_held()); four messages' worth, 64 MiB by default. */
#define VARLINK_HELD_PER_UID(s) (4 * varlink_server_get_max_message_size(s))
/* What a uid other than root's connections may have read and queued,
 * waiting behind their active calls (a stream that never ends, say): past
 * either, its connections that have a request queued read no more until the
 * queue drains.  A connection with none queued always reads its message.
 * Parsed, a queued text takes many times its size. */
#define VARLINK_QUEUED_BYTES_PER_UID (1U << 20)
#define VARLINK_QUEUED_FDS_PER_UID   256U
/* The error (no parameters) a call of a uid other than root gets in place
 * of a reply or notification that would take that uid past
 * VARLINK_HELD_PER_UID: clients that do not read cannot make the server
 * hold their answers without bound.  It ends the call; the answer returns
 * -EMSGSIZE.  Unset, there is no such limit. */
int varlink_server_set_held_limit_error(VarlinkServer *s, const char *error);
void varlink_server_set_max_message_size(VarlinkServer *s, size_t size);
size_t varlink_server_get_max_message_size(VarlinkServer *s);
void varlink_server_set_max_fds(VarlinkServer *s, unsigned n); /* at most 253 (SCM_MAX_FD) */
/* Connections beyond either limit are closed at once; root's connections
 * are not counted against either (root could do all it asks itself).
 * "Per uid" here, and for VARLINK_HELD_PER_UID, is per user who answers
 * for the peer (varlink_call_get_peer_principal()): a user's subuids count
 * as that user. */
void varlink_server_set_max_connections(VarlinkServer *s, unsigned n);
void varlink_server_set_max_connections_per_uid(VarlinkServer *s, unsigned n);
/* Where the server's warnings about what a peer did go (a malformed or
 * oversized message, too many fds or connections, answers it does not
 * read): line is complete, "<N>" priority prefix first, no newline; uid is
 * the peer's.  Any peer can cause such lines at will, so a server that
 * runs for others may want to bound them per uid.  Unset (NULL), they go to
 * stderr. */
typedef void (*VarlinkPeerLog)(uid_t uid, const char *line, void *userdata);
void varlink_server_set_peer_log(VarlinkServer *s, VarlinkPeerLog log, void *userdata);

/* ---- calls ---- */

/* The final answer.  parameters are taken (also on failure); NULL = {}.
 * -ENOTCONN if the client went away (the call still counts as answered),
 * -EALREADY if the call was already answered. */
int varlink_call_reply(VarlinkCall *c, json_object *parameters);
/* An intermediate answer, "continues": true.  Only for calls made with
 * "more" (-EINVAL otherwise); parameters taken.  -ENOTCONN if the client
 * went away: the call is then over, stop streaming. */
int varlink_call_notify(VarlinkCall *c, json_object *parameters);
int varlink_call_error(VarlinkCall *c, const char *error, json_object *parameters);
int varlink_call_error_invalid_parameter(VarlinkCall *c, const char *parameter);
/* error > 0 or < 0; mapping as described at the top. */
int varlink_call_error_errno(VarlinkCall *c, int error);

/* The connection's socket, lent for c's answer to be written by another
 * process (mountd's worker, in one hop): the fd, borrowed (to send on, not
 * to close), or -EBUSY when the answer could not go out first (output
 * waiting, a "more" or oneway call, fds to send, a connection closing).
 * While lent the connection writes nothing and c's answer functions fail
 * with -EBUSY; one of the three below ends it: lend_end() takes the socket
 * back unused (then answer as usual); lent_answered() says the borrower
 * wrote the first written bytes of message (a whole answer, NUL not
 * included) and queues the rest; lent_lost() is for a borrower that may
 * have written part of an answer and can say no more: the connection is
 * closed. */
int varlink_call_lend_socket(VarlinkCall *c);
void varlink_call_lend_end(VarlinkCall *c);
int varlink_call_lent_answered(VarlinkCall *c, const char *message, size_t written);
void varlink_call_lent_lost(VarlinkCall *c);

/* Fds received with the request.  peek: still owned by the call (closed when
 * the call goes away); take: the caller owns it, the slot becomes empty.
 * -ENXIO for an index past the received fds, -EBADF for a taken slot. */
int varlink_call_peek_fd(VarlinkCall *c, unsigned index);
int varlink_call_take_fd(VarlinkCall *c, unsigned index);
unsigned varlink_call_n_fds(VarlinkCall *c);
/* Queue an fd (taken, also on failure) to send with the next reply/notify/
 * error of this call; returns its index in that message. */
int varlink_call_push_fd(VarlinkCall *c, int fd);

/* Identity of the peer, captured at accept time. */
int varlink_call_get_peer_ucred(VarlinkCall *c, struct ucred *ret);
/* SO_PEERPIDFD if the kernel has it; borrowed; -EOPNOTSUPP otherwise. */
int varlink_call_get_peer_pidfd(VarlinkCall *c);
/* The user who answers for the peer (shared/principal.h), as of accept:
 * what the per-uid limits here count against, and what a server's own
 * should.  0: root. */
uid_t varlink_call_get_peer_principal(VarlinkCall *c);
/* The peer's supplementary groups (SO_PEERGROUPS, as of connect(), read
 * once per connection); *ret is to be freed. */
int varlink_call_get_peer_groups(VarlinkCall *c, gid_t **ret, size_t *ret_n);
/* The peer's comm (/proc/PID/comm of the process that connected), read at
 * the connection's first ask and kept: "" when it could not be read.
 * The peer chose it: any byte but NUL, a newline too.  Valid while c is. */
const char *varlink_call_get_peer_comm(VarlinkCall *c);

VarlinkCall *varlink_call_ref(VarlinkCall *c);
VarlinkCall *varlink_call_unref(VarlinkCall *c);
static inline void varlink_call_unrefp(VarlinkCall **c)
{
	if (*c)
		varlink_call_unref(*c);
}

/* For long-running/streaming calls: cb runs once if the client goes away
 * before the final answer. */
int varlink_call_set_disconnect_callback(VarlinkCall *c, void (*cb)(VarlinkCall *, void *),
					 void *userdata);
/* For a "more" call that makes its answers as the client reads them, and so
 * holds no more than about VARLINK_STREAM_LOW_WATER plus one answer in
 * the server's output: cb runs from the event loop whenever less than
 * that is left to write, until the call is answered.  It sends the next
 * answer (varlink_call_notify()) or the last; when it sends nothing, it
 * runs again only after the connection has written something else.
 * -EINVAL for a call without "more" or that is not the connection's
 * active one. */
int varlink_call_set_drain_callback(VarlinkCall *c, void (*cb)(VarlinkCall *, void *),
				    void *userdata);
/* What c keeps to send beyond its queued output (a stream's text), counted
 * against its uid's VARLINK_HELD_PER_UID while c is the connection's
 * active call. */
void varlink_call_set_held(VarlinkCall *c, size_t bytes);
/* Fully qualified, e.g. "org.example.Service.Method". */
const char *varlink_call_method(VarlinkCall *c);
VarlinkCallFlags varlink_call_flags(VarlinkCall *c);
bool varlink_call_is_answered(VarlinkCall *c);
VarlinkServer *varlink_call_server(VarlinkCall *c);

/* Decode parameters with a json-dispatch table into userdata.  On failure
 * sends InvalidParameter{parameter: <field>} (or the errno error for
 * -ENOMEM) and returns the negative errno; the method just returns it. */
int varlink_call_dispatch(VarlinkCall *c, json_object *parameters, const JsonDispatch *table,
			  void *userdata);
