/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the files of test-varlink share: the server under test, its
 * service (test-varlink-service.c) and the raw client
 * (test-varlink-client.c); the tests are test-varlink-*.c, run in order by
 * main() (test-varlink.c). */

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

/* The server under test, its loop and socket (test-varlink.c). */
extern sd_event *event;
extern VarlinkServer *server;
extern char sock_path[108];
uint64_t now_ms(void);
void pump_once(void);
void pump(unsigned ms);

/* ---- the test service, org.example.Test (test-varlink-service.c) */
extern const char test_idl[];
extern unsigned n_slow;
extern unsigned notes;
extern VarlinkCall *hung_call;
extern bool hung_disconnected;
extern unsigned idle_calls;
void slow_reply_all(void);
/* The last call Slow holds, its reference handed over (NULL: none). */
VarlinkCall *slow_take(void);

/* Drain: count answers of a size-byte string each, made by the drain
 * callback as the client reads them. */
typedef struct DrainState {
	VarlinkCall *call;
	int next, count;
	size_t size;
} DrainState;
extern DrainState drain_state;
extern unsigned drain_sent;
extern bool drain_disconnected;
void drain_next(VarlinkCall *c, void *ud);
extern const VarlinkMethod test_methods[];
void on_idle(VarlinkServer *s, void *ud);

/* ---- the raw client (test-varlink-client.c) */
typedef struct Client {
	int fd;
	char buf[1 << 20];
	size_t len;
	int fds[64];
	unsigned n_fds;
	bool eof;
} Client;

Client *client_new(void);
void client_free(Client *c);
void client_send_raw(Client *c, const void *data, size_t len, const int *fds, unsigned n);
void client_send(Client *c, const char *json);
void client_poll(Client *c);
json_object *client_recv(Client *c, unsigned timeout_ms);
bool client_wait_eof(Client *c, unsigned timeout_ms);
const char *jstr(json_object *o, const char *path1, const char *path2);
int64_t jint(json_object *o, const char *path1, const char *path2);
json_object *jobj_params(json_object *o);
bool jhas(json_object *o, const char *key);
json_object *call(Client *c, const char *json);
bool is_error(json_object *a, const char *error, const char *key, const char *value);

/* ---- the tests, in the order main() runs them */
void test_basic(void);
void test_framing(void);
void test_pipelining(void);
void test_iterations(void);
void test_oneway_more(void);
void test_drain_and_reply_size(void);
void test_fds(void);
void test_lend(void);
void test_bad_input(void);
void test_hangup(void);
void test_idle_and_drain(void);
void test_api_edges(const char *dir);
void test_listen_auto(const char *dir);
void test_peer_gone_before_accept(void);
void test_queued_per_uid(const char *dir);
void test_held_per_uid(const char *dir);
void test_connection_limits(const char *dir);
void test_fds_with_credentials(const char *dir);
