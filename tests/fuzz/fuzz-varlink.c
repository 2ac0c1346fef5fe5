// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The varlink transport (varlink/): a real server on sd-event with a test
 * interface, and a client connection that sends the input in chunks of
 * every size, with fds attached to some, while the server runs between
 * them, so that reads split messages anywhere.  The input is a 4-byte seed
 * for the chunking, then the stream: NUL-framed requests, pipelined,
 * oneway and more calls, fds by index.  Then the client half-closes or
 * goes away.  Every answer must be a well-formed varlink reply, the server
 * must close the connection, and no fd may be left open by it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fuzz.h"
#include "json-dispatch.h"
#include "util.h"
#include "varlink.h"

static sd_event *event;
static VarlinkServer *server;
static int null_fd = -EBADF;
static struct sockaddr_un addr;
static socklen_t addr_len;

/* ---- the test interface --------------------------------------------------- */

static const char idl[] =
	"interface org.example.fuzz\n"
	"method Echo(text: ?string, n: ?int, u: ?int, list: ?[]string, fd: ?int,\n"
	"\tmode: ?(a, b), flag: ?bool, sub: ?(x: ?int), any: ?object) -> ()\n"
	"method Fds(take: ?int, send: ?bool) -> (n: int)\n"
	"method Stream(count: ?int) -> (i: int)\n"
	"method Later() -> ()\n"
	"method Fail(errno: ?int) -> ()\n"
	"error Error(errno: int, errnoName: string)\n"
	"error TooLarge(limit: int)\n";

typedef struct Sub {
	int64_t x;
} Sub;

typedef struct EchoRequest {
	char *text;
	int64_t n;
	uint32_t u;
	char **list;
	int fd;
	int mode;
	bool flag;
	Sub sub;
	json_object *any;
} EchoRequest;

static const char *const modes[] = {"a", "b", NULL};
static const JsonDispatch sub_fields[] = {
	JSON_FIELD("x", JSON_T_INTEGER, json_dispatch_int64, offsetof(Sub, x), 0, .min = -5,
		   .max = 5),
	{},
};
static const JsonDispatch echo_fields[] = {
	JSON_FIELD("text", JSON_T_STRING, json_dispatch_string, offsetof(EchoRequest, text),
		   JSON_NULLABLE, .max = 64),
	JSON_FIELD("n", JSON_T_INTEGER, json_dispatch_int64, offsetof(EchoRequest, n), 0),
	JSON_FIELD("u", JSON_T_UNSIGNED, json_dispatch_uint32, offsetof(EchoRequest, u), 0,
		   .max = 1000),
	JSON_FIELD("list", JSON_T_ARRAY, json_dispatch_strv, offsetof(EchoRequest, list),
		   JSON_NULLABLE, .min = 4, .max = 8),
	JSON_FIELD("fd", JSON_T_UNSIGNED, json_dispatch_fd_index, offsetof(EchoRequest, fd),
		   JSON_NULLABLE),
	JSON_FIELD("mode", JSON_T_STRING, json_dispatch_enum, offsetof(EchoRequest, mode), 0,
		   .data = modes),
	JSON_FIELD("flag", JSON_T_BOOLEAN, json_dispatch_boolean, offsetof(EchoRequest, flag), 0),
	JSON_FIELD("sub", JSON_T_OBJECT, json_dispatch_object, offsetof(EchoRequest, sub), 0,
		   .data = sub_fields),
	JSON_FIELD("any", JSON_T_OBJECT, json_dispatch_json, offsetof(EchoRequest, any), 0),
	{},
};

static int method_echo(VarlinkCall *c, json_object *params, VarlinkCallFlags flags, void *ud)
{
	EchoRequest req = {.fd = -1};
	int r;

	(void)flags, (void)ud;
	r = varlink_call_dispatch(c, params, echo_fields, &req);
	/* An index is checked when the fd is asked for. */
	if (r >= 0 && req.fd >= 0)
		FUZZ_CHECK((varlink_call_peek_fd(c, (unsigned)req.fd) >= 0) ==
			   ((unsigned)req.fd < varlink_call_n_fds(c)));
	json_dispatch_done(echo_fields, &req);
	if (r < 0)
		return r;
	return varlink_call_reply(c, json_object_get(params));
}

static int method_fds(VarlinkCall *c, json_object *params, VarlinkCallFlags flags, void *ud)
{
	struct {
		int64_t take;
		bool send;
	} req = {.take = -1};
	static const JsonDispatch fields[] = {
		JSON_FIELD("take", JSON_T_INTEGER, json_dispatch_int64, 0, 0),
		JSON_FIELD("send", JSON_T_BOOLEAN, json_dispatch_boolean, sizeof(int64_t), 0),
		{},
	};
	unsigned n = varlink_call_n_fds(c);
	json_object *reply;
	int r;

	(void)flags, (void)ud;
	r = varlink_call_dispatch(c, params, fields, &req);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < n; i++)
		FUZZ_CHECK(varlink_call_peek_fd(c, i) >= 0);
	FUZZ_CHECK(varlink_call_peek_fd(c, n) == -ENXIO);
	if (req.take >= 0 && req.take < n) {
		int fd = varlink_call_take_fd(c, (unsigned)req.take);

		FUZZ_CHECK(fd >= 0);
		close(fd);
		FUZZ_CHECK(varlink_call_take_fd(c, (unsigned)req.take) == -EBADF);
		FUZZ_CHECK(varlink_call_peek_fd(c, (unsigned)req.take) == -EBADF);
	}
	if (req.send) {
		r = varlink_call_push_fd(c, fcntl(null_fd, F_DUPFD_CLOEXEC, 3));
		FUZZ_CHECK(r >= 0 || r == -ENOTCONN || r == -EINVAL);
	}
	reply = json_object_new_object();
	json_object_object_add(reply, "n", json_object_new_int((int)n));
	return varlink_call_reply(c, reply);
}

static int method_stream(VarlinkCall *c, json_object *params, VarlinkCallFlags flags, void *ud)
{
	json_object *v;
	int64_t count = 2;

	(void)flags, (void)ud;
	if (json_object_object_get_ex(params, "count", &v))
		count = json_object_get_int64(v) % 6;
	for (int64_t i = 0; i < count; i++) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "i", json_object_new_int64(i));
		if (varlink_call_notify(c, p) < 0)
			return 0; /* the client is gone: the call is over */
	}
	v = json_object_new_object();
	json_object_object_add(v, "i", json_object_new_int64(count));
	return varlink_call_reply(c, v);
}

/* Later: answered from the event loop, after the method returned. */
static unsigned n_later;

static int on_later(sd_event_source *s, void *userdata)
{
	VarlinkCall *c = userdata;
	int r = varlink_call_reply(c, NULL);

	FUZZ_CHECK(r == 0 || r == -ENOTCONN || (r == -EALREADY && false));
	varlink_call_unref(c);
	sd_event_source_disable_unref(s);
	n_later--;
	return 0;
}

static void on_later_gone(VarlinkCall *c, void *userdata)
{
	(void)c, (void)userdata;
}

static int method_later(VarlinkCall *c, json_object *params, VarlinkCallFlags flags, void *ud)
{
	(void)params, (void)flags, (void)ud;
	FUZZ_CHECK(varlink_call_set_disconnect_callback(c, on_later_gone, NULL) >= 0);
	FUZZ_CHECK(sd_event_add_defer(event, NULL, on_later, varlink_call_ref(c)) >= 0);
	n_later++;
	return 0;
}

static int method_fail(VarlinkCall *c, json_object *params, VarlinkCallFlags flags, void *ud)
{
	json_object *v;

	(void)flags, (void)ud;
	if (!json_object_object_get_ex(params, "errno", &v))
		return varlink_call_error_invalid_parameter(c, "errno");
	return -(int)(((uint64_t)json_object_get_int64(v) % 140) + 1);
}

static const VarlinkMethod methods[] = {
	{"Echo", method_echo, 0},
	{"Fds", method_fds, 0},
	{"Stream", method_stream, VARLINK_METHOD_MORE_ONLY},
	{"Later", method_later, 0},
	{"Fail", method_fail, 0},
	{},
};

static void setup(void)
{
	int fd;

	if (server)
		return;
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	FUZZ_CHECK(null_fd >= 0);
	FUZZ_CHECK(sd_event_new(&event) >= 0);
	FUZZ_CHECK(varlink_server_new(&server, event, "fuzz", "fuzz", "1", "https://example.org") >=
		   0);
	FUZZ_CHECK(varlink_server_add_interface(server, idl, methods, NULL) >= 0);
	FUZZ_CHECK(varlink_server_set_errno_error(server, "org.example.fuzz.Error") >= 0);
	FUZZ_CHECK(varlink_server_set_too_large_error(server, "org.example.fuzz.TooLarge") >= 0);
	/* Small limits, so that inputs reach them. */
	varlink_server_set_max_message_size(server, 2048);
	varlink_server_set_max_fds(server, 4);

	/* An abstract socket: nothing in the filesystem. */
	addr.sun_family = AF_UNIX;
	addr_len = offsetof(struct sockaddr_un, sun_path) + 1 +
		   (socklen_t)snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1,
				       "mountd-fuzz-varlink-%d", getpid());
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	FUZZ_CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&addr, addr_len) == 0 &&
		   listen(fd, 16) == 0);
	FUZZ_CHECK(varlink_server_listen_fd(server, fd) >= 0);
}

/* ---- the client ------------------------------------------------------------- */

typedef struct Client {
	int fd;
	char *buf;
	size_t len, size;
	unsigned replies;
} Client;

static void check_reply(const char *text, size_t len)
{
	_cleanup_json_ json_object *msg = json_tokener_parse(text);
	json_object *v;

	FUZZ_CHECK(strlen(text) == len);
	FUZZ_CHECK(json_object_is_type(msg, json_type_object));
	if (json_object_object_get_ex(msg, "error", &v)) {
		FUZZ_CHECK(json_object_is_type(v, json_type_string));
		FUZZ_CHECK(!json_object_object_get_ex(msg, "continues", NULL));
	} else if (json_object_object_get_ex(msg, "continues", &v))
		FUZZ_CHECK(json_object_is_type(v, json_type_boolean));
	if (json_object_object_get_ex(msg, "parameters", &v))
		FUZZ_CHECK(json_object_is_type(v, json_type_object));
	else
		FUZZ_CHECK(json_object_object_length(msg) == 0);
}

/* Read what the server sent; close the fds that came with it. */
static void client_read(Client *cl)
{
	for (;;) {
		union {
			struct cmsghdr hdr;
			char buf[CMSG_SPACE(sizeof(int) * 16)];
		} control;
		char chunk[4096];
		struct iovec iov = {.iov_base = chunk, .iov_len = sizeof(chunk)};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = &control,
				    .msg_controllen = sizeof(control)};
		ssize_t n = recvmsg(cl->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

		if (n <= 0)
			return;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
				close_many((int *)CMSG_DATA(cm),
					   (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		if (cl->len + (size_t)n > cl->size) {
			cl->size = (cl->len + (size_t)n) * 2;
			cl->buf = realloc(cl->buf, cl->size);
			FUZZ_CHECK(cl->buf);
		}
		memcpy(cl->buf + cl->len, chunk, (size_t)n);
		cl->len += (size_t)n;
		for (char *nul; (nul = memchr(cl->buf, 0, cl->len));) {
			size_t l = (size_t)(nul - cl->buf);

			if (fuzz_debug())
				fprintf(stderr, "< %s\n", cl->buf);
			check_reply(cl->buf, l);
			cl->replies++;
			memmove(cl->buf, nul + 1, cl->len - l - 1);
			cl->len -= l + 1;
		}
	}
}

static void pump(Client *cl, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		FUZZ_CHECK(sd_event_run(event, 0) >= 0);
		if (cl->fd >= 0)
			client_read(cl);
	}
}

/* One chunk with n_fds fds of /dev/null; the server runs while the
 * socket is full. */
static void client_send(Client *cl, const uint8_t *p, size_t len, unsigned n_fds)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int) * 8)];
	} control = {};
	int fds[8];

	for (unsigned i = 0; i < n_fds; i++)
		fds[i] = fcntl(null_fd, F_DUPFD_CLOEXEC, 3);
	while (len > 0) {
		struct iovec iov = {.iov_base = (void *)p, .iov_len = len};
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
		ssize_t n;

		if (n_fds) {
			mh.msg_control = &control;
			mh.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
			control.hdr.cmsg_level = SOL_SOCKET;
			control.hdr.cmsg_type = SCM_RIGHTS;
			control.hdr.cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
			memcpy(CMSG_DATA(&control.hdr), fds, sizeof(int) * n_fds);
		}
		n = sendmsg(cl->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EAGAIN) {
			pump(cl, 1);
			continue;
		}
		if (n < 0)
			break; /* the server closed the connection */
		p += n;
		len -= (size_t)n;
		close_many(fds, n_fds);
		n_fds = 0;
	}
	close_many(fds, n_fds);
}

static unsigned count_fds(void)
{
	_cleanup_closedir_ DIR *d = opendir("/proc/self/fd");
	unsigned n = 0;

	FUZZ_CHECK(d);
	while (readdir(d))
		n++;
	return n;
}

static uint32_t next(uint32_t *state)
{
	/* xorshift32: the chunking follows from the input's first bytes. */
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FuzzInput in = {data, size};
	Client cl = {.fd = -EBADF};
	uint32_t state = 0;
	unsigned fds_before;

	setup();
	for (unsigned i = 0; i < 4; i++)
		state = state << 8 | fuzz_u8(&in);
	state = state ?: 1;
	fds_before = count_fds();

	cl.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	FUZZ_CHECK(cl.fd >= 0 && connect(cl.fd, (struct sockaddr *)&addr, addr_len) == 0);
	for (unsigned i = 0; i < 100 && !varlink_server_n_connections(server); i++)
		pump(&cl, 1);
	FUZZ_CHECK(varlink_server_n_connections(server) == 1);

	while (in.size > 0) {
		uint32_t r = next(&state);
		size_t len = 1 + (r & 0x100 ? r % 509 : r % 17), got;
		const uint8_t *p = fuzz_bytes(&in, len, &got);

		client_send(&cl, p, got, (r >> 20 & 7) == 0 ? (r >> 24) % 6 : 0);
		pump(&cl, (r >> 28) & 3);
	}

	/* Half-close (the server answers what it read, then closes) or go
	 * away (it drops what it has not answered). */
	if (next(&state) & 1) {
		shutdown(cl.fd, SHUT_WR);
		for (unsigned i = 0; i < 200 && varlink_server_n_connections(server); i++)
			pump(&cl, 1);
		FUZZ_CHECK(varlink_server_n_connections(server) == 0);
	}
	cl.fd = safe_close(cl.fd);
	for (unsigned i = 0; i < 200 && (varlink_server_n_connections(server) || n_later); i++)
		pump(&cl, 1);
	FUZZ_CHECK(varlink_server_n_connections(server) == 0 && n_later == 0);
	FUZZ_CHECK(varlink_server_n_active(server) == 0);
	free(cl.buf);
	FUZZ_CHECK(count_fds() == fds_before);
	return 0;
}
