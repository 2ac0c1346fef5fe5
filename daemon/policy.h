/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Who may ask mountd for what.  The socket is world-connectable (0666) and
 * the bus name callable by anyone, so every request passes through here
 * first, from either front end.
 *
 * root may do everything.  Anybody else may only do what a rule in the
 * policy file (mountd.policy(5), default /etc/mountd/policy) grants them,
 * and by default only in mount namespaces they own: those whose owning user
 * namespace they created (a rootless container's), never the host's, which
 * the initial user namespace (uid 0) owns:
 *
 *	# who         what                  limits
 *	allow user:alice   read,mount        fstypes=tmpfs,overlay
 *	allow group:ctr    read,mount,change namespaces=any
 *
 * Without a rule, unprivileged callers may still read (Info, List, Watch)
 * in namespaces they own and in those of their own processes, as
 * /proc/PID/mountinfo already lets them; they cannot change anything.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define POLICY_DEFAULT_PATH "/etc/mountd/policy"

typedef enum PolicyAction {
	POLICY_READ = 1 << 0,	/* Info, List, Watch */
	POLICY_MOUNT = 1 << 1,	/* Create, Bind */
	POLICY_CHANGE = 1 << 2, /* Reconfigure, SetAttributes, Move, Unmount */
} PolicyAction;

typedef struct PolicyRule {
	bool is_group;
	unsigned id; /* uid or gid */
	unsigned actions; /* PolicyAction mask */
	char **fstypes;	  /* NULL: any; only limits Create */
	bool any_namespace;
	unsigned line;
} PolicyRule;

typedef struct Policy {
	PolicyRule *rules;
	size_t n_rules;
} Policy;

typedef struct PolicyCaller {
	uid_t uid;
	gid_t gid;
	const gid_t *groups; /* supplementary groups */
	size_t n_groups;
} PolicyCaller;

/* What a request wants.  ns_owner: the owner of the user namespace that
 * owns the target mount namespace; process_owner: the uid owning the
 * process the namespace was named by (pid/pidfd).  (uid_t)-1 when unknown,
 * which only root and "namespaces=any" rules reach. */
typedef struct PolicyRequest {
	PolicyAction action;
	const char *fstype; /* for Create, else NULL */
	uid_t ns_owner;
	uid_t process_owner;
} PolicyRequest;

void policy_done(Policy *p);
/* Parse policy text; on a syntax error returns -EINVAL with a message
 * "NAME:LINE: what is wrong" in *ret_error (to be freed). */
int policy_parse(Policy *p, const char *text, const char *name, char **ret_error);
/* Load a policy file; a missing file is an empty policy. */
int policy_load(Policy *p, const char *path, char **ret_error);

/* The action a method of io.mountd.Mount / io.mountd1.Manager needs, or -ENOENT. */
int policy_action_from_method(const char *method);

/* 0 when allowed, -EPERM when not.  *ret_why (static) says which rule allowed
 * or why nothing did, for the log and the PermissionDenied error. */
int policy_check(const Policy *p, const PolicyCaller *caller, const PolicyRequest *req,
		 const char **ret_why);

/* The owner of the user namespace owning mount namespace mntns_fd, or
 * (uid_t)-1. */
uid_t policy_namespace_owner(int mntns_fd);
/* The uid owning process pid (the owner of /proc/PID), or (uid_t)-1. */
uid_t policy_process_owner(pid_t pid);
/* The same for a pidfd (via its /proc/self/fdinfo Pid: line). */
uid_t policy_pidfd_owner(int pidfd);
