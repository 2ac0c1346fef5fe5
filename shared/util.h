/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Small generic helpers shared by every part of mountd: scope-based cleanup
 * (systemd's _cleanup_ style), ownership transfer, and a few macros.  Keep
 * this header free of mountd-specific logic.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include <json-c/json.h>

#define _cleanup_(f)	     __attribute__((cleanup(f)))
#define _unused_	     __attribute__((unused))
#define _printf_(a, b)	     __attribute__((format(printf, a, b)))
#define _warn_unused_result_ __attribute__((warn_unused_result))
#define _likely_(x)	     __builtin_expect(!!(x), 1)
#define _unlikely_(x)	     __builtin_expect(!!(x), 0)

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

/* Return the value and clear the variable, so the cleanup handler no longer
 * owns it.  Use when handing a resource to a caller or another object. */
#define TAKE_GENERIC(var, type, nullvalue)    \
	({                                    \
		type *_pvar_ = &(var);        \
		type _var_ = *_pvar_;         \
		type _nullvalue_ = nullvalue; \
		*_pvar_ = _nullvalue_;        \
		_var_;                        \
	})
#define TAKE_PTR_TYPE(ptr, type) TAKE_GENERIC(ptr, type, NULL)
#define TAKE_PTR(ptr)		 TAKE_PTR_TYPE(ptr, __typeof__(ptr))
#define TAKE_FD(fd)		 TAKE_GENERIC(fd, int, -EBADF)

/* Declare a cleanup function "<func>p" that calls func(*p) when *p is not
 * NULL; for types whose free function takes the pointer. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func) \
	static inline void func##p(type *p)     \
	{                                       \
		if (*p)                         \
			func(*p);               \
	}

static inline void freep(void *p)
{
	free(*(void **)p);
}
#define _cleanup_free_ _cleanup_(freep)

/* Close an fd, preserving errno; returns -EBADF so "fd = safe_close(fd)"
 * resets the variable. */
static inline int safe_close(int fd)
{
	if (fd >= 0) {
		int saved = errno;
		(void)close(fd);
		errno = saved;
	}
	return -EBADF;
}

static inline void closep(int *fd)
{
	*fd = safe_close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

/* Close an array of fds; the array itself stays. */
static inline void close_many(const int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		safe_close(fds[i]);
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}
#define _cleanup_closedir_ _cleanup_(closedirp)

/* The symbolic name of an errno, either sign ("EACCES"); "?" if unknown. */
static inline const char *errno_name(int r)
{
	return strerrorname_np(r < 0 ? -r : r) ?: "?";
}

/* free(p), as an expression: p = mfree(p). */
static inline void *mfree(void *p)
{
	free(p);
	return NULL;
}

/* json_object_put() returns int, so wrap it by hand. */
static inline void json_object_putp(json_object **j)
{
	if (*j)
		json_object_put(*j);
}
#define _cleanup_json_ _cleanup_(json_object_putp)

/* v (taken; NULL when making it ran out of memory) as key of object o, or
 * appended to array o when key is NULL: 0, or -ENOMEM with v released.  A
 * builder that adds with this fails whole instead of leaving a null. */
static inline int json_add(json_object *o, const char *key, json_object *v)
{
	if (!o || !v ||
	    (key ? json_object_object_add(o, key, v) : json_object_array_add(o, v)) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

/* NULL-terminated string vectors (char **). */
static inline char **strv_free(char **l)
{
	if (l) {
		for (char **i = l; *i; i++)
			free(*i);
		free(l);
	}
	return NULL;
}
static inline void strv_freep(char ***l)
{
	strv_free(*l);
}
#define _cleanup_strv_free_ _cleanup_(strv_freep)

static inline size_t strv_length(char *const *l)
{
	size_t n = 0;
	if (l)
		while (l[n])
			n++;
	return n;
}

static inline bool streq_ptr(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}
#define streq(a, b) (strcmp((a), (b)) == 0)

/* The rest of s after prefix, or NULL when s does not start with it. */
static inline const char *startswith(const char *s, const char *prefix)
{
	size_t l = strlen(prefix);
	return strncmp(s, prefix, l) == 0 ? s + l : NULL;
}

/* Whether two stat()s are of the same inode (a namespace file, a directory). */
static inline bool stat_inode_same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Whether list, words separated by runs of any of seps ("a b", "x=1,y"),
 * has word, n bytes of it, as a whole word. */
static inline bool word_in(const char *list, const char *word, size_t n, const char *seps)
{
	for (const char *p = list; p && *p;) {
		size_t k = strcspn(p, seps);

		if (k == n && strncmp(p, word, n) == 0)
			return true;
		p += k;
		p += strspn(p, seps);
	}
	return false;
}

static inline const char *strna(const char *s)
{
	return s ? s : "n/a";
}

/* Replace *dst by a copy of src (NULL allowed); returns -ENOMEM on failure,
 * leaving *dst untouched. */
static inline int free_and_strdup(char **dst, const char *src)
{
	char *t = NULL;
	if (src) {
		t = strdup(src);
		if (!t)
			return -ENOMEM;
	}
	free(*dst);
	*dst = t;
	return 0;
}

/* errno as a negative return value, never 0 (a failing libc call that forgot
 * to set errno still reports failure). */
static inline int negative_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

/* A /proc/PID/mountinfo field with its \ooo escapes (space, tab, newline,
 * backslash, '#') undone, in place; returns s. */
static inline char *mountinfo_unescape(char *s)
{
	char *r = s, *w = s;

	for (; *r; r++)
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') << 6 | (r[2] - '0') << 3 | (r[3] - '0'));
			r += 3;
		} else
			*w++ = *r;
	*w = 0;
	return s;
}

/* A numeric field of /proc/PID/stat, counted from 1 as proc(5) does (4:
 * the parent, 22: the start time); the fields are found after the last
 * ')', since the command name before it may hold anything.  Plain
 * open/read: callers are on request paths. */
static inline int proc_stat_number(pid_t pid, unsigned field, unsigned long long *ret)
{
	char path[64], buf[1024], *p, *end;
	_cleanup_close_ int fd = -EBADF;
	ssize_t n;

	if (field < 4)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return negative_errno();
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return -EBADMSG;
	p += 2; /* field 3, the state */
	for (unsigned i = 3; i < field; i++) {
		p = strchr(p, ' ');
		if (!p)
			return -EBADMSG;
		p++;
	}
	errno = 0;
	*ret = strtoull(p, &end, 10);
	return end == p || errno ? -EBADMSG : 0;
}
