/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmountd-client against a scripted peer on a socketpair: framing, fds in
 * both directions, error replies, "more" streams, split and coalesced
 * reads, timeouts, a peer that hangs up, and the readable error lines.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "libmountd-client.h"
#include "tap.h"
#include "util.h"

/* ---- the peer: reads one request, answers with canned bytes ------------- */

static json_object *peer_read(int fd, int *ret_fds, size_t *ret_n)
{
	static char buf[65536];
	size_t len = 0;
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int) * 8)];
	} control;

	*ret_n = 0;
	for (;;) {
		struct iovec iov = {buf + len, sizeof(buf) - len - 1};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = &control,
				    .msg_controllen = sizeof(control)};
		ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);

		if (n <= 0)
			return NULL;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_type == SCM_RIGHTS) {
				size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				memcpy(ret_fds + *ret_n, CMSG_DATA(c), k * sizeof(int));
				*ret_n += k;
			}
		len += (size_t)n;
		if (memchr(buf, 0, len))
			return json_tokener_parse(buf);
	}
}

static void peer_send(int fd, const char *text, size_t len, int send_fd)
{
	struct iovec iov = {(void *)text, len};
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} control = {};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (send_fd >= 0) {
		struct cmsghdr *c;
		mh.msg_control = &control;
		mh.msg_controllen = sizeof(control);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &send_fd, sizeof(int));
	}
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) != (ssize_t)len)
		_exit(90);
}

#define SEND(fd, lit) peer_send(fd, lit, sizeof(lit), -1) /* includes the NUL */

static void peer(int fd)
{
	json_object *m;
	int fds[8];
	size_t n;

	/* 1: a plain call; check what arrived, answer with an fd. */
	m = peer_read(fd, fds, &n);
	if (!m)
		_exit(91);
	{
		const char *method = json_object_get_string(json_object_object_get(m, "method"));
		json_object *p = json_object_object_get(m, "parameters");
		struct stat st;
		char reply[256];

		/* The fd sent must be the very file: report its inode. */
		if (n != 1 || fstat(fds[0], &st) < 0)
			_exit(92);
		snprintf(reply, sizeof(reply),
			 "{\"parameters\":{\"method\":\"%s\",\"size\":%s,\"ino\":%llu,\"fd\":0}}",
			 method, json_object_get_string(json_object_object_get(p, "size")),
			 (unsigned long long)st.st_ino);
		peer_send(fd, reply, strlen(reply) + 1, fds[0]);
		close(fds[0]);
	}
	json_object_put(m);

	/* 2: an error, written in two pieces. */
	m = peer_read(fd, fds, &n);
	json_object_put(m);
	{
		static const char e[] =
			"{\"error\":\"io.mountd.Mount.MountFailed\",\"parameters\":{\"step\":"
			"\"fsconfig:size\",\"errno\":22,\"errnoName\":\"EINVAL\",\"messages\":[{"
			"\"step\":\"fsconfig:size\",\"level\":\"e\",\"text\":\"tmpfs: Bad value "
			"for "
			"'size'\"}]}}";
		peer_send(fd, e, 20, -1);
		usleep(20000);
		peer_send(fd, e + 20, sizeof(e) - 20, -1);
	}

	/* 3: a "more" stream, all replies in one write. */
	m = peer_read(fd, fds, &n);
	if (!json_object_get_boolean(json_object_object_get(m, "more")))
		_exit(93);
	json_object_put(m);
	SEND(fd, "{\"parameters\":{\"event\":\"ready\"},\"continues\":true}\0"
		 "{\"parameters\":{\"event\":\"added\"},\"continues\":true}\0"
		 "{\"parameters\":{\"event\":\"gone\"}}");

	/* 4: no answer: the client must time out. */
	m = peer_read(fd, fds, &n);
	json_object_put(m);
	usleep(400000);
	/* 5: then hang up. */
	_exit(0);
}

/* ---- the client side ---------------------------------------------------- */

typedef struct Stream {
	int n;
	char events[64];
} Stream;

static int on_reply(MountdClient *c, MountdReply *r, void *userdata)
{
	Stream *s = userdata;

	s->n++;
	strncat(s->events, json_object_get_string(json_object_object_get(r->parameters, "event")),
		sizeof(s->events) - strlen(s->events) - 2);
	strcat(s->events, ",");
	return 0;
}

/* Errors that need no peer: each reads as a sentence naming its error. */
static void test_error_strings(void)
{
	MountdReply r = {
		.error = strdup("io.mountd.Mount.MessageTooLarge"),
		.parameters = json_tokener_parse("{\"limit\":16777216}"),
	};
	_cleanup_free_ char *line = mountd_reply_error_string(&r);

	ok(streq_ptr(line, "request larger than mountd reads (16777216 bytes) "
			   "[io.mountd.Mount.MessageTooLarge]"),
	   "MessageTooLarge names the limit: %s", strna(line));
	mountd_reply_done(&r);
}

int main(void)
{
	_cleanup_(mountd_client_freep) MountdClient *c = NULL;
	MountdReply r = {};
	int sv[2], status, fd, k;
	struct stat st;
	pid_t pid;

	signal(SIGPIPE, SIG_IGN);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return 1;
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		peer(sv[1]);
	}
	close(sv[1]);

	ok(mountd_client_new_from_fd(&c, sv[0]) == 0, "wrap a socket");

	/* 1 */
	{
		_cleanup_json_ json_object *p = json_object_new_object();
		_cleanup_close_ int f = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

		json_object_object_add(p, "size", json_object_new_int(42));
		k = mountd_client_call(c, "Info", p, &f, 1, &r);
		ok(k == 0 && !r.error, "call returns a reply");
		ok(streq_ptr(json_object_get_string(json_object_object_get(r.parameters, "method")),
			     "io.mountd.Mount.Info"),
		   "unqualified method gets the interface prefix");
		ok(json_object_get_int(json_object_object_get(r.parameters, "size")) == 42,
		   "parameters arrive");
		ok(r.n_fds == 1, "an fd comes back with the reply");
		fd = mountd_reply_take_fd(&r, 0);
		ok(fd >= 0 && fstat(fd, &st) == 0 &&
			   (unsigned long long)st.st_ino ==
				   (unsigned long long)json_object_get_int64(
					   json_object_object_get(r.parameters, "ino")),
		   "the fd sent is the fd received, both ways");
		ok(mountd_reply_take_fd(&r, 0) == -EBADF && mountd_reply_take_fd(&r, 1) == -ENXIO,
		   "taking an fd twice or past the end fails");
		safe_close(fd);
		mountd_reply_done(&r);
	}

	/* 2 */
	{
		_cleanup_free_ char *line = NULL;

		k = mountd_client_call(c, "Create", NULL, NULL, 0, &r);
		ok(k == 0 && streq_ptr(r.error, "io.mountd.Mount.MountFailed"),
		   "an error reply split over two reads");
		line = mountd_reply_error_string(&r);
		ok(streq_ptr(line, "fsconfig:size failed: EINVAL (Invalid argument): tmpfs: Bad "
				   "value for 'size' [io.mountd.Mount.MountFailed]"),
		   "the error as one readable line");
		if (line)
			printf("# %s\n", line);
		mountd_reply_done(&r);
	}

	/* 3 */
	{
		Stream s = {};

		k = mountd_client_call_more(c, "Watch", NULL, NULL, 0, on_reply, &s);
		ok(k == 0 && s.n == 3 && streq(s.events, "ready,added,gone,"),
		   "a more stream read in one piece, ends at the last reply");
	}

	/* 4, 5 */
	mountd_client_set_timeout(c, 100000);
	k = mountd_client_call(c, "List", NULL, NULL, 0, &r);
	ok(k == -ETIMEDOUT, "a silent server times out");
	k = mountd_client_call(c, "List", NULL, NULL, 0, &r);
	ok(k == -ETIMEDOUT, "the connection stays failed after a timeout");

	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the peer saw what it expected");

	{
		_cleanup_(mountd_client_freep) MountdClient *d = NULL;
		int p[2];

		socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p);
		close(p[1]);
		mountd_client_new_from_fd(&d, p[0]);
		k = mountd_client_call(d, "List", NULL, NULL, 0, &r);
		ok(k == -ECONNRESET, "a server that hung up: ECONNRESET");
	}
	{
		MountdClient *d = NULL;

		ok(mountd_client_connect(&d, "/nonexistent/sock") == -ENOENT,
		   "connecting to a missing socket: ENOENT");
		setenv(MOUNTD_SOCKET_ENV, "/tmp/x", 1);
		ok(streq(mountd_socket_path(NULL), "/tmp/x") &&
			   streq(mountd_socket_path("/y"), "/y"),
		   "socket path: argument, then $MOUNTD_SOCKET");
		unsetenv(MOUNTD_SOCKET_ENV);
		ok(streq(mountd_socket_path(NULL), MOUNTD_SOCKET_DEFAULT),
		   "socket path: the default");
	}

	test_error_strings();
	return tap_done();
}
