/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The mount layer: thin wrappers around the new mount API system calls
 * (fsopen, fsconfig, fsmount, open_tree, move_mount, mount_setattr, fspick,
 * fsinfo, listmount, statmount).  Nothing above this file calls them.
 *
 * Every wrapper that touches a filesystem context drains the context's
 * message log right after the call, successful or not: the kernel keeps only
 * 8 messages and overwrites the oldest, so reading after each step is the
 * only way to keep them all.  The messages land in an MntLog tagged with the
 * step that produced them ("fsconfig:size", "fsconfig:CMD_CREATE",
 * "fsmount"); a failing wrapper also records its step in MntLog.failed_step,
 * which the front ends turn into MountFailed{step, errno, messages}, and a
 * succeeding one appends its step and how long the call took to
 * MntLog.steps, so that a caller can follow a request call by call.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/mount.h>

#define MNT_STEP_MAX 64

typedef struct MntMessage {
	char step[MNT_STEP_MAX];
	char level; /* 'e', 'w' or 'i' as the kernel prefixes them */
	char *text;
} MntMessage;

typedef struct MntStep {
	char name[MNT_STEP_MAX];
	uint64_t usec; /* time spent in the step */
} MntStep;

typedef struct MntLog {
	MntMessage *messages;
	size_t n_messages;
	MntStep *steps; /* the steps that succeeded, in order */
	size_t n_steps;
	char failed_step[MNT_STEP_MAX]; /* "" unless a step failed */
	bool tracing;			/* trace_fd is set (a zeroed log has none) */
	int trace_fd;			/* owned; see mnt_log_trace() */
} MntLog;

/*
 * The trace: each step and each message also goes to trace_fd the moment it
 * is recorded, one line each, so that a client sees a request progress (and
 * where it hangs) before the reply:
 *	step<TAB>NAME<TAB>USEC
 *	message<TAB>STEP<TAB>LEVEL<TAB>TEXT
 * (tabs and newlines inside fields become spaces).  The fd is made
 * non-blocking: a client that does not read loses lines, mountd never
 * waits.  Takes fd, also on failure; -EBADF when it is not open for writing.
 */
int mnt_log_trace(MntLog *log, int fd);
/* Stop tracing and close the fd: the reader sees EOF. */
void mnt_log_trace_end(MntLog *log);
/* Append steps a worker took (and traced itself) without tracing them. */
int mnt_log_merge_steps(MntLog *log, const MntStep *steps, size_t n);

void mnt_log_done(MntLog *log);
/* Record that step failed (first failure wins: it is the cause). */
void mnt_log_fail(MntLog *log, const char *step);
/* The step the failure is to be told as, over one recorded already: what
 * a later look found to be its cause. */
void mnt_log_fail_instead(MntLog *log, const char *step);
/* Record that step succeeded after usec microseconds. */
int mnt_log_step(MntLog *log, const char *step, uint64_t usec);
/* A monotonic timestamp to measure a step from. */
uint64_t mnt_step_start(void);
/* Record the outcome r (negative errno: failure) of the step that began at
 * start; returns r. */
int mnt_log_result(MntLog *log, const char *step, uint64_t start, int r);
int mnt_log_add(MntLog *log, const char *step, char level, const char *text);
/* The most of one message from a filesystem context that is kept. */
#define MNT_MESSAGE_MAX 4096
/* A message as read from a filesystem context fd ("e text", trailing
 * newlines trimmed in place) into log. */
int mnt_log_add_kernel(MntLog *log, const char *step, char *msg);
/* Read every pending message from a filesystem context fd into log. */
int mnt_log_drain(MntLog *log, int fs_fd, const char *step);

/* fsconfig() argument shapes, one per FSCONFIG_SET_* command. */
typedef enum MntParamType {
	MNT_PARAM_FLAG,
	MNT_PARAM_STRING,
	MNT_PARAM_BINARY,
	MNT_PARAM_PATH,
	MNT_PARAM_PATH_EMPTY,
	MNT_PARAM_FD,
	_MNT_PARAM_TYPE_MAX,
} MntParamType;

/* Indexed by MntParamType: the interface's names. */
extern const char *const mnt_param_type_names[_MNT_PARAM_TYPE_MAX];
const char *mnt_param_type_to_string(MntParamType t);

typedef struct MntParam {
	MntParamType type;
	char *key;
	char *value;	  /* STRING, PATH, PATH_EMPTY (may be ""); NULL otherwise */
	void *blob;	  /* BINARY */
	size_t blob_size; /* BINARY */
	int fd;		  /* FD, PATH_EMPTY: the object; PATH: dirfd or -EBADF */
} MntParam;

void mnt_param_done(MntParam *p);

/* The kernel copies keys and string values with strndup_user(..., 256), so
 * 255 bytes plus the NUL is the most it accepts; blobs up to 1 MiB. */
#define MNT_KEY_MAX    255U
#define MNT_STRING_MAX 255U
#define MNT_BINARY_MAX (1024U * 1024U)
#define MNT_PATH_MAX   4095U

int mnt_fsopen(const char *fstype, MntLog *log);
int mnt_fsconfig_param(int fs_fd, const MntParam *p, MntLog *log);
/* The step a parameter is logged as: "fsconfig:KEY". */
void mnt_param_step(const MntParam *p, char step[static MNT_STEP_MAX]);

/* fsconfig()'s arguments for a parameter: value and its size in bytes
 * (NUL included; 0 for none), and aux, which is an fd of the parameter's
 * (FD, PATH_EMPTY, PATH with a dirfd) when aux_is_fd. */
typedef struct MntFsconfigArgs {
	int cmd;
	const void *value;
	size_t value_size;
	int aux;
	bool aux_is_fd;
} MntFsconfigArgs;

int mnt_param_fsconfig_args(const MntParam *p, MntFsconfigArgs *ret);
/* cmd: FSCONFIG_CMD_CREATE, _CREATE_EXCL or _RECONFIGURE. */
int mnt_fsconfig_cmd(int fs_fd, unsigned cmd, MntLog *log);
int mnt_fsmount(int fs_fd, unsigned attr_flags, MntLog *log);
int mnt_fspick(int dfd, const char *path, unsigned flags, MntLog *log);

int mnt_open_tree(int dfd, const char *path, unsigned flags, MntLog *log);
int mnt_move_mount(int from_dfd, const char *from_path, int to_dfd, const char *to_path,
		   unsigned flags, MntLog *log);
int mnt_setattr(int dfd, const char *path, unsigned flags, const struct mount_attr *attr,
		MntLog *log);

/* fsinfo() from the patched kernel; -ENOSYS on kernels without it.
 * Returns the full size of the attribute value (may exceed bufsize). */
int mnt_fsinfo(int dfd, const char *path, unsigned at_flags, uint32_t request, uint32_t nth,
	       uint32_t mth, void *buf, size_t bufsize);

/* Unique 64-bit id (STATX_MNT_ID_UNIQUE) of the mount fd refers to. */
int mnt_unique_id(int fd, uint64_t *ret);
/* Id of the mount namespace an nsfs fd refers to (NS_GET_MNTNS_ID). */
int mnt_ns_id(int ns_fd, uint64_t *ret);

/* listmount() of all mounts below mnt_id (LSMT_ROOT for all) in the
 * namespace mnt_ns_id (0: ours).  *ret is malloc'd. */
int mnt_listmount(uint64_t mnt_ns_id, uint64_t mnt_id, uint64_t **ret, size_t *ret_n);
/* statmount(); *ret is malloc'd and large enough for the strings. */
struct statmount;
int mnt_statmount(uint64_t mnt_ns_id, uint64_t mnt_id, uint64_t mask, struct statmount **ret);
/* The same for masks without strings (SB_BASIC, MNT_BASIC), into *ret. */
int mnt_statmount_fixed(uint64_t mnt_ns_id, uint64_t mnt_id, uint64_t mask, struct statmount *ret);
/* The unique id of the mount on top of name in dir_fd (name "": dir_fd's
 * own, an O_PATH fd on a mount's root), in our namespace, asking nothing
 * of its filesystem: a FUSE mount answers statx() with EACCES to anyone
 * but its user, and a dead one with ENOTCONN.  -EINVAL if it is no mount's
 * root. */
int mnt_unique_id_at(int dir_fd, const char *name, uint64_t *ret);
/* An O_PATH fd on the root of mount id of our namespace, opened by its
 * mount point (no symlink followed) and held to that id: -EBUSY when the
 * name leads elsewhere (another mount on top of it, or the tree changed
 * meanwhile), so that what the caller checks on the fd is that mount. */
int mnt_open_by_id(uint64_t id);

/* The filesystem type name ("ext4", "fuse", "devtmpfs") of the mount fd is
 * on, in our namespace: the superblock's own name, which statfs()'s magic
 * does not tell apart (devtmpfs is tmpfs to it). */
int mnt_fstype(int fd, char *ret, size_t size);

/* Names for MOUNT_ATTR_* and MS_* propagation values, for replies. */
const char *mnt_propagation_to_string(uint64_t prop);

typedef enum MntCreate {
	MNT_CREATE_NONE,
	MNT_CREATE_DIRECTORY,
	MNT_CREATE_FILE,
	_MNT_CREATE_MAX,
} MntCreate;

/* Open path (O_PATH) inside the tree rooted at root_fd, the way a process
 * chrooted there would see it: RESOLVE_IN_ROOT keeps "..", absolute paths
 * and symlinks from leaving it, RESOLVE_NO_MAGICLINKS refuses /proc jumps.
 * With create, a missing last component is made (mode 0755 dir / 0644 file)
 * first.  Failures record step "resolve:<what>" in log. */
int mnt_resolve_in_root(int root_fd, const char *path, MntCreate create, const char *what,
			MntLog *log);

/* What mnt_resolve_create_in_root() made, so that a failing request can
 * remove it again (no half-done work). */
typedef struct MntCreated {
	int dir_fd;
	char *name; /* NULL: nothing was created */
	MntCreate type;
} MntCreated;

/* What to do once the last component is known to be missing, just before
 * it is made: a negative errno from fn fails the resolution at step
 * "<step>:<what>" and nothing is made. */
typedef struct MntBeforeCreate {
	const char *step;
	int (*fn)(void *userdata);
	void *userdata;
} MntBeforeCreate;

/* before: NULL, or called only when something is about to be made. */
int mnt_resolve_create_in_root(int root_fd, const char *path, MntCreate create, const char *what,
			       const MntBeforeCreate *before, MntLog *log, MntCreated *ret_created);
void mnt_created_undo(MntCreated *c);
void mnt_created_done(MntCreated *c);

/* Split path into its parent and last component; -EINVAL when there is no
 * nameable last component ("/", ".", ".."). */
int mnt_split_last(const char *path, char **ret_parent, char **ret_name);

/* Whether the mount on top of the name (fd: an O_PATH fd on its root, id:
 * its unique id), resolved and not yet unmounted, may go: 0, or -errno
 * with its own step logged. */
typedef int (*MntUmountCheck)(int fd, uint64_t id, void *userdata, MntLog *log);

/* umount2() of path resolved inside root_fd as above (flags: MNT_DETACH,
 * MNT_FORCE), a symlink as its last component followed under root_fd too;
 * check, if any, asked first about what was resolved.
 * exact: the mount checked is the one unmounted, whatever happens to the
 * name meanwhile (for callers other than root; see the function): it is
 * detached, and the mounts below it go with it, so check must judge them
 * too; without MNT_DETACH a mount with mounts below is -EBUSY, as the
 * kernel answers.  Changes the cwd: for workers only. */
int mnt_umount_in_root(int root_fd, const char *path, unsigned flags, bool exact,
		       MntUmountCheck check, void *userdata, MntLog *log);
