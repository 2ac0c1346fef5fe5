/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Caller-controlled text on its way to the journal or a log line: paths,
 * filesystem types, sources, namespaces, comm, the policy's and the
 * kernel's messages (which echo parameters back).  Every such value goes
 * through escape_text(), whichever record or line it ends up in.
 *
 * Escaped, a value is one line that shows what it is: a newline in a path
 * cannot start a line of its own in `journalctl -o cat`, an ESC cannot
 * drive the reader's terminal, a bidi control cannot reorder what the
 * reader sees.  The escapes are C's and unambiguous (a backslash is
 * doubled), so the original can be read back up to the bound:
 *
 *	\n \r \t \\	newline, carriage return, tab, backslash
 *	\xNN		another C0 byte, DEL, or a byte of invalid UTF-8
 *			(a stray continuation byte, an overlong form, a
 *			surrogate, a sequence cut short, above U+10FFFF)
 *	\uNNNN		a C1 control, U+2028/U+2029 (line and paragraph
 *			separators), and the bidi and invisible formatting
 *			controls (U+061C, U+200B-U+200F, U+202A-U+202E,
 *			U+2060-U+2069, U+FEFF)
 *
 * Bounded, a value takes at most size - 1 bytes: past that it is cut at
 * the last whole character or escape that leaves room for
 * "...[+N bytes]" (N: the input bytes left out), so what a record keeps of
 * a caller's input does not grow with what the caller sends.
 */

#include <stddef.h>

/* The room escape_text() needs at least: a marker with any count. */
#define ESCAPE_TEXT_MIN 40

/* s escaped and bounded into buf (size >= ESCAPE_TEXT_MIN); returns buf,
 * or NULL for a NULL s. */
const char *escape_text(const char *s, char *buf, size_t size);
