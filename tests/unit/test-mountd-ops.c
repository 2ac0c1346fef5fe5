/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Host tests of mountd's request checking and request building (no mounts):
 * fsconfig parameter shapes and limits, keys, attributes, placements,
 * namespaces, the JSON → MntParam conversion and base64; plus the worker's
 * fd passing and the mount layer's message draining, run inside a private
 * mount namespace this test creates (never the host's own mount table).
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "sys-mnt.h"
#include "ops-internal.h"
#include "ops.h"
#include "util.h"
#include "base64.h"
#include "executor-nonblocking.h"
#include "ops-table.h"
#include "executor-rights.h"
#include "executor-worker.h"

/* The adapter's IDL symbol, linked from the generated object in the daemon;
 * the test links front-varlink.o, so provide the text it refers to. */
const char io_mountd_mount_idl[] = "interface io.mountd.Mount\n";

static MntParam param(MntParamType t, const char *key, const char *value, int fd)
{
	return (MntParam){.type = t, .key = (char *)key, .value = (char *)value, .fd = fd};
}

static void test_keys(void)
{
	char k255[256], k256[257];

	memset(k255, 'k', 255);
	k255[255] = 0;
	memset(k256, 'k', 256);
	k256[256] = 0;
	ok(ops_key_validate("size") == 0, "plain key accepted");
	ok(ops_key_validate(k255) == 0, "255-byte key accepted (kernel copies 256 with NUL)");
	ok(ops_key_validate(k256) == -ERANGE, "256-byte key refused with ERANGE");
	ok(ops_key_validate("") == -EINVAL, "empty key refused");
	ok(ops_key_validate("a=b") == -EINVAL, "key with = refused");
	ok(ops_key_validate("a,b") == -EINVAL, "key with , refused");
	ok(ops_key_validate(NULL) == -EINVAL, "missing key refused");
}

static void test_param_shapes(void)
{
	const char *field = NULL;
	char v256[257];
	uint8_t blob[4] = {1, 2, 3, 4};
	MntParam p[2];

	memset(v256, 'v', 256);
	v256[256] = 0;

	p[0] = param(MNT_PARAM_FLAG, "ro", NULL, -EBADF);
	ok(ops_params_validate(p, 1, &field) == 0, "flag without value accepted");
	p[0] = param(MNT_PARAM_FLAG, "ro", "x", -EBADF);
	ok(ops_params_validate(p, 1, &field) == -EINVAL && streq(field, "parameters[0].value"),
	   "flag with value refused, naming the field (%s)", field);
	p[0] = param(MNT_PARAM_FLAG, "ro", NULL, 0);
	ok(ops_params_validate(p, 1, &field) == -EINVAL && streq(field, "parameters[0].fd"),
	   "flag with fd refused");

	p[0] = param(MNT_PARAM_FLAG, "ro", NULL, -EBADF);
	p[1] = param(MNT_PARAM_STRING, "size", NULL, -EBADF);
	ok(ops_params_validate(p, 2, &field) == -EINVAL && streq(field, "parameters[1].value"),
	   "string without value refused at index 1");
	p[1] = param(MNT_PARAM_STRING, "size", v256, -EBADF);
	ok(ops_params_validate(p, 2, &field) == -ERANGE && streq(field, "parameters[1].value"),
	   "string value over 255 bytes refused");
	v256[255] = 0;
	ok(ops_params_validate(p, 2, &field) == 0, "string value of 255 bytes accepted");

	p[0] = param(MNT_PARAM_BINARY, "key", NULL, -EBADF);
	ok(ops_params_validate(p, 1, &field) == -EINVAL, "binary without blob refused");
	p[0].blob = blob;
	p[0].blob_size = sizeof(blob);
	ok(ops_params_validate(p, 1, &field) == 0, "binary with blob accepted");
	p[0].blob_size = MNT_BINARY_MAX + 1;
	ok(ops_params_validate(p, 1, &field) == -ERANGE, "binary over 1 MiB refused");

	p[0] = param(MNT_PARAM_PATH, "source", "rel/path", -EBADF);
	ok(ops_params_validate(p, 1, &field) == -EINVAL && streq(field, "parameters[0].fd"),
	   "relative path without dirfd refused (never relative to the daemon)");
	p[0] = param(MNT_PARAM_PATH, "source", "/abs", -EBADF);
	ok(ops_params_validate(p, 1, &field) == 0, "absolute path accepted");
	p[0] = param(MNT_PARAM_PATH, "source", "", -EBADF);
	ok(ops_params_validate(p, 1, &field) == -EINVAL, "empty path refused for path type");

	p[0] = param(MNT_PARAM_PATH_EMPTY, "source", NULL, -EBADF);
	ok(ops_params_validate(p, 1, &field) == -EINVAL && streq(field, "parameters[0].fd"),
	   "path_empty without fd refused");
	p[0] = param(MNT_PARAM_PATH_EMPTY, "source", NULL, 0);
	ok(ops_params_validate(p, 1, &field) == 0, "path_empty with fd accepted");

	p[0] = param(MNT_PARAM_FD, "source", NULL, -EBADF);
	ok(ops_params_validate(p, 1, &field) == -EINVAL && streq(field, "parameters[0].fd"),
	   "fd type without fd refused");
	p[0] = param(MNT_PARAM_FD, "source", "x", 0);
	ok(ops_params_validate(p, 1, &field) == -EINVAL && streq(field, "parameters[0].value"),
	   "fd type with value refused");

	p[0] = param(MNT_PARAM_FLAG, "a=b", NULL, -EBADF);
	ok(ops_params_validate(p, 1, &field) == -EINVAL && streq(field, "parameters[0].key"),
	   "bad key inside a list is named");
}

static void test_param_limits(void)
{
	static MntParam many[OPS_PARAMS_MAX + 1];
	static char big[MNT_STRING_MAX + 1];
	const char *field = NULL;

	for (size_t i = 0; i < ELEMENTSOF(many); i++)
		many[i] = param(MNT_PARAM_FLAG, "k", NULL, -EBADF);
	ok(ops_params_validate(many, OPS_PARAMS_MAX, &field) == 0, "%u parameters accepted",
	   OPS_PARAMS_MAX);
	ok(ops_params_validate(many, OPS_PARAMS_MAX + 1, &field) == -E2BIG &&
		   streq(field, "parameters"),
	   "%u parameters refused", OPS_PARAMS_MAX + 1);

	/* Total size: 256 binary blobs of 1 MiB each exceed the cap. */
	static uint8_t mib[MNT_BINARY_MAX];
	for (size_t i = 0; i < OPS_PARAMS_MAX; i++) {
		many[i] = param(MNT_PARAM_BINARY, "k", NULL, -EBADF);
		many[i].blob = mib;
		many[i].blob_size = sizeof(mib);
	}
	ok(ops_params_validate(many, OPS_PARAMS_MAX, &field) == -E2BIG, "total size cap enforced");
	memset(big, 'x', MNT_STRING_MAX);
}

static void test_create_validate(void)
{
	OpsCreateRequest r = {
		.image.fd = -EBADF, .image.hash_fd = -EBADF, .place.ns = OPS_NAMESPACE_NULL};
	const char *field = NULL;

	r.fstype = (char *)"tmpfs";
	ok(ops_create_validate(&r, &field) == 0, "minimal create valid");
	r.fstype = (char *)"tmp fs";
	ok(ops_create_validate(&r, &field) == -EINVAL && streq(field, "fsType"),
	   "fs type with a space refused");
	r.fstype = NULL;
	ok(ops_create_validate(&r, &field) == -EINVAL && streq(field, "fsType"),
	   "no fs type without image refused");
	r.fstype = (char *)"fuse.sshfs";
	ok(ops_create_validate(&r, &field) == 0, "subtype style fs type accepted");

	r.attr.set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOATIME;
	ok(ops_create_validate(&r, &field) == 0, "ro,noatime accepted");
	r.attr.set = MOUNT_ATTR_NOATIME | MOUNT_ATTR_STRICTATIME;
	ok(ops_create_validate(&r, &field) == -EINVAL, "two atime modes refused");
	r.attr.set = MOUNT_ATTR_IDMAP;
	ok(ops_create_validate(&r, &field) == -EINVAL && streq(field, "attributes"),
	   "idmap bit through attributes refused");
	r.attr.set = 0;
	r.attr.clear = MOUNT_ATTR_NOSUID;
	ok(ops_create_validate(&r, &field) == -EINVAL, "clearing attributes on create refused");
	r.attr.clear = 0;

	r.place.beneath = true;
	ok(ops_create_validate(&r, &field) == -EINVAL && streq(field, "placement.path"),
	   "beneath without a path refused");
	r.place.path = (char *)"/mnt";
	r.place.create = MNT_CREATE_DIRECTORY;
	ok(ops_create_validate(&r, &field) == -EINVAL && streq(field, "placement.create"),
	   "beneath together with create refused");
	r.place.beneath = false;
	ok(ops_create_validate(&r, &field) == 0, "placement with create accepted");
	r.place.ns.pid = 1;
	r.place.ns.mntns_fd = 0;
	ok(ops_create_validate(&r, &field) == -EINVAL && streq(field, "placement.namespace"),
	   "two names for the namespace refused");
	r.place.ns = OPS_NAMESPACE_NULL;

	MntParam p = param(MNT_PARAM_STRING, "source", "x", -EBADF);
	r.params = &p;
	r.n_params = 1;
	ok(ops_create_validate(&r, &field) == -EINVAL && streq(field, "parameters[0].key"),
	   "source as a parameter refused: the field is its one way in, checked as a source");
	r.source = (char *)"y";
	ok(ops_create_validate(&r, &field) == -EINVAL && streq(field, "parameters[0].key"),
	   "source twice (field and parameter) refused");
	r.source = NULL;
	r.params = NULL;
	r.n_params = 0;

	r.image.partition = 2;
	ok(ops_create_validate(&r, &field) == -EINVAL && streq(field, "image.fd"),
	   "partition without image refused");
	r.image.partition = 0;
	r.image.fd = 0;
	r.image.partition_type = (char *)"not-a-uuid";
	ok(ops_create_validate(&r, &field) == -EINVAL && streq(field, "image.partitionType"),
	   "malformed GPT type refused");
	r.image.partition_type = (char *)"0fc63daf-8483-4772-8e79-3d69d8477de4";
	ok(ops_create_validate(&r, &field) == 0, "GPT type UUID accepted");
}

static void test_other_validate(void)
{
	const char *field = NULL;
	OpsSetattrRequest s = {.ns = OPS_NAMESPACE_NULL, .path = (char *)"/", .userns_fd = -EBADF};
	OpsMoveRequest m = {.ns = OPS_NAMESPACE_NULL, .from = (char *)"/a", .to = (char *)""};
	OpsUnmountRequest u = {.ns = OPS_NAMESPACE_NULL};
	OpsInfoRequest i = {.ns = OPS_NAMESPACE_NULL, .path = (char *)"/"};
	OpsBindRequest b = {.source_ns = OPS_NAMESPACE_NULL,
			    .source_fd = -EBADF,
			    .userns_fd = -EBADF,
			    .place.ns = OPS_NAMESPACE_NULL};

	ok(ops_setattr_validate(&s, &field) == -EINVAL && streq(field, "attributes"),
	   "setattr with nothing to change refused");
	s.attr.clear = MOUNT_ATTR_NOEXEC;
	ok(ops_setattr_validate(&s, &field) == 0, "setattr clearing noexec accepted");
	s.attr.set = MOUNT_ATTR_NOEXEC;
	ok(ops_setattr_validate(&s, &field) == -EINVAL, "setting and clearing one bit refused");

	ok(ops_move_validate(&m, &field) == -EINVAL && streq(field, "to"),
	   "empty move target refused");
	ok(ops_unmount_validate(&u, &field) == -EINVAL && streq(field, "path"),
	   "unmount without path refused");

	ok(ops_info_validate(&i, &field) == 0, "info default attribute accepted");
	i.attribute = (char *)"server_address";
	ok(ops_info_validate(&i, &field) == 0, "info server_address accepted");
	i.attribute = (char *)"nope";
	ok(ops_info_validate(&i, &field) == -EINVAL && streq(field, "attribute"),
	   "unknown info attribute refused");
	ok(ops_info_attribute_from_string("io_size") == 19,
	   "attribute numbers follow the fsinfo ABI");

	ok(ops_bind_validate(&b, &field) == -EINVAL && streq(field, "sourcePath"),
	   "bind without a source refused");
	b.source_path = (char *)"/src";
	b.source_fd = 0;
	ok(ops_bind_validate(&b, &field) == -EINVAL && streq(field, "sourceFd"),
	   "bind with path and fd refused");
	b.source_fd = -EBADF;
	ok(ops_bind_validate(&b, &field) == 0, "bind by path accepted");
}

/* A parameter list decoded as Create's, with stdin as fd 0. */
/* What params_from_json() handed over, failed or not. */
static void params_free(MntParam *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mnt_param_done(&p[i]);
	free(p);
}

static int params_from_json(json_object *a, MntParam **ret, size_t *ret_n, const char **field)
{
	_cleanup_(ops_create_request_done) OpsCreateRequest req;
	const OpsMethod *m = ops_method_find("Create");
	int fds[] = {STDIN_FILENO};
	OpsFds f = {.fds = fds, .n = 1, .trace_fd = -EBADF};
	json_object *o = json_object_new_object();
	int r;

	m->request_init(&req);
	json_object_object_add(o, "fsType", json_object_new_string("tmpfs"));
	json_object_object_add(o, "parameters", json_object_get(a));
	r = ops_request_decode(m, o, &f, &req, field);
	json_object_put(o);
	*ret = TAKE_PTR(req.params);
	*ret_n = req.n_params;
	req.n_params = 0;
	return r;
}

static void test_json_params(void)
{
	const char *field = NULL;
	MntParam *p = NULL;
	size_t n = 0;
	json_object *a;
	void *blob;
	size_t size;

	a = json_tokener_parse("[{\"key\":\"size\",\"type\":\"string\",\"value\":\"1m\"},"
			       "{\"key\":\"ro\",\"type\":\"flag\"},"
			       "{\"key\":\"k\",\"type\":\"binary\",\"value\":\"AQID\"},"
			       "{\"key\":\"fd\",\"type\":\"fd\",\"fd\":0}]");
	ok(params_from_json(a, &p, &n, &field) == 0 && n == 4, "parameter list parsed");
	ok(n == 4 && p[0].type == MNT_PARAM_STRING && streq(p[0].value, "1m") &&
		   p[1].type == MNT_PARAM_FLAG && !p[1].value && p[2].blob_size == 3 &&
		   ((uint8_t *)p[2].blob)[2] == 3 && p[3].fd >= 0 && p[3].fd != STDIN_FILENO,
	   "types, values, decoded blob and a dup of the fd");
	params_free(p, n);
	json_object_put(a);

	a = json_tokener_parse(
		"[{\"key\":\"x\",\"type\":\"flag\"},{\"key\":\"y\",\"type\":\"fd\",\"fd\":7}]");
	ok(params_from_json(a, &p, &n, &field) == -EINVAL && streq(field, "parameters[1].fd"),
	   "fd index without a received fd named (%s)", field);
	params_free(p, n);
	json_object_put(a);

	a = json_tokener_parse("[{\"key\":\"x\",\"type\":\"flag\",\"what\":1}]");
	ok(params_from_json(a, &p, &n, &field) < 0 && streq(field, "parameters[0].what"),
	   "unknown field inside a parameter named (%s)", field);
	params_free(p, n);
	json_object_put(a);

	a = json_tokener_parse("[{\"key\":\"x\",\"type\":\"file\"}]");
	ok(params_from_json(a, &p, &n, &field) < 0 && streq(field, "parameters[0].type"),
	   "unknown parameter type named (%s)", field);
	params_free(p, n);
	json_object_put(a);

	ok(base64_decode("aGVsbG8=", &blob, &size) == 0 && size == 5 && !memcmp(blob, "hello", 5),
	   "base64 with padding");
	free(blob);
	ok(base64_decode("aGVsbG8", &blob, &size) == 0 && size == 5, "base64 without padding");
	free(blob);
	ok(base64_decode("a*==", &blob, &size) == -EINVAL, "base64 with a bad character refused");
	ok(base64_decode("a", &blob, &size) == -EINVAL, "base64 of a lone 6-bit group refused");
}

static int child_returns_fd(int root_fd, const int *fds, void *userdata, MntLog *log,
			    WorkerReply *reply)
{
	reply->fds[reply->n_fds++] = openat(root_fd, "tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
	reply->value = (uint64_t)getpid();
	return 0;
}

static int child_fails(int root_fd, const int *fds, void *userdata, MntLog *log, WorkerReply *reply)
{
	mnt_log_step(log, "resolve:target", 7);
	mnt_log_fail(log, "move_mount");
	return -EXDEV;
}

/* The step names of log, comma-separated, for comparing traces. */
static const char *steps_of(const MntLog *log)
{
	static char buf[1024];
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < log->n_steps && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? "," : "",
				      log->steps[i].name);
	return buf;
}

/* Reports the inode of the fd it was given, and whether the fd number in
 * userdata (open in the parent, not passed) is still open in the child. */
static int child_checks_fds(int root_fd, const int *fds, void *userdata, MntLog *log,
			    WorkerReply *reply)
{
	struct stat st;

	if (fstat(fds[0], &st) < 0)
		return -errno;
	reply->value = st.st_ino;
	return 0;
}

/* Reports the inode of the mount namespace it runs in. */
static int child_reports_ns(int root_fd, const int *fds, void *userdata, MntLog *log,
			    WorkerReply *reply)
{
	struct stat st;

	if (stat("/proc/self/ns/mnt", &st) < 0)
		return -errno;
	reply->value = st.st_ino;
	return 0;
}

static int child_reports_root(int root_fd, const int *fds, void *userdata, MntLog *log,
			      WorkerReply *reply)
{
	struct stat st;

	if (fstat(root_fd, &st) < 0)
		return -errno;
	reply->value = st.st_ino;
	return 0;
}

static void test_worker(void)
{
	_cleanup_close_ int ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	WorkerReply reply;
	struct stat a, b;
	int r;

	r = worker_in_namespace(ns, NULL, NULL, 0, child_returns_fd, NULL, NULL, &reply);
	ok(r == 0 && reply.error == 0 && reply.n_fds == 1, "worker sends an fd back");
	ok(reply.value == (uint64_t)getpid(), "the work ran in the worker itself: no fork");
	ok(reply.n_fds == 1 && fstat(reply.fds[0], &a) == 0 && stat("/tmp", &b) == 0 &&
		   a.st_ino == b.st_ino,
	   "the fd refers to the namespace's /tmp");
	worker_reply_done(&reply);

	r = worker_in_namespace(ns, NULL, NULL, 0, child_fails, NULL, NULL, &reply);
	ok(r == 0 && reply.error == -EXDEV && streq(reply.failed_step, "move_mount") &&
		   reply.n_fds == 0,
	   "failure and its step come back from the worker");
	{
		OpsNamespace own = OPS_NAMESPACE_NULL;
		MntLog log = {};

		mnt_log_step(&log, "fsmount", 1);
		ok(ops_run_in(&own, NULL, 0, child_fails, NULL, &log, NULL) == -EXDEV &&
			   streq(steps_of(&log), "fsmount,setns,resolve:target") &&
			   log.steps[2].usec == 7 && streq(log.failed_step, "move_mount"),
		   "the worker's steps follow ours in the trace, failed step apart: %s",
		   steps_of(&log));
		mnt_log_done(&log);
	}

	{
		struct stat st;

		r = worker_in_namespace(ns, "/tmp", NULL, 0, child_reports_root, NULL, NULL,
					&reply);
		ok(r == 0 && reply.error == 0 && stat("/tmp", &st) == 0 && reply.value == st.st_ino,
		   "with a root, the function's root_fd is that directory");
		r = worker_in_namespace(ns, "/proc/version", NULL, 0, child_reports_root, NULL,
					NULL, &reply);
		ok(r == 0 && reply.error == -ENOTDIR && streq(reply.failed_step, "resolve:root"),
		   "a root that is no directory fails at resolve:root: %s", strerror(-reply.error));
	}

	r = worker_in_namespace(STDIN_FILENO, NULL, NULL, 0, child_returns_fd, NULL, NULL, &reply);
	ok(r == 0 && reply.error < 0 && streq(reply.failed_step, "setns"),
	   "setns on a non-namespace fd reported as step setns");

	{
		_cleanup_close_ int dir = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
		struct stat st;

		r = worker_in_namespace(ns, NULL, &dir, 1, child_checks_fds, NULL, NULL, &reply);
		ok(r == 0 && reply.error == 0 && fstat(dir, &st) == 0 && reply.value == st.st_ino,
		   "the request's fd reaches the function");
	}

	/* Another namespace: setns() there for the function, and back. */
	{
		_cleanup_close_ int other_ns = -EBADF;
		int p[2];
		pid_t pid;
		struct stat there, here;
		char c;

		if (pipe2(p, O_CLOEXEC) < 0)
			return;
		pid = fork();
		if (pid == 0) {
			if (unshare(CLONE_NEWNS) < 0)
				_exit(1);
			if (write(p[1], "x", 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
		close(p[1]);
		if (read(p[0], &c, 1) == 1) {
			char path[64];

			snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
			other_ns = open(path, O_RDONLY | O_CLOEXEC);
		}
		close(p[0]);
		r = worker_in_namespace(other_ns, NULL, NULL, 0, child_reports_ns, NULL, NULL,
					&reply);
		ok(r == 0 && reply.error == 0 && fstat(other_ns, &there) == 0 &&
			   reply.value == there.st_ino,
		   "a function for another namespace runs in it");
		ok(stat("/proc/self/ns/mnt", &here) == 0 && fstat(ns, &there) == 0 &&
			   here.st_ino == there.st_ino,
		   "  and the worker is back home after it");
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

static void test_nonblocking(void);
static void test_umount_exact(void);

static void test_mount_layer(void)
{
	_cleanup_close_ int fs = -EBADF, mnt = -EBADF;
	MntLog log = {};
	MntParam bad = param(MNT_PARAM_STRING, "size", "bogus", -EBADF);
	MntParam good = param(MNT_PARAM_STRING, "size", "1m", -EBADF);
	char dir[] = "/tmp/test-mountd-XXXXXX";
	bool found = false;

	/* Our own mount namespace, private, so nothing reaches the host. */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		ok(false, "private mount namespace for the mount layer tests: %m");
		return;
	}
	fs = mnt_fsopen("tmpfs", &log);
	ok(fs >= 0, "fsopen tmpfs");
	ok(mnt_fsconfig_param(fs, &bad, &log) == -EINVAL, "fsconfig size=bogus fails");
	for (size_t i = 0; i < log.n_messages; i++)
		if (streq(log.messages[i].step, "fsconfig:size") && log.messages[i].level == 'e' &&
		    strstr(log.messages[i].text, "size"))
			found = true;
	ok(found, "the kernel's message is drained and tagged with the step");
	ok(streq(log.failed_step, "fsconfig:size"), "failed step recorded");
	ok(mnt_fsconfig_param(fs, &good, &log) == 0, "fsconfig size=1m");
	ok(mnt_fsconfig_cmd(fs, FSCONFIG_CMD_CREATE, &log) == 0, "CMD_CREATE");
	mnt = mnt_fsmount(fs, MOUNT_ATTR_NODEV, &log);
	ok(mnt >= 0, "fsmount");
	ok(streq(log.failed_step, "fsconfig:size"), "first failure stays the recorded one");

	ok(mkdtemp(dir) != NULL, "mount point");
	{
		_cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		_cleanup_close_ int t =
			mnt_resolve_in_root(root, dir, MNT_CREATE_NONE, "target", &log);
		_cleanup_close_ int esc = -EBADF;
		char up[256];

		ok(t >= 0 && mnt_move_mount(mnt, "", t, "",
					    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH,
					    &log) == 0,
		   "move_mount onto the resolved target");
		/* ".." beyond the root stays at the root under RESOLVE_IN_ROOT. */
		snprintf(up, sizeof(up), "%s/../../../../../..%s", dir, dir);
		esc = mnt_resolve_in_root(root, up, MNT_CREATE_NONE, "target", &log);
		ok(esc >= 0, "dot-dot past the root is clamped to the root");
		ok(mnt_umount_in_root(root, dir, 0, false, NULL, NULL, &log) == -EBUSY,
		   "unmount while our mount fd pins the mount is EBUSY");
	}
	ok(streq(steps_of(&log), "fsopen,fsconfig:size,fsconfig:CMD_CREATE,fsmount,"
				 "resolve:target,move_mount,resolve:target,resolve:path"),
	   "each step that succeeded is in the trace, in order, the failed one not: %s",
	   steps_of(&log));
	mnt = safe_close(mnt);
	{
		_cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		pid_t pid = fork();
		int status = 1;

		/* mnt_umount_in_root changes the cwd: workers only. */
		if (pid == 0)
			_exit(mnt_umount_in_root(root, dir, 0, false, NULL, NULL, NULL) == 0 ? 0
											     : 1);
		waitpid(pid, &status, 0);
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "unmount by path inside the root");
	}
	rmdir(dir);
	mnt_log_done(&log);
	test_nonblocking();
	test_umount_exact();
}

/* What the event loop may resolve and look at itself (executor-nonblocking.c), in
 * the private namespace test_mount_layer() made. */
static void test_nonblocking(void)
{
	char dir[] = "/tmp/test-nonblocking-XXXXXX", path[256], opts[512];
	_cleanup_close_ int root = -EBADF, ns = -EBADF, nsroot = -EBADF, fd = -EBADF;
	uint64_t ns_id = 0;
	struct stat a, b;

	ok(mkdtemp(dir) != NULL, "nonblocking: a directory");
	ok(mount("tmpfs", dir, "tmpfs", 0, "size=1m") == 0, "nonblocking: a tmpfs on it");
	snprintf(path, sizeof(path), "%s/sub", dir);
	(void)mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/link", dir);
	ok(symlink("sub", path) == 0, "nonblocking: a symlink");
	for (const char *d = "lower\0upper\0work\0ov\0"; *d; d += strlen(d) + 1) {
		snprintf(path, sizeof(path), "%s/%s", dir, d);
		(void)mkdir(path, 0755);
	}
	snprintf(opts, sizeof(opts), "lowerdir=%s/lower,upperdir=%s/upper,workdir=%s/work", dir,
		 dir, dir);
	snprintf(path, sizeof(path), "%s/ov", dir);
	ok(mount("overlay", path, "overlay", 0, opts) == 0, "nonblocking: an overlay in it");
	ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	ok(ns >= 0 && mnt_ns_id(ns, &ns_id) == 0, "nonblocking: the namespace's ID");

	nsroot = nonblocking_namespace_root(ns);
	ok(nsroot >= 0 && fstat(nsroot, &a) == 0 && stat("/", &b) == 0 && a.st_dev == b.st_dev &&
		   a.st_ino == b.st_ino,
	   "the namespace's root, from a child that joined it, is /");
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* Walk everything once: the dentry cache has it all then. */
	snprintf(path, sizeof(path), "%s/sub/.", dir);
	(void)access(path, F_OK);
	snprintf(path, sizeof(path), "%s/ov/.", dir);
	(void)access(path, F_OK);

	snprintf(path, sizeof(path), "%s/sub", dir);
	fd = nonblocking_resolve(root, path);
	ok(fd >= 0 && fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino,
	   "a cached path resolves in the loop");
	ok(fd >= 0 && nonblocking_filesystem(fd, ns_id) == 0, "  tmpfs is a memory filesystem");
	fd = safe_close(fd);
	snprintf(path, sizeof(path), "%s/sub/./", dir);
	fd = nonblocking_resolve(root, path);
	ok(fd >= 0, "  \".\" and trailing slashes are fine");
	fd = safe_close(fd);
	snprintf(path, sizeof(path), "%s/sub/../sub", dir);
	ok(nonblocking_resolve(root, path) == -EAGAIN, "\"..\" goes to a worker");
	snprintf(path, sizeof(path), "%s/link", dir);
	ok(nonblocking_resolve(root, path) == -EAGAIN, "a symlink goes to a worker");
	ok(nonblocking_resolve(root, "/") == -EAGAIN && nonblocking_resolve(root, "/./") == -EAGAIN,
	   "the root itself goes to a worker (no component below it)");
	snprintf(path, sizeof(path), "%s/missing", dir);
	ok(nonblocking_resolve(root, path) < 0, "a missing name is no fd");
	snprintf(path, sizeof(path), "%s/ov", dir);
	fd = nonblocking_resolve(root, path);
	ok(fd >= 0 && nonblocking_filesystem(fd, ns_id) == -EAGAIN,
	   "an overlay is not answered in the loop (its statfs asks the upper layer)");
	fd = safe_close(fd);
	(void)umount2(path, MNT_DETACH);

	/* A root kept for later stops being one when pivot_root() moves the
	 * namespace onto another (in a child: that changes its root). */
	{
		pid_t pid = fork();
		int status = -1;

		if (pid == 0) {
			NonblockingRoot r = NONBLOCKING_ROOT_NULL;
			uint64_t id = 0;
			int nsfd;

			if (unshare(CLONE_NEWNS) < 0 ||
			    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
				_exit(10);
			nsfd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
			if (nsfd < 0 || mnt_ns_id(nsfd, &id) < 0 ||
			    nonblocking_root_take(&r, open("/", O_PATH | O_CLOEXEC), id) < 0)
				_exit(11);
			if (nonblocking_root_get(&r, id) < 0)
				_exit(12); /* still the root */
			snprintf(path, sizeof(path), "%s/sub", dir);
			if (mount("tmpfs", path, "tmpfs", 0, NULL) < 0 || chdir(path) < 0 ||
			    mkdir("old", 0755) < 0 || syscall(SYS_pivot_root, ".", "old") < 0)
				_exit(13);
			_exit(nonblocking_root_get(&r, id) == -EBADF && r.fd < 0 ? 0 : 14);
		}
		waitpid(pid, &status, 0);
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "a kept root is given up once pivot_root() moved the namespace off it (%d)",
		   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	(void)umount2(dir, MNT_DETACH);
	(void)rmdir(dir);
}

/* What the read end of a trace pipe holds right now ("" when empty). */
static const char *trace_read(int fd)
{
	static char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = 0;
	return buf;
}

static void test_trace(void)
{
	_cleanup_close_ int rfd = -EBADF, writer = -EBADF;
	OpsNamespace own = OPS_NAMESPACE_NULL;
	MntLog log = {};
	int p[2], k;

	ok(pipe2(p, O_CLOEXEC | O_NONBLOCK) == 0, "trace pipe");
	rfd = p[0];
	writer = dup(p[1]); /* the same pipe, to fill it below */
	{
		MntLog ro = {};

		ok(mnt_log_trace(&ro, dup(p[0])) == -EBADF && !ro.tracing,
		   "a trace fd not open for writing is refused");
	}
	ok(mnt_log_trace(&log, p[1]) == 0 && log.tracing, "the log takes the trace fd");
	mnt_log_step(&log, "fsopen", 12);
	ok(streq(trace_read(rfd), "step\tfsopen\t12\n"),
	   "a step is on the pipe the moment it is recorded");
	mnt_log_add(&log, "fsconfig:a\tb", 'e', "bad\nvalue");
	ok(streq(trace_read(rfd), "message\tfsconfig:a b\te\tbad value\n"),
	   "so is a message, tabs and newlines in fields made spaces");

	k = ops_run_in(&own, NULL, 0, child_fails, NULL, &log, NULL);
	{
		const char *t = trace_read(rfd);

		ok(strncmp(t, "step\tsetns\t", 11) == 0 &&
			   strstr(t, "\nstep\tresolve:target\t7\n") &&
			   strlen(strstr(t, "\nstep\tresolve:target")) == 23,
		   "a worker traces its steps itself, through the inherited fd");
	}
	ok(k == -EXDEV && streq(trace_read(rfd), "") && log.n_steps == 3,
	   "merging the worker's steps into the log does not trace them twice");

	/* A reader that does not keep up never blocks mountd. */
	while (write(writer, "xxxxxxxxxxxxxxxx", 16) > 0)
		;
	mnt_log_step(&log, "fsmount", 1);
	ok(!log.tracing, "a full pipe ends the trace instead of blocking");
	writer = safe_close(writer);
	while (read(rfd, (char[4096]){}, 4096) > 0)
		;
	ok(read(rfd, (char[1]){}, 1) == 0, "and the reader sees EOF");
	mnt_log_done(&log);
}

/* Paths looked up and made with the caller's rights, and back (executor-rights.h). */
static void test_rights(void)
{
	const Rights nobody = {.uid = 65534, .gid = 65534};
	char dir[] = "/tmp/test-rights-XXXXXX", made[64], secret[64];
	_cleanup_close_ int before = -EBADF, during = -EBADF, suspended = -EBADF, resumed = -EBADF,
			    after = -EBADF;
	struct stat st;
	RightsSaved saved;

	if (!mkdtemp(dir) || chmod(dir, 0777) < 0) {
		ok(false, "a directory for the rights tests: %m");
		return;
	}
	snprintf(made, sizeof(made), "%s/made", dir);
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	before = mkdir(secret, 0700) == 0 ? open(secret, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	ok(before >= 0, "root opens its own 0700 directory");

	{
		_cleanup_free_ char *dev = NULL;

		ok(rights_open_device("/nonexistent", false, &dev) == 0 && !dev,
		   "root's device names are its own: nothing opened for it");
	}
	ok(rights_enter(&nobody) == 0, "a worker takes on the caller's filesystem identity");
	ok(mkdir(made, 0755) == 0, "  and makes a directory where the caller may");
	during = open(secret, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ok(during < 0 && errno == EACCES, "  but not into root's 0700 directory: EACCES");
	{
		_cleanup_close_ int mine = open(made, O_PATH | O_CLOEXEC);
		_cleanup_free_ char *dev = NULL;
		char inside[96];

		ok(mine >= 0 && rights_check_owner(mine) == 0 &&
			   rights_check_owner(before) == -EPERM,
		   "the caller may change what it owns, not root's");
		ok(rights_open_device("/dev/null", true, &dev) == -ENOTBLK && !dev,
		   "a device source that is no block device is refused: ENOTBLK");
		snprintf(inside, sizeof(inside), "%s/dev", secret);
		ok(rights_open_device(inside, false, &dev) == -EACCES,
		   "a source where the caller cannot look is refused, device or not");
		snprintf(inside, sizeof(inside), "%s/absent", made);
		ok(rights_open_device(inside, true, &dev) == -ENOENT && !dev,
		   "a source that names nothing is refused, not left for root to look up");
		/* Block devices are root's (or disk's): not the caller's to mount. */
		for (const char *const *d =
			     (const char *const[]){"/dev/vda", "/dev/sda", "/dev/loop0", NULL};
		     *d; d++) {
			struct stat ds;

			if (stat(*d, &ds) < 0 || !S_ISBLK(ds.st_mode) || (ds.st_mode & 0006))
				continue;
			ok(rights_open_device(*d, true, &dev) == -EACCES && !dev,
			   "%s, a block device the caller cannot open, is refused", *d);
			break;
		}
	}
	saved = rights_suspend();
	suspended = open(secret, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ok(suspended >= 0, "a step mountd takes as itself has its rights");
	rights_resume(&saved);
	resumed = open(secret, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ok(resumed < 0 && errno == EACCES, "  and the caller's are back after it");
	rights_leave();

	if (stat(made, &st) < 0)
		st = (struct stat){};
	ok(st.st_uid == 65534 && st.st_gid == 65534,
	   "what was made with the caller's rights is the caller's: %u:%u", (unsigned)st.st_uid,
	   (unsigned)st.st_gid);
	after = open(secret, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ok(after >= 0, "after the request the worker is root again");
	ok(rights_enter(&(Rights){.uid = 0}) == 0 && open(secret, O_PATH | O_CLOEXEC) >= 0,
	   "root's requests keep root's rights");
	rmdir(made);
	rmdir(secret);
	rmdir(dir);
}

/* What a non-root caller's request cannot ask for, whatever the policy. */
static void test_restrict_unprivileged(void)
{
	const OpsMethod *create = ops_method_find("Create"), *bind = ops_method_find("Bind"),
			*setattr = ops_method_find("SetAttributes"),
			*info = ops_method_find("Info");
	OpsCreateRequest c;
	OpsBindRequest b;
	OpsSetattrRequest a;
	OpsInfoRequest i;
	const char *why;
	int r;

	create->request_init(&c);
	c.attr.clear = MOUNT_ATTR_NOSUID;
	ok(ops_restrict_unprivileged(create, &c, &why) == 0 &&
		   (c.attr.set & (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)) ==
			   (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV) &&
		   !(c.attr.clear & MOUNT_ATTR_NOSUID),
	   "Create: nosuid,nodev forced, even against a request to clear them");
	create->request_done(&c);
	bind->request_init(&b);
	ok(ops_restrict_unprivileged(bind, &b, &why) == 0 &&
		   (b.attr.set & (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)) ==
			   (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV),
	   "Bind: nosuid,nodev forced");
	bind->request_done(&b);
	setattr->request_init(&a);
	a.attr.set = MOUNT_ATTR_RDONLY;
	ok(ops_restrict_unprivileged(setattr, &a, &why) == 0 && a.attr.set == MOUNT_ATTR_RDONLY,
	   "SetAttributes: setting others is left as asked");
	a.attr.clear = MOUNT_ATTR_NODEV;
	r = ops_restrict_unprivileged(setattr, &a, &why);
	ok(r == -EPERM && why && strstr(why, "root"),
	   "SetAttributes: clearing nodev is refused: %s", strna(why));
	setattr->request_done(&a);
	info->request_init(&i);
	ok(ops_restrict_unprivileged(info, &i, &why) == 0, "Info: nothing to restrict");
	info->request_done(&i);
}

/* ---- exact unmount (mnt_umount_in_root(..., exact)) ---------------------- */

/* What the check saw and what it did meanwhile, shared with the child
 * that unmounts (it changes its cwd: workers only). */
typedef struct ExactCase {
	const char *dir; /* holds "a" and "b", each a mount point */
	enum { MEANWHILE_NOTHING, MEANWHILE_SWAP, MEANWHILE_STACK, MEANWHILE_REFUSE } meanwhile;
	unsigned n_checked;
	uint64_t checked;
} ExactCase;

/* The names "a" and "b" exchanged, as a user does from a namespace of its
 * own where they are no mount points (rename() refuses only local ones). */
static int swap_names(const char *dir)
{
	char a[256], b[256];
	pid_t pid;
	int status;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		snprintf(a, sizeof(a), "%s/a", dir);
		snprintf(b, sizeof(b), "%s/b", dir);
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    umount2(a, MNT_DETACH) < 0 || umount2(b, MNT_DETACH) < 0 ||
		    syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) < 0)
			_exit(1);
		_exit(0);
	}
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0
		       ? 0
		       : -EIO;
}

static int exact_check(int fd, uint64_t id, void *userdata, MntLog *log)
{
	ExactCase *c = userdata;
	char a[256];

	c->n_checked++;
	c->checked = id;
	switch (c->meanwhile) {
	case MEANWHILE_SWAP:
		return swap_names(c->dir);
	case MEANWHILE_STACK:
		snprintf(a, sizeof(a), "%s/a", c->dir);
		return mount("stacked", a, "tmpfs", 0, "size=1m") < 0 ? -errno : 0;
	case MEANWHILE_REFUSE:
		return -EPERM;
	default:
		return 0;
	}
}

/* mnt_umount_in_root(dir/a, exact) in a child; its result. */
static int exact_umount(ExactCase *c, unsigned flags)
{
	char a[256];
	pid_t pid;
	int status;

	snprintf(a, sizeof(a), "%s/a", c->dir);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

		_exit(-mnt_umount_in_root(root, a, flags, true, exact_check, c, NULL));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -EIO;
	return -WEXITSTATUS(status);
}

static uint64_t id_of(const char *dir, const char *name)
{
	_cleanup_close_ int d = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	uint64_t id = 0;

	return d >= 0 && mnt_unique_id_at(d, name, &id) == 0 ? id : 0;
}

static bool is_mounted(uint64_t id)
{
	struct statmount sm = {};

	return mnt_statmount_fixed(0, id, STATMOUNT_MNT_BASIC, &sm) == 0;
}

static void test_umount_exact(void)
{
	char dir[] = "/tmp/test-umount-exact-XXXXXX", a[256], b[256], sub[256];
	ExactCase *c;
	uint64_t ida, idb, idsub;

	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ok(c != MAP_FAILED && mkdtemp(dir) != NULL, "exact: a directory");
	if (c == MAP_FAILED)
		return;
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(sub, sizeof(sub), "%s/a/sub", dir);
	(void)mkdir(a, 0755);
	(void)mkdir(b, 0755);

	/* The name swapped between check and unmount: the mount checked
	 * goes, the one the name leads to now stays. */
	ok(mount("mine", a, "tmpfs", 0, "size=1m") == 0 &&
		   mount("roots", b, "tmpfs", 0, "size=1m") == 0,
	   "exact: two mounts");
	ida = id_of(dir, "a");
	idb = id_of(dir, "b");
	*c = (ExactCase){.dir = dir, .meanwhile = MEANWHILE_SWAP};
	ok(exact_umount(c, 0) == 0, "exact: unmounted, the name swapped while it was checked");
	ok(c->n_checked == 1 && c->checked == ida, "  the check was asked about the mount named");
	ok(!is_mounted(ida), "  that mount is gone");
	ok(is_mounted(idb) && id_of(dir, "a") == idb,
	   "  the one the name leads to now is still there");
	ok(umount2(a, 0) == 0 &&
		   syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0,
	   "exact: the other mount unmounted, the names back");

	/* Something mounted on top after the check: the name leads there
	 * now; refused, both stay. */
	ok(mount("mine", a, "tmpfs", 0, "size=1m") == 0, "exact: a mount");
	ida = id_of(dir, "a");
	*c = (ExactCase){.dir = dir, .meanwhile = MEANWHILE_STACK};
	ok(exact_umount(c, 0) == -EBUSY, "exact: a mount stacked on it meanwhile: EBUSY");
	ok(is_mounted(ida) && id_of(dir, "a") != ida && id_of(dir, "a") != 0,
	   "  both mounts are still there");
	(void)umount2(a, 0);

	/* Mounts below: EBUSY without MNT_DETACH, as the kernel says, and
	 * with it, only when the check passes (it judges them). */
	ok(mkdir(sub, 0755) == 0 && mount("below", sub, "tmpfs", 0, "size=1m") == 0,
	   "exact: a mount below it");
	idsub = id_of(a, "sub");
	*c = (ExactCase){.dir = dir};
	ok(exact_umount(c, 0) == -EBUSY && is_mounted(ida) && is_mounted(idsub),
	   "exact: with a mount below, not detached: EBUSY, both stay");
	*c = (ExactCase){.dir = dir, .meanwhile = MEANWHILE_REFUSE};
	ok(exact_umount(c, MNT_DETACH) == -EPERM && is_mounted(ida) && is_mounted(idsub),
	   "exact: detached, the check refusing: both stay");
	*c = (ExactCase){.dir = dir};
	ok(exact_umount(c, MNT_DETACH) == 0 && !is_mounted(ida) && !is_mounted(idsub),
	   "exact: detached, checked: it and the mount below are gone");
	*c = (ExactCase){.dir = dir};
	ok(exact_umount(c, 0) == -EINVAL && c->n_checked == 0,
	   "exact: no mount there: EINVAL, nothing to check");
	ok(mnt_open_by_id(idb) < 0, "a mount gone cannot be opened by its id");
	ok(mount("again", a, "tmpfs", 0, "size=1m") == 0, "exact: a mount again");
	{
		_cleanup_close_ int fd = mnt_open_by_id(id_of(dir, "a"));
		uint64_t id = 0;

		ok(fd >= 0 && mnt_unique_id_at(fd, "", &id) == 0 && id == id_of(dir, "a"),
		   "a mount opened by its id is that mount");
		ok(mount("over", a, "tmpfs", 0, "size=1m") == 0 && mnt_open_by_id(id) == -EBUSY,
		   "  and one hidden under another is -EBUSY");
	}
	(void)umount2(a, MNT_DETACH);
	(void)umount2(a, MNT_DETACH);
	(void)umount2(b, MNT_DETACH);
	(void)rmdir(sub);
	(void)rmdir(a);
	(void)rmdir(b);
	(void)rmdir(dir);
	munmap(c, sizeof(*c));
}

int main(void)
{
	/* This process plays an executor worker sitting in its own namespace:
	 * worker_in_namespace() refuses to run anywhere else. */
	{
		WorkerReply reply;
		int self = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);

		ok(worker_in_namespace(self, NULL, NULL, 0, child_fails, NULL, NULL, &reply) ==
			   -EPERM,
		   "worker_in_namespace() outside a worker refuses");
		ok(self >= 0 && worker_set_home(self) == 0,
		   "a home namespace for worker_in_namespace()");
	}
	test_keys();
	test_param_shapes();
	test_param_limits();
	test_create_validate();
	test_other_validate();
	test_json_params();
	test_worker();
	test_trace();
	test_rights();
	test_restrict_unprivileged();
	test_mount_layer();
	return tap_done();
}
