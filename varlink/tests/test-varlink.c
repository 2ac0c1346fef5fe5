/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Host unit test of daemon/varlink.c; prints TAP.
 *
 * The server runs on an sd-event loop in this process; the clients are raw
 * sockets written by hand, so the wire format is checked byte for byte and
 * not through another varlink implementation.  pump() turns the event loop
 * while a client waits for its answer.
 */

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#include "json-dispatch.h"
#include "tap.h"
#include "util.h"
#include "varlink.h"

#define MAX_MSG (64U * 1024)

static sd_event *event;
static VarlinkServer *server;
static char sock_path[108];

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void pump_once(void)
{
	int r = sd_event_run(event, 1000);
	if (r < 0) {
		fprintf(stderr, "sd_event_run: %s\n", strerror(-r));
		exit(2);
	}
}

static void pump(unsigned ms)
{
	uint64_t end = now_ms() + ms;
	while (now_ms() < end)
		pump_once();
}

/* ------------------------------------------------------------ test service */

static const char test_idl[] = "# A service used only by test-varlink.\n"
			       "interface org.example.Test\n"
			       "\n"
			       "method Echo(n: ?int) -> (n: ?int)\n"
			       "method Slow(n: int) -> (n: int)\n"
			       "method Stream(count: int) -> (i: int)\n"
			       "method Typed(name: string, count: ?int) -> ()\n"
			       "method FdEcho(fd: int) -> (fd: int, ino: int)\n"
			       "method FdCount() -> (n: int)\n"
			       "method Note() -> ()\n"
			       "method Fail(errno: int) -> ()\n"
			       "method Forget() -> ()\n"
			       "method Hang() -> ()\n"
			       "method Whoami() -> (pid: int, pidfdPid: int)\n"
			       "method Declared() -> ()\n"
			       "method Drain(count: int, size: int) -> (i: int, pad: string)\n"
			       "method Big(size: int) -> (pad: string)\n"
			       "error Error (errno: int, errnoName: ?string)\n"
			       "error TooLarge (limit: int)\n"
			       "error ReplyTooLarge (size: int, limit: int)\n"
			       "error Held ()\n";

static VarlinkCall *slow_calls[8];
static unsigned n_slow;
static unsigned notes;
static VarlinkCall *hung_call;
static bool hung_disconnected;
static unsigned idle_calls;

static json_object *obj_int(const char *key, int64_t v)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, key, json_object_new_int64(v));
	return o;
}

static int m_echo(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	(void)f;
	(void)ud;
	return varlink_call_reply(c, json_object_get(p));
}

static int m_slow(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	(void)p;
	(void)f;
	(void)ud;
	if (n_slow >= ELEMENTSOF(slow_calls))
		return -ENOSPC;
	/* Answered later by the test: keep a reference. */
	slow_calls[n_slow++] = varlink_call_ref(c);
	return 0;
}

static void slow_reply_all(void)
{
	for (unsigned i = 0; i < n_slow; i++) {
		json_object *n = NULL;
		(void)n;
		varlink_call_reply(slow_calls[i], obj_int("n", 100 + i));
		slow_calls[i] = varlink_call_unref(slow_calls[i]);
	}
	n_slow = 0;
}

static int m_stream(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	struct {
		int count;
	} a = {0};
	static const JsonDispatch t[] = {
		JSON_FIELD("count", JSON_T_INTEGER, json_dispatch_int, 0, JSON_MANDATORY, .min = 0,
			   .max = 100),
		{},
	};
	(void)ud;
	int r = varlink_call_dispatch(c, p, t, &a);
	if (r < 0)
		return r;
	if (!(f & VARLINK_CALL_MORE))
		return -EPROTO; /* the server must have refused this already */
	for (int i = 0; i < a.count; i++) {
		r = varlink_call_notify(c, obj_int("i", i));
		if (r < 0)
			return r;
	}
	return varlink_call_reply(c, obj_int("i", a.count));
}

/* Drain: count answers of a size-byte string each, made by the drain
 * callback as the client reads them. */
typedef struct DrainState {
	VarlinkCall *call;
	int next, count;
	size_t size;
} DrainState;
static DrainState drain_state;
static unsigned drain_sent;
static bool drain_disconnected;

static json_object *obj_pad(const char *key, int64_t i, size_t size)
{
	json_object *o = obj_int(key, i);
	char *pad = malloc(size + 1);

	if (!pad)
		exit(2);
	memset(pad, 'x', size);
	pad[size] = 0;
	json_object_object_add(o, "pad", json_object_new_string(pad));
	free(pad);
	return o;
}

static void drain_next(VarlinkCall *c, void *ud)
{
	DrainState *d = ud;
	json_object *o = obj_pad("i", d->next, d->size);
	int r;

	drain_sent++;
	r = ++d->next >= d->count ? varlink_call_reply(c, o) : varlink_call_notify(c, o);
	if (r < 0 || varlink_call_is_answered(c))
		d->call = varlink_call_unref(d->call);
}

static void drain_disconnect(VarlinkCall *c, void *ud)
{
	DrainState *d = ud;

	(void)c;
	drain_disconnected = true;
	d->call = varlink_call_unref(d->call);
}

static int m_drain(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	struct {
		int count, size;
	} a = {0};
	static const JsonDispatch t[] = {
		JSON_FIELD("count", JSON_T_INTEGER, json_dispatch_int, 0, JSON_MANDATORY, .min = 1,
			   .max = 100000),
		JSON_FIELD("size", JSON_T_INTEGER, json_dispatch_int, sizeof(int), JSON_MANDATORY,
			   .min = 0, .max = 1 << 20),
		{},
	};
	(void)ud;
	(void)f;
	int r = varlink_call_dispatch(c, p, t, &a);
	if (r < 0)
		return r;
	drain_state =
		(DrainState){.call = varlink_call_ref(c), .count = a.count, .size = (size_t)a.size};
	r = varlink_call_set_drain_callback(c, drain_next, &drain_state);
	if (r >= 0)
		r = varlink_call_set_disconnect_callback(c, drain_disconnect, &drain_state);
	if (r < 0)
		drain_state.call = varlink_call_unref(drain_state.call);
	return r;
}

static int m_big(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	json_object *v = NULL;

	(void)f;
	(void)ud;
	json_object_object_get_ex(p, "size", &v);
	return varlink_call_reply(c, obj_pad("i", 0, (size_t)json_object_get_int(v)));
}

static int m_typed(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	struct {
		char *name;
		uint32_t count;
	} a = {};
	static const JsonDispatch t[] = {
		JSON_FIELD("name", JSON_T_STRING, json_dispatch_string, 0, JSON_MANDATORY),
		JSON_FIELD("count", JSON_T_UNSIGNED, json_dispatch_uint32, sizeof(char *), 0,
			   .min = 1, .max = 10),
		{},
	};
	(void)f;
	(void)ud;
	int r = varlink_call_dispatch(c, p, t, &a);
	json_dispatch_done(t, &a);
	if (r < 0)
		return r;
	return varlink_call_reply(c, NULL);
}

static int m_fd_echo(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	struct {
		int fd;
	} a = {-1};
	static const JsonDispatch t[] = {
		JSON_FIELD("fd", JSON_T_UNSIGNED, json_dispatch_fd_index, 0, JSON_MANDATORY),
		{},
	};
	struct stat st;
	(void)f;
	(void)ud;
	int r = varlink_call_dispatch(c, p, t, &a);
	if (r < 0)
		return r;
	int fd = varlink_call_peek_fd(c, (unsigned)a.fd);
	if (fd < 0)
		return varlink_call_error_invalid_parameter(c, "fd");
	if (fstat(fd, &st) < 0)
		return -errno;
	/* Send back a duplicate and a fresh fd of our own. */
	int dup = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (dup < 0)
		return -errno;
	int i0 = varlink_call_push_fd(c, dup);
	int i1 = varlink_call_push_fd(c, memfd_create("fresh", MFD_CLOEXEC));
	if (i0 < 0 || i1 < 0)
		return i0 < 0 ? i0 : i1;
	json_object *o = json_object_new_object();
	json_object_object_add(o, "fd", json_object_new_int(i0));
	json_object_object_add(o, "fresh", json_object_new_int(i1));
	json_object_object_add(o, "ino", json_object_new_int64((int64_t)st.st_ino));
	return varlink_call_reply(c, o);
}

static int m_fd_count(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	(void)p;
	(void)f;
	(void)ud;
	/* Take one, leave the rest for the call to close. */
	_cleanup_close_ int fd = varlink_call_take_fd(c, 0);
	if (varlink_call_n_fds(c) > 0 && (fd < 0 || varlink_call_peek_fd(c, 0) != -EBADF))
		return -EIO;
	return varlink_call_reply(c, obj_int("n", varlink_call_n_fds(c)));
}

static int m_note(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	(void)p;
	(void)ud;
	if (f & VARLINK_CALL_ONEWAY)
		notes++;
	return varlink_call_reply(c, NULL);
}

static int m_fail(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	json_object *v;
	(void)c;
	(void)f;
	(void)ud;
	if (!json_object_object_get_ex(p, "errno", &v))
		return -EINVAL;
	return -json_object_get_int(v);
}

static int m_forget(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	(void)c;
	(void)p;
	(void)f;
	(void)ud;
	return 0; /* a buggy method: neither answers nor keeps the call */
}

static void on_hang_disconnect(VarlinkCall *c, void *ud)
{
	(void)ud;
	hung_disconnected = true;
	/* Answering a gone client fails but ends the call. */
	int r = varlink_call_reply(c, NULL);
	if (r != -ENOTCONN)
		fprintf(stderr, "# reply after hang-up gave %d\n", r);
	hung_call = varlink_call_unref(hung_call);
}

static int m_hang(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	(void)p;
	(void)f;
	(void)ud;
	hung_call = varlink_call_ref(c);
	return varlink_call_set_disconnect_callback(c, on_hang_disconnect, NULL);
}

static int pidfd_pid(int pidfd)
{
	char path[64], line[256];
	int pid = -1;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Pid: %d", &pid) == 1)
			break;
	return pid;
}

static int m_whoami(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	struct ucred uc;
	(void)p;
	(void)f;
	(void)ud;
	int r = varlink_call_get_peer_ucred(c, &uc);
	if (r < 0)
		return r;
	json_object *o = obj_int("pid", uc.pid);
	int pidfd = varlink_call_get_peer_pidfd(c);
	json_object_object_add(o, "pidfdPid",
			       json_object_new_int(pidfd >= 0 ? pidfd_pid(pidfd) : pidfd));
	return varlink_call_reply(c, o);
}

static const VarlinkMethod test_methods[] = {
	{"Echo", m_echo, 0},
	{"Slow", m_slow, 0},
	{"Stream", m_stream, VARLINK_METHOD_MORE_ONLY},
	{"Typed", m_typed, 0},
	{"FdEcho", m_fd_echo, 0},
	{"FdCount", m_fd_count, 0},
	{"Note", m_note, 0},
	{"Fail", m_fail, 0},
	{"Forget", m_forget, 0},
	{"Hang", m_hang, 0},
	{"Whoami", m_whoami, 0},
	{"Declared", NULL, 0},
	{"Drain", m_drain, 0},
	{"Big", m_big, 0},
	{},
};

static void on_idle(VarlinkServer *s, void *ud)
{
	(void)s;
	(void)ud;
	idle_calls++;
}

/* ------------------------------------------------------------ raw client */

typedef struct Client {
	int fd;
	char buf[1 << 20];
	size_t len;
	int fds[64];
	unsigned n_fds;
	bool eof;
} Client;

static Client *client_new(void)
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

static void client_free(Client *c)
{
	if (!c)
		return;
	safe_close(c->fd);
	close_many(c->fds, c->n_fds);
	free(c);
}

/* Sends raw bytes (the caller adds the NUL) with optional fds. */
static void client_send_raw(Client *c, const void *data, size_t len, const int *fds, unsigned n)
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

static void client_send(Client *c, const char *json)
{
	client_send_raw(c, json, strlen(json) + 1, NULL, 0);
}

/* Reads what is there without blocking. */
static void client_poll(Client *c)
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
static json_object *client_recv(Client *c, unsigned timeout_ms)
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
static bool client_wait_eof(Client *c, unsigned timeout_ms)
{
	uint64_t end = now_ms() + timeout_ms;
	while (!c->eof && now_ms() < end) {
		pump_once();
		client_poll(c);
	}
	return c->eof;
}

static const char *jstr(json_object *o, const char *path1, const char *path2)
{
	json_object *v = NULL;
	if (!o || !json_object_object_get_ex(o, path1, &v))
		return NULL;
	if (path2 && !json_object_object_get_ex(v, path2, &v))
		return NULL;
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static int64_t jint(json_object *o, const char *path1, const char *path2)
{
	json_object *v = NULL;
	if (!o || !json_object_object_get_ex(o, path1, &v))
		return INT64_MIN;
	if (path2 && !json_object_object_get_ex(v, path2, &v))
		return INT64_MIN;
	return json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : INT64_MIN;
}

static json_object *jobj_params(json_object *o)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, "parameters", &v) ? v : NULL;
}

static bool jhas(json_object *o, const char *key)
{
	return o && json_object_object_get_ex(o, key, NULL);
}

/* Sends a call and returns its answer. */
static json_object *call(Client *c, const char *json)
{
	client_send(c, json);
	return client_recv(c, 3000);
}

static bool is_error(json_object *a, const char *error, const char *key, const char *value)
{
	if (!streq_ptr(jstr(a, "error", NULL), error)) {
		fprintf(stderr, "# got %s\n", a ? json_object_to_json_string(a) : "(nothing)");
		return false;
	}
	return !key || streq_ptr(jstr(a, "parameters", key), value);
}

/* ------------------------------------------------------------ tests */

static void test_basic(void)
{
	Client *c = client_new();
	json_object *a;

	a = call(c, "{\"method\":\"org.varlink.service.GetInfo\"}");
	json_object *ifs = NULL;
	json_object_object_get_ex(json_object_object_get(a, "parameters"), "interfaces", &ifs);
	ok(streq_ptr(jstr(a, "parameters", "vendor"), "example project") &&
		   streq_ptr(jstr(a, "parameters", "product"), "test") &&
		   streq_ptr(jstr(a, "parameters", "version"), "1") &&
		   streq_ptr(jstr(a, "parameters", "url"), "https://example.invalid/") &&
		   json_object_array_length(ifs) == 2 &&
		   streq(json_object_get_string(json_object_array_get_idx(ifs, 0)),
			 "org.varlink.service") &&
		   streq(json_object_get_string(json_object_array_get_idx(ifs, 1)),
			 "org.example.Test") &&
		   !jhas(a, "error") && !jhas(a, "continues"),
	   "GetInfo");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.varlink.service.GetInfo\",\"parameters\":{\"x\":1}}");
	ok(is_error(a, VARLINK_ERROR_INVALID_PARAMETER, "parameter", "x"),
	   "GetInfo refuses unknown parameter");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.varlink.service.GetInterfaceDescription\","
		    "\"parameters\":{\"interface\":\"org.example.Test\"}}");
	ok(streq_ptr(jstr(a, "parameters", "description"), test_idl),
	   "GetInterfaceDescription serves the IDL verbatim");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.varlink.service.GetInterfaceDescription\","
		    "\"parameters\":{\"interface\":\"org.varlink.service\"}}");
	const char *d = jstr(a, "parameters", "description");
	ok(d && strstr(d, "interface org.varlink.service\n") &&
		   strstr(d, "method GetInterfaceDescription(interface: string)") &&
		   strstr(d, "error ExpectedMore ()"),
	   "GetInterfaceDescription of org.varlink.service");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.varlink.service.GetInterfaceDescription\","
		    "\"parameters\":{\"interface\":\"com.example.Nope\"}}");
	ok(is_error(a, VARLINK_ERROR_INTERFACE_NOT_FOUND, "interface", "com.example.Nope"),
	   "GetInterfaceDescription: InterfaceNotFound");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.varlink.service.GetInterfaceDescription\"}");
	ok(is_error(a, VARLINK_ERROR_INVALID_PARAMETER, "parameter", "interface"),
	   "GetInterfaceDescription without interface: InvalidParameter");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.example.Test.Nope\",\"parameters\":{}}");
	ok(is_error(a, VARLINK_ERROR_METHOD_NOT_FOUND, "method", "org.example.Test.Nope"),
	   "MethodNotFound names the method");
	json_object_put(a);

	a = call(c, "{\"method\":\"com.example.Other.Foo\"}");
	ok(is_error(a, VARLINK_ERROR_INTERFACE_NOT_FOUND, "interface", "com.example.Other"),
	   "InterfaceNotFound names the interface");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.example.Test.Declared\"}");
	ok(is_error(a, VARLINK_ERROR_METHOD_NOT_IMPLEMENTED, "method", "org.example.Test.Declared"),
	   "MethodNotImplemented");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.example.Test.Typed\",\"parameters\":{\"name\":\"x\","
		    "\"count\":3}}");
	ok(a && !jhas(a, "error") &&
		   json_object_is_type(json_object_object_get(a, "parameters"), json_type_object),
	   "typed parameters accepted, empty reply is {}");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.example.Test.Typed\",\"parameters\":{\"name\":\"x\","
		    "\"colour\":3}}");
	ok(is_error(a, VARLINK_ERROR_INVALID_PARAMETER, "parameter", "colour"),
	   "InvalidParameter: unknown field");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.example.Test.Typed\",\"parameters\":{\"name\":\"x\","
		    "\"count\":11}}");
	ok(is_error(a, VARLINK_ERROR_INVALID_PARAMETER, "parameter", "count"),
	   "InvalidParameter: out of range");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.example.Test.Typed\",\"parameters\":{}}");
	ok(is_error(a, VARLINK_ERROR_INVALID_PARAMETER, "parameter", "name"),
	   "InvalidParameter: missing mandatory");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.example.Test.Fail\",\"parameters\":{\"errno\":1}}");
	ok(is_error(a, VARLINK_ERROR_PERMISSION_DENIED, NULL, NULL), "-EPERM → PermissionDenied");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.example.Test.Fail\",\"parameters\":{\"errno\":5}}");
	ok(is_error(a, "org.example.Test.Error", "errnoName", "EIO") &&
		   jint(a, "parameters", "errno") == EIO,
	   "-EIO → the server's errno error");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.example.Test.Forget\"}");
	ok(is_error(a, "org.example.Test.Error", "errnoName", "ECANCELED"),
	   "a method that drops its call still gets the client an answer");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.example.Test.Echo\",\"parameters\":{},\"upgrade\":true}");
	ok(is_error(a, VARLINK_ERROR_INVALID_PARAMETER, "parameter", "upgrade"), "upgrade refused");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.example.Test.Whoami\"}");
	ok(jint(a, "parameters", "pid") == getpid(), "peer ucred");
	int64_t pp = jint(a, "parameters", "pidfdPid");
	ok(pp == getpid() || pp == -EOPNOTSUPP, "peer pidfd (or -EOPNOTSUPP on old kernels)");
	json_object_put(a);

	client_free(c);
}

static void test_framing(void)
{
	Client *c = client_new();
	json_object *a;

	/* Byte by byte, turning the server's loop between bytes. */
	const char *req = "{\"method\":\"org.example.Test.Echo\",\"parameters\":{\"n\":42}}";
	for (size_t i = 0; i <= strlen(req); i++) {
		client_send_raw(c, req + i, 1, NULL, 0);
		pump_once();
	}
	a = client_recv(c, 3000);
	ok(jint(a, "parameters", "n") == 42 && !jhas(a, "continues"),
	   "request split into 1-byte writes");
	json_object_put(a);

	/* Several requests in one write. */
	char many[4096];
	size_t len = 0;
	for (int i = 0; i < 5; i++)
		len += (size_t)snprintf(many + len, sizeof(many) - len,
					"{\"method\":\"org.example.Test.Echo\","
					"\"parameters\":{\"n\":%d}}",
					i) +
		       1;
	client_send_raw(c, many, len, NULL, 0);
	bool good = true;
	for (int i = 0; i < 5; i++) {
		a = client_recv(c, 3000);
		good = good && jint(a, "parameters", "n") == i;
		json_object_put(a);
	}
	ok(good, "several requests in one write, answered in order");

	/* Whitespace around the JSON is fine. */
	a = call(c, " \n{\"method\":\"org.example.Test.Echo\",\"parameters\":{\"n\":7}}\n ");
	ok(jint(a, "parameters", "n") == 7, "whitespace around a message");
	json_object_put(a);

	client_free(c);
}

static void test_pipelining(void)
{
	Client *c = client_new();
	json_object *a;

	/* Slow is held by the test; the two Echos behind it must wait. */
	const char *reqs[] = {
		"{\"method\":\"org.example.Test.Slow\",\"parameters\":{\"n\":1}}",
		"{\"method\":\"org.example.Test.Echo\",\"parameters\":{\"n\":2}}",
		"{\"method\":\"org.example.Test.Echo\",\"parameters\":{\"n\":3}}",
	};
	for (size_t i = 0; i < ELEMENTSOF(reqs); i++)
		client_send(c, reqs[i]);
	pump(100);
	client_poll(c);
	ok(n_slow == 1 && c->len == 0, "one call at a time: nothing overtakes a pending call");
	ok(varlink_server_n_active(server) == 3, "n_active counts the active and queued calls");

	slow_reply_all();
	a = client_recv(c, 3000);
	bool good = jint(a, "parameters", "n") == 100;
	json_object_put(a);
	for (int i = 2; i <= 3; i++) {
		a = client_recv(c, 3000);
		good = good && jint(a, "parameters", "n") == i;
		json_object_put(a);
	}
	ok(good, "pipelined calls answered in order after the slow one");
	pump(10);
	ok(varlink_server_n_active(server) == 0, "n_active back to 0");

	/* Behind a held call, 100 pipelined requests in one write: only
	 * VARLINK_DEFAULT_MAX_QUEUED are taken in, the rest wait unread. */
	client_send(c, "{\"method\":\"org.example.Test.Slow\",\"parameters\":{\"n\":1}}");
	static char many[100 * 80];
	size_t len = 0;
	for (int i = 0; i < 100; i++)
		len += (size_t)snprintf(many + len, sizeof(many) - len,
					"{\"method\":\"org.example.Test.Echo\","
					"\"parameters\":{\"n\":%d}}",
					i) +
		       1;
	client_send_raw(c, many, len, NULL, 0);
	pump(100);
	ok(n_slow == 1 && varlink_server_n_active(server) == 1 + VARLINK_DEFAULT_MAX_QUEUED,
	   "queue limit: no more than the limit taken in behind a held call");
	slow_reply_all();
	a = client_recv(c, 3000);
	good = jint(a, "parameters", "n") == 100;
	json_object_put(a);
	for (int i = 0; i < 100; i++) {
		a = client_recv(c, 3000);
		good = good && jint(a, "parameters", "n") == i;
		json_object_put(a);
	}
	ok(good, "queue limit: all 100 answered in order once it drains");
	client_free(c);
}

/* What the loop costs a call: a request is read, dispatched and (answered
 * at once) written in one event loop iteration; an answer given later,
 * from outside the loop's work on the connection, is on the socket when
 * the reply function returns; and nothing is left over for another
 * iteration to do. */
static void test_iterations(void)
{
	Client *c = client_new();
	json_object *a;

	pump(50); /* the accept */
	client_send(c, "{\"method\":\"org.example.Test.Echo\",\"parameters\":{\"n\":7}}");
	ok(sd_event_run(event, 1000) > 0, "the request wakes the loop");
	client_poll(c);
	a = c->len > 0 ? client_recv(c, 0) : NULL;
	ok(jint(a, "parameters", "n") == 7, "read, dispatched and answered in that one iteration");
	json_object_put(a);
	ok(sd_event_run(event, 0) == 0, "... with nothing left for another");

	client_send(c, "{\"method\":\"org.example.Test.Slow\",\"parameters\":{\"n\":1}}");
	for (int i = 0; i < 100 && n_slow == 0; i++)
		pump_once();
	ok(sd_event_run(event, 0) == 0, "a call held by its method leaves the loop nothing to do");
	slow_reply_all();
	client_poll(c);
	a = c->len > 0 ? client_recv(c, 0) : NULL;
	ok(jint(a, "parameters", "n") == 100,
	   "an answer given later is on the socket when the reply function returns");
	json_object_put(a);
	ok(sd_event_run(event, 0) == 0, "... with nothing left for another iteration");
	client_free(c);
	pump(50);
}

static void test_oneway_more(void)
{
	Client *c = client_new();
	json_object *a;

	unsigned before = notes;
	client_send(c, "{\"method\":\"org.example.Test.Note\",\"oneway\":true}");
	a = call(c, "{\"method\":\"org.example.Test.Echo\",\"parameters\":{\"n\":9}}");
	ok(jint(a, "parameters", "n") == 9 && notes == before + 1,
	   "oneway: method runs, no answer (next answer is the next call's)");
	json_object_put(a);

	client_send(c, "{\"method\":\"org.example.Test.Stream\",\"parameters\":{\"count\":3},"
		       "\"more\":true}");
	bool good = true;
	for (int i = 0; i < 3; i++) {
		a = client_recv(c, 3000);
		json_object *cont = NULL;
		json_object_object_get_ex(a, "continues", &cont);
		good = good && jint(a, "parameters", "i") == i && json_object_get_boolean(cont);
		json_object_put(a);
	}
	a = client_recv(c, 3000);
	json_object *cont = NULL;
	json_object_object_get_ex(a, "continues", &cont);
	good = good && jint(a, "parameters", "i") == 3 && !json_object_get_boolean(cont);
	json_object_put(a);
	ok(good, "more: continues=true replies, then a final one");

	a = call(c, "{\"method\":\"org.example.Test.Stream\",\"parameters\":{\"count\":3}}");
	ok(is_error(a, VARLINK_ERROR_EXPECTED_MORE, NULL, NULL),
	   "streaming-only method without more: ExpectedMore");
	json_object_put(a);

	a = call(c,
		 "{\"method\":\"org.example.Test.Echo\",\"parameters\":{\"n\":1},\"more\":true}");
	ok(jint(a, "parameters", "n") == 1 && !jhas(a, "continues"),
	   "plain method called with more: one final reply");
	json_object_put(a);

	client_free(c);
}

/* A stream fed as the client reads holds little in the server's output
 * however much it sends in all; answers too large for a client become an
 * error that ends the call, not a message it cannot read. */
static void test_drain_and_reply_size(void)
{
	Client *c = client_new();
	json_object *a;
	bool good = true;
	int i;

	drain_sent = 0;
	client_send(c, "{\"method\":\"org.example.Test.Drain\",\"parameters\":{\"count\":200,"
		       "\"size\":32768},\"more\":true}");
	pump(300);
	/* Produced at once, 200 answers would be 6.4 MiB queued. */
	ok(drain_sent > 0 && drain_sent < 64,
	   "a drain-fed stream made %u of 200 answers before the client read any", drain_sent);
	ok(varlink_call_set_drain_callback(drain_state.call, drain_next, &drain_state) == 0,
	   "  (its callback can be set again)");
	for (i = 0; i < 200 && good; i++) {
		json_object *cont = NULL, *pad = NULL;

		a = client_recv(c, 5000);
		json_object_object_get_ex(a, "continues", &cont);
		json_object_object_get_ex(jobj_params(a), "pad", &pad);
		good = jint(a, "parameters", "i") == i &&
		       json_object_get_boolean(cont) == (i < 199) &&
		       json_object_get_string_len(pad) == 32768;
		json_object_put(a);
	}
	ok(good && drain_sent == 200 && !drain_state.call,
	   "  then all 200, in order, the last without continues (%d)", i);
	a = call(c, "{\"method\":\"org.example.Test.Echo\",\"parameters\":{\"n\":5}}");
	ok(jint(a, "parameters", "n") == 5, "  the connection serves the next call");
	json_object_put(a);

	ok(varlink_call_set_drain_callback(NULL, drain_next, NULL) == -EINVAL,
	   "no drain callback without a call");
	a = call(c, "{\"method\":\"org.example.Test.Drain\",\"parameters\":{\"count\":2,"
		    "\"size\":1}}");
	ok(is_error(a, "org.example.Test.Error", "errnoName", "EINVAL"),
	   "nor for a call without more");
	json_object_put(a);

	a = call(c, "{\"method\":\"org.example.Test.Big\",\"parameters\":{\"size\":100000}}");
	ok(streq_ptr(jstr(a, "error", NULL), "org.example.Test.ReplyTooLarge") &&
		   jint(a, "parameters", "size") > 100000 &&
		   jint(a, "parameters", "limit") == MAX_MSG,
	   "a reply larger than the limit: ReplyTooLarge with its size and the limit");
	json_object_put(a);
	a = call(c, "{\"method\":\"org.example.Test.Big\",\"parameters\":{\"size\":1000}}");
	ok(!jhas(a, "error") && json_object_get_string_len(
					json_object_object_get(jobj_params(a), "pad")) == 1000,
	   "  the connection stays; a smaller one is sent");
	json_object_put(a);

	drain_sent = 0;
	client_send(c, "{\"method\":\"org.example.Test.Drain\",\"parameters\":{\"count\":5,"
		       "\"size\":100000},\"more\":true}");
	a = client_recv(c, 3000);
	ok(streq_ptr(jstr(a, "error", NULL), "org.example.Test.ReplyTooLarge") &&
		   !jhas(a, "continues") && drain_sent == 1 && !drain_state.call,
	   "a notification too large ends its stream with the error");
	json_object_put(a);

	drain_sent = 0;
	drain_disconnected = false;
	client_send(c, "{\"method\":\"org.example.Test.Drain\",\"parameters\":{\"count\":100000,"
		       "\"size\":32768},\"more\":true}");
	a = client_recv(c, 3000);
	json_object_put(a);
	client_free(c);
	pump(300);
	unsigned sent = drain_sent;
	pump(100);
	ok(drain_disconnected && !drain_state.call && drain_sent == sent && sent < 100,
	   "a client that leaves mid-stream: disconnected, no more made (%u)", sent);
}

static void test_fds(void)
{
	Client *c = client_new();
	json_object *a;
	struct stat st0, st1, st2;

	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		exit(2);
	fstat(pfd[0], &st0);
	const char *req = "{\"method\":\"org.example.Test.FdEcho\",\"parameters\":{\"fd\":0}}";
	client_send_raw(c, req, strlen(req) + 1, &pfd[0], 1);
	a = client_recv(c, 3000);
	ok(jint(a, "parameters", "ino") == (int64_t)st0.st_ino,
	   "fd passed to the server is the same file (fstat)");
	int64_t i0 = jint(a, "parameters", "fd"), i1 = jint(a, "parameters", "fresh");
	bool good = c->n_fds == 2 && i0 == 0 && i1 == 1 && fstat(c->fds[0], &st1) == 0 &&
		    fstat(c->fds[1], &st2) == 0;
	ok(good && st1.st_ino == st0.st_ino && st1.st_dev == st0.st_dev,
	   "fd passed back to the client is the same file (fstat)");
	ok(good && S_ISREG(st2.st_mode) && st2.st_ino != st0.st_ino,
	   "server-created fd arrives with the reply");
	close_many(c->fds, c->n_fds);
	c->n_fds = 0;
	json_object_put(a);

	a = call(c, "{\"method\":\"org.example.Test.FdEcho\",\"parameters\":{\"fd\":0}}");
	ok(is_error(a, VARLINK_ERROR_INVALID_PARAMETER, "parameter", "fd"),
	   "fd index without an fd: InvalidParameter");
	json_object_put(a);

	/* A message with fds right behind one without: the fds belong to the
	 * second, however the kernel splits the reads. */
	int many[16];
	for (int i = 0; i < 16; i++)
		many[i] = pfd[1];
	const char *plain = "{\"method\":\"org.example.Test.FdCount\"}";
	client_send(c, plain);
	client_send_raw(c, plain, strlen(plain) + 1, many, 16);
	a = client_recv(c, 3000);
	json_object *b = client_recv(c, 3000);
	ok(jint(a, "parameters", "n") == 0 && jint(b, "parameters", "n") == 16,
	   "fds attach to the message they were sent with; 16 fds accepted");
	json_object_put(a);
	json_object_put(b);

	client_free(c);

	/* 17 fds: over the limit, the connection is dropped. */
	c = client_new();
	int toomany[17];
	for (int i = 0; i < 17; i++)
		toomany[i] = pfd[1];
	client_send_raw(c, plain, strlen(plain) + 1, toomany, 17);
	a = client_recv(c, 3000);
	ok(!a && c->eof, "too many fds: disconnected without an answer");
	json_object_put(a);
	client_free(c);

	safe_close(pfd[0]);
	safe_close(pfd[1]);
}

typedef struct PeerLines {
	unsigned n;
	uid_t uid;
	char last[512];
} PeerLines;

static void on_peer_line(uid_t uid, const char *line, void *userdata)
{
	PeerLines *p = userdata;

	p->n++;
	p->uid = uid;
	snprintf(p->last, sizeof(p->last), "%s", line);
}

static void test_bad_input(void)
{
	PeerLines lines = {};
	Client *c;
	json_object *a;

	varlink_server_set_peer_log(server, on_peer_line, &lines);
	c = client_new();
	client_send(c, "{\"method\": \"org.example.Test.Echo\", oops}");
	ok(client_wait_eof(c, 3000) && c->len == 0, "malformed JSON: disconnect");
	client_free(c);
	ok(lines.n == 1 && lines.uid == getuid() && !strncmp(lines.last, "<4>varlink: pid ", 16) &&
		   strstr(lines.last, "sent a malformed message"),
	   "... said once to the peer log, with the peer's uid: %s", lines.last);
	varlink_server_set_peer_log(server, NULL, NULL);

	c = client_new();
	client_send(c, "{\"parameters\":{}}");
	ok(client_wait_eof(c, 3000) && c->len == 0, "missing method: disconnect");
	client_free(c);

	c = client_new();
	client_send(c, "{\"method\":\"org.example.Test.Echo\",\"parameters\":[]}");
	ok(client_wait_eof(c, 3000), "parameters not an object: disconnect");
	client_free(c);

	c = client_new();
	client_send(c, "{\"method\":\"org.example.Test.Echo\",\"oneway\":true,\"more\":true}");
	ok(client_wait_eof(c, 3000), "oneway together with more: disconnect");
	client_free(c);

	/* Over the size limit without a NUL yet. */
	c = client_new();
	size_t big = MAX_MSG + 100;
	char *buf = malloc(big);
	memset(buf, ' ', big);
	memcpy(buf, "{\"method\":\"org.example.Test.Echo\",\"parameters\":{\"s\":\"", 51);
	client_send_raw(c, buf, big, NULL, 0);
	a = client_recv(c, 3000);
	ok(is_error(a, "org.example.Test.TooLarge", NULL, NULL) &&
		   jint(a, "parameters", "limit") == MAX_MSG && client_wait_eof(c, 3000),
	   "oversize message: error, then disconnect");
	json_object_put(a);
	client_free(c);

	/* A complete message over the limit in one write. */
	c = client_new();
	buf[big - 1] = 0;
	client_send_raw(c, buf, big, NULL, 0);
	a = client_recv(c, 3000);
	ok(is_error(a, "org.example.Test.TooLarge", NULL, NULL) && client_wait_eof(c, 3000),
	   "oversize complete message: error, then disconnect");
	json_object_put(a);
	client_free(c);
	free(buf);

	/* Just under the limit is fine. */
	c = client_new();
	size_t n = MAX_MSG - 64;
	buf = malloc(n + 1);
	int k = snprintf(buf, n, "{\"method\":\"org.example.Test.Echo\",\"parameters\":{\"s\":\"");
	memset(buf + k, 'x', n - (size_t)k - 3);
	memcpy(buf + n - 3, "\"}}", 3);
	buf[n] = 0;
	a = call(c, buf);
	ok(a && json_object_get_string_len(json_object_object_get(
			json_object_object_get(a, "parameters"), "s")) == (int)(n - (size_t)k - 3),
	   "large message under the limit accepted");
	json_object_put(a);
	free(buf);
	client_free(c);
	pump(10);
}

static void test_hangup(void)
{
	Client *c = client_new();
	Client *other = client_new();

	client_send(c, "{\"method\":\"org.example.Test.Hang\"}");
	uint64_t end = now_ms() + 3000;
	while (!hung_call && now_ms() < end)
		pump_once();
	ok(hung_call != NULL, "long-running call started");
	client_free(c);
	end = now_ms() + 3000;
	while (!hung_disconnected && now_ms() < end)
		pump_once();
	ok(hung_disconnected && !hung_call, "client hang-up mid-call: disconnect callback");

	/* A oneway call followed by close() still runs; the server cleans up. */
	unsigned before = notes;
	client_send(other, "{\"method\":\"org.example.Test.Note\",\"oneway\":true}");
	client_free(other);
	pump(100);
	ok(notes == before + 1, "oneway call sent just before hang-up still runs");
	ok(varlink_server_n_connections(server) == 0 && varlink_server_n_active(server) == 0,
	   "connections and calls released after hang-up");
}

static void test_idle_and_drain(void)
{
	json_object *a;

	unsigned idle_before = idle_calls;
	Client *c = client_new();
	a = call(c, "{\"method\":\"org.example.Test.Echo\",\"parameters\":{\"n\":1}}");
	json_object_put(a);
	ok(varlink_server_idle_since(server) == 0, "not idle while a client is connected");
	client_free(c);
	pump(50);
	ok(idle_calls == idle_before + 1 && varlink_server_idle_since(server) > 0,
	   "idle callback when the last connection goes");

	/* Drain: a held call and a queued one on one connection, an idle
	 * second connection. */
	c = client_new();
	Client *quiet = client_new();
	client_send(c, "{\"method\":\"org.example.Test.Slow\",\"parameters\":{\"n\":1}}");
	client_send(c, "{\"method\":\"org.example.Test.Echo\",\"parameters\":{\"n\":2}}");
	pump(50);
	ok(n_slow == 1 && varlink_server_n_active(server) == 2, "drain: one held, one queued");

	idle_before = idle_calls;
	varlink_server_stop_accepting(server);
	ok(varlink_server_is_draining(server), "stop_accepting: draining");
	pump(50);
	ok(client_wait_eof(quiet, 1000), "drain: an idle connection is closed");
	client_free(quiet);

	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	strcpy(sa.sun_path, sock_path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno == ECONNREFUSED,
	   "drain: new connections refused");
	safe_close(fd);

	/* Requests sent after stop_accepting are not read. */
	client_send(c, "{\"method\":\"org.example.Test.Echo\",\"parameters\":{\"n\":3}}");
	pump(50);
	ok(idle_calls == idle_before && varlink_server_n_active(server) == 2,
	   "drain: not idle while calls remain");

	slow_reply_all();
	a = client_recv(c, 3000);
	json_object *b = client_recv(c, 3000);
	ok(jint(a, "parameters", "n") == 100 && jint(b, "parameters", "n") == 2,
	   "drain: held and queued calls finish");
	json_object_put(a);
	json_object_put(b);
	ok(client_wait_eof(c, 3000) && c->len == 0,
	   "drain: connection closed, the late request was not run");
	pump(20);
	ok(idle_calls == idle_before + 1 && varlink_server_n_active(server) == 0 &&
		   varlink_server_n_connections(server) == 0,
	   "drain: idle callback once everything is done");
	client_free(c);
}

static void test_api_edges(const char *dir)
{
	_cleanup_(varlink_server_freep) VarlinkServer *s = NULL;
	static const VarlinkMethod none[] = {{}};
	char saved[sizeof(sock_path)], path[sizeof(sock_path)];
	int r = varlink_server_new(&s, event, "v", "p", "1", "u");
	ok(r == 0, "second server");
	snprintf(path, sizeof(path), "%s/edges.sock", dir);
	ok(varlink_server_listen_path(s, path, 0600) == -EDESTADDRREQ && access(path, F_OK) < 0,
	   "no listening before the service names its errno error");
	ok(varlink_server_set_errno_error(s, "nodots") == -EINVAL &&
		   varlink_server_set_too_large_error(s, "") == -EINVAL &&
		   varlink_server_set_errno_error(s, "a.b.Error") == 0,
	   "error names must be qualified");
	ok(varlink_server_add_interface(s, "interface nodots\n", none, NULL) == -EINVAL &&
		   varlink_server_add_interface(s, "method X() -> ()\n", none, NULL) == -EINVAL &&
		   varlink_server_add_interface(s, "# c\n\ninterface a.b\n", none, NULL) == 0 &&
		   varlink_server_add_interface(s, "interface a.b\n", none, NULL) == -EEXIST &&
		   varlink_server_add_interface(s, "interface org.varlink.service\n", none, NULL) ==
			   -EEXIST,
	   "add_interface parses and validates the interface line");
	ok(varlink_server_listen_path(s, "/nonexistent-dir/x.sock", 0600) == -ENOENT,
	   "listen_path reports bind errors");

	/* No too-large error named: such a request only ends the connection. */
	ok(varlink_server_listen_path(s, path, 0600) == 0, "listens once named");
	{
		_cleanup_(varlink_server_freep) VarlinkServer *other = NULL;
		struct stat before, after;

		ok(stat(path, &before) == 0 &&
			   varlink_server_new(&other, event, "v", "p", "1", "u") == 0 &&
			   varlink_server_set_errno_error(other, "a.b.Error") == 0 &&
			   varlink_server_listen_path(other, path, 0600) == -EADDRINUSE &&
			   stat(path, &after) == 0 && before.st_ino == after.st_ino,
		   "a socket another server listens on is neither taken nor removed");
	}
	varlink_server_set_max_message_size(s, 64);
	memcpy(saved, sock_path, sizeof(saved));
	memcpy(sock_path, path, sizeof(sock_path));
	{
		Client *c = client_new();
		char big[128];
		json_object *a;

		memset(big, ' ', sizeof(big));
		client_send_raw(c, big, sizeof(big), NULL, 0);
		a = client_recv(c, 3000);
		ok(!a && client_wait_eof(c, 3000),
		   "over the limit with no error named: closed without an answer");
		json_object_put(a);
		client_free(c);
	}
	memcpy(sock_path, saved, sizeof(sock_path));
	unlink(path);
}

/* In a child (sd_listen_fds() reads the environment and fd 3): a socket
 * passed the systemd way is used, and the connection limit holds.  Returns
 * a bitmask of failed checks. */
static int listen_auto_child(const char *dir)
{
	char path[128];
	sd_event *e = NULL;
	VarlinkServer *s = NULL;
	int fail = 0;

	snprintf(path, sizeof(path), "%s/passed.sock", dir);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 8) < 0 ||
	    dup2(fd, 3) < 0)
		return 0x80;
	if (fd != 3)
		close(fd);
	char pid[32];
	snprintf(pid, sizeof(pid), "%d", getpid());
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "1", 1);

	if (sd_event_new(&e) < 0 || varlink_server_new(&s, e, "v", "p", "1", "u") < 0 ||
	    varlink_server_set_errno_error(s, "v.Error") < 0)
		return 0x80;
	event = e; /* for pump() and the client helpers */
	if (varlink_server_listen_auto(s, "/nonexistent/fallback.sock") != 1)
		fail |= 1;
	varlink_server_set_max_connections(s, 1);
	strcpy(sock_path, path);

	Client *c1 = client_new();
	json_object *a = call(c1, "{\"method\":\"org.varlink.service.GetInfo\"}");
	if (!streq_ptr(jstr(a, "parameters", "product"), "p"))
		fail |= 2;
	json_object_put(a);
	/* Root is not counted (the limits are tried as nobody below). */
	Client *c2 = client_new();
	if (client_wait_eof(c2, 500))
		fail |= 4;
	client_free(c2);
	client_free(c1);

	/* Nothing passed: the fallback path is bound. */
	snprintf(path, sizeof(path), "%s/fallback.sock", dir);
	VarlinkServer *s2 = NULL;
	struct stat st;
	if (varlink_server_new(&s2, e, "v", "p", "1", "u") < 0 ||
	    varlink_server_set_errno_error(s2, "v.Error") < 0 ||
	    varlink_server_listen_auto(s2, path) != 1 || stat(path, &st) < 0 ||
	    (st.st_mode & 0777) != 0666)
		fail |= 8;
	varlink_server_free(s2);
	varlink_server_free(s);
	sd_event_unref(e);
	unlink(path);
	snprintf(path, sizeof(path), "%s/passed.sock", dir);
	unlink(path);
	return fail;
}

static void test_listen_auto(const char *dir)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(listen_auto_child(dir));
	int status = 0;
	waitpid(pid, &status, 0);
	int fail = WIFEXITED(status) ? WEXITSTATUS(status) : 0xff;
	if (fail)
		fprintf(stderr, "# listen_auto child: 0x%x\n", fail);
	bool ran = fail != 0xff && !(fail & 0x80);
	ok(ran && !(fail & 3), "listen_auto uses a socket passed by systemd");
	ok(ran && !(fail & 4), "connection limit: root's connections are not counted");
	ok(ran && !(fail & 8), "listen_auto falls back to binding the path, mode 0666");
}

/* In a child: uid 65534, connected to sock_path; the fd, or -1. */
static int nobody_connect(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	strcpy(sa.sun_path, sock_path);
	if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -1;
	return fd;
}

/* A connection from uid 65534 in a child: reports 'E' on pipe fd when the
 * server closed it within 1.5 s, 'O' when it stayed open; then holds it
 * until killed. */
static pid_t nobody_client(int report)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	int fd = nobody_connect();
	char c = 'X', buf[1];

	if (fd < 0)
		_exit(write(report, &c, 1) == 1 ? 1 : 2);
	struct pollfd p = {.fd = fd, .events = POLLIN};
	c = poll(&p, 1, 1500) == 1 && read(fd, buf, 1) == 0 ? 'E' : 'O';
	if (write(report, &c, 1) != 1)
		_exit(2);
	pause();
	_exit(0);
}

/* Runs the server until the child reports; its answer. */
static char await_report(int report)
{
	uint64_t end = now_ms() + 5000;
	char c;

	while (now_ms() < end) {
		if (read(report, &c, 1) == 1)
			return c;
		(void)sd_event_run(event, 50 * 1000);
	}
	return '?';
}

/* One answer on fd, waited for up to 3 s: 'H' for the Held error, 'R' for
 * a reply, '?' for anything else. */
static char held_answer(int fd)
{
	char buf[200000];
	size_t n = 0;
	struct pollfd p = {.fd = fd, .events = POLLIN};

	while (n < sizeof(buf) - 1 && poll(&p, 1, 3000) == 1) {
		ssize_t k = read(fd, buf + n, sizeof(buf) - 1 - n);

		if (k <= 0)
			break;
		n += (size_t)k;
		if (memchr(buf, 0, n))
			break;
	}
	buf[n] = 0;
	return strstr(buf, "org.example.Test.Held") ? 'H' : strstr(buf, "\"pad\"") ? 'R' : '?';
}

/* As nobody: six connections each sent 20 calls for answers of 60 kB it
 * does not read for a second ('S' when sent), then it reads everything
 * ('A': every call answered, some with the error) and calls again on a
 * seventh (its answer). */
static pid_t held_client(int report)
{
	static const char big[] =
		"{\"method\":\"org.example.Test.Big\",\"parameters\":{\"size\":60000}}";
	pid_t pid = fork();
	int fds[7];
	char c;

	if (pid != 0)
		return pid;
	if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
		_exit(2);
	for (int i = 0; i < 7; i++) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};

		strcpy(sa.sun_path, sock_path);
		fds[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fds[i] < 0 || connect(fds[i], (struct sockaddr *)&sa, sizeof(sa)) < 0)
			_exit(2);
		for (int k = 0; i < 6 && k < 20; k++)
			if (send(fds[i], big, sizeof(big), MSG_NOSIGNAL) != sizeof(big))
				_exit(2);
	}
	c = 'S';
	if (write(report, &c, 1) != 1)
		_exit(2);
	sleep(1);
	/* Read everything, until nothing comes for a second: the answers
	 * (NUL-terminated) and the errors among them. */
	{
		static char buf[7][1 << 21];
		size_t len[6] = {0}, msgs = 0, helds = 0;

		for (;;) {
			struct pollfd p[6];

			for (int i = 0; i < 6; i++)
				p[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
			if (poll(p, 6, 1000) <= 0)
				break;
			for (int i = 0; i < 6; i++) {
				ssize_t k;

				if (!(p[i].revents & POLLIN) || len[i] >= sizeof(buf[i]) - 1)
					continue;
				k = read(fds[i], buf[i] + len[i], sizeof(buf[i]) - 1 - len[i]);
				if (k > 0)
					len[i] += (size_t)k;
			}
		}
		for (int i = 0; i < 6; i++) {
			for (size_t k = 0; k < len[i]; k++)
				msgs += buf[i][k] == 0;
			buf[i][len[i]] = 0;
			for (char *h = buf[i]; (h = memmem(h, len[i] - (size_t)(h - buf[i]),
							   "org.example.Test.Held", 21));
			     h += 21)
				helds++;
		}
		fprintf(stderr, "# nobody read %zu answers, %zu of them the error\n", msgs, helds);
		c = msgs == 120 && helds > 0 && helds < 120 ? 'A' : 'N';
		if (write(report, &c, 1) != 1)
			_exit(2);
	}
	if (send(fds[6], big, sizeof(big), MSG_NOSIGNAL) != sizeof(big))
		_exit(2);
	c = held_answer(fds[6]);
	if (write(report, &c, 1) != 1)
		_exit(2);
	pause();
	_exit(0);
}

/* A second server with the test interface, for clients of other uids:
 * sock_path (saved first) names its socket DIR/NAME, not yet listening. */
static int side_server_new(const char *dir, const char *name, char *saved, VarlinkServer **ret)
{
	memcpy(saved, sock_path, sizeof(sock_path));
	snprintf(sock_path, sizeof(sock_path), "%s/%s", dir, name);
	if (chmod(dir, 0755) < 0)
		return -errno;
	int r = varlink_server_new(ret, event, "v", "p", "1", "u");
	if (r >= 0)
		r = varlink_server_add_interface(*ret, test_idl, test_methods, NULL);
	if (r >= 0)
		r = varlink_server_set_errno_error(*ret, "org.example.Test.Error");
	return r;
}

/* As nobody: a call that never ends, then Echo calls of about 60 kB
 * pipelined behind it as long as the server takes them (1 s); reports how
 * many went out. */
static pid_t queued_client(int report)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	int fd = nobody_connect();
	static char msg[61000];
	const char *hang = "{\"method\":\"org.example.Test.Hang\"}";
	unsigned char n = 0;
	size_t len;

	if (fd < 0 || send(fd, hang, strlen(hang) + 1, MSG_NOSIGNAL) < 0)
		_exit(1);
	len = (size_t)snprintf(
		      msg, sizeof(msg),
		      "{\"method\":\"org.example.Test.Echo\",\"parameters\":{\"s\":\"%060000d\"}}",
		      0) +
	      1;
	while (n < 60) {
		size_t off = 0;

		while (off < len) {
			struct pollfd p = {.fd = fd, .events = POLLOUT};
			ssize_t k;

			if (poll(&p, 1, 1000) != 1)
				goto out;
			k = send(fd, msg + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (k < 0 && errno != EAGAIN)
				goto out;
			off += k > 0 ? (size_t)k : 0;
		}
		n++;
	}
out:
	if (write(report, &n, 1) != 1)
		_exit(2);
	pause();
	_exit(0);
}

static void test_queued_per_uid(const char *dir)
{
	_cleanup_(varlink_server_freep) VarlinkServer *s = NULL;
	char saved[sizeof(sock_path)];
	unsigned active;
	pid_t pid;
	int p[2];
	char sent;

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    side_server_new(dir, "queued.sock", saved, &s) < 0 ||
	    varlink_server_listen_path(s, sock_path, 0666) < 0) {
		ok(false, "setup for the queued limit: %m");
		memcpy(sock_path, saved, sizeof(sock_path));
		return;
	}
	pid = queued_client(p[1]);
	sent = await_report(p[0]);
	pump(200);
	active = varlink_server_n_active(s);
	ok(active >= 2 && active <= 2 + VARLINK_QUEUED_BYTES_PER_UID / 61000 + 1,
	   "a user pipelining behind a call that never ends: %u of its calls held (%d sent), "
	   "then the server reads no more of it",
	   active, (int)(unsigned char)sent);
	{
		Client *c = client_new();
		json_object *a = call(c, "{\"method\":\"org.varlink.service.GetInfo\"}");

		ok(a && !jhas(a, "error"), "  while root is answered");
		json_object_put(a);
		client_free(c);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	pump(200);
	ok(varlink_server_n_active(s) == 0, "  and when it goes, nothing of it is left");
	close(p[0]);
	close(p[1]);
	unlink(sock_path);
	chmod(dir, 0700);
	memcpy(sock_path, saved, sizeof(sock_path));
}

/* A user's answers that it does not read are held up to a limit: past
 * it, its calls get the error; root's do not; once it reads, it is
 * answered again. */
static void test_held_per_uid(const char *dir)
{
	_cleanup_(varlink_server_freep) VarlinkServer *s = NULL;
	char saved[sizeof(sock_path)];
	char sent, all, drained;
	pid_t pid;
	int p[2];

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    side_server_new(dir, "held.sock", saved, &s) < 0 ||
	    varlink_server_set_held_limit_error(s, "org.example.Test.Held") < 0 ||
	    varlink_server_listen_path(s, sock_path, 0666) < 0) {
		ok(false, "setup for the held limit: %m");
		memcpy(sock_path, saved, sizeof(sock_path));
		return;
	}
	varlink_server_set_max_message_size(s, MAX_MSG);
	pid = held_client(p[1]);
	sent = await_report(p[0]);
	{
		Client *c = client_new();
		json_object *a;

		pump(500);
		a = call(c,
			 "{\"method\":\"org.example.Test.Big\",\"parameters\":{\"size\":60000}}");
		ok(a && !jhas(a, "error"), "root's answer is sent while a user's are held");
		json_object_put(a);
		client_free(c);
	}
	all = await_report(p[0]);
	drained = await_report(p[0]);
	ok(sent == 'S' && all == 'A',
	   "a user that does not read: each answer past 4 messages' worth held is the error, "
	   "every call is answered (%c%c)",
	   sent, all);
	ok(drained == 'R', "  once it has read them, it is answered again (%c)", drained);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	pump(100);
	close(p[0]);
	close(p[1]);
	unlink(sock_path);
	chmod(dir, 0700);
	memcpy(sock_path, saved, sizeof(sock_path));
}

static void test_connection_limits(const char *dir)
{
	_cleanup_(varlink_server_freep) VarlinkServer *s = NULL;
	char saved[sizeof(sock_path)];
	pid_t pids[3];
	int p[2];
	char first, second, third;

	memcpy(saved, sock_path, sizeof(saved));
	snprintf(sock_path, sizeof(sock_path), "%s/limits.sock", dir);
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0 || chmod(dir, 0755) < 0 ||
	    varlink_server_new(&s, event, "v", "p", "1", "u") < 0 ||
	    varlink_server_set_errno_error(s, "v.Error") < 0 ||
	    varlink_server_listen_path(s, sock_path, 0666) < 0) {
		ok(false, "setup for the connection limits: %m");
		memcpy(sock_path, saved, sizeof(sock_path));
		return;
	}
	varlink_server_set_max_connections_per_uid(s, 2);
	pids[0] = nobody_client(p[1]);
	first = await_report(p[0]);
	pids[1] = nobody_client(p[1]);
	second = await_report(p[0]);
	pids[2] = nobody_client(p[1]);
	third = await_report(p[0]);
	ok(first == 'O' && second == 'O', "a user's connections up to its limit stay open");
	ok(third == 'E', "the one over it is closed at once: %c", third);
	{
		Client *c = client_new();
		json_object *a = call(c, "{\"method\":\"org.varlink.service.GetInfo\"}");

		ok(a && !jhas(a, "error"), "root still gets in and is answered");
		json_object_put(a);
		client_free(c);
	}
	for (size_t i = 0; i < ELEMENTSOF(pids); i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	pump(100);
	close(p[0]);
	close(p[1]);
	unlink(sock_path);
	chmod(dir, 0700);
	memcpy(sock_path, saved, sizeof(sock_path));
}

/* With SO_PASSCRED on the server's socket (PassCredentials=yes in
 * mountd.socket) every message also carries SCM_CREDENTIALS: the fds the
 * limit allows must still fit beside it. */
static void test_fds_with_credentials(const char *dir)
{
	_cleanup_(varlink_server_freep) VarlinkServer *s = NULL;
	char saved[sizeof(sock_path)];
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int one = 1, pfd[2];

	memcpy(saved, sock_path, sizeof(saved));
	snprintf(sock_path, sizeof(sock_path), "%s/passcred.sock", dir);
	strcpy(sa.sun_path, sock_path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 8) < 0 ||
	    pipe2(pfd, O_CLOEXEC) < 0 || varlink_server_new(&s, event, "v", "p", "1", "u") < 0 ||
	    varlink_server_add_interface(s, test_idl, test_methods, NULL) < 0 ||
	    varlink_server_set_errno_error(s, "org.example.Test.Error") < 0 ||
	    varlink_server_listen_fd(s, fd) < 0) {
		ok(false, "setup for fds with credentials: %m");
		memcpy(sock_path, saved, sizeof(sock_path));
		return;
	}

	const char *req = "{\"method\":\"org.example.Test.FdCount\"}";
	static const unsigned counts[] = {1, 8, 9, 16};
	int many[17];
	for (size_t i = 0; i < ELEMENTSOF(many); i++)
		many[i] = pfd[1];
	for (size_t i = 0; i < ELEMENTSOF(counts); i++) {
		Client *c = client_new();
		client_send_raw(c, req, strlen(req) + 1, many, counts[i]);
		json_object *a = client_recv(c, 3000);
		ok(a && jint(a, "parameters", "n") == counts[i] && !c->eof,
		   "with SCM_CREDENTIALS: %u fds arrive whole", counts[i]);
		json_object_put(a);
		client_free(c);
	}
	Client *c = client_new();
	client_send_raw(c, req, strlen(req) + 1, many, 17);
	json_object *a = client_recv(c, 3000);
	ok(!a && c->eof, "with SCM_CREDENTIALS: 17 fds, disconnected without an answer");
	json_object_put(a);
	client_free(c);

	safe_close(pfd[0]);
	safe_close(pfd[1]);
	unlink(sock_path);
	memcpy(sock_path, saved, sizeof(sock_path));
}

/* A peer whose process exited before accept() has no identity to pin: the
 * connection is closed unanswered, however long its socket is kept. */
static void test_peer_gone_before_accept(void)
{
	Client *c = calloc(1, sizeof(*c));
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int status = -1;

	if (!c)
		exit(2);
	strcpy(sa.sun_path, sock_path);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	pid_t pid = fork();
	if (pid == 0)
		/* The connection's credentials are the child's. */
		_exit(connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? errno : 0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0) {
		ok(false, "setup: a child that connects and exits (status %d)", status);
		client_free(c);
		return;
	}
	client_send(c, "{\"method\":\"org.example.Test.Whoami\"}");
	json_object *a = client_recv(c, 3000);
	ok(!a && c->eof, "a connection whose process exited before accept: closed, not answered");
	json_object_put(a);
	client_free(c);

	c = client_new();
	a = call(c, "{\"method\":\"org.example.Test.Whoami\"}");
	ok(a && !jhas(a, "error"), "a live peer is still answered");
	json_object_put(a);
	client_free(c);
}

int main(void)
{
	char dir[] = "/tmp/test-varlink.XXXXXX";
	int r;

	if (!mkdtemp(dir))
		return 2;
	snprintf(sock_path, sizeof(sock_path), "%s/org.example.Test", dir);

	r = sd_event_new(&event);
	if (r >= 0)
		r = varlink_server_new(&server, event, "example project", "test", "1",
				       "https://example.invalid/");
	if (r >= 0)
		r = varlink_server_add_interface(server, test_idl, test_methods, NULL);
	if (r >= 0)
		r = varlink_server_set_errno_error(server, "org.example.Test.Error");
	if (r >= 0)
		r = varlink_server_set_too_large_error(server, "org.example.Test.TooLarge");
	if (r >= 0)
		r = varlink_server_set_reply_too_large_error(server,
							     "org.example.Test.ReplyTooLarge");
	if (r >= 0)
		r = varlink_server_set_idle_callback(server, on_idle, NULL);
	if (r >= 0)
		r = varlink_server_listen_path(server, sock_path, 0600);
	if (r < 0) {
		fprintf(stderr, "setup: %s\n", strerror(-r));
		return 2;
	}
	varlink_server_set_max_message_size(server, MAX_MSG);

	struct stat st;
	ok(stat(sock_path, &st) == 0 && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0600,
	   "listen_path creates the socket with the mode asked for");

	test_basic();
	test_framing();
	test_pipelining();
	test_iterations();
	test_oneway_more();
	test_drain_and_reply_size();
	test_fds();
	test_peer_gone_before_accept();
	test_bad_input();
	test_hangup();
	test_idle_and_drain();
	test_api_edges(dir);
	test_connection_limits(dir);
	test_fds_with_credentials(dir);
	test_held_per_uid(dir);
	test_queued_per_uid(dir);
	test_listen_auto(dir);

	server = varlink_server_free(server);
	event = sd_event_unref(event);
	unlink(sock_path);
	rmdir(dir);

	return tap_done();
}
