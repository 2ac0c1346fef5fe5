/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-varlink's service: org.example.Test, whose methods the tests call. */

#include "test-varlink.h"

/* ------------------------------------------------------------ test service */

const char test_idl[] = "# A service used only by test-varlink.\n"
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
unsigned n_slow;
unsigned notes;
VarlinkCall *hung_call;
bool hung_disconnected;
unsigned idle_calls;

static json_object *obj_int(const char *key, int64_t v)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, key, json_object_new_int64(v));
	return o;
}

static int m_echo(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	return varlink_call_reply(c, json_object_get(p));
}

static int m_slow(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	if (n_slow >= ELEMENTSOF(slow_calls))
		return -ENOSPC;
	/* Answered later by the test: keep a reference. */
	slow_calls[n_slow++] = varlink_call_ref(c);
	return 0;
}

VarlinkCall *slow_take(void)
{
	return n_slow > 0 ? slow_calls[--n_slow] : NULL;
}

void slow_reply_all(void)
{
	for (unsigned i = 0; i < n_slow; i++) {
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

DrainState drain_state;
unsigned drain_sent;
bool drain_disconnected;

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

void drain_next(VarlinkCall *c, void *ud)
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
	/* Take one, leave the rest for the call to close. */
	_cleanup_close_ int fd = varlink_call_take_fd(c, 0);
	if (varlink_call_n_fds(c) > 0 && (fd < 0 || varlink_call_peek_fd(c, 0) != -EBADF))
		return -EIO;
	return varlink_call_reply(c, obj_int("n", varlink_call_n_fds(c)));
}

static int m_note(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	if (f & VARLINK_CALL_ONEWAY)
		notes++;
	return varlink_call_reply(c, NULL);
}

static int m_fail(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	json_object *v;
	if (!json_object_object_get_ex(p, "errno", &v))
		return -EINVAL;
	return -json_object_get_int(v);
}

static int m_forget(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
	return 0; /* a buggy method: neither answers nor keeps the call */
}

static void on_hang_disconnect(VarlinkCall *c, void *ud)
{
	hung_disconnected = true;
	/* Answering a gone client fails but ends the call. */
	int r = varlink_call_reply(c, NULL);
	if (r != -ENOTCONN)
		fprintf(stderr, "# reply after hang-up gave %d\n", r);
	hung_call = varlink_call_unref(hung_call);
}

static int m_hang(VarlinkCall *c, json_object *p, VarlinkCallFlags f, void *ud)
{
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
	int r = varlink_call_get_peer_ucred(c, &uc);
	if (r < 0)
		return r;
	json_object *o = obj_int("pid", uc.pid);
	int pidfd = varlink_call_get_peer_pidfd(c);
	json_object_object_add(o, "pidfdPid",
			       json_object_new_int(pidfd >= 0 ? pidfd_pid(pidfd) : pidfd));
	return varlink_call_reply(c, o);
}

const VarlinkMethod test_methods[] = {
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

void on_idle(VarlinkServer *s, void *ud)
{
	idle_calls++;
}
