/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * List: the mounts of a namespace with their topology, from listmount() and
 * statmount() given the namespace's id, so no worker is needed.  statmount()
 * of 6.12 has no mount source; when a process of the namespace is known it
 * comes from that process's mountinfo, matched by the old mount id.  What
 * mountinfo cannot say, findmnt works out, and so do we: "/dev/root" (the
 * kernel's name for the device of root=) becomes the real device node.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ops-internal.h"
#include "util.h"

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

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unoctal(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else
			*d++ = *s;
	}
	*d = 0;
}

/* The device node of a block device number as udev names it in /dev: the
 * kernel name /sys/dev/block links to, with '!' for '/' ("cciss!c0d0").
 * NULL when it is no block device (0:N) or sysfs does not know it. */
static char *block_device_node(uint32_t major, uint32_t minor)
{
	char link[64], target[PATH_MAX];
	char *name, *node = NULL;
	ssize_t n;

	if (major == 0)
		return NULL;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major, minor);
	n = readlink(link, target, sizeof(target) - 1);
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

static void fill_sources(pid_t pid, OpsListResult *res)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	size_t size = 0;
	char p[64];

	snprintf(p, sizeof(p), "/proc/%d/mountinfo", (int)pid);
	f = fopen(p, "re");
	if (!f)
		return; /* sources are best effort */
	while (getline(&line, &size, f) > 0) {
		unsigned id;
		char *sep, *source;

		if (sscanf(line, "%u ", &id) != 1)
			continue;
		sep = strstr(line, " - ");
		if (!sep)
			continue;
		/* " - fstype source superopts" */
		source = strchr(sep + 3, ' ');
		if (!source)
			continue;
		source++;
		source[strcspn(source, " \n")] = 0;
		unoctal(source);
		for (size_t i = 0; i < res->n_mounts; i++)
			if (res->mounts[i].id_old == id && !res->mounts[i].source) {
				OpsMountEntry *e = &res->mounts[i];

				if (streq(source, "/dev/root"))
					e->source = block_device_node(e->dev_major, e->dev_minor);
				if (!e->source)
					e->source = strdup(source);
				break;
			}
	}
}

int ops_list_by_id(uint64_t mnt_ns_id, pid_t pid, OpsListResult *ret, MntLog *log)
{
	_cleanup_(ops_list_result_done) OpsListResult res = {};
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n;
	int r;

	*ret = (OpsListResult){};
	r = mnt_listmount(mnt_ns_id, LSMT_ROOT, &ids, &n);
	if (r < 0) {
		mnt_log_fail(log, "listmount");
		return r;
	}
	res.mounts = calloc(n ?: 1, sizeof(OpsMountEntry));
	if (!res.mounts)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ struct statmount *sm = NULL;
		OpsMountEntry *e = &res.mounts[res.n_mounts];

		r = mnt_statmount(mnt_ns_id, ids[i],
				  STATMOUNT_SB_BASIC | STATMOUNT_MNT_BASIC | STATMOUNT_MNT_ROOT |
					  STATMOUNT_MNT_POINT | STATMOUNT_FS_TYPE |
					  STATMOUNT_MNT_OPTS,
				  &sm);
		if (r == -ENOENT)
			continue; /* unmounted since listmount() */
		if (r < 0) {
			mnt_log_fail(log, "statmount");
			return r;
		}
		*e = (OpsMountEntry){
			.id = sm->mnt_id,
			.parent_id = sm->mnt_parent_id,
			.id_old = sm->mnt_id_old,
			.parent_id_old = sm->mnt_parent_id_old,
			.dev_major = sm->sb_dev_major,
			.dev_minor = sm->sb_dev_minor,
			.attr = sm->mnt_attr,
			.propagation = sm->mnt_propagation,
			.peer_group = sm->mnt_peer_group,
			.master = sm->mnt_master,
		};
		e->fstype = sm_string(sm, STATMOUNT_FS_TYPE, sm->fs_type);
		e->root = sm_string(sm, STATMOUNT_MNT_ROOT, sm->mnt_root);
		e->mount_point = sm_string(sm, STATMOUNT_MNT_POINT, sm->mnt_point);
		e->options = super_options(sm);
		res.n_mounts++;
		if (!e->fstype || !e->root || !e->mount_point || !e->options)
			return -ENOMEM;
	}
	if (pid > 0)
		fill_sources(pid, &res);
	*ret = res;
	res = (OpsListResult){};
	return 0;
}

/* A process in the namespace, for its mountinfo; 0 if none is known. */
pid_t ops_namespace_pid(const OpsNamespace *ns)
{
	pid_t pid = 0;

	if (ns->pid > 0)
		return ns->pid;
	if (ns->pidfd >= 0 && ops_pidfd_get_pid(ns->pidfd, &pid) >= 0)
		return pid;
	return 0;
}

int ops_list(const OpsListRequest *r, OpsListResult *ret, MntLog *log)
{
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
	return ops_list_by_id(ns_id, ops_namespace_pid(&r->ns), ret, log);
}
