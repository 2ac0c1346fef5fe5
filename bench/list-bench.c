// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What mountd's List of every mount of a namespace costs a client that
 * uses the result, against reading the mounts without mountd, and where
 * that cost goes.  In a private mount namespace with EXTRA tmpfs mounts
 * (bench-mounts.h), interleaved round by round (round r starts with method
 * r mod 5, one untimed warm-up each):
 *
 *   mountinfo   read /proc/self/mountinfo and parse every field into a
 *               MountdMount (in place, \ooo unescaped, options into
 *               attribute bits, optional fields into propagation)
 *   List        List {} with mountd_client_list(): every field in a
 *               MountdMount (libmountd-list.c)
 *   List json-c List {} with mountd_client_call(), then every field of
 *               the json-c objects into a MountdMount: the client before
 *               mountd_client_list()
 *   List bytes  List {} over a plain socket, the reply read to its NUL and
 *               not parsed: mountd's part and the transfer
 *   statmount   listmount() + statmount(SB_BASIC|MNT_BASIC|MNT_ROOT|
 *               MNT_POINT|FS_TYPE|MNT_OPTS) per mount into a MountdMount;
 *               no source (6.12's statmount has none)
 *
 * The last round's results are compared mount by mount against List's:
 * mountinfo's every field it has, List json-c's all, statmount's all but
 * source and options;
 * a mismatch is printed and makes the exit status 1.  Medians, min and
 * max (bench-stats.h) and each median against mountinfo's.  Nothing is
 * asserted about time.
 *
 *   list-bench [EXTRA[:ROUNDS] ...]        default: 1000:15 10000:9 30000:5
 *
 * The counts are cumulative, as walk-bench's.  Needs mountd on its socket.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/mount.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "bench-mounts.h"
#include "bench-stats.h"
#include "libmountd-client.h"
#include "syscall-nr.h"

static const char *base = "/run/list-bench";

/* One method's mounts; its strings live in buffers the method keeps. */
typedef struct Result {
	MountdMount *m;
	size_t n, cap;
} Result;

static MountdMount *result_add(Result *r)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->m = bench_xrealloc(r->m, r->cap * sizeof(*r->m));
	}
	r->m[r->n] = (MountdMount){};
	return &r->m[r->n++];
}

/* ------------------------------------------------------------ mountinfo */

static char *mi_text;
static size_t mi_cap, mi_len;

/* The per-mount options ("rw,nosuid,relatime") as MOUNT_ATTR_* bits;
 * mountinfo names relatime and noatime, and no atime word is strictatime. */
static uint64_t mount_options(char *opts)
{
	static const struct {
		const char *name;
		uint64_t bit;
	} names[] = {{"ro", MOUNT_ATTR_RDONLY},
		     {"nosuid", MOUNT_ATTR_NOSUID},
		     {"nodev", MOUNT_ATTR_NODEV},
		     {"noexec", MOUNT_ATTR_NOEXEC},
		     {"noatime", MOUNT_ATTR_NOATIME},
		     {"nodiratime", MOUNT_ATTR_NODIRATIME},
		     {"nosymfollow", MOUNT_ATTR_NOSYMFOLLOW},
		     {"relatime", MOUNT_ATTR_RELATIME}};
	uint64_t attr = 0;
	bool atime = false;

	for (char *o = strtok(opts, ","); o; o = strtok(NULL, ","))
		for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
			if (strcmp(o, names[i].name) == 0) {
				attr |= names[i].bit;
				atime |= names[i].bit == MOUNT_ATTR_NOATIME || i == 7;
				break;
			}
	return atime ? attr : attr | MOUNT_ATTR_STRICTATIME;
}

static void list_mountinfo(Result *res)
{
	size_t len = 0;
	ssize_t n;
	char *line, *eol;
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		bench_die("/proc/self/mountinfo");
	for (;;) {
		if (mi_cap < len + 65536) {
			mi_cap = 2 * (len + 65536);
			mi_text = bench_xrealloc(mi_text, mi_cap);
		}
		n = read(fd, mi_text + len, mi_cap - len - 1);
		if (n < 0)
			bench_die("read mountinfo");
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	mi_text[len] = '\0';
	mi_len = len;

	for (line = mi_text; line && *line; line = eol) {
		char *p = line, *f[6], *x;
		MountdMount *m;

		eol = strchr(line, '\n');
		if (eol)
			*eol++ = '\0';
		for (int i = 0; i < 6; i++)
			f[i] = bench_next_field(&p);
		m = result_add(res);
		m->propagation = MS_PRIVATE;
		while ((x = bench_next_field(&p)) && strcmp(x, "-") != 0) {
			if (strncmp(x, "shared:", 7) == 0) {
				m->propagation = MS_SHARED;
				m->peer_group = strtoull(x + 7, NULL, 10);
			} else if (strncmp(x, "master:", 7) == 0) {
				if (m->propagation != MS_SHARED)
					m->propagation = MS_SLAVE;
				m->master = strtoull(x + 7, NULL, 10);
			} else if (strcmp(x, "unbindable") == 0)
				m->propagation = MS_UNBINDABLE;
		}
		m->fstype = bench_next_field(&p);
		m->source = bench_next_field(&p);
		m->options = bench_next_field(&p);
		if (!f[5] || !m->options) {
			fprintf(stderr, "mountinfo: short line\n");
			exit(2);
		}
		m->old_id = (uint32_t)strtoul(f[0], NULL, 10);
		m->old_parent_id = (uint32_t)strtoul(f[1], NULL, 10);
		if (sscanf(f[2], "%u:%u", &m->dev_major, &m->dev_minor) != 2) {
			fprintf(stderr, "mountinfo: device %s\n", f[2]);
			exit(2);
		}
		m->root = mountinfo_unescape(f[3]);
		m->mount_point = mountinfo_unescape(f[4]);
		m->attributes = mount_options(f[5]);
		mountinfo_unescape((char *)m->fstype);
		mountinfo_unescape((char *)m->source);
	}
}

/* ----------------------------------------------------------------- List */

static MountdClient *client;
static MountdMountList list;

static void list_mountd(Result *res)
{
	mountd_mount_list_done(&list);
	if (mountd_client_list(client, NULL, NULL, 0, &list) < 0 || list.reply.error) {
		fprintf(stderr, "List failed: %s\n", list.reply.error ?: "transport");
		exit(2);
	}
	/* The mounts are the list's; the check reads them from res. */
	res->m = list.mounts;
	res->n = list.n_mounts;
}

/* ------------------------------------------------------- List by json-c */

static MountdReply json_reply;

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : NULL;
}

static uint64_t jnum(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? (uint64_t)json_object_get_int64(v) : 0;
}

static void list_json(Result *res)
{
	static const struct {
		const char *name;
		uint64_t bit;
	} flags[] = {
		{"readOnly", MOUNT_ATTR_RDONLY},       {"noSuid", MOUNT_ATTR_NOSUID},
		{"noDev", MOUNT_ATTR_NODEV},	       {"noExec", MOUNT_ATTR_NOEXEC},
		{"noDiratime", MOUNT_ATTR_NODIRATIME}, {"noSymfollow", MOUNT_ATTR_NOSYMFOLLOW}};
	json_object *mounts, *attrs, *v;
	size_t n;

	mountd_reply_done(&json_reply);
	if (mountd_client_call(client, "List", NULL, NULL, 0, &json_reply) < 0 ||
	    json_reply.error ||
	    !json_object_object_get_ex(json_reply.parameters, "mounts", &mounts)) {
		fprintf(stderr, "List (json-c) failed\n");
		exit(2);
	}
	n = json_object_array_length(mounts);
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(mounts, i);
		MountdMount *m = result_add(res);
		const char *s;

		m->id = jnum(o, "id");
		m->parent_id = jnum(o, "parentId");
		m->old_id = (uint32_t)jnum(o, "oldId");
		m->old_parent_id = (uint32_t)jnum(o, "oldParentId");
		m->fstype = jstr(o, "fsType");
		m->source = jstr(o, "source");
		m->root = jstr(o, "root");
		m->mount_point = jstr(o, "mountPoint");
		m->options = jstr(o, "options");
		if (json_object_object_get_ex(o, "attributes", &attrs)) {
			for (size_t k = 0; k < sizeof(flags) / sizeof(*flags); k++)
				if (json_object_object_get_ex(attrs, flags[k].name, &v) &&
				    json_object_get_boolean(v))
					m->attributes |= flags[k].bit;
			s = jstr(attrs, "atime") ?: "";
			m->attributes |= strcmp(s, "noatime") == 0	 ? MOUNT_ATTR_NOATIME
					 : strcmp(s, "strictatime") == 0 ? MOUNT_ATTR_STRICTATIME
									 : 0;
		}
		s = jstr(o, "propagation") ?: "";
		m->propagation = strcmp(s, "shared") == 0	? MS_SHARED
				 : strcmp(s, "slave") == 0	? MS_SLAVE
				 : strcmp(s, "unbindable") == 0 ? MS_UNBINDABLE
								: MS_PRIVATE;
		m->peer_group = jnum(o, "peerGroup");
		m->master = jnum(o, "master");
		if (sscanf(jstr(o, "device") ?: "", "%u:%u", &m->dev_major, &m->dev_minor) != 2) {
			fprintf(stderr, "List (json-c): no device\n");
			exit(2);
		}
	}
}

/* ------------------------------------------------- List, bytes only */

static int raw_fd = -1;
static char *raw_buf;
static size_t raw_cap, raw_len;

static void list_bytes(Result *res)
{
	static const char call[] = "{\"method\":\"io.mountd.Mount.List\",\"parameters\":{}}";
	size_t scanned = 0;

	if (send(raw_fd, call, sizeof(call), MSG_NOSIGNAL) != (ssize_t)sizeof(call))
		bench_die("send List");
	raw_len = 0;
	for (;;) {
		ssize_t n;

		if (raw_cap < raw_len + 65536) {
			raw_cap = 2 * (raw_len + 65536);
			raw_buf = bench_xrealloc(raw_buf, raw_cap);
		}
		n = recv(raw_fd, raw_buf + raw_len, raw_cap - raw_len, 0);
		if (n <= 0)
			bench_die("recv List");
		raw_len += (size_t)n;
		if (memchr(raw_buf + scanned, 0, raw_len - scanned))
			break;
		scanned = raw_len;
	}
	res->n = 0; /* nothing parsed: not compared */
}

/* ------------------------------------------------ listmount + statmount */

static uint64_t *ids;
static size_t ids_cap;
static char *sm_strs;
static size_t sm_used, sm_cap;
#define SM_MASK                                                                                \
	(STATMOUNT_SB_BASIC | STATMOUNT_MNT_BASIC | STATMOUNT_MNT_ROOT | STATMOUNT_MNT_POINT | \
	 STATMOUNT_FS_TYPE | STATMOUNT_MNT_OPTS)

/* Strings kept in one buffer of offsets, resolved after the walk (the
 * buffer moves as it grows). */
static size_t sm_keep(const char *s)
{
	size_t n = strlen(s) + 1, at = sm_used;

	if (sm_cap < sm_used + n) {
		sm_cap = 2 * (sm_used + n) + 65536;
		sm_strs = bench_xrealloc(sm_strs, sm_cap);
	}
	memcpy(sm_strs + at, s, n);
	sm_used += n;
	return at;
}

static void list_statmount(Result *res)
{
	static char buf[16384];
	struct statmount *sm = (struct statmount *)buf;
	unsigned long calls = 0;
	size_t n = bench_listmount(&ids, &ids_cap, &calls);

	sm_used = 0;
	for (size_t i = 0; i < n; i++) {
		struct bench_mnt_id_req q = {
			.size = MNT_ID_REQ_SIZE_VER0, .mnt_id = ids[i], .param = SM_MASK};
		MountdMount *m;

		if (syscall(__NR_statmount, &q, buf, sizeof(buf), 0) < 0)
			bench_die("statmount");
		m = result_add(res);
		m->id = sm->mnt_id;
		m->parent_id = sm->mnt_parent_id;
		m->old_id = sm->mnt_id_old;
		m->old_parent_id = sm->mnt_parent_id_old;
		m->attributes = sm->mnt_attr;
		m->propagation = sm->mnt_propagation;
		m->peer_group = sm->mnt_peer_group;
		m->master = sm->mnt_master;
		m->dev_major = sm->sb_dev_major;
		m->dev_minor = sm->sb_dev_minor;
		m->fstype = (const char *)sm_keep(sm->str + sm->fs_type);
		m->root = (const char *)sm_keep(sm->str + sm->mnt_root);
		m->mount_point = (const char *)sm_keep(sm->str + sm->mnt_point);
		m->options = (const char *)sm_keep(sm->str + sm->mnt_opts);
	}
	for (size_t i = 0; i < res->n; i++) {
		MountdMount *m = &res->m[i];

		m->fstype = sm_strs + (size_t)m->fstype;
		m->root = sm_strs + (size_t)m->root;
		m->mount_point = sm_strs + (size_t)m->mount_point;
		m->options = sm_strs + (size_t)m->options;
	}
}

/* --------------------------------------------------------------- checks */

typedef struct Method {
	const char *name;
	void (*list)(Result *);
	Result res;
	double *t;
} Method;

static unsigned long mismatches, compared;

static int by_old_id(const void *a, const void *b)
{
	uint32_t x = ((const MountdMount *)a)->old_id, y = ((const MountdMount *)b)->old_id;

	return x < y ? -1 : x > y;
}

static void mismatch(const char *method, const MountdMount *m, const char *what, const char *a,
		     const char *b)
{
	if (mismatches++ < 10)
		fprintf(stderr, "mismatch: %s, mount %u (%s): %s: List '%s', %s '%s'\n", method,
			m->old_id, m->mount_point ?: "?", what, a ?: "(none)", method,
			b ?: "(none)");
}

static void cmp_str(const char *method, const MountdMount *m, const char *what, const char *a,
		    const char *b)
{
	compared++;
	if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
		mismatch(method, m, what, a, b);
}

static void cmp_num(const char *method, const MountdMount *m, const char *what, uint64_t a,
		    uint64_t b)
{
	char x[32], y[32];

	compared++;
	if (a == b)
		return;
	snprintf(x, sizeof(x), "%#" PRIx64, a);
	snprintf(y, sizeof(y), "%#" PRIx64, b);
	mismatch(method, m, what, x, y);
}

enum {
	CHECK_IDS = 1 << 0,	/* the unique IDs */
	CHECK_STRINGS = 1 << 1, /* source and options (statmount has neither) */
	CHECK_ROOT = 1 << 2,	/* "/dev/root" too (mountinfo keeps the kernel's name) */
};

/* The method's mounts against List's (ref), by old ID: what both know. */
static void check(const Method *ref, const Method *m, unsigned what)
{
	MountdMount *a, *b;
	size_t n = ref->res.n;

	if (m->res.n != n) {
		fprintf(stderr, "mismatch: %s has %zu mounts, List %zu\n", m->name, m->res.n, n);
		mismatches++;
		return;
	}
	a = bench_xrealloc(NULL, n * sizeof(*a) + 1);
	b = bench_xrealloc(NULL, n * sizeof(*b) + 1);
	memcpy(a, ref->res.m, n * sizeof(*a));
	memcpy(b, m->res.m, n * sizeof(*b));
	qsort(a, n, sizeof(*a), by_old_id);
	qsort(b, n, sizeof(*b), by_old_id);
	for (size_t i = 0; i < n; i++) {
		const MountdMount *x = &a[i], *y = &b[i];

		cmp_num(m->name, x, "old ID", x->old_id, y->old_id);
		cmp_num(m->name, x, "old parent ID", x->old_parent_id, y->old_parent_id);
		cmp_str(m->name, x, "type", x->fstype, y->fstype);
		/* mountd names /dev/root's device node, as findmnt does. */
		if ((what & CHECK_STRINGS) &&
		    ((what & CHECK_ROOT) || !y->source || strcmp(y->source, "/dev/root") != 0))
			cmp_str(m->name, x, "source", x->source, y->source);
		if (what & CHECK_STRINGS)
			cmp_str(m->name, x, "options", x->options, y->options);
		cmp_str(m->name, x, "root", x->root, y->root);
		cmp_str(m->name, x, "mount point", x->mount_point, y->mount_point);
		cmp_num(m->name, x, "attributes", x->attributes, y->attributes);
		cmp_num(m->name, x, "propagation", x->propagation, y->propagation);
		cmp_num(m->name, x, "peer group", x->peer_group, y->peer_group);
		cmp_num(m->name, x, "master", x->master, y->master);
		cmp_num(m->name, x, "device", (uint64_t)x->dev_major << 32 | x->dev_minor,
			(uint64_t)y->dev_major << 32 | y->dev_minor);
		if (what & CHECK_IDS) {
			cmp_num(m->name, x, "ID", x->id, y->id);
			cmp_num(m->name, x, "parent ID", x->parent_id, y->parent_id);
		}
	}
	free(a);
	free(b);
}

/* ----------------------------------------------------------------- main */

static int run_size(Method *m, size_t nm, unsigned *n_mounts, unsigned extra, unsigned rounds)
{
	double start = bench_now();
	BenchStats ref;

	while (*n_mounts < extra)
		bench_mount_add(base, (*n_mounts)++);
	printf("\n== %u extra tmpfs mounts: set up in %.1f s; %u rounds\n", extra,
	       bench_now() - start, rounds);
	for (size_t k = 0; k < nm; k++) {
		m[k].t = bench_xrealloc(m[k].t, rounds * sizeof(*m[k].t));
		m[k].res.n = 0;
		m[k].list(&m[k].res); /* warm-up, not timed */
	}
	for (unsigned r = 0; r < rounds; r++)
		for (size_t j = 0; j < nm; j++) {
			Method *x = &m[(r + j) % nm];
			double t0;

			x->res.n = 0;
			t0 = bench_now();
			x->list(&x->res);
			x->t[r] = bench_now() - t0;
		}
	mismatches = compared = 0;
	check(&m[1], &m[0], CHECK_STRINGS);
	check(&m[1], &m[2], CHECK_IDS | CHECK_STRINGS | CHECK_ROOT);
	check(&m[1], &m[4], CHECK_IDS);
	ref = bench_stats(m[0].t, rounds);
	printf("%zu mounts; List's reply %.1f MiB (%.0f bytes a mount), mountinfo %.1f MiB\n",
	       m[1].res.n, raw_len / 1048576.0, (double)raw_len / m[1].res.n, mi_len / 1048576.0);
	printf("%-14s %10s %10s %10s %8s\n", "method", "median ms", "min ms", "max ms", "vs first");
	for (size_t k = 0; k < nm; k++) {
		BenchStats st = bench_stats(m[k].t, rounds);

		printf("%-14s %10.1f %10.1f %10.1f %7.2fx\n", m[k].name, st.median * 1e3,
		       st.min * 1e3, st.max * 1e3, st.median / ref.median);
	}
	printf("check: %lu values compared, %lu mismatch(es)\n", compared, mismatches);
	fflush(stdout);
	return mismatches ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const char *defaults[] = {"1000:15", "10000:9", "30000:5"};
	const char **sizes = argc > 1 ? (const char **)argv + 1 : defaults;
	int nsizes = argc > 1 ? argc - 1 : 3, rc = 0;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	unsigned n_mounts = 0;
	Method m[] = {
		{"mountinfo", list_mountinfo, {}, NULL}, {"List", list_mountd, {}, NULL},
		{"List json-c", list_json, {}, NULL},	 {"List bytes", list_bytes, {}, NULL},
		{"statmount", list_statmount, {}, NULL},
	};
	const size_t nm = sizeof(m) / sizeof(*m);

	setvbuf(stdout, NULL, _IOLBF, 0);
	bench_mounts_setup(base, "list-bench");
	if (mountd_client_connect(&client, NULL) < 0)
		bench_die("connect to mountd");
	mountd_client_set_timeout(client, 0);
	strncpy(sa.sun_path, mountd_socket_path(NULL), sizeof(sa.sun_path) - 1);
	raw_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (raw_fd < 0 || connect(raw_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		bench_die("connect to mountd");
	printf("list-bench: every mount of a namespace, five ways, interleaved (round r starts "
	       "with method r mod 5)\n");
	for (int i = 0; i < nsizes; i++) {
		unsigned extra = 0, rounds = 7;

		if (sscanf(sizes[i], "%u:%u", &extra, &rounds) < 1 || rounds == 0) {
			fprintf(stderr, "usage: list-bench [EXTRA_MOUNTS[:ROUNDS] ...]\n");
			return 2;
		}
		rc |= run_size(m, nm, &n_mounts, extra, rounds);
	}
	return rc;
}
