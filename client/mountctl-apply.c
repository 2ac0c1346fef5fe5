/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `mountctl apply`: the line protocol of the first mount-API proposal (each
 * write() to the fs context one line: "s SOURCE", "o OPTION[=VALUE]",
 * "x create" / "x reconfigure"), extended by the two things a context fd
 * carried implicitly: "t FSTYPE" (the fsopen() argument) and "m TARGET"
 * (where move_mount() puts the result, or the mount fspick() opens for
 * reconfigure).  "#" starts a comment line.  An "x" line ends an operation;
 * the next one starts from nothing.
 *
 * The whole input is parsed before anything is done, so a typo on the last
 * line does not leave the first mounts half-applied.
 */

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <string.h>

#include "mountctl.h"
#include "util.h"

static void op_done(ApplyOp *op)
{
	free(op->fstype);
	free(op->source);
	free(op->target);
	for (size_t i = 0; i < op->n_options; i++)
		free(op->options[i].text);
	free(op->options);
	*op = (ApplyOp){};
}

void apply_script_done(ApplyScript *s)
{
	for (size_t i = 0; i < s->n_ops; i++)
		op_done(&s->ops[i]);
	free(s->ops);
	*s = (ApplyScript){};
}

_printf_(4, 5) static void syntax_error(FILE *err, const char *name, unsigned line, const char *fmt,
					...)
{
	va_list ap;

	fprintf(err, "%s:%u: ", name, line);
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fputc('\n', err);
}

static int set_once(char **field, unsigned *field_line, const char *value, unsigned line, FILE *err,
		    const char *name, const char *what)
{
	if (*field) {
		syntax_error(err, name, line, "%s given twice (first on line %u)", what,
			     *field_line);
		return -EINVAL;
	}
	*field = strdup(value);
	if (!*field)
		return -ENOMEM;
	*field_line = line;
	return 0;
}

/* Check what an "x" line completes; the op is kept either way so that
 * later lines are still checked. */
static int finish_op(ApplyOp *op, const char *cmd, unsigned line, FILE *err, const char *name)
{
	int r = 0;

	op->line = line;
	if (streq(cmd, "create")) {
		op->action = APPLY_CREATE;
		if (!op->fstype) {
			syntax_error(err, name, line,
				     "x create without a filesystem type (\"t TYPE\")");
			r = -EINVAL;
		}
		if (!op->target) {
			syntax_error(err, name, line, "x create without a target (\"m PATH\")");
			r = -EINVAL;
		}
	} else if (streq(cmd, "reconfigure")) {
		op->action = APPLY_RECONFIGURE;
		if (!op->target) {
			syntax_error(err, name, line, "x reconfigure without a mount (\"m PATH\")");
			r = -EINVAL;
		}
		if (op->fstype) {
			syntax_error(err, name, op->fstype_line,
				     "a filesystem type cannot be given to x reconfigure");
			r = -EINVAL;
		}
		if (op->source) {
			syntax_error(err, name, op->source_line,
				     "the source cannot be changed by x reconfigure");
			r = -EINVAL;
		}
	} else {
		syntax_error(
			err, name, line,
			"unknown command \"x %s\" (expected \"x create\" or \"x reconfigure\")",
			cmd);
		r = -EINVAL;
	}
	return r;
}

int apply_parse(FILE *in, const char *name, FILE *err, ApplyScript *ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	ApplyScript s = {};
	ApplyOp cur = {};
	unsigned line = 0;
	bool failed = false;
	int r = 0;

	*ret = (ApplyScript){};
	for (;;) {
		ssize_t n = getline(&buf, &size, in);
		char *p, *arg;
		char key;

		if (n < 0)
			break;
		line++;
		while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
			buf[--n] = 0;
		for (p = buf; *p == ' ' || *p == '\t'; p++)
			;
		if (!*p || *p == '#')
			continue;
		key = *p;
		arg = p + 1;
		if (*arg && *arg != ' ' && *arg != '\t') {
			syntax_error(err, name, line,
				     "expected a one-letter key and a space, e.g. \"o size=1M\"");
			failed = true;
			continue;
		}
		while (*arg == ' ' || *arg == '\t')
			arg++;
		/* Trailing blanks are never meant: drop them. */
		for (char *e = arg + strlen(arg); e > arg && isblank((unsigned char)e[-1]);)
			*--e = 0;
		if (!*arg && key != 'x') {
			syntax_error(err, name, line, "\"%c\" needs a value", key);
			failed = true;
			continue;
		}
		switch (key) {
		case 't':
			r = set_once(&cur.fstype, &cur.fstype_line, arg, line, err, name,
				     "filesystem type");
			break;
		case 's':
			r = set_once(&cur.source, &cur.source_line, arg, line, err, name, "source");
			break;
		case 'm':
			r = set_once(&cur.target, &cur.target_line, arg, line, err, name, "target");
			break;
		case 'o': {
			ApplyOption *o = realloc(cur.options, sizeof(*o) * (cur.n_options + 1));

			if (!o)
				return apply_script_done(&s), op_done(&cur), -ENOMEM;
			cur.options = o;
			o[cur.n_options].text = strdup(arg);
			o[cur.n_options].line = line;
			if (!o[cur.n_options].text)
				return apply_script_done(&s), op_done(&cur), -ENOMEM;
			cur.n_options++;
			break;
		}
		case 'x': {
			ApplyOp *ops;

			if (finish_op(&cur, arg, line, err, name) < 0)
				failed = true;
			ops = realloc(s.ops, sizeof(*ops) * (s.n_ops + 1));
			if (!ops)
				return apply_script_done(&s), op_done(&cur), -ENOMEM;
			s.ops = ops;
			s.ops[s.n_ops++] = cur;
			cur = (ApplyOp){};
			break;
		}
		default:
			syntax_error(err, name, line,
				     "unknown key \"%c\" (expected t, s, o, m or x)", key);
			r = -EINVAL;
		}
		if (r == -ENOMEM)
			return apply_script_done(&s), op_done(&cur), r;
		if (r < 0)
			failed = true;
		r = 0;
	}
	if (ferror(in)) {
		syntax_error(err, name, line, "read error");
		failed = true;
	}
	if (cur.fstype || cur.source || cur.target || cur.n_options) {
		unsigned first = cur.n_options ? cur.options[0].line : UINT32_MAX;

		first = MIN(first, cur.fstype ? cur.fstype_line : UINT32_MAX);
		first = MIN(first, cur.source ? cur.source_line : UINT32_MAX);
		first = MIN(first, cur.target ? cur.target_line : UINT32_MAX);
		syntax_error(err, name, line,
			     "input ends without \"x create\" or \"x reconfigure\" for the lines "
			     "from %u on",
			     first);
		failed = true;
	}
	op_done(&cur);
	if (failed) {
		apply_script_done(&s);
		return -EINVAL;
	}
	*ret = s;
	return 0;
}

int apply_op_to_call(const ApplyOp *op, json_object *namespace, const char *create,
		     const char **ret_method, json_object **ret_params, unsigned *ret_line,
		     char **ret_error)
{
	_cleanup_(mount_options_done) MountOptions opts = {};
	_cleanup_json_ json_object *p = json_object_new_object();
	OptionsMode mode = op->action == APPLY_CREATE ? OPTIONS_MOUNT : OPTIONS_RECONFIGURE;

	*ret_error = NULL;
	*ret_line = op->line;
	if (!p)
		return -ENOMEM;
	/* One option per line: a value may hold commas, so no splitting. */
	for (size_t i = 0; i < op->n_options; i++) {
		const char *why = NULL;
		int r = mount_options_add(&opts, mode, op->options[i].text, &why);

		if (r < 0) {
			*ret_line = op->options[i].line;
			if (r == -EINVAL && asprintf(ret_error, "option \"%s\": %s",
						     op->options[i].text, why ?: "invalid") < 0)
				*ret_error = NULL;
			return r;
		}
	}
	if (op->action == APPLY_CREATE) {
		json_object *placement = json_object_new_object();

		if (!placement)
			return -ENOMEM;
		json_object_object_add(p, "fsType", json_object_new_string(op->fstype));
		if (op->source)
			json_object_object_add(p, "source", json_object_new_string(op->source));
		if (opts.parameters)
			json_object_object_add(p, "parameters", json_object_get(opts.parameters));
		if (opts.attributes)
			json_object_object_add(p, "attributes", json_object_get(opts.attributes));
		if (opts.propagation)
			json_object_object_add(p, "propagation",
					       json_object_new_string(opts.propagation));
		if (namespace)
			json_object_object_add(placement, "namespace", json_object_get(namespace));
		json_object_object_add(placement, "path", json_object_new_string(op->target));
		if (create)
			json_object_object_add(placement, "create", json_object_new_string(create));
		json_object_object_add(p, "placement", placement);
		*ret_method = "Create";
	} else {
		if (namespace)
			json_object_object_add(p, "namespace", json_object_get(namespace));
		json_object_object_add(p, "path", json_object_new_string(op->target));
		json_object_object_add(p, "parameters",
				       opts.parameters ? json_object_get(opts.parameters)
						       : json_object_new_array());
		*ret_method = "Reconfigure";
	}
	*ret_params = TAKE_PTR(p);
	return 0;
}

unsigned apply_op_line_of_step(const ApplyOp *op, const char *step)
{
	if (!step)
		return op->line;
	if (streq(step, "fsopen") && op->fstype)
		return op->fstype_line;
	if (strncmp(step, "fsconfig:", 9) == 0) {
		const char *key = step + 9;
		size_t len = strlen(key);

		if (streq(key, "source") && op->source)
			return op->source_line;
		/* The last line that set this key is the one the kernel saw
		 * last, and so the one it refused. */
		for (size_t i = op->n_options; i-- > 0;) {
			const char *t = op->options[i].text;

			if (strncmp(t, key, len) == 0 && (t[len] == 0 || t[len] == '='))
				return op->options[i].line;
		}
		return op->line;
	}
	if (op->target &&
	    (strstr(step, "target") || streq(step, "move_mount") || streq(step, "fspick") ||
	     strncmp(step, "resolve", 7) == 0 || strncmp(step, "create", 6) == 0))
		return op->target_line;
	return op->line;
}
