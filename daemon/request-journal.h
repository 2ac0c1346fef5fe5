/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Records for journald's native protocol, sent without ever waiting.
 *
 * sd_journal_sendv() writes to a blocking socket: once journald has
 * stopped reading (stalled on its disk, stopped, busy) and its socket holds
 * net.unix.max_dgram_qlen datagrams, the next record blocks the caller.
 * For mountd's loop that is every client waiting, and after WatchdogSec a
 * SIGABRT.  Here the socket is non-blocking and connected once (no path
 * lookup per record); a full journal is -EAGAIN and the socket's EPOLLOUT
 * says when it takes records again.
 *
 * A record is built as the datagram itself: "KEY=value\n" per field, or
 * the binary-safe form (KEY\n, 64-bit little-endian length, value, \n)
 * when the value holds a newline, as sd_journal_sendv() does.
 */

#include <stdbool.h>
#include <stddef.h>

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

typedef struct JournalRecord {
	char *data;
	size_t size, allocated;
	bool broken; /* out of memory while building: not to be sent */
} JournalRecord;

/* KEY=value; a NULL value adds nothing. */
void journal_record_add(JournalRecord *r, const char *key, const char *value);
__attribute__((format(printf, 3, 4))) void journal_record_addf(JournalRecord *r, const char *key,
							       const char *fmt, ...);
void journal_record_done(JournalRecord *r);

/* A non-blocking datagram socket connected to path (JOURNAL_SOCKET when
 * NULL), or a negative errno. */
int journal_connect(const char *path);

/* 0 once the journal has the record; -EAGAIN when it takes none now;
 * another negative errno when this record cannot go (-EMSGSIZE, -EINVAL
 * for a broken one) or the socket is no use (-ECONNREFUSED...). */
int journal_send(int fd, const JournalRecord *r);
