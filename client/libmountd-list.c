/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * List's reply read straight into MountdMount structs.  The reply of 10k
 * mounts is megabytes of JSON; json-c made ~25 objects per mount of it,
 * most of a List's cost in the client.  Here the text is read once: the
 * message buffer is taken over (not copied when it holds this message
 * alone), strings are unescaped in place and NUL-terminated where their
 * closing quote was, numbers are read as they pass.
 *
 * Only the mounts array is written to.  An error reply is left as it came
 * and parsed by json-c (it is small), so MountdMountList.reply is what
 * mountd_client_call() would have given.  Keys the reader does not know
 * are skipped, as json-c's users would ignore them.
 */

#include <errno.h>
#include <linux/mount.h>
#include <stddef.h>
#include <string.h>

#include "json-scan.h"
#include "libmountd-client-internal.h"
#include "libmountd-client.h"
#include "mount-entry.h"
#include "util.h"

static char *skip_ws(char *p)
{
	return (char *)json_scan_ws(p);
}

static int hex4(const char *p, unsigned *ret)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -EBADMSG;
	}
	*ret = v;
	return 0;
}

static size_t put_utf8(char *d, unsigned cp)
{
	if (cp < 0x80) {
		d[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = (char)(0xc0 | cp >> 6);
		d[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		d[0] = (char)(0xe0 | cp >> 12);
		d[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		d[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	d[0] = (char)(0xf0 | cp >> 18);
	d[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	d[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	d[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* The escape at s (after its backslash) into d; returns the bytes read
 * from s, or negative.  Never writes more than it reads plus one, so an
 * in-place decode stays behind its reading position. */
static int unescape_one(const char *s, char *d, size_t *ret_written)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k = *s ? strchr(from, *s) : NULL;
	unsigned cp, lo;

	if (k) {
		*d = to[k - from];
		*ret_written = 1;
		return 1;
	}
	if (*s != 'u' || hex4(s + 1, &cp) < 0 || cp == 0)
		return -EBADMSG; /* \u0000 has no place in a C string */
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return -EBADMSG;
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (s[5] != '\\' || s[6] != 'u' || hex4(s + 7, &lo) < 0 || lo < 0xdc00 ||
		    lo > 0xdfff)
			return -EBADMSG;
		*ret_written = put_utf8(d, 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00));
		return 11;
	}
	*ret_written = put_utf8(d, cp);
	return 5;
}

/* The string at *pp (its opening quote), unescaped into d (which may be
 * *pp + 1: in place) and NUL-terminated; *pp moves past it.  At most cap
 * bytes with the NUL: -ENOBUFS beyond. */
static int read_string(char **pp, char *d, size_t cap, size_t *ret_len)
{
	char *s = *pp, *start = d;

	if (*s++ != '"')
		return -EBADMSG;
	for (;;) {
		char *run = s;
		size_t n;

		while (*s != '"' && *s != '\\' && (unsigned char)*s >= 0x20)
			s++;
		n = (size_t)(s - run);
		if ((size_t)(d - start) + n >= cap)
			return -ENOBUFS;
		if (d != run)
			memmove(d, run, n);
		d += n;
		if (*s == '"')
			break;
		if (*s != '\\')
			return -EBADMSG; /* a control character, or the end */
		{
			size_t w;
			int k;

			if ((size_t)(d - start) + 4 >= cap)
				return -ENOBUFS;
			k = unescape_one(s + 1, d, &w);
			if (k < 0)
				return k;
			s += 1 + k;
			d += w;
		}
	}
	*d = 0;
	*pp = s + 1;
	if (ret_len)
		*ret_len = (size_t)(d - start);
	return 0;
}

/* A string value in place: *ret points into the text. */
static int read_string_in_place(char **pp, const char **ret)
{
	char *d = *pp + 1;
	int r = read_string(pp, d, SIZE_MAX, NULL);

	if (r < 0)
		return r;
	*ret = d;
	return 0;
}

static int read_u64(char **pp, uint64_t *ret)
{
	char *p = *pp;
	uint64_t v = 0;

	if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
		return -EBADMSG;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -EBADMSG;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.' || *p == 'e' || *p == 'E')
		return -EBADMSG;
	*pp = p;
	*ret = v;
	return 0;
}

static int read_literal(char **pp, const char *word)
{
	size_t n = strlen(word);

	if (strncmp(*pp, word, n) != 0)
		return -EBADMSG;
	*pp += n;
	return 0;
}

static int read_bool(char **pp, bool *ret)
{
	*ret = **pp == 't';
	return read_literal(pp, *ret ? "true" : "false");
}

/* Any value, unread (and unchanged: error replies go to json-c after). */
static int skip_value(char **pp)
{
	const char *p = *pp;
	int r = json_scan_value(&p);

	if (r >= 0)
		*pp = (char *)p;
	return r;
}

/* The members of an object at *pp, one call of member() per key (a copy,
 * unescaped; a key too long for it is passed as "").  member() reads the
 * value after the colon and returns negative to fail.  hint(), if any,
 * names the key that likely comes next (mountd writes its keys in one
 * order): a key that is that name, unescaped, is passed as that very
 * pointer, neither copied nor unescaped. */
typedef int (*MemberFn)(const char *key, char **pp, void *userdata);
typedef const char *(*KeyHintFn)(void *userdata);

/* Whether p is the string "name", as it is (no escapes), and where it
 * ends. */
static bool key_is(const char *p, const char *name, char **ret_end)
{
	size_t n = strlen(name);

	if (p[0] != '"' || strncmp(p + 1, name, n) != 0 || p[1 + n] != '"')
		return false;
	*ret_end = (char *)p + n + 2;
	return true;
}

static int read_object(char **pp, KeyHintFn hint, MemberFn member, void *userdata)
{
	char *p = skip_ws(*pp);
	int r;

	if (*p++ != '{')
		return -EBADMSG;
	p = skip_ws(p);
	if (*p == '}') {
		*pp = p + 1;
		return 0;
	}
	for (;;) {
		const char *expected = hint ? hint(userdata) : NULL;
		char key[32];
		const char *k = key;

		if (expected && key_is(p, expected, &p)) {
			k = expected;
			r = 0;
		} else {
			r = read_string(&p, key, sizeof(key), NULL);
			if (r == -ENOBUFS) {
				key[0] = 0;
				r = skip_value(&p);
			}
		}
		if (r < 0)
			return r;
		p = skip_ws(p);
		if (*p++ != ':')
			return -EBADMSG;
		p = skip_ws(p);
		r = member(k, &p, userdata);
		if (r < 0)
			return r;
		p = skip_ws(p);
		if (*p == '}') {
			*pp = p + 1;
			return 0;
		}
		if (*p++ != ',')
			return -EBADMSG;
		p = skip_ws(p);
	}
}

/* ---- one mount ------------------------------------------------------------ */

/* The names are mountd's: shared/mount-entry.h. */
#define FLAG(id, name, bit) {name, bit},
#define PAIR(name, value)   {name, value},
static const struct {
	const char *name;
	uint64_t bit;
} attribute_flags[] = {MOUNT_ATTRIBUTE_FLAGS(FLAG)};

static const struct {
	const char *name;
	uint64_t value;
} atime_names[] = {MOUNT_ATIME_MODES(PAIR)}, propagation_names[] = {MOUNT_PROPAGATIONS(PAIR)};
#undef FLAG
#undef PAIR

#define LOOKUP(table, s, ret)                                     \
	({                                                        \
		int _r = -EBADMSG;                                \
		for (size_t _i = 0; _i < ELEMENTSOF(table); _i++) \
			if (streq((table)[_i].name, (s))) {       \
				*(ret) = (table)[_i].value;       \
				_r = 0;                           \
				break;                            \
			}                                         \
		_r;                                               \
	})

typedef struct AttributeReading {
	uint64_t *attr;
	/* The flag looked for first (mountd writes them in order, then
	 * "atime"): ELEMENTSOF(attribute_flags) for atime, past it none. */
	size_t next;
} AttributeReading;

static const char *attribute_hint(void *userdata)
{
	const AttributeReading *ar = userdata;

	if (ar->next < ELEMENTSOF(attribute_flags))
		return attribute_flags[ar->next].name;
	return ar->next == ELEMENTSOF(attribute_flags) ? "atime" : NULL;
}

static int attribute_member(const char *key, char **pp, void *userdata)
{
	AttributeReading *ar = userdata;
	uint64_t *attr = ar->attr;
	const char *s;
	bool b;
	int r;

	if (streq(key, "atime")) {
		uint64_t v;

		ar->next = ELEMENTSOF(attribute_flags) + 1;
		r = read_string_in_place(pp, &s);
		if (r >= 0)
			r = LOOKUP(atime_names, s, &v);
		if (r >= 0)
			*attr = (*attr & ~(uint64_t)MOUNT_ATTR__ATIME) | v;
		return r;
	}
	for (size_t k = 0; k < ELEMENTSOF(attribute_flags); k++) {
		size_t i = (ar->next + k) % ELEMENTSOF(attribute_flags);

		if (key == attribute_flags[i].name || streq(key, attribute_flags[i].name)) {
			ar->next = i + 1;
			r = read_bool(pp, &b);
			if (r >= 0 && b)
				*attr |= attribute_flags[i].bit;
			return r;
		}
	}
	return skip_value(pp);
}

/* MountEntry of io.mountd.Mount.varlink (shared/mount-entry.h), in the
 * order mountd writes it: the next key is looked for first where the last
 * one was. */
static const struct MountField {
	const char *name;
	MountEntryKind kind;
	size_t offset;
} mount_fields[] = {
#define M(name, kind, daemon_member, member) \
	{name, MOUNT_ENTRY_##kind, offsetof(MountdMount, member)},
	MOUNT_ENTRY_FIELDS(M)
#undef M
};

typedef struct MountReading {
	MountdMount *m;
	size_t next;   /* where to look for the next key first */
	uint32_t seen; /* bits of mount_fields */
} MountReading;

/* "MAJOR:MINOR", each a decimal number of 32 bits. */
static int read_device(const char *s, uint32_t *ret_major, uint32_t *ret_minor)
{
	uint64_t major, minor;
	char *p = (char *)s;

	if (read_u64(&p, &major) < 0 || major > UINT32_MAX || *p++ != ':' ||
	    read_u64(&p, &minor) < 0 || minor > UINT32_MAX || *p)
		return -EBADMSG;
	*ret_major = (uint32_t)major;
	*ret_minor = (uint32_t)minor;
	return 0;
}

static int read_field(const struct MountField *f, char **pp, MountdMount *m)
{
	void *at = (char *)m + f->offset;
	const char *s;
	uint64_t v;
	int r;

	switch (f->kind) {
	case MOUNT_ENTRY_U64:
		return read_u64(pp, at);
	case MOUNT_ENTRY_U32:
		r = read_u64(pp, &v);
		if (r >= 0 && v > UINT32_MAX)
			r = -EBADMSG;
		if (r >= 0)
			*(uint32_t *)at = (uint32_t)v;
		return r;
	case MOUNT_ENTRY_OPT_STRING:
		if (**pp == 'n') {
			*(const char **)at = NULL;
			return read_literal(pp, "null");
		}
		__attribute__((fallthrough));
	case MOUNT_ENTRY_STRING:
		return read_string_in_place(pp, at);
	case MOUNT_ENTRY_ATTRIBUTES:
		return read_object(pp, attribute_hint, attribute_member,
				   &(AttributeReading){.attr = at});
	case MOUNT_ENTRY_PROPAGATION:
		r = read_string_in_place(pp, &s);
		return r < 0 ? r : LOOKUP(propagation_names, s, (uint64_t *)at);
	case MOUNT_ENTRY_DEVICE:
		r = read_string_in_place(pp, &s);
		if (r < 0)
			return r;
		return read_device(s, &m->dev_major, &m->dev_minor);
	}
	return -EBADMSG;
}

static const char *mount_hint(void *userdata)
{
	const MountReading *mr = userdata;

	return mount_fields[mr->next % ELEMENTSOF(mount_fields)].name;
}

static int mount_member(const char *key, char **pp, void *userdata)
{
	MountReading *mr = userdata;

	for (size_t k = 0; k < ELEMENTSOF(mount_fields); k++) {
		size_t i = (mr->next + k) % ELEMENTSOF(mount_fields);

		if (key != mount_fields[i].name && !streq(key, mount_fields[i].name))
			continue;
		if (mr->seen & 1u << i)
			return -EBADMSG; /* twice */
		mr->seen |= 1u << i;
		mr->next = i + 1;
		return read_field(&mount_fields[i], pp, mr->m);
	}
	return skip_value(pp);
}

static int read_mount(char **pp, MountdMount *m)
{
	MountReading mr = {.m = m};
	int r;

	*m = (MountdMount){};
	r = read_object(pp, mount_hint, mount_member, &mr);
	if (r < 0)
		return r;
	for (size_t i = 0; i < ELEMENTSOF(mount_fields); i++)
		if (mount_fields[i].kind != MOUNT_ENTRY_OPT_STRING && !(mr.seen & 1u << i))
			return -EBADMSG;
	return 0;
}

/* ---- the reply ------------------------------------------------------------ */

typedef struct ReplyReading {
	MountdMountList *list;
	bool error, continues, have_mounts;
} ReplyReading;

static int read_mounts(char **pp, MountdMountList *l)
{
	char *p = skip_ws(*pp);
	int r;

	if (*p++ != '[')
		return -EBADMSG;
	p = skip_ws(p);
	if (*p == ']') {
		*pp = p + 1;
		return 0;
	}
	for (;;) {
		if (l->n_mounts == l->n_allocated) {
			size_t n = l->n_allocated ? l->n_allocated * 2 : 256;
			MountdMount *m = reallocarray(l->mounts, n, sizeof(*m));

			if (!m)
				return -ENOMEM;
			l->mounts = m;
			l->n_allocated = n;
		}
		r = read_mount(&p, &l->mounts[l->n_mounts]);
		if (r < 0)
			return r;
		l->n_mounts++;
		p = skip_ws(p);
		if (*p == ']') {
			*pp = p + 1;
			return 0;
		}
		if (*p++ != ',')
			return -EBADMSG;
	}
}

static int parameters_member(const char *key, char **pp, void *userdata)
{
	ReplyReading *rr = userdata;

	if (!streq(key, "mounts") || rr->error)
		return skip_value(pp);
	if (rr->have_mounts)
		return -EBADMSG;
	rr->have_mounts = true;
	return read_mounts(pp, rr->list);
}

static int reply_member(const char *key, char **pp, void *userdata)
{
	ReplyReading *rr = userdata;

	if (streq(key, "error")) {
		rr->error = true;
		return skip_value(pp);
	}
	if (streq(key, "continues"))
		return read_bool(pp, &rr->continues);
	if (streq(key, "parameters"))
		return read_object(pp, NULL, parameters_member, rr);
	return skip_value(pp);
}

/* One message's text (l's last) into l: its mounts added to those of
 * the parts before, *ret_continues when more follow. */
static int read_reply(MountdMountList *l, bool *ret_continues)
{
	ReplyReading rr = {.list = l};
	char *p = l->texts[l->n_texts - 1];
	int r;

	r = read_object(&p, NULL, reply_member, &rr);
	if (r < 0)
		return r;
	if (*skip_ws(p))
		return -EBADMSG;
	*ret_continues = rr.continues;
	if (rr.error) {
		/* Nothing of the text was written to: no mounts were read.
		 * An error ends the call, however many parts came before. */
		if (rr.have_mounts || rr.continues)
			return -EBADMSG;
		l->n_mounts = 0;
		return client_parse_reply_text(l->texts[l->n_texts - 1], &l->reply);
	}
	return rr.have_mounts ? 0 : -EBADMSG;
}

void mountd_mount_list_done(MountdMountList *l)
{
	if (!l)
		return;
	free(l->mounts);
	for (size_t i = 0; i < l->n_texts; i++)
		free(l->texts[i]);
	free(l->texts);
	mountd_reply_done(&l->reply);
	*l = (MountdMountList){};
}

/* The next message's text into l->texts. */
static int receive_part(MountdClient *c, MountdMountList *l)
{
	_cleanup_(mountd_reply_done) MountdReply fds = {};
	char **t = reallocarray(l->texts, l->n_texts + 1, sizeof(char *));
	int r;

	if (!t)
		return -ENOMEM;
	l->texts = t;
	/* A List reply names no fds: any that came are closed. */
	r = client_receive_text(c, &l->texts[l->n_texts], &fds);
	if (r < 0)
		return r;
	l->n_texts++;
	return 0;
}

int mountd_client_list(MountdClient *c, json_object *params, const int *fds, size_t n_fds,
		       MountdMountList *ret)
{
	bool continues = true;
	int r;

	*ret = (MountdMountList){};
	/* "more": the mounts of a large namespace come in parts, none of
	 * them larger than a message may be (a mountd before this answers
	 * in one). */
	r = client_send_call(c, "List", params, fds, n_fds, true, false);
	while (r >= 0 && continues) {
		r = receive_part(c, ret);
		if (r >= 0)
			r = read_reply(ret, &continues);
	}
	if (r < 0) {
		mountd_mount_list_done(ret);
		return r;
	}
	return 0;
}
