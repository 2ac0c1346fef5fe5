// SPDX-License-Identifier: LGPL-2.1-or-later
/* daemon/policy.c: the file format and who may do what. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "policy.h"
#include "util.h"

static unsigned n_tests, n_failed;

static void check(bool ok, const char *name)
{
	n_tests++;
	if (!ok)
		n_failed++;
	printf("%sok %u - %s\n", ok ? "" : "not ", n_tests, name);
}

static void check_parse_error(const char *text, const char *want, const char *name)
{
	_cleanup_free_ char *err = NULL;
	Policy p = {};
	int r = policy_parse(&p, text, "policy", &err);

	check(r == -EINVAL && err && strcmp(err, want) == 0, name);
	if (err && strcmp(err, want) != 0)
		printf("# got: %s\n# want: %s\n", err, want);
	policy_done(&p);
}

/* owner: of the namespace's user namespace; the process is someone else's. */
static int decide(const Policy *p, uid_t uid, gid_t gid, PolicyAction action, const char *fstype,
		  uid_t owner)
{
	gid_t groups[] = { 4242 };
	PolicyCaller c = { .uid = uid, .gid = gid, .groups = groups, .n_groups = 1 };
	PolicyRequest req = {
		.action = action, .fstype = fstype, .ns_owner = owner, .process_owner = 31337
	};

	return policy_check(p, &c, &req, NULL);
}

int main(void)
{
	_cleanup_free_ char *err = NULL;
	Policy p = {};
	const uid_t unknown = (uid_t)-1;

	/* Methods map onto the three actions, qualified or not. */
	check(policy_action_from_method("io.mountd.Mount.Create") == POLICY_MOUNT, "Create is mount");
	check(policy_action_from_method("Unmount") == POLICY_CHANGE, "Unmount is change");
	check(policy_action_from_method("io.mountd.Mount.Info") == POLICY_READ, "Info is read");
	check(policy_action_from_method("io.mountd.Mount.Nope") == -ENOENT, "unknown method");

	/* An empty policy: root does anything, others only read their own. */
	check(decide(&p, 0, 0, POLICY_MOUNT, "tmpfs", 1000) == 0, "root may mount");
	check(decide(&p, 0, 0, POLICY_CHANGE, NULL, unknown) == 0, "root may change anywhere");
	check(decide(&p, 1000, 1000, POLICY_READ, NULL, 1000) == 0, "user reads own namespace");
	check(decide(&p, 1000, 1000, POLICY_READ, NULL, 0) == -EPERM,
	      "user may not read root's namespace");
	check(decide(&p, 1000, 1000, POLICY_READ, NULL, unknown) == -EPERM,
	      "user may not read a namespace of unknown owner");
	check(decide(&p, 1000, 1000, POLICY_MOUNT, "tmpfs", 1000) == -EPERM,
	      "user may not mount without a rule, even in own namespace");
	{
		PolicyCaller c = { .uid = 1000, .gid = 1000 };
		PolicyRequest own_process = { .action = POLICY_READ, .ns_owner = 0,
					      .process_owner = 1000 };
		PolicyRequest mount_own_process = { .action = POLICY_MOUNT, .fstype = "tmpfs",
						    .ns_owner = 0, .process_owner = 1000 };

		check(policy_check(&p, &c, &own_process, NULL) == 0,
		      "user reads the namespace of a process of theirs");
		check(policy_check(&p, &c, &mount_own_process, NULL) == -EPERM,
		      "owning the process does not make the host namespace the user's");
	}

	check(policy_parse(&p,
			   "# comment\n"
			   "\n"
			   "allow user:1000 read,mount fstypes=tmpfs,overlay   # trailing comment\n"
			   "allow group:4242 change\n"
			   "allow user:2000 mount,change namespaces=any\n",
			   "policy", &err) == 0 &&
		      p.n_rules == 3,
	      "parse a valid policy");
	check(p.n_rules == 3 && p.rules[0].line == 3 && p.rules[2].line == 5,
	      "rules remember their lines");
	check(decide(&p, 1000, 1000, POLICY_MOUNT, "tmpfs", 1000) == 0,
	      "rule allows tmpfs in own namespace");
	check(decide(&p, 1000, 1000, POLICY_MOUNT, "ext4", 1000) == -EPERM,
	      "fstypes= limits the filesystem");
	check(decide(&p, 1000, 1000, POLICY_MOUNT, "tmpfs", 0) == -EPERM,
	      "own-namespace rule does not reach root's namespace");
	check(decide(&p, 1000, 1000, POLICY_MOUNT, "tmpfs", unknown) == -EPERM,
	      "own-namespace rule does not reach a namespace of unknown owner");
	check(decide(&p, 1000, 1000, POLICY_CHANGE, NULL, 1000) == 0,
	      "group rule via supplementary group");
	check(decide(&p, 1001, 1001, POLICY_CHANGE, NULL, 1001) == 0,
	      "group rule applies to every member");
	check(decide(&p, 1001, 1001, POLICY_MOUNT, "tmpfs", 1001) == -EPERM,
	      "group rule grants only its actions");
	check(decide(&p, 2000, 2000, POLICY_MOUNT, "ext4", 0) == 0,
	      "namespaces=any reaches other users' namespaces");
	check(decide(&p, 2000, 2000, POLICY_READ, NULL, 0) == -EPERM,
	      "a rule without read does not grant read");
	policy_done(&p);

	check_parse_error("allow user:1000 read\nallow user:1000 fly\n",
			  "policy:2: cannot parse 'fly'", "unknown action names its line");
	check_parse_error("\n\ndeny user:1 read\n", "policy:3: cannot parse 'deny'",
			  "only allow rules exist");
	check_parse_error("allow user:1000\n",
			  "policy:1: expected 'allow user:NAME|group:NAME ACTIONS'",
			  "missing actions");
	check_parse_error("allow someone read\n", "policy:1: cannot parse 'someone'",
			  "subject needs user: or group:");
	check_parse_error("allow user:no-such-user-here read\n",
			  "policy:1: no such user or group 'user:no-such-user-here'",
			  "unknown user name");
	check_parse_error("allow user:1 read namespaces=all\n",
			  "policy:1: cannot parse 'namespaces=all'", "bad namespaces= value");
	check_parse_error("allow user:1 read fstypes=\n", "policy:1: cannot parse 'fstypes='",
			  "empty fstypes");
	check_parse_error("allow user:1 read fstypes=a fstypes=b\n",
			  "policy:1: cannot parse 'fstypes=b'", "fstypes twice");

	/* A failed parse leaves the previous policy in force. */
	check(policy_parse(&p, "allow user:7 read\n", "policy", NULL) == 0, "parse one rule");
	check(policy_parse(&p, "allow user:7 nonsense\n", "policy", NULL) == -EINVAL &&
		      p.n_rules == 1 && p.rules[0].id == 7,
	      "a bad file does not replace a good policy");
	policy_done(&p);

	check(policy_load(&p, "/nonexistent/mountd-policy", &err) == 0 && p.n_rules == 0,
	      "a missing file is an empty policy");
	check(policy_process_owner(getpid()) == getuid(), "owner of our own process");
	check(policy_process_owner(0) == unknown, "no owner for pid 0");
	{
		_cleanup_close_ int ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);

		/* Run by root on the host or in the guest: the initial user
		 * namespace, owned by uid 0. */
		check(ns >= 0 && policy_namespace_owner(ns) == 0,
		      "our mount namespace belongs to the initial user namespace");
		_cleanup_close_ int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		check(null >= 0 && policy_namespace_owner(null) == unknown,
		      "a non-namespace fd has no owner");
	}

	printf("1..%u\n", n_tests);
	return n_failed ? 1 : 0;
}
