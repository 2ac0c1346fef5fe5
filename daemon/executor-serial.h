/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One caller's changes, one at a time.  A busy key gets another worker
 * (executor.c), so two requests of one caller can run at once in two
 * processes; an operation checks a mount and then acts on it, and a second
 * request of the same caller acting in between (moving, unmounting,
 * placing a tree below what the first one checked) would make the first
 * one's act differ from its check.  So a worker holds a lock of the
 * caller's principal (the user who answers for it) for as long as it runs
 * a change of that caller's: other callers, and root, never wait on it, and
 * a request stuck while holding it (a mount call that hangs) holds up only
 * its own caller's changes, until its deadline ends the worker and the
 * kernel drops the lock with it.
 */

#include <sys/types.h>

/* Wait for principal's lock: an fd that holds it (to serial_unlock()), or
 * -EBADF where there is nothing to serialize (mountd itself, which runs no
 * two changes at once), or a negative errno. */
int serial_lock(uid_t principal);
void serial_unlock(int fd);
