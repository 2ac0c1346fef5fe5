/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountctl's commands and options as data: the option tables, the command
 * table, and what is made of them for a person (--help) and for the bash
 * completion (__complete).  mountctl(1) is checked against the same tables
 * (tests/unit/test-mountctl-help.sh).
 */

#include <ctype.h>
#include <getopt.h>
#include <string.h>

#include "mountctl.h"
#include "util.h"

#define O(_name, _has, _val, ...)                                              \
	{                                                                      \
		.name = (_name), .has_arg = (_has), .val = (_val), __VA_ARGS__ \
	}

const Option common_options[] = {
	O("pid", required_argument, 'p', "PID", "act in the mount namespace of process PID"),
	O("pidfd", required_argument, OPT_PIDFD, "FD",
	  "... of the process of the inherited pidfd FD"),
	O("ns", required_argument, 'N', "PATH",
	  "... of the namespace file PATH (/proc/PID/ns/mnt)"),
	O("container", required_argument, OPT_CONTAINER, "NAME",
	  "... of the container NAME (crun, runc, podman,\ndocker, machinectl; UID/NAME: that "
	  "user's)"),
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
const Option top_options[] = {
	O("version", no_argument, OPT_VERSION, NULL,
	  "show mountctl's version (before COMMAND only)"),
	{},
};

/* ---- the command table ----------------------------------------------------- */

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
	 ARG(1), 0, false},
	{"bind", NULL, cmd_bind, 2, 2, bind_options, "SOURCE TARGET",
	 "bind SOURCE (here) to TARGET",
	 "Bind SOURCE (a path in mountctl's own namespace) to TARGET (in the\n"
	 "target namespace).  Recursive unless --no-recursive.",
	 ARG(1), ARG(0), false},
	{"remount", NULL, cmd_remount, 1, 1, remount_options, "-o OPTIONS PATH",
	 "change a mount, like mount -o remount",
	 "Like mount -o remount: attribute words (ro, nosuid, ...) change the\n"
	 "mount (mount_setattr), the rest reconfigure the filesystem (fspick,\n"
	 "fsconfig, FSCONFIG_CMD_RECONFIGURE); ro/rw do both.",
	 ARG(0), 0, false},
	{"reconfigure", NULL, cmd_remount, 1, 1, reconfigure_options, "-o PARAMETERS PATH",
	 "reconfigure the filesystem at PATH",
	 "Reconfigure the filesystem at PATH: every word is an fsconfig()\n"
	 "parameter (\"ro\" makes the superblock read-only).",
	 ARG(0), 0, false},
	{"set", NULL, cmd_set, 1, 1, set_options, "PATH",
	 "change the attributes and propagation of a mount",
	 "Change the mount's attributes: ro/rw, nosuid/suid, nodev/dev,\n"
	 "noexec/exec, noatime/relatime/strictatime, nodiratime/diratime,\n"
	 "nosymfollow/symfollow; and its propagation (also as -o shared, rslave...).",
	 ARG(0), 0, false},
	{"move", NULL, cmd_move, 2, 2, move_options, "FROM TO", "move the mount at FROM to TO",
	 "Move the mount at FROM to TO (move_mount).", ARG(0) | ARG(1), 0, false},
	{"umount", "unmount", cmd_umount, 1, 1, umount_options, "PATH", "unmount the mount at PATH",
	 "Unmount the mount at PATH.", ARG(0), 0, false},
	{"fuse", NULL, cmd_fuse, 1, -1, no_options, "PROGRAM [ARG...]",
	 "run a FUSE program to mount there",
	 "Run PROGRAM (bindfs, squashfuse, sshfs, fusermount3 -u ...) so that the\n"
	 "fusermount3 libfuse runs for it asks mountd to mount in the target\n"
	 "namespace (--pid, --pidfd, --container) rather than the caller's own.\n"
	 "The mount point is PROGRAM's last argument, an absolute path in that\n"
	 "namespace; libfuse also wants it to exist here.  Options end at PROGRAM.",
	 0, 0, true},
	{"info", NULL, cmd_info, 1, -1, info_options, "PATH [ATTRIBUTE...]",
	 "fsinfo() attributes of the filesystem at PATH",
	 "fsinfo() attributes of the filesystem at PATH; all of them without\n"
	 "ATTRIBUTE.  Multi-valued ones (parameter, source, server_name,\n"
	 "server_address) are enumerated unless --nth/--mth pick an instance.",
	 ARG(0), 0, false},
	{"list", NULL, cmd_list, 0, 1, list_options, "[SOURCE | MOUNTPOINT]",
	 "the mounts of the namespace, as findmnt shows them",
	 "The mounts of the namespace as findmnt shows them: a tree, or a flat\n"
	 "list of the mounts of SOURCE or on MOUNTPOINT (a source first, as with\n"
	 "findmnt).  Exit status 1 when none matches.",
	 0, 0, false},
	{"watch", NULL, cmd_watch, 0, 0, watch_options, "", "print each change of the mount table",
	 "Print each change of the namespace's mount table as it happens; first\n"
	 "\"ready\" once watching.  Ends when the namespace goes away (\"gone\"),\n"
	 "or after N changes.",
	 0, 0, false},
	{"apply", NULL, cmd_apply, 0, 1, apply_options, "[FILE]",
	 "perform the mount-context lines of FILE",
	 "Perform the mount-context lines of FILE (or stdin): t FSTYPE, s SOURCE,\n"
	 "o OPTION[=VALUE], m TARGET, then x create or x reconfigure.  Errors\n"
	 "point at their line.",
	 0, 0, false},
	{"help", NULL, cmd_help, 0, 1, no_options, "[COMMAND]", "this help, or COMMAND's",
	 "Show the help of mountctl, or of COMMAND with every option it takes.", 0, 0, false},
	/* Hidden: the formatters without a daemon (host tests), and the
	 * commands and options for the bash completion. */
	{"__format", NULL, cmd_format, 1, 4, format_options, "", NULL, NULL, 0, 0, false},
	{"__complete", NULL, cmd_complete, 1, 2, no_options, "", NULL, NULL, 0, 0, false},
};

const Command *command_find(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		if (streq(name, commands[i].name) || streq_ptr(name, commands[i].alias))
			return &commands[i];
	return NULL;
}

bool is_short(int val)
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

void usage_overview(FILE *f)
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

void command_help(FILE *f, const Command *cmd)
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
