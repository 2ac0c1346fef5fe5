/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The operations of mountd as data: each method is described once — its
 * name, its request struct and the fields of it (JSON names, types, ranges,
 * how each decodes), its D-Bus signature, the facts the policy decides on,
 * how it runs and what its reply holds.  Both front ends are generic code
 * over this table, the D-Bus vtable is generated from it, and a host test
 * checks it against daemon/io.mountd.Mount.varlink field by field.
 *
 * JSON is the canonical form of a request and of a reply: the varlink front
 * end has it already, the D-Bus front end translates a{sv} and positional
 * arguments into it (and the reply back) along the table, and the executor
 * carries it to the worker process that runs the operation.  File
 * descriptors travel beside the JSON, named by their index, as on varlink.
 */

#include <stdbool.h>
#include <stddef.h>
#include <errno.h>
#include <stdint.h>

#include <json-c/json.h>

#include "authorize.h"
#include "json-dispatch.h"
#include "sys-mnt.h"
#include "ops-errors.h"
#include "ops-mount-entry.h"
#include "ops.h"

/* Where a method runs. */
typedef enum OpsRun {
	OPS_RUN_WORKER, /* in an executor worker inside the target namespace */
	OPS_RUN_WATCH,	/* a stream, in the event loop (ops-watch-events.c) */
} OpsRun;

/* What one reply field holds; each kind has one JSON encoder (from the
 * C result, in the worker) and one D-Bus encoder (from that JSON). */
typedef enum OpsReplyKind {
	OPS_REPLY_MOUNT_ID,    /* int: OpsMountResult.mount_id */
	OPS_REPLY_MOUNT_FD,    /* ?int: fd index; D-Bus "ah" */
	OPS_REPLY_FSTYPE,      /* string */
	OPS_REPLY_LOOP_DEVICE, /* ?string; D-Bus "" for none */
	OPS_REPLY_VERITY,      /* ?Verity; D-Bus (ss), "" for none */
	OPS_REPLY_MESSAGES,    /* []Message; D-Bus a(sss) */
	OPS_REPLY_STEPS,       /* []Step; D-Bus a(st) */
	OPS_REPLY_INFO_SOURCE, /* enum string */
	OPS_REPLY_INFO_ATTRIBUTE,
	OPS_REPLY_INFO_VALUES, /* []InfoValue; D-Bus a(sv) */
	OPS_REPLY_MOUNTS,      /* []MountEntry; D-Bus a(MOUNT_ENTRY) */
	OPS_REPLY_EVENT,       /* Watch */
	OPS_REPLY_MOUNT,       /* ?MountEntry, Watch */
	_OPS_REPLY_KIND_MAX,
} OpsReplyKind;

typedef struct OpsReplyField {
	const char *name; /* NULL terminates */
	OpsReplyKind kind;
	bool dbus; /* also in the D-Bus reply (in this order) */
} OpsReplyField;

/* A positional D-Bus argument before the trailing "a{sv} options": the JSON
 * field it fills.  "" of a string argument whose field is optional means
 * the field is absent (D-Bus has no null). */
typedef struct OpsBusArg {
	const char *name; /* NULL terminates */
	const char *signature;
} OpsBusArg;

/* Everything the operation needs besides the request struct. */
typedef struct OpsResult {
	OpsMountResult mount;
	OpsInfoResult info;
	OpsListResult list;
} OpsResult;

#define OPS_RESULT_NULL ((OpsResult){.mount.mount_fd = -EBADF})

/* The namespaces a request names, for pinning and the policy. */
typedef struct OpsTargets {
	OpsNamespace *target; /* where the operation runs (NULL: the caller's own) */
	OpsNamespace *source; /* Bind's source namespace */
	const char *target_field, *source_field; /* their JSON paths */
	const char *fstype;			 /* policy facts */
	uint64_t attributes;
	/* The attributes the request sets: of a new mount (Create, Bind)
	 * or of an existing one (SetAttributes); NULL for the rest. */
	OpsAttributes *attr;
	bool new_mount;
	bool image; /* a Create from an image fd */
	/* Where in the target the mount goes (Create, Bind), for polkit's
	 * rules to see; NULL: nowhere, or not one path. */
	const char *path;
} OpsTargets;

typedef struct OpsMethod {
	const char *name; /* varlink method and D-Bus member */
	OpsRun run;
	size_t request_size;
	const JsonDispatch *fields; /* the request, as JSON */
	void (*request_init)(void *req);
	void (*request_done)(void *req);
	/* Complete check before any system call; names the field. */
	int (*validate)(const void *req, const char **ret_field);
	/* The namespaces to pin and authorize, with the policy's facts. */
	void (*targets)(void *req, OpsTargets *ret);
	/* OPS_RUN_WORKER: the operation itself. */
	int (*execute)(const void *req, OpsResult *res, MntLog *log);
	/* Optional: the operation answered in mountd's event loop, in the
	 * namespace mnt_ns_id whose root is root_fd, when nothing can make
	 * it wait (executor-nonblocking.h); -EAGAIN: run execute in a worker. */
	int (*execute_nonblocking)(const void *req, int root_fd, uint64_t mnt_ns_id,
				   OpsResult *res);
	void (*result_done)(OpsResult *res);
	/* Optional: the method's own error for r, when it has one (Info's
	 * NotSupported names the attribute): 1 with *ret_name and
	 * *ret_params (new) set, 0 for the general mapping, or -ENOMEM. */
	int (*encode_error)(const void *req, int r, const char **ret_name,
			    json_object **ret_params);
	/* It changes nothing: the policy lets a caller read a namespace of
	 * its own without a rule (authorize-policy.c), and an answer whose caller has
	 * gone is dropped without a warning (request.c). */
	bool reads;
	const OpsReplyField *reply;
	/* Called with "more" (varlink), the reply, which is this array
	 * alone, comes in parts of whole elements (List: "mounts"); NULL:
	 * in one reply. */
	const char *reply_in_parts;
	/* D-Bus: positional arguments (then "a{sv} options", unless
	 * bus_no_options), and the reply of Watch, which is an object path. */
	const OpsBusArg *bus_args;
	bool bus_no_options;
	const char *bus_reply_signature; /* NULL: from the reply fields */
} OpsMethod;

extern const OpsMethod ops_methods[]; /* terminated by name == NULL */

const OpsMethod *ops_method_find(const char *name);
/* The methods' names, NULL-terminated (*ret new; the names are the table's). */
int ops_method_names(char ***ret);

/* The fds a request's JSON names by index while it is decoded. */
typedef struct OpsFds {
	int *fds;
	size_t n;
	int trace_fd; /* out: the request's "traceFd", borrowed from fds */
	/* out: "allowInteractiveAuthentication", for polkit (request.c) */
	bool interactive;
} OpsFds;

/* Decode parameters into a request (request_init() first, request_done()
 * after, on success and failure) and validate it.  On failure *ret_field
 * names the field as a dotted path ("placement.namespace.pid",
 * "parameters[0].key"), valid until the next decode. */
int ops_request_decode(const OpsMethod *m, json_object *parameters, const OpsFds *fds, void *req,
		       const char **ret_field);

/* The JSON reply of a method from its result; fds of the result (the
 * detached mount) are moved into out_fds (at most one). */
int ops_reply_encode(const OpsMethod *m, OpsResult *res, const MntLog *log, json_object **ret,
		     int *out_fd);

/* The D-Bus signature of one reply field, and of a request field. */
const char *ops_reply_kind_signature(OpsReplyKind k);
const char *ops_reply_kind_idl(OpsReplyKind k, bool *ret_optional);

/* The IDL type of a request field as io.mountd.Mount.varlink spells it:
 * "string", "int", "bool", an enum "(a, b, c)", or "object"/"array" for a
 * named type (the field's data is that type's table). */
void ops_field_idl_type(const JsonDispatch *e, char *buf, size_t size);

/*
 * Errors: one mapping for both front ends, from a failed operation (or a
 * failed step before it) to a varlink error name (ops-errors.h) and its
 * parameters.  r < 0 of m (NULL: not a method's own failure) with log;
 * the attribute for NotSupported comes from req.  *ret_params is new.
 */
int ops_error_encode(const OpsMethod *m, const void *req, int r, const MntLog *log,
		     const char **ret_name, json_object **ret_params);

/*
 * The worker side: one request as the executor carries it,
 * {"method": NAME, "parameters": {...}} with its fds; the answer is
 * {"parameters": {...}} or {"error": NAME, "parameters": {...}}.
 */
int ops_table_execute(const char *request, int *fds, size_t n_fds, char **ret_reply, int **ret_fds,
		      size_t *ret_n_fds);

/* The loop's side of execute_nonblocking: the reply's parameters for req
 * (decoded and authorized, a root caller's: request.c), or -EAGAIN when a
 * worker must run it. */
int ops_table_execute_nonblocking(const OpsMethod *m, const void *req, int root_fd,
				  uint64_t mnt_ns_id, json_object **ret_parameters);
