/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Blocking varlink client for mountd.  Wire format (varlink.org): each
 * message is one JSON object followed by a NUL byte on an AF_UNIX stream
 * socket; fds ride as SCM_RIGHTS on the first byte of the message that
 * refers to them (systemd's convention, and what mountd's varlink/ expects).
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

#include "libmountd-client-internal.h"
#include "libmountd-client.h"
#include "scm-rights.h"
#include "util.h"

struct MountdClient {
	int fd;
	uint64_t timeout_usec;

	/* Bytes read but not yet consumed: rbuf[rstart..rend); the first
	 * rscanned of them hold no NUL (a reply of megabytes arrives in many
	 * reads, and is scanned once, not once per read). */
	char *rbuf;
	size_t rsize, rstart, rend, rscanned;

	/* Fds received and not yet given to a message. */
	int *fds;
	size_t n_fds;

	/* Set once the connection is unusable (peer gone, protocol error). */
	int dead;
};

const char *mountd_socket_path(const char *path)
{
	const char *e;

	if (path)
		return path;
	e = getenv(MOUNTD_SOCKET_ENV);
	return e && *e ? e : MOUNTD_SOCKET_DEFAULT;
}

int mountd_client_new_from_fd(MountdClient **ret, int fd)
{
	MountdClient *c = calloc(1, sizeof(*c));

	if (!c) {
		safe_close(fd);
		return -ENOMEM;
	}
	c->fd = fd;
	c->timeout_usec = MOUNTD_TIMEOUT_DEFAULT_USEC;
	*ret = c;
	return 0;
}

int mountd_client_connect(MountdClient **ret, const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	_cleanup_close_ int fd = -EBADF;
	size_t len;

	path = mountd_socket_path(path);
	len = strlen(path);
	if (len == 0 || len >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, len);

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return negative_errno();
	if (connect(fd, (struct sockaddr *)&sa, offsetof(struct sockaddr_un, sun_path) + len + 1) <
	    0)
		return negative_errno();
	return mountd_client_new_from_fd(ret, TAKE_FD(fd));
}

MountdClient *mountd_client_free(MountdClient *c)
{
	if (!c)
		return NULL;
	safe_close(c->fd);
	close_many(c->fds, c->n_fds);
	free(c->fds);
	free(c->rbuf);
	free(c);
	return NULL;
}

void mountd_client_set_timeout(MountdClient *c, uint64_t usec)
{
	c->timeout_usec = usec;
}

int mountd_client_get_fd(MountdClient *c)
{
	return c->fd;
}

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

/* Wait for events on the socket until deadline (0: forever). */
static int wait_for(MountdClient *c, short events, uint64_t deadline)
{
	for (;;) {
		struct pollfd p = {.fd = c->fd, .events = events};
		int timeout = -1, n;

		if (deadline) {
			uint64_t now = now_usec();

			if (now >= deadline)
				return -ETIMEDOUT;
			/* Round up so we never spin on a sub-millisecond rest. */
			timeout = (int)MIN((deadline - now + 999) / 1000, (uint64_t)INT32_MAX);
		}
		n = poll(&p, 1, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (n == 0)
			return -ETIMEDOUT;
		return 0;
	}
}

static uint64_t deadline_of(MountdClient *c)
{
	return c->timeout_usec ? now_usec() + c->timeout_usec : 0;
}

static int send_message(MountdClient *c, const char *text, const int *fds, size_t n_fds)
{
	size_t len = strlen(text) + 1, done = 0; /* the NUL is the frame end */
	uint64_t deadline = deadline_of(c);

	if (n_fds > MOUNTD_FDS_MAX)
		return -E2BIG;
	while (done < len) {
		struct iovec iov = {.iov_base = (char *)text + done, .iov_len = len - done};
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
		SCM_RIGHTS_BUFFER(MOUNTD_FDS_MAX) control;
		ssize_t n;
		int r;

		if (done == 0 && n_fds > 0)
			scm_rights_put(&mh, &control, fds, n_fds);
		n = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return errno == EPIPE ? -ECONNRESET : negative_errno();
			r = wait_for(c, POLLOUT, deadline);
			if (r < 0)
				return r;
			continue;
		}
		done += (size_t)n;
	}
	return 0;
}

static int take_control_fds(MountdClient *c, struct msghdr *mh)
{
	int r = scm_rights_take(mh, &c->fds, &c->n_fds);

	/* fds were lost: the message cannot be trusted. */
	return r >= 0 && (mh->msg_flags & MSG_CTRUNC) ? -EMSGSIZE : r;
}

/* Read until a complete message is buffered; returns its length (without
 * the NUL) starting at rbuf + rstart. */
static int read_message(MountdClient *c, uint64_t deadline, size_t *ret_len)
{
	for (;;) {
		char *end = c->rend > c->rstart + c->rscanned
				    ? memchr(c->rbuf + c->rstart + c->rscanned, 0,
					     c->rend - c->rstart - c->rscanned)
				    : NULL;
		SCM_RIGHTS_BUFFER(MOUNTD_FDS_MAX) control;
		struct iovec iov;
		struct msghdr mh;
		ssize_t n;
		int r;

		if (end) {
			*ret_len = (size_t)(end - (c->rbuf + c->rstart));
			c->rscanned = 0;
			return 0;
		}
		c->rscanned = c->rend - c->rstart;
		if (c->rend - c->rstart >= MOUNTD_MESSAGE_MAX)
			return -EMSGSIZE;
		/* Compact, then make room for at least 64 KiB more. */
		if (c->rstart > 0) {
			memmove(c->rbuf, c->rbuf + c->rstart, c->rend - c->rstart);
			c->rend -= c->rstart;
			c->rstart = 0;
		}
		if (c->rsize - c->rend < 65536) {
			size_t size = c->rsize ? c->rsize * 2 : 65536;
			char *b = realloc(c->rbuf, size);

			if (!b)
				return -ENOMEM;
			c->rbuf = b;
			c->rsize = size;
		}
		iov = (struct iovec){.iov_base = c->rbuf + c->rend, .iov_len = c->rsize - c->rend};
		mh = (struct msghdr){.msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = &control,
				     .msg_controllen = sizeof(control)};
		n = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return negative_errno();
			r = wait_for(c, POLLIN, deadline);
			if (r < 0)
				return r;
			continue;
		}
		r = take_control_fds(c, &mh);
		if (r < 0)
			return r;
		if (n == 0)
			return -ECONNRESET;
		c->rend += (size_t)n;
	}
}

void mountd_reply_done(MountdReply *r)
{
	if (!r)
		return;
	if (r->parameters)
		json_object_put(r->parameters);
	free(r->error);
	close_many(r->fds, r->n_fds);
	free(r->fds);
	*r = (MountdReply){};
}

int mountd_reply_take_fd(MountdReply *r, int64_t index)
{
	int fd;

	if (index < 0 || (uint64_t)index >= r->n_fds)
		return -ENXIO;
	fd = r->fds[index];
	if (fd < 0)
		return -EBADF;
	r->fds[index] = -EBADF;
	return fd;
}

int client_parse_reply_text(const char *text, MountdReply *ret)
{
	_cleanup_json_ json_object *m = NULL;
	json_object *v;

	m = json_tokener_parse(text);
	if (!m || !json_object_is_type(m, json_type_object))
		return -EBADMSG;
	if (json_object_object_get_ex(m, "error", &v)) {
		if (!json_object_is_type(v, json_type_string))
			return -EBADMSG;
		ret->error = strdup(json_object_get_string(v));
		if (!ret->error)
			return -ENOMEM;
	}
	if (json_object_object_get_ex(m, "continues", &v) && v) {
		if (!json_object_is_type(v, json_type_boolean))
			return -EBADMSG;
		ret->continues = json_object_get_boolean(v);
	}
	if (json_object_object_get_ex(m, "parameters", &v) && v) {
		if (!json_object_is_type(v, json_type_object))
			return -EBADMSG;
		ret->parameters = json_object_get(v);
	} else {
		ret->parameters = json_object_new_object();
		if (!ret->parameters)
			return -ENOMEM;
	}
	return 0;
}

/* The buffered message's fds (those received so far) go to *ret. */
static void take_message_fds(MountdClient *c, MountdReply *ret)
{
	ret->fds = TAKE_PTR(c->fds);
	ret->n_fds = c->n_fds;
	c->n_fds = 0;
}

/* Parse the buffered message into *ret; it gets the fds received so far. */
static int parse_reply(MountdClient *c, size_t len, MountdReply *ret)
{
	const char *text = c->rbuf + c->rstart;

	*ret = (MountdReply){};
	c->rstart += len + 1;
	take_message_fds(c, ret);
	return client_parse_reply_text(text, ret);
}

int client_receive_text(MountdClient *c, char **ret_text, MountdReply *ret)
{
	size_t len;
	int r;

	*ret = (MountdReply){};
	*ret_text = NULL;
	if (c->dead)
		return c->dead;
	r = read_message(c, deadline_of(c), &len);
	if (r < 0)
		return c->dead = r;
	take_message_fds(c, ret);
	if (c->rstart == 0 && c->rend == len + 1) {
		/* The buffer holds this message alone: hand it over. */
		*ret_text = TAKE_PTR(c->rbuf);
		c->rsize = c->rend = 0;
		return 0;
	}
	*ret_text = malloc(len + 1);
	if (!*ret_text) {
		mountd_reply_done(ret);
		return c->dead = -ENOMEM;
	}
	memcpy(*ret_text, c->rbuf + c->rstart, len + 1);
	c->rstart += len + 1;
	return 0;
}

static int receive_reply(MountdClient *c, MountdReply *ret)
{
	size_t len;
	int r;

	r = read_message(c, deadline_of(c), &len);
	if (r >= 0)
		r = parse_reply(c, len, ret);
	if (r < 0) {
		mountd_reply_done(ret);
		c->dead = r;
	}
	return r;
}

int client_send_call(MountdClient *c, const char *method, json_object *params, const int *fds,
		     size_t n_fds, bool more, bool oneway)
{
	_cleanup_json_ json_object *m = json_object_new_object();
	_cleanup_free_ char *qualified = NULL;
	const char *text;
	int r;

	if (c->dead)
		return c->dead;
	if (!method || !*method)
		return -EINVAL;
	if (!strchr(method, '.')) {
		if (asprintf(&qualified, "%s.%s", MOUNTD_INTERFACE, method) < 0)
			return -ENOMEM;
		method = qualified;
	}
	if (!m)
		return -ENOMEM;
	if (params && !json_object_is_type(params, json_type_object))
		return -EINVAL;
	json_object_object_add(m, "method", json_object_new_string(method));
	json_object_object_add(m, "parameters",
			       params ? json_object_get(params) : json_object_new_object());
	if (more)
		json_object_object_add(m, "more", json_object_new_boolean(true));
	if (oneway)
		json_object_object_add(m, "oneway", json_object_new_boolean(true));
	text = json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		return -ENOMEM;
	r = send_message(c, text, fds, n_fds);
	if (r < 0)
		c->dead = r;
	return r;
}

int mountd_client_call(MountdClient *c, const char *method, json_object *params, const int *fds,
		       size_t n_fds, MountdReply *ret)
{
	int r;

	*ret = (MountdReply){};
	r = client_send_call(c, method, params, fds, n_fds, false, false);
	if (r < 0)
		return r;
	r = receive_reply(c, ret);
	if (r < 0)
		return r;
	/* Without "more" a server must not continue; we could not tell
	 * the next call's reply from the rest of this one. */
	if (ret->continues) {
		mountd_reply_done(ret);
		return c->dead = -EBADMSG;
	}
	return 0;
}

int mountd_client_call_more(MountdClient *c, const char *method, json_object *params,
			    const int *fds, size_t n_fds, MountdReplyFn cb, void *userdata)
{
	int r;

	r = client_send_call(c, method, params, fds, n_fds, true, false);
	if (r < 0)
		return r;
	for (;;) {
		MountdReply reply;
		bool last;

		r = receive_reply(c, &reply);
		if (r < 0)
			return r;
		last = !reply.continues || reply.error;
		r = cb(c, &reply, userdata);
		mountd_reply_done(&reply);
		if (r != 0 && !last)
			c->dead = -ECANCELED; /* stopped mid-stream */
		if (r < 0)
			return r;
		if (r > 0 || last)
			return 0;
	}
}

int mountd_client_call_oneway(MountdClient *c, const char *method, json_object *params,
			      const int *fds, size_t n_fds)
{
	return client_send_call(c, method, params, fds, n_fds, false, true);
}

/* ---- readable errors ------------------------------------------------------ */

static const char *get_string(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool get_int(json_object *o, const char *key, int64_t *ret)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return false;
	*ret = json_object_get_int64(v);
	return true;
}

/* "EINVAL (Invalid argument)" from errno/errnoName parameters. */
static void put_errno(FILE *f, json_object *p)
{
	const char *name = get_string(p, "errnoName");
	int64_t e = 0;
	bool have = get_int(p, "errno", &e);

	if (name && have)
		fprintf(f, "%s (%s)", name, strerror((int)e));
	else if (have)
		fprintf(f, "%s", strerror((int)e));
	else if (name)
		fputs(name, f);
	else
		fputs("unknown error", f);
}

/* The kernel's error and warning messages, "; "-separated.  Informational
 * messages are left to -v. */
static void put_messages(FILE *f, json_object *p)
{
	json_object *a;
	size_t n;

	if (!json_object_object_get_ex(p, "messages", &a) ||
	    !json_object_is_type(a, json_type_array))
		return;
	n = json_object_array_length(a);
	for (size_t i = 0, k = 0; i < n; i++) {
		json_object *m = json_object_array_get_idx(a, i);
		const char *level = get_string(m, "level"), *text = get_string(m, "text");

		if (!text || streq_ptr(level, "i"))
			continue;
		fprintf(f, "%s%s%s", k++ ? "; " : ": ", streq_ptr(level, "w") ? "warning: " : "",
			text);
	}
}

char *mountd_reply_error_string(const MountdReply *r)
{
	_cleanup_fclose_ FILE *f = NULL;
	json_object *p;
	const char *e, *s;
	char *buf = NULL;
	size_t size = 0;

	if (!r || !r->error)
		return NULL;
	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	e = r->error;
	p = r->parameters;
	if (streq(e, MOUNTD_INTERFACE ".MountFailed")) {
		fprintf(f, "%s failed: ", get_string(p, "step") ?: "mount step");
		put_errno(f, p);
		put_messages(f, p);
	} else if (streq(e, MOUNTD_INTERFACE ".LimitExceeded")) {
		fputs("this user has too many calls running, has made too many lately, or has "
		      "not read its answers; try again shortly",
		      f);
	} else if (streq(e, MOUNTD_INTERFACE ".MessageTooLarge")) {
		int64_t limit = 0;

		get_int(p, "limit", &limit);
		fprintf(f, "request larger than mountd reads (%" PRIi64 " bytes)", limit);
	} else if (streq(e, MOUNTD_INTERFACE ".ReplyTooLarge")) {
		int64_t size = 0, limit = 0;

		get_int(p, "size", &size);
		get_int(p, "limit", &limit);
		fprintf(f,
			"answer of %" PRIi64 " bytes is larger than mountd sends at once (%" PRIi64
			"); call with \"more\" to have it in parts",
			size, limit);
	} else if (streq(e, MOUNTD_INTERFACE ".NotSupported")) {
		fprintf(f, "attribute '%s' is not supported here (no fsinfo() and no fallback)",
			get_string(p, "attribute") ?: "?");
	} else if (streq(e, "org.varlink.service.InvalidParameter")) {
		fprintf(f, "invalid parameter '%s'", get_string(p, "parameter") ?: "?");
	} else if (streq(e, MOUNTD_INTERFACE ".PermissionDenied") ||
		   streq(e, "org.varlink.service.PermissionDenied")) {
		/* mountd's own error carries the reason; the standard one (of
		 * older mountd) has no parameters declared: say what came. */
		fputs("permission denied", f);
		if (p) {
			json_object_object_foreach(p, key, v)
			{
				if (json_object_is_type(v, json_type_string))
					fprintf(f, ": %s", json_object_get_string(v));
				(void)key; /* the macro declares it */
			}
		}
	} else if (streq(e, "org.varlink.service.MethodNotFound") ||
		   streq(e, "org.varlink.service.MethodNotImplemented")) {
		fprintf(f, "mountd does not implement %s",
			get_string(p, "method") ?: "this method");
	} else if (streq(e, "org.varlink.service.InterfaceNotFound")) {
		fprintf(f, "mountd does not serve interface %s", get_string(p, "interface") ?: "?");
	} else if (streq(e, "org.varlink.service.ExpectedMore")) {
		fputs("method must be called with \"more\"", f);
	} else if (get_int(p, "errno", &(int64_t){0}) || get_string(p, "errnoName")) {
		/* InternalError, the server's errno error, ... */
		put_errno(f, p);
	} else if ((s = p ? json_object_to_json_string_ext(p, JSON_C_TO_STRING_PLAIN) : NULL) &&
		   !streq(s, "{}")) {
		fputs(s, f);
	} else
		fputs("failed", f);
	fprintf(f, " [%s]", e);
	if (fclose(TAKE_PTR(f)) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
