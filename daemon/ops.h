/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The operations of mountd, one function per request over plain C structs.
 * No JSON and no D-Bus in here: each front end decodes into these requests,
 * calls the function and encodes the result.
 *
 * Conventions:
 *  - fds in requests are borrowed (the front end owns them); fds in results
 *    are owned by the result and closed by its *_done() function.
 *  - Every function returns 0 or a negative errno.  On failure nothing the
 *    operation created is left behind (no mount, no fd, no loop device), and
 *    log->failed_step names the step that failed when it was a system call;
 *    log carries the kernel's fs_context messages in either case.
 *  - ops_*_validate() check a request completely before any system call;
 *    they return -EINVAL (or -E2BIG/-ERANGE) and name the offending field
 *    ("parameters[2].key") in *ret_field.  They run where a request is
 *    decoded (ops_request_decode()), the only way requests are made; the
 *    operations take a request that passed and do not check it again.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sys-mnt.h"

/* Limits on what one request may carry (the kernel's own limits are in
 * sys-mnt.h). */
#define OPS_PARAMS_MAX	     256U
#define OPS_PARAMS_TOTAL_MAX (4U * 1024 * 1024) /* bytes of keys + values */
#define OPS_FSTYPE_MAX	     64U

/* A mount namespace, named by exactly one of these.  All unset means the
 * caller of the front end fills in the peer's namespace.  root, if set, is
 * a directory of it under which the call's paths are resolved instead of
 * under its root (a container's rootfs before pivot_root). */
typedef struct OpsNamespace {
	pid_t pid;	  /* > 0 */
	int pidfd;	  /* borrowed, -EBADF if unset */
	int mntns_fd;	  /* borrowed, -EBADF if unset */
	const char *root; /* borrowed from the request, NULL if unset */
} OpsNamespace;

#define OPS_NAMESPACE_NULL ((OpsNamespace){.pidfd = -EBADF, .mntns_fd = -EBADF})

bool ops_namespace_is_set(const OpsNamespace *ns);
/* At most one name; prefix is used for the field name. */
int ops_namespace_validate(const OpsNamespace *ns, const char *prefix, const char **ret_field);
/* An fd setns() accepts for ns, owned by the caller. */
int ops_namespace_open(const OpsNamespace *ns, MntLog *log);
/* The namespace's id (NS_GET_MNTNS_ID), for listmount/statmount. */
int ops_namespace_id(const OpsNamespace *ns, uint64_t *ret, MntLog *log);

/* Mount attributes: for fsmount()/open_tree, "set" bits are applied; for
 * setattr, "set" bits are set and "clear" bits cleared. */
typedef enum OpsPropagation {
	OPS_PROPAGATION_UNCHANGED = 0,
	OPS_PROPAGATION_PRIVATE,
	OPS_PROPAGATION_SHARED,
	OPS_PROPAGATION_SLAVE,
	OPS_PROPAGATION_UNBINDABLE,
	_OPS_PROPAGATION_MAX,
} OpsPropagation;

typedef struct OpsAttributes {
	uint64_t set;	/* MOUNT_ATTR_* */
	uint64_t clear; /* MOUNT_ATTR_*; an atime mode in set implies _ATIME here */
	OpsPropagation propagation;
} OpsAttributes;

/* Where to put a new detached mount.  path empty/NULL: nowhere, the mount
 * fd is returned to the caller instead. */
typedef struct OpsPlacement {
	OpsNamespace ns;
	char *path;
	MntCreate create;
	bool beneath;
} OpsPlacement;

typedef struct OpsImage {
	int fd;			   /* borrowed, -EBADF if no image */
	uint32_t partition;	   /* 0: the whole image */
	char *partition_type;	   /* GPT type UUID, or NULL */
	int hash_fd;		   /* borrowed: a bare image's dm-verity hash tree */
	char *root_hash;	   /* hex, with hash_fd */
	char *root_hash_signature; /* base64 PKCS#7 of root_hash */
} OpsImage;

typedef struct OpsCreateRequest {
	char *fstype; /* NULL with an image: probed */
	char *source; /* shorthand for a "source" string parameter */
	MntParam *params;
	size_t n_params;
	bool exclusive; /* FSCONFIG_CMD_CREATE_EXCL */
	OpsImage image;
	OpsAttributes attr;
	OpsPlacement place;
} OpsCreateRequest;

typedef struct OpsMountResult {
	int mount_fd;		/* when not placed: the detached mount, else -EBADF */
	uint64_t mount_id;	/* unique id of the new mount */
	char *fstype;		/* the type used (probed for images) */
	char *loop_device;	/* for images */
	char *verity_root_hash; /* for images on dm-verity */
	char *verity_signer;	/* who signed it; NULL: nobody mountd trusts */
} OpsMountResult;

void ops_create_request_done(OpsCreateRequest *r);
void ops_mount_result_done(OpsMountResult *r);
int ops_create_validate(const OpsCreateRequest *r, const char **ret_field);
int ops_create(const OpsCreateRequest *r, OpsMountResult *ret, MntLog *log);

/* fsconfig parameter list checks, shared with reconfigure. */
int ops_params_validate(const MntParam *params, size_t n, const char **ret_field);
int ops_key_validate(const char *key);

typedef struct OpsBindRequest {
	OpsNamespace source_ns; /* where source_path is resolved */
	char *source_path;
	int source_fd; /* borrowed; instead of a path */
	bool recursive;
	int userns_fd; /* borrowed; idmapped mount, -EBADF if not */
	OpsAttributes attr;
	OpsPlacement place;
} OpsBindRequest;

void ops_bind_request_done(OpsBindRequest *r);
int ops_bind_validate(const OpsBindRequest *r, const char **ret_field);
int ops_bind(const OpsBindRequest *r, OpsMountResult *ret, MntLog *log);

/* Change the attributes of an existing mount / reconfigure its superblock. */
typedef struct OpsSetattrRequest {
	OpsNamespace ns;
	char *path;
	bool recursive;
	int userns_fd;
	OpsAttributes attr;
} OpsSetattrRequest;

void ops_setattr_request_done(OpsSetattrRequest *r);
int ops_setattr_validate(const OpsSetattrRequest *r, const char **ret_field);
int ops_setattr(const OpsSetattrRequest *r, MntLog *log);

typedef struct OpsReconfigureRequest {
	OpsNamespace ns;
	char *path;
	MntParam *params;
	size_t n_params;
} OpsReconfigureRequest;

void ops_reconfigure_request_done(OpsReconfigureRequest *r);
int ops_reconfigure_validate(const OpsReconfigureRequest *r, const char **ret_field);
int ops_reconfigure(const OpsReconfigureRequest *r, MntLog *log);

/* Move a mount to another place inside one namespace. */
typedef struct OpsMoveRequest {
	OpsNamespace ns;
	char *from;
	char *to;
	MntCreate create;
	bool beneath;
} OpsMoveRequest;

void ops_move_request_done(OpsMoveRequest *r);
int ops_move_validate(const OpsMoveRequest *r, const char **ret_field);
int ops_move(const OpsMoveRequest *r, MntLog *log);

typedef struct OpsUnmountRequest {
	OpsNamespace ns;
	char *path;
	bool detach; /* MNT_DETACH */
	bool force;  /* MNT_FORCE */
	/* Only a mount of this filesystem type; a FUSE one (fuse, fuseblk)
	 * only if the caller made it, as fusermount3 -u (ops-fuse.h). */
	char *fstype;
} OpsUnmountRequest;

void ops_unmount_request_done(OpsUnmountRequest *r);
int ops_unmount_validate(const OpsUnmountRequest *r, const char **ret_field);
int ops_unmount(const OpsUnmountRequest *r, MntLog *log);

/* Filesystem information for a path.  attribute is an fsinfo attribute
 * name ("statfs", "ids", "limits", ... "source", "parameter"); when the
 * kernel has no fsinfo() (ENOSYS) the common ones are answered from
 * statfs()/statx()/statmount() and source says which. */
typedef enum OpsInfoSource {
	OPS_INFO_FSINFO,
	OPS_INFO_STATFS,
	OPS_INFO_STATX,
	OPS_INFO_STATMOUNT,
	OPS_INFO_DM, /* the device-mapper table (attribute "verity") */
	_OPS_INFO_SOURCE_MAX,
} OpsInfoSource;

extern const char *const ops_info_source_names[_OPS_INFO_SOURCE_MAX];
const char *ops_info_source_to_string(OpsInfoSource s);

typedef struct OpsInfoRequest {
	OpsNamespace ns;
	char *path;
	char *attribute;
	uint32_t nth, mth;
	bool no_fallback; /* fail with -ENOSYS rather than fall back */
} OpsInfoRequest;

/* A flat list of named values: numbers, strings or bytes (hex). */
typedef enum OpsValueType {
	OPS_VALUE_U64,
	OPS_VALUE_S64,
	OPS_VALUE_STRING,
	OPS_VALUE_BOOL,
} OpsValueType;

typedef struct OpsValue {
	const char *name; /* static */
	OpsValueType type;
	uint64_t u;
	int64_t s;
	char *str;
	bool b;
} OpsValue;

typedef struct OpsInfoResult {
	OpsInfoSource source;
	const char *attribute; /* canonical name, static */
	OpsValue *values;
	size_t n_values;
} OpsInfoResult;

void ops_info_request_done(OpsInfoRequest *r);
void ops_info_result_done(OpsInfoResult *r);
int ops_info_validate(const OpsInfoRequest *r, const char **ret_field);
int ops_info(const OpsInfoRequest *r, OpsInfoResult *ret, MntLog *log);
/* Info from mountd's event loop (executor-nonblocking.h), for a path below root_fd,
 * the root of mount namespace mnt_ns_id.  -EAGAIN where the
 * answer could wait on anything, and on any failure: a worker then answers
 * as ever, and gives a failure its usual form and steps. */
int ops_info_nonblocking(const OpsInfoRequest *r, int root_fd, uint64_t mnt_ns_id,
			 OpsInfoResult *ret);
/* Exported for the unit tests. */
int ops_info_attribute_from_string(const char *s);
/* fsinfo() of attribute attr (its number) of what fd refers to, decoded
 * into res: the part of ops_info() after the path is resolved.  -ENOSYS
 * without fsinfo(), -EPROTO for a struct smaller than ours, -EOVERFLOW for
 * a value that would not stop growing or claims more than 1 MiB. */
int ops_info_fsinfo(int fd, const OpsInfoRequest *r, int attr, OpsInfoResult *res);
/* Whether the Info value called name is signed (D-Bus "x", not "t"):
 * JSON numbers do not say. */
bool ops_info_value_signed(const char *name);

/* One mount of a namespace, as listmount()+statmount() see it. */
typedef struct OpsMountEntry {
	uint64_t id, parent_id;
	uint32_t id_old, parent_id_old;
	uint32_t dev_major, dev_minor;
	char *fstype;
	char *source; /* NULL when unknown */
	char *root;
	char *mount_point;
	char *options; /* superblock options */
	uint64_t attr; /* MOUNT_ATTR_* */
	uint64_t propagation;
	uint64_t peer_group, master;
} OpsMountEntry;

void ops_mount_entry_done(OpsMountEntry *e);
bool ops_mount_entry_equal(const OpsMountEntry *a, const OpsMountEntry *b);

typedef struct OpsListRequest {
	OpsNamespace ns;
} OpsListRequest;

typedef struct OpsListResult {
	OpsMountEntry *mounts;
	size_t n_mounts;
} OpsListResult;

void ops_list_result_done(OpsListResult *r);
int ops_list(const OpsListRequest *r, OpsListResult *ret, MntLog *log);
/* The same by namespace id; pid (or 0) is used to find mount sources in
 * /proc/<pid>/mountinfo, which statmount() of this kernel lacks. */
int ops_list_by_id(uint64_t mnt_ns_id, pid_t pid, OpsListResult *ret, MntLog *log);

/* Watching: the front end keeps an OpsWatch, calls ops_watch_poll() when
 * the fds it exposes signal (or on a timer) and gets the differences since
 * the last call. */
typedef enum OpsWatchEventType {
	OPS_WATCH_ADDED,
	OPS_WATCH_REMOVED,
	OPS_WATCH_CHANGED,
} OpsWatchEventType;

typedef struct OpsWatchEvent {
	OpsWatchEventType type;
	OpsMountEntry mount; /* for REMOVED: the last known state */
} OpsWatchEvent;

typedef struct OpsWatch OpsWatch;

int ops_watch_new(const OpsNamespace *ns, OpsWatch **ret, MntLog *log);
OpsWatch *ops_watch_free(OpsWatch *w);
/* fd that polls POLLPRI|POLLERR on a mount table change (-EBADF: none, use
 * the timer only) and fd that polls POLLIN when the namespace's process
 * exits (-EBADF: none). */
int ops_watch_mountinfo_fd(OpsWatch *w);
int ops_watch_pidfd(OpsWatch *w);
/* Diff against the previous snapshot.  -ENOENT/-ESRCH when the namespace
 * has gone: the watch is over. */
int ops_watch_poll(OpsWatch *w, OpsWatchEvent **ret, size_t *ret_n);
void ops_watch_events_free(OpsWatchEvent *e, size_t n);
