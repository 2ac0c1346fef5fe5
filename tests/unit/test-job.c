/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * job.c: changes run in a thread pool and come back to the event loop.
 * Jobs block on a pipe the test controls, so that "runs while the loop
 * goes on", "at most JOB_THREADS_MAX at once" and "done() in the loop, in
 * finishing order" are observed, not assumed.
 */

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-event.h>

#include "tap.h"
#include "job.h"

#define N_JOBS (JOB_THREADS_MAX + 4)

typedef struct TestJob {
	int id;
	int gate; /* read end: the job runs until a byte arrives */
	pthread_t ran_in;
	bool done_in_loop;
} TestJob;

static atomic_int running, most_running;
static pthread_t loop_thread;
static int done_order[N_JOBS], n_done, n_idle_calls;

static void run(void *userdata)
{
	TestJob *j = userdata;
	int now = atomic_fetch_add(&running, 1) + 1, seen = atomic_load(&most_running);
	char c;

	while (now > seen && !atomic_compare_exchange_weak(&most_running, &seen, now))
		;
	j->ran_in = pthread_self();
	if (read(j->gate, &c, 1) != 1)
		c = 0;
	atomic_fetch_sub(&running, 1);
}

static void done(void *userdata)
{
	TestJob *j = userdata;

	j->done_in_loop = pthread_equal(pthread_self(), loop_thread);
	done_order[n_done++] = j->id;
}

static void on_idle(void *userdata)
{
	(void)userdata;
	n_idle_calls++;
}

/* Run the loop until n jobs are done (or a second passes). */
static void loop_until(sd_event *e, int n)
{
	for (int i = 0; i < 1000 && n_done < n; i++)
		(void)sd_event_run(e, 1000);
}

int main(void)
{
	sd_event *e = NULL;
	TestJob jobs[N_JOBS];
	int gates[N_JOBS][2];
	bool all_off_loop = true, all_in_loop = true;

	loop_thread = pthread_self();
	ok(sd_event_new(&e) >= 0, "event loop");
	job_set_idle_callback(on_idle, NULL);

	/* k idle threads, then k + 1 jobs back to back: the last must not wait
	 * behind the others (which might hang) for a thread that was signalled
	 * for one of them and may not have woken yet. */
	{
		TestJob warm = {.id = 100};
		int gw[2];
		bool all_ran = true;

		ok(pipe(gw) == 0, "gate");
		warm.gate = gw[0];
		ok(job_submit(e, run, done, &warm) == 0 && write(gw[1], "x", 1) == 1,
		   "a first job starts the first thread");
		loop_until(e, 1);
		for (int k = 1; k < JOB_THREADS_MAX && all_ran; k++) {
			TestJob burst[JOB_THREADS_MAX];
			int g[JOB_THREADS_MAX][2];
			bool ran = false;

			usleep(50 * 1000); /* the k threads wait for work again */
			n_done = 0;
			for (int i = 0; i <= k; i++) {
				if (pipe(g[i]) < 0)
					return 1;
				burst[i] = (TestJob){.id = 200 + i, .gate = g[i][0]};
			}
			for (int i = 0; i <= k; i++)
				(void)job_submit(e, run, done, &burst[i]);
			for (int i = 0; i < 300 && !ran; i++) {
				ran = atomic_load(&running) == k + 1;
				usleep(10 * 1000);
			}
			all_ran &= ran;
			for (int i = 0; i <= k; i++)
				if (write(g[i][1], "x", 1) != 1)
					return 1;
			loop_until(e, k + 1);
			for (int i = 0; i <= k; i++)
				close(g[i][0]), close(g[i][1]);
		}
		ok(all_ran, "with k threads idle, k + 1 jobs submitted at once all run at once");
		n_done = 0;
		most_running = 0;
	}
	for (int i = 0; i < N_JOBS; i++) {
		ok(pipe(gates[i]) == 0, "gate %d", i);
		jobs[i] = (TestJob){.id = i, .gate = gates[i][0]};
		ok(job_submit(e, run, done, &jobs[i]) == 0, "job %d submitted", i);
	}
	ok(job_pending() == N_JOBS, "all %d jobs pending", N_JOBS);
	for (int i = 0; i < 500 && atomic_load(&running) < JOB_THREADS_MAX; i++)
		usleep(10 * 1000);
	usleep(100 * 1000); /* time for a ninth to start, if it could */
	ok(atomic_load(&running) == JOB_THREADS_MAX,
	   "%d run at once, the rest wait for a thread (running: %d)", JOB_THREADS_MAX,
	   atomic_load(&running));
	for (int i = 0; i < 5; i++)
		(void)sd_event_run(e, 20 * 1000);
	ok(n_done == 0, "the loop runs on while the jobs block");

	/* Finish them in reverse order of the first eight. */
	for (int i = JOB_THREADS_MAX - 1; i >= 0; i--) {
		ok(write(gates[i][1], "x", 1) == 1, "job %d released", i);
		loop_until(e, JOB_THREADS_MAX - i);
	}
	ok(n_done == JOB_THREADS_MAX && done_order[0] == JOB_THREADS_MAX - 1 &&
		   done_order[JOB_THREADS_MAX - 1] == 0,
	   "done() comes in the order the jobs finished");
	for (int i = JOB_THREADS_MAX; i < N_JOBS; i++)
		ok(write(gates[i][1], "x", 1) == 1, "queued job %d released", i);
	loop_until(e, N_JOBS);
	ok(n_done == N_JOBS, "the queued jobs ran once threads were free");
	ok(atomic_load(&most_running) == JOB_THREADS_MAX, "never more than %d at once",
	   JOB_THREADS_MAX);
	for (int i = 0; i < N_JOBS; i++) {
		all_off_loop &= !pthread_equal(jobs[i].ran_in, loop_thread);
		all_in_loop &= jobs[i].done_in_loop;
	}
	ok(all_off_loop, "run() never runs in the event loop's thread");
	ok(all_in_loop, "done() always runs in it");
	ok(job_pending() == 0 && n_idle_calls >= 1, "nothing pending, and the idle callback ran");

	sd_event_unref(e);
	return tap_done();
}
