/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "job.h"
#include "util.h"

typedef struct Job Job;
struct Job {
	JobRunFn run;
	JobDoneFn done;
	void *userdata;
	Job *next;
};

/* Jobs go queue → a thread → finished → done() in the loop.  The two lists
 * are FIFO and guarded by lock; the rest belongs to the event loop. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queued = PTHREAD_COND_INITIALIZER;
static Job *queue_head, *queue_tail, *finished_head, *finished_tail;
static unsigned n_threads, n_idle, n_queued;

static int wake_fd = -EBADF; /* eventfd: finished jobs are waiting */
static sd_event_source *wake_source;
static size_t n_pending;
static void (*idle_cb)(void *);
static void *idle_userdata;

static void push(Job **head, Job **tail, Job *j)
{
	j->next = NULL;
	if (*tail)
		(*tail)->next = j;
	else
		*head = j;
	*tail = j;
}

static void *thread_main(void *arg)
{
	sigset_t all;

	(void)arg;
	/* Signals are the event loop's (signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		Job *j;

		pthread_mutex_lock(&lock);
		while (!queue_head) {
			n_idle++;
			pthread_cond_wait(&queued, &lock);
			n_idle--;
		}
		j = queue_head;
		queue_head = j->next;
		if (!queue_head)
			queue_tail = NULL;
		n_queued--;
		pthread_mutex_unlock(&lock);

		j->run(j->userdata);

		pthread_mutex_lock(&lock);
		push(&finished_head, &finished_tail, j);
		pthread_mutex_unlock(&lock);
		(void)eventfd_write(wake_fd, 1);
	}
	return NULL;
}

static int on_wake(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	eventfd_t n;
	Job *j;

	(void)s;
	(void)revents;
	(void)userdata;
	(void)eventfd_read(fd, &n);
	pthread_mutex_lock(&lock);
	j = finished_head;
	finished_head = finished_tail = NULL;
	pthread_mutex_unlock(&lock);
	while (j) {
		Job *next = j->next;

		j->done(j->userdata);
		free(j);
		n_pending--;
		j = next;
	}
	if (n_pending == 0 && idle_cb)
		idle_cb(idle_userdata);
	return 0;
}

int job_submit(sd_event *event, JobRunFn run, JobDoneFn done, void *userdata)
{
	bool start_thread;
	Job *j;
	int r;

	if (wake_fd < 0) {
		wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (wake_fd < 0)
			return negative_errno();
		r = sd_event_add_io(event, &wake_source, wake_fd, EPOLLIN, on_wake, NULL);
		if (r < 0) {
			wake_fd = safe_close(wake_fd);
			return r;
		}
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	*j = (Job){.run = run, .done = done, .userdata = userdata};

	pthread_mutex_lock(&lock);
	/* Each queued job needs an idle thread of its own: an idle thread
	 * that was signalled but has not woken yet is spoken for, and a job
	 * behind a hung one would wait for ever. */
	start_thread = n_queued + 1 > n_idle && n_threads < JOB_THREADS_MAX;
	if (start_thread) {
		pthread_t t;
		pthread_attr_t attr;

		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		r = -pthread_create(&t, &attr, thread_main, NULL);
		pthread_attr_destroy(&attr);
		if (r < 0 && n_threads == 0) {
			pthread_mutex_unlock(&lock);
			free(j);
			return r;
		}
		/* Without a new thread the job waits for a busy one. */
		if (r == 0)
			n_threads++;
	}
	push(&queue_head, &queue_tail, j);
	n_queued++;
	pthread_cond_signal(&queued);
	pthread_mutex_unlock(&lock);
	n_pending++;
	return 0;
}

size_t job_pending(void)
{
	return n_pending;
}

void job_set_idle_callback(void (*cb)(void *userdata), void *userdata)
{
	idle_cb = cb;
	idle_userdata = userdata;
}
