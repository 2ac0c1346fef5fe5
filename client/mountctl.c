/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountctl: the command line front end of mountd.  Each subcommand is one
 * (sometimes two) io.mountd.Mount calls; option parsing is table driven:
 * every subcommand lists the options it takes, one handler fills Args.
 * The tables, --help and the completion are mountctl-commands.c, the
 * subcommands mountctl-VERB.c; here the command line is parsed and run.
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

/* A relative path means what it means to mount(8): from the working
 * directory, in mountctl's own namespace.  In another namespace there is
 * no working directory of ours: refused rather than taken from its root.
 * 0 or an exit code; *ret to be freed. */
int absolute_path(Ctx *c, const char *path, bool own_namespace, char **ret)
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
	getopt_build(&g, cmd->runs_program ? "+" : "", cmd->options, common_options);
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
