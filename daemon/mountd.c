/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountd: serves io.mountd.Mount on /run/mountd/io.mountd.Mount (or on the
 * sockets systemd passes).  SIGTERM/SIGINT: stop accepting, answer what was
 * already read, end the Watch streams, exit.  When socket-activated it also
 * exits after MOUNTD_IDLE_SEC (default 30) quiet seconds, since systemd will
 * start it again on the next connection.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "front-bus.h"
#include "executor-caps.h"
#include "sys-mnt-lock.h"
#include "executor.h"
#include "ops-leftovers.h"
#include "log.h"
#include "request-audit.h"
#include "request-peerlog.h"
#include "request-ratelimit.h"
#include "request.h"
#include "util.h"
#include "authorize.h"
#include "front-varlink.h"
#include "version.h"
#include "ops-watch-events.h"
#include "varlink.h"

#define SOCKET_PATH "/run/mountd/io.mountd.Mount"

typedef struct Daemon {
	sd_event *event;
	VarlinkServer *server;
	BusFront *bus; /* NULL without a system bus */
	bool socket_activated;
	bool stopping;
	uint64_t idle_usec;
	sd_event_source *idle_timer;
	uint64_t quiet_since;
	sd_event_source *trim_timer;
} Daemon;

/* After a burst glibc keeps the heap it freed (connections' buffers, JSON)
 * for itself; hand it back once mountd has been quiet for this long, so that
 * an idle mountd's RSS is what it holds, not what it once needed. */
#define TRIM_AFTER_USEC (1ULL * 1000 * 1000)

static int on_trim_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	Daemon *d = userdata;

	if (request_pending() > 0)
		return 0; /* the end of the last one arms it again */
	if (usec < d->quiet_since + TRIM_AFTER_USEC) {
		int r = sd_event_source_set_time(s, d->quiet_since + TRIM_AFTER_USEC);

		return r < 0 ? r : sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	}
	(void)malloc_trim(0);
	return 0;
}

/* Called whenever mountd runs out of work: cheap, as it is called after
 * every request of a lone client. */
static void schedule_trim(Daemon *d)
{
	int enabled = SD_EVENT_OFF;

	(void)sd_event_now(d->event, CLOCK_MONOTONIC, &d->quiet_since);
	if (!d->trim_timer ||
	    (sd_event_source_get_enabled(d->trim_timer, &enabled) >= 0 && enabled != SD_EVENT_OFF))
		return;
	if (sd_event_source_set_time(d->trim_timer, d->quiet_since + TRIM_AFTER_USEC) >= 0)
		(void)sd_event_source_set_enabled(d->trim_timer, SD_EVENT_ONESHOT);
}

static void maybe_exit(Daemon *d)
{
	/* A job whose client went away still finishes: half a change is
	 * worse than one nobody hears about. */
	if (d->stopping && varlink_server_n_connections(d->server) == 0 &&
	    bus_front_is_drained(d->bus) && request_pending() == 0)
		(void)sd_event_exit(d->event, 0);
}

static void on_jobs_done(void *userdata)
{
	schedule_trim(userdata);
	maybe_exit(userdata);
}

static void on_bus_drained(BusFront *b, void *userdata)
{
	maybe_exit(userdata);
}

static const char *policy_path(void)
{
	return getenv("MOUNTD_POLICY") ?: POLICY_DEFAULT_PATH;
}

/* SIGHUP (systemctl reload mountd): read the policy again. */
static int on_reload(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	(void)sd_notify(0, "RELOADING=1\nSTATUS=Reloading the policy");
	if (auth_policy_load(policy_path()) >= 0)
		log_info("policy %s loaded", policy_path());
	(void)sd_notify(0, "READY=1\nSTATUS=Serving io.mountd.Mount");
	return 0;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	Daemon *d = userdata;

	if (d->stopping)
		return 0;
	d->stopping = true;
	(void)sd_notify(0, "STOPPING=1\nSTATUS=Finishing requests already read");
	varlink_server_stop_accepting(d->server);
	bus_front_stop(d->bus, on_bus_drained, d);
	/* Streams never end on their own. */
	watch_end_all();
	maybe_exit(d);
	return 0;
}

static int on_idle_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	Daemon *d = userdata;
	uint64_t since = varlink_server_idle_since(d->server);

	if (since > 0)
		since = MAX(since, bus_front_last_activity(d->bus));
	/* A running change is activity, whoever waits for it. */
	if (request_pending() > 0)
		since = usec;
	if (since > 0 && usec >= since + d->idle_usec) {
		/* Idle for the whole period: leave; systemd keeps the socket. */
		d->stopping = true;
		(void)sd_notify(0, "STOPPING=1\nSTATUS=Idle, exiting");
		varlink_server_stop_accepting(d->server);
		bus_front_stop(d->bus, on_bus_drained, d);
		maybe_exit(d);
		return 0;
	}
	/* A one-shot source is off once dispatched: arm it again. */
	int r = sd_event_source_set_time(s, (since > 0 ? since : usec) + d->idle_usec);
	return r < 0 ? r : sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static void on_server_idle(VarlinkServer *s, void *userdata)
{
	schedule_trim(userdata);
	maybe_exit(userdata);
}

/* A number (seconds, a count) from the environment variable name, or def
 * when unset. */
static int env_number(const char *name, unsigned long def, unsigned long *ret)
{
	const char *e = getenv(name);
	char *end;

	*ret = def;
	if (!e)
		return 0;
	errno = 0;
	*ret = strtoul(e, &end, 10);
	return errno || *end || end == e ? -EINVAL : 0;
}

/* Each non-root uid's call rate (request-ratelimit.h): MOUNTD_RATE_LIMIT_BURST
 * calls (0: no limit) per MOUNTD_RATE_LIMIT_INTERVAL_SEC, as systemd names
 * its own. */
static int setup_rate_limit(Daemon *d)
{
	unsigned long burst, sec;

	if (env_number("MOUNTD_RATE_LIMIT_BURST", RATELIMIT_BURST_DEFAULT, &burst) < 0 ||
	    env_number("MOUNTD_RATE_LIMIT_INTERVAL_SEC", RATELIMIT_INTERVAL_USEC_DEFAULT / 1000000,
		       &sec) < 0 ||
	    burst > UINT_MAX || (burst > 0 && (sec == 0 || sec > 24 * 3600))) {
		log_error("MOUNTD_RATE_LIMIT_BURST or _INTERVAL_SEC is not valid");
		return -EINVAL;
	}
	return ratelimit_setup(d->event, (unsigned)burst, (uint64_t)sec * 1000000);
}

/* Each user's journal budget (request-audit.h): MOUNTD_JOURNAL_BUDGET_BYTES
 * (0: none) per MOUNTD_JOURNAL_BUDGET_INTERVAL_SEC. */
static int setup_journal_budget(void)
{
	unsigned long bytes, sec;

	if (env_number("MOUNTD_JOURNAL_BUDGET_BYTES", AUDIT_BUDGET_BYTES_DEFAULT, &bytes) < 0 ||
	    env_number("MOUNTD_JOURNAL_BUDGET_INTERVAL_SEC",
		       AUDIT_BUDGET_INTERVAL_USEC_DEFAULT / 1000000, &sec) < 0 ||
	    bytes > UINT_MAX || (bytes > 0 && (sec == 0 || sec > 24 * 3600))) {
		log_error("MOUNTD_JOURNAL_BUDGET_BYTES or _INTERVAL_SEC is not valid");
		return -EINVAL;
	}
	return audit_budget_setup((unsigned)bytes, (uint64_t)sec * 1000000);
}

/* The message limit where MemoryMax= is tight.  A request is read whole
 * and parsed, into several times its size: at the default limit one
 * caller's message could take what the rest of mountd needs, and the
 * kernel's OOM killer would then take mountd with every request in flight.
 * A 32nd of the lowest memory.max on the way from mountd's cgroup up to
 * the root (a slice's limit binds its services as much as their own),
 * never more than the default; unlimited or unreadable ones change
 * nothing. */
static void limit_messages_to_memory(VarlinkServer *s)
{
	_cleanup_fclose_ FILE *cg = fopen("/proc/self/cgroup", "re");
	char line[512], where[512] = "", path[600];
	unsigned long long lowest = ULLONG_MAX, max;

	if (!cg || !fgets(line, sizeof(line), cg) || !startswith(line, "0::"))
		return;
	line[strcspn(line, "\n")] = 0;
	/* "/" too: in a cgroup namespace (mountd's own container) the root
	 * is the container's cgroup, and has its limit; the real root has
	 * no memory.max. */
	for (char *cgroup = line + 3; cgroup[0] == '/';) {
		_cleanup_fclose_ FILE *f = NULL;
		char *up;

		snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.max",
			 cgroup[1] ? cgroup : "");
		f = fopen(path, "re");
		/* "max": no limit here */
		if (f && fscanf(f, "%llu", &max) == 1 && max < lowest) {
			lowest = max;
			snprintf(where, sizeof(where), "%s", cgroup);
		}
		if (!cgroup[1])
			break;
		up = strrchr(cgroup, '/');
		up[up == cgroup ? 1 : 0] = 0;
	}
	if (lowest == ULLONG_MAX)
		return;
	max = MAX(lowest / 32, 64ULL * 1024);
	if (max >= VARLINK_DEFAULT_MAX_MESSAGE_SIZE)
		return;
	varlink_server_set_max_message_size(s, (size_t)max);
	log_info("memory.max %s: messages up to %llu bytes", where, max);
}

static int setup_idle_exit(Daemon *d)
{
	unsigned long sec;

	if (env_number("MOUNTD_IDLE_SEC", 30, &sec) < 0)
		return -EINVAL;
	if (sec == 0)
		return 0; /* disabled */
	d->idle_usec = (uint64_t)sec * 1000 * 1000;
	return sd_event_add_time_relative(d->event, &d->idle_timer, CLOCK_MONOTONIC, d->idle_usec,
					  0, on_idle_timer, d);
}

/* The listening sockets: systemd's (LISTEN_FDS), a container runtime's
 * (MOUNTD_LISTEN_FDS=N: fds 3 to N+2), or the path, bound here.  crun hands
 * systemd's sockets on with LISTEN_PID=1, which presumes a pid namespace of
 * the container's own; mountd's container has the host's, so its launcher
 * passes them this way (docs/CONTAINER.md). */
static int listen_sockets(Daemon *d)
{
	unsigned long n;

	if (env_number("MOUNTD_LISTEN_FDS", 0, &n) < 0 || n > 16)
		return -EINVAL;
	(void)unsetenv("MOUNTD_LISTEN_FDS");
	if (n > 0) {
		d->socket_activated = true;
		return varlink_server_listen_fds(d->server, (int)n);
	}
	d->socket_activated = sd_listen_fds(0) > 0;
	return varlink_server_listen_auto(d->server, SOCKET_PATH);
}

static void help(void)
{
	printf("Usage: %s [--help] [--version]\n\n"
	       "The mount manager daemon: serves io.mountd.Mount over varlink at %s\n"
	       "(and io.mountd1 on the system bus).  Normally started by systemd\n"
	       "(mountd.socket); run by hand it refuses to take a socket another\n"
	       "process serves.  Settings come from the environment: MOUNTD_POLICY,\n"
	       "MOUNTD_IDLE_SEC, MOUNTD_WORKER_IDLE_SEC, MOUNTD_LISTEN_FDS.  See mountd(8).\n",
	       program_invocation_short_name, SOCKET_PATH);
}

/* 1 to go on, 0 to exit successfully, negative to exit with usage error. */
static int parse_argv(int argc, char **argv)
{
	static const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{},
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
		switch (c) {
		case 'h':
			help();
			return 0;
		case 'V':
			printf("mountd %s\n", MOUNTD_VERSION);
			return 0;
		default:
			return -EINVAL;
		}
	if (optind < argc) {
		log_error("unexpected argument '%s'; see mountd --help", argv[optind]);
		return -EINVAL;
	}
	return 1;
}

/* A log line to a journal stream that journald does not read would wait
 * in write(), and with it every client of the loop (request-journal.h): such a
 * line is dropped instead.  Only when stderr is that stream: O_NONBLOCK on
 * a terminal would be the shell's too. */
static void stderr_nonblocking(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	int flags;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0 ||
	    (unsigned long long)st.st_dev != dev || (unsigned long long)st.st_ino != ino)
		return;
	flags = fcntl(STDERR_FILENO, F_GETFL);
	if (flags >= 0)
		(void)fcntl(STDERR_FILENO, F_SETFL, flags | O_NONBLOCK);
}

int main(int argc, char **argv)
{
	Daemon d = {};
	int r;

	r = parse_argv(argc, argv);
	if (r <= 0)
		return r < 0 ? 2 : 0;
	umask(0022);
	stderr_nonblocking();
	/* A List of 10k mounts passes megabytes through a few buffers that
	 * grow by doubling, in the worker and in the loop.  glibc gave each
	 * large one fresh pages from mmap() and returned them at free(), so
	 * every List paid a page fault per 4 KiB of every copy, again and
	 * again (the largest single cost of a List, under TCG even more):
	 * keep them in the heap for reuse.  Workers inherit this. */
	mallopt(M_MMAP_THRESHOLD, 32 << 20); /* glibc's largest */
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	r = caps_bound();
	if (r < 0) {
		log_error("capabilities: %s", strerror(-r));
		return 1;
	}

	/* What every tree a user receives is copied through, made while
	 * mountd is one thread.  Without it root is still served; a user's
	 * mounts that need the kernel's locks are refused (sys-mnt-lock.h). */
	r = mnt_lock_setup();
	if (r < 0)
		log_warning("no namespace to lock users' mounts through: %s", strerror(-r));

	/* A policy that does not parse is not guessed at, nor does it lock
	 * root out: only root is served until a good one is loaded. */
	(void)auth_policy_load(policy_path());

	r = sd_event_default(&d.event);
	if (r < 0) {
		log_error("sd-event: %s", strerror(-r));
		return 1;
	}
	(void)sd_event_set_watchdog(d.event, true); /* WATCHDOG=1 if WatchdogSec= */

	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	r = sd_event_add_signal(d.event, NULL, SIGTERM, on_signal, &d);
	if (r >= 0)
		r = sd_event_add_signal(d.event, NULL, SIGINT, on_signal, &d);
	if (r >= 0)
		r = sd_event_add_signal(d.event, NULL, SIGHUP, on_reload, &d);
	/* A client hanging up must not kill us. */
	signal(SIGPIPE, SIG_IGN);
	if (r < 0) {
		log_error("signals: %s", strerror(-r));
		return 1;
	}

	/* No web site: the URL is the documentation on this machine. */
	r = varlink_server_new(&d.server, d.event, "mountd project", "mountd", MOUNTD_VERSION,
			       "man:mountd(8)");
	if (r >= 0)
		r = varlink_mount_register(d.server);
	if (r >= 0)
		limit_messages_to_memory(d.server);
	if (r >= 0)
		r = varlink_server_set_idle_callback(d.server, on_server_idle, &d);
	/* Workers are forked from here: before the bus and the listening
	 * sockets exist would be nicer, but they close what they inherit. */
	if (r >= 0) {
		unsigned long sec, timeout;

		r = env_number("MOUNTD_WORKER_IDLE_SEC", EXEC_IDLE_USEC / 1000000, &sec);
		if (r >= 0)
			r = env_number("MOUNTD_REQUEST_TIMEOUT_SEC",
				       REQUEST_TIMEOUT_USEC_DEFAULT / 1000000, &timeout);
		if (r >= 0)
			r = request_setup(d.event, (uint64_t)sec * 1000000,
					  (uint64_t)timeout * 1000000);
	}
	if (r >= 0)
		r = setup_rate_limit(&d);
	if (r >= 0)
		r = setup_journal_budget();
	if (r >= 0)
		r = peerlog_setup(d.event);
	if (r >= 0)
		varlink_server_set_peer_log(d.server, peerlog_write, NULL);
	request_set_idle_callback(on_jobs_done, &d);
	if (r >= 0)
		r = sd_event_add_time_relative(d.event, &d.trim_timer, CLOCK_MONOTONIC,
					       TRIM_AFTER_USEC, 0, on_trim_timer, &d);
	if (r < 0) {
		log_error("varlink: %s", strerror(-r));
		return 1;
	}

	(void)mkdir("/run/mountd", 0755);
	/* Before serving: what a killed predecessor half made goes first. */
	leftovers_clean();
	r = listen_sockets(&d);
	if (r == -EADDRINUSE) {
		log_error("%s is served by another process (systemd's mountd.socket?); "
			  "not starting a second mountd",
			  SOCKET_PATH);
		return 1;
	}
	if (r < 0) {
		log_error("listen on %s: %s", SOCKET_PATH, strerror(-r));
		return 1;
	}
	/* The D-Bus front end is optional: without a system bus (early boot,
	 * tests) varlink alone is served. */
	r = bus_front_new(&d.bus, d.event);
	if (r < 0)
		log_warning("no D-Bus front end: %s", strerror(-r));

	if (d.socket_activated) {
		r = setup_idle_exit(&d);
		if (r < 0) {
			log_error("idle exit: %s", strerror(-r));
			return 1;
		}
	}

	/* Set up: from here on the loop needs only what executor-caps.h lists. */
	r = caps_daemon();
	if (r < 0) {
		log_error("capabilities: %s", strerror(-r));
		return 1;
	}
	(void)sd_notify(0, "READY=1\nSTATUS=Serving io.mountd.Mount");
	r = sd_event_loop(d.event);

	d.idle_timer = sd_event_source_unref(d.idle_timer);
	d.trim_timer = sd_event_source_unref(d.trim_timer);
	bus_front_free(d.bus);
	varlink_server_free(d.server);
	peerlog_shutdown();
	/* Its reports are records: before the journal queue's last flush. */
	ratelimit_shutdown();
	request_shutdown();
	sd_event_unref(d.event);
	return r < 0 ? 1 : 0;
}
