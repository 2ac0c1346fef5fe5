// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * `mountctl apply`'s line protocol (client/mountctl-apply.c): any text as
 * its input.  Every syntax error must be reported as NAME:LINE: with a
 * line of the input; an accepted script must turn into calls (or say which
 * line's option is wrong), and a failed step must point at a line of it.
 */
#include <errno.h>

#include "fuzz.h"
#include "mountctl.h"
#include "util.h"

static const char *const steps[] = {
	NULL,	  "fsopen", "fsconfig:source", "fsconfig:size", "fsconfig:", "resolve:target",
	"fspick", "create", "move_mount",      "fsmount",	"setns",
};

static void check_lines(const char *err, size_t n_lines)
{
	for (const char *l = err; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		unsigned line;

		FUZZ_CHECK(sscanf(l, "in:%u: ", &line) == 1);
		FUZZ_CHECK(line >= 1 && line <= n_lines + 1);
	}
}

static void check_op(const ApplyOp *op, size_t n_lines, json_object *ns)
{
	_cleanup_json_ json_object *params = NULL;
	_cleanup_free_ char *error = NULL;
	const char *method = NULL;
	unsigned line = 0;
	int r;

	FUZZ_CHECK(op->line >= 1 && op->line <= n_lines);
	FUZZ_CHECK(op->target);
	FUZZ_CHECK(op->action != APPLY_CREATE || op->fstype);
	r = apply_op_to_call(op, ns, ns ? "directory" : NULL, &method, &params, &line, &error);
	if (r < 0) {
		FUZZ_CHECK(r == -EINVAL || r == -ENOMEM);
		FUZZ_CHECK(r != -EINVAL || error);
		FUZZ_CHECK(line >= 1 && line <= n_lines);
	} else {
		FUZZ_CHECK(method && params && !error);
		FUZZ_CHECK(streq(method, op->action == APPLY_CREATE ? "Create" : "Reconfigure"));
	}
	for (size_t i = 0; i < ELEMENTSOF(steps); i++) {
		unsigned l = apply_op_line_of_step(op, steps[i]);

		FUZZ_CHECK(l >= 1 && l <= op->line);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_json_ json_object *ns = json_object_new_object();
	_cleanup_free_ char *text = NULL; /* freed after err is closed */
	_cleanup_fclose_ FILE *in = NULL, *err = NULL;
	ApplyScript s = {};
	size_t text_size = 0, n_lines = 0;
	int r;

	if (size == 0)
		return 0;
	for (size_t i = 0; i < size; i++)
		n_lines += data[i] == '\n';
	n_lines += data[size - 1] != '\n';
	in = fmemopen((void *)data, size, "r");
	err = open_memstream(&text, &text_size);
	FUZZ_CHECK(in && err && ns);
	json_object_object_add(ns, "pid", json_object_new_int(1));

	r = apply_parse(in, "in", err, &s);
	fflush(err);
	if (fuzz_debug())
		fprintf(stderr, "%d, %zu ops\n%s", r, s.n_ops, text);
	if (r < 0) {
		FUZZ_CHECK(r == -EINVAL || r == -ENOMEM);
		FUZZ_CHECK(r != -EINVAL || text_size > 0);
		check_lines(text, n_lines);
		FUZZ_CHECK(s.n_ops == 0);
		return 0;
	}
	FUZZ_CHECK(text_size == 0);
	for (size_t i = 0; i < s.n_ops; i++)
		check_op(&s.ops[i], n_lines, i % 2 ? ns : NULL);
	apply_script_done(&s);
	return 0;
}
