// SPDX-License-Identifier: LGPL-2.1-or-later
/* daemon/request-escape.c: caller text made one line that shows what it is,
 * and bounded with a marker that says how much was left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request-escape.h"
#include "tap.h"
#include "util.h"

static void is(const char *in, const char *want, const char *what)
{
	char buf[256];
	const char *got = escape_text(in, buf, sizeof(buf));

	ok(got && streq(got, want), "%s: \"%s\"", what, got ?: "(null)");
}

/* No byte of the output is a control character, DEL, or the start of an
 * invalid sequence: all of it is printable text on one line. */
static bool all_printable(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

static void test_controls(void)
{
	char buf[256], in[2] = {};
	bool each = true;

	is("/mnt/plain", "/mnt/plain", "plain text as it is");
	is("/a\nFeb 30 by uid 0 (mountctl): done", "/a\\nFeb 30 by uid 0 (mountctl): done",
	   "a newline: \\n, no line of its own");
	is("/a\rroot", "/a\\rroot", "a carriage return: \\r");
	is("\x1b[2J\x1b]0;t\x07", "\\x1b[2J\\x1b]0;t\\x07", "ESC and BEL: \\x1b, \\x07");
	is("a\tb\\n", "a\\tb\\\\n",
	   "tab \\t; a backslash doubled, so a literal \\n is not a newline's escape");
	is("x\x7fy", "x\\x7fy", "DEL: \\x7f");
	for (int c = 1; c < 0x20; c++) {
		in[0] = (char)c;
		escape_text(in, buf, sizeof(buf));
		each = each && all_printable(buf) && buf[0] == '\\';
	}
	ok(each, "every C0 byte is escaped");
	ok(escape_text(NULL, buf, sizeof(buf)) == NULL, "no value: NULL");
}

static void test_utf8(void)
{
	is("/mnt/caf\xc3\xa9/\xe6\x97\xa5/\xf0\x9f\x93\x81",
	   "/mnt/caf\xc3\xa9/\xe6\x97\xa5/\xf0\x9f\x93\x81", "valid UTF-8 as it is");
	is("a\xff"
	   "b",
	   "a\\xffb", "an invalid byte: \\xff");
	is("a\x80"
	   "b",
	   "a\\x80b", "a stray continuation byte");
	is("a\xc0\xaf"
	   "b",
	   "a\\xc0\\xafb", "an overlong '/'");
	is("a\xed\xa0\x80"
	   "b",
	   "a\\xed\\xa0\\x80b", "a surrogate");
	is("a\xf4\x90\x80\x80", "a\\xf4\\x90\\x80\\x80", "above U+10FFFF");
	is("a\xe6\x97", "a\\xe6\\x97", "a sequence cut short by the end");
	is("a\xe6\nb", "a\\xe6\\nb",
	   "a sequence cut short by a newline: the newline still escaped");
	is("a\xc2\x85"
	   "b",
	   "a\\u0085b", "C1 NEL (U+0085): \\u0085");
	is("\xc2\x9b"
	   "2J",
	   "\\u009b2J", "C1 CSI (U+009B)");
	is("a\xe2\x80\xa8"
	   "b\xe2\x80\xa9",
	   "a\\u2028b\\u2029", "line and paragraph separators");
	is("x\xe2\x80\xae"
	   "fdp.exe",
	   "x\\u202efdp.exe", "a bidi override");
	is("\xe2\x81\xa6"
	   "a\xe2\x80\x8b"
	   "\xef\xbb\xbf",
	   "\\u2066a\\u200b\\ufeff", "isolates, zero-width space, BOM");
}

static void test_bound(void)
{
	char big[150 * 1024], buf[256], want[64];
	size_t n;

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	escape_text(big, buf, sizeof(buf));
	n = strlen(buf);
	ok(n <= sizeof(buf) - 1, "150 KiB in 256 bytes: %zu", n);
	snprintf(want, sizeof(want), "...[+%zu bytes]", sizeof(big) - 1 - strspn(buf, "a"));
	ok(n > strlen(want) && streq(buf + strspn(buf, "a"), want),
	   "cut with a marker that counts the input left out: %s", buf + strspn(buf, "a"));

	/* Escapes are never cut in half: a line of newlines cut anywhere. */
	memset(big, '\n', 1000);
	big[1000] = 0;
	escape_text(big, buf, sizeof(buf));
	n = strspn(buf, "\\n");
	ok(n % 2 == 0 && strncmp(buf + n, "...[+", 5) == 0,
	   "newlines cut between escapes (%zu bytes of them)", n);
	/* Nor a character: 3-byte ones. */
	for (n = 0; n + 3 < 1000; n += 3)
		memcpy(big + n, "\xe6\x97\xa5", 3);
	big[n] = 0;
	escape_text(big, buf, sizeof(buf));
	n = strstr(buf, "...[+") ? (size_t)(strstr(buf, "...[+") - buf) : 0;
	ok(n > 0 && n % 3 == 0 && !strchr(buf, '\\'), "UTF-8 cut between characters (%zu bytes)",
	   n);

	/* What fits exactly is not cut. */
	memset(big, 'b', sizeof(buf) - 1);
	big[sizeof(buf) - 1] = 0;
	escape_text(big, buf, sizeof(buf));
	ok(strlen(buf) == sizeof(buf) - 1 && !strchr(buf, '.'), "255 bytes fit 256 whole");
	big[sizeof(buf) - 1] = 'b';
	big[sizeof(buf)] = 0;
	escape_text(big, buf, sizeof(buf));
	ok(streq(buf + strspn(buf, "b"), "...[+34 bytes]") && strlen(buf) <= sizeof(buf) - 1,
	   "256 do not: %s", buf + strspn(buf, "b"));
}

int main(void)
{
	test_controls();
	test_utf8();
	test_bound();
	return tap_done();
}
