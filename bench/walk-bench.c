// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What it costs to learn, for EVERY mount of the caller's namespace, its fs
 * type, source, options, mount point and statfs() block and inode counts,
 * four ways, interleaved round by round in one run (round r starts with
 * method r mod 4, so no method always runs first or after the same one):
 *
 *   (a) read and parse /proc/self/mountinfo (every field, \ooo unescaped),
 *       then statfs() each mount point
 *   (b) listmount() in batches, statmount(SB_BASIC|MNT_BASIC|PROPAGATE_FROM|
 *       MNT_ROOT|MNT_POINT|FS_TYPE|MNT_OPTS) per mount, statfs() each mount
 *       point.  6.12's statmount has no source: (b) reports none (the table
 *       says so) rather than fetching it some other way
 *   (c) listmount(), then fsinfo() by mount ID once per attribute, as the
 *       seed's interface allows: statfs, ids (type), source, parameter for
 *       Nth = 0, 1, ... until ENODATA, mount_point.  A kernel without
 *       mount_point (attribute 20) gets the mount point from
 *       statmount(MNT_POINT) instead, and the table says so
 *   (d) listmount(), then ONE fsinfo(mount_record) per mount ID
 *
 * with EXTRA tmpfs mounts (each its own superblock, with size=, nr_inodes=,
 * mode=, source and mount flags varying) added to a private mount namespace
 * it unshares.  After the rounds, the last round's results of every method
 * are compared mount by mount (count, type, source, mount point, root,
 * options, statfs counts): a mismatch is printed and makes the exit status
 * 1.  Tables give median, min and max per method and the ratio of each
 * median to (a)'s and (b)'s; a method the kernel cannot do (fsinfo() ENOSYS,
 * mount_record EOPNOTSUPP) is "n/a" and the others still run.  Nothing is
 * asserted about time.
 *
 *   walk-bench [EXTRA[:ROUNDS] | peers:PEERS[:ROUNDS] ...]
 *                              default: peers:1000:5 1000:31 10000:11 30000:9
 *
 * The mount counts are cumulative: 10000 means 9000 more after the 1000.
 * peers:N times (a), (b) and the walk without (e) and with (f)
 * propagate_from in a slave namespace of an N-mount peer group (see
 * run_peers()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fsinfo.h>
#include <linux/mount.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-mounts.h"
#include "bench-stats.h"
#include "syscall-nr.h"

/* The attributes and the by-ID parameters of the final uapi, spelled out so
 * that this builds against the seed's header as well as the new one. */
#define ATTR_STATFS		0
#define ATTR_IDS		2
#define ATTR_PARAMETER		15
#define ATTR_SOURCE		16
#define ATTR_MOUNT_POINT	20
#define ATTR_MOUNT_RECORD	22
#define NEW_FLAG_QUERY_MOUNT_ID 0x00000001u /* in params.flags */
#define NEW_FLAG_WALK_MOUNTS	0x00000002u /* in params.flags */
#define NEW_FLAG_PROPAGATE_FROM 0x00000004u /* in params.flags, with a record */
#define OLD_FLAG_QUERY_MOUNT_ID 0x01000000u /* in params.at_flags (series before issue 12) */

struct wb_params {
	uint32_t at_flags, request, Nth, Mth;
	uint32_t flags, spare0; /* the old ABI: mount ID low, high */
	uint64_t mnt_id;
	uint64_t spare1;
};

/* The record as issue 32 left it; kernels before that end at `missing`
 * (then `reserved`, always 0): RECORD_V0 bytes. */
struct wb_mount_record {
	uint32_t size, nr_parameters;
	uint64_t mnt_id, parent_id, mnt_attr, mnt_propagation, sb_flags;
	struct fsinfo_statfs statfs;
	uint32_t dev_major, dev_minor;
	uint32_t fs_type, source, mount_point, mount_root, parameters, missing;
	uint64_t peer_group, master, propagate_from;
	uint32_t security_parameters, nr_security_parameters;
	int32_t statfs_error;
	uint32_t reserved;
};
#define RECORD_V0	 offsetof(struct wb_mount_record, peer_group)
#define RECORD_NO_STATFS 0x1u /* FSINFO_RECORD_NO_STATFS */

_Static_assert(sizeof(struct wb_params) == sizeof(struct fsinfo_params), "fsinfo_params");
#if FSINFO_FLAG_QUERY_MOUNT_ID == 0x00000001
/* Built against the new header: our copies must be its layout. */
_Static_assert(offsetof(struct fsinfo_params, mnt_id) == offsetof(struct wb_params, mnt_id),
	       "mnt_id");
_Static_assert(sizeof(struct fsinfo_mount_record) == sizeof(struct wb_mount_record), "record");
_Static_assert(offsetof(struct fsinfo_mount_record, nr_parameters) ==
		       offsetof(struct wb_mount_record, nr_parameters),
	       "record");
_Static_assert(fsinfo_attr_mount_record == ATTR_MOUNT_RECORD, "attr");
#else
_Static_assert(RECORD_V0 == 136, "record");
#endif

struct wb_mnt_id_req {
	uint32_t size, spare;
	uint64_t mnt_id, param;
};

static const char *base = "/run/walk-bench";

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* ---------------------------------------------------------------- results */

/* Strings of one walk live in chunks that are reused, never moved: every
 * method pays the same (small) cost to keep what it learnt. */
typedef struct Arena {
	char **chunks;
	size_t nchunks, cur, used;
} Arena;
#define CHUNK (1u << 20)

static char *arena_put(Arena *a, const char *s, size_t len)
{
	char *d;

	if (len + 1 > CHUNK) {
		fprintf(stderr, "string of %zu bytes\n", len);
		exit(2);
	}
	if (a->nchunks == 0 || a->used + len + 1 > CHUNK) {
		if (a->nchunks && a->cur + 1 < a->nchunks) {
			a->cur++;
		} else {
			a->chunks =
				bench_xrealloc(a->chunks, (a->nchunks + 1) * sizeof(*a->chunks));
			a->chunks[a->nchunks] = bench_xrealloc(NULL, CHUNK);
			a->cur = a->nchunks++;
		}
		a->used = 0;
	}
	d = a->chunks[a->cur] + a->used;
	memcpy(d, s, len);
	d[len] = '\0';
	a->used += len + 1;
	return d;
}

static char *arena_str(Arena *a, const char *s)
{
	return s ? arena_put(a, s, strlen(s)) : NULL;
}

/* NULL means "this method does not learn it". */
typedef struct Rec {
	uint64_t id;	 /* unique mount ID; 0 for mountinfo */
	uint32_t old_id; /* the reused ID of mountinfo; 0 where unknown */
	const char *type, *source, *point, *root, *opts;
	int have_statfs;
	uint64_t blocks, files;
	uint32_t bsize;
} Rec;

typedef struct Walk {
	Rec *r;
	size_t n, cap;
	Arena strs;
	unsigned long calls, errors; /* syscalls made, answers missing */
} Walk;

static void walk_reset(Walk *w)
{
	w->n = 0;
	w->calls = w->errors = 0;
	w->strs.cur = 0;
	w->strs.used = 0;
}

static Rec *walk_add(Walk *w)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 1024;
		w->r = bench_xrealloc(w->r, w->cap * sizeof(*w->r));
	}
	memset(&w->r[w->n], 0, sizeof(*w->r));
	return &w->r[w->n++];
}

/* A growing scratch buffer, kept across rounds (every method has its own). */
typedef struct Buf {
	char *p;
	size_t cap;
} Buf;

static void buf_need(Buf *b, size_t n)
{
	if (b->cap < n) {
		b->cap = n < 4096 ? 4096 : n;
		b->p = bench_xrealloc(b->p, b->cap);
	}
}

/* A comma-joined option list being built. */
static void opt_add(Buf *b, size_t *len, const char *s, size_t n)
{
	buf_need(b, *len + n + 2);
	if (*len)
		b->p[(*len)++] = ',';
	memcpy(b->p + *len, s, n);
	*len += n;
	b->p[*len] = '\0';
}

static void do_statfs(Walk *w, Rec *r)
{
	struct statfs sfs;

	w->calls++;
	if (r->point && statfs(r->point, &sfs) == 0) {
		r->have_statfs = 1;
		r->blocks = sfs.f_blocks;
		r->files = sfs.f_files;
		r->bsize = sfs.f_bsize;
	} else {
		w->errors++;
	}
}

/* ------------------------------------------------------- (a) mountinfo */

static Buf mi_text, mi_opts;

static void walk_mountinfo(Walk *w)
{
	size_t len = 0;
	ssize_t n;
	char *line, *eol;
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

	w->calls++;
	if (fd < 0)
		die("/proc/self/mountinfo");
	for (;;) {
		buf_need(&mi_text, len + 65536);
		n = read(fd, mi_text.p + len, mi_text.cap - len - 1);
		w->calls++;
		if (n < 0)
			die("read mountinfo");
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	mi_text.p[len] = '\0';

	for (line = mi_text.p; line && *line; line = eol) {
		char *p = line, *f[6], *type, *source, *super, *x;
		size_t olen = 0;
		Rec *r;

		eol = strchr(line, '\n');
		if (eol)
			*eol++ = '\0';
		for (int i = 0; i < 6; i++)
			f[i] = bench_next_field(&p);
		do /* optional fields up to the separator */
			x = bench_next_field(&p);
		while (x && strcmp(x, "-") != 0);
		type = bench_next_field(&p);
		source = bench_next_field(&p);
		super = bench_next_field(&p);
		if (!f[5] || !super) {
			fprintf(stderr, "mountinfo: short line\n");
			exit(2);
		}
		r = walk_add(w);
		r->old_id = (uint32_t)strtoul(f[0], NULL, 10);
		r->root = arena_str(&w->strs, mountinfo_unescape(f[3]));
		r->point = arena_str(&w->strs, mountinfo_unescape(f[4]));
		r->type = arena_str(&w->strs, mountinfo_unescape(type));
		r->source = arena_str(&w->strs, mountinfo_unescape(source));
		/* The mount's ro/rw and flags, then the superblock's options
		 * without its own ro/rw: the list fsinfo's parameters are. */
		opt_add(&mi_opts, &olen, f[5], strlen(f[5]));
		x = strchr(super, ',');
		if (x)
			opt_add(&mi_opts, &olen, x + 1, strlen(x + 1));
		r->opts = arena_str(&w->strs, mountinfo_unescape(mi_opts.p));
		do_statfs(w, r);
	}
}

/* ------------------------------------------------------------ listmount */

static uint64_t *ids;
static size_t ids_cap;

static size_t list_mounts(Walk *w)
{
	return bench_listmount(&ids, &ids_cap, &w->calls);
}

/* ------------------------------------------------------- (b) statmount */

#define SM_MASK                                                                \
	(STATMOUNT_SB_BASIC | STATMOUNT_MNT_BASIC | STATMOUNT_PROPAGATE_FROM | \
	 STATMOUNT_MNT_ROOT | STATMOUNT_MNT_POINT | STATMOUNT_FS_TYPE | STATMOUNT_MNT_OPTS)

#ifndef SB_RDONLY
#define SB_RDONLY      1
#define SB_SYNCHRONOUS 16
#define SB_DIRSYNC     128
#define SB_LAZYTIME    (1 << 25)
#endif

static Buf sm_buf, sm_opts;

static struct statmount *statmount_of(Walk *w, Buf *b, uint64_t id, uint64_t mask)
{
	struct wb_mnt_id_req req = {.size = MNT_ID_REQ_SIZE_VER0, .mnt_id = id, .param = mask};

	buf_need(b, 4096);
	for (;;) {
		w->calls++;
		if (syscall(__NR_statmount, &req, b->p, b->cap, 0) == 0)
			return (struct statmount *)b->p;
		if (errno != EOVERFLOW)
			return NULL;
		buf_need(b, 2 * b->cap);
	}
}

/* The option list mountinfo shows (mount's, then superblock's without its
 * ro/rw), rebuilt from statmount's bits and mnt_opts, which in 6.12 is only
 * the LSM's and the filesystem's own options. */
static const char *statmount_opts(struct statmount *sm)
{
	uint64_t attr = sm->mnt_attr, atime = attr & MOUNT_ATTR__ATIME;
	size_t len = 0;

#define OPT(cond, name)                                              \
	do {                                                         \
		if (cond)                                            \
			opt_add(&sm_opts, &len, name, strlen(name)); \
	} while (0)
	OPT(1, attr & MOUNT_ATTR_RDONLY ? "ro" : "rw");
	OPT(attr & MOUNT_ATTR_NOSUID, "nosuid");
	OPT(attr & MOUNT_ATTR_NODEV, "nodev");
	OPT(attr & MOUNT_ATTR_NOEXEC, "noexec");
	OPT(atime == MOUNT_ATTR_NOATIME, "noatime");
	OPT(attr & MOUNT_ATTR_NODIRATIME, "nodiratime");
	OPT(atime == MOUNT_ATTR_RELATIME, "relatime");
	OPT(attr & MOUNT_ATTR_NOSYMFOLLOW, "nosymfollow");
	OPT(attr & MOUNT_ATTR_IDMAP, "idmapped");
	OPT(sm->sb_flags & SB_SYNCHRONOUS, "sync");
	OPT(sm->sb_flags & SB_DIRSYNC, "dirsync");
	OPT(sm->sb_flags & SB_LAZYTIME, "lazytime");
	OPT((sm->mask & STATMOUNT_MNT_OPTS) && sm->str[sm->mnt_opts], sm->str + sm->mnt_opts);
#undef OPT
	return mountinfo_unescape(sm_opts.p);
}

static void walk_statmount(Walk *w)
{
	size_t n = list_mounts(w);

	for (size_t i = 0; i < n; i++) {
		Rec *r = walk_add(w);
		struct statmount *sm = statmount_of(w, &sm_buf, ids[i], SM_MASK);

		r->id = ids[i];
		if (!sm) {
			w->errors++;
			continue;
		}
		r->old_id = sm->mnt_id_old;
		r->type = arena_str(&w->strs, sm->str + sm->fs_type);
		r->point = arena_str(&w->strs, sm->str + sm->mnt_point);
		r->root = arena_str(&w->strs, sm->str + sm->mnt_root);
		r->opts = arena_str(&w->strs, statmount_opts(sm));
		do_statfs(w, r);
	}
}

/* ---------------------------------------------------------- fsinfo() */

static enum { FSINFO_NONE, FSINFO_NEW_ABI, FSINFO_OLD_ABI } abi;
static int have_record, have_mount_point, have_walk, have_walk_pf;
static char why_c[128] = "fsinfo() by mount ID not tried", why_d[128] = "not tried",
	    why_e[128] = "not tried",
	    why_f[128] = "FSINFO_FLAG_PROPAGATE_FROM: what mountinfo and statmount() do";

static long fsinfo_id(Walk *w, uint64_t id, uint32_t request, uint32_t nth, void *buf, size_t size)
{
	struct wb_params p = {.request = request, .Nth = nth};

	if (abi == FSINFO_OLD_ABI) {
		p.at_flags = OLD_FLAG_QUERY_MOUNT_ID;
		p.flags = (uint32_t)id;
		p.spare0 = (uint32_t)(id >> 32);
	} else {
		p.flags = NEW_FLAG_QUERY_MOUNT_ID;
		p.mnt_id = id;
	}
	if (w)
		w->calls++;
	return syscall(__NR_fsinfo, -1, NULL, &p, buf, size);
}

/* A string attribute, NUL-terminated in b (the new kernel does not pad
 * strings).  Returns its length or -1 (errno). */
static long fsinfo_string(Walk *w, Buf *b, uint64_t id, uint32_t request, uint32_t nth)
{
	long n;

	buf_need(b, 4096);
	for (;;) {
		n = fsinfo_id(w, id, request, nth, b->p, b->cap);
		if (n < 0)
			return -1;
		if ((size_t)n < b->cap)
			break;
		buf_need(b, (size_t)n + 1);
	}
	b->p[n] = '\0';
	return n;
}

static Buf fc_buf, fc_opts, fc_sm;

static void walk_fsinfo_attrs(Walk *w)
{
	size_t n = list_mounts(w);

	for (size_t i = 0; i < n; i++) {
		Rec *r = walk_add(w);
		struct fsinfo_statfs st;
		struct fsinfo_ids fi;
		size_t olen = 0;
		long len;

		r->id = ids[i];
		if (fsinfo_id(w, ids[i], ATTR_STATFS, 0, &st, sizeof(st)) >= 0) {
			r->have_statfs = 1;
			r->blocks = st.f_blocks;
			r->files = st.f_files;
			r->bsize = st.f_bsize;
		} else {
			w->errors++;
		}
		if (fsinfo_id(w, ids[i], ATTR_IDS, 0, &fi, sizeof(fi)) >= 0) {
			fi.f_fs_name[sizeof(fi.f_fs_name) - 1] = '\0';
			r->type = arena_str(&w->strs, fi.f_fs_name);
		} else {
			w->errors++;
		}
		if (fsinfo_string(w, &fc_buf, ids[i], ATTR_SOURCE, 0) >= 0)
			r->source = arena_str(&w->strs, fc_buf.p);
		else
			w->errors++;
		for (uint32_t nth = 0;; nth++) {
			len = fsinfo_string(w, &fc_buf, ids[i], ATTR_PARAMETER, nth);
			if (len < 0)
				break;
			opt_add(&fc_opts, &olen, fc_buf.p, (size_t)len);
		}
		if (errno != ENODATA)
			w->errors++;
		r->opts = arena_str(&w->strs, olen ? fc_opts.p : "");
		if (have_mount_point) {
			if (fsinfo_string(w, &fc_buf, ids[i], ATTR_MOUNT_POINT, 0) >= 0)
				r->point = arena_str(&w->strs, fc_buf.p);
			else
				w->errors++;
		} else {
			struct statmount *sm = statmount_of(w, &fc_sm, ids[i], STATMOUNT_MNT_POINT);

			if (sm)
				r->point = arena_str(&w->strs, sm->str + sm->mnt_point);
			else
				w->errors++;
		}
	}
}

static Buf fd_buf, fd_opts;

/* One record, from either kind of (d)/(e) answer, into r. */
static void record_to_rec(Walk *w, Rec *r, const char *base)
{
	const struct wb_mount_record *mr = (const void *)base;
	size_t olen = 0;
	const char *s;

	r->id = mr->mnt_id;
	/* A part the kernel could not have is marked missing, its offset 0. */
	r->have_statfs = !(mr->missing & RECORD_NO_STATFS);
	r->blocks = mr->statfs.f_blocks;
	r->files = mr->statfs.f_files;
	r->bsize = mr->statfs.f_bsize;
	r->type = arena_str(&w->strs, base + mr->fs_type);
	r->source = arena_str(&w->strs, mr->source ? base + mr->source : "");
	r->point = mr->mount_point ? arena_str(&w->strs, base + mr->mount_point) : NULL;
	r->root = arena_str(&w->strs, mr->mount_root ? base + mr->mount_root : "");
	s = base + mr->parameters;
	for (uint32_t k = 0; k < mr->nr_parameters; k++) {
		size_t l = strlen(s);

		opt_add(&fd_opts, &olen, s, l);
		s += l + 1;
	}
	r->opts = arena_str(&w->strs, olen ? fd_opts.p : "");
}

static void walk_fsinfo_record(Walk *w)
{
	size_t n = list_mounts(w);

	buf_need(&fd_buf, 4096);
	for (size_t i = 0; i < n; i++) {
		Rec *r = walk_add(w);
		long got;

		r->id = ids[i];
		while ((got = fsinfo_id(w, ids[i], ATTR_MOUNT_RECORD, 0, fd_buf.p, fd_buf.cap)) >
		       (long)fd_buf.cap)
			buf_need(&fd_buf, (size_t)got);
		if (got < (long)RECORD_V0) {
			w->errors++;
			continue;
		}
		record_to_rec(w, r, fd_buf.p);
	}
}

static uint32_t walk_flags; /* NEW_FLAG_PROPAGATE_FROM for (f) */

/* (e): no listmount; the kernel walks the mounts and fills a 64 KiB
 * buffer with records per call. */
static void walk_fsinfo_walk(Walk *w)
{
	struct wb_params p = {.request = ATTR_MOUNT_RECORD,
			      .flags = NEW_FLAG_WALK_MOUNTS | walk_flags};
	long got;

	buf_need(&fd_buf, 65536);
	for (;;) {
		w->calls++;
		got = syscall(__NR_fsinfo, -1, NULL, &p, fd_buf.p, fd_buf.cap);
		if (got < 0 && errno == EOVERFLOW) {
			buf_need(&fd_buf, 2 * fd_buf.cap);
			continue;
		}
		if (got <= 0) {
			if (got < 0)
				w->errors++;
			return;
		}
		for (long off = 0; off < got;) {
			const struct wb_mount_record *mr = (const void *)(fd_buf.p + off);

			record_to_rec(w, walk_add(w), fd_buf.p + off);
			p.mnt_id = mr->mnt_id;
			off += (mr->size + 7) & ~7u;
		}
	}
}

/* What this kernel's fsinfo() can do, asked of the first mount listmount
 * gives.  Sets abi, have_mount_point and have_record. */
static void probe_fsinfo(void)
{
	Walk w = {};
	struct fsinfo_statfs st;
	char buf[4096];
	uint64_t id;

	list_mounts(&w);
	id = ids[0];
	abi = FSINFO_NEW_ABI;
	if (fsinfo_id(NULL, id, ATTR_STATFS, 0, &st, sizeof(st)) < 0) {
		int err = errno;

		abi = FSINFO_OLD_ABI; /* EINVAL: maybe the ID belongs in __reserved */
		if (err != EINVAL || fsinfo_id(NULL, id, ATTR_STATFS, 0, &st, sizeof(st)) < 0) {
			snprintf(why_c, sizeof(why_c), "fsinfo() by mount ID: %s", strerror(err));
			snprintf(why_d, sizeof(why_d), "%s", why_c);
			abi = FSINFO_NONE;
			return;
		}
	}
	snprintf(why_c, sizeof(why_c), "%s ABI (mount ID in %s)",
		 abi == FSINFO_NEW_ABI ? "new" : "old",
		 abi == FSINFO_NEW_ABI ? "params.mnt_id" : "__reserved[0..1]");
	have_mount_point = fsinfo_id(NULL, id, ATTR_MOUNT_POINT, 0, buf, sizeof(buf)) >= 0;
	if (!have_mount_point)
		snprintf(why_c + strlen(why_c), sizeof(why_c) - strlen(why_c),
			 "; mount_point: %s, mount point from statmount", strerror(errno));
	have_record = fsinfo_id(NULL, id, ATTR_MOUNT_RECORD, 0, buf, sizeof(buf)) >= 0;
	if (!have_record)
		snprintf(why_d, sizeof(why_d), "fsinfo(mount_record): %s", strerror(errno));
	else
		snprintf(why_d, sizeof(why_d), "one call per mount");
	if (have_record) {
		struct wb_params p = {.request = ATTR_MOUNT_RECORD, .flags = NEW_FLAG_WALK_MOUNTS};

		have_walk = syscall(__NR_fsinfo, -1, NULL, &p, buf, sizeof(buf)) >= 0;
		snprintf(why_e, sizeof(why_e), "%s",
			 have_walk ? "records of many mounts per call, 64 KiB buffer"
				   : strerror(errno));
		/* A kernel from before FSINFO_FLAG_PROPAGATE_FROM refuses it. */
		p.flags |= NEW_FLAG_PROPAGATE_FROM;
		have_walk_pf =
			have_walk && syscall(__NR_fsinfo, -1, NULL, &p, buf, sizeof(buf)) >= 0;
		if (have_walk && !have_walk_pf)
			snprintf(why_f, sizeof(why_f), "FSINFO_FLAG_PROPAGATE_FROM: %s",
				 strerror(errno));
	} else {
		snprintf(why_e, sizeof(why_e), "%s", why_d);
	}
}

/* ------------------------------------------------------------- mounts */

static unsigned n_mounts;

static void add_mount(unsigned i)
{
	bench_mount_add(base, i);
}

static void setup_namespace(void)
{
	bench_mounts_setup(base, "walk-bench");
}

/* ------------------------------------------------------------ methods */

typedef struct Method {
	const char *tag, *name;
	void (*walk)(Walk *);
	int available;
	const char *note;
	Walk w;
	double *t;
} Method;

/* ------------------------------------------------------------- checks */

static unsigned long mismatches, compared;

static void mismatch(const Rec *ref, const char *what, const char *m1, const char *v1,
		     const char *m2, const char *v2)
{
	if (++mismatches <= 12)
		fprintf(stdout, "  MISMATCH mount %u (%s): %s: %s '%s' vs %s '%s'\n", ref->old_id,
			ref->point ? ref->point : "?", what, m1, v1 ? v1 : "(none)", m2,
			v2 ? v2 : "(none)");
}

static void cmp_str(const Rec *ref, const char *what, const char *m1, const char *v1,
		    const char *m2, const char *v2)
{
	if (!v1 || !v2)
		return; /* one of them does not learn this */
	compared++;
	if (strcmp(v1, v2) != 0)
		mismatch(ref, what, m1, v1, m2, v2);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = ((const Rec *)a)->old_id, y = ((const Rec *)b)->old_id;

	return x < y ? -1 : x > y;
}

static int cmp_pstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Is point the mount point of only one mount?  (statfs() of a path sees the
 * top of a stack of mounts, fsinfo() by ID the mount itself.) */
static int unique_point(char **sorted, size_t n, const char *point)
{
	char **hit = bsearch(&point, sorted, n, sizeof(*sorted), cmp_pstr);

	if (!hit)
		return 0;
	return !((hit > sorted && strcmp(hit[-1], point) == 0) ||
		 (hit + 1 < sorted + n && strcmp(hit[1], point) == 0));
}

/* Every method's last walk, mount by mount, against (b)'s (which has both
 * IDs): (a) is matched through mountinfo's ID, (c) and (d) by position (the
 * same listmount order) and unique ID. */
static void check(Method *m, size_t nm)
{
	Walk *a = &m[0].w, *b = &m[1].w;
	char **points;
	size_t npoints = 0;

	mismatches = compared = 0;
	for (size_t k = 0; k < nm; k++)
		if (m[k].available && m[k].w.n != b->n) {
			printf("  MISMATCH: %s found %zu mounts, %s %zu\n", m[k].tag, m[k].w.n,
			       m[1].tag, b->n);
			mismatches++;
		}
	if (mismatches)
		return;
	qsort(a->r, a->n, sizeof(*a->r), cmp_u32);
	points = bench_xrealloc(NULL, (b->n + 1) * sizeof(*points));
	for (size_t i = 0; i < b->n; i++)
		if (b->r[i].point)
			points[npoints++] = (char *)b->r[i].point;
	qsort(points, npoints, sizeof(*points), cmp_pstr);

	for (size_t i = 0; i < b->n; i++) {
		const Rec *rb = &b->r[i], *ra;
		Rec key = {.old_id = rb->old_id};
		int uniq = rb->point && unique_point(points, npoints, rb->point);

		ra = bsearch(&key, a->r, a->n, sizeof(*a->r), cmp_u32);
		if (!ra) {
			printf("  MISMATCH: mount %u (%s) is not in mountinfo\n", rb->old_id,
			       rb->point);
			mismatches++;
			continue;
		}
		cmp_str(rb, "type", "(a)", ra->type, "(b)", rb->type);
		cmp_str(rb, "mount point", "(a)", ra->point, "(b)", rb->point);
		cmp_str(rb, "root", "(a)", ra->root, "(b)", rb->root);
		cmp_str(rb, "options", "(a)", ra->opts, "(b)", rb->opts);
		if (uniq && ra->have_statfs && rb->have_statfs) {
			compared++;
			if (ra->blocks != rb->blocks || ra->files != rb->files)
				mismatch(rb, "statfs", "(a)", "", "(b)", "differ");
		}
		for (size_t k = 2; k < nm; k++) {
			const Rec *rk = &m[k].w.r[i];

			if (!m[k].available)
				continue;
			compared++;
			if (rk->id != rb->id) {
				mismatch(rb, "listmount order", "(b)", "", m[k].tag, "differs");
				continue;
			}
			cmp_str(rb, "type", "(a)", ra->type, m[k].tag, rk->type);
			cmp_str(rb, "source", "(a)", ra->source, m[k].tag, rk->source);
			cmp_str(rb, "mount point", "(a)", ra->point, m[k].tag, rk->point);
			cmp_str(rb, "root", "(a)", ra->root, m[k].tag, rk->root);
			cmp_str(rb, "options", "(a)", ra->opts, m[k].tag, rk->opts);
			if (uniq && ra->have_statfs && rk->have_statfs) {
				char x[64], y[64];

				compared++;
				snprintf(x, sizeof(x), "%llu blocks %llu files",
					 (unsigned long long)ra->blocks,
					 (unsigned long long)ra->files);
				snprintf(y, sizeof(y), "%llu blocks %llu files",
					 (unsigned long long)rk->blocks,
					 (unsigned long long)rk->files);
				if (strcmp(x, y) != 0)
					mismatch(rb, "statfs", "(a)", x, m[k].tag, y);
			}
		}
	}
	free(points);
}

/* --------------------------------------------- a slave of a peer group */

static int run_size(Method *m, size_t nm, unsigned extra, unsigned rounds);

/* (f): the walk asking for propagate_from, as mountinfo and statmount()
 * always work it out. */
static void walk_fsinfo_walk_pf(Walk *w)
{
	walk_flags = NEW_FLAG_PROPAGATE_FROM;
	walk_fsinfo_walk(w);
	walk_flags = 0;
}

/*
 * The container's view: a mount namespace whose mounts are slaves of a peer
 * group of PEERS mounts that all live in another namespace.  For each slave
 * mount, mountinfo's propagate_from (and statmount()'s) looks through every
 * peer of its master for one in the reader's namespace: PEERS x PEERS steps
 * per read (systemd PR #43318: 0.46 s a read of mountinfo at ~1000 peers).
 * The walk does that only when asked (f).  The peer group lives in a
 * namespace of a child of ours and goes with it, so the sizes that follow
 * are as before.
 */
static int run_peers(Method *m, size_t nm, unsigned peers, unsigned rounds)
{
	char dir[PATH_MAX];
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		double start = bench_now();

		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			die("unshare");
		snprintf(dir, sizeof(dir), "%s/peer-src", base);
		if ((mkdir(dir, 0755) && errno != EEXIST) ||
		    mount("peer-src", dir, "tmpfs", 0, "size=1m") ||
		    mount(NULL, dir, NULL, MS_SHARED, NULL))
			die("peer-src");
		/* Binds of a shared mount join its peer group.  Their directories
		 * are outside it, or each would propagate to every peer. */
		for (unsigned i = 1; i < peers; i++) {
			char to[PATH_MAX + 32];

			snprintf(to, sizeof(to), "%s/peer-%u", base, i);
			if ((mkdir(to, 0755) && errno != EEXIST) ||
			    mount(dir, to, NULL, MS_BIND, NULL))
				die("bind peer");
		}
		printf("\n== a slave namespace of a %u-mount peer group (the container's view): "
		       "set up in %.1f s; %u rounds\n",
		       peers, bench_now() - start, rounds);
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			/* The container: every mount a slave of the one outside. */
			if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL))
				die("unshare slave");
			n_mounts = 0;
			_exit(run_size(m, nm, 0, rounds));
		}
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid");
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* --------------------------------------------------------------- main */

static int run_size(Method *m, size_t nm, unsigned extra, unsigned rounds)
{
	double start = bench_now();
	unsigned long total_mismatches;

	while (n_mounts < extra)
		add_mount(n_mounts++);
	if (extra)
		printf("\n== %u extra tmpfs mounts: set up in %.1f s; %u rounds\n", extra,
		       bench_now() - start, rounds);
	fflush(stdout);

	for (size_t k = 0; k < nm; k++) {
		m[k].t = bench_xrealloc(m[k].t, rounds * sizeof(*m[k].t));
		if (m[k].available) { /* warm-up, not timed: caches, buffers */
			walk_reset(&m[k].w);
			m[k].walk(&m[k].w);
		}
	}
	start = bench_now();
	for (unsigned r = 0; r < rounds; r++)
		for (size_t j = 0; j < nm; j++) {
			Method *x = &m[(r + j) % nm];
			double t0;

			if (!x->available)
				continue;
			walk_reset(&x->w);
			t0 = bench_now();
			x->walk(&x->w);
			x->t[r] = bench_now() - t0;
		}
	check(m, nm);
	total_mismatches = mismatches;

	printf("%zu mounts in the namespace; timed rounds took %.1f s; per walk:\n", m[1].w.n,
	       bench_now() - start);
	printf("%-44s %9s %9s %9s %7s %7s\n", "method", "median ms", "min ms", "max ms", "vs (a)",
	       "vs (b)");
	for (size_t k = 0; k < nm; k++) {
		char label[64];
		BenchStats st;

		snprintf(label, sizeof(label), "%s %s", m[k].tag, m[k].name);
		if (!m[k].available) {
			printf("%-44s %9s %9s %9s %7s %7s\n", label, "n/a", "n/a", "n/a", "n/a",
			       "n/a");
			continue;
		}
		st = bench_stats(m[k].t, rounds);
		printf("%-44s %9.1f %9.1f %9.1f %6.2fx %6.2fx\n", label, st.median * 1e3,
		       st.min * 1e3, st.max * 1e3, st.median / bench_stats(m[0].t, rounds).median,
		       st.median / bench_stats(m[1].t, rounds).median);
	}
	for (size_t k = 0; k < nm; k++) {
		printf("  %s %s", m[k].tag, m[k].note);
		if (m[k].available)
			printf(" [%.1f syscalls/mount%s]", (double)m[k].w.calls / m[k].w.n,
			       m[k].w.errors ? ", SOME ANSWERS MISSING" : "");
		if (m[k].available && m[k].w.errors)
			printf(" (%lu)", m[k].w.errors);
		printf("\n");
	}
	printf("check: %zu mounts, %lu values compared across methods, %lu mismatch(es)\n",
	       m[1].w.n, compared, total_mismatches);
	fflush(stdout);
	return total_mismatches ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const char *defaults[] = {"peers:1000:5", "1000:31", "10000:11", "30000:9"};
	const char **sizes = argc > 1 ? (const char **)argv + 1 : defaults;
	int nsizes = argc > 1 ? argc - 1 : 4, rc = 0;
	char note_c[256];
	Method m[] = {
		{"(a)",
		 "mountinfo + statfs",
		 walk_mountinfo,
		 1,
		 "read+parse /proc/self/mountinfo, statfs() per mount point",
		 {},
		 NULL},
		{"(b)",
		 "listmount + statmount + statfs",
		 walk_statmount,
		 1,
		 "no source: 6.12's statmount has none (not compared)",
		 {},
		 NULL},
		{"(c)", "listmount + fsinfo per attribute", walk_fsinfo_attrs, 0, note_c, {}, NULL},
		{"(d)", "listmount + fsinfo(mount_record)", walk_fsinfo_record, 0, why_d, {}, NULL},
		{"(e)", "fsinfo(mount_record) walk", walk_fsinfo_walk, 0, why_e, {}, NULL},
	};
	/* The slave namespace: (a), (b) and the walk without and with
	 * propagate_from. */
	Method mp[] = {
		{"(a)",
		 "mountinfo + statfs",
		 walk_mountinfo,
		 1,
		 "mountinfo works out propagate_from for every slave mount",
		 {},
		 NULL},
		{"(b)",
		 "listmount + statmount + statfs",
		 walk_statmount,
		 1,
		 "statmount(PROPAGATE_FROM) as in (a) above",
		 {},
		 NULL},
		{"(e)",
		 "fsinfo walk, no propagate_from",
		 walk_fsinfo_walk,
		 0,
		 "peer group and master, not propagate_from",
		 {},
		 NULL},
		{"(f)", "fsinfo walk + PROPAGATE_FROM", walk_fsinfo_walk_pf, 0, why_f, {}, NULL},
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	setup_namespace();
	probe_fsinfo();
	m[2].available = abi != FSINFO_NONE;
	m[3].available = m[2].available && have_record;
	m[4].available = m[3].available && have_walk;
	snprintf(note_c, sizeof(note_c), "statfs, ids, source, parameter Nth.., mount_point; %s",
		 why_c);
	printf("walk-bench: every mount's type, source, options, mount point and statfs, "
	       "five ways, interleaved (round r starts with method r mod 5)\n");
	for (int i = 0; i < nsizes; i++) {
		unsigned extra = 0, rounds = 7;

		if (sscanf(sizes[i], "peers:%u:%u", &extra, &rounds) >= 1 && rounds) {
			mp[2].available = m[4].available;
			mp[3].available = m[4].available && have_walk_pf;
			rc |= run_peers(mp, sizeof(mp) / sizeof(*mp), extra, rounds);
			continue;
		}
		if (sscanf(sizes[i], "%u:%u", &extra, &rounds) < 1 || rounds == 0) {
			fprintf(stderr, "usage: walk-bench [EXTRA_MOUNTS[:ROUNDS] | "
					"peers:PEERS[:ROUNDS] ...]\n");
			return 2;
		}
		rc |= run_size(m, sizeof(m) / sizeof(*m), extra, rounds);
	}
	return rc;
}
