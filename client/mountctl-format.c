/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountctl __format: the formatters on canned replies, without a daemon
 * (the host tests' golden files).
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "libmountd-client.h"
#include "mountctl.h"
#include "util.h"

/* ---- hidden test paths: the formatters without a daemon ---------------------- */

int cmd_format(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_json_ json_object *in = NULL;
	_cleanup_free_ char *text = NULL;
	const char *kind = argv[0];
	size_t size = 0;
	int r = 0;

	if (streq(kind, "options")) {
		/* __format options MODE LIST */
		static const char *const modes[] = {"mount", "bind", "remount", "set",
						    "reconfigure"};
		_cleanup_(mount_options_done) MountOptions opts = {};
		_cleanup_json_ json_object *o = json_object_new_object();
		size_t m;

		if (argc != 3)
			return EXIT_USAGE;
		for (m = 0; m < ELEMENTSOF(modes) && !streq(modes[m], argv[1]); m++)
			;
		if (m == ELEMENTSOF(modes) || !o)
			return EXIT_USAGE;
		r = parse_options(c, argv[2], (OptionsMode)m, &opts);
		if (r)
			return r;
		json_object_object_add(o, "parameters", json_object_get(opts.parameters));
		json_object_object_add(o, "attributes", json_object_get(opts.attributes));
		json_object_object_add(o, "propagation",
				       opts.propagation ? json_object_new_string(opts.propagation)
							: NULL);
		json_object_object_add(o, "recursive", json_object_new_boolean(opts.recursive));
		output_json(stdout, o);
		return 0;
	}

	/* Every other kind reads one reply (or a list of them) from stdin. */
	{
		_cleanup_fclose_ FILE *m = open_memstream(&text, &size);
		char buf[4096];
		size_t n;

		if (!m)
			return EXIT_FAILED;
		while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
			fwrite(buf, 1, n, m);
	}
	in = json_tokener_parse(text ?: "");
	if (!in) {
		err(c, "stdin is not JSON");
		return EXIT_USAGE;
	}
	if (streq(kind, "list") || streq(kind, "flat") || streq(kind, "table")) {
		/* __format list|flat|table [-o COLUMNS] [-t TYPES] [-S SOURCE] [-R] [SPEC] */
		ListOptions o = list_options_of(c, a,
						streq(kind, "list")   ? LIST_TREE
						: streq(kind, "flat") ? LIST_FLAT
								      : LIST_TABLE);

		o.spec = o.target = argc > 1 ? argv[1] : NULL;
		r = output_list(stdout, json_object_object_get(in, "mounts"), &o);
	} else if (streq(kind, "size")) {
		/* A JSON array of byte counts: each as people read it. */
		for (size_t i = 0; i < json_object_array_length(in); i++) {
			char buf[32];

			human_size(buf, sizeof(buf),
				   json_object_get_uint64(json_object_array_get_idx(in, i)));
			printf("%s\n", buf);
		}
	} else if (streq(kind, "info")) {
		/* __format info ATTR NTH MTH (-1: not shown) */
		long nth, mth;
		if (argc != 4 || parse_int(argv[2], -1, INT_MAX, &nth) ||
		    parse_int(argv[3], -1, INT_MAX, &mth))
			return EXIT_USAGE;
		if (c->json) {
			_cleanup_json_ json_object *o =
				output_info_json(argv[1], (int)nth, (int)mth, in);
			if (o)
				output_json(stdout, o);
		} else
			r = output_info_text(stdout, argv[1], (int)nth, (int)mth, in, a->bytes);
	} else if (streq(kind, "watch")) {
		/* A JSON array of Watch replies. */
		for (size_t i = 0; i < json_object_array_length(in); i++)
			output_watch_event(stdout, json_object_array_get_idx(in, i), c->json);
	} else if (streq(kind, "error")) {
		/* {"error": NAME, "parameters": {...}} */
		MountdReply reply = {.parameters = json_object_object_get(in, "parameters"),
				     .error = (char *)json_object_get_string(
					     json_object_object_get(in, "error"))};
		_cleanup_free_ char *line = mountd_reply_error_string(&reply);

		printf("%s\n", line ?: "(none)");
		output_messages(stdout, "", reply.parameters, true);
	} else if (streq(kind, "trace")) {
		/* A reply or {"error": NAME, "parameters": {...}}: the -v trace. */
		json_object *params = json_object_object_get(in, "parameters");

		output_trace(stdout, "",
			     json_object_get_string(json_object_object_get(in, "error")),
			     params ?: in, false);
	} else
		return EXIT_USAGE;
	return r < 0 ? EXIT_FAILED : 0;
}
