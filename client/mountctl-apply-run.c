/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountctl apply: the mount-context lines of a file (parsed by
 * mountctl-apply.c) performed through mountd, errors pointing at their line.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "libmountd-client.h"
#include "mountctl.h"
#include "util.h"

/* ---- apply ---------------------------------------------------------------- */

int cmd_apply(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_(apply_script_done) ApplyScript script = {};
	_cleanup_fclose_ FILE *owned = NULL;
	const char *file = argc > 0 ? argv[0] : "-";
	const char *name = streq(file, "-") ? "<stdin>" : file;
	FILE *in = stdin;
	int r;

	if (!streq(file, "-")) {
		owned = fopen(file, "re");
		if (!owned) {
			err(c, "cannot open %s: %m", file);
			return EXIT_USAGE;
		}
		in = owned;
	}
	r = apply_parse(in, name, stderr, &script);
	if (r == -ENOMEM) {
		err(c, "out of memory");
		return EXIT_FAILED;
	}
	if (r < 0)
		return EXIT_USAGE;

	for (size_t i = 0; i < script.n_ops; i++) {
		const ApplyOp *op = &script.ops[i];
		_cleanup_json_ json_object *ns = NULL, *params = NULL;
		_cleanup_(mountd_reply_done) MountdReply reply = {};
		_cleanup_free_ char *why = NULL;
		const char *method;
		unsigned line;

		if (namespace_json(c, &ns) < 0)
			return EXIT_USAGE;
		r = apply_op_to_call(op, ns, a->create, &method, &params, &line, &why);
		if (r < 0) {
			fprintf(stderr, "%s:%u: %s\n", name, line, why ?: strerror(-r));
			drop_fds(c);
			return r == -ENOMEM ? EXIT_FAILED : EXIT_USAGE;
		}
		if (a->dry_run) {
			_cleanup_json_ json_object *o = json_object_new_object();

			drop_fds(c);
			if (!o)
				return EXIT_FAILED;
			json_object_object_add(o, "line", json_object_new_int((int)op->line));
			json_object_object_add(o, "method", json_object_new_string(method));
			json_object_object_add(o, "parameters", json_object_get(params));
			printf("%s\n", json_object_to_json_string_ext(
					       o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_SPACED |
							  JSON_C_TO_STRING_NOSLASHESCAPE));
			continue;
		}
		r = call_raw(c, method, params, &reply);
		if (r)
			return r;
		if (reply.error) {
			_cleanup_free_ char *where = NULL;
			json_object *step = NULL;

			json_object_object_get_ex(reply.parameters, "step", &step);
			line = apply_op_line_of_step(op,
						     step ? json_object_get_string(step) : NULL);
			if (asprintf(&where, "%s:%u", name, line) < 0)
				where = NULL;
			print_error(c, &reply, where);
			return EXIT_FAILED;
		}
		if (c->verbose) {
			output_trace(stderr, "mountctl: ", NULL, reply.parameters,
				     c->trace_streamed);
			fprintf(stderr, "%s:%u: done\n", name, op->line);
		} else
			output_messages(stderr, "mountctl: ", reply.parameters, false);
	}
	return 0;
}
