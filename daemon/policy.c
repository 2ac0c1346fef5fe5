// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The authorization policy: see policy.h for the model and mountd.policy(5)
 * for the file format.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy.h"
#include "util.h"

static const struct {
	const char *name;
	PolicyAction action;
} method_actions[] = {
	{ "Info", POLICY_READ },
	{ "List", POLICY_READ },
	{ "Watch", POLICY_READ },
	{ "Create", POLICY_MOUNT },
	{ "Bind", POLICY_MOUNT },
	{ "Reconfigure", POLICY_CHANGE },
	{ "SetAttributes", POLICY_CHANGE },
	{ "Move", POLICY_CHANGE },
	{ "Unmount", POLICY_CHANGE },
};

static const struct {
	const char *name;
	PolicyAction action;
} action_names[] = {
	{ "read", POLICY_READ },
	{ "mount", POLICY_MOUNT },
	{ "change", POLICY_CHANGE },
};

int policy_action_from_method(const char *method)
{
	const char *dot = method ? strrchr(method, '.') : NULL;

	if (dot)
		method = dot + 1;
	for (size_t i = 0; method && i < ELEMENTSOF(method_actions); i++)
		if (strcmp(method_actions[i].name, method) == 0)
			return method_actions[i].action;
	return -ENOENT;
}

void policy_done(Policy *p)
{
	for (size_t i = 0; i < p->n_rules; i++)
		strv_free(p->rules[i].fstypes);
	free(p->rules);
	*p = (Policy){};
}

static int parse_error(char **ret_error, const char *name, unsigned line, const char *what,
		       const char *token)
{
	if (ret_error && asprintf(ret_error, "%s:%u: %s%s%s%s", name, line, what,
				  token ? " '" : "", token ?: "", token ? "'" : "") < 0)
		*ret_error = NULL;
	return -EINVAL;
}

/* "user:NAME" / "group:NAME", by name or number. */
static int parse_subject(const char *s, PolicyRule *rule)
{
	const char *v;
	char *end;
	unsigned long n;

	if ((v = startswith(s, "user:")))
		rule->is_group = false;
	else if ((v = startswith(s, "group:")))
		rule->is_group = true;
	else
		return -EINVAL;
	if (!*v)
		return -EINVAL;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (!*end && !errno && n < UINT_MAX) {
		rule->id = n;
		return 0;
	}
	if (rule->is_group) {
		struct group *g = getgrnam(v);

		if (!g)
			return -ESRCH;
		rule->id = g->gr_gid;
	} else {
		struct passwd *pw = getpwnam(v);

		if (!pw)
			return -ESRCH;
		rule->id = pw->pw_uid;
	}
	return 0;
}

static int parse_actions(char *s, unsigned *ret)
{
	unsigned mask = 0;
	char *save = NULL;

	for (char *w = strtok_r(s, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < ELEMENTSOF(action_names); i++)
			if (strcmp(action_names[i].name, w) == 0)
				break;
		if (i == ELEMENTSOF(action_names))
			return -EINVAL;
		mask |= action_names[i].action;
	}
	if (!mask)
		return -EINVAL;
	*ret = mask;
	return 0;
}

static int parse_fstypes(const char *s, char ***ret)
{
	_cleanup_free_ char *copy = strdup(s);
	char **l = NULL, *save = NULL;
	size_t n = 0;

	if (!copy)
		return -ENOMEM;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char **nl = realloc(l, (n + 2) * sizeof(char *));

		if (!nl) {
			strv_free(l);
			return -ENOMEM;
		}
		l = nl;
		l[n] = strdup(w);
		l[++n] = NULL;
		if (!l[n - 1]) {
			strv_free(l);
			return -ENOMEM;
		}
	}
	if (!l)
		return -EINVAL;
	*ret = l;
	return 0;
}

/* One "allow SUBJECT ACTIONS [fstypes=..] [namespaces=own|any]" line,
 * already split into words. */
static int parse_rule(char **words, size_t n, PolicyRule *rule, const char **ret_bad)
{
	int r;

	*ret_bad = words[0];
	if (strcmp(words[0], "allow") != 0)
		return -EINVAL;
	if (n < 3) {
		*ret_bad = NULL;
		return -EINVAL;
	}
	*ret_bad = words[1];
	r = parse_subject(words[1], rule);
	if (r < 0)
		return r;
	*ret_bad = words[2];
	r = parse_actions(words[2], &rule->actions);
	if (r < 0)
		return r;
	for (size_t i = 3; i < n; i++) {
		const char *v;

		*ret_bad = words[i];
		if ((v = startswith(words[i], "fstypes=")) && !rule->fstypes) {
			r = parse_fstypes(v, &rule->fstypes);
			if (r < 0)
				return r;
		} else if ((v = startswith(words[i], "namespaces="))) {
			if (strcmp(v, "own") == 0)
				rule->any_namespace = false;
			else if (strcmp(v, "any") == 0)
				rule->any_namespace = true;
			else
				return -EINVAL;
		} else
			return -EINVAL;
	}
	return 0;
}

int policy_parse(Policy *p, const char *text, const char *name, char **ret_error)
{
	_cleanup_free_ char *copy = strdup(text);
	char *line_save = NULL;
	unsigned lineno = 0;
	Policy parsed = {};

	if (!copy)
		return -ENOMEM;
	if (ret_error)
		*ret_error = NULL;

	/* strtok_r would merge empty lines and lose the numbering. */
	for (char *line = copy; line; line = line_save) {
		char *words[16], *save = NULL, *hash;
		size_t n = 0;
		const char *bad = NULL;
		PolicyRule rule = {};
		PolicyRule *nr;
		int r;

		lineno++;
		line_save = strchr(line, '\n');
		if (line_save)
			*line_save++ = '\0';
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		for (char *w = strtok_r(line, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save)) {
			if (n == ELEMENTSOF(words)) {
				policy_done(&parsed);
				return parse_error(ret_error, name, lineno, "too many words", NULL);
			}
			words[n++] = w;
		}
		if (n == 0)
			continue;

		r = parse_rule(words, n, &rule, &bad);
		if (r < 0) {
			strv_free(rule.fstypes);
			policy_done(&parsed);
			if (r == -ENOMEM)
				return r;
			if (r == -ESRCH)
				return parse_error(ret_error, name, lineno, "no such user or group", bad);
			if (!bad)
				return parse_error(ret_error, name, lineno,
						   "expected 'allow user:NAME|group:NAME ACTIONS'",
						   NULL);
			return parse_error(ret_error, name, lineno, "cannot parse", bad);
		}
		rule.line = lineno;
		nr = realloc(parsed.rules, (parsed.n_rules + 1) * sizeof(*nr));
		if (!nr) {
			strv_free(rule.fstypes);
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

int policy_load(Policy *p, const char *path, char **ret_error)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *text = NULL;
	size_t size = 0;

	if (ret_error)
		*ret_error = NULL;
	f = fopen(path, "re");
	if (!f) {
		if (errno != ENOENT)
			return -errno;
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
	return policy_parse(p, text ?: "", path, ret_error);
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

static bool rule_matches(const PolicyRule *rule, const PolicyCaller *c, const PolicyRequest *req)
{
	if (rule->is_group ? !caller_in_group(c, rule->id) : c->uid != rule->id)
		return false;
	if (!(rule->actions & req->action))
		return false;
	if (!rule->any_namespace && (req->ns_owner == (uid_t)-1 || req->ns_owner != c->uid))
		return false;
	if (rule->fstypes && req->action == POLICY_MOUNT && req->fstype) {
		for (char **t = rule->fstypes; *t; t++)
			if (strcmp(*t, req->fstype) == 0)
				return true;
		return false;
	}
	return true;
}

int policy_check(const Policy *p, const PolicyCaller *caller, const PolicyRequest *req,
		 const char **ret_why)
{
	const char *why_dummy;

	if (!ret_why)
		ret_why = &why_dummy;
	if (caller->uid == 0) {
		*ret_why = "caller is root";
		return 0;
	}
	if (req->action == POLICY_READ &&
	    (req->ns_owner == caller->uid || req->process_owner == caller->uid)) {
		*ret_why = "reading a namespace the caller owns";
		return 0;
	}
	for (size_t i = 0; i < p->n_rules; i++)
		if (rule_matches(&p->rules[i], caller, req)) {
			*ret_why = "allowed by a policy rule";
			return 0;
		}
	*ret_why = req->ns_owner == caller->uid ?
			   "no policy rule allows this for the caller" :
			   "the target namespace is not the caller's and no rule allows that";
	return -EPERM;
}

uid_t policy_namespace_owner(int mntns_fd)
{
	_cleanup_close_ int userns = ioctl(mntns_fd, NS_GET_USERNS);
	uid_t owner;

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

uid_t policy_pidfd_owner(int pidfd)
{
	char path[64], line[256];
	_cleanup_fclose_ FILE *f = NULL;
	pid_t pid = 0;
	uid_t owner;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	f = fopen(path, "re");
	if (!f)
		return (uid_t)-1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Pid: %d", &pid) == 1)
			break;
	if (pid <= 0)
		return (uid_t)-1;
	owner = policy_process_owner(pid);
	/* The pid may have been reused between fdinfo and stat: the pidfd
	 * still names the same process only if it has not exited. */
	if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0)
		return (uid_t)-1;
	return owner;
}
