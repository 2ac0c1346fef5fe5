/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * mountctl internals shared between its files.  The option splitter, the
 * output formatters and the apply parser are pure functions over JSON and
 * text, so the host unit tests drive them without a daemon.
 */

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "libmountd-client.h"

/* Exit codes (documented in mountctl(1)). */
enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1,      /* mountd refused or the operation failed */
	EXIT_USAGE = 2,	      /* bad command line or input file */
	EXIT_UNREACHABLE = 3, /* no connection to mountd, or it broke */
};

/* ---- mount options (mountctl-options.c) ---- */

/* How -o words are sorted, by the command that takes them. */
typedef enum OptionsMode {
	OPTIONS_MOUNT,	     /* new fs: attributes set, the rest fsconfig() */
	OPTIONS_BIND,	     /* attributes and propagation only */
	OPTIONS_REMOUNT,     /* attributes set/cleared, the rest reconfigure */
	OPTIONS_SET,	     /* attributes set/cleared and propagation only */
	OPTIONS_RECONFIGURE, /* every word is an fsconfig() parameter */
} OptionsMode;

typedef struct MountOptions {
	json_object *parameters; /* []Parameter, NULL while empty */
	json_object *attributes; /* Attributes, NULL while empty */
	const char *propagation; /* private/shared/slave/unbindable or NULL */
	bool recursive;		 /* an r-variant (rshared, ...) was given */
} MountOptions;

void mount_options_done(MountOptions *o);
/* The -o words mountctl itself knows (attributes, atime, propagation), a
 * line each: the rest goes to the filesystem.  For the completion. */
void mount_options_words(FILE *f);
/* Add one option ("size=1M", "ro", "context=\"a,b\"" is not split here).
 * On failure *ret_error (static text or NULL) says why. */
int mount_options_add(MountOptions *o, OptionsMode mode, const char *option,
		      const char **ret_error);
/* Split a mount(8)-style comma list (double quotes protect commas) and add
 * each option.  *ret_bad gets a malloc()ed copy of the offending option. */
int mount_options_parse(MountOptions *o, OptionsMode mode, const char *list, char **ret_bad,
			const char **ret_error);

/* ---- output (mountctl-output.c) ---- */

typedef enum ListStyle {
	LIST_TREE,
	LIST_FLAT,  /* findmnt --list: the tree's columns, no tree */
	LIST_TABLE, /* flat, with ID, PARENT and PROPAGATION */
} ListStyle;

/* Line-drawing characters: UTF-8 or ASCII (chosen from the locale). */
void output_set_ascii(bool ascii);

/* What `mountctl list` shows, and of which mounts: findmnt's filters. */
typedef struct ListOptions {
	ListStyle style;
	bool json;
	const char *columns; /* -o: findmnt's column names, "+LIST" adds to the default */
	const char *types;   /* -t: findmnt's list; "no" in front excludes its types */
	const char *source;  /* -S: a source, or MAJ:MIN */
	const char *spec;    /* the argument: a source, else ... */
	const char *target;  /* ... this mount point (spec absolute and normalised) */
	bool submounts;	     /* -R: each match with every mount below it */
} ListOptions;

/* A MountEntry in mountctl's JSON form (findmnt's key names and values). */
json_object *output_mount_entry_json(json_object *entry);
/* mounts: the List reply's array.  The number of mounts shown, or a
 * negative errno (-EINVAL: a bad -o list). */
int output_list(FILE *f, json_object *mounts, const ListOptions *o);
/* 0, or -EINVAL with *ret_bad (malloc()ed, may be NULL) the unknown column. */
int output_list_columns_check(const char *columns, char **ret_bad);
/* Whether TYPE is in a findmnt -t list ("tmpfs,ext4", "notmpfs,proc"). */
bool fstype_match(const char *type, const char *pattern);
/* One Info reply as "name value" lines under a header, values as people
 * read them (human_value()); sizes in bytes with bytes. */
int output_info_text(FILE *f, const char *attribute, int nth, int mth, json_object *reply,
		     bool bytes);
/* The Info reply in mountctl's JSON form: {attribute, nth, mth, source,
 * values: {name: value}}. */
json_object *output_info_json(const char *attribute, int nth, int mth, json_object *reply);
/* One Watch reply: a line of text or of JSON. */
int output_watch_event(FILE *f, json_object *reply, bool json);
/* Kernel messages of a reply, one per line, "STEP: LEVEL: TEXT"; only e
 * and w levels unless all. */
void output_messages(FILE *f, const char *prefix, json_object *params, bool all);
/* -v: the steps of a reply in order, "STEP: ok (TIME)", each followed by
 * the kernel's messages of that step, then (error names the reply's
 * error, MountFailed) "STEP: failed: ERRNO".  steps_shown: they were
 * streamed already (output_trace_line()); only the failure is left. */
void output_trace(FILE *f, const char *prefix, const char *error, json_object *params,
		  bool steps_shown);
/* One line of a traceFd stream (see io.mountd.Mount.varlink), printed as
 * output_trace() prints the same; line is modified. */
void output_trace_line(FILE *f, const char *prefix, char *line);
/* Print a JSON value, pretty, followed by a newline. */
void output_json(FILE *f, json_object *o);

/* ---- values for people (mountctl-human.c) ---- */

/* A size as findmnt, lsblk and df -h print it: 1023B, 4K, 1.5M, 2.1G, 8E. */
void human_size(char *buf, size_t size, uint64_t bytes);
/* 32 hex digits as blkid prints a UUID (8-4-4-4-12, lower case); size >= 37. */
int human_uuid(char *buf, size_t size, const char *hex);
/* fsinfo's f_fsid as stat -f prints it (%i). */
uint64_t human_fsid(uint64_t fsid);
/* Print value x (a "number" or "text") of Info attribute's field name as
 * people read it; values is the reply's list, for fields that need another
 * (f_blocks its f_frsize).  false, printing nothing: shown as it is. */
bool human_value(FILE *f, const char *attribute, const char *name, json_object *x,
		 json_object *values, bool bytes);

/* ---- apply (mountctl-apply.c) ---- */

typedef enum ApplyAction {
	APPLY_CREATE,
	APPLY_RECONFIGURE,
} ApplyAction;

/* The line each part of an operation came from, so that a failure can point
 * at it. */
typedef struct ApplyOption {
	char *text;
	unsigned line;
} ApplyOption;

typedef struct ApplyOp {
	ApplyAction action;
	unsigned line; /* of the "x" line */
	char *fstype;
	unsigned fstype_line;
	char *source;
	unsigned source_line;
	char *target;
	unsigned target_line;
	ApplyOption *options;
	size_t n_options;
} ApplyOp;

typedef struct ApplyScript {
	ApplyOp *ops;
	size_t n_ops;
} ApplyScript;

void apply_script_done(ApplyScript *s);
/* Parse the line protocol.  Every syntax error is printed to err as
 * "NAME:LINE: message"; returns -EINVAL if there was any. */
int apply_parse(FILE *in, const char *name, FILE *err, ApplyScript *ret);
/* The varlink method and parameters an operation turns into; namespace
 * (may be NULL) is added where the method takes one, create (NULL,
 * "directory" or "file") to the placement of a create.  On a bad option
 * *ret_line and *ret_error say where and why. */
int apply_op_to_call(const ApplyOp *op, json_object *namespace, const char *create,
		     const char **ret_method, json_object **ret_params, unsigned *ret_line,
		     char **ret_error);
/* The line a failure of step (MountFailed.step) points at. */
unsigned apply_op_line_of_step(const ApplyOp *op, const char *step);

/* ---- the command line (mountctl.c, mountctl-call.c and the commands) ---- */

#define NS_FDS_MAX 4

typedef struct Ctx {
	const char *command; /* for messages */
	const char *socket;
	bool json, verbose;
	uint64_t timeout_usec;
	bool timeout_set;

	/* Target namespace: at most one of these. */
	int ns_pid;
	int ns_pidfd;
	const char *ns_path;
	/* --container NAME, found when parsed; its pidfd is ns_pidfd. */
	const char *container;
	MountdContainer container_found;

	/* Fds to send with the next call; owned ones are closed after it. */
	int fds[NS_FDS_MAX];
	bool owned[NS_FDS_MAX];
	size_t n_fds;

	MountdClient *client;
	/* -v: the last call's steps were streamed through its traceFd. */
	bool trace_streamed;
	/* What the command names, for errors in words (print_error()). */
	const char *fstype, *target;
} Ctx;

/* Every subcommand option lands here. */
typedef struct Args {
	const char *fstype;
	char *options; /* -o lists, joined */
	const char *propagation;
	const char *create;
	const char *image_partition_type;
	const char *idmap;
	int source_pid; /* bind: namespace of the source */
	const char *source_ns;
	bool exclusive, beneath, image, lazy, force, table, flat, dry_run, no_fallback;
	const char *list_source; /* list -S */
	bool all, bytes;	 /* info --all, --bytes */
	int recursive;		 /* -1 default */
	int partition;
	int nth, mth; /* -1: enumerate */
	long events;  /* watch: stop after this many changes; 0 never */
} Args;

/* Messages: "mountctl: COMMAND: ..." on stderr. */
__attribute__((format(printf, 2, 3))) void err(const Ctx *c, const char *fmt, ...);
int parse_int(const char *s, long min, long max, long *ret);
void ctx_done(Ctx *c);
/* Queue fd for the next call (closed after it when owned); returns its
 * index in the message. */
int push_fd(Ctx *c, int fd, bool owned);
void drop_fds(Ctx *c);
/* Open path and queue it; 0 or an exit code after saying why not. */
int open_for_sending(Ctx *c, const char *path, int flags, const char *what, int *ret_index);
/* The Namespace object of --pid/--pidfd/--ns (queuing its fd), or NULL
 * for mountctl's own namespace. */
int namespace_json(Ctx *c, json_object **ret);
/* A call's parameters object, naming the target namespace of --pid, --pidfd
 * or --ns when one was given; 0 or an exit code. */
int params_new(Ctx *c, json_object **ret);
int connect_daemon(Ctx *c);
void verbose_call(Ctx *c, const char *method, json_object *params);
void print_error(Ctx *c, const MountdReply *reply, const char *where);
/* One call, answer not judged: 0 with *reply (maybe an error), or an exit
 * code after saying why mountd could not be asked. */
int call_raw(Ctx *c, const char *method, json_object *params, MountdReply *reply);
/* One call whose error ends the command: 0, or an exit code after printing
 * the failure. */
int call(Ctx *c, const char *method, json_object *params, MountdReply *reply);
/* call() with "more", for a method whose answer may come in parts (List):
 * the parts' member array joined into the first's. */
int call_parts(Ctx *c, const char *method, const char *array, json_object *params,
	       MountdReply *reply);
void print_done(Ctx *c, json_object *extra);
void print_done_target(Ctx *c, const char *source, const char *target);
json_object *messages_of(json_object *params);
int parse_options(Ctx *c, const char *list, OptionsMode mode, MountOptions *opts);

/* ---- the commands and their options (mountctl-commands.c) ---- */

/* The options without a letter: getopt_long() values past any char. */
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
	/* Its arguments are a command line of their own: options end at the
	 * first argument (fuse PROGRAM ...). */
	bool runs_program;
} Command;

#define ARG(n) (1U << (n))

extern const Option common_options[], top_options[];
const Command *command_find(const char *name);
/* Whether an option's value is also its short option letter. */
bool is_short(int val);
void usage_overview(FILE *f);
void command_help(FILE *f, const Command *cmd);

/* A path argument made absolute as mount(8) does (mountctl.c). */
int absolute_path(Ctx *c, const char *path, bool own_namespace, char **ret);
/* How list prints, from its options (mountctl-list.c). */
ListOptions list_options_of(const Ctx *c, const Args *a, ListStyle style);

/* The commands, one file per verb (or related verbs). */
int cmd_mount(Ctx *c, Args *a, int argc, char **argv);
int cmd_bind(Ctx *c, Args *a, int argc, char **argv);
int cmd_move(Ctx *c, Args *a, int argc, char **argv);
int cmd_umount(Ctx *c, Args *a, int argc, char **argv);
int cmd_fuse(Ctx *c, Args *a, int argc, char **argv);
int cmd_remount(Ctx *c, Args *a, int argc, char **argv);
int cmd_set(Ctx *c, Args *a, int argc, char **argv);
int cmd_info(Ctx *c, Args *a, int argc, char **argv);
int cmd_list(Ctx *c, Args *a, int argc, char **argv);
int cmd_watch(Ctx *c, Args *a, int argc, char **argv);
int cmd_apply(Ctx *c, Args *a, int argc, char **argv);
int cmd_format(Ctx *c, Args *a, int argc, char **argv);
