// SPDX-License-Identifier: GPL-2.0
/*
 * A bounded, seeded fuzz loop over fsinfo() (tests/guest/22-fsinfo-fuzz).
 *
 *   fsinfo-fuzz [SEED [CALLS_PER_PHASE]]
 *
 * It first asks every attribute of every fd of the pool below.  Then each
 * phase builds a pool of objects to point fsinfo() at (fs_context fds
 * in every state, fspick and mount fds, O_PATH fds, sockets, pipes, closed
 * fds, mount IDs of live, unmounted and made-up mounts), then makes
 * CALLS_PER_PHASE calls with random attributes, Nth/Mth, flags, buffers and
 * sizes while a child mounts and unmounts beside it, and tears it all down.
 * Per phase it checks that every error is one fsinfo(2) documents, that no
 * call wrote past buf_size and that no value is larger than the limits.
 * Phases 1 and 2 replay the same calls: unreclaimable slab must not grow
 * across both of them (a leak grows every time, noise does not).  At the
 * end no kernel WARN/BUG/Oops/refcount/use-after-free line may have been
 * logged since the start.  Runs in its own mount namespace.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fsinfo.h>
#include <linux/mount.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "syscall-nr.h"
#include "tap.h"

#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif

/* The largest value fsinfo(2) may report (parameter list, mount record). */
#define VALUE_LIMIT (256 * 1024)
/* Bytes past buf_size that must stay as we left them. */
#define CANARY_LEN 4160
#define CANARY	   0xa5
/* Slab growth across a phase that counts as growth (see the header). */
#define SLAB_SLACK_KB 256

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: the same seed gives the same calls on any build. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static long sys_fsinfo(int dfd, const char *path, const struct fsinfo_params *p, void *buf,
		       size_t size)
{
	return syscall(__NR_fsinfo, dfd, path, p, buf, size);
}

static int sys_fsopen(const char *fs)
{
	return syscall(__NR_fsopen, fs, FSOPEN_CLOEXEC);
}

static int sys_fsconfig(int fd, unsigned int cmd, const char *key, const char *val)
{
	return syscall(__NR_fsconfig, fd, cmd, key, val, 0);
}

static int sys_fsmount(int fd)
{
	return syscall(__NR_fsmount, fd, FSMOUNT_CLOEXEC, 0);
}

static int sys_fspick(const char *path, unsigned int flags)
{
	return syscall(__NR_fspick, AT_FDCWD, path, FSPICK_CLOEXEC | flags);
}

static int sys_open_tree(const char *path, unsigned int flags)
{
	return syscall(__NR_open_tree, AT_FDCWD, path, OPEN_TREE_CLOEXEC | flags);
}

static uint64_t mount_id_of(const char *path)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID_UNIQUE, &stx) < 0 ||
	    !(stx.stx_mask & STATX_MNT_ID_UNIQUE))
		return 0;
	return stx.stx_mnt_id;
}

/* ---- the pool of things to ask about ---- */

#define MAX_FDS 48
#define MAX_IDS 24

struct pool {
	char dir[64], mnt[96], file[128], link[128], churn[96];
	int fds[MAX_FDS];
	const char *fd_what[MAX_FDS];
	int nfds;
	int owned[MAX_FDS]; /* fds to close at the end of the phase */
	int nowned;
	uint64_t ids[MAX_IDS];
	int nids;
	pid_t churner;
};

static void add_fd(struct pool *p, int fd, const char *what)
{
	if (p->nfds == MAX_FDS)
		return;
	p->fds[p->nfds] = fd;
	p->fd_what[p->nfds++] = what;
	if (fd >= 0 && p->nowned < MAX_FDS)
		p->owned[p->nowned++] = fd;
}

static void add_id(struct pool *p, uint64_t id)
{
	if (p->nids < MAX_IDS)
		p->ids[p->nids++] = id;
}

static int ctx_with(const char *fs, const char *key, const char *val, bool create)
{
	int fd = sys_fsopen(fs);

	if (fd < 0)
		return -1;
	if (key)
		sys_fsconfig(fd, FSCONFIG_SET_STRING, key, val);
	if (create)
		sys_fsconfig(fd, FSCONFIG_CMD_CREATE, NULL, NULL);
	return fd;
}

/* A child that mounts and unmounts a tmpfs until killed, so that mounts
 * come and go (and IDs get used up) while fsinfo() walks and looks up. */
static pid_t start_churner(const char *dir)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	for (;;) {
		if (mount("churn", dir, "tmpfs", 0, "size=64k") == 0)
			umount2(dir, MNT_DETACH);
	}
}

static void pool_build(struct pool *p)
{
	static const char *const no_fd[] = {"fd -1", "AT_FDCWD", "fd 1<<20", "fd INT_MIN"};
	static const int no_fd_val[] = {-1, AT_FDCWD, 1 << 20, INT_MIN};
	int fd, sv[2], pfd[2];

	memset(p, 0, sizeof(*p));
	strcpy(p->dir, "/tmp/fsinfo-fuzz.XXXXXX");
	if (!mkdtemp(p->dir)) {
		perror("mkdtemp");
		exit(2);
	}
	snprintf(p->mnt, sizeof(p->mnt), "%s/mnt", p->dir);
	snprintf(p->churn, sizeof(p->churn), "%s/churn", p->dir);
	mkdir(p->mnt, 0755);
	mkdir(p->churn, 0755);
	if (mount("fuzz-tmpfs", p->mnt, "tmpfs", MS_NOSUID, "size=1m,mode=755") < 0) {
		perror("mount tmpfs");
		exit(2);
	}
	snprintf(p->file, sizeof(p->file), "%s/file", p->mnt);
	snprintf(p->link, sizeof(p->link), "%s/link", p->mnt);
	close(open(p->file, O_CREAT | O_WRONLY, 0644));
	if (symlink("file", p->link) < 0)
		perror("symlink");

	for (size_t i = 0; i < sizeof(no_fd_val) / sizeof(no_fd_val[0]); i++)
		add_fd(p, no_fd_val[i], no_fd[i]);
	/* fs_context fds in every state. */
	add_fd(p, ctx_with("tmpfs", NULL, NULL, false), "fsopen fresh");
	add_fd(p, ctx_with("tmpfs", "size", "1m", false), "fsopen with params");
	add_fd(p, ctx_with("tmpfs", "source", "fuzz-src", true), "fsopen created");
	add_fd(p, ctx_with("ext4", "source", "/nonexistent", true), "fsopen failed create");
	add_fd(p, ctx_with("tmpfs", "huge", "bogus", false), "fsopen bad param");
	add_fd(p, ctx_with("proc", NULL, NULL, true), "fsopen proc created");
	fd = ctx_with("tmpfs", "source", "fuzz-mounted", true);
	add_fd(p, fd, "fsopen after fsmount");
	add_fd(p, sys_fsmount(fd), "fsmount mount fd");
	/* fspick fds, one reconfigured. */
	add_fd(p, sys_fspick("/", 0), "fspick /");
	fd = sys_fspick(p->mnt, 0);
	add_fd(p, fd, "fspick tmpfs");
	fd = sys_fspick(p->mnt, 0);
	sys_fsconfig(fd, FSCONFIG_SET_STRING, "size", "2m");
	sys_fsconfig(fd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL);
	add_fd(p, fd, "fspick reconfigured");
	/* open_tree: a detached clone and a plain O_PATH-like one. */
	add_fd(p, sys_open_tree(p->mnt, OPEN_TREE_CLONE), "open_tree clone");
	add_fd(p, sys_open_tree("/proc", OPEN_TREE_CLONE | AT_RECURSIVE), "open_tree clone rec");
	add_fd(p, sys_open_tree("/", 0), "open_tree /");
	add_fd(p, open("/", O_PATH), "O_PATH /");
	add_fd(p, open(p->link, O_PATH | O_NOFOLLOW), "O_PATH symlink");
	add_fd(p, open(p->file, O_RDONLY), "regular file");
	add_fd(p, open("/proc", O_RDONLY | O_DIRECTORY), "dir /proc");
	add_fd(p, open("/proc/self/ns/mnt", O_RDONLY), "mnt ns fd");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0) {
		add_fd(p, sv[0], "socket");
		add_fd(p, sv[1], "socket peer");
	}
	add_fd(p, socket(AF_INET, SOCK_DGRAM, 0), "inet socket");
	if (pipe(pfd) == 0) {
		add_fd(p, pfd[0], "pipe read");
		add_fd(p, pfd[1], "pipe write");
	}
	add_fd(p, eventfd(0, 0), "eventfd");
	add_fd(p, memfd_create("fuzz", 0), "memfd");
	/* A dir fd on a mount that is then unmounted (lazily, it is busy). */
	mount("gone", p->churn, "tmpfs", 0, "size=64k");
	add_id(p, mount_id_of(p->churn));
	add_fd(p, open(p->churn, O_RDONLY | O_DIRECTORY), "fd of unmounted mount");
	umount2(p->churn, MNT_DETACH);
	/* A closed fd: its number stays in the pool. */
	fd = open("/", O_RDONLY);
	close(fd);
	add_fd(p, fd, "closed fd");
	p->nowned--; /* not ours to close again */

	add_id(p, mount_id_of("/"));
	add_id(p, mount_id_of("/proc"));
	add_id(p, mount_id_of(p->mnt));
	/* A mount that was unmounted outright: its ID is stale. */
	mount("stale", p->churn, "tmpfs", 0, "size=64k");
	add_id(p, mount_id_of(p->churn));
	umount2(p->churn, 0);

	p->churner = start_churner(p->churn);
}

static void pool_free(struct pool *p)
{
	kill(p->churner, SIGKILL);
	waitpid(p->churner, NULL, 0);
	umount2(p->churn, MNT_DETACH);
	for (int i = 0; i < p->nowned; i++)
		close(p->owned[i]);
	umount2(p->mnt, MNT_DETACH);
	rmdir(p->mnt);
	rmdir(p->churn);
	rmdir(p->dir);
}

/* ---- one call ---- */

struct bufs {
	unsigned char *base; /* BUF_LEN bytes, then a PROT_NONE guard page */
};
#define BUF_LEN (2u << 20)

struct phase_result {
	long calls, ok, unexpected, overrun, too_big;
	long by_errno[160];
	char first_bad[3][320];
	int nbad;
};

static bool documented_errno(int e)
{
	switch (e) {
	case EACCES:
	case ELOOP:
	case ENAMETOOLONG:
	case ENOENT:
	case ENOTDIR:
	case EBADF:
	case EFAULT:
	case EINTR:
	case EINVAL:
	case ENODATA:
	case ENOMEM:
	case EOPNOTSUPP:
	case EPERM:
	case E2BIG:
	case EOVERFLOW:
		return true;
	}
	return false;
}

static uint32_t pick_u32(const uint32_t *common, size_t n)
{
	uint64_t r = below(100);

	if (r < 85)
		return common[below(n)];
	if (r < 95)
		return below(64);
	return (uint32_t)rnd();
}

static uint64_t pick_id(const struct pool *p)
{
	uint64_t base = p->nids ? p->ids[below(p->nids)] : 0;

	switch (below(8)) {
	case 0:
		return rnd();
	case 1:
		return below(4) == 0 ? UINT64_MAX : (1ULL << 31) + below(2);
	case 2:
		return below(3);
	case 3:
	case 4:
		return base + below(32); /* the churner's new mounts */
	default:
		return base;
	}
}

static void note_bad(struct phase_result *r, const char *what, const char *desc)
{
	if (r->nbad < 3)
		snprintf(r->first_bad[r->nbad++], sizeof(r->first_bad[0]), "%s: %s", what, desc);
}

static void one_call(const struct pool *p, const struct bufs *b, struct phase_result *r)
{
	static const uint32_t at_flags[] = {0,
					    0,
					    0,
					    AT_SYMLINK_NOFOLLOW,
					    AT_EMPTY_PATH,
					    AT_NO_AUTOMOUNT,
					    AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
					    0x01000000};
	static const uint32_t flags[] = {0,
					 0,
					 FSINFO_FLAG_QUERY_MOUNT_ID,
					 FSINFO_FLAG_WALK_MOUNTS,
					 FSINFO_FLAG_QUERY_MOUNT_ID | FSINFO_FLAG_WALK_MOUNTS,
					 0x80000000u,
					 4};
	static const uint32_t nths[] = {0, 0, 0, 1, 2, 3, UINT32_MAX};
	static char long_path[PATH_MAX + 64];
	/* The first seven resolve (or are none); the rest do not. */
	const char *paths[] = {NULL, "", "/", "/proc",	      p->mnt, p->file,	 p->link,
			       NULL, "", ".", "/nonexistent", "file", long_path, (const char *)1};
	struct fsinfo_params params = {};
	const struct fsinfo_params *pp = &params;
	unsigned char *buf = b->base;
	size_t size = 0, canary_at = 0;
	char desc[256];
	bool clean, query_id, walk;
	int dfd;
	const char *path, *dfd_what;
	long ret;
	int e;

	if (!long_path[0])
		memset(long_path, 'a', sizeof(long_path) - 1);

	/* What to ask about.  Half the calls are well-formed, so that they get
	 * past the argument checks into the attribute code; the other half draw
	 * every field freely. */
	clean = below(2);
	if (clean) {
		static const uint32_t clean_flags[] = {
			0, 0, 0, 0, FSINFO_FLAG_QUERY_MOUNT_ID, FSINFO_FLAG_WALK_MOUNTS};
		params.flags = clean_flags[below(6)];
	} else {
		params.flags = pick_u32(flags, sizeof(flags) / sizeof(flags[0]));
	}
	query_id = params.flags & FSINFO_FLAG_QUERY_MOUNT_ID;
	walk = params.flags & FSINFO_FLAG_WALK_MOUNTS;
	if ((query_id || walk) && (clean || below(4))) {
		dfd = -1;
		dfd_what = "fd -1";
		path = NULL;
	} else {
		int i = below(p->nfds);

		dfd = p->fds[i];
		dfd_what = p->fd_what[i];
		path = paths[below(clean ? 7 : sizeof(paths) / sizeof(paths[0]))];
	}
	if (query_id || walk)
		params.at_flags = clean || below(4) ? 0 : pick_u32(at_flags, 8);
	else if (clean)
		params.at_flags = path && !path[0] ? AT_EMPTY_PATH : at_flags[below(4)];
	else
		params.at_flags = pick_u32(at_flags, 8);
	if (query_id || walk || (!clean && below(10) == 0))
		params.mnt_id = pick_id(p);
	if (walk && (clean || below(3)))
		params.request = fsinfo_attr_mount_record;
	else if (clean || below(10))
		params.request = below(fsinfo_attr__nr);
	else
		params.request = below(2) ? fsinfo_attr__nr + below(4) : (uint32_t)rnd();
	if (clean) {
		/* Instances exist for sources, parameters and servers. */
		params.Nth = walk || below(3) ? 0 : below(4);
		params.Mth = walk || below(4) ? 0 : below(2);
	} else {
		params.Nth = pick_u32(nths, 7);
		params.Mth = pick_u32(nths, 7);
		if (below(25) == 0)
			params.__spare0 = 1 + below(255);
		if (below(25) == 0)
			params.__spare1 = rnd();
		switch (below(20)) {
		case 0:
			pp = NULL; /* the default: statfs */
			params.flags = 0;
			walk = false;
			break;
		case 1:
			pp = (const struct fsinfo_params *)1;
			break;
		}
	}

	/* Where the answer goes. */
	switch (below(12)) {
	case 0:
		size = 0;
		break;
	case 1:
		size = 1;
		break;
	case 2:
		size = 1 + 2 * below(2048);
		break; /* odd */
	case 3:
		size = 8 * (1 + below(32));
		break;
	case 4:
		size = 4096;
		break;
	case 5:
		size = 65536 + below(2) * 8;
		break;
	case 6:
		size = VALUE_LIMIT + 8;
		break;
	case 7: /* huge, with the buffer just before the guard page */
		size = below(2) ? SIZE_MAX : (size_t)1 << (31 + below(12));
		buf = b->base + BUF_LEN - 64;
		break;
	case 8: /* NULL with a size */
		buf = NULL;
		size = 1 + below(8192);
		break;
	case 9: /* a pointer that is not ours */
		buf = below(2) ? (unsigned char *)1 : (unsigned char *)0xffff888000000000ULL;
		size = 64;
		break;
	default:
		size = 16 + below(1024);
		break;
	}
	if (buf == b->base) {
		canary_at = size;
		memset(buf, CANARY, size + CANARY_LEN);
	}

	snprintf(desc, sizeof(desc),
		 "dfd=%s path=%s at_flags=%#x req=%u Nth=%u Mth=%u flags=%#x id=%" PRIu64
		 " size=%zu buf=%s params=%s",
		 dfd_what,
		 !path			   ? "NULL"
		 : path == (const char *)1 ? "(bad)"
		 : path == long_path	   ? "(longer than PATH_MAX)"
		 : path[0]		   ? path
					   : "\"\"",
		 params.at_flags, params.request, params.Nth, params.Mth, params.flags,
		 (uint64_t)params.mnt_id, size,
		 !buf		  ? "NULL"
		 : buf == b->base ? "ok"
				  : "edge/bad",
		 pp == &params ? "ok"
		 : pp	       ? "bad"
			       : "NULL");

	errno = 0;
	ret = sys_fsinfo(dfd, path, pp, buf, size);
	e = errno;
	r->calls++;
	if (ret < 0) {
		r->by_errno[e < 160 ? e : 0]++;
		if (!documented_errno(e)) {
			r->unexpected++;
			char what[32];
			snprintf(what, sizeof(what), "errno %d", e);
			note_bad(r, what, desc);
		}
	} else {
		r->ok++;
		/* A walk fills at most the buffer; without one it gives
		 * the size the next record needs. */
		if ((unsigned long)ret > (walk && buf && size ? size : VALUE_LIMIT)) {
			r->too_big++;
			note_bad(r, "value too big", desc);
		}
	}
	if (buf == b->base) {
		for (size_t i = canary_at; i < canary_at + CANARY_LEN; i++)
			if (buf[i] != CANARY) {
				r->overrun++;
				note_bad(r, "wrote past buf_size", desc);
				break;
			}
	}
}

/* ---- the checks around the loop ---- */

static long sunreclaim_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f;

	sync();
	f = fopen("/proc/sys/vm/drop_caches", "w");
	if (f) {
		fputs("3\n", f);
		fclose(f);
	}
	/* Mounts and superblocks are freed after an RCU grace period. */
	usleep(1500 * 1000);
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SUnreclaim: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Kernel log lines since `fd` was opened (at the end of the log) that show
 * a kernel bug. */
static int scan_kmsg(int fd, char *first, size_t firstlen)
{
	static const char *const bad[] = {
		"WARNING:",    "BUG:",		 "Oops",
		"refcount_t:", "use-after-free", "general protection fault",
		"Call Trace:", "KASAN",		 "kernel BUG"};
	char rec[8192];
	int n = 0;
	ssize_t len;

	while ((len = read(fd, rec, sizeof(rec) - 1)) != 0) {
		if (len < 0) {
			if (errno == EPIPE) /* overwritten records: read on */
				continue;
			break; /* EAGAIN: no more */
		}
		rec[len] = 0;
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			if (strstr(rec, bad[i])) {
				if (!n++)
					snprintf(first, firstlen, "%.400s", rec);
				break;
			}
	}
	return n;
}

/* Before the random calls, every attribute once on every fd of the pool, as
 * the fd itself (NULL path; "" with AT_EMPTY_PATH): the same for any seed,
 * so that no object goes unasked (a mount record of an nsfs fd once
 * oopsed the kernel). */
static void sweep(const struct bufs *b)
{
	static const uint32_t how[] = {0, AT_EMPTY_PATH};
	long calls = 0, bad = 0;
	struct pool p;

	pool_build(&p);
	for (int i = 0; i < p.nfds; i++)
		for (uint32_t req = 0; req <= fsinfo_attr__nr; req++)
			for (int h = 0; h < 2; h++) {
				struct fsinfo_params params = {.at_flags = how[h], .request = req};
				long ret = sys_fsinfo(p.fds[i], how[h] ? "" : NULL, &params,
						      b->base, 4096);

				calls++;
				if (ret < 0 && !documented_errno(errno) && bad++ < 3)
					printf("# errno %d: dfd=%s req=%u at_flags=%#x\n", errno,
					       p.fd_what[i], req, how[h]);
			}
	pool_free(&p);
	ok(bad == 0, "every attribute of every kind of fd: %ld calls, %ld undocumented errors",
	   calls, bad);
}

static void run_phase(int phase, uint64_t seed, long calls, const struct bufs *b)
{
	struct phase_result r = {};
	struct pool p;
	time_t start = time(NULL);

	rng_state = seed ? seed : 1;
	pool_build(&p);
	for (long i = 0; i < calls; i++)
		one_call(&p, b, &r);
	pool_free(&p);

	printf("# phase %d: %ld calls in %lds, %ld succeeded; errors:", phase, r.calls,
	       (long)(time(NULL) - start), r.ok);
	for (int e = 0; e < 160; e++)
		if (r.by_errno[e])
			printf(" %s=%ld", e ? strerrorname_np(e) : "other", r.by_errno[e]);
	putchar('\n');
	for (int i = 0; i < r.nbad; i++)
		printf("# %s\n", r.first_bad[i]);
	ok(r.unexpected == 0, "phase %d: every error is one fsinfo(2) documents (%ld not)", phase,
	   r.unexpected);
	ok(r.overrun == 0, "phase %d: no call wrote past buf_size (%ld did)", phase, r.overrun);
	ok(r.too_big == 0, "phase %d: no value beyond the documented limits (%ld)", phase,
	   r.too_big);
	ok(r.ok > calls / 20 && r.ok < calls,
	   "phase %d: calls both succeed and fail (%ld of %ld ok)", phase, r.ok, calls);
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)time(NULL) ^ getpid();
	long calls = argc > 2 ? strtol(argv[2], NULL, 0) : 30000;
	long slab[3];
	char first[512] = "";
	struct bufs b;
	int kmsg, nbad;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# seed %" PRIu64 " (rerun: %s %" PRIu64 " %ld)\n", seed, argv[0], seed, calls);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		perror("private mount namespace");
		return 2;
	}
	b.base = mmap(NULL, BUF_LEN + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		      0);
	if (b.base == MAP_FAILED || mprotect(b.base + BUF_LEN, 4096, PROT_NONE) < 0) {
		perror("mmap");
		return 2;
	}
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);

	sweep(&b);
	/* Phase 0 warms the caches; 1 and 2 are the same calls again. */
	run_phase(0, seed, calls, &b);
	slab[0] = sunreclaim_kb();
	run_phase(1, seed, calls, &b);
	slab[1] = sunreclaim_kb();
	run_phase(2, seed, calls, &b);
	slab[2] = sunreclaim_kb();
	printf("# SUnreclaim after phases 0, 1, 2: %ld %ld %ld kB\n", slab[0], slab[1], slab[2]);
	ok(slab[0] > 0 && !(slab[1] - slab[0] > SLAB_SLACK_KB && slab[2] - slab[1] > SLAB_SLACK_KB),
	   "unreclaimable slab does not grow across two equal phases (%+ld, %+ld kB)",
	   slab[1] - slab[0], slab[2] - slab[1]);

	nbad = kmsg >= 0 ? scan_kmsg(kmsg, first, sizeof(first)) : -1;
	if (nbad > 0)
		printf("# first: %s", first);
	ok(nbad == 0, "no kernel WARN/BUG/Oops/refcount/use-after-free lines (%d)", nbad);
	return tap_done();
}
