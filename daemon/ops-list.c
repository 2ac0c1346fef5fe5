/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * List: the mounts of a namespace with their topology.  listmount() gives
 * the IDs, statmount(SB_BASIC|MNT_BASIC) - no strings, nothing asked of a
 * filesystem - the numbers, and one mountinfo of the namespace the strings,
 * the source among them (6.12's statmount() has none), each line matched
 * to its mount by the old ID through a sorted index.  List runs in a worker
 * that has joined the namespace, which reads its own mountinfo, so every
 * namespace has its sources; Watch, in the event loop, reads that of a
 * process of the namespace when it knows one.  A mount mountinfo does not
 * show (mounted in between) gets its strings from statmount().
 *
 * Not fsinfo()'s walk (FSINFO_FLAG_WALK_MOUNTS), though it is faster: its
 * records carry statfs(), which waits for ever on a FUSE mount whose
 * server does not answer, and one such mount would make List hang.
 *
 * What mountinfo cannot say, findmnt works out, and so do we: "/dev/root"
 * (the kernel's name for the device of root=) becomes the real device node.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ops-internal.h"
#include "sys-process.h"
#include "util.h"
#include "executor-worker.h"

void ops_mount_entry_done(OpsMountEntry *e)
{
	free(e->fstype);
	free(e->source);
	free(e->root);
	free(e->mount_point);
	free(e->options);
	*e = (OpsMountEntry){};
}

bool ops_mount_entry_equal(const OpsMountEntry *a, const OpsMountEntry *b)
{
	return a->id == b->id && a->parent_id == b->parent_id && a->attr == b->attr &&
	       a->propagation == b->propagation && a->peer_group == b->peer_group &&
	       a->master == b->master && streq_ptr(a->fstype, b->fstype) &&
	       streq_ptr(a->root, b->root) && streq_ptr(a->mount_point, b->mount_point) &&
	       streq_ptr(a->options, b->options);
}

void ops_list_result_done(OpsListResult *r)
{
	for (size_t i = 0; i < r->n_mounts; i++)
		ops_mount_entry_done(&r->mounts[i]);
	free(r->mounts);
	*r = (OpsListResult){};
}

static char *sm_string(const struct statmount *sm, uint64_t flag, uint32_t off)
{
	return strdup((sm->mask & flag) ? sm->str + off : "");
}

/* The device node of a block device number as udev names it in /dev: the
 * kernel name /sys/dev/block links to, with '!' for '/' ("cciss!c0d0").
 * NULL when it is no block device (0:N) or sysfs does not know it.  A
 * worker asks the host's sysfs, which it kept. */
static char *block_device_node(uint32_t major, uint32_t minor)
{
	int dir = worker_host_dir(WORKER_HOST_SYS_DEV_BLOCK);
	char link[64], target[PATH_MAX];
	char *name, *node = NULL;
	ssize_t n;

	if (major == 0)
		return NULL;
	snprintf(link, sizeof(link), "%s%u:%u", dir >= 0 ? "" : "/sys/dev/block/", major, minor);
	n = readlinkat(dir >= 0 ? dir : AT_FDCWD, link, target, sizeof(target) - 1);
	if (n <= 0)
		return NULL;
	target[n] = 0;
	name = strrchr(target, '/');
	name = name ? name + 1 : target;
	for (char *p = name; *p; p++)
		if (*p == '!')
			*p = '/';
	if (asprintf(&node, "/dev/%s", name) < 0)
		return NULL;
	return node;
}

/* The source as findmnt shows it. */
static char *entry_source(const OpsMountEntry *e, const char *source)
{
	char *s = NULL;

	if (streq(source, "/dev/root"))
		s = block_device_node(e->dev_major, e->dev_minor);
	return s ?: strdup(source);
}

/* The options as mountinfo's super options, which lead with the
 * superblock's ro/rw: a read-only superblock under a read-write mount is
 * still read-only, and says so. */
static char *super_options(const struct statmount *sm)
{
	const char *opts = (sm->mask & STATMOUNT_MNT_OPTS) ? sm->str + sm->mnt_opts : "";
	char *s = NULL;

	if (asprintf(&s, "%s%s%s", sm->sb_flags & MS_RDONLY ? "ro" : "rw", *opts ? "," : "", opts) <
	    0)
		return NULL;
	return s;
}

/* The strings of a mount mountinfo did not show, from statmount() (no
 * source). */
static int strings_from_statmount(uint64_t mnt_ns_id, OpsMountEntry *e)
{
	_cleanup_free_ struct statmount *sm = NULL;
	int r = mnt_statmount(mnt_ns_id, e->id,
			      STATMOUNT_SB_BASIC | STATMOUNT_MNT_ROOT | STATMOUNT_MNT_POINT |
				      STATMOUNT_FS_TYPE | STATMOUNT_MNT_OPTS,
			      &sm);

	if (r < 0)
		return r;
	e->fstype = sm_string(sm, STATMOUNT_FS_TYPE, sm->fs_type);
	e->root = sm_string(sm, STATMOUNT_MNT_ROOT, sm->mnt_root);
	e->mount_point = sm_string(sm, STATMOUNT_MNT_POINT, sm->mnt_point);
	e->options = super_options(sm);
	return e->fstype && e->root && e->mount_point && e->options ? 0 : -ENOMEM;
}

static int by_old_id(const void *a, const void *b)
{
	uint32_t x = (*(OpsMountEntry *const *)a)->id_old, y = (*(OpsMountEntry *const *)b)->id_old;

	return x < y ? -1 : x > y;
}

/* The next space-separated field of a mountinfo line, NUL-terminated. */
static char *field(char **p)
{
	char *s = *p, *end;

	if (!s)
		return NULL;
	end = strchr(s, ' ');
	if (end)
		*end++ = 0;
	*p = end;
	return s;
}

static bool number(const char *s, char end, uint32_t *ret)
{
	char *e;
	unsigned long v;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &e, 10);
	if (errno || *e != end || v > UINT32_MAX)
		return false;
	*ret = (uint32_t)v;
	return true;
}

/* The per-mount options ("rw,nosuid,relatime") as statmount()'s mnt_attr:
 * the kernel writes both from the same flags (show_vfsmnt_opts(),
 * mnt_to_attr_flags()), noatime before relatime, no word strictatime. */
static uint64_t mount_attr(char *opts)
{
	static const struct {
		const char *name;
		uint64_t bit;
	} names[] = {
		{"ro", MOUNT_ATTR_RDONLY},	   {"nosuid", MOUNT_ATTR_NOSUID},
		{"nodev", MOUNT_ATTR_NODEV},	   {"noexec", MOUNT_ATTR_NOEXEC},
		{"noatime", MOUNT_ATTR_NOATIME},   {"nodiratime", MOUNT_ATTR_NODIRATIME},
		{"relatime", MOUNT_ATTR_RELATIME}, {"nosymfollow", MOUNT_ATTR_NOSYMFOLLOW},
		{"idmapped", MOUNT_ATTR_IDMAP},
	};
	bool noatime = false, relatime = false;
	uint64_t attr = 0;
	char *o, *save = NULL;

	for (o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		noatime |= streq(o, "noatime");
		relatime |= streq(o, "relatime");
		for (size_t i = 0; i < ELEMENTSOF(names); i++)
			if (streq(o, names[i].name)) {
				attr |= names[i].bit;
				break;
			}
	}
	attr &= ~(uint64_t)MOUNT_ATTR__ATIME;
	return attr | (noatime	  ? MOUNT_ATTR_NOATIME
		       : relatime ? MOUNT_ATTR_RELATIME
				  : MOUNT_ATTR_STRICTATIME);
}

/* One line of mountinfo, "ID PARENT MAJ:MIN ROOT POINT OPTS [OPTIONAL...] -
 * TYPE SOURCE SUPER", split in place (strings still escaped). */
typedef struct MountinfoLine {
	uint32_t id, parent, major, minor;
	char *root, *point, *opts, *fstype, *source, *super;
	uint64_t propagation, peer_group, master; /* as statmount()'s */
} MountinfoLine;

static bool split_line(char *line, MountinfoLine *l)
{
	char *p = line, *f, *dev;

	line[strcspn(line, "\n")] = 0;
	*l = (MountinfoLine){};
	if (!number(field(&p), 0, &l->id) || !number(field(&p), 0, &l->parent))
		return false;
	dev = field(&p);
	if (!dev || !number(dev, ':', &l->major) || !number(strchr(dev, ':') + 1, 0, &l->minor))
		return false;
	l->root = field(&p);
	l->point = field(&p);
	l->opts = field(&p);
	/* The optional fields as statmount() reports them. */
	while ((f = field(&p)) && !streq(f, "-")) {
		uint32_t v;

		if (startswith(f, "shared:") && number(f + 7, 0, &v)) {
			l->propagation |= MS_SHARED;
			l->peer_group = v;
		} else if (startswith(f, "master:") && number(f + 7, 0, &v)) {
			l->propagation |= MS_SLAVE;
			l->master = v;
		} else if (streq(f, "unbindable"))
			l->propagation |= MS_UNBINDABLE;
	}
	if (!l->propagation)
		l->propagation = MS_PRIVATE;
	l->fstype = field(&p);
	l->source = field(&p);
	l->super = field(&p);
	return f && l->root && l->point && l->opts && l->fstype && l->source && l->super;
}

/* The strings of the line into e. */
static int take_strings(OpsMountEntry *e, MountinfoLine *l)
{
	e->fstype = strdup(mountinfo_unescape(l->fstype));
	e->root = strdup(mountinfo_unescape(l->root));
	e->mount_point = strdup(mountinfo_unescape(l->point));
	e->source = entry_source(e, mountinfo_unescape(l->source));
	/* As mountinfo writes them: the options of the IDL. */
	e->options = strdup(l->super);
	return e->fstype && e->root && e->mount_point && e->source && e->options ? 0 : -ENOMEM;
}

/* A line into the entry with its old ID (and that parent and device: an
 * old ID freed and taken again since statmount() names another mount). */
static int fill_from_line(char *line, OpsMountEntry **index, size_t n)
{
	OpsMountEntry key, *k = &key, **found, *e;
	MountinfoLine l;

	if (!split_line(line, &l))
		return 0;
	key.id_old = l.id;
	found = bsearch(&k, index, n, sizeof(*index), by_old_id);
	if (!found)
		return 0;
	e = *found;
	if (e->fstype || e->parent_id_old != l.parent || e->dev_major != l.major ||
	    e->dev_minor != l.minor)
		return 0;
	return take_strings(e, &l);
}

static int fill_from_mountinfo(FILE *f, OpsListResult *res)
{
	_cleanup_free_ OpsMountEntry **index = calloc(res->n_mounts ?: 1, sizeof(*index));
	_cleanup_free_ char *line = NULL;
	size_t size = 0;
	int r;

	if (!index)
		return -ENOMEM;
	for (size_t i = 0; i < res->n_mounts; i++)
		index[i] = &res->mounts[i];
	qsort(index, res->n_mounts, sizeof(*index), by_old_id);
	while (getline(&line, &size, f) > 0) {
		r = fill_from_line(line, index, res->n_mounts);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The unique IDs of the namespace's mounts, in their order. */
static int list_ids(uint64_t mnt_ns_id, uint64_t **ret, size_t *ret_n, MntLog *log)
{
	int r = mnt_listmount(mnt_ns_id, LSMT_ROOT, ret, ret_n);

	if (r < 0)
		mnt_log_fail(log, "listmount");
	return r;
}

/* The mounts of namespace mnt_ns_id by statmount(), strings from mountinfo
 * (may be NULL: then all from statmount(), with no sources). */
static int list_by_statmount(uint64_t mnt_ns_id, FILE *mountinfo, OpsListResult *ret, MntLog *log)
{
	_cleanup_(ops_list_result_done) OpsListResult res = {};
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n;
	int r;

	*ret = (OpsListResult){};
	r = list_ids(mnt_ns_id, &ids, &n, log);
	if (r < 0)
		return r;
	res.mounts = calloc(n ?: 1, sizeof(OpsMountEntry));
	if (!res.mounts)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct statmount sm;

		r = mnt_statmount_fixed(mnt_ns_id, ids[i], STATMOUNT_SB_BASIC | STATMOUNT_MNT_BASIC,
					&sm);
		if (r == -ENOENT)
			continue; /* unmounted since listmount() */
		if (r < 0) {
			mnt_log_fail(log, "statmount");
			return r;
		}
		res.mounts[res.n_mounts++] = (OpsMountEntry){
			.id = sm.mnt_id,
			.parent_id = sm.mnt_parent_id,
			.id_old = sm.mnt_id_old,
			.parent_id_old = sm.mnt_parent_id_old,
			.dev_major = sm.sb_dev_major,
			.dev_minor = sm.sb_dev_minor,
			.attr = sm.mnt_attr,
			.propagation = sm.mnt_propagation,
			.peer_group = sm.mnt_peer_group,
			.master = sm.mnt_master,
		};
	}
	if (mountinfo) {
		r = fill_from_mountinfo(mountinfo, &res);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < res.n_mounts; i++) {
		OpsMountEntry *e = &res.mounts[i];

		if (e->fstype)
			continue;
		r = strings_from_statmount(mnt_ns_id, e);
		if (r == -ENOENT) { /* unmounted meanwhile */
			ops_mount_entry_done(e);
			memmove(e, e + 1, sizeof(*e) * (res.n_mounts - i - 1));
			res.n_mounts--;
			i--;
			continue;
		}
		if (r < 0) {
			mnt_log_fail(log, "statmount");
			return r;
		}
	}
	*ret = res;
	res = (OpsListResult){};
	return 0;
}

/* Every value of every mount from one mountinfo, with no statmount() per
 * mount (it cost as much as reading mountinfo).  The unique IDs come from
 * listmount(): it and mountinfo both walk the namespace's mounts in the
 * order of those IDs, so when listmount() before and after the read names
 * the same mounts and mountinfo has as many lines, line i is mount ids[i]
 * (IDs are never reused: a mount that came and went in between is a line
 * too many).  -EAGAIN when that does not hold: the table changed, or the
 * reader's root hides mounts; the caller then matches by statmount(). */
static int list_from_mountinfo(uint64_t mnt_ns_id, FILE *f, OpsListResult *ret, MntLog *log)
{
	_cleanup_(ops_list_result_done) OpsListResult res = {};
	_cleanup_free_ uint64_t *ids = NULL, *again = NULL;
	_cleanup_free_ OpsMountEntry **index = NULL;
	_cleanup_free_ char *line = NULL;
	struct statmount sm;
	size_t n, n_again, size = 0;
	int r;

	*ret = (OpsListResult){};
	r = list_ids(mnt_ns_id, &ids, &n, log);
	if (r < 0)
		return r;
	res.mounts = calloc(n ?: 1, sizeof(OpsMountEntry));
	index = calloc(n ?: 1, sizeof(*index));
	if (!res.mounts || !index)
		return -ENOMEM;
	while (getline(&line, &size, f) > 0) {
		OpsMountEntry *e = &res.mounts[res.n_mounts];
		MountinfoLine l;

		if (res.n_mounts == n || !split_line(line, &l))
			return -EAGAIN;
		*e = (OpsMountEntry){
			.id = ids[res.n_mounts],
			.id_old = l.id,
			.parent_id_old = l.parent,
			.dev_major = l.major,
			.dev_minor = l.minor,
			.attr = mount_attr(l.opts),
			.propagation = l.propagation,
			.peer_group = l.peer_group,
			.master = l.master,
		};
		index[res.n_mounts++] = e;
		r = take_strings(e, &l);
		if (r < 0)
			return r;
	}
	if (res.n_mounts != n)
		return -EAGAIN;
	r = list_ids(mnt_ns_id, &again, &n_again, log);
	if (r < 0)
		return r;
	if (n_again != n || memcmp(ids, again, n * sizeof(*ids)) != 0)
		return -EAGAIN;
	/* A kernel that orders otherwise is caught here, not trusted. */
	if (n > 0 && (mnt_statmount_fixed(mnt_ns_id, ids[n - 1], STATMOUNT_MNT_BASIC, &sm) < 0 ||
		      sm.mnt_id_old != res.mounts[n - 1].id_old))
		return -EAGAIN;
	qsort(index, n, sizeof(*index), by_old_id);
	for (size_t i = 0; i < n; i++) {
		OpsMountEntry key = {.id_old = res.mounts[i].parent_id_old}, *k = &key, **parent;

		parent = bsearch(&k, index, n, sizeof(*index), by_old_id);
		if (parent) {
			res.mounts[i].parent_id = (*parent)->id;
			continue;
		}
		/* A parent the reader's root hides (the namespace's first
		 * mount, under the root file system): the kernel knows it. */
		if (mnt_statmount_fixed(mnt_ns_id, ids[i], STATMOUNT_MNT_BASIC, &sm) < 0 ||
		    sm.mnt_id_old != res.mounts[i].id_old)
			return -EAGAIN;
		res.mounts[i].parent_id = sm.mnt_parent_id;
	}
	*ret = res;
	res = (OpsListResult){};
	return 0;
}

/* The mounts of namespace mnt_ns_id; strings from mountinfo (may be NULL:
 * then all from statmount(), with no sources). */
static int list_mounts(uint64_t mnt_ns_id, FILE *mountinfo, OpsListResult *ret, MntLog *log)
{
	int r;

	if (mountinfo) {
		/* stdio's 4 KiB would be a read() - a kernel walk to the
		 * next line - per 4 KiB of a text of megabytes. */
		(void)setvbuf(mountinfo, NULL, _IOFBF, 256 << 10);
		r = list_from_mountinfo(mnt_ns_id, mountinfo, ret, log);
		if (r != -EAGAIN)
			return r;
		rewind(mountinfo);
	}
	return list_by_statmount(mnt_ns_id, mountinfo, ret, log);
}

int ops_list_by_id(uint64_t mnt_ns_id, pid_t pid, OpsListResult *ret, MntLog *log)
{
	_cleanup_fclose_ FILE *f = NULL;
	char p[64];

	if (pid > 0) {
		snprintf(p, sizeof(p), "/proc/%d/mountinfo", (int)pid);
		f = fopen(p, "re");
	}
	return list_mounts(mnt_ns_id, f, ret, log);
}

/* The worker's own mountinfo, its namespace's, through the host's /proc
 * (a container's /proc shows no process outside its pid namespace). */
static FILE *own_mountinfo(void)
{
	int proc = worker_host_dir(WORKER_HOST_PROC);
	int fd = proc >= 0 ? openat(proc, "thread-self/mountinfo", O_RDONLY | O_CLOEXEC)
			   : open("/proc/thread-self/mountinfo", O_RDONLY | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;

	if (fd >= 0 && !f)
		close(fd);
	return f;
}

/* A process in the namespace, for its mountinfo; 0 if none is known. */
pid_t ops_namespace_pid(const OpsNamespace *ns)
{
	pid_t pid = 0;

	if (ns->pid > 0)
		return ns->pid;
	if (ns->pidfd >= 0 && pidfd_get_pid(ns->pidfd, &pid) >= 0)
		return pid;
	return 0;
}

/* In a worker that has joined the namespace (ops-table-execute.c). */
int ops_list(const OpsListRequest *r, OpsListResult *ret, MntLog *log)
{
	_cleanup_fclose_ FILE *f = NULL;
	const char *field;
	uint64_t ns_id;
	int k;

	*ret = (OpsListResult){};
	k = ops_namespace_validate(&r->ns, "namespace", &field);
	if (k < 0)
		return k;
	k = ops_namespace_id(&r->ns, &ns_id, log);
	if (k < 0)
		return k;
	f = own_mountinfo();
	return list_mounts(ns_id, f, ret, log);
}
