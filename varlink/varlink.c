/*
 * Varlink server on sd-event; see varlink.h for the contract and
 * varlink-internal.h for how it is built.  This file is the server itself:
 * listening, accepting connections, and its settings.
 */
/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Varlink server on sd-event; see varlink.h for the contract.
 *
 * Per connection: bytes are read into an input buffer, every complete
 * (NUL-terminated) message is parsed into a request queue right away, and
 * requests are dispatched one at a time from a deferred event source, so a
 * method that answers synchronously never re-enters the dispatcher.  Answers
 * are queued as output messages and written from the same deferred source or
 * on EPOLLOUT; an answer never does I/O itself, so nothing a method calls can
 * tear down the connection under it.
 */

#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <systemd/sd-daemon.h>

#include "json-dispatch.h"
#include "principal.h"
#include "varlink-internal.h"

/* How long accepting pauses when the process is out of fds: the listener
 * stays readable, so retrying at once would spin the loop. */
#define ACCEPT_RETRY_USEC (100 * 1000)

static void listener_free(Listener *l)
{
	sd_event_source_disable_unref(l->source);
	sd_event_source_disable_unref(l->retry);
	safe_close(l->fd);
	safe_close(l->spare);
	free(l);
}

static int spare_open(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* uc, pidfd (taken), principal: the peer, as on_accept() found it. */
static int conn_new(VarlinkServer *s, int fd, const struct ucred *uc, int pidfd, uid_t principal)
{
	_cleanup_close_ int owned = fd, owned_pidfd = pidfd;
	Connection *conn = calloc(1, sizeof(*conn));
	int r;

	if (!conn)
		return -ENOMEM;
	conn->n_ref = 1;
	conn->server = s;
	STAILQ_INIT(&conn->requests);
	STAILQ_INIT(&conn->output);
	conn->fd = TAKE_FD(owned);
	conn->pidfd = -EBADF;

	conn->ucred = *uc;
	conn->pidfd = TAKE_FD(owned_pidfd);
	conn->principal = principal;

	r = sd_event_add_io(s->event, &conn->io, conn->fd, EPOLLIN, vl_on_conn_io, conn);
	if (r >= 0)
		r = sd_event_add_defer(s->event, &conn->defer, vl_on_conn_defer, conn);
	if (r >= 0)
		r = sd_event_source_set_enabled(conn->defer, SD_EVENT_OFF);
	if (r < 0) {
		vl_conn_unref(conn);
		return r;
	}

	conn->linked = true;
	LIST_INSERT_HEAD(&s->connections, conn, link);
	s->n_connections++;
	s->idle_since = 0;
	return 0;
}

static int on_accept_retry(sd_event_source *src, uint64_t usec, void *userdata);

/* Out of fds (errno): accepting pauses, the connections wait in the
 * backlog until an fd frees up, and the clients already connected are
 * still served (their requests fail where they need an fd, naming EMFILE). */
static void listener_pause(Listener *l)
{
	VarlinkServer *s = l->server;

	if (!l->out_of_fds)
		log_vl(SD_WARNING, "accept failed: %m; retrying every %u ms",
		       (unsigned)(ACCEPT_RETRY_USEC / 1000));
	l->out_of_fds = true;
	(void)sd_event_source_set_enabled(l->source, SD_EVENT_OFF);
	if (!l->retry)
		(void)sd_event_add_time_relative(s->event, &l->retry, CLOCK_MONOTONIC,
						 ACCEPT_RETRY_USEC, 0, on_accept_retry, l);
	else
		(void)sd_event_source_set_time_relative(l->retry, ACCEPT_RETRY_USEC);
	(void)sd_event_source_set_enabled(l->retry, SD_EVENT_ONESHOT);
}

static int on_accept_retry(sd_event_source *src, uint64_t usec, void *userdata)
{
	Listener *l = userdata;

	/* The spare first: without it the next peer may get no pidfd. */
	if (l->spare < 0)
		l->spare = spare_open();
	if (l->spare < 0 && (errno == EMFILE || errno == ENFILE)) {
		listener_pause(l);
		return 0;
	}
	return sd_event_source_set_enabled(l->source, SD_EVENT_ON);
}

/* 0 while the process lives, ESRCH once it has exited, else the errno
 * of asking: a signal arriving meanwhile (EINTR) is no exit. */
static int vl_pidfd_exited(int pidfd)
{
	int r;

	do
		r = poll(&(struct pollfd){.fd = pidfd, .events = POLLIN}, 1, 0);
	while (r < 0 && errno == EINTR);
	return r < 0 ? errno : r > 0 ? ESRCH : 0;
}

static int on_accept(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	Listener *l = userdata;
	VarlinkServer *s = l->server;

	_cleanup_close_ int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (cfd < 0 && (errno == EMFILE || errno == ENFILE)) {
		listener_pause(l);
		return 0;
	}
	if (cfd >= 0 && l->out_of_fds) {
		l->out_of_fds = false;
		log_vl(SD_NOTICE, "accepting again");
	}
	if (cfd < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			log_vl(SD_WARNING, "accept failed: %m");
		return 0;
	}
	/* The limits keep users from crowding each other (and root) out;
	 * root itself is not counted: it could do whatever it asks anyway. */
	struct ucred uc;
	socklen_t len = sizeof(uc);
	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0 || len != sizeof(uc))
		return 0;
	/* The peer's identity is its process, pinned now: a peer that has
	 * exited already has none (SO_PEERPIDFD fails), and its pid may
	 * name another process by the time a call asks whose namespace is
	 * the caller's.  Such a connection is not served. */
	_cleanup_close_ int pidfd = -EBADF;
	len = sizeof(pidfd);
	/* 6.16+ hands out a pidfd of an exited peer too: a pidfd that
	 * polls readable is a process that has exited. */
	int err = getsockopt(cfd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0 ? errno : 0;
	if ((err == EMFILE || err == ENFILE) && l->spare >= 0) {
		/* The peer took the last fd: the spare makes room for its
		 * pidfd, and accepting pauses as if accept() had run out. */
		l->spare = safe_close(l->spare);
		len = sizeof(pidfd);
		err = getsockopt(cfd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0 ? errno : 0;
		errno = EMFILE;
		listener_pause(l);
	}
	if (err == 0)
		err = vl_pidfd_exited(pidfd);
	if (err != 0) {
		log_peer(s, uc.uid, SD_NOTICE,
			 "refusing a connection of pid %d (uid %u): its process cannot be pinned "
			 "(%s)",
			 (int)uc.pid, (unsigned)uc.uid, strerror(err));
		return 0;
	}
	/* Counted by the user who answers for the peer: a user's subuids
	 * are that user's (principal.h). */
	uid_t principal = principal_of_pidfd(pidfd, uc.uid);
	if (principal != 0) {
		unsigned mine = 0;
		Connection *c;

		LIST_FOREACH(c, &s->connections, link)
		mine += c->principal == principal;
		if (s->n_connections >= s->max_connections) {
			log_peer(s, principal, SD_WARNING,
				 "too many connections (%u), refusing pid %d (uid %u, user %u)",
				 s->n_connections, (int)uc.pid, (unsigned)uc.uid,
				 (unsigned)principal);
			return 0;
		}
		if (mine >= s->max_connections_per_uid) {
			log_peer(s, principal, SD_WARNING,
				 "user %u has %u connections already, refusing pid %d (uid %u)",
				 (unsigned)principal, mine, (int)uc.pid, (unsigned)uc.uid);
			return 0;
		}
	}
	int r = conn_new(s, TAKE_FD(cfd), &uc, TAKE_FD(pidfd), principal);
	if (r < 0)
		log_vl(SD_WARNING, "cannot set up connection: %s", strerror(-r));
	return 0;
}

/* ------------------------------------------------------------ server */

int varlink_server_new(VarlinkServer **ret, sd_event *event, const char *vendor,
		       const char *product, const char *version, const char *url)
{
	_cleanup_(varlink_server_freep) VarlinkServer *s = NULL;
	int r;

	if (!ret || !vendor || !product || !version || !url)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	STAILQ_INIT(&s->interfaces);
	SLIST_INIT(&s->listeners);
	LIST_INIT(&s->connections);
	if (event)
		s->event = sd_event_ref(event);
	else if ((r = sd_event_default(&s->event)) < 0)
		return r;
	s->max_message_size = VARLINK_DEFAULT_MAX_MESSAGE_SIZE;
	s->max_fds = VARLINK_DEFAULT_MAX_FDS;
	s->max_connections = VARLINK_DEFAULT_MAX_CONNECTIONS;
	s->max_connections_per_uid = VARLINK_DEFAULT_MAX_CONNECTIONS_PER_UID;
	s->max_queued = VARLINK_DEFAULT_MAX_QUEUED;
	s->idle_since = now_usec();

	s->vendor = strdup(vendor);
	s->product = strdup(product);
	s->version = strdup(version);
	s->url = strdup(url);
	if (!s->vendor || !s->product || !s->version || !s->url)
		return -ENOMEM;

	r = sd_event_add_defer(s->event, &s->idle_defer, vl_on_idle_check, s);
	if (r < 0)
		return r;
	r = sd_event_source_set_enabled(s->idle_defer, SD_EVENT_OFF);
	if (r < 0)
		return r;

	*ret = TAKE_PTR(s);
	return 0;
}

VarlinkServer *varlink_server_free(VarlinkServer *s)
{
	if (!s)
		return NULL;

	while (!SLIST_EMPTY(&s->listeners)) {
		Listener *l = SLIST_FIRST(&s->listeners);
		SLIST_REMOVE_HEAD(&s->listeners, link);
		listener_free(l);
	}
	/* Calls the daemon still holds keep their connection object, detached
	 * from the server: answering them gives -ENOTCONN. */
	while (!LIST_EMPTY(&s->connections)) {
		Connection *conn = LIST_FIRST(&s->connections);
		vl_conn_ref(conn);
		if (conn->active && !conn->active->answered)
			s->n_pending_calls--;
		conn->active = NULL;
		vl_conn_unlink(conn);
		conn->server = NULL;
		vl_conn_unref(conn);
	}
	while (!STAILQ_EMPTY(&s->interfaces)) {
		Interface *i = STAILQ_FIRST(&s->interfaces);
		STAILQ_REMOVE_HEAD(&s->interfaces, link);
		free(i->name);
		free(i);
	}
	sd_event_source_disable_unref(s->idle_defer);
	sd_event_unref(s->event);
	free(s->vendor);
	free(s->product);
	free(s->version);
	free(s->url);
	free(s->errno_error);
	free(s->too_large_error);
	free(s->reply_too_large_error);
	free(s->held_error);
	free(s);
	return NULL;
}

/* The first non-comment line must be "interface <name>". */
static int idl_interface_name(const char *idl, char **ret)
{
	const char *p = idl;

	while (*p) {
		p += strspn(p, " \t\r\n");
		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		break;
	}
	if (strncmp(p, "interface", 9) != 0 || !strchr(" \t", p[9]))
		return -EINVAL;
	p += 9;
	p += strspn(p, " \t");
	size_t n = strcspn(p, " \t\r\n#");
	if (n == 0 || n > 255)
		return -EINVAL;
	/* Reverse-domain name: labels of [A-Za-z0-9-], at least two. */
	bool dot = false;
	for (size_t i = 0; i < n; i++) {
		char ch = p[i];
		if (ch == '.') {
			if (i == 0 || i == n - 1 || p[i - 1] == '.')
				return -EINVAL;
			dot = true;
		} else if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			     (ch >= '0' && ch <= '9') || ch == '-'))
			return -EINVAL;
	}
	if (!dot)
		return -EINVAL;
	*ret = strndup(p, n);
	return *ret ? 0 : -ENOMEM;
}

int varlink_server_add_interface(VarlinkServer *s, const char *idl, const VarlinkMethod methods[],
				 void *userdata)
{
	_cleanup_free_ char *name = NULL;

	if (!s || !idl || !methods)
		return -EINVAL;
	int r = idl_interface_name(idl, &name);
	if (r < 0)
		return r;
	if (streq(name, "org.varlink.service"))
		return -EEXIST;
	Interface *i;
	STAILQ_FOREACH(i, &s->interfaces, link)
	if (streq(i->name, name))
		return -EEXIST;

	i = calloc(1, sizeof(*i));
	if (!i)
		return -ENOMEM;
	i->name = TAKE_PTR(name);
	i->idl = idl;
	i->methods = methods;
	i->userdata = userdata;
	STAILQ_INSERT_TAIL(&s->interfaces, i, link);
	return 0;
}

int varlink_server_listen_fd(VarlinkServer *s, int fd)
{
	_cleanup_close_ int owned = fd;

	if (!s || fd < 0)
		return -EINVAL;
	/* Errors with an errno need a name from the service's own interface. */
	if (!s->errno_error)
		return -EDESTADDRREQ;
	if (s->draining)
		return -ESHUTDOWN;
	/* accept() must not block when a client vanished between the wakeup
	 * and the call. */
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return negative_errno();

	Listener *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->server = s;
	l->spare = spare_open();
	if (l->spare < 0) {
		int r = negative_errno();

		free(l);
		return r;
	}
	int r = sd_event_add_io(s->event, &l->source, fd, EPOLLIN, on_accept, l);
	if (r < 0) {
		safe_close(l->spare);
		free(l);
		return r;
	}
	l->fd = TAKE_FD(owned);
	SLIST_INSERT_HEAD(&s->listeners, l, link);
	return 0;
}

/* Whether some process (systemd's socket unit, another instance) listens
 * on the AF_UNIX socket at path, from /proc/net/unix rather than by
 * connecting, which would start a socket-activated service. */
static bool socket_path_listening(const char *path)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/net/unix", "re");
	char line[4200], p[4097];
	unsigned flags;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		/* Num RefCount Protocol Flags Type St Inode Path; __SO_ACCEPTCON */
		if (sscanf(line, "%*s %*s %*s %x %*s %*s %*s %4096s", &flags, p) == 2 &&
		    (flags & 0x10000) && streq(p, path))
			return true;
	return false;
}

int varlink_server_listen_path(VarlinkServer *s, const char *path, mode_t mode)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;

	if (!s || !path)
		return -EINVAL;
	if (!s->errno_error)
		return -EDESTADDRREQ;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);

	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return negative_errno();
	/* A socket file left by a previous run would make bind() fail; one
	 * that is still served is not ours to take. */
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
		if (socket_path_listening(path))
			return -EADDRINUSE;
		(void)unlink(path);
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return negative_errno();
	/* chmod before listen(): nobody can connect in between. */
	if (chmod(path, mode) < 0)
		return negative_errno();
	if (listen(fd, SOMAXCONN) < 0)
		return negative_errno();
	return varlink_server_listen_fd(s, TAKE_FD(fd));
}

int varlink_server_listen_fds(VarlinkServer *s, int n)
{
	for (int fd = SD_LISTEN_FDS_START; fd < SD_LISTEN_FDS_START + n; fd++) {
		if (sd_is_socket(fd, AF_UNIX, SOCK_STREAM, 1) <= 0) {
			log_vl(SD_WARNING, "passed fd %d is not a listening AF_UNIX stream socket",
			       fd);
			return -EBADF;
		}
		/* Not for the workers, nor anything they exec. */
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
			return negative_errno();
		int r = varlink_server_listen_fd(s, fd);
		if (r < 0)
			return r;
	}
	return n;
}

int varlink_server_listen_auto(VarlinkServer *s, const char *fallback_path)
{
	int n = sd_listen_fds(true);
	if (n < 0)
		return n;
	if (n == 0) {
		if (!fallback_path)
			return -ENOENT;
		int r = varlink_server_listen_path(s, fallback_path, 0666);
		return r < 0 ? r : 1;
	}
	return varlink_server_listen_fds(s, n);
}

void varlink_server_stop_accepting(VarlinkServer *s)
{
	if (!s || s->draining)
		return;
	s->draining = true;
	while (!SLIST_EMPTY(&s->listeners)) {
		Listener *l = SLIST_FIRST(&s->listeners);
		SLIST_REMOVE_HEAD(&s->listeners, link);
		listener_free(l);
	}
	Connection *c;
	LIST_FOREACH(c, &s->connections, link)
	{
		vl_conn_update_events(c);
		vl_conn_schedule(c);
	}
	vl_server_schedule_idle_check(s);
}

bool varlink_server_is_draining(VarlinkServer *s)
{
	return s && s->draining;
}

unsigned varlink_server_n_active(VarlinkServer *s)
{
	return s ? s->n_pending_calls + s->n_queued : 0;
}

unsigned varlink_server_n_connections(VarlinkServer *s)
{
	return s ? s->n_connections : 0;
}

int varlink_server_set_idle_callback(VarlinkServer *s, void (*cb)(VarlinkServer *, void *),
				     void *userdata)
{
	if (!s)
		return -EINVAL;
	s->idle_cb = cb;
	s->idle_userdata = userdata;
	return 0;
}

uint64_t varlink_server_idle_since(VarlinkServer *s)
{
	if (!s || s->n_connections > 0 || s->n_pending_calls > 0)
		return 0;
	return s->idle_since;
}

int varlink_server_set_errno_error(VarlinkServer *s, const char *error)
{
	if (!s || !error || !strchr(error, '.'))
		return -EINVAL;
	return free_and_strdup(&s->errno_error, error);
}

int varlink_server_set_held_limit_error(VarlinkServer *s, const char *error)
{
	if (!s || !error || !strchr(error, '.'))
		return -EINVAL;
	return free_and_strdup(&s->held_error, error);
}

int varlink_server_set_reply_too_large_error(VarlinkServer *s, const char *error)
{
	if (!s || !error || !strchr(error, '.'))
		return -EINVAL;
	return free_and_strdup(&s->reply_too_large_error, error);
}

int varlink_server_set_too_large_error(VarlinkServer *s, const char *error)
{
	if (!s || !error || !strchr(error, '.'))
		return -EINVAL;
	return free_and_strdup(&s->too_large_error, error);
}

size_t varlink_server_get_max_message_size(VarlinkServer *s)
{
	return s ? s->max_message_size : VARLINK_DEFAULT_MAX_MESSAGE_SIZE;
}

void varlink_server_set_max_message_size(VarlinkServer *s, size_t size)
{
	if (s && size > 0)
		s->max_message_size = size;
}

void varlink_server_set_max_fds(VarlinkServer *s, unsigned n)
{
	if (s)
		s->max_fds = MIN(n, SCM_MAX_FDS);
}

void varlink_server_set_max_connections(VarlinkServer *s, unsigned n)
{
	if (s && n > 0)
		s->max_connections = n;
}

void varlink_server_set_max_connections_per_uid(VarlinkServer *s, unsigned n)
{
	if (s && n > 0)
		s->max_connections_per_uid = n;
}

void varlink_server_set_peer_log(VarlinkServer *s, VarlinkPeerLog log, void *userdata)
{
	if (!s)
		return;
	s->peer_log = log;
	s->peer_log_userdata = userdata;
}
