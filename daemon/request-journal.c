/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Native journal records, sent without waiting (see request-journal.h). */
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "request-journal.h"
#include "util.h"

static void append(JournalRecord *r, const void *p, size_t n)
{
	if (r->broken)
		return;
	if (r->size + n > r->allocated) {
		size_t want = MAX(r->allocated * 2, r->size + n + 256);
		char *d = realloc(r->data, want);

		if (!d) {
			r->broken = true;
			return;
		}
		r->data = d;
		r->allocated = want;
	}
	memcpy(r->data + r->size, p, n);
	r->size += n;
}

void journal_record_add(JournalRecord *r, const char *key, const char *value)
{
	size_t k = strlen(key), n;

	if (!value)
		return;
	n = strlen(value);
	append(r, key, k);
	if (memchr(value, '\n', n)) {
		uint64_t le = htole64((uint64_t)n);

		append(r, "\n", 1);
		append(r, &le, sizeof(le));
	} else
		append(r, "=", 1);
	append(r, value, n);
	append(r, "\n", 1);
}

void journal_record_addf(JournalRecord *r, const char *key, const char *fmt, ...)
{
	_cleanup_free_ char *value = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&value, fmt, ap);
	va_end(ap);
	if (n < 0) {
		value = NULL;
		r->broken = true;
		return;
	}
	journal_record_add(r, key, value);
}

void journal_record_done(JournalRecord *r)
{
	free(r->data);
	*r = (JournalRecord){};
}

int journal_connect(const char *path)
{
	_cleanup_close_ int fd = -EBADF;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	path = path ?: JOURNAL_SOCKET;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -EINVAL;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return negative_errno();
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return negative_errno();
	return TAKE_FD(fd);
}

int journal_send(int fd, const JournalRecord *r)
{
	if (r->broken || r->size == 0)
		return -EINVAL;
	if (send(fd, r->data, r->size, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : negative_errno();
	return 0;
}
