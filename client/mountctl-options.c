/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sorting mount(8)-style -o words into what the new mount API wants:
 * per-mount attributes (mount_setattr/fsmount flags), propagation, and
 * fsconfig() parameters for the filesystem.  The rules follow mount(8):
 * the per-mount words are the VFS flags, userspace-only words (defaults,
 * noauto, x-*, ...) are dropped, everything else goes to the filesystem,
 * which is the one to judge it (and to explain a refusal in its log).
 */

#include <errno.h>
#include <string.h>

#include "mount-entry.h"
#include "mountctl.h"
#include "util.h"

/* value: what the word sets the attribute to; sb: also a superblock flag
 * for modes that create or reconfigure a superblock ("ro" makes both the
 * mount and the filesystem read-only, as mount(8) does). */
static const struct {
	const char *word;
	uint64_t attribute; /* MOUNT_ATTR_*: its name is mount_attribute_name()'s */
	bool value;
	bool sb;
} attribute_words[] = {
	{"ro", MOUNT_ATTR_RDONLY, true, true},
	{"rw", MOUNT_ATTR_RDONLY, false, true},
	{"nosuid", MOUNT_ATTR_NOSUID, true, false},
	{"suid", MOUNT_ATTR_NOSUID, false, false},
	{"nodev", MOUNT_ATTR_NODEV, true, false},
	{"dev", MOUNT_ATTR_NODEV, false, false},
	{"noexec", MOUNT_ATTR_NOEXEC, true, false},
	{"exec", MOUNT_ATTR_NOEXEC, false, false},
	{"nodiratime", MOUNT_ATTR_NODIRATIME, true, false},
	{"diratime", MOUNT_ATTR_NODIRATIME, false, false},
	{"nosymfollow", MOUNT_ATTR_NOSYMFOLLOW, true, false},
	{"symfollow", MOUNT_ATTR_NOSYMFOLLOW, false, false},
};

static const struct {
	const char *word;
	const char *atime;
} atime_words[] = {
	{"noatime", "noatime"},
	{"relatime", "relatime"},
	{"strictatime", "strictatime"},
	{"atime", "relatime"}, /* "not noatime": the kernel's default */
};

static const char *const propagation_words[] = {"private", "shared", "slave", "unbindable"};

/* Words only mount(8) and fstab care about; the kernel never sees them. */
static const char *const userspace_words[] = {"defaults", "auto",  "noauto", "user",   "nouser",
					      "users",	  "owner", "group",  "nofail", "_netdev"};

static const struct {
	const char *word;
	const char *error;
} refused_words[] = {
	{"bind", "bind mounts are made with \"mountctl bind\""},
	{"rbind", "bind mounts are made with \"mountctl bind\""},
	{"remount", "use \"mountctl remount\""},
	{"move", "use \"mountctl move\""},
	{"loop", "mount an image with \"mountctl mount --image FILE\""},
};

void mount_options_words(FILE *f)
{
	for (size_t i = 0; i < ELEMENTSOF(attribute_words); i++)
		fprintf(f, "%s\n", attribute_words[i].word);
	for (size_t i = 0; i < ELEMENTSOF(atime_words); i++)
		fprintf(f, "%s\n", atime_words[i].word);
	for (size_t i = 0; i < ELEMENTSOF(propagation_words); i++)
		fprintf(f, "%s\nr%s\n", propagation_words[i], propagation_words[i]);
}

void mount_options_done(MountOptions *o)
{
	if (o->parameters)
		json_object_put(o->parameters);
	if (o->attributes)
		json_object_put(o->attributes);
	*o = (MountOptions){};
}

static int set_attribute(MountOptions *o, const char *key, json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (!o->attributes) {
		o->attributes = json_object_new_object();
		if (!o->attributes) {
			json_object_put(v);
			return -ENOMEM;
		}
	}
	/* A later word wins, as with mount(8). */
	return json_object_object_add(o->attributes, key, v) < 0 ? -ENOMEM : 0;
}

static int add_parameter(MountOptions *o, const char *option)
{
	const char *eq = strchr(option, '=');
	_cleanup_free_ char *key = eq ? strndup(option, (size_t)(eq - option)) : strdup(option);
	json_object *p;

	if (!key)
		return -ENOMEM;
	if (!o->parameters) {
		o->parameters = json_object_new_array();
		if (!o->parameters)
			return -ENOMEM;
	}
	p = json_object_new_object();
	if (!p)
		return -ENOMEM;
	json_object_object_add(p, "key", json_object_new_string(key));
	json_object_object_add(p, "type", json_object_new_string(eq ? "string" : "flag"));
	if (eq)
		json_object_object_add(p, "value", json_object_new_string(eq + 1));
	return json_object_array_add(o->parameters, p) < 0 ? -ENOMEM : 0;
}

int mount_options_add(MountOptions *o, OptionsMode mode, const char *option, const char **ret_error)
{
	bool attrs = mode != OPTIONS_RECONFIGURE;
	bool only_attrs = mode == OPTIONS_BIND || mode == OPTIONS_SET;
	/* Clearing an attribute means something only where one is changed;
	 * a new mount starts with all of them clear. */
	bool clears = mode == OPTIONS_REMOUNT || mode == OPTIONS_SET;
	bool sb = mode == OPTIONS_MOUNT || mode == OPTIONS_REMOUNT;
	int r;

	*ret_error = NULL;
	if (!*option)
		return 0; /* "a,,b": mount(8) ignores empty words too */
	if (strchr(option, '=') == option) {
		*ret_error = "option without a name";
		return -EINVAL;
	}

	for (size_t i = 0; attrs && i < ELEMENTSOF(attribute_words); i++) {
		if (!streq(option, attribute_words[i].word))
			continue;
		if (attribute_words[i].value || clears) {
			r = set_attribute(o, mount_attribute_name(attribute_words[i].attribute),
					  json_object_new_boolean(attribute_words[i].value));
			if (r < 0)
				return r;
		}
		/* rw on a new filesystem is its default: nothing to say. */
		if (sb && attribute_words[i].sb && (attribute_words[i].value || clears))
			return add_parameter(o, option);
		return 0;
	}
	for (size_t i = 0; attrs && i < ELEMENTSOF(atime_words); i++)
		if (streq(option, atime_words[i].word))
			return set_attribute(o, "atime",
					     json_object_new_string(atime_words[i].atime));
	for (size_t i = 0; attrs && i < ELEMENTSOF(propagation_words); i++) {
		const char *w = propagation_words[i];

		if (streq(option, w) || (option[0] == 'r' && streq(option + 1, w))) {
			if (mode == OPTIONS_REMOUNT) {
				*ret_error = "propagation is changed with \"mountctl set\"";
				return -EINVAL;
			}
			o->propagation = w;
			o->recursive = o->recursive || option[0] == 'r';
			return 0;
		}
	}
	if (mode != OPTIONS_RECONFIGURE) {
		for (size_t i = 0; i < ELEMENTSOF(refused_words); i++)
			if (streq(option, refused_words[i].word)) {
				*ret_error = refused_words[i].error;
				return -EINVAL;
			}
		for (size_t i = 0; i < ELEMENTSOF(userspace_words); i++)
			if (streq(option, userspace_words[i]))
				return 0;
		if (strncmp(option, "x-", 2) == 0 || strncmp(option, "comment=", 8) == 0)
			return 0;
	}
	if (only_attrs) {
		*ret_error = mode == OPTIONS_SET ? "not a mount attribute (filesystem options "
						   "are changed with \"mountctl reconfigure\")"
						 : "not a mount attribute";
		return -EINVAL;
	}
	return add_parameter(o, option);
}

int mount_options_parse(MountOptions *o, OptionsMode mode, const char *list, char **ret_bad,
			const char **ret_error)
{
	const char *p = list;

	*ret_bad = NULL;
	*ret_error = NULL;
	while (p && *p) {
		_cleanup_free_ char *word = malloc(strlen(p) + 1);
		bool quoted = false;
		size_t n = 0;
		int r;

		if (!word)
			return -ENOMEM;
		/* Copy up to the next comma outside double quotes; the quotes
		 * themselves only protect and are dropped (mount(8) does the
		 * same for e.g. context="a,b"). */
		for (; *p && (quoted || *p != ','); p++) {
			if (*p == '"')
				quoted = !quoted;
			else
				word[n++] = *p;
		}
		word[n] = 0;
		if (quoted) {
			*ret_error = "unterminated double quote";
			*ret_bad = TAKE_PTR(word);
			return -EINVAL;
		}
		if (*p == ',')
			p++;
		r = mount_options_add(o, mode, word, ret_error);
		if (r < 0) {
			if (r == -EINVAL)
				*ret_bad = TAKE_PTR(word);
			return r;
		}
	}
	return 0;
}
