/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountctl remount, reconfigure and set: an existing mount's attributes and
 * propagation (mount_setattr) and its filesystem's parameters (reconfigure).
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "libmountd-client.h"
#include "mountctl.h"
#include "util.h"

/* ---- remount, reconfigure, set -------------------------------------------- */

static int reconfigure(Ctx *c, json_object *ns, const char *path, json_object *params,
		       json_object **ret_messages)
{
	_cleanup_json_ json_object *p = json_object_new_object();
	_cleanup_(mountd_reply_done) MountdReply reply = {};
	int r;

	if (!p)
		return EXIT_FAILED;
	if (ns)
		json_object_object_add(p, "namespace", json_object_get(ns));
	json_object_object_add(p, "path", json_object_new_string(path));
	json_object_object_add(p, "parameters", json_object_get(params));
	r = call(c, "Reconfigure", p, &reply);
	if (r)
		return r;
	*ret_messages = messages_of(reply.parameters);
	return 0;
}

static int setattr(Ctx *c, json_object *ns, const char *path, const MountOptions *opts,
		   const Args *a)
{
	_cleanup_json_ json_object *p = json_object_new_object();
	_cleanup_(mountd_reply_done) MountdReply reply = {};
	int r, k;

	if (!p)
		return EXIT_FAILED;
	if (ns)
		json_object_object_add(p, "namespace", json_object_get(ns));
	json_object_object_add(p, "path", json_object_new_string(path));
	if (a->recursive == 1 || opts->recursive)
		json_object_object_add(p, "recursive", json_object_new_boolean(true));
	if (opts->attributes)
		json_object_object_add(p, "attributes", json_object_get(opts->attributes));
	if (a->propagation || opts->propagation)
		json_object_object_add(p, "propagation",
				       json_object_new_string(a->propagation ?: opts->propagation));
	if (a->idmap) {
		r = open_for_sending(c, a->idmap, O_RDONLY, "user namespace", &k);
		if (r)
			return r;
		json_object_object_add(p, "idmapUserNamespaceFd", json_object_new_int(k));
	}
	return call(c, "SetAttributes", p, &reply);
}

int cmd_remount(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_(mount_options_done) MountOptions opts = {};
	_cleanup_json_ json_object *ns = NULL, *messages = NULL, *out = NULL;
	bool reconf = streq(c->command, "reconfigure");
	int r;

	if (!a->options) {
		err(c, "nothing to change: give options with -o");
		return EXIT_USAGE;
	}
	r = parse_options(c, a->options, reconf ? OPTIONS_RECONFIGURE : OPTIONS_REMOUNT, &opts);
	if (r)
		return r;
	/* The superblock first: if the filesystem refuses, the mount's
	 * attributes stay as they were.  Each call gets its own namespace
	 * object, as an --ns fd travels with one message only. */
	if (opts.parameters) {
		if (namespace_json(c, &ns) < 0)
			return EXIT_USAGE;
		r = reconfigure(c, ns, argv[0], opts.parameters, &messages);
		if (r)
			return r;
	}
	if (opts.attributes) {
		json_object_put(ns);
		ns = NULL;
		if (namespace_json(c, &ns) < 0)
			return EXIT_USAGE;
		r = setattr(c, ns, argv[0], &opts, &(Args){.recursive = -1});
		if (r)
			return r;
	}
	out = json_object_new_object();
	if (out) {
		json_object_object_add(out, "target", json_object_new_string(argv[0]));
		json_object_object_add(out, "messages",
				       messages ? json_object_get(messages)
						: json_object_new_array());
	}
	print_done(c, out);
	return 0;
}

int cmd_set(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_(mount_options_done) MountOptions opts = {};
	_cleanup_json_ json_object *ns = NULL;
	int r;

	r = parse_options(c, a->options, OPTIONS_SET, &opts);
	if (r)
		return r;
	if (!opts.attributes && !opts.propagation && !a->propagation && !a->idmap) {
		err(c, "nothing to change: give -o ATTRIBUTES, --propagation or --idmap");
		return EXIT_USAGE;
	}
	if (namespace_json(c, &ns) < 0)
		return EXIT_USAGE;
	r = setattr(c, ns, argv[0], &opts, a);
	if (r)
		return r;
	print_done_target(c, NULL, argv[0]);
	return 0;
}
