/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountctl mount, bind, move and umount: a new mount (a filesystem or a
 * bind) attached, moved or taken away.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "libmountd-client.h"
#include "fs-probe.h"
#include "mount-entry.h"
#include "mountctl.h"
#include "util.h"

/* ---- mount ------------------------------------------------------------------- */

static json_object *placement_json(Ctx *c, json_object *ns, const char *path, const Args *a)
{
	json_object *p = json_object_new_object();

	if (!p)
		return NULL;
	if (ns)
		json_object_object_add(p, "namespace", json_object_get(ns));
	json_object_object_add(p, "path", json_object_new_string(path));
	if (a->create)
		json_object_object_add(p, "create", json_object_new_string(a->create));
	if (a->beneath)
		json_object_object_add(p, "beneath", json_object_new_boolean(true));
	return p;
}

/* The filesystem type on a block device, as mountd probes an image's
 * (fs-probe.h); when there is none, says why and returns NULL. */
static char *probe_fstype(Ctx *c, const char *device)
{
	static const FsProbeHints hints = {
		.partition = "mount one of its partitions",
		.fstype = "give the type with -t TYPE",
	};
	_cleanup_close_ int fd = open(device, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	char why[384];
	char *type = NULL;
	int r;

	if (fd < 0) {
		int e = errno;

		err(c, "cannot read %s to find its filesystem (%s): give its type with -t TYPE",
		    device, strerror(e));
		return NULL;
	}
	r = fs_probe_type(fd, 0, 0, &hints, &type, why, sizeof(why));
	if (r == -EMEDIUMTYPE)
		err(c, "%s: %s", device, why);
	else if (r < 0)
		err(c, "probing %s: %s: give its type with -t TYPE", device, strerror(-r));
	return type;
}

int cmd_mount(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_(mount_options_done) MountOptions opts = {};
	_cleanup_json_ json_object *p = json_object_new_object(), *ns = NULL, *out = NULL;
	_cleanup_(mountd_reply_done) MountdReply reply = {};
	const char *source = argv[0], *target = argv[1];
	_cleanup_free_ char *probed = NULL;
	struct stat st;
	int r;

	if (!p)
		return EXIT_FAILED;
	/* As mount(8): a regular file is an image (through a loop device),
	 * and a block device's type is probed when -t is not given. */
	if (!a->image && stat(source, &st) == 0 && S_ISREG(st.st_mode))
		a->image = true;
	if (!a->fstype && !a->image && stat(source, &st) == 0 && S_ISBLK(st.st_mode)) {
		probed = probe_fstype(c, source);
		if (!probed)
			return EXIT_FAILED;
		a->fstype = probed;
	}
	c->fstype = a->fstype;
	c->target = target;
	if (!a->fstype && !a->image) {
		err(c, "the filesystem type is required: -t TYPE (e.g. -t tmpfs), unless SOURCE "
		       "is a block device or an image file");
		return EXIT_USAGE;
	}
	r = parse_options(c, a->options, OPTIONS_MOUNT, &opts);
	if (r)
		return r;
	if (namespace_json(c, &ns) < 0)
		return EXIT_USAGE;

	if (a->fstype)
		json_object_object_add(p, "fsType", json_object_new_string(a->fstype));
	if (a->image) {
		json_object *img = json_object_new_object();
		/* A read-only mount gets a read-only loop device. */
		json_object *rdonly =
			opts.attributes
				? json_object_object_get(opts.attributes,
							 mount_attribute_name(MOUNT_ATTR_RDONLY))
				: NULL;
		bool ro = rdonly && json_object_get_boolean(rdonly);
		int k;

		if (!img)
			return EXIT_FAILED;
		json_object_object_add(p, "image", img);
		r = open_for_sending(c, source, ro ? O_RDONLY : O_RDWR, "image", &k);
		if (r)
			return r;
		json_object_object_add(img, "fd", json_object_new_int(k));
		if (a->partition)
			json_object_object_add(img, "partition", json_object_new_int(a->partition));
		if (a->image_partition_type)
			json_object_object_add(img, "partitionType",
					       json_object_new_string(a->image_partition_type));
	} else
		json_object_object_add(p, "source", json_object_new_string(source));
	if (opts.parameters)
		json_object_object_add(p, "parameters", json_object_get(opts.parameters));
	if (a->exclusive)
		json_object_object_add(p, "exclusive", json_object_new_boolean(true));
	if (opts.attributes)
		json_object_object_add(p, "attributes", json_object_get(opts.attributes));
	if (a->propagation || opts.propagation)
		json_object_object_add(p, "propagation",
				       json_object_new_string(a->propagation ?: opts.propagation));
	json_object_object_add(p, "placement", placement_json(c, ns, target, a));

	r = call(c, "Create", p, &reply);
	if (r)
		return r;
	if (c->verbose)
		err(c, "mounted %s on %s (mount ID %s)",
		    json_object_get_string(json_object_object_get(reply.parameters, "fsType")),
		    target,
		    json_object_get_string(json_object_object_get(reply.parameters, "mountId")));
	out = json_object_new_object();
	if (out) {
		json_object *v;

		json_object_object_add(
			out, "uniq-id",
			json_object_get(json_object_object_get(reply.parameters, "mountId")));
		json_object_object_add(out, "target", json_object_new_string(target));
		json_object_object_add(out, "source",
				       a->image ? NULL : json_object_new_string(source));
		json_object_object_add(
			out, "fstype",
			json_object_get(json_object_object_get(reply.parameters, "fsType")));
		if (json_object_object_get_ex(reply.parameters, "loopDevice", &v) && v)
			json_object_object_add(out, "loop-device", json_object_get(v));
		if (json_object_object_get_ex(reply.parameters, "verity", &v) && v)
			json_object_object_add(out, "verity", json_object_get(v));
		json_object_object_add(out, "messages", messages_of(reply.parameters));
	}
	/* What an image on dm-verity was checked against is the answer to
	 * "can I trust what I read there": said even without -v. */
	if (!c->json) {
		json_object *v = json_object_object_get(reply.parameters, "verity");
		json_object *s = v ? json_object_object_get(v, "signedBy") : NULL;

		if (v)
			printf("%s: dm-verity, root hash %s, %s%s\n", target,
			       json_object_get_string(json_object_object_get(v, "rootHash")),
			       s ? "signed by " : "not signed by a key mountd trusts",
			       s ? json_object_get_string(s) : "");
	}
	print_done(c, out);
	return 0;
}

/* ---- bind --------------------------------------------------------------------- */

int cmd_bind(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_(mount_options_done) MountOptions opts = {};
	_cleanup_json_ json_object *p = json_object_new_object(), *ns = NULL, *out = NULL;
	_cleanup_(mountd_reply_done) MountdReply reply = {};
	int r, k;

	c->target = argv[1];
	if (!p)
		return EXIT_FAILED;
	r = parse_options(c, a->options, OPTIONS_BIND, &opts);
	if (r)
		return r;
	if (namespace_json(c, &ns) < 0)
		return EXIT_USAGE;
	/* The source is resolved in mountctl's own namespace unless told
	 * otherwise: binding a host directory into a container is the common
	 * case. */
	if (a->source_pid || a->source_ns) {
		json_object *sns = json_object_new_object();

		if (!sns)
			return EXIT_FAILED;
		json_object_object_add(p, "sourceNamespace", sns);
		if (a->source_pid)
			json_object_object_add(sns, "pid", json_object_new_int(a->source_pid));
		else {
			r = open_for_sending(c, a->source_ns, O_RDONLY, "namespace", &k);
			if (r)
				return r;
			json_object_object_add(sns, "mntnsFd", json_object_new_int(k));
		}
	}
	json_object_object_add(p, "sourcePath", json_object_new_string(argv[0]));
	json_object_object_add(p, "recursive", json_object_new_boolean(a->recursive != 0));
	if (a->idmap) {
		r = open_for_sending(c, a->idmap, O_RDONLY, "user namespace", &k);
		if (r)
			return r;
		json_object_object_add(p, "idmapUserNamespaceFd", json_object_new_int(k));
	}
	if (opts.attributes)
		json_object_object_add(p, "attributes", json_object_get(opts.attributes));
	if (a->propagation || opts.propagation)
		json_object_object_add(p, "propagation",
				       json_object_new_string(a->propagation ?: opts.propagation));
	json_object_object_add(p, "placement", placement_json(c, ns, argv[1], a));
	r = call(c, "Bind", p, &reply);
	if (r)
		return r;
	out = json_object_new_object();
	if (out) {
		json_object_object_add(
			out, "uniq-id",
			json_object_get(json_object_object_get(reply.parameters, "mountId")));
		json_object_object_add(out, "target", json_object_new_string(argv[1]));
		json_object_object_add(out, "source", json_object_new_string(argv[0]));
	}
	print_done(c, out);
	return 0;
}

/* ---- move, umount ------------------------------------------------------- */

int cmd_move(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_json_ json_object *p = NULL;
	_cleanup_(mountd_reply_done) MountdReply reply = {};
	int r;

	r = params_new(c, &p);
	if (r)
		return r;
	json_object_object_add(p, "from", json_object_new_string(argv[0]));
	json_object_object_add(p, "to", json_object_new_string(argv[1]));
	if (a->create)
		json_object_object_add(p, "create", json_object_new_string(a->create));
	if (a->beneath)
		json_object_object_add(p, "beneath", json_object_new_boolean(true));
	r = call(c, "Move", p, &reply);
	if (r)
		return r;
	print_done_target(c, argv[0], argv[1]);
	return 0;
}

int cmd_umount(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_json_ json_object *p = NULL;
	_cleanup_(mountd_reply_done) MountdReply reply = {};
	int r;

	r = params_new(c, &p);
	if (r)
		return r;
	c->target = argv[0];
	json_object_object_add(p, "path", json_object_new_string(argv[0]));
	if (a->lazy)
		json_object_object_add(p, "detach", json_object_new_boolean(true));
	if (a->force)
		json_object_object_add(p, "force", json_object_new_boolean(true));
	r = call(c, "Unmount", p, &reply);
	if (r)
		return r;
	print_done_target(c, NULL, argv[0]);
	return 0;
}
