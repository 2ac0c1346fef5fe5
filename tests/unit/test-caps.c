// SPDX-License-Identifier: LGPL-2.1-or-later
/* daemon/executor-caps.c: what mountd keeps of the capabilities it was started with
 * (all of them here, as root, like a privileged container), and what its
 * loop and its workers narrow that to.  Each case runs in a child: the
 * sets only ever shrink. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "executor-caps.h"
#include "tap.h"
#include "util.h"

/* DAC_OVERRIDE 1, DAC_READ_SEARCH 2, SETGID 6, SETUID 7, SYS_CHROOT 18,
 * SYS_PTRACE 19, SYS_ADMIN 21: the set of docs/CONTAINER.md. */
#define ALL_SEVEN 0x2c00c6ULL
#define LOOP	  (1ULL << 21 | 1ULL << 19)
#define WORKER	  (ALL_SEVEN & ~(1ULL << 19))

/* The five sets of this process, in /proc/self/status order. */
static int read_caps(uint64_t v[5])
{
	static const char *const names[5] = {"CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:"};
	_cleanup_fclose_ FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		for (int i = 0; i < 5; i++)
			if (strncmp(line, names[i], strlen(names[i])) == 0) {
				v[i] = strtoull(line + strlen(names[i]), NULL, 16);
				n++;
			}
	return n == 5 ? 0 : -1;
}

/* Runs steps in a child; 0 when the sets there end as wanted. */
static int sets_after(int (*const steps[])(void), const uint64_t want[5])
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		uint64_t v[5];

		for (size_t i = 0; steps[i]; i++)
			if (steps[i]() < 0)
				_exit(2);
		if (read_caps(v) < 0)
			_exit(3);
		for (int i = 0; i < 5; i++)
			if (v[i] != want[i]) {
				printf("# set %d: %016llx, want %016llx\n", i,
				       (unsigned long long)v[i], (unsigned long long)want[i]);
				_exit(1);
			}
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(void)
{
	uint64_t start[5];

	if (geteuid() != 0 || read_caps(start) < 0 || (start[3] & ALL_SEVEN) != ALL_SEVEN) {
		printf("1..0 # SKIP needs root with the seven capabilities\n");
		return 0;
	}
	ok(start[3] & ~ALL_SEVEN, "started with more than the seven (bounding %016llx)",
	   (unsigned long long)start[3]);

	int (*const bound[])(void) = {caps_bound, NULL};
	ok(sets_after(bound, (const uint64_t[5]){0, ALL_SEVEN, ALL_SEVEN, ALL_SEVEN, 0}) == 0,
	   "caps_bound: bounding, permitted and effective are the seven, nothing inheritable "
	   "or ambient");
	int (*const loop[])(void) = {caps_bound, caps_daemon, NULL};
	ok(sets_after(loop, (const uint64_t[5]){0, ALL_SEVEN, LOOP, ALL_SEVEN, 0}) == 0,
	   "  then caps_daemon: SYS_ADMIN and SYS_PTRACE effective, the seven permitted");
	int (*const worker[])(void) = {caps_bound, caps_daemon, caps_worker, NULL};
	ok(sets_after(worker, (const uint64_t[5]){0, WORKER, WORKER, ALL_SEVEN, 0}) == 0,
	   "  then caps_worker: all but SYS_PTRACE, permitted too");
	int (*const twice[])(void) = {caps_bound, caps_bound, NULL};
	ok(sets_after(twice, (const uint64_t[5]){0, ALL_SEVEN, ALL_SEVEN, ALL_SEVEN, 0}) == 0,
	   "caps_bound a second time (no CAP_SETPCAP left) changes nothing and succeeds");
	return tap_done();
}
