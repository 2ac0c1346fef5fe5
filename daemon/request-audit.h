/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One structured journal record per answered request, from either front
 * end: who asked (uid, gid, pid, comm), what (method, filesystem type,
 * source, namespace, path), and how it ended (result, errno, failed step,
 * the kernel's messages, the policy's reason for a refusal).  A field
 * with no value (no filesystem type, no error) is left out.  Calls past a
 * caller's rate are the exception: most are counted, not recorded one by
 * one (request-ratelimit.h, audit_rate_limited()).
 *
 *	journalctl MESSAGE_ID=<AUDIT_MESSAGE_ID_REQUEST>   every request
 *	journalctl MESSAGE_ID=<AUDIT_MESSAGE_ID_REFUSED>   refusals only
 *
 * Every string a record holds that a caller chose or that echoes it (paths,
 * fsType, source, namespace, comm, the policy's reason, the kernel's
 * messages) is escaped and bounded (request-escape.h): MESSAGE is one line,
 * at most AUDIT_MESSAGE_VALUE_MAX bytes of each value; a field of its own
 * keeps up to AUDIT_FIELD_MAX.  And what a record costs the journal is
 * counted against the user who answers for the caller
 * (shared/principal.h): past AUDIT_BUDGET_BYTES_DEFAULT per
 * AUDIT_BUDGET_INTERVAL_USEC_DEFAULT (audit_budget_setup()), that user's
 * records are counted instead, and the count goes out as one record per
 * user per AUDIT_BUDGET_REPORT_USEC (AUDIT_MESSAGE_ID_SUMMARIZED); but a
 * change that was made is still recorded, short (each value cut to
 * AUDIT_MESSAGE_VALUE_MAX, MOUNTD_PAST_BUDGET=1).  Root's are never
 * counted: a user flooding large requests cannot rotate root's records
 * out of the journal.
 *
 * A record is made when the answer is (the caller's comm read then, or
 * once per varlink connection: AuthCaller.comm), and
 * sent to the journal after the answer has gone out: journald's work on it
 * is then no part of the caller's wait.  An answer given later (a worker's,
 * polkit's) is written before its done() returns, and request.c calls
 * audit_flush() right after; one given while the call is being started
 * waits for that loop iteration's answers (a deferred source).  At most
 * AUDIT_QUEUE_MAX wait for that; a full queue and audit_flush() send them
 * at once.  Without audit_setup() every record is sent at once.
 *
 * Sending never waits (request-journal.h): a record the journal does not take now
 * waits with the others for its socket to take records again, up to
 * AUDIT_BACKLOG_MAX; past that records are counted, and the count goes to
 * the journal as a record of its own (AUDIT_MESSAGE_ID_LOST) once it takes
 * records again.  So a stalled journald delays records, and past that
 * loses them countably, but never stops mountd answering.
 * audit_shutdown() gives the journal AUDIT_SHUTDOWN_WAIT_MS.
 */

#include <stdbool.h>

#include <json-c/json.h>
#include <systemd/sd-event.h>

#include "authorize.h"

#define AUDIT_MESSAGE_ID_REQUEST    "1890aabd15ef4fa49f1bac38230bbd63"
#define AUDIT_MESSAGE_ID_REFUSED    "dbc160ff88ed48948dac703a7e9a2caa"
#define AUDIT_MESSAGE_ID_LOST	    "0835a96606da49059adcd56813f4d3de"
#define AUDIT_MESSAGE_ID_SUMMARIZED "031ac9eb2d5b4faa9aece7471cf6248d"

/* What one caller value may take of MESSAGE, and of a field of its own
 * (with the NUL): a field keeps a path of PATH_MAX whole, MESSAGE what a
 * person reads on one line. */
#define AUDIT_MESSAGE_VALUE_MAX 256
#define AUDIT_FIELD_MAX		4096

/* More than a user's full call rate of ordinary records (about 600
 * bytes each, 1000 per 10 s: request-ratelimit.h) takes. */
#define AUDIT_BUDGET_BYTES_DEFAULT	   (1024U * 1024)
#define AUDIT_BUDGET_INTERVAL_USEC_DEFAULT (10ULL * 1000 * 1000)
#define AUDIT_BUDGET_REPORT_USEC	   (10ULL * 1000 * 1000)

#define AUDIT_SHUTDOWN_WAIT_MS 2000

/* socket_path: the journal's (NULL: JOURNAL_SOCKET), for tests. */
int audit_setup(sd_event *event, const char *socket_path);
/* Each user's journal budget: bytes (0: none) per interval_usec; after
 * audit_setup().  Without it records are not counted. */
int audit_budget_setup(unsigned bytes, uint64_t interval_usec);
void audit_flush(void);
void audit_shutdown(void);
/* Records not yet taken by the journal. */
size_t audit_pending(void);

/* changes: the method changes something (not OpsMethod.reads);
 * parameters: the request as the caller sent it (JSON, either front end);
 * error: NULL for success, else the error name with its parameters. */
/* authorized_by: what allowed it (NULL: root, or refused before). */
void audit_request(const AuthCaller *caller, const char *method, bool changes,
		   json_object *parameters, const char *authorized_by, const char *error,
		   json_object *error_parameters);

/* One record for the refused calls of uid ((uid_t)-1: of uids the rate
 * limit had no room to tell apart) that were not recorded one by one
 * (request-ratelimit.h); limit describes the rate. */
void audit_rate_limited(uid_t uid, uint64_t refused, const char *limit);
