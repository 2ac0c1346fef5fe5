// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "authorize.h"
#include "log.h"
#include "ops-internal.h"
#include "ops-table.h"
#include "sys-process.h"
#include "util.h"

Policy auth_policy;
static bool auth_policy_good;
/* Why only root is served: the policy file did not parse at start-up. */
static char *auth_policy_error;

int auth_policy_load(const char *path)
{
	_cleanup_free_ char *err = NULL;
	_cleanup_free_ char **methods = NULL;
	Policy p = {};
	int r;

	r = ops_method_names(&methods);
	if (r < 0)
		return r;
	r = policy_load(&p, path, methods, &err);
	if (r < 0) {
		log_error("policy: %s; %s", err ?: strerror(-r),
			  auth_policy_good ? "keeping the policy loaded before"
					   : "only root is served until it is fixed");
		if (!auth_policy_good) {
			free(auth_policy_error);
			auth_policy_error = strdup(err ?: strerror(-r));
		}
		return r;
	}
	policy_done(&auth_policy);
	auth_policy = p;
	auth_policy_good = true;
	auth_policy_error = mfree(auth_policy_error);
	return 0;
}

/* The uid owning a pidfd's process, or (uid_t)-1. */
static uid_t pidfd_owner(int pidfd)
{
	pid_t pid, again;
	uid_t owner;

	if (pidfd_get_pid(pidfd, &pid) < 0)
		return (uid_t)-1;
	owner = policy_process_owner(pid);
	/* Still alive, so /proc/PID was this process, not a reused pid. */
	if (pidfd_get_pid(pidfd, &again) < 0 || again != pid)
		return (uid_t)-1;
	return owner;
}

/* The namespace a request names (set: the caller's own is handled apart). */
static int namespace_fd(const OpsNamespace *ns)
{
	if (ns->mntns_fd >= 0) {
		int fd = fcntl(ns->mntns_fd, F_DUPFD_CLOEXEC, 3);

		return fd < 0 ? negative_errno() : fd;
	}
	return process_mntns(ns->pid, ns->pidfd);
}

static bool same_inode(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && stat_inode_same(&sa, &sb);
}

int authorize(const AuthCaller *caller, const OpsMethod *m, const OpsNamespace *ns, bool image,
	      const char *fstype, uint64_t attributes, char **ret_reason,
	      bool *ret_image_signed_only)
{
	_cleanup_close_ int target = -EBADF, own = -EBADF;
	PolicyRequest req = {
		.method = m->name,
		.reads = m->reads,
		.fstype = fstype,
		.attributes = attributes,
		.image = image,
		.image_signed_only = ret_image_signed_only,
		.ns_owner = (uid_t)-1,
		.process_owner = (uid_t)-1,
	};
	const char *why = NULL;
	unsigned line = 0;
	int r;

	*ret_reason = NULL;
	if (ret_image_signed_only)
		*ret_image_signed_only = false;
	/* root needs no facts; don't make it pay for them. */
	if (caller->id.uid == 0)
		return 0;

	if (!auth_policy_good) {
		r = asprintf(ret_reason,
			     "the policy file does not parse (%s): only root is served until it "
			     "is fixed and reloaded (systemctl reload mountd)",
			     auth_policy_error ?: "?");
		if (r < 0)
			*ret_reason = NULL;
		return -EPERM;
	}
	/* "Own namespace" is the pinned caller's, never a pid's. */
	if (caller->pidfd < 0)
		return -ESRCH;
	own = process_mntns(caller->pid, caller->pidfd);
	if (own < 0)
		return own;
	if (!ns || !ops_namespace_is_set(ns)) {
		/* The caller's own namespace: no second lookup. */
		req.ns_is_callers = true;
		req.ns_owner = policy_namespace_owner(own);
		req.process_owner = caller->id.uid;
	} else {
		target = namespace_fd(ns);
		if (target < 0)
			/* A namespace that cannot be opened is not the
			 * caller's to name: deny rather than tell which pids
			 * exist. */
			goto deny;
		req.ns_is_callers = same_inode(own, target);
		req.ns_owner = policy_namespace_owner(target);
		if (ns->pidfd >= 0)
			req.process_owner = pidfd_owner(ns->pidfd);
		else if (ns->pid > 0)
			req.process_owner = policy_process_owner(ns->pid);
	}

	r = policy_check(&auth_policy, &caller->id, &req, &line, &why);
	if (r == 0) {
		/* What allowed it, for the audit record. */
		if (line > 0)
			r = asprintf(ret_reason, "policy line %u", line);
		else
			r = asprintf(ret_reason, "%s", why);
		if (r < 0)
			*ret_reason = NULL;
		return 0;
	}
deny:
	if (line > 0)
		r = asprintf(ret_reason, "%s for uid %u (policy line %u)", why ?: "denied",
			     (unsigned)caller->id.uid, line);
	else
		r = asprintf(ret_reason, "%s for uid %u",
			     why ?: "the target namespace cannot be checked",
			     (unsigned)caller->id.uid);
	if (r < 0)
		*ret_reason = NULL;
	/* A deny rule is the administrator's last word; where nothing
	 * allowed it, polkit may still be asked. */
	return line > 0 ? -EPERM : -EACCES;
}
