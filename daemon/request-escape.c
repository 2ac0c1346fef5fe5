/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Caller-controlled text escaped and bounded (see request-escape.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "request-escape.h"

/* "...[+18446744073709551615 bytes]" and its NUL fit. */
#define MARKER_MAX 34

/* A valid UTF-8 sequence at s: its length, its code point in *ret; 0 when
 * the bytes at s are none (the caller escapes the first and goes on). */
static size_t utf8_decode(const unsigned char *s, uint32_t *ret)
{
	uint32_t c, min;
	size_t n;

	if (s[0] < 0x80) {
		*ret = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, c = s[0] & 0x1f, min = 0x80;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, c = s[0] & 0x0f, min = 0x800;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, c = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		/* The NUL at the end is no continuation byte: no read past it. */
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*ret = c;
	return n;
}

/* Code points shown as \uNNNN: invisible, they would change how the
 * line reads (a line break, reordering, a C1 CSI for a terminal). */
static bool needs_u_escape(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) || c == 0x061c || (c >= 0x200b && c <= 0x200f) ||
	       c == 0x2028 || c == 0x2029 || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2060 && c <= 0x2069) || c == 0xfeff;
}

/* The letter of C's short escape for c, or 0. */
static char short_escape(uint32_t c)
{
	switch (c) {
	case '\n':
		return 'n';
	case '\r':
		return 'r';
	case '\t':
		return 't';
	case '\\':
		return '\\';
	default:
		return 0;
	}
}

/* The escaped form of the character at s into unit, its length in
 * *ret_len; returns the input bytes it stands for. */
static size_t escape_one(const unsigned char *s, char unit[static 8], size_t *ret_len)
{
	uint32_t c;
	size_t n = utf8_decode(s, &c);

	if (n == 0) /* invalid: this byte as \xNN, and on from the next */
		*ret_len = (size_t)snprintf(unit, 8, "\\x%02x", s[0]);
	else if (short_escape(c)) {
		unit[0] = '\\';
		unit[1] = short_escape(c);
		*ret_len = 2;
	} else if (c < 0x20 || c == 0x7f)
		*ret_len = (size_t)snprintf(unit, 8, "\\x%02x", (unsigned)c);
	else if (needs_u_escape(c))
		*ret_len = (size_t)snprintf(unit, 8, "\\u%04x", (unsigned)c);
	else {
		memcpy(unit, s, n);
		*ret_len = n;
	}
	return n ?: 1;
}

const char *escape_text(const char *s, char *buf, size_t size)
{
	const unsigned char *in;
	size_t used = 0, cut = 0, cut_at = 0;
	bool cut_set = false;

	if (!s)
		return NULL;
	/* Units are written while they fit; the first one that would leave
	 * no room for the marker sets the cut.  Units go on into that room:
	 * if the input ends there, nothing was cut after all. */
	for (in = (const unsigned char *)s; *in;) {
		char unit[8];
		size_t len, n = escape_one(in, unit, &len);

		if (!cut_set && used + len > size - MARKER_MAX) {
			cut = used;
			cut_at = (size_t)(in - (const unsigned char *)s);
			cut_set = true;
		}
		if (used + len > size - 1) {
			snprintf(buf + cut, size - cut, "...[+%zu bytes]", strlen(s + cut_at));
			return buf;
		}
		memcpy(buf + used, unit, len);
		used += len;
		in += n;
	}
	buf[used] = 0;
	return buf;
}
