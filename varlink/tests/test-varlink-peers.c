/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-varlink: peers that misbehave or leave (bad input, hangups, a peer
 * gone before accept), the idle callback and drain, the API's edges and
 * socket activation.
 */

#include "test-varlink.h"

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

void test_bad_input(void)
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

void test_hangup(void)
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

void test_idle_and_drain(void)
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

void test_api_edges(const char *dir)
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

void test_listen_auto(const char *dir)
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

/* A peer whose process exited before accept() has no identity to pin: the
 * connection is closed unanswered, however long its socket is kept. */
void test_peer_gone_before_accept(void)
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
