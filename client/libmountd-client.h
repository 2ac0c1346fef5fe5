/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * libmountd-client: a small blocking varlink client for mountd
 * (io.mountd.Mount, see daemon/io.mountd.Mount.varlink).
 *
 * One connection per MountdClient; calls on it are strictly sequential.  No
 * global state: everything lives in the MountdClient and the MountdReply.
 * File descriptors travel as SCM_RIGHTS with the message that refers to
 * them; a parameter naming an fd carries its index in that message.
 *
 * Every function returns 0 (or a positive count) on success and a negative
 * errno on failure of the transport.  A varlink error reply is not a
 * transport failure: the call returns 0 and MountdReply.error names it.
 *
 * Link with json-c.  Built as build/libmountd-client.a.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MOUNTD_SOCKET_DEFAULT "/run/mountd/io.mountd.Mount"
/* Environment variable overriding the default socket path. */
#define MOUNTD_SOCKET_ENV "MOUNTD_SOCKET"
#define MOUNTD_INTERFACE  "io.mountd.Mount"

/* Default time to wait for each reply (and for sending): 120 s, as mounts
 * of slow devices can take a while. */
#define MOUNTD_TIMEOUT_DEFAULT_USEC (120ULL * 1000000ULL)

/* Largest message accepted from the server. */
#define MOUNTD_MESSAGE_MAX (16U * 1024 * 1024)
/* Most fds sent or received with one message (SCM_MAX_FD). */
#define MOUNTD_FDS_MAX 253U

typedef struct MountdClient MountdClient;

typedef struct MountdReply {
	/* The reply's parameters; never NULL after a successful call (an
	 * empty object when the server sent none).  Owned by the reply. */
	json_object *parameters;
	/* NULL for a reply, the qualified varlink error name for an error. */
	char *error;
	/* Descriptors received with this message; owned by the reply (closed
	 * by mountd_reply_done()) unless taken with mountd_reply_take_fd(). */
	int *fds;
	size_t n_fds;
	/* "continues": more replies follow (calls made with "more"). */
	bool continues;
} MountdReply;

/* The socket path to use: path if not NULL, else $MOUNTD_SOCKET if set and
 * not empty, else MOUNTD_SOCKET_DEFAULT. */
const char *mountd_socket_path(const char *path);

/* Connect to the socket named as mountd_socket_path(path) describes. */
int mountd_client_connect(MountdClient **ret, const char *path);
/* Wrap a connected AF_UNIX stream socket (taken, also on failure). */
int mountd_client_new_from_fd(MountdClient **ret, int fd);
MountdClient *mountd_client_free(MountdClient *c);
static inline void mountd_client_freep(MountdClient **c)
{
	if (*c)
		mountd_client_free(*c);
}

/* Time to wait for each message sent or received; 0 waits forever.
 * Expiry fails the call with -ETIMEDOUT. */
void mountd_client_set_timeout(MountdClient *c, uint64_t usec);
int mountd_client_get_fd(MountdClient *c);

/*
 * Call method (qualified, or unqualified meaning io.mountd.Mount.<method>)
 * with params (borrowed; NULL sends {}), sending fds[0..n_fds) (borrowed:
 * still the caller's to close) with the request.  On return 0 *ret holds the
 * reply or the error; the caller releases it with mountd_reply_done().
 * Negative: -ECONNRESET when the server closed the connection, -ETIMEDOUT,
 * -EBADMSG for a message that is not varlink, other errnos of the socket.
 */
int mountd_client_call(MountdClient *c, const char *method, json_object *params, const int *fds,
		       size_t n_fds, MountdReply *ret);

/* Called for every reply of a "more" call, the last one included (an error
 * is always the last).  The reply is released after the callback returns;
 * take what you keep (fds with mountd_reply_take_fd(), json with
 * json_object_get()).  Return 0 to continue, negative to stop with that
 * error, positive to stop with 0; after a stop the connection is mid-stream
 * and must be freed. */
typedef int (*MountdReplyFn)(MountdClient *c, MountdReply *reply, void *userdata);

/* Call with "more": true and pass each reply to cb until the final one.
 * Returns 0, cb's negative value, or a transport error. */
int mountd_client_call_more(MountdClient *c, const char *method, json_object *params,
			    const int *fds, size_t n_fds, MountdReplyFn cb, void *userdata);

/* Send a call with "oneway": true; no reply comes. */
int mountd_client_call_oneway(MountdClient *c, const char *method, json_object *params,
			      const int *fds, size_t n_fds);

void mountd_reply_done(MountdReply *r);
/* The fd at index (as a reply parameter names it); the caller owns it.
 * -ENXIO past the received fds, -EBADF if already taken. */
int mountd_reply_take_fd(MountdReply *r, int64_t index);

/* The error of r as one line a person can act on, e.g.
 *   fsconfig:size failed: EINVAL (Invalid argument): tmpfs: Bad value for 'size'
 *   [io.mountd.Mount.MountFailed]
 * (on one line).  NULL for a non-error reply or out of memory; free() it. */
char *mountd_reply_error_string(const MountdReply *r);

/*
 * List, read straight into C structs (client/libmountd-list.c): one pass
 * over the reply's text, strings unescaped in place and pointed at, no
 * json-c object per value.  A List of 10k mounts is megabytes of JSON, and
 * json-c's parse of it cost ~10x reading /proc/self/mountinfo.
 */
typedef struct MountdMount {
	uint64_t id, parent_id;		/* unique 64-bit mount IDs */
	uint32_t old_id, old_parent_id; /* as in /proc/PID/mountinfo */
	/* Point into the list's text; source and options NULL when absent. */
	const char *fstype, *source, *root, *mount_point, *options;
	/* MOUNT_ATTR_* of <linux/mount.h>: RDONLY, NOSUID, NODEV, NOEXEC,
	 * NODIRATIME, NOSYMFOLLOW and one of RELATIME (0), NOATIME,
	 * STRICTATIME. */
	uint64_t attributes;
	/* MS_SHARED, MS_SLAVE, MS_PRIVATE or MS_UNBINDABLE, as statmount(). */
	uint64_t propagation;
	uint64_t peer_group, master;
	uint32_t dev_major, dev_minor;
} MountdMount;

typedef struct MountdMountList {
	MountdMount *mounts;
	size_t n_mounts;
	/* An error reply, as mountd_client_call() gives it (error NULL and
	 * parameters NULL for a list). */
	MountdReply reply;
	/* The texts of the replies (List comes in parts: "more"), which
	 * the strings point into. */
	char **texts;
	size_t n_texts;
	size_t n_allocated; /* of mounts */
} MountdMountList;

/* Call List with params (borrowed; NULL: {}) and fds, as mountd_client_call()
 * does, with "more": the mounts may come in several replies.  0: either
 * ret->reply.error is set (and no mounts), or ret->mounts holds every
 * mount of every reply.  -EBADMSG also for a reply that is no List reply;
 * a failure mid-stream leaves the connection unusable, as any transport
 * failure does. */
int mountd_client_list(MountdClient *c, json_object *params, const int *fds, size_t n_fds,
		       MountdMountList *ret);
void mountd_mount_list_done(MountdMountList *l);

/*
 * Containers by name (client/libmountd-container.c).  A convenience for
 * clients: mountd itself knows no containers, and authorizes the namespace
 * of the pidfd found here as it would any other.
 *
 * NAME is looked up, all of these, in this order:
 *   crun   /run/crun/NAME/status, RUNTIME_DIR/crun/NAME/status
 *   runc   /run/runc/NAME/state.json, RUNTIME_DIR/runc/NAME/state.json
 *   podman `podman container inspect --format {{.State.Pid}} NAME`
 *   docker `docker container inspect --format {{.State.Pid}} NAME`
 *   systemd-nspawn and other machines: `machinectl show -p Leader NAME`
 * where RUNTIME_DIR is $XDG_RUNTIME_DIR (else /run/user/UID) for a caller
 * other than root, and none for root (root's runtimes keep their state in
 * /run); podman, docker and machinectl only when installed.  A state file
 * counts only when root or the caller wrote it.  "USER/NAME" (a uid or a
 * login) is the rootless container NAME of that user, looked for only in
 * /run/user/UID/crun and /run/user/UID/runc, in state that user wrote: the
 * only way root's lookup takes a user's container, so that a user cannot
 * slip hers under a name of root's.  Each source that names a
 * process is checked after its pidfd is open: the state's start time must
 * be that process's (crun, runc), or asking again must name the same pid
 * (the others), so a pid reused since the state was written is not taken.
 * Several sources naming the same process are one match.
 */
typedef struct MountdContainer {
	/* A pidfd of the container's first process; owned. */
	int pidfd;
	int pid;
	/* Where it was found, e.g. "crun state /run/crun/web/status". */
	char *source;
} MountdContainer;

/* Find the one running container called name ("NAME" or "USER/NAME").  0
 * with *ret filled; or -EINVAL (not a container name, or no such user),
 * -ENOENT (none running: *ret_error says where it looked and what it
 * found, and to root which users have one of that name), -ENOTUNIQ (several: *ret_error lists
 * them), -ENOMEM.  *ret_error (may be NULL) is one line to free(), set on
 * every failure. */
int mountd_container_open(const char *name, MountdContainer *ret, char **ret_error);
void mountd_container_done(MountdContainer *c);

#ifdef __cplusplus
}
#endif
