# tests/unit/build.mk — host tests, run by `make check-host` in this order.
# One block per test: append it to UNIT_TESTS; a program in C
# ($(B)/tests/unit/NAME, from tests/unit/NAME.c) also names the objects it
# links besides its own as its prerequisites, and the Makefile's one rule
# for test programs links it.

# ---- mountd

# mountd: request validation, JSON → fsconfig parameters, worker fd passing,
# fs_context message draining (inside a private mount namespace it creates)
UNIT_TESTS += $(B)/tests/unit/test-mountd-ops
$(B)/tests/unit/test-mountd-ops: $(MOUNTD_OPS_OBJS) $(MOUNTD_AUTH_OBJS) $(VARLINK_OBJS)

# the operation table against daemon/io.mountd.Mount.varlink, field by field
UNIT_TESTS += $(B)/tests/unit/test-ops-table
$(B)/tests/unit/test-ops-table: $(MOUNTD_OPS_OBJS) $(MOUNTD_AUTH_OBJS) $(VARLINK_OBJS)

# io.mountd1(5) against the operation table: every method, option key and
# reply field, with its D-Bus type
UNIT_TESTS += $(B)/tests/unit/test-dbus-doc
$(B)/tests/unit/test-dbus-doc: $(MOUNTD_OPS_OBJS) $(MOUNTD_AUTH_OBJS) $(VARLINK_OBJS)

# the executor: worker reuse, per-uid limits, deadlines, crashes, owners, memfd
UNIT_TESTS += $(B)/tests/unit/test-executor
$(B)/tests/unit/test-executor: $(B)/daemon/executor.o $(B)/daemon/executor-message.o \
	$(B)/daemon/executor-reap.o $(MOUNTD_OPS_OBJS) $(VARLINK_OBJS)

# the per-uid call rate: bursts, refill, uids apart, what refusals leave
# for the journal, a full table
UNIT_TESTS += $(B)/tests/unit/test-ratelimit
$(B)/tests/unit/test-ratelimit: $(B)/daemon/request-ratelimit.o $(B)/daemon/request-audit.o \
		$(B)/daemon/request-journal.o $(B)/daemon/request-escape.o

# who answers for a process: subuids, root's containers, nesting, gone
UNIT_TESTS += $(B)/tests/unit/test-principal
$(B)/tests/unit/test-principal: $(B)/shared/principal.o

# a user's subordinate ids (shared/subid.c): /etc/subuid lines, user
# namespace maps, whether a map's ids are all the user's
UNIT_TESTS += $(B)/tests/unit/test-subid
$(B)/tests/unit/test-subid: $(B)/shared/subid.o

# what a non-root caller may mount over and idmap with (executor-rights.c):
# kinds of files, filesystems, mountd's socket, user namespaces' maps
UNIT_TESTS += $(B)/tests/unit/test-rights-checks
$(B)/tests/unit/test-rights-checks: $(MOUNTD_OPS_OBJS) $(MOUNTD_AUTH_OBJS) $(VARLINK_OBJS)

# fds beside a message (shared/scm-rights.h): the same files, appended,
# what a truncated control message leaves open
UNIT_TESTS += $(B)/tests/unit/test-scm-rights
$(B)/tests/unit/test-scm-rights:

# warnings about peers: per uid, in all, root's, the line counting the rest
UNIT_TESTS += $(B)/tests/unit/test-peerlog
$(B)/tests/unit/test-peerlog: $(B)/daemon/request-peerlog.o $(B)/daemon/request-ratelimit.o \
		$(B)/daemon/request-audit.o $(B)/daemon/request-journal.o $(B)/daemon/request-escape.o

# daemon/request-journal.c and the audit queue: the native format, a journal that
# reads nothing (no call waits, a bounded backlog, the rest counted), shutdown;
# a record of a caller's forged and oversized input, each user's byte budget
UNIT_TESTS += $(B)/tests/unit/test-journal
$(B)/tests/unit/test-journal: $(B)/daemon/request-audit.o $(B)/daemon/request-journal.o \
		$(B)/daemon/request-ratelimit.o $(B)/daemon/request-escape.o

# daemon/request-escape.c: control characters, invalid UTF-8, invisible
# formatting, the bound and its marker
UNIT_TESTS += $(B)/tests/unit/test-escape
$(B)/tests/unit/test-escape: $(B)/daemon/request-escape.o

# shared/fs-probe.c: a file's filesystem type, and why there is none
UNIT_TESTS += $(B)/tests/unit/test-fs-probe
$(B)/tests/unit/test-fs-probe: $(B)/shared/fs-probe.o

# daemon/ops-fs-params.c: the parameter kinds; and, in the kernel's stage
# (it reads the series' tree), the table against its parameter specs
UNIT_TESTS += $(B)/tests/unit/test-fs-params
KERNEL_TESTS += tests/unit/test-fs-params.sh
$(B)/tests/unit/test-fs-params: $(B)/daemon/ops-fs-params.o
tests/unit/test-fs-params.sh: $(B)/tests/unit/test-fs-params

# daemon/executor-caps.c: the capability sets mountd keeps, from a root with all of them
UNIT_TESTS += $(B)/tests/unit/test-caps
$(B)/tests/unit/test-caps: $(B)/daemon/executor-caps.o

# ---- libmountd-client and mountctl

# the varlink client library against a scripted peer
UNIT_TESTS += $(B)/tests/unit/test-libmountd-client
$(B)/tests/unit/test-libmountd-client: $(B)/libmountd-client.a

# mountctl's output, option splitting and apply parser on canned replies
UNIT_TESTS += tests/unit/test-mountctl-golden.sh

# every command and option of mountctl's tables in --help and mountctl(1)
UNIT_TESTS += tests/unit/test-mountctl-help.sh

# mountctl against a real mountd, both inside a private mount namespace
UNIT_TESTS += tests/unit/test-mountctl-live.sh

# --container's lookup: crun/runc state and a program on PATH, real processes
UNIT_TESTS += $(B)/tests/unit/test-container
$(B)/tests/unit/test-container: $(B)/libmountd-client.a

# mountd-oci-hook against a real mountd and a runtime's pre-pivot_root
# namespace, both inside a private mount namespace
UNIT_TESTS += tests/unit/test-oci-hook.sh

# mountd_client_list()'s reader against json-c's reading of the same replies
UNIT_TESTS += $(B)/tests/unit/test-libmountd-list
$(B)/tests/unit/test-libmountd-list: $(B)/libmountd-client.a

# fusermount3's -o list as libfuse's fusermount3 reads it, and the Create
# and Unmount requests it becomes
UNIT_TESTS += $(B)/tests/unit/test-fusermount3-options
$(B)/tests/unit/test-fusermount3-options: $(B)/client/fusermount3-options.o

# ---- mountd's container image and manifests

# container/oci-build: the bundle's contents and its cache key
UNIT_TESTS += tests/unit/test-oci-build.sh
tests/unit/test-oci-build.sh: $(B)/mountd

# container/config.json, the DaemonSet, mountd.service and docs/CONTAINER.md
# agree on every privilege; the DaemonSet fits the Kubernetes API types
UNIT_TESTS += tests/unit/test-container-manifests.py

# ---- the kernel's uapi and patches

# <linux/fsinfo.h>: every struct the same size for i386 and x86_64 callers.
# The test reads the uapi headers userspace compiles against (check-host
# hands it their directory).
UNIT_TESTS += tests/unit/test-fsinfo-abi.sh
tests/unit/test-fsinfo-abi.sh: $(USER_UAPI_STAMP)

# The kernel's stage (check-kernel): the kselftest reports a skip (exit 4)
# on this host's kernel, which has no fsinfo(); it is built for the guest in
# kernel/build.mk.
KERNEL_TESTS += tests/unit/test-fsinfo-selftest-skip.sh
tests/unit/test-fsinfo-selftest-skip.sh: $(B)/kernel/fsinfo_test

# kernel/patches: checkpatch --strict clean, patch by patch.
KERNEL_TESTS += tests/unit/test-kernel-checkpatch.sh

# ---- the build and test pipeline itself

# make check on a machine without linux-source: nothing computed before the
# install reaches the build (the cause of a stale MOUNTD_UAPI once).
UNIT_TESTS += tests/unit/test-make-entry.sh

UNIT_TESTS += tests/unit/test-tap-summary.sh

# ---- daemon/authorize-policy.c, with the operation table's method names and facts

UNIT_TESTS += $(B)/tests/unit/test-policy
$(B)/tests/unit/test-policy: $(MOUNTD_OPS_OBJS) $(MOUNTD_AUTH_OBJS) $(VARLINK_OBJS)

# daemon/sys-mnt-lock.c: a tree copied across a user namespace boundary,
# judged by what the kernel then refuses (flags, mounts below the top)
UNIT_TESTS += $(B)/tests/unit/test-mnt-lock
$(B)/tests/unit/test-mnt-lock: $(MOUNTD_OPS_OBJS) $(MOUNTD_AUTH_OBJS) $(VARLINK_OBJS)
