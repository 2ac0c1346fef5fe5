/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The journal record of each request (see audit.h). */
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include <systemd/sd-journal.h>

#include "audit.h"
#include "ops-table.h"
#include "util.h"

/* A string member at a dotted path of o, or NULL. */
static const char *member(json_object *o, const char *path)
{
	char key[64];

	while (o && path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = 0;
		if (!json_object_object_get_ex(o, key, &o))
			return NULL;
		path = dot ? dot + 1 : NULL;
	}
	return o && !json_object_is_type(o, json_type_object) ? json_object_get_string(o) : NULL;
}

/* The namespace as the caller named it: {"pid":N} and so on, or "own". */
static const char *namespace_of(json_object *params)
{
	json_object *ns;

	if (json_object_object_get_ex(params, "namespace", &ns) ||
	    (json_object_object_get_ex(params, "placement", &ns) &&
	     json_object_object_get_ex(ns, "namespace", &ns)))
		return json_object_to_json_string_ext(ns, JSON_C_TO_STRING_PLAIN);
	return "own";
}

/* The kernel's messages, "; "-joined, into buf. */
static const char *messages_of(json_object *p, char *buf, size_t size)
{
	json_object *a;
	size_t used = 0;

	buf[0] = 0;
	if (!json_object_object_get_ex(p, "messages", &a) ||
	    !json_object_is_type(a, json_type_array))
		return buf;
	for (size_t i = 0; i < json_object_array_length(a) && used < size; i++) {
		const char *t = member(json_object_array_get_idx(a, i), "text");
		int n = t ? snprintf(buf + used, size - used, "%s%s", used ? "; " : "", t) : 0;

		used += n > 0 ? (size_t)n : 0;
	}
	return buf;
}

static bool is_refusal(const char *error)
{
	return error &&
	       (streq(error, OPS_ERROR_NAME_PERMISSION) || streq(error, OPS_ERROR_NAME_LIMIT));
}

void audit_request(const AuthCaller *caller, const char *method, json_object *parameters,
		   const char *authorized_by, const char *error, json_object *error_parameters)
{
	char comm[32] = "", path[64], messages[1024];
	const char *target = member(parameters, "path") ?: member(parameters, "placement.path");
	const char *source = member(parameters, "source") ?: member(parameters, "sourcePath");
	const char *fstype = member(parameters, "fsType");
	const char *errno_name = member(error_parameters, "errnoName");
	const char *step = member(error_parameters, "step");
	const char *reason = member(error_parameters, "reason") ?: authorized_by;
	_cleanup_fclose_ FILE *f = NULL;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)caller->pid);
	f = caller->pid > 0 ? fopen(path, "re") : NULL;
	if (f && fgets(comm, sizeof(comm), f))
		comm[strcspn(comm, "\n")] = 0;
	(void)messages_of(error_parameters, messages, sizeof(messages));

	(void)sd_journal_send(
		"MESSAGE=%s by uid %u (%s): %s%s%s%s%s", method, (unsigned)caller->id.uid,
		comm[0] ? comm : "?", error ?: "done", step ? " at " : "", step ?: "",
		reason && error ? ": " : "", reason && error ? reason : "", "MESSAGE_ID=%s",
		is_refusal(error) ? AUDIT_MESSAGE_ID_REFUSED : AUDIT_MESSAGE_ID_REQUEST,
		"PRIORITY=%d", error ? LOG_NOTICE : LOG_INFO, "MOUNTD_CALLER_UID=%u",
		(unsigned)caller->id.uid, "MOUNTD_CALLER_GID=%u", (unsigned)caller->id.gid,
		"MOUNTD_CALLER_PID=%d", (int)caller->pid, "MOUNTD_CALLER_COMM=%s", comm,
		"MOUNTD_METHOD=%s", method, "MOUNTD_FSTYPE=%s", fstype ?: "", "MOUNTD_SOURCE=%s",
		source ?: "", "MOUNTD_NAMESPACE=%s", namespace_of(parameters), "MOUNTD_PATH=%s",
		target ?: "", "MOUNTD_RESULT=%s", error ?: "ok", "MOUNTD_ERRNO=%s",
		errno_name ?: "", "MOUNTD_STEP=%s", step ?: "", "MOUNTD_POLICY=%s", reason ?: "",
		"MOUNTD_KERNEL_MESSAGES=%s", messages, NULL);
}
