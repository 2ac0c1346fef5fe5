/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-varlink: calls as a client makes them: org.varlink.service, framing,
 * pipelining, streams, oneway, the drain callback, answer sizes and fds.
 */

#include "test-varlink.h"

/* ------------------------------------------------------------ tests */

void test_basic(void)
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

void test_framing(void)
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

void test_pipelining(void)
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
void test_iterations(void)
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

void test_oneway_more(void)
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
void test_drain_and_reply_size(void)
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

void test_fds(void)
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

/* A Slow call of n, sent and held: the test answers it. */
static VarlinkCall *held_call(Client *c, int n)
{
	char req[96];

	snprintf(req, sizeof(req),
		 "{\"method\":\"org.example.Test.Slow\",\"parameters\":{\"n\":%d}}", n);
	client_send(c, req);
	pump(50);
	return slow_take();
}

/* The next answer's parameters.n (-1: none). */
static int64_t recv_n(Client *c)
{
	json_object *a = client_recv(c, 3000);
	int64_t n = jint(a, "parameters", "n");

	json_object_put(a);
	return n;
}

/* A call's socket lent for its answer to be written by another process
 * (mountd's worker): nothing else is written meanwhile, the rest of an
 * answer written in part goes first and the next call after it; taken back
 * unused, the call answers as usual; lost, the connection closes. */
void test_lend(void)
{
	static const char msg[] = "{\"parameters\":{\"n\":7}}";
	Client *c = client_new();
	VarlinkCall *vc;
	int fd;

	client_send(c, "{\"method\":\"org.example.Test.Slow\",\"parameters\":{\"n\":1}}");
	client_send(c, "{\"method\":\"org.example.Test.Echo\",\"parameters\":{\"n\":2}}");
	pump(50);
	vc = slow_take();
	fd = vc ? varlink_call_lend_socket(vc) : -EBADF;
	ok(fd >= 0, "lend: the socket of a call with nothing queued before its answer");
	ok(vc && varlink_call_lend_socket(vc) == -EBUSY, "lend: once at a time");
	ok(vc && varlink_call_reply(vc, NULL) == -EBUSY,
	   "lend: the call's own answer fails while the socket is lent");
	ok(fd >= 0 && write(fd, msg, 5) == 5 && varlink_call_lent_answered(vc, msg, 5) == 0,
	   "lend: the borrower writes part of the answer and says how much");
	ok(recv_n(c) == 7, "lend: the client gets the answer whole, once");
	ok(recv_n(c) == 2, "lend: the call behind it is answered after it");
	vc = vc ? varlink_call_unref(vc) : NULL;

	vc = held_call(c, 3);
	ok(vc && varlink_call_lend_socket(vc) >= 0, "lend: again, on the same connection");
	if (vc) {
		varlink_call_lend_end(vc);
		ok(varlink_call_reply(vc, json_tokener_parse("{\"n\":8}")) == 0,
		   "lend: taken back unused, the call answers as usual");
	}
	ok(recv_n(c) == 8, "lend: and the client gets that answer");
	vc = vc ? varlink_call_unref(vc) : NULL;

	vc = held_call(c, 4);
	if (vc && varlink_call_lend_socket(vc) >= 0)
		varlink_call_lent_lost(vc);
	ok(vc && client_wait_eof(c, 3000),
	   "lend: a borrower that cannot say what it wrote ends the connection");
	vc = vc ? varlink_call_unref(vc) : NULL;
	pump(10);
	ok(varlink_server_n_active(server) == 0, "lend: no call left behind");
	client_free(c);
}
