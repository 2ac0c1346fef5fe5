/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-varlink's raw client: bytes and fds written by hand, answers read back. */

#include "test-varlink.h"

/* ------------------------------------------------------------ raw client */

Client *client_new(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	Client *c = calloc(1, sizeof(*c));
	if (!c)
		exit(2);
	strcpy(sa.sun_path, sock_path);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("connect");
		exit(2);
	}
	return c;
}

void client_free(Client *c)
{
	if (!c)
		return;
	safe_close(c->fd);
	close_many(c->fds, c->n_fds);
	free(c);
}

/* Sends raw bytes (the caller adds the NUL) with optional fds. */
void client_send_raw(Client *c, const void *data, size_t len, const int *fds, unsigned n)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int) * 64)];
	} control;
	struct iovec iov = {.iov_base = (void *)data, .iov_len = len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	if (n > 0) {
		memset(&control, 0, sizeof(control));
		mh.msg_control = &control;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * n);
	}
	while (iov.iov_len > 0) {
		ssize_t k = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k < 0 && errno == EAGAIN) {
			pump_once();
			continue;
		}
		if (k < 0) {
			fprintf(stderr, "# send: %m\n");
			return;
		}
		iov.iov_base = (char *)iov.iov_base + k;
		iov.iov_len -= (size_t)k;
		mh.msg_control = NULL;
		mh.msg_controllen = 0;
	}
}

void client_send(Client *c, const char *json)
{
	client_send_raw(c, json, strlen(json) + 1, NULL, 0);
}

/* Reads what is there without blocking. */
void client_poll(Client *c)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int) * 64)];
	} control;
	for (;;) {
		if (c->eof || c->len == sizeof(c->buf))
			return;
		struct iovec iov = {.iov_base = c->buf + c->len,
				    .iov_len = sizeof(c->buf) - c->len};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = &control,
				    .msg_controllen = sizeof(control)};
		ssize_t k = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (k < 0 && errno == EAGAIN)
			return;
		if (k <= 0) {
			c->eof = true;
			return;
		}
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_type == SCM_RIGHTS) {
				unsigned n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				memcpy(c->fds + c->n_fds, CMSG_DATA(cm), sizeof(int) * n);
				c->n_fds += n;
			}
		c->len += (size_t)k;
	}
}

/* Next complete message, pumping the server meanwhile; NULL on timeout/EOF. */
json_object *client_recv(Client *c, unsigned timeout_ms)
{
	uint64_t end = now_ms() + timeout_ms;
	for (;;) {
		client_poll(c);
		char *nul = memchr(c->buf, 0, c->len);
		if (nul) {
			size_t n = (size_t)(nul - c->buf);
			json_object *j = json_tokener_parse(c->buf);
			memmove(c->buf, nul + 1, c->len - n - 1);
			c->len -= n + 1;
			if (!j)
				fprintf(stderr, "# unparsable answer\n");
			return j;
		}
		if (c->eof || now_ms() >= end)
			return NULL;
		pump_once();
	}
}

/* True if the server closes the connection within timeout_ms. */
bool client_wait_eof(Client *c, unsigned timeout_ms)
{
	uint64_t end = now_ms() + timeout_ms;
	while (!c->eof && now_ms() < end) {
		pump_once();
		client_poll(c);
	}
	return c->eof;
}

const char *jstr(json_object *o, const char *path1, const char *path2)
{
	json_object *v = NULL;
	if (!o || !json_object_object_get_ex(o, path1, &v))
		return NULL;
	if (path2 && !json_object_object_get_ex(v, path2, &v))
		return NULL;
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

int64_t jint(json_object *o, const char *path1, const char *path2)
{
	json_object *v = NULL;
	if (!o || !json_object_object_get_ex(o, path1, &v))
		return INT64_MIN;
	if (path2 && !json_object_object_get_ex(v, path2, &v))
		return INT64_MIN;
	return json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : INT64_MIN;
}

json_object *jobj_params(json_object *o)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, "parameters", &v) ? v : NULL;
}

bool jhas(json_object *o, const char *key)
{
	return o && json_object_object_get_ex(o, key, NULL);
}

/* Sends a call and returns its answer. */
json_object *call(Client *c, const char *json)
{
	client_send(c, json);
	return client_recv(c, 3000);
}

bool is_error(json_object *a, const char *error, const char *key, const char *value)
{
	if (!streq_ptr(jstr(a, "error", NULL), error)) {
		fprintf(stderr, "# got %s\n", a ? json_object_to_json_string(a) : "(nothing)");
		return false;
	}
	return !key || streq_ptr(jstr(a, "parameters", key), value);
}
