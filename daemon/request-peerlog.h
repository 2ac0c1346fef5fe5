/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * mountd's warnings about what a peer did (varlink's peer log: a malformed
 * or oversized message, too many fds or connections, answers it does not
 * read), bounded.  Any user can cause such a line with one connect(), far
 * faster than the call rate limit (request-ratelimit.h) lets it cause records: a
 * few thousand a second.  mountd's journal rate limit is out of reach on
 * purpose (mountd.service), so unbounded, one user's lines would fill the
 * journal and rotate out the records of everyone's mounts.
 *
 * A user other than root (the uid given is the peer's principal, see
 * shared/principal.h) gets PEERLOG_BURST lines per PEERLOG_INTERVAL_USEC,
 * and all users together PEERLOG_ALL_BURST (many users, or the callers
 * whose user cannot be told); the rest are counted, and one line a report
 * period says how many were left out and about whom most.  Root's lines
 * are all written.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#define PEERLOG_BURST	      10U
#define PEERLOG_ALL_BURST     100U
#define PEERLOG_INTERVAL_USEC (10ULL * 1000 * 1000)
#define PEERLOG_REPORT_USEC   (1ULL * 1000 * 1000)

/* The limiter itself, clock and output given by the caller (unit tests). */
typedef struct PeerLog PeerLog;

PeerLog *peer_log_new(void (*write_line)(const char *line, void *userdata), void *userdata);
PeerLog *peer_log_free(PeerLog *l);
/* Writes line, or counts it.  true: written. */
bool peer_log_line(PeerLog *l, uid_t uid, const char *line, uint64_t now_usec);
/* The end of a report period: one line for what was left out since the
 * last, if anything was.  Returns how many were. */
uint64_t peer_log_report(PeerLog *l, uint64_t now_usec);

/* mountd's, on event's monotonic clock, writing to stderr. */
int peerlog_setup(sd_event *event);
/* A VarlinkPeerLog; without peerlog_setup() every line is written. */
void peerlog_write(uid_t uid, const char *line, void *userdata);
/* Reports what is owed, then forgets everything. */
void peerlog_shutdown(void);
