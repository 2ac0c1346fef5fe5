/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Who may ask mountd for what.  The socket is world-connectable (0666) and
 * the bus name callable by anyone, so every request passes through here
 * first, from either front end.  The file format is mountd.policy(5):
 *
 *	# verdict  conditions (all must hold)
 *	allow group=containers method=Create fstype=tmpfs namespace=owned attributes=nosuid,nodev
 *	deny  method=*
 *
 * root is always allowed: it could make the mount itself, and a policy file
 * must not be able to lock the administrator out.  For everyone else the
 * first matching rule decides; when none matches, a caller may still read
 * (Info, List, Watch) namespaces it owns or those of its own processes, as
 * /proc/PID/mountinfo already shows them, and nothing else.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define POLICY_DEFAULT_PATH "/etc/mountd/policy"

typedef enum PolicyNamespace {
	POLICY_NS_UNSET,
	POLICY_NS_OWN,	 /* the caller's own mount namespace */
	POLICY_NS_OWNED, /* one whose user namespace the caller's uid owns */
	POLICY_NS_ANY,
} PolicyNamespace;

/* image=: unset, yes (any image: the admin trusts this user's), signed
 * (only what a trusted key signed: sys-verity.h), no. */
enum {
	POLICY_IMAGE_NO = -1,
	POLICY_IMAGE_UNSET = 0,
	POLICY_IMAGE_YES = 1,
	POLICY_IMAGE_SIGNED = 2,
};

typedef struct PolicyRule {
	bool allow;
	bool has_user, has_group;
	uid_t uid;
	gid_t gid;
	char **methods;	     /* NULL or containing "*": any */
	char **fstypes;	     /* NULL: any */
	PolicyNamespace ns;  /* UNSET: any */
	uint64_t attributes; /* MOUNT_ATTR_* that must be set */
	int image;	     /* image=: POLICY_IMAGE_* */
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

/* What a request wants.  Unknown owners are (uid_t)-1. */
typedef struct PolicyRequest {
	const char *method;  /* unqualified: "Create" */
	bool reads;	     /* the method changes nothing (Info, List, Watch) */
	const char *fstype;  /* Create */
	uint64_t attributes; /* MOUNT_ATTR_* the request sets on a new mount */
	bool image;	     /* Create from an image (a loop device over it) */
	/* Out, when not NULL: the rule that allowed an image said
	 * image=signed. */
	bool *image_signed_only;
	bool ns_is_callers;  /* the target is the caller's own mount namespace */
	uid_t ns_owner;	     /* owner of the target namespace's user namespace */
	uid_t process_owner; /* owner of the process that named it (pid/pidfd) */
} PolicyRequest;

void policy_done(Policy *p);
/* Parse policy text whose method= lists may name the methods in methods
 * (NULL-terminated; the operation table's); on a syntax error returns
 * -EINVAL with a message "NAME:LINE: what is wrong" in *ret_error (to be
 * freed), leaving *p as it was. */
int policy_parse(Policy *p, const char *text, const char *name, char *const *methods,
		 char **ret_error);
/* Load a policy file; a missing file is an empty policy. */
int policy_load(Policy *p, const char *path, char *const *methods, char **ret_error);

/* 0 when allowed, -EPERM when not.  *ret_line is the deciding rule's line
 * (0 for the built-in defaults) and *ret_why a static explanation, for the
 * log and the PermissionDenied error. */
int policy_check(const Policy *p, const PolicyCaller *caller, const PolicyRequest *req,
		 unsigned *ret_line, const char **ret_why);

/* The owner of the user namespace owning mount namespace mntns_fd, or
 * (uid_t)-1. */
uid_t policy_namespace_owner(int mntns_fd);
/* The uid owning process pid (the owner of /proc/PID), or (uid_t)-1. */
uid_t policy_process_owner(pid_t pid);
