/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops-errors.h"
#include "util.h"

static const char *param_str(json_object *p, const char *key)
{
	json_object *v;

	return p && json_object_object_get_ex(p, key, &v) && v ? json_object_get_string(v) : "";
}

static int param_errno(json_object *p)
{
	json_object *v;

	return p && json_object_object_get_ex(p, "errno", &v) ? json_object_get_int(v) : 0;
}

static int text_printf(char **ret, const char *fmt, ...) _printf_(2, 3);
static int text_printf(char **ret, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(ret, fmt, ap);
	va_end(ap);
	return n < 0 ? -ENOMEM : 0;
}

static int invalid_parameter_text(json_object *p, char **ret)
{
	return text_printf(ret, "Invalid parameter: %s", param_str(p, "parameter"));
}

static int permission_text(json_object *p, char **ret)
{
	return text_printf(ret, "Permission denied: %s", param_str(p, "reason"));
}

static int limit_text(json_object *p, char **ret)
{
	(void)p;
	return text_printf(ret, "This user has too many calls running, or made too many "
				"lately (mountd(8))");
}

static int not_supported_text(json_object *p, char **ret)
{
	return text_printf(ret, "fsinfo attribute not available: %s", param_str(p, "attribute"));
}

/* D-Bus errors carry one string: the step, the errno, every kernel
 * message and the steps done before it, a line each. */
static int mount_failed_text(json_object *p, char **ret)
{
	_cleanup_free_ char *text = NULL;
	json_object *list = NULL;
	int err = param_errno(p);
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return -ENOMEM;
	fprintf(f, "%s: %s (%s)", param_str(p, "step"), errno_name(err), strerror(err));
	json_object_object_get_ex(p, "messages", &list);
	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		json_object *m = json_object_array_get_idx(list, i);

		fprintf(f, "\n%s: %s %s", param_str(m, "step"), param_str(m, "level"),
			param_str(m, "text"));
	}
	list = NULL;
	json_object_object_get_ex(p, "steps", &list);
	for (size_t i = 0; list && i < json_object_array_length(list); i++)
		fprintf(f, "%s%s", i ? ", " : "\nsteps done: ",
			param_str(json_object_array_get_idx(list, i), "step"));
	if (fclose(f) != 0)
		return -ENOMEM;
	*ret = TAKE_PTR(text);
	return 0;
}

static int internal_text(json_object *p, char **ret)
{
	int err = param_errno(p);

	return text_printf(ret, "%s: %s", errno_name(err), strerror(err));
}

/* Refusals take the standard D-Bus names, as the org.varlink.service ones
 * do on the varlink side; the rest are mountd's own. */
const OpsError ops_errors[] = {
	{OPS_ERROR_NAME_INVALID_PARAMETER, "org.freedesktop.DBus.Error.InvalidArgs",
	 invalid_parameter_text},
	{OPS_ERROR_NAME_PERMISSION, "org.freedesktop.DBus.Error.AccessDenied", permission_text},
	{OPS_ERROR_NAME_LIMIT, "org.freedesktop.DBus.Error.LimitsExceeded", limit_text},
	{OPS_ERROR_NAME_NOT_SUPPORTED, "io.mountd1.Error.NotSupported", not_supported_text},
	{OPS_ERROR_NAME_MOUNT_FAILED, "io.mountd1.Error.MountFailed", mount_failed_text},
	{OPS_ERROR_NAME_INTERNAL, "io.mountd1.Error.InternalError", internal_text},
	{OPS_ERROR_NAME_TOO_LARGE, NULL, NULL},
	{OPS_ERROR_NAME_REPLY_TOO_LARGE, NULL, NULL},
};
const size_t ops_errors_n = ELEMENTSOF(ops_errors);

const OpsError *ops_error_find(const char *name)
{
	for (size_t i = 0; name && i < ops_errors_n; i++)
		if (streq(ops_errors[i].name, name))
			return &ops_errors[i];
	return NULL;
}
