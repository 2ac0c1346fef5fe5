/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-varlink: the limits per user and in all (queued input, answers held,
 * connections) and fds with credentials, from clients of other uids.
 */

#include "test-varlink.h"

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
	/* Bounded for a test under valgrind on a loaded machine. */
	uint64_t end = now_ms() + 30000;
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
 * does not read ('S' when sent) until told to (a byte on go: the server has
 * answered all of them), then it reads everything ('A': every call
 * answered, some with the error) and calls again on a seventh (its
 * answer). */
static pid_t held_client(int report, int go)
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
	if (write(report, &c, 1) != 1 || read(go, &c, 1) != 1)
		_exit(2);
	/* Read everything, until nothing comes for 3 s: the answers
	 * (NUL-terminated) and the errors among them. */
	{
		static char buf[7][1 << 21];
		size_t len[6] = {0}, msgs = 0, helds = 0;

		for (;;) {
			struct pollfd p[6];

			for (int i = 0; i < 6; i++)
				p[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
			if (poll(p, 6, 3000) <= 0)
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

void test_queued_per_uid(const char *dir)
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
void test_held_per_uid(const char *dir)
{
	_cleanup_(varlink_server_freep) VarlinkServer *s = NULL;
	char saved[sizeof(sock_path)];
	char sent, all, drained;
	uint64_t end;
	pid_t pid;
	int p[2], go[2], settled;

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0 || pipe2(go, O_CLOEXEC) < 0 ||
	    side_server_new(dir, "held.sock", saved, &s) < 0 ||
	    varlink_server_set_held_limit_error(s, "org.example.Test.Held") < 0 ||
	    varlink_server_listen_path(s, sock_path, 0666) < 0) {
		ok(false, "setup for the held limit: %m");
		memcpy(sock_path, saved, sizeof(sock_path));
		return;
	}
	varlink_server_set_max_message_size(s, MAX_MSG);
	pid = held_client(p[1], go[0]);
	sent = await_report(p[0]);
	/* The user has sent everything and reads nothing: the server does
	 * what it can (answers, errors past the limit, then backpressure) and
	 * comes to rest, with nothing left to do until the user reads. */
	end = now_ms() + 60000;
	while ((settled = sd_event_run(event, 0)) != 0 && now_ms() < end)
		;
	ok(settled == 0, "the server comes to rest with a user that does not read");
	{
		Client *c = client_new();
		json_object *a;

		a = call(c,
			 "{\"method\":\"org.example.Test.Big\",\"parameters\":{\"size\":60000}}");
		ok(a && !jhas(a, "error"), "root's answer is sent while a user's are held");
		json_object_put(a);
		client_free(c);
	}
	if (write(go[1], "G", 1) != 1)
		ok(false, "tell the user to read: %m");
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
	close(go[0]);
	close(go[1]);
	unlink(sock_path);
	chmod(dir, 0700);
	memcpy(sock_path, saved, sizeof(sock_path));
}

void test_connection_limits(const char *dir)
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
void test_fds_with_credentials(const char *dir)
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
