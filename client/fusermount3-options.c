/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fusermount3's -o list and the requests it becomes (see
 * fusermount3-options.h).  The words, what each does and what is said
 * about them follow libfuse 3.17.2's util/fusermount.c.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "fusermount3-options.h"
#include "mount-entry.h"
#include "util.h"

/* on: the word sets the flag (else clears it); safe: a user other than
 * root may give it (else it is ignored, with a warning). */
static const struct {
	const char *word;
	unsigned flag;
	bool on, safe;
} flag_words[] = {
	{"rw", FUSE_FLAG_RDONLY, false, true},
	{"ro", FUSE_FLAG_RDONLY, true, true},
	{"suid", FUSE_FLAG_NOSUID, false, false},
	{"nosuid", FUSE_FLAG_NOSUID, true, true},
	{"dev", FUSE_FLAG_NODEV, false, false},
	{"nodev", FUSE_FLAG_NODEV, true, true},
	{"exec", FUSE_FLAG_NOEXEC, false, true},
	{"noexec", FUSE_FLAG_NOEXEC, true, true},
	{"async", FUSE_FLAG_SYNC, false, true},
	{"sync", FUSE_FLAG_SYNC, true, true},
	{"atime", FUSE_FLAG_NOATIME, false, true},
	{"noatime", FUSE_FLAG_NOATIME, true, true},
	{"diratime", FUSE_FLAG_NODIRATIME, false, true},
	{"nodiratime", FUSE_FLAG_NODIRATIME, true, true},
	{"lazytime", FUSE_FLAG_LAZYTIME, true, true},
	{"nolazytime", FUSE_FLAG_LAZYTIME, false, true},
	{"relatime", FUSE_FLAG_RELATIME, true, true},
	{"norelatime", FUSE_FLAG_RELATIME, false, true},
	{"strictatime", FUSE_FLAG_STRICTATIME, true, true},
	{"nostrictatime", FUSE_FLAG_STRICTATIME, false, true},
	{"dirsync", FUSE_FLAG_DIRSYNC, true, true},
	{"symfollow", FUSE_FLAG_NOSYMFOLLOW, false, true},
	{"nosymfollow", FUSE_FLAG_NOSYMFOLLOW, true, true},
};

#define FUSE_FLAGS_ATIME (FUSE_FLAG_NOATIME | FUSE_FLAG_RELATIME | FUSE_FLAG_STRICTATIME)

/* The per-mount flags, as Attributes names them. */
static const struct {
	unsigned flag;
	uint64_t attribute;
} attribute_flags[] = {
	{FUSE_FLAG_RDONLY, MOUNT_ATTR_RDONLY},
	{FUSE_FLAG_NOSUID, MOUNT_ATTR_NOSUID},
	{FUSE_FLAG_NODEV, MOUNT_ATTR_NODEV},
	{FUSE_FLAG_NOEXEC, MOUNT_ATTR_NOEXEC},
	{FUSE_FLAG_NODIRATIME, MOUNT_ATTR_NODIRATIME},
	{FUSE_FLAG_NOSYMFOLLOW, MOUNT_ATTR_NOSYMFOLLOW},
};

/* The superblock flags: flag parameters the VFS takes for every filesystem
 * ("ro" too: mount(2) makes the superblock read-only with the mount). */
static const struct {
	unsigned flag;
	const char *key;
} superblock_flags[] = {
	{FUSE_FLAG_RDONLY, "ro"},
	{FUSE_FLAG_SYNC, "sync"},
	{FUSE_FLAG_DIRSYNC, "dirsync"},
	{FUSE_FLAG_LAZYTIME, "lazytime"},
};

/* What fusermount3 sets itself. */
static const char *const own_keys[] = {"fd", "rootmode", "user_id", "group_id"};

void fuse_options_done(FuseOptions *o)
{
	free(o->fsname);
	free(o->subtype);
	if (o->parameters)
		json_object_put(o->parameters);
	strv_free(o->warnings);
	*o = FUSE_OPTIONS_NULL;
}

_printf_(2, 3) static int warn(FuseOptions *o, const char *fmt, ...)
{
	size_t n = strv_length(o->warnings);
	char **l, *line;
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (k < 0)
		return -ENOMEM;
	l = realloc(o->warnings, (n + 2) * sizeof(char *));
	if (!l) {
		free(line);
		return -ENOMEM;
	}
	l[n] = line;
	l[n + 1] = NULL;
	o->warnings = l;
	return 0;
}

_printf_(2, 3) static int refuse(char **ret_error, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vasprintf(ret_error, fmt, ap);
	va_end(ap);
	if (k < 0) {
		*ret_error = NULL;
		return -ENOMEM;
	}
	return -EINVAL;
}

/* value with each backslash taking the character after it as it is; a
 * backslash at the end stays. */
static int set_unescaped(char **dst, const char *value)
{
	char *s = malloc(strlen(value) + 1), *w = s;

	if (!s)
		return -ENOMEM;
	for (const char *p = value; *p; p++) {
		if (p[0] == '\\' && p[1])
			p++;
		*w++ = *p;
	}
	*w = 0;
	free(*dst);
	*dst = s;
	return 0;
}

/* A parameter, value NULL for a flag. */
static int add_parameter(json_object *array, const char *key, const char *value)
{
	json_object *p = json_object_new_object();

	if (json_add(array, NULL, p) < 0 || json_add(p, "key", json_object_new_string(key)) < 0 ||
	    json_add(p, "type", json_object_new_string(value ? "string" : "flag")) < 0 ||
	    (value && json_add(p, "value", json_object_new_string(value)) < 0))
		return -ENOMEM;
	return 0;
}

static int option_parameter(FuseOptions *o, const char *option)
{
	const char *eq = strchr(option, '=');
	_cleanup_free_ char *key = eq ? strndup(option, (size_t)(eq - option)) : strdup(option);

	if (!key)
		return -ENOMEM;
	if (!o->parameters) {
		o->parameters = json_object_new_array();
		if (!o->parameters)
			return -ENOMEM;
	}
	return add_parameter(o->parameters, key, eq ? eq + 1 : NULL);
}

/* "large_read" means nothing since Linux 2.6: said, and skipped. */
static bool large_read_obsolete(unsigned *major, unsigned *minor)
{
	struct utsname u;

	return uname(&u) == 0 && sscanf(u.release, "%u.%u", major, minor) == 2 &&
	       (*major > 2 || (*major == 2 && *minor > 4));
}

static int parse_one(FuseOptions *o, const char *option, uid_t uid, char **ret_error)
{
	const char *v;
	unsigned major, minor;

	if ((v = startswith(option, "fsname=")))
		return set_unescaped(&o->fsname, v);
	if ((v = startswith(option, "subtype=")))
		return set_unescaped(&o->subtype, v);
	if (streq(option, "blkdev")) {
		if (uid != 0)
			return refuse(ret_error, "option blkdev is privileged");
		o->blkdev = true;
		return 0;
	}
	if (streq(option, "auto_unmount")) {
		o->auto_unmount = true;
		return 0;
	}
	/* nonempty: mounting over a non-empty directory is always allowed
	 * now; x-*: for /etc/mtab, which there is none of. */
	if (streq(option, "nonempty") || startswith(option, "x-"))
		return 0;
	/* libfuse's programs and scripts written for the setuid helper may
	 * pass these; it drops them, so failing the mount would break them.
	 * The values set are always the caller's own (parameters_json()). */
	for (size_t i = 0; i < ELEMENTSOF(own_keys); i++) {
		size_t n = strlen(own_keys[i]);

		if (strncmp(option, own_keys[i], n) == 0 && option[n] == '=')
			return warn(o, "option %s ignored: fusermount3 sets %s itself", option,
				    own_keys[i]);
	}
	if (streq(option, "large_read") && large_read_obsolete(&major, &minor))
		return warn(o, "note: 'large_read' mount option is deprecated for %u.%u kernels",
			    major, minor);
	for (size_t i = 0; i < ELEMENTSOF(flag_words); i++) {
		if (!streq(option, flag_words[i].word))
			continue;
		if (!flag_words[i].safe && uid != 0)
			return warn(o, "unsafe option %s ignored", option);
		if (flag_words[i].on)
			o->flags |= flag_words[i].flag;
		else
			o->flags &= ~flag_words[i].flag;
		if (flag_words[i].flag & FUSE_FLAGS_ATIME)
			o->atime_given = true;
		return 0;
	}
	if (streq(option, "default_permissions") || streq(option, "allow_other") ||
	    startswith(option, "max_read=") || startswith(option, "blksize="))
		return option_parameter(o, option);
	return refuse(ret_error, "unknown option '%s'", option);
}

int fuse_options_parse(FuseOptions *o, const char *list, uid_t uid, char **ret_error)
{
	*ret_error = NULL;
	for (const char *s = list; s && *s;) {
		/* Only these two may hold an escaped comma. */
		bool escapes = startswith(s, "fsname=") || startswith(s, "subtype=");
		_cleanup_free_ char *option = NULL;
		size_t n;
		int k;

		for (n = 0; s[n] && s[n] != ','; n++)
			if (escapes && s[n] == '\\' && s[n + 1])
				n++;
		option = strndup(s, n);
		if (!option)
			return -ENOMEM;
		k = parse_one(o, option, uid, ret_error);
		if (k < 0)
			return k;
		s += n;
		if (*s)
			s++;
	}
	return 0;
}

static json_object *attributes_json(const FuseOptions *o, uid_t uid)
{
	_cleanup_json_ json_object *a = json_object_new_object();
	/* Never without them for a user, whatever the list said. */
	unsigned flags = o->flags | (uid != 0 ? FUSE_FLAG_NOSUID | FUSE_FLAG_NODEV : 0);
	const char *atime = NULL;

	if (!a)
		return NULL;
	for (size_t i = 0; i < ELEMENTSOF(attribute_flags); i++)
		if (flags & attribute_flags[i].flag &&
		    json_add(a, mount_attribute_name(attribute_flags[i].attribute),
			     json_object_new_boolean(true)) < 0)
			return NULL;
	/* As mount(2) takes them: strictatime over noatime over relatime, the
	 * default. */
	if (flags & FUSE_FLAG_STRICTATIME)
		atime = "strictatime";
	else if (flags & FUSE_FLAG_NOATIME)
		atime = "noatime";
	else if (o->atime_given)
		atime = "relatime";
	if (atime && json_add(a, "atime", json_object_new_string(atime)) < 0)
		return NULL;
	return TAKE_PTR(a);
}

static json_object *parameters_json(const FuseOptions *o, mode_t rootmode, uid_t uid, gid_t gid)
{
	_cleanup_json_ json_object *l = json_object_new_array(), *fd = json_object_new_object();
	char number[32];

	/* The /dev/fuse fd, the first sent with the request. */
	if (!l || !fd || json_add(fd, "key", json_object_new_string("fd")) < 0 ||
	    json_add(fd, "type", json_object_new_string("fd")) < 0 ||
	    json_add(fd, "fd", json_object_new_int(0)) < 0 || json_add(l, NULL, TAKE_PTR(fd)) < 0)
		return NULL;
	snprintf(number, sizeof(number), "%o", (unsigned)(rootmode & S_IFMT));
	if (add_parameter(l, "rootmode", number) < 0)
		return NULL;
	snprintf(number, sizeof(number), "%u", (unsigned)uid);
	if (add_parameter(l, "user_id", number) < 0)
		return NULL;
	snprintf(number, sizeof(number), "%u", (unsigned)gid);
	if (add_parameter(l, "group_id", number) < 0)
		return NULL;
	if (o->subtype && add_parameter(l, "subtype", o->subtype) < 0)
		return NULL;
	for (size_t i = 0; o->parameters && i < json_object_array_length(o->parameters); i++)
		if (json_add(l, NULL,
			     json_object_get(json_object_array_get_idx(o->parameters, i))) < 0)
			return NULL;
	for (size_t i = 0; i < ELEMENTSOF(superblock_flags); i++)
		if (o->flags & superblock_flags[i].flag &&
		    add_parameter(l, superblock_flags[i].key, NULL) < 0)
			return NULL;
	return TAKE_PTR(l);
}

/* {"pidfd": index}: the mount namespace of the process the fd at index is. */
static int add_namespace(json_object *o, int pidfd_index)
{
	_cleanup_json_ json_object *ns = NULL;

	if (pidfd_index < 0)
		return 0;
	ns = json_object_new_object();
	if (!ns || json_add(ns, "pidfd", json_object_new_int(pidfd_index)) < 0)
		return -ENOMEM;
	return json_add(o, "namespace", TAKE_PTR(ns));
}

int fuse_create_request(const FuseOptions *o, const char *path, mode_t rootmode, uid_t uid,
			gid_t gid, int pidfd_index, json_object **ret)
{
	_cleanup_json_ json_object *r = json_object_new_object(),
				   *placement = json_object_new_object();

	/* As fusermount3: the source is the fsname, else the subtype, else the
	 * device. */
	if (!r || !placement ||
	    json_add(r, "fsType", json_object_new_string(o->blkdev ? "fuseblk" : "fuse")) < 0 ||
	    json_add(r, "source",
		     json_object_new_string(o->fsname ?: o->subtype ?: "/dev/fuse")) < 0 ||
	    json_add(r, "parameters", parameters_json(o, rootmode, uid, gid)) < 0 ||
	    json_add(r, "attributes", attributes_json(o, uid)) < 0 ||
	    json_add(placement, "path", json_object_new_string(path)) < 0 ||
	    add_namespace(placement, pidfd_index) < 0 ||
	    json_add(r, "placement", TAKE_PTR(placement)) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(r);
	return 0;
}

int fuse_unmount_request(const char *path, bool lazy, int pidfd_index, json_object **ret)
{
	_cleanup_json_ json_object *r = json_object_new_object();

	if (!r || json_add(r, "path", json_object_new_string(path)) < 0 ||
	    add_namespace(r, pidfd_index) < 0 ||
	    json_add(r, "detach", json_object_new_boolean(lazy)) < 0 ||
	    /* Only a FUSE mount, and only one of the caller's (mountd). */
	    json_add(r, "fsType", json_object_new_string("fuse")) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(r);
	return 0;
}
