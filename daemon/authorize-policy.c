// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The authorization policy: see authorize-policy.h for the model and mountd.policy(5)
 * for the file format.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <linux/mount.h>
#include <linux/nsfs.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "authorize-policy.h"
#include "util.h"

static const struct {
	const char *name;
	uint64_t attr;
} attribute_names[] = {
	{"ro", MOUNT_ATTR_RDONLY},
	{"nosuid", MOUNT_ATTR_NOSUID},
	{"nodev", MOUNT_ATTR_NODEV},
	{"noexec", MOUNT_ATTR_NOEXEC},
	{"nodiratime", MOUNT_ATTR_NODIRATIME},
	{"nosymfollow", MOUNT_ATTR_NOSYMFOLLOW},
};

static bool strv_contains(char *const *l, const char *s)
{
	for (; l && *l; l++)
		if (streq(*l, s))
			return true;
	return false;
}

void policy_done(Policy *p)
{
	for (size_t i = 0; i < p->n_rules; i++) {
		strv_free(p->rules[i].methods);
		strv_free(p->rules[i].fstypes);
	}
	free(p->rules);
	*p = (Policy){};
}

/* Split a comma-separated list; empty items are an error. */
static int split_list(const char *s, char ***ret)
{
	char **l = NULL;
	size_t n = 0;

	do {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		char **nl;

		if (len == 0) {
			strv_free(l);
			return -EINVAL;
		}
		nl = realloc(l, (n + 2) * sizeof(char *));
		if (!nl) {
			strv_free(l);
			return -ENOMEM;
		}
		l = nl;
		l[n] = strndup(s, len);
		l[n + 1] = NULL;
		if (!l[n]) {
			strv_free(l);
			return -ENOMEM;
		}
		n++;
		s = comma ? comma + 1 : NULL;
	} while (s);
	*ret = l;
	return 0;
}

static int parse_id(const char *v, bool group, unsigned *ret)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (*v && !*end && !errno && n < UINT_MAX) {
		*ret = n;
		return 0;
	}
	if (group) {
		struct group *g = getgrnam(v);

		if (!g)
			return -ESRCH;
		*ret = g->gr_gid;
	} else {
		struct passwd *pw = getpwnam(v);

		if (!pw)
			return -ESRCH;
		*ret = pw->pw_uid;
	}
	return 0;
}

/* One key=value condition into rule; *ret_what says what is wrong. */
static int parse_condition(const char *word, char *const *methods, PolicyRule *rule,
			   const char **ret_what)
{
	const char *eq = strchr(word, '='), *v;
	_cleanup_free_ char *key = NULL;
	int r;

	*ret_what = "expected KEY=VALUE";
	if (!eq || eq == word || !eq[1])
		return -EINVAL;
	key = strndup(word, eq - word);
	if (!key)
		return -ENOMEM;
	v = eq + 1;

	*ret_what = "condition given twice";
	if (streq(key, "user") || streq(key, "group")) {
		bool group = streq(key, "group");
		unsigned id;

		if (group ? rule->has_group : rule->has_user)
			return -EINVAL;
		r = parse_id(v, group, &id);
		*ret_what = "no such user or group";
		if (r < 0)
			return r == -ESRCH ? -EINVAL : r;
		if (group) {
			rule->has_group = true;
			rule->gid = id;
		} else {
			rule->has_user = true;
			rule->uid = id;
		}
	} else if (streq(key, "method")) {
		if (rule->methods)
			return -EINVAL;
		*ret_what = "bad method list";
		r = split_list(v, &rule->methods);
		if (r < 0)
			return r;
		*ret_what = "unknown method";
		for (char **m = rule->methods; *m; m++)
			if (!streq(*m, "*") && !strv_contains((char **)methods, *m))
				return -EINVAL;
	} else if (streq(key, "fstype")) {
		if (rule->fstypes)
			return -EINVAL;
		*ret_what = "bad fstype list";
		r = split_list(v, &rule->fstypes);
		if (r < 0)
			return r;
	} else if (streq(key, "namespace")) {
		if (rule->ns != POLICY_NS_UNSET)
			return -EINVAL;
		*ret_what = "namespace must be own, owned or any";
		if (streq(v, "own"))
			rule->ns = POLICY_NS_OWN;
		else if (streq(v, "owned"))
			rule->ns = POLICY_NS_OWNED;
		else if (streq(v, "any"))
			rule->ns = POLICY_NS_ANY;
		else
			return -EINVAL;
	} else if (streq(key, "image")) {
		if (rule->image)
			return -EINVAL;
		*ret_what = "image must be yes, signed or no";
		if (streq(v, "yes"))
			rule->image = POLICY_IMAGE_YES;
		else if (streq(v, "signed"))
			rule->image = POLICY_IMAGE_SIGNED;
		else if (streq(v, "no"))
			rule->image = POLICY_IMAGE_NO;
		else
			return -EINVAL;
	} else if (streq(key, "attributes")) {
		_cleanup_strv_free_ char **l = NULL;

		if (rule->attributes)
			return -EINVAL;
		*ret_what = "bad attribute list";
		r = split_list(v, &l);
		if (r < 0)
			return r;
		*ret_what = "unknown attribute";
		for (char **a = l; *a; a++) {
			size_t i;

			for (i = 0; i < ELEMENTSOF(attribute_names); i++)
				if (streq(attribute_names[i].name, *a))
					break;
			if (i == ELEMENTSOF(attribute_names))
				return -EINVAL;
			rule->attributes |= attribute_names[i].attr;
		}
	} else {
		*ret_what = "unknown condition";
		return -EINVAL;
	}
	return 0;
}

static void rule_done(PolicyRule *rule)
{
	strv_free(rule->methods);
	strv_free(rule->fstypes);
	*rule = (PolicyRule){};
}

static int parse_error(char **ret_error, const char *name, unsigned line, const char *what,
		       const char *token)
{
	if (ret_error && asprintf(ret_error, "%s:%u: %s%s%s%s", name, line, what,
				  token ? ": '" : "", token ?: "", token ? "'" : "") < 0)
		*ret_error = NULL;
	return -EINVAL;
}

int policy_parse(Policy *p, const char *text, const char *name, char *const *methods,
		 char **ret_error)
{
	_cleanup_free_ char *copy = strdup(text);
	char *next = NULL;
	unsigned lineno = 0;
	Policy parsed = {};

	if (!copy)
		return -ENOMEM;
	if (ret_error)
		*ret_error = NULL;

	/* Line by line by hand: strtok_r would merge empty lines and lose the
	 * numbering. */
	for (char *line = copy; line; line = next) {
		char *save = NULL, *hash, *verdict;
		PolicyRule rule = {};
		PolicyRule *nr;

		lineno++;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		verdict = strtok_r(line, " \t\r", &save);
		if (!verdict)
			continue;
		if (!streq(verdict, "allow") && !streq(verdict, "deny")) {
			policy_done(&parsed);
			return parse_error(ret_error, name, lineno, "expected allow or deny",
					   verdict);
		}
		rule.allow = streq(verdict, "allow");
		rule.line = lineno;
		for (char *w = strtok_r(NULL, " \t\r", &save); w;
		     w = strtok_r(NULL, " \t\r", &save)) {
			const char *what = NULL;
			int r = parse_condition(w, methods, &rule, &what);

			if (r < 0) {
				rule_done(&rule);
				policy_done(&parsed);
				return r == -ENOMEM ? r
						    : parse_error(ret_error, name, lineno, what, w);
			}
		}
		nr = realloc(parsed.rules, (parsed.n_rules + 1) * sizeof(*nr));
		if (!nr) {
			rule_done(&rule);
			policy_done(&parsed);
			return -ENOMEM;
		}
		parsed.rules = nr;
		parsed.rules[parsed.n_rules++] = rule;
	}
	policy_done(p);
	*p = parsed;
	return 0;
}

int policy_load(Policy *p, const char *path, char *const *methods, char **ret_error)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *text = NULL;
	size_t size = 0;

	if (ret_error)
		*ret_error = NULL;
	f = fopen(path, "re");
	if (!f) {
		if (errno != ENOENT)
			return negative_errno();
		policy_done(p);
		return 0;
	}
	{
		_cleanup_fclose_ FILE *mem = open_memstream(&text, &size);
		char buf[4096];
		size_t n;

		if (!mem)
			return -ENOMEM;
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			if (fwrite(buf, 1, n, mem) != n)
				return -ENOMEM;
		if (ferror(f))
			return -EIO;
		if (fflush(mem) != 0)
			return -ENOMEM;
	}
	return policy_parse(p, text ?: "", path, methods, ret_error);
}

static bool caller_in_group(const PolicyCaller *c, gid_t gid)
{
	if (c->gid == gid)
		return true;
	for (size_t i = 0; i < c->n_groups; i++)
		if (c->groups[i] == gid)
			return true;
	return false;
}

static bool namespace_matches(PolicyNamespace ns, const PolicyCaller *c, const PolicyRequest *req)
{
	switch (ns) {
	case POLICY_NS_UNSET:
	case POLICY_NS_ANY:
		return true;
	case POLICY_NS_OWN:
		return req->ns_is_callers;
	case POLICY_NS_OWNED:
		return req->ns_owner != (uid_t)-1 && req->ns_owner == c->uid;
	}
	return false;
}

static bool rule_matches(const PolicyRule *rule, const PolicyCaller *c, const PolicyRequest *req)
{
	if (rule->has_user && c->uid != rule->uid)
		return false;
	if (rule->has_group && !caller_in_group(c, rule->gid))
		return false;
	if (rule->methods && !strv_contains(rule->methods, "*") &&
	    !strv_contains(rule->methods, req->method))
		return false;
	if (!namespace_matches(rule->ns, c, req))
		return false;
	/* A request without a filesystem type (anything but Create) does not
	 * satisfy a rule that names some. */
	if (rule->fstypes && (!req->fstype || !strv_contains(rule->fstypes, req->fstype)))
		return false;
	if ((req->attributes & rule->attributes) != rule->attributes)
		return false;
	/* A filesystem image is parsed by a kernel driver that trusts it:
	 * only a rule that names images lets one in (a deny rule needs not). */
	if (req->image ? (rule->allow && rule->image <= POLICY_IMAGE_UNSET) ||
				 rule->image == POLICY_IMAGE_NO
		       : rule->image > POLICY_IMAGE_UNSET)
		return false;
	return true;
}

int policy_check(const Policy *p, const PolicyCaller *caller, const PolicyRequest *req,
		 unsigned *ret_line, const char **ret_why)
{
	unsigned line_dummy;
	const char *why_dummy;

	if (!ret_line)
		ret_line = &line_dummy;
	if (!ret_why)
		ret_why = &why_dummy;
	*ret_line = 0;
	if (caller->uid == 0) {
		*ret_why = "the caller is root";
		return 0;
	}
	for (size_t i = 0; i < p->n_rules; i++)
		if (rule_matches(&p->rules[i], caller, req)) {
			*ret_line = p->rules[i].line;
			*ret_why = p->rules[i].allow ? "allowed by a rule" : "denied by a rule";
			if (req->image_signed_only)
				*req->image_signed_only =
					req->image && p->rules[i].image == POLICY_IMAGE_SIGNED;
			return p->rules[i].allow ? 0 : -EPERM;
		}
	if (req->reads &&
	    ((req->ns_owner != (uid_t)-1 && req->ns_owner == caller->uid) ||
	     (req->process_owner != (uid_t)-1 && req->process_owner == caller->uid))) {
		*ret_why = "reading a namespace of the caller's";
		return 0;
	}
	*ret_why = "no rule allows it";
	return -EPERM;
}

uid_t policy_namespace_owner(int mntns_fd)
{
	_cleanup_close_ int userns = ioctl(mntns_fd, NS_GET_USERNS);
	uid_t owner = (uid_t)-1; /* set by the ioctl; initialized for valgrind */

	if (userns < 0 || ioctl(userns, NS_GET_OWNER_UID, &owner) < 0)
		return (uid_t)-1;
	return owner;
}

uid_t policy_process_owner(pid_t pid)
{
	char path[64];
	struct stat st;

	if (pid <= 0)
		return (uid_t)-1;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) < 0)
		return (uid_t)-1;
	return st.st_uid;
}
