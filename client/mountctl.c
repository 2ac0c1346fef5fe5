/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountctl: the command line front end of mountd.  Each subcommand is one
 * (sometimes two) io.mountd.Mount calls; option parsing is table driven:
 * every subcommand lists the options it takes, one handler fills Args.
 */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#include "libmountd-client.h"
#include "fs-probe.h"
#include "mountctl.h"
#include "util.h"
#include "version.h"

enum {
	OPT_SOCKET = 0x100,
	OPT_TIMEOUT,
	OPT_PIDFD,
	OPT_EXCLUSIVE,
	OPT_PROPAGATION,
	OPT_MKDIR,
	OPT_BENEATH,
	OPT_IMAGE,
	OPT_PARTITION,
	OPT_PARTITION_TYPE,
	OPT_NO_RECURSIVE,
	OPT_IDMAP,
	OPT_FORCE,
	OPT_TABLE,
	OPT_LIST,
	OPT_NTH,
	OPT_MTH,
	OPT_NO_FALLBACK,
	OPT_EVENTS,
	OPT_SOURCE_PID,
	OPT_SOURCE_NS,
	OPT_CONTAINER,
	OPT_ALL,
	OPT_VERSION,
};

/* One option: what getopt_long needs, and what --help, the completion
 * (mountctl __complete) and the host test of mountctl(1) read.  A letter
 * as val is also the short option. */
typedef struct Option {
	const char *name;
	int has_arg;
	int val;
	const char *arg;  /* its argument in --help: "TYPE"; "=file" when optional */
	const char *help; /* one line */
} Option;

#define O(_name, _has, _val, ...)                                              \
	{                                                                      \
		.name = (_name), .has_arg = (_has), .val = (_val), __VA_ARGS__ \
	}

static const Option common_options[] = {
	O("pid", required_argument, 'p', "PID", "act in the mount namespace of process PID"),
	O("pidfd", required_argument, OPT_PIDFD, "FD",
	  "... of the process of the inherited pidfd FD"),
	O("ns", required_argument, 'N', "PATH",
	  "... of the namespace file PATH (/proc/PID/ns/mnt)"),
	O("container", required_argument, OPT_CONTAINER, "NAME",
	  "... of the container NAME (crun, runc, podman,\ndocker, machinectl)"),
	O("json", no_argument, 'j', NULL, "print results as JSON"),
	O("verbose", no_argument, 'v', NULL, "show the calls, mountd's steps, kernel messages"),
	O("socket", required_argument, OPT_SOCKET, "PATH",
	  "mountd's socket (default: $MOUNTD_SOCKET or\n" MOUNTD_SOCKET_DEFAULT ")"),
	O("timeout", required_argument, OPT_TIMEOUT, "SEC",
	  "give up waiting for mountd after SEC seconds"),
	O("help", no_argument, 'h', NULL, "show the help of mountctl, or of the command"),
	{},
};

/* Before the command only. */
static const Option top_options[] = {
	O("version", no_argument, OPT_VERSION, NULL,
	  "show mountctl's version (before COMMAND only)"),
	{},
};

/* ---- mount ------------------------------------------------------------------- */

static json_object *placement_json(Ctx *c, json_object *ns, const char *path, const Args *a)
{
	json_object *p = json_object_new_object();

	(void)c;
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

static int cmd_mount(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_(mount_options_done) MountOptions opts = {};
	_cleanup_json_ json_object *p = json_object_new_object(), *ns = NULL, *out = NULL;
	_cleanup_(mountd_reply_done) MountdReply reply = {};
	const char *source = argv[0], *target = argv[1];
	_cleanup_free_ char *probed = NULL;
	struct stat st;
	int r;

	(void)argc;
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
		bool ro = opts.attributes && json_object_object_get(opts.attributes, "readOnly") &&
			  json_object_get_boolean(
				  json_object_object_get(opts.attributes, "readOnly"));
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
		json_object_object_add(out, "messages", messages_of(reply.parameters));
	}
	print_done(c, out);
	return 0;
}

/* ---- bind --------------------------------------------------------------------- */

static int cmd_bind(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_(mount_options_done) MountOptions opts = {};
	_cleanup_json_ json_object *p = json_object_new_object(), *ns = NULL, *out = NULL;
	_cleanup_(mountd_reply_done) MountdReply reply = {};
	int r, k;

	(void)argc;
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

static int cmd_remount(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_(mount_options_done) MountOptions opts = {};
	_cleanup_json_ json_object *ns = NULL, *messages = NULL, *out = NULL;
	bool reconf = streq(c->command, "reconfigure");
	int r;

	(void)argc;
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

static int cmd_set(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_(mount_options_done) MountOptions opts = {};
	_cleanup_json_ json_object *ns = NULL;
	int r;

	(void)argc;
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

/* ---- move, umount ------------------------------------------------------- */

static int cmd_move(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_json_ json_object *p = NULL;
	_cleanup_(mountd_reply_done) MountdReply reply = {};
	int r;

	(void)argc;
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

static int cmd_umount(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_json_ json_object *p = NULL;
	_cleanup_(mountd_reply_done) MountdReply reply = {};
	int r;

	(void)argc;
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

/* ---- list, watch --------------------------------------------------------- */

static int absolute_path(Ctx *c, const char *path, bool own_namespace, char **ret);

/* A mount point as mountinfo spells it: no "//", "/./" or trailing "/". */
static void path_normalize(char *p)
{
	char *d = p;

	for (char *s = p; *s;) {
		if (s[0] == '/' && (s[1] == '/' || (s[1] == '.' && (s[2] == '/' || !s[2])))) {
			s += s[1] == '/' ? 1 : 2;
			continue;
		}
		*d++ = *s++;
	}
	*d = 0;
	while (d > p + 1 && d[-1] == '/')
		*--d = 0;
	if (!*p)
		strcpy(p, "/");
}

/* What list's options ask for (the argument apart). */
static ListOptions list_options_of(const Ctx *c, const Args *a, ListStyle style)
{
	return (ListOptions){
		.style = style,
		.json = c->json,
		.columns = a->options,
		.types = a->fstype,
		.source = a->list_source,
		.submounts = a->recursive == 1,
	};
}

static int cmd_list(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_json_ json_object *p = NULL;
	_cleanup_(mountd_reply_done) MountdReply reply = {};
	_cleanup_free_ char *target = NULL, *bad = NULL;
	ListOptions o = list_options_of(c, a,
					a->table  ? LIST_TABLE
					: a->flat ? LIST_FLAT
						  : LIST_TREE);
	json_object *mounts = NULL;
	int r;

	if (o.columns && output_list_columns_check(o.columns, &bad) < 0) {
		err(c, "unknown column '%s' for -o; see mountctl list --help", bad ?: o.columns);
		return EXIT_USAGE;
	}
	if (argc > 0) {
		bool own = c->ns_pid <= 0 && c->ns_pidfd < 0 && !c->ns_path;

		o.spec = argv[0];
		/* A relative path is one from the working directory, which
		 * another namespace does not have: there it is a source. */
		if (argv[0][0] == '/' || own) {
			r = absolute_path(c, argv[0], own, &target);
			if (r)
				return r;
			path_normalize(target);
			o.target = target;
		}
	}
	r = params_new(c, &p);
	if (r)
		return r;
	r = call_parts(c, "List", "mounts", p, &reply);
	if (r)
		return r;
	json_object_object_get_ex(reply.parameters, "mounts", &mounts);
	r = output_list(stdout, mounts, &o);
	if (r < 0) {
		err(c, "cannot format the reply: %s", strerror(-r));
		return EXIT_FAILED;
	}
	/* As findmnt: nothing matched what was asked for. */
	if (r == 0 && (o.spec || o.source || o.types))
		return EXIT_FAILED;
	return 0;
}

typedef struct WatchState {
	Ctx *c;
	long events, seen;
	int failed;
} WatchState;

static int watch_reply(MountdClient *client, MountdReply *reply, void *userdata)
{
	WatchState *w = userdata;
	json_object *ev = NULL;

	(void)client;
	if (reply->error) {
		print_error(w->c, reply, NULL);
		w->failed = EXIT_FAILED;
		return 1;
	}
	output_watch_event(stdout, reply->parameters, w->c->json);
	json_object_object_get_ex(reply->parameters, "event", &ev);
	if (ev && !streq(json_object_get_string(ev), "ready") &&
	    !streq(json_object_get_string(ev), "gone") && w->events > 0 && ++w->seen >= w->events)
		return 1;
	return 0;
}

static int cmd_watch(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_json_ json_object *p = NULL;
	WatchState w = {.c = c, .events = a->events};
	int r;

	(void)argc;
	(void)argv;
	r = params_new(c, &p);
	if (r)
		return r;
	r = connect_daemon(c);
	if (r)
		return r;
	/* Events come when they come: --timeout only when asked for. */
	mountd_client_set_timeout(c->client, c->timeout_set ? c->timeout_usec : 0);
	verbose_call(c, "Watch", p);
	r = mountd_client_call_more(c->client, "Watch", p, c->fds, c->n_fds, watch_reply, &w);
	drop_fds(c);
	if (r < 0) {
		err(c, "no answer from mountd: %s",
		    r == -ECONNRESET ? "connection closed" : strerror(-r));
		return EXIT_UNREACHABLE;
	}
	return w.failed;
}

/* ---- apply ---------------------------------------------------------------- */

static int cmd_apply(Ctx *c, Args *a, int argc, char **argv)
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

/* ---- hidden test paths: the formatters without a daemon ---------------------- */

static int cmd_format(Ctx *c, Args *a, int argc, char **argv)
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

/* ---- the command table ----------------------------------------------------- */

typedef struct Command {
	const char *name;
	const char *alias;
	int (*run)(Ctx *c, Args *a, int argc, char **argv);
	int min_args, max_args; /* max -1: any */
	const Option *options;
	/* The arguments after "[OPTIONS]", a line per form of the command. */
	const char *args;
	const char *summary;	 /* one line for mountctl --help; NULL: hidden */
	const char *description; /* COMMAND --help, before the options */
	/* Which arguments (bit N: argv[N]) are paths in the target namespace
	 * (TARGET_PATHS) or, for bind's source, in mountctl's own. */
	unsigned target_paths, source_paths;
} Command;

#define ARG(n) (1U << (n))

/* Options several commands take, with one meaning. */
#define O_PROPAGATION                                                       \
	O("propagation", required_argument, OPT_PROPAGATION, "PROPAGATION", \
	  "private, shared, slave or unbindable")
#define O_MKDIR(what)                                     \
	O("mkdir", optional_argument, OPT_MKDIR, "=file", \
	  "create a missing " what " (=file: an empty file)")
#define O_BENEATH(what) \
	O("beneath", no_argument, OPT_BENEATH, NULL, "mount beneath the mount on top of " what)
#define O_IDMAP                                            \
	O("idmap", required_argument, OPT_IDMAP, "USERNS", \
	  "make it idmapped as USERNS (/proc/PID/ns/user)")

static const Option mount_options[] = {
	O("types", required_argument, 't', "TYPE", "filesystem type; probed on a device or image"),
	O("options", required_argument, 'o', "OPTIONS", "mount(8) options, as above"),
	O_MKDIR("TARGET"),
	O_BENEATH("TARGET"),
	O("exclusive", no_argument, OPT_EXCLUSIVE, NULL, "refuse to reuse an existing superblock"),
	O_PROPAGATION,
	O("image", no_argument, OPT_IMAGE, NULL, "SOURCE is an image: mount it via a loop device"),
	O("partition", required_argument, OPT_PARTITION, "N", "mount the image's partition N"),
	O("partition-type", required_argument, OPT_PARTITION_TYPE, "UUID",
	  "mount the image's partition of GPT type UUID"),
	{},
};
static const Option bind_options[] = {
	O("options", required_argument, 'o', "ATTRIBUTES",
	  "mount attributes (ro, nosuid, ...) and propagation"),
	O("recursive", no_argument, 'R', NULL, "bind the mounts below SOURCE too (the default)"),
	O("no-recursive", no_argument, OPT_NO_RECURSIVE, NULL, "bind SOURCE's own mount only"),
	O_IDMAP,
	O_PROPAGATION,
	O_MKDIR("TARGET"),
	O_BENEATH("TARGET"),
	O("source-pid", required_argument, OPT_SOURCE_PID, "PID",
	  "resolve SOURCE in process PID's mount namespace"),
	O("source-ns", required_argument, OPT_SOURCE_NS, "PATH",
	  "resolve SOURCE in the mount namespace file PATH"),
	{},
};
static const Option remount_options[] = {
	O("options", required_argument, 'o', "OPTIONS",
	  "ro, nosuid, ... change the mount; the rest its fs"),
	{},
};
static const Option reconfigure_options[] = {
	O("options", required_argument, 'o', "PARAMETERS",
	  "fsconfig() parameters, \"ro\" included"),
	{},
};
static const Option set_options[] = {
	O("options", required_argument, 'o', "ATTRIBUTES",
	  "ro/rw, nosuid/suid, ... and propagation"),
	O("recursive", no_argument, 'R', NULL, "change the mounts below PATH too"),
	O_PROPAGATION,
	O_IDMAP,
	{},
};
static const Option move_options[] = {
	O_MKDIR("TO"),
	O_BENEATH("TO"),
	{},
};
static const Option umount_options[] = {
	O("lazy", no_argument, 'l', NULL, "detach it now, clean up when it is no longer busy"),
	O("force", no_argument, OPT_FORCE, NULL, "MNT_FORCE: abort pending requests (NFS, FUSE)"),
	{},
};
static const Option info_options[] = {
	O("all", no_argument, OPT_ALL, NULL, "also the attributes the filesystem does not have"),
	O("bytes", no_argument, 'b', NULL, "sizes in bytes"),
	O("nth", required_argument, OPT_NTH, "N", "the Nth instance of a multi-valued attribute"),
	O("mth", required_argument, OPT_MTH, "M", "its Mth sub-instance"),
	O("no-fallback", no_argument, OPT_NO_FALLBACK, NULL,
	  "only answers of fsinfo(), not of statfs,\nstatx or statmount"),
	{},
};
/* findmnt's names, so that its users need not learn new ones. */
static const Option list_options[] = {
	O("list", no_argument, OPT_LIST, NULL, "a flat list (findmnt --list)"),
	O("table", no_argument, OPT_TABLE, NULL, "a flat list with ID, PARENT and PROPAGATION"),
	O("types", required_argument, 't', "TYPES",
	  "only these types (tmpfs,ext4); with \"no\":\nall others (notmpfs,proc)"),
	O("source", required_argument, 'S', "SOURCE",
	  "only mounts of SOURCE (device, tmpfs, MAJ:MIN)"),
	O("output", required_argument, 'o', "COLUMNS",
	  "the columns, +COLUMNS to add to the default:\nSOURCE, TARGET, FSTYPE, OPTIONS, "
	  "VFS-OPTIONS,\n"
	  "FS-OPTIONS, FSROOT, ID, PARENT, UNIQ-ID,\nUNIQ-PARENT, MAJ:MIN, PROPAGATION"),
	O("submounts", no_argument, 'R', NULL, "with each match, the mounts below it (a tree)"),
	{},
};
/* The hidden test path takes what list and info format with. */
static const Option format_options[] = {
	O("types", required_argument, 't', "TYPES"),
	O("source", required_argument, 'S', "SOURCE"),
	O("output", required_argument, 'o', "COLUMNS"),
	O("submounts", no_argument, 'R'),
	O("bytes", no_argument, 'b'),
	{},
};
static const Option watch_options[] = {
	O("events", required_argument, OPT_EVENTS, "N", "end after N changes"),
	{},
};
static const Option apply_options[] = {
	O("dry-run", no_argument, 'n', NULL, "print the calls as JSON instead of making them"),
	O_MKDIR("target"),
	{},
};
static const Option no_options[] = {{}};

static int cmd_help(Ctx *c, Args *a, int argc, char **argv);
static int cmd_complete(Ctx *c, Args *a, int argc, char **argv);

static const Command commands[] = {
	{"mount", NULL, cmd_mount, 2, 2, mount_options, "SOURCE TARGET\n--image IMAGE TARGET",
	 "create a filesystem and attach it at TARGET",
	 "Create a filesystem (fsopen, fsconfig, fsmount) and attach it at TARGET.\n"
	 "As with mount(8), a regular file SOURCE is mounted as an image and a\n"
	 "block device's type is probed when -t is not given.\n"
	 "-o takes mount(8) options: ro, nosuid, nodev, noexec, noatime, relatime,\n"
	 "strictatime, nodiratime, nosymfollow become mount attributes; shared,\n"
	 "private, slave, unbindable the propagation; the rest (size=1M, mode=755,\n"
	 "...) are fsconfig() parameters of the filesystem.",
	 ARG(1), 0},
	{"bind", NULL, cmd_bind, 2, 2, bind_options, "SOURCE TARGET",
	 "bind SOURCE (here) to TARGET",
	 "Bind SOURCE (a path in mountctl's own namespace) to TARGET (in the\n"
	 "target namespace).  Recursive unless --no-recursive.",
	 ARG(1), ARG(0)},
	{"remount", NULL, cmd_remount, 1, 1, remount_options, "-o OPTIONS PATH",
	 "change a mount, like mount -o remount",
	 "Like mount -o remount: attribute words (ro, nosuid, ...) change the\n"
	 "mount (mount_setattr), the rest reconfigure the filesystem (fspick,\n"
	 "fsconfig, FSCONFIG_CMD_RECONFIGURE); ro/rw do both.",
	 ARG(0), 0},
	{"reconfigure", NULL, cmd_remount, 1, 1, reconfigure_options, "-o PARAMETERS PATH",
	 "reconfigure the filesystem at PATH",
	 "Reconfigure the filesystem at PATH: every word is an fsconfig()\n"
	 "parameter (\"ro\" makes the superblock read-only).",
	 ARG(0), 0},
	{"set", NULL, cmd_set, 1, 1, set_options, "PATH",
	 "change the attributes and propagation of a mount",
	 "Change the mount's attributes: ro/rw, nosuid/suid, nodev/dev,\n"
	 "noexec/exec, noatime/relatime/strictatime, nodiratime/diratime,\n"
	 "nosymfollow/symfollow; and its propagation (also as -o shared, rslave...).",
	 ARG(0), 0},
	{"move", NULL, cmd_move, 2, 2, move_options, "FROM TO", "move the mount at FROM to TO",
	 "Move the mount at FROM to TO (move_mount).", ARG(0) | ARG(1), 0},
	{"umount", "unmount", cmd_umount, 1, 1, umount_options, "PATH", "unmount the mount at PATH",
	 "Unmount the mount at PATH.", ARG(0), 0},
	{"info", NULL, cmd_info, 1, -1, info_options, "PATH [ATTRIBUTE...]",
	 "fsinfo() attributes of the filesystem at PATH",
	 "fsinfo() attributes of the filesystem at PATH; all of them without\n"
	 "ATTRIBUTE.  Multi-valued ones (parameter, source, server_name,\n"
	 "server_address) are enumerated unless --nth/--mth pick an instance.",
	 ARG(0), 0},
	{"list", NULL, cmd_list, 0, 1, list_options, "[SOURCE | MOUNTPOINT]",
	 "the mounts of the namespace, as findmnt shows them",
	 "The mounts of the namespace as findmnt shows them: a tree, or a flat\n"
	 "list of the mounts of SOURCE or on MOUNTPOINT (a source first, as with\n"
	 "findmnt).  Exit status 1 when none matches.",
	 0, 0},
	{"watch", NULL, cmd_watch, 0, 0, watch_options, "", "print each change of the mount table",
	 "Print each change of the namespace's mount table as it happens; first\n"
	 "\"ready\" once watching.  Ends when the namespace goes away (\"gone\"),\n"
	 "or after N changes.",
	 0, 0},
	{"apply", NULL, cmd_apply, 0, 1, apply_options, "[FILE]",
	 "perform the mount-context lines of FILE",
	 "Perform the mount-context lines of FILE (or stdin): t FSTYPE, s SOURCE,\n"
	 "o OPTION[=VALUE], m TARGET, then x create or x reconfigure.  Errors\n"
	 "point at their line.",
	 0, 0},
	{"help", NULL, cmd_help, 0, 1, no_options, "[COMMAND]", "this help, or COMMAND's",
	 "Show the help of mountctl, or of COMMAND with every option it takes.", 0, 0},
	/* Hidden: the formatters without a daemon (host tests), and the
	 * commands and options for the bash completion. */
	{"__format", NULL, cmd_format, 1, 4, format_options, "", NULL, NULL, 0, 0},
	{"__complete", NULL, cmd_complete, 1, 2, no_options, "", NULL, NULL, 0, 0},
};

static const Command *command_find(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		if (streq(name, commands[i].name) || streq_ptr(name, commands[i].alias))
			return &commands[i];
	return NULL;
}

/* A relative path means what it means to mount(8): from the working
 * directory, in mountctl's own namespace.  In another namespace there is
 * no working directory of ours: refused rather than taken from its root.
 * 0 or an exit code; *ret to be freed. */
static int absolute_path(Ctx *c, const char *path, bool own_namespace, char **ret)
{
	_cleanup_free_ char *cwd = NULL;

	*ret = NULL;
	if (path[0] == '/') {
		*ret = strdup(path);
		return *ret ? 0 : EXIT_FAILED;
	}
	if (!own_namespace) {
		err(c,
		    "relative path '%s' in another namespace: give it from that namespace's "
		    "root (/...)",
		    path);
		return EXIT_USAGE;
	}
	cwd = get_current_dir_name();
	if (!cwd) {
		err(c, "cannot make '%s' absolute: working directory: %m", path);
		return EXIT_FAILED;
	}
	if (asprintf(ret, "%s/%s", streq(cwd, "/") ? "" : cwd, path) < 0) {
		*ret = NULL;
		return EXIT_FAILED;
	}
	return 0;
}

/* argv with every path argument of cmd made absolute (*ret NULL when the
 * command takes none). */
static int absolute_paths(Ctx *c, const Command *cmd, const Args *a, int argc, char **argv,
			  char ***ret)
{
	bool target_own = c->ns_pid <= 0 && c->ns_pidfd < 0 && !c->ns_path;
	bool source_own = a->source_pid <= 0 && !a->source_ns;
	_cleanup_strv_free_ char **l = NULL;
	int r;

	*ret = NULL;
	if (!cmd->target_paths && !cmd->source_paths)
		return 0;
	l = calloc((size_t)argc + 1, sizeof(char *));
	if (!l)
		return EXIT_FAILED;
	for (int i = 0; i < argc; i++) {
		if (i < 32 && (cmd->target_paths | cmd->source_paths) & ARG(i))
			r = absolute_path(c, argv[i],
					  cmd->source_paths & ARG(i) ? source_own : target_own,
					  &l[i]);
		else {
			l[i] = strdup(argv[i]);
			r = l[i] ? 0 : EXIT_FAILED;
		}
		if (r)
			return r;
	}
	*ret = TAKE_PTR(l);
	return 0;
}

static bool is_short(int val)
{
	return val > 0 && val < 0x80 && isalnum(val);
}

/* "--types TYPE", "--mkdir[=file]". */
static void option_spec(const Option *o, char *buf, size_t size)
{
	bool opt = o->has_arg == optional_argument;

	snprintf(buf, size, "--%s%s%s%s%s", o->name, o->arg && !opt ? " " : "", opt ? "[" : "",
		 o->arg ?: "", opt ? "]" : "");
}

/* The column help texts start at: --help fits 80 columns. */
#define HELP_COLUMN 30

/* Pad from column n to HELP_COLUMN (on a new line when n is past it), then
 * text, whose further lines start at HELP_COLUMN too. */
static void print_help_text(FILE *f, int n, const char *text)
{
	if (n > HELP_COLUMN - 2) {
		fputc('\n', f);
		n = 0;
	}
	for (;;) {
		const char *nl = strchr(text, '\n');

		fprintf(f, "%*s%.*s\n", HELP_COLUMN - n, "",
			(int)(nl ? nl - text : (long)strlen(text)), text);
		if (!nl)
			break;
		text = nl + 1;
		n = 0;
	}
}

static void print_options(FILE *f, const Option *options)
{
	for (const Option *o = options; o->name; o++) {
		char spec[80];
		int n;

		option_spec(o, spec, sizeof(spec));
		if (is_short(o->val))
			n = fprintf(f, "  -%c, %s", o->val, spec);
		else
			n = fprintf(f, "      %s", spec);
		print_help_text(f, n, o->help ?: "");
	}
}

static void usage_overview(FILE *f)
{
	fputs("Usage: mountctl [OPTIONS] COMMAND [ARGS...]\n\n"
	      "Manage mounts through mountd (io.mountd.Mount).\n\nCommands:\n",
	      f);
	for (size_t i = 0; i < ELEMENTSOF(commands); i++) {
		const Command *cmd = &commands[i];
		const char *nl = strchr(cmd->args, '\n');
		int n;

		if (!cmd->summary)
			continue;
		n = fprintf(f, "  %s%s%s%s%.*s", cmd->name, cmd->alias ? ", " : "",
			    cmd->alias ?: "", *cmd->args ? " " : "",
			    (int)(nl ? nl - cmd->args : (long)strlen(cmd->args)), cmd->args);
		print_help_text(f, n, cmd->summary);
	}
	fputs("\nOptions (every command, before or after it):\n", f);
	print_options(f, common_options);
	print_options(f, top_options);
	fputs("\nExit status: 0 success, 1 the operation failed, 2 usage error,\n"
	      "3 mountd unreachable.  \"mountctl COMMAND --help\" shows every option of\n"
	      "COMMAND; see mountctl(1).\n",
	      f);
}

static void command_help(FILE *f, const Command *cmd)
{
	const char *form = cmd->args;

	/* One usage line per form of the command. */
	do {
		const char *nl = strchr(form, '\n');

		fprintf(f, "%s mountctl %s [OPTIONS]%s%.*s\n",
			form == cmd->args ? "Usage:" : "      ", cmd->name, *form ? " " : "",
			(int)(nl ? nl - form : (long)strlen(form)), form);
		form = nl ? nl + 1 : NULL;
	} while (form);
	if (cmd->alias)
		fprintf(f, "       (also: mountctl %s)\n", cmd->alias);
	fprintf(f, "\n%s\n", cmd->description);
	if (cmd->options[0].name) {
		fputs("\nOptions:\n", f);
		print_options(f, cmd->options);
	}
	fputs("\nOptions of every command:\n", f);
	print_options(f, common_options);
	fputs("\nSee mountctl(1).\n", f);
}

static int cmd_help(Ctx *c, Args *a, int argc, char **argv)
{
	const Command *cmd;

	(void)a;
	if (argc == 0) {
		usage_overview(stdout);
		return 0;
	}
	cmd = command_find(argv[0]);
	if (!cmd || !cmd->summary) {
		err(c, "unknown command \"%s\"; see mountctl --help", argv[0]);
		return EXIT_USAGE;
	}
	command_help(stdout, cmd);
	return 0;
}

/* For the bash completion, from the tables above:
 *   __complete commands          the commands and aliases, a line each
 *   __complete options [COMMAND] its options (without COMMAND: those before
 *                                one), a line each: "-t --types TYPE",
 *                                "- --mkdir [=file]", "- --json"
 *   __complete words             the -o words mountctl knows */
static void complete_options(const Option *options)
{
	for (const Option *o = options; o->name; o++) {
		bool opt = o->has_arg == optional_argument;
		char letter[2] = {is_short(o->val) ? (char)o->val : 0, 0};

		printf("-%s --%s%s%s%s%s\n", letter, o->name, o->arg ? " " : "", opt ? "[" : "",
		       o->arg ?: "", opt ? "]" : "");
	}
}

static int cmd_complete(Ctx *c, Args *a, int argc, char **argv)
{
	(void)a;
	if (streq(argv[0], "commands") && argc == 1) {
		for (size_t i = 0; i < ELEMENTSOF(commands); i++)
			if (commands[i].summary)
				printf("%s\n%s%s", commands[i].name, commands[i].alias ?: "",
				       commands[i].alias ? "\n" : "");
		return 0;
	}
	if (streq(argv[0], "words") && argc == 1) {
		mount_options_words(stdout);
		return 0;
	}
	if (streq(argv[0], "options")) {
		const Command *cmd = argc == 2 ? command_find(argv[1]) : NULL;

		if (argc == 2 && !cmd) {
			err(c, "unknown command \"%s\"", argv[1]);
			return EXIT_USAGE;
		}
		complete_options(cmd ? cmd->options : top_options);
		complete_options(common_options);
		return 0;
	}
	return EXIT_USAGE;
}

static int common_option(Ctx *c, int opt, const char *arg)
{
	long v;

	switch (opt) {
	case 'j':
		c->json = true;
		return 0;
	case 'v':
		c->verbose = true;
		return 0;
	case OPT_SOCKET:
		c->socket = arg;
		return 0;
	case OPT_TIMEOUT: {
		char *end;
		double s;

		errno = 0;
		s = strtod(arg, &end);
		if (errno || end == arg || *end || s < 0 || s > 1e6) {
			err(c, "invalid --timeout: %s", arg);
			return EXIT_USAGE;
		}
		c->timeout_usec = (uint64_t)(s * 1e6);
		c->timeout_set = true;
		return 0;
	}
	case 'p':
		if (parse_int(arg, 1, INT32_MAX, &v)) {
			err(c, "invalid --pid: %s", arg);
			return EXIT_USAGE;
		}
		c->ns_pid = (int)v;
		break;
	case OPT_PIDFD:
		if (c->container)
			goto conflict;
		if (parse_int(arg, 0, INT32_MAX, &v) || fcntl((int)v, F_GETFD) < 0) {
			err(c, "--pidfd %s: not an open file descriptor", arg);
			return EXIT_USAGE;
		}
		c->ns_pidfd = (int)v;
		break;
	case 'N':
		c->ns_path = arg;
		break;
	case OPT_CONTAINER: {
		_cleanup_free_ char *why = NULL;
		int r;

		if (c->ns_pidfd >= 0)
			goto conflict;
		/* Found now, so that a name that is no container fails before
		 * anything is asked of mountd. */
		r = mountd_container_open(arg, &c->container_found, &why);
		if (r < 0) {
			err(c, "--container: %s%s", why ?: strerror(-r),
			    r == -ENOTUNIQ ? "; give --pid PID for the one meant" : "");
			return r == -EINVAL ? EXIT_USAGE : EXIT_FAILED;
		}
		c->container = arg;
		c->ns_pidfd = c->container_found.pidfd;
		break;
	}
	default:
		return -1; /* not a common option */
	}
	if (!!c->ns_pid + (c->ns_pidfd >= 0) + !!c->ns_path <= 1)
		return 0;
conflict:
	err(c, "--pid, --pidfd, --ns and --container name the same thing: give one");
	return EXIT_USAGE;
}

static int command_option(Ctx *c, Args *a, int opt, const char *arg)
{
	static const char *const propagations[] = {"private", "shared", "slave", "unbindable"};
	long v;

	switch (opt) {
	case 't':
		a->fstype = arg;
		break;
	case 'o': {
		/* -o may repeat, as with mount(8). */
		char *s = NULL;
		if (asprintf(&s, "%s%s%s", a->options ?: "", a->options ? "," : "", arg) < 0)
			return EXIT_FAILED;
		free(a->options);
		a->options = s;
		break;
	}
	case OPT_EXCLUSIVE:
		a->exclusive = true;
		break;
	case OPT_PROPAGATION:
		a->propagation = NULL;
		for (size_t i = 0; i < ELEMENTSOF(propagations); i++)
			if (streq(arg, propagations[i]))
				a->propagation = propagations[i];
		if (!a->propagation) {
			err(c, "--propagation: expected private, shared, slave or unbindable");
			return EXIT_USAGE;
		}
		break;
	case OPT_MKDIR:
		if (arg && !streq(arg, "directory") && !streq(arg, "file")) {
			err(c, "--mkdir: expected nothing, =directory or =file");
			return EXIT_USAGE;
		}
		a->create = arg && streq(arg, "file") ? "file" : "directory";
		break;
	case OPT_BENEATH:
		a->beneath = true;
		break;
	case OPT_IMAGE:
		a->image = true;
		break;
	case OPT_PARTITION:
		if (parse_int(arg, 1, 65535, &v)) {
			err(c, "invalid --partition: %s", arg);
			return EXIT_USAGE;
		}
		a->partition = (int)v;
		break;
	case OPT_PARTITION_TYPE:
		a->image_partition_type = arg;
		break;
	case 'R':
		a->recursive = 1;
		break;
	case OPT_NO_RECURSIVE:
		a->recursive = 0;
		break;
	case OPT_SOURCE_PID:
		if (parse_int(arg, 1, INT32_MAX, &v)) {
			err(c, "invalid --source-pid: %s", arg);
			return EXIT_USAGE;
		}
		a->source_pid = (int)v;
		a->source_ns = NULL;
		break;
	case OPT_SOURCE_NS:
		a->source_ns = arg;
		a->source_pid = 0;
		break;
	case OPT_IDMAP:
		a->idmap = arg;
		break;
	case 'l':
		a->lazy = true;
		break;
	case OPT_FORCE:
		a->force = true;
		break;
	case OPT_TABLE:
		a->table = true;
		break;
	case OPT_LIST:
		a->flat = true;
		break;
	case OPT_NTH:
	case OPT_MTH:
		if (parse_int(arg, 0, INT32_MAX, &v)) {
			err(c, "invalid --%s: %s", opt == OPT_NTH ? "nth" : "mth", arg);
			return EXIT_USAGE;
		}
		*(opt == OPT_NTH ? &a->nth : &a->mth) = (int)v;
		break;
	case OPT_NO_FALLBACK:
		a->no_fallback = true;
		break;
	case OPT_ALL:
		a->all = true;
		break;
	case 'b':
		a->bytes = true;
		break;
	case 'S':
		a->list_source = arg;
		break;
	case OPT_EVENTS:
		if (parse_int(arg, 1, LONG_MAX, &a->events)) {
			err(c, "invalid --events: %s", arg);
			return EXIT_USAGE;
		}
		break;
	case 'n':
		a->dry_run = true;
		break;
	default:
		return EXIT_USAGE;
	}
	return 0;
}

/* getopt_long over some option tables. */
typedef struct Getopt {
	struct option longopts[64];
	char shortopts[64];
} Getopt;

/* flags: "+" to stop at the first argument; ":" is added, so that a
 * missing argument is told from an unknown option. */
static void getopt_build(Getopt *g, const char *flags, const Option *a, const Option *b)
{
	size_t n = 0, len = (size_t)snprintf(g->shortopts, sizeof(g->shortopts), "%s:", flags);

	for (const Option *t = a; t; t = t == a ? b : NULL)
		for (const Option *o = t; o->name; o++) {
			/* The tables are ours: too many is a bug to see at once. */
			if (n + 1 >= ELEMENTSOF(g->longopts) || len + 4 > sizeof(g->shortopts))
				abort();
			g->longopts[n++] = (struct option){o->name, o->has_arg, NULL, o->val};
			if (!is_short(o->val))
				continue;
			g->shortopts[len++] = (char)o->val;
			if (o->has_arg != no_argument)
				g->shortopts[len++] = ':';
			if (o->has_arg == optional_argument)
				g->shortopts[len++] = ':';
		}
	g->longopts[n] = (struct option){};
	g->shortopts[len] = 0;
}

/* getopt's '?' or ':' in words, as "mountctl: COMMAND: ..." (getopt's own
 * message would name argv[0], which is the command, as if mount(8) spoke). */
static int bad_option(Ctx *c, int opt, char **argv)
{
	const char *word = argv[optind - 1];
	bool is_long = startswith(word, "--");

	if (opt == ':' && is_long)
		err(c, "option '%s' requires an argument", word);
	else if (opt == ':')
		err(c, "option '-%c' requires an argument", optopt);
	else if (is_long)
		err(c, "unrecognized option '%s'", word);
	else
		err(c, "invalid option '-%c'", optopt);
	fprintf(stderr, "See \"mountctl %s%s--help\".\n", c->command ?: "", c->command ? " " : "");
	return EXIT_USAGE;
}

/* getopt_long over the command's options plus the common ones. */
static int run_command(Ctx *c, const Command *cmd, int argc, char **argv)
{
	Getopt g;
	Args a = {.recursive = -1, .nth = -1, .mth = -1};
	char **paths = NULL;
	int opt, r;

	/* Options may follow the arguments, as with mount(8); "--" ends them. */
	getopt_build(&g, "", cmd->options, common_options);
	optind = 0; /* reinitialise getopt for the subcommand's argv */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) >= 0) {
		if (opt == 'h') {
			command_help(stdout, cmd);
			free(a.options);
			return 0;
		}
		if (opt == '?' || opt == ':') {
			free(a.options);
			return bad_option(c, opt, argv);
		}
		r = common_option(c, opt, optarg);
		if (r < 0)
			r = command_option(c, &a, opt, optarg);
		if (r) {
			free(a.options);
			return r;
		}
	}
	argc -= optind;
	argv += optind;
	if (c->verbose && c->container)
		err(c, "container %s: pid %d (%s)", c->container, c->container_found.pid,
		    c->container_found.source);
	if (argc < cmd->min_args || (cmd->max_args >= 0 && argc > cmd->max_args)) {
		const char *nl = strchr(cmd->args, '\n');

		err(c, "%s arguments; usage: mountctl %s [OPTIONS] %.*s\n(see mountctl %s --help)",
		    argc < cmd->min_args ? "missing" : "too many", cmd->name,
		    (int)(nl ? nl - cmd->args : (long)strlen(cmd->args)), cmd->args, cmd->name);
		free(a.options);
		return EXIT_USAGE;
	}
	r = absolute_paths(c, cmd, &a, argc, argv, &paths);
	if (r == 0)
		r = cmd->run(c, &a, argc, paths ?: argv);
	strv_free(paths);
	free(a.options);
	return r;
}

int main(int argc, char **argv)
{
	_cleanup_(ctx_done) Ctx c = {.ns_pidfd = -1};
	const Command *cmd;
	const char *cs;
	Getopt g;
	int opt, r;

	setlocale(LC_ALL, "");
	cs = nl_langinfo(CODESET);
	output_set_ascii(!cs || !streq(cs, "UTF-8"));
	/* A reader of our output that goes away is not an error worth a
	 * signal death in the middle of a mount. */
	signal(SIGPIPE, SIG_IGN);

	getopt_build(&g, "+", top_options, common_options);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) >= 0) {
		if (opt == 'h') {
			usage_overview(stdout);
			return 0;
		}
		if (opt == OPT_VERSION) {
			printf("mountctl %s\n", MOUNTD_VERSION);
			return 0;
		}
		if (opt == '?' || opt == ':')
			return bad_option(&c, opt, argv);
		r = common_option(&c, opt, optarg);
		if (r)
			return r;
	}
	if (optind >= argc) {
		usage_overview(stderr);
		return EXIT_USAGE;
	}
	cmd = command_find(argv[optind]);
	if (!cmd) {
		fprintf(stderr, "mountctl: unknown command \"%s\"; see mountctl --help\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	c.command = cmd->name;
	/* The subcommand parses from its own name on. */
	return run_command(&c, cmd, argc - optind, argv + optind);
}
