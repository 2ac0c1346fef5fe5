/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Host unit test of the varlink server (varlink/); prints TAP.
 *
 * The server runs on an sd-event loop in this process; the clients are raw
 * sockets written by hand, so the wire format is checked byte for byte and
 * not through another varlink implementation.  pump() turns the event loop
 * while a client waits for its answer.
 */

#include "test-varlink.h"

sd_event *event;
VarlinkServer *server;
char sock_path[108];

uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void pump_once(void)
{
	int r = sd_event_run(event, 1000);
	if (r < 0) {
		fprintf(stderr, "sd_event_run: %s\n", strerror(-r));
		exit(2);
	}
}

void pump(unsigned ms)
{
	uint64_t end = now_ms() + ms;
	while (now_ms() < end)
		pump_once();
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
	test_lend();
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
