/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * See json-scan.h.  Strings are checked for what would end them early (a
 * control character, an escape at the end), not unescaped; numbers only
 * for their characters.  What a parser would refuse beyond that is the
 * reader's to find.
 */

#include <errno.h>
#include <string.h>

#include "json-scan.h"

const char *json_scan_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static int scan_literal(const char **pp, const char *word)
{
	size_t n = strlen(word);

	if (strncmp(*pp, word, n) != 0)
		return -EBADMSG;
	*pp += n;
	return 0;
}

static int scan_value(const char **pp, unsigned depth)
{
	const char *p = json_scan_ws(*pp);
	int r;

	if (depth > JSON_SCAN_DEPTH_MAX)
		return -EBADMSG;
	switch (*p) {
	case '"':
		for (p++; *p != '"'; p++) {
			if ((unsigned char)*p < 0x20)
				return -EBADMSG;
			if (*p == '\\' && !*++p)
				return -EBADMSG;
		}
		*pp = p + 1;
		return 0;
	case '{':
	case '[': {
		char close = *p == '{' ? '}' : ']';

		p = json_scan_ws(p + 1);
		if (*p == close) {
			*pp = p + 1;
			return 0;
		}
		for (;;) {
			if (close == '}') {
				if (*p != '"')
					return -EBADMSG; /* keys are strings */
				r = scan_value(&p, depth + 1);
				if (r < 0)
					return r;
				p = json_scan_ws(p);
				if (*p++ != ':')
					return -EBADMSG;
			}
			r = scan_value(&p, depth + 1);
			if (r < 0)
				return r;
			p = json_scan_ws(p);
			if (*p == close) {
				*pp = p + 1;
				return 0;
			}
			if (*p++ != ',')
				return -EBADMSG;
			p = json_scan_ws(p);
		}
	}
	case 't':
		r = scan_literal(&p, "true");
		break;
	case 'f':
		r = scan_literal(&p, "false");
		break;
	case 'n':
		r = scan_literal(&p, "null");
		break;
	default:
		if (*p != '-' && (*p < '0' || *p > '9'))
			return -EBADMSG;
		while (*p == '-' || *p == '+' || *p == '.' || *p == 'e' || *p == 'E' ||
		       (*p >= '0' && *p <= '9'))
			p++;
		r = 0;
	}
	if (r == 0)
		*pp = p;
	return r;
}

int json_scan_value(const char **pp)
{
	return scan_value(pp, 0);
}
