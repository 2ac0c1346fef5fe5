/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Changes run off the event loop.  A mount system call can take long or
 * hang — a network filesystem's FSCONFIG_CMD_CREATE, a lookup in a FUSE
 * mount whose server does not answer — and one event loop serves every
 * client, the watchdog and SIGTERM.  So the front ends hand each change to
 * a small pool of threads and answer when it is done; the loop goes on
 * serving everybody else meanwhile.
 *
 * Only the operation itself (ops_*(), plain C structs in, plain C structs
 * out) runs in a pool thread: no sd-event, sd-bus or json-c object is
 * touched there, and setns() still only happens in the forked workers.
 * done() runs in the event loop, in the order the jobs finished.
 */

#include <stddef.h>

#include <systemd/sd-event.h>

#define JOB_THREADS_MAX 8

typedef void (*JobRunFn)(void *userdata);  /* in a pool thread */
typedef void (*JobDoneFn)(void *userdata); /* in the event loop, after run() */

/* Queue a job; a thread is started when none is idle (at most
 * JOB_THREADS_MAX, beyond that jobs wait their turn). */
int job_submit(sd_event *event, JobRunFn run, JobDoneFn done, void *userdata);

/* Jobs submitted whose done() has not run yet. */
size_t job_pending(void);

/* cb runs in the event loop each time job_pending() drops to 0. */
void job_set_idle_callback(void (*cb)(void *userdata), void *userdata);
