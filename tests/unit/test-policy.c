// SPDX-License-Identifier: LGPL-2.1-or-later
/* daemon/authorize-policy.c: the file format of mountd.policy(5) and who may do what. */
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ops-table.h"
#include "authorize-policy.h"
#include "tap.h"
#include "util.h"

#define UNKNOWN ((uid_t)-1)

/* The names policy files may use: the operation table's, as mountd's. */
static char **methods;

static void check_parse_error(const char *text, const char *want, const char *name)
{
	_cleanup_free_ char *err = NULL;
	Policy p = {};
	int r = policy_parse(&p, text, "policy", methods, &err);

	ok(r == -EINVAL && err && streq(err, want), name);
	if (err && !streq(err, want))
		printf("# got:  %s\n# want: %s\n", err, want);
	policy_done(&p);
}

/* A caller (uid, gid, member of 4242) asking for method in a namespace. */
typedef struct Ask {
	uid_t uid;
	const char *method;
	const char *fstype;
	uint64_t attributes;
	bool ns_is_callers;
	uid_t ns_owner;
	uid_t process_owner;
} Ask;

static int decide_image_signed(const Policy *p, Ask a, bool image, unsigned *ret_line,
			       bool *ret_signed_only)
{
	gid_t groups[] = {4242};
	PolicyCaller c = {.uid = a.uid, .gid = a.uid, .groups = groups, .n_groups = 1};
	PolicyRequest req = {
		.method = a.method,
		.reads = ops_method_find(a.method) && ops_method_find(a.method)->reads,
		.fstype = a.fstype,
		.attributes = a.attributes,
		.ns_is_callers = a.ns_is_callers,
		.ns_owner = a.ns_owner,
		.process_owner = a.process_owner,
		.image = image,
		.image_signed_only = ret_signed_only,
	};

	return policy_check(p, &c, &req, ret_line, NULL);
}

static int decide_image(const Policy *p, Ask a, bool image, unsigned *ret_line)
{
	return decide_image_signed(p, a, image, ret_line, NULL);
}

static int decide(const Policy *p, Ask a, unsigned *ret_line)
{
	return decide_image(p, a, false, ret_line);
}

int main(void)
{
	_cleanup_free_ char *err = NULL;
	Policy p = {};
	unsigned line = 99;

	if (ops_method_names(&methods) < 0)
		return 1;

	/* No policy: root does anything; others read what is theirs. */
	ok(decide(&p, (Ask){0, "Create", "tmpfs", 0, false, 0, 0}, &line) == 0 && line == 0,
	   "root may create anywhere without a rule");
	ok(decide(&p, (Ask){0, "Unmount", NULL, 0, false, UNKNOWN, UNKNOWN}, NULL) == 0,
	   "root may unmount in a namespace of unknown owner");
	ok(decide(&p, (Ask){1000, "List", NULL, 0, true, 0, 1000}, NULL) == 0,
	   "user lists the namespace of a process of theirs");
	ok(decide(&p, (Ask){1000, "Info", NULL, 0, false, 1000, 0}, NULL) == 0,
	   "user reads a namespace their user namespace owns");
	ok(decide(&p, (Ask){1000, "List", NULL, 0, false, 0, 0}, NULL) == -EPERM,
	   "user may not list root's namespaces");
	ok(decide(&p, (Ask){1000, "Watch", NULL, 0, false, UNKNOWN, UNKNOWN}, NULL) == -EPERM,
	   "user may not watch a namespace of unknown owner");
	ok(decide(&p, (Ask){1000, "Create", "tmpfs", 0, true, 1000, 1000}, NULL) == -EPERM,
	   "without a rule nobody but root changes anything, even in their own namespace");

	ok(policy_parse(&p,
			"# containers get tmpfs in their own user's namespaces\n"
			"\n"
			"allow group=4242 method=Create fstype=tmpfs,overlay namespace=owned "
			"attributes=nosuid,nodev   # trailing comment\n"
			"deny  user=1000 method=Unmount\n"
			"allow user=1000 method=Unmount,Move namespace=own\n"
			"allow user=2000 method=* namespace=any\n"
			"deny  method=*\n",
			"policy", methods, &err) == 0 &&
		   p.n_rules == 5,
	   "parse a valid policy");
	ok(p.n_rules == 5 && p.rules[0].line == 3 && p.rules[4].line == 7,
	   "rules remember their lines");

	ok(decide(&p,
		  (Ask){1000, "Create", "tmpfs", MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, false, 1000,
			UNKNOWN},
		  &line) == 0 &&
		   line == 3,
	   "group rule allows nosuid,nodev tmpfs in an owned namespace");
	ok(decide(&p, (Ask){1000, "Create", "tmpfs", MOUNT_ATTR_NOSUID, false, 1000, UNKNOWN},
		  &line) == -EPERM &&
		   line == 7,
	   "attributes= must all be set, else the catch-all deny decides");
	ok(decide(&p,
		  (Ask){1000, "Create", "ext4", MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, false, 1000,
			UNKNOWN},
		  NULL) == -EPERM,
	   "fstype= limits the filesystem");
	ok(decide(&p,
		  (Ask){1000, "Create", "tmpfs", MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true, 0,
			1000},
		  NULL) == -EPERM,
	   "namespace=owned does not reach the host's namespace, even the caller's own");
	ok(decide(&p, (Ask){1000, "Unmount", NULL, 0, true, 0, 1000}, &line) == -EPERM && line == 4,
	   "the first matching rule decides: deny before allow");
	ok(decide(&p, (Ask){1000, "Move", NULL, 0, true, 0, 1000}, &line) == 0 && line == 5,
	   "namespace=own: the caller's own namespace");
	ok(decide(&p, (Ask){1000, "Move", NULL, 0, false, 1000, 1000}, NULL) == -EPERM,
	   "namespace=own: not another namespace, even an owned one");
	ok(decide(&p, (Ask){2000, "Bind", NULL, 0, false, 0, 0}, &line) == 0 && line == 6,
	   "namespace=any with method=*");
	ok(decide(&p, (Ask){3000, "List", NULL, 0, true, 0, 3000}, &line) == -EPERM && line == 7,
	   "a deny rule overrides the built-in read default");
	ok(decide(&p, (Ask){0, "Create", "ext4", 0, false, 0, 0}, NULL) == 0,
	   "rules do not apply to root");
	policy_done(&p);

	/* Every method of the table, and only those, may be named. */
	for (const OpsMethod *m = ops_methods; m->name; m++) {
		_cleanup_free_ char *text = NULL;
		Policy q = {};

		ok(asprintf(&text, "allow user=7 method=%s\n", m->name) > 0 &&
			   policy_parse(&q, text, "policy", methods, NULL) == 0 && q.n_rules == 1,
		   "method=%s parses", m->name);
		policy_done(&q);
	}
	check_parse_error("allow user=0\nallow method=Fly\n",
			  "policy:2: unknown method: 'method=Fly'",
			  "unknown method names its line");
	check_parse_error("\n\npermit user=1\n", "policy:3: expected allow or deny: 'permit'",
			  "verdict is allow or deny");
	check_parse_error("allow user\n", "policy:1: expected KEY=VALUE: 'user'", "bare word");
	check_parse_error("allow user=\n", "policy:1: expected KEY=VALUE: 'user='", "empty value");
	check_parse_error("allow user=no-such-user-here\n",
			  "policy:1: no such user or group: 'user=no-such-user-here'",
			  "unknown user name");
	check_parse_error("allow namespace=all\n",
			  "policy:1: namespace must be own, owned or any: 'namespace=all'",
			  "bad namespace value");
	check_parse_error("allow fstype=tmpfs,,ext4\n",
			  "policy:1: bad fstype list: 'fstype=tmpfs,,ext4'", "empty list item");
	check_parse_error("allow user=1 user=2\n", "policy:1: condition given twice: 'user=2'",
			  "a condition twice");
	check_parse_error("allow attributes=nosuid,fast\n",
			  "policy:1: unknown attribute: 'attributes=nosuid,fast'",
			  "unknown attribute");
	check_parse_error("allow path=/srv\n", "policy:1: unknown condition: 'path=/srv'",
			  "unknown condition");

	/* A failed parse leaves the previous policy in force. */
	ok(policy_parse(&p, "allow user=7 method=List\n", "policy", methods, NULL) == 0,
	   "parse one rule");
	ok(policy_parse(&p, "allow user=7 nonsense\n", "policy", methods, NULL) == -EINVAL &&
		   p.n_rules == 1 && p.rules[0].uid == 7,
	   "a bad file does not replace a good policy");
	policy_done(&p);

	ok(policy_load(&p, "/nonexistent/mountd-policy", methods, &err) == 0 && p.n_rules == 0,
	   "a missing file is an empty policy");
	ok(policy_process_owner(getpid()) == getuid(), "owner of our own process");
	ok(policy_process_owner(0) == UNKNOWN, "no owner for pid 0");
	{
		_cleanup_close_ int ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
		_cleanup_close_ int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		/* make check runs this as root in the initial user namespace,
		 * which uid 0 owns. */
		ok(ns >= 0 && policy_namespace_owner(ns) == 0,
		   "our mount namespace belongs to the initial user namespace");
		ok(null >= 0 && policy_namespace_owner(null) == UNKNOWN,
		   "a non-namespace fd has no owner");
	}

	/* Images: only a rule that names them lets one in. */
	{
		Policy q = {};
		_cleanup_free_ char *e = NULL;
		unsigned l = 0;
		Ask a = {1000, "Create", "ext4", 0, false, 1000, 1000};
		int r;
		ok(policy_parse(&q, "allow user=1000 method=Create namespace=owned\n", "policy",
				methods, &e) == 0 &&
			   decide_image(&q, a, false, NULL) == 0 &&
			   decide_image(&q, a, true, NULL) == -EPERM,
		   "a broad rule lets a filesystem in, but not an image");
		policy_done(&q);
		ok(policy_parse(&q,
				"allow user=1000 method=Create namespace=owned image=yes\n"
				"allow user=1000 method=Create namespace=owned image=no\n",
				"policy", methods, &e) == 0 &&
			   decide_image(&q, a, true, &l) == 0 && l == 1 &&
			   decide_image(&q, a, false, &l) == 0 && l == 2,
		   "image=yes matches images only, image=no everything else");
		policy_done(&q);
		ok(policy_parse(&q, "deny user=1000 method=Create\nallow image=yes\n", "policy",
				methods, &e) == 0 &&
			   decide_image(&q, a, true, &l) == -EPERM && l == 1,
		   "a deny rule without image= still refuses images");
		policy_done(&q);
		r = policy_parse(&q, "allow image=maybe\n", "policy", methods, &e);
		ok(r == -EINVAL && e && strstr(e, "image must be yes, signed or no"),
		   "image= takes yes, signed or no: %s", strna(e));
		policy_done(&q);
		{
			bool signed_only = false;

			ok(policy_parse(&q,
					"allow user=1000 method=Create image=signed\n"
					"allow user=1001 method=Create image=yes\n",
					"policy", methods, &e) == 0 &&
				   decide_image_signed(&q, a, true, &l, &signed_only) == 0 &&
				   l == 1 && signed_only,
			   "image=signed allows an image, held to signed ones");
			a.uid = 1001;
			ok(decide_image_signed(&q, a, true, &l, &signed_only) == 0 && l == 2 &&
				   !signed_only,
			   "  image=yes allows any image");
			a.uid = 1000;
			ok(decide_image(&q, a, false, NULL) == -EPERM,
			   "  image=signed matches images only");
			policy_done(&q);
		}
	}
	/* The policy mountd ships (units/mountd-policy): FUSE as fusermount3
	 * gives it, in one's own namespace, and nothing else. */
	{
		Policy q = {};
		_cleanup_free_ char *e = NULL;
		unsigned l = 0;

		ok(policy_load(&q, "units/mountd-policy", methods, &e) == 0 && q.n_rules == 2,
		   "the shipped policy parses: %s", strna(e));
		ok(decide(&q, (Ask){1000, "Create", "fuse", 0, true, 0, 1000}, &l) == 0 && l > 0,
		   "  a user may mount FUSE in its own namespace");
		ok(decide(&q, (Ask){1000, "Unmount", "fuse", 0, true, 0, 1000}, &l) == 0 && l > 0,
		   "  and unmount a FUSE mount there (fsType fuse: the worker holds it to that)");
		ok(decide(&q, (Ask){1000, "Unmount", NULL, 0, true, 0, 1000}, NULL) == -EPERM,
		   "  but not unmount without naming the type");
		ok(decide(&q, (Ask){1000, "Create", "tmpfs", 0, true, 0, 1000}, NULL) == -EPERM,
		   "  nor mount anything else");
		ok(decide(&q, (Ask){1000, "Create", "fuse", 0, false, 1000, 1000}, &l) == 0 &&
			   l > 0,
		   "  FUSE in its own rootless container");
		ok(decide(&q, (Ask){1000, "Create", "fuse", 0, false, 0, 0}, NULL) == -EPERM,
		   "  but not in a namespace of someone else's");
		ok(decide(&q, (Ask){1000, "Create", "fuseblk", 0, true, 0, 1000}, NULL) == -EPERM,
		   "  nor fuseblk (a block device: fusermount3's blkdev is root's)");
		policy_done(&q);
	}
	return tap_done();
}
