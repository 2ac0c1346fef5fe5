// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The D-Bus front end's decoding (daemon/front-bus-args.c) of every method: real
 * sd_bus_message method calls built from the input, then converted to JSON
 * and decoded along the operation table as request.c does.  The input
 * drives a builder (below): the method, then per argument either the type
 * the method takes or another one, the a{sv} options with the API's keys
 * or others and values of every basic type, nested dictionaries, fds, and
 * (ssv) parameters.  A refusal must name the argument; a conversion must
 * name only fds the message has and decode like any varlink request.
 *
 *   input    := method:u8 arg* [options] [extra]
 *   arg      := sel:u8 (sel < 0xe0: the method's type, else value of type sel)
 *   string   := len:u8 bytes[len % 64]
 *   key      := k:u8 (k < 0xc0: keys[k], else string)
 *   dict     := n:u8 (key value){n % 8}
 *   value    := type:u8 ...   (type % 16: s b y n q i u x t h o g d a{sv} as (ss))
 *   params   := n:u8 (pkey ptype pvalue){n % 8}
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "front-bus-args.h"
#include "fuzz.h"
#include "util.h"

static sd_bus *bus;
static int null_fd = -EBADF;
static uint64_t cookie;

static const char *const keys[] = {
	"namespace",  "pid",
	"pidfd",      "mntnsFd",
	"placement",  "path",
	"create",     "beneath",
	"attributes", "readOnly",
	"noSuid",     "noDev",
	"noExec",     "atime",
	"noDiratime", "noSymfollow",
	"image",      "fd",
	"partition",  "partitionType",
	"fsType",     "source",
	"exclusive",  "propagation",
	"traceFd",    "sourceNamespace",
	"sourcePath", "sourceFd",
	"recursive",  "idmapUserNamespaceFd",
	"from",	      "to",
	"detach",     "force",
	"attribute",  "nth",
	"mth",	      "noFallback",
	"parameters", "allowInteractiveAuthentication",
};
static const char *const param_keys[] = {"size", "mode", "source", "lowerdir", "ro", ""};
static const char *const param_types[] = {"flag", "string", "binary", "path", "path_empty", "fd"};

static void setup(void)
{
	int s[2];

	if (bus)
		return;
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	FUZZ_CHECK(null_fd >= 0);
	/* Messages need a bus that has started; one that is still
	 * authenticating (nobody answers on the other end) lets them carry
	 * fds, and is never used to send. */
	FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s) == 0);
	FUZZ_CHECK(sd_bus_new(&bus) >= 0);
	FUZZ_CHECK(sd_bus_set_fd(bus, s[0], s[0]) >= 0);
	FUZZ_CHECK(sd_bus_negotiate_fds(bus, true) >= 0);
	FUZZ_CHECK(sd_bus_start(bus) >= 0);
}

static char *string(FuzzInput *in)
{
	char *s = fuzz_string(in, fuzz_u8(in) % 64);

	FUZZ_CHECK(s);
	return s;
}

static int append_string(sd_bus_message *m, char type, FuzzInput *in)
{
	_cleanup_free_ char *s = string(in);

	if (type == 'o') {
		/* An object path must be one: /o, then the bytes as [a-z0-9_]. */
		_cleanup_free_ char *path = NULL;

		for (char *p = s; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
				*p = '_';
		if (asprintf(&path, "/o%s", s) < 0)
			return -ENOMEM;
		return sd_bus_message_append_basic(m, 'o', path);
	}
	return sd_bus_message_append_basic(m, type, s);
}

static int append_dict(sd_bus_message *m, FuzzInput *in, unsigned depth);

static int append_value(sd_bus_message *m, uint8_t type, FuzzInput *in, unsigned depth)
{
	uint64_t x = 0;
	size_t got;
	const uint8_t *p;
	int r;

	switch (type % 16) {
	case 0:
		return append_string(m, 's', in);
	case 1:
		return sd_bus_message_append(m, "b", fuzz_u8(in) & 1);
	case 9:
		return sd_bus_message_append(m, "h", null_fd);
	case 10:
		return append_string(m, 'o', in);
	case 11:
		return sd_bus_message_append(m, "g", "a{sv}");
	case 12:
		return sd_bus_message_append(m, "d", (double)fuzz_u8(in) / 7);
	case 13:
		return append_dict(m, in, depth + 1);
	case 14: {
		_cleanup_free_ char *s = string(in);

		return sd_bus_message_append(m, "as", 1, s);
	}
	case 15: {
		_cleanup_free_ char *a = string(in), *b = string(in);

		return sd_bus_message_append(m, "(ss)", a, b);
	}
	}
	p = fuzz_bytes(in, 8, &got);
	memcpy(&x, p, got);
	switch (type % 16) {
	case 2:
		r = sd_bus_message_append(m, "y", (uint8_t)x);
		break;
	case 3:
		r = sd_bus_message_append(m, "n", (int16_t)x);
		break;
	case 4:
		r = sd_bus_message_append(m, "q", (uint16_t)x);
		break;
	case 5:
		r = sd_bus_message_append(m, "i", (int32_t)x);
		break;
	case 6:
		r = sd_bus_message_append(m, "u", (uint32_t)x);
		break;
	case 7:
		r = sd_bus_message_append(m, "x", (int64_t)x);
		break;
	default:
		r = sd_bus_message_append(m, "t", x);
	}
	return r;
}

static const char *value_signature(uint8_t type)
{
	static const char *const sigs[] = {"s", "b", "y", "n", "q", "i",     "u",  "x",
					   "t", "h", "o", "g", "d", "a{sv}", "as", "(ss)"};

	return sigs[type % 16];
}

static int append_variant(sd_bus_message *m, FuzzInput *in, unsigned depth)
{
	uint8_t type = fuzz_u8(in);
	int r;

	if (type % 16 == 13 && depth >= 3)
		type = 0; /* deep enough */
	r = sd_bus_message_open_container(m, 'v', value_signature(type));
	if (r >= 0)
		r = append_value(m, type, in, depth);
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	return r;
}

static int append_dict(sd_bus_message *m, FuzzInput *in, unsigned depth)
{
	unsigned n = fuzz_u8(in) % 8;
	int r = sd_bus_message_open_container(m, 'a', "{sv}");

	for (unsigned i = 0; r >= 0 && i < n; i++) {
		uint8_t k = fuzz_u8(in);
		_cleanup_free_ char *s = k < 0xc0 ? NULL : string(in);

		r = sd_bus_message_open_container(m, 'e', "sv");
		if (r >= 0)
			r = sd_bus_message_append(m, "s", s ?: keys[k % ELEMENTSOF(keys)]);
		if (r >= 0)
			r = append_variant(m, in, depth);
		if (r >= 0)
			r = sd_bus_message_close_container(m);
	}
	return r >= 0 ? sd_bus_message_close_container(m) : r;
}

static int append_params(sd_bus_message *m, FuzzInput *in)
{
	unsigned n = fuzz_u8(in) % 8;
	int r = sd_bus_message_open_container(m, 'a', "(ssv)");

	for (unsigned i = 0; r >= 0 && i < n; i++) {
		uint8_t k = fuzz_u8(in), t = fuzz_u8(in), v = fuzz_u8(in);
		_cleanup_free_ char *key = k < 0xc0 ? NULL : string(in);
		_cleanup_free_ char *type = t < 0xe0 ? NULL : string(in);
		_cleanup_free_ char *s = NULL;

		r = sd_bus_message_open_container(m, 'r', "ssv");
		if (r >= 0)
			r = sd_bus_message_append(m, "ss",
						  key ?: param_keys[k % ELEMENTSOF(param_keys)],
						  type ?: param_types[t % ELEMENTSOF(param_types)]);
		if (r < 0)
			break;
		switch (v % 6) {
		case 0:
			s = string(in);
			r = sd_bus_message_append(m, "v", "s", s);
			break;
		case 1:
			s = string(in);
			r = sd_bus_message_open_container(m, 'v', "ay");
			if (r >= 0)
				r = sd_bus_message_append_array(m, 'y', s, strlen(s));
			if (r >= 0)
				r = sd_bus_message_close_container(m);
			break;
		case 2:
			r = sd_bus_message_append(m, "v", "h", null_fd);
			break;
		case 3:
			s = string(in);
			r = sd_bus_message_append(m, "v", "(hs)", null_fd, s);
			break;
		case 4:
			r = sd_bus_message_append(m, "v", "b", fuzz_u8(in) & 1);
			break;
		default:
			r = append_variant(m, in, 0);
		}
		if (r >= 0)
			r = sd_bus_message_close_container(m);
	}
	return r >= 0 ? sd_bus_message_close_container(m) : r;
}

/* The method's arguments, each its own type or (sel >= 0xe0) another. */
static int append_args(sd_bus_message *m, const OpsMethod *om, FuzzInput *in)
{
	int r = 0;

	for (const OpsBusArg *a = om->bus_args; r >= 0 && a->name; a++) {
		uint8_t sel = fuzz_u8(in);

		if (sel >= 0xe0)
			r = append_value(m, sel, in, 0);
		else if (streq(a->signature, "a(ssv)"))
			r = append_params(m, in);
		else
			r = append_string(m, 's', in);
	}
	if (r >= 0 && !om->bus_no_options) {
		uint8_t sel = fuzz_u8(in);

		r = sel >= 0xe0 ? append_value(m, sel, in, 0) : append_dict(m, in, 0);
	}
	if (r >= 0 && fuzz_u8(in) == 0xff)
		r = append_value(m, fuzz_u8(in), in, 0); /* one argument too many */
	return r;
}

static void check_converted(const OpsMethod *om, const BusArgs *a)
{
	OpsFds f = {.fds = a->fds, .n = a->n_fds, .trace_fd = -EBADF};
	void *req = calloc(1, om->request_size);
	const char *field = NULL;
	int r;

	FUZZ_CHECK(req && json_object_is_type(a->params, json_type_object));
	for (size_t i = 0; i < a->n_fds; i++)
		FUZZ_CHECK(fcntl(a->fds[i], F_GETFD) >= 0);
	/* What request.c does next. */
	om->request_init(req);
	r = ops_request_decode(om, a->params, &f, req, &field);
	if (fuzz_debug())
		fprintf(stderr, "%s %s: %s %s\n", om->name, json_object_to_json_string(a->params),
			r < 0 ? "refused" : "taken", r < 0 ? field : "");
	FUZZ_CHECK(r >= 0 || r == -EINVAL || r == -ENOMEM);
	FUZZ_CHECK(r >= 0 || field);
	om->request_done(req);
	free(req);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	FuzzInput in = {data, size};
	const OpsMethod *om;
	size_t n_methods = 0;
	BusArgs a;
	int r;

	setup();
	while (ops_methods[n_methods].name)
		n_methods++;
	om = &ops_methods[fuzz_u8(&in) % n_methods];
	FUZZ_CHECK(sd_bus_message_new_method_call(bus, &m, "io.mountd1", "/io/mountd1",
						  "io.mountd1.Manager", om->name) >= 0);
	if (append_args(m, om, &in) < 0)
		return 0; /* not a message sd-bus would let anyone send */
	FUZZ_CHECK(sd_bus_message_seal(m, ++cookie, 0) >= 0);
	FUZZ_CHECK(sd_bus_message_rewind(m, true) >= 0);

	r = bus_args_to_json(m, om, &a);
	if (r < 0) {
		if (fuzz_debug())
			fprintf(stderr, "%s: refused, %s\n", om->name, a.field);
		FUZZ_CHECK(r != -ENOMEM || !a.field[0]);
		FUZZ_CHECK(r == -ENOMEM || a.field[0]);
	} else
		check_converted(om, &a);
	bus_args_done(&a);
	return 0;
}
