/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The one path of a call from either front end to its answer, in the event
 * loop: decode the JSON parameters along the operation table and validate
 * them (a caller past its rate, request-ratelimit.h, is refused before this), fill
 * in the caller's namespace where the request names none, pin
 * every namespace it names (a pidfd and an nsfs fd, taken once: nothing
 * after this reopens anything by pid), ask the policy, then run the method:
 * in an executor worker inside the target namespace, or in the loop when
 * nothing on its way can wait (Info: executor-nonblocking.h).  Watch is prepared
 * here (request_prepare_watch()) and runs in the loop (ops-watch-events.c).  The
 * answer is JSON (and fds) for the front end to send.
 */

#include <stddef.h>

#include <json-c/json.h>
#include <systemd/sd-event.h>

#include "authorize.h"
#include "ops-table.h"

typedef struct RequestAnswer {
	const char *error;	 /* NULL: a reply */
	json_object *parameters; /* of the reply or the error; owned */
	/* With parameters_as_text: the worker's text that parameters
	 * serializes to (owned by parameters), or NULL. */
	const char *text;
	int *fds; /* owned; parameters name them by index */
	size_t n_fds;
	/* The worker wrote the answer to the client itself, on the socket
	 * lend_socket() gave: the first lent_written bytes of lent_message
	 * (the whole message, borrowed), the front end sends the rest.
	 * lent_lost: it began to and could not say how far it got; the
	 * connection ends.  Both unset: the front end answers as usual. */
	const char *lent_message;
	size_t lent_written;
	bool lent_lost;
} RequestAnswer;

void request_answer_done(RequestAnswer *a);

typedef struct RequestCall {
	const OpsMethod *method;
	json_object *parameters; /* borrowed until done() */
	int *fds;		 /* borrowed until done() */
	size_t n_fds;
	AuthCaller caller; /* borrowed */
	/* The answer, once (possibly before request_start() returns); the
	 * callee may steal what it sends. */
	void (*done)(RequestAnswer *a, void *userdata);
	/* Drop the front end's copy of fd index i, the trace fd, once the
	 * worker has its own: the reader's EOF comes before the reply
	 * (NULL: the front end cannot, as with D-Bus). */
	void (*drop_fd)(size_t index, void *userdata);
	void *userdata;
	/* The front end only writes an answer's parameters out as JSON
	 * (varlink): a worker's reply may reach it as an object that
	 * serializes to the worker's text, not parsed and written again. */
	bool parameters_as_text;
	/* request.c's: what authorized it (the policy line, polkit), for the
	 * audit record; the front ends leave it NULL. */
	const char *authorized_by;
	/* request.c's: images only if a trusted key signed them. */
	bool images_signed_only;
	/* The client's socket, lent for a worker to write the answer itself
	 * (one hop), or negative when the front end cannot lend it now (NULL:
	 * never, as with D-Bus); the answer then says what became of it. */
	int (*lend_socket)(void *userdata);
} RequestCall;

#define REQUEST_TIMEOUT_USEC_DEFAULT (60ULL * 1000 * 1000)

/* Start the executor, whose idle workers end after worker_idle_usec and
 * whose requests are given up after request_timeout_usec (0: the
 * default); once, in mountd's main process. */
int request_setup(sd_event *event, uint64_t worker_idle_usec, uint64_t request_timeout_usec);
void request_shutdown(void);
/* Calls whose answer is pending in a worker. */
size_t request_pending(void);
void request_set_idle_callback(void (*cb)(void *userdata), void *userdata);

/* Serve c (not Watch).  0 when done() was or will be called; negative when
 * it will not be (then the front end answers the errno). */
int request_start(const RequestCall *c);

/* Watch: decode, default and authorize, then hand the namespace to the
 * front end's stream.  0 and *ret_ns set (its fds borrowed from c or owned
 * by *ret_pin, to be closed after watch_new()); 1 when done() was called
 * with an error; negative when it will not be. */
int request_prepare_watch(const RequestCall *c, OpsNamespace *ret_ns, int *ret_pin);

/* Error answers for the front ends' own failures. */
int request_answer_errno(int r, RequestAnswer *ret);
