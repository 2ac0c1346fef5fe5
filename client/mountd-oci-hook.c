/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountd-oci-hook: an OCI runtime hook that asks mountd for the mounts a
 * container's config.json lists in its "io.mountd.mounts" annotation, in
 * that container's mount namespace (see mountd-oci-hook(1)).  All or
 * nothing: the whole list is checked before the first call, and on a
 * refusal the mounts this run made are unmounted again before the hook
 * fails, which fails the container's start.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libmountd-client.h"
#include "mountctl.h"
#include "util.h"

#define ANNOTATION "io.mountd.mounts"
#define STATE_MAX  (1024 * 1024)

static const char *container_id = "?";

_printf_(1, 2) static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mountd-oci-hook: container %s: ", container_id);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* crun runs hooks with standard error on /dev/null unless the container's
 * run.oci.hooks.stderr annotation names a file, and reports only the exit
 * status.  Our reason would be lost: it goes to the runtime's standard
 * error instead, which the person or program that started the container
 * reads. */
static void keep_messages(void)
{
	struct stat st, null;
	char path[64];
	int parent, fd;

	if (fstat(STDERR_FILENO, &st) < 0 || stat("/dev/null", &null) < 0 || !S_ISCHR(st.st_mode) ||
	    st.st_rdev != null.st_rdev)
		return;
	/* The runtime's own descriptor, not a new open of what it names: that
	 * could be a file we may not open, as the runtime may not either. */
	parent = pidfd_open(getppid(), 0);
	fd = parent < 0 ? -1 : pidfd_getfd(parent, STDERR_FILENO, 0);
	safe_close(parent);
	if (fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/fd/2", (int)getppid());
		fd = open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
	}
	if (fd < 0)
		return;
	dup2(fd, STDERR_FILENO);
	close(fd);
}

/* One entry of the annotation, as a call ready but for its mount point. */
typedef struct Entry {
	const char *destination, *type, *source;
	bool bind, recursive;
	MountOptions opts;
	bool made;
} Entry;

static json_object *read_state(void)
{
	_cleanup_free_ char *buf = malloc(STATE_MAX + 1);
	size_t len = 0;
	ssize_t n;

	if (!buf)
		return NULL;
	while (len < STATE_MAX && (n = read(STDIN_FILENO, buf + len, STATE_MAX - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return NULL;
		len += (size_t)n;
	}
	buf[len] = 0;
	return json_tokener_parse(buf);
}

static const char *string_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* Check one annotation entry and sort its options; the message says what
 * is wrong with entry i. */
static int entry_parse(json_object *o, size_t i, Entry *e)
{
	json_object *options = NULL;
	const char *why = NULL;

	if (!json_object_is_type(o, json_type_object)) {
		fail(ANNOTATION "[%zu]: not an object", i);
		return -EINVAL;
	}
	e->destination = string_of(o, "destination");
	e->type = string_of(o, "type");
	e->source = string_of(o, "source");
	if (!e->destination || e->destination[0] != '/' || strstr(e->destination, "/../") ||
	    (strlen(e->destination) >= 3 &&
	     streq(e->destination + strlen(e->destination) - 3, "/.."))) {
		fail(ANNOTATION "[%zu]: \"destination\" must be an absolute path without \"..\"",
		     i);
		return -EINVAL;
	}
	json_object_object_get_ex(o, "options", &options);
	if (options && !json_object_is_type(options, json_type_array)) {
		fail(ANNOTATION "[%zu]: \"options\" must be an array of strings", i);
		return -EINVAL;
	}
	/* As in config.json's own mounts: a bind is type "bind" or a
	 * "bind"/"rbind" option; "rbind" and type "bind" alone are recursive. */
	e->bind = streq_ptr(e->type, "bind");
	e->recursive = e->bind;
	for (size_t k = 0; options && k < json_object_array_length(options); k++) {
		const char *w = json_object_get_string(json_object_array_get_idx(options, k));

		if (streq(w, "bind") || streq(w, "rbind")) {
			e->bind = true;
			e->recursive = streq(w, "rbind");
		}
	}
	if (!e->bind && !e->type) {
		fail(ANNOTATION "[%zu] (%s): \"type\" is missing", i, e->destination);
		return -EINVAL;
	}
	if (e->bind && !e->source) {
		fail(ANNOTATION "[%zu] (%s): a bind mount needs a \"source\"", i, e->destination);
		return -EINVAL;
	}
	for (size_t k = 0; options && k < json_object_array_length(options); k++) {
		json_object *v = json_object_array_get_idx(options, k);
		const char *w = json_object_get_string(v);
		int r;

		if (!json_object_is_type(v, json_type_string)) {
			fail(ANNOTATION "[%zu]: \"options\" must be an array of strings", i);
			return -EINVAL;
		}
		if (streq(w, "bind") || streq(w, "rbind"))
			continue;
		r = mount_options_add(&e->opts, e->bind ? OPTIONS_BIND : OPTIONS_MOUNT, w, &why);
		if (r < 0) {
			fail(ANNOTATION "[%zu] (%s): option \"%s\": %s", i, e->destination, w,
			     why ?: strerror(-r));
			return r;
		}
	}
	return 0;
}

/* Whether process pid sees a mount at path.  /proc/PID/mountinfo, unlike
 * /proc/PID/root, is readable while the runtime keeps the process
 * undumpable, and shows mount points from the process's root. */
static int sees_mount_at(int pid, const char *path)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	char proc[64];
	size_t size = 0;

	snprintf(proc, sizeof(proc), "/proc/%d/mountinfo", pid);
	f = fopen(proc, "re");
	if (!f)
		return negative_errno();
	while (getline(&line, &size, f) > 0) {
		char *field = line, *end;

		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... */
		for (int k = 0; k < 4 && field; k++)
			field = strchr(field, ' ') ? strchr(field, ' ') + 1 : NULL;
		if (!field || !(end = strchr(field, ' ')))
			continue;
		*end = 0;
		mountinfo_unescape(field);
		if (streq(field, path))
			return 1;
	}
	return 0;
}

/* Where the container's root is in its namespace, the directory mountd
 * resolves the destinations under (the namespace's "root").  Before
 * pivot_root (createRuntime, as runc and crun up to 1.2x run it) the
 * runtime has bind-mounted the rootfs onto its own path, which the
 * container's namespace shares with ours: the root is that path, and
 * mountd resolves a destination inside it as the container will see it
 * (a symlink in the image to /srv is the rootfs's /srv, not the host's).
 * After it (poststart, or a runtime that pivots first) the rootfs is the
 * namespace's root, and its path no mount point the container sees: "". */
static int rootfs_root(json_object *config, const char *bundle, int pid, int pidfd, char **ret)
{
	json_object *root = NULL;
	const char *path;
	_cleanup_free_ char *joined = NULL;
	char real[PATH_MAX];
	struct pollfd p = {.fd = pidfd, .events = POLLIN};
	int r;

	json_object_object_get_ex(config, "root", &root);
	path = root ? string_of(root, "path") : NULL;
	if (!path) {
		fail("config.json has no root.path");
		return -EINVAL;
	}
	if (path[0] != '/' && asprintf(&joined, "%s/%s", bundle, path) < 0)
		return -ENOMEM;
	if (!realpath(joined ?: path, real)) {
		fail("root %s: %m", joined ?: path);
		return negative_errno();
	}
	r = sees_mount_at(pid, real);
	if (r < 0) {
		fail("cannot read the mounts of process %d: %s", pid, strerror(-r));
		return r;
	}
	/* Read from the process the pidfd names, not a successor's. */
	if (poll(&p, 1, 0) != 0) {
		fail("process %d exited", pid);
		return -ESRCH;
	}
	*ret = strdup(r ? real : "");
	return *ret ? 0 : -ENOMEM;
}

static json_object *namespace_object(const char *root)
{
	json_object *ns = json_object_new_object();

	if (!ns)
		return NULL;
	/* The pidfd is the one fd sent with every call. */
	json_object_object_add(ns, "pidfd", json_object_new_int(0));
	if (*root)
		json_object_object_add(ns, "root", json_object_new_string(root));
	return ns;
}

static int entry_call(MountdClient *client, const char *bundle, int pidfd, const char *root,
		      Entry *e, MountdReply *reply)
{
	_cleanup_json_ json_object *p = json_object_new_object();
	_cleanup_free_ char *source = NULL;
	json_object *placement = json_object_new_object();
	const char *create = "directory";
	struct stat st;

	if (!p || !placement)
		return -ENOMEM;
	if (e->bind) {
		/* A relative source is the bundle's, as runtimes take it. */
		if (e->source[0] != '/' && asprintf(&source, "%s/%s", bundle, e->source) < 0)
			return -ENOMEM;
		if (stat(source ?: e->source, &st) == 0 && !S_ISDIR(st.st_mode))
			create = "file";
		json_object_object_add(p, "sourcePath",
				       json_object_new_string(source ?: e->source));
		json_object_object_add(p, "recursive", json_object_new_boolean(e->recursive));
	} else {
		json_object_object_add(p, "fsType", json_object_new_string(e->type));
		json_object_object_add(p, "source", json_object_new_string(e->source ?: e->type));
		if (e->opts.parameters)
			json_object_object_add(p, "parameters",
					       json_object_get(e->opts.parameters));
	}
	if (e->opts.attributes)
		json_object_object_add(p, "attributes", json_object_get(e->opts.attributes));
	if (e->opts.propagation)
		json_object_object_add(p, "propagation",
				       json_object_new_string(e->opts.propagation));
	json_object_object_add(placement, "namespace", namespace_object(root));
	json_object_object_add(placement, "path", json_object_new_string(e->destination));
	json_object_object_add(placement, "create", json_object_new_string(create));
	json_object_object_add(p, "placement", placement);
	return mountd_client_call(client, e->bind ? "Bind" : "Create", p, &pidfd, 1, reply);
}

/* Unmount what this run made, last first; false if any stayed. */
static bool undo(MountdClient *client, int pidfd, const char *root, Entry *entries, size_t n)
{
	bool all = true;

	for (size_t i = n; i-- > 0;) {
		_cleanup_json_ json_object *p = json_object_new_object();
		_cleanup_(mountd_reply_done) MountdReply reply = {};
		_cleanup_free_ char *why = NULL;
		int r;

		if (!entries[i].made)
			continue;
		if (!p)
			return false;
		json_object_object_add(p, "namespace", namespace_object(root));
		json_object_object_add(p, "path", json_object_new_string(entries[i].destination));
		/* Detached at once: the container must not start with it. */
		json_object_object_add(p, "detach", json_object_new_boolean(true));
		r = mountd_client_call(client, "Unmount", p, &pidfd, 1, &reply);
		if (r < 0 || reply.error) {
			why = r < 0 ? NULL : mountd_reply_error_string(&reply);
			fail("could not unmount %s again: %s", entries[i].destination,
			     why ?: strerror(-r));
			all = false;
		}
	}
	return all;
}

static void entries_free(Entry *entries, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mount_options_done(&entries[i].opts);
	free(entries);
}

static void help(void)
{
	printf("Usage: mountd-oci-hook [--socket PATH]\n\n"
	       "An OCI runtime hook (createRuntime or poststart): reads the container's\n"
	       "state on stdin and asks mountd for the mounts listed in the \"" ANNOTATION "\"\n"
	       "annotation of its config.json, in the container's mount namespace.  On a\n"
	       "refusal the mounts it made are undone and it fails.  See mountd-oci-hook(1).\n");
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{"socket", required_argument, NULL, 's'},
		{},
	};
	_cleanup_json_ json_object *state = NULL, *config = NULL, *list = NULL;
	_cleanup_(mountd_client_freep) MountdClient *client = NULL;
	_cleanup_free_ char *config_path = NULL, *root = NULL;
	_cleanup_close_ int pidfd = -EBADF;
	json_object *annotations = NULL, *v;
	const char *socket = NULL, *bundle, *text;
	Entry *entries = NULL;
	size_t n = 0;
	int opt, pid, r;

	while ((opt = getopt_long(argc, argv, "h", options, NULL)) >= 0)
		switch (opt) {
		case 'h':
			help();
			return 0;
		case 's':
			socket = optarg;
			break;
		default:
			return 2;
		}

	keep_messages();
	state = read_state();
	if (!state || !json_object_is_type(state, json_type_object)) {
		fail("no OCI state on standard input (run by a container runtime as a hook)");
		return 1;
	}
	container_id = string_of(state, "id") ?: "?";
	bundle = string_of(state, "bundle");
	pid = json_object_object_get_ex(state, "pid", &v) ? json_object_get_int(v) : 0;
	if (!bundle || pid <= 0) {
		fail("the state names no bundle or no pid: not a createRuntime or poststart hook?");
		return 1;
	}
	if (asprintf(&config_path, "%s/config.json", bundle) < 0)
		return 1;
	config = json_object_from_file(config_path);
	if (!config) {
		fail("cannot read %s", config_path);
		return 1;
	}
	json_object_object_get_ex(config, "annotations", &annotations);
	text = annotations ? string_of(annotations, ANNOTATION) : NULL;
	if (!text)
		return 0; /* nothing asked of us */
	list = json_tokener_parse(text);
	if (!list || !json_object_is_type(list, json_type_array)) {
		fail(ANNOTATION " is not a JSON array");
		return 1;
	}

	/* Everything checked before anything is done. */
	n = json_object_array_length(list);
	entries = calloc(n ?: 1, sizeof(Entry));
	if (!entries)
		return 1;
	r = 0;
	for (size_t i = 0; i < n && r == 0; i++)
		r = entry_parse(json_object_array_get_idx(list, i), i, &entries[i]);
	if (r == 0) {
		pidfd = pidfd_open(pid, 0);
		if (pidfd < 0) {
			r = negative_errno();
			fail("process %d: %s", pid, strerror(-r));
		}
	}
	if (r == 0)
		r = rootfs_root(config, bundle, pid, pidfd, &root);
	if (r == 0) {
		r = mountd_client_connect(&client, socket);
		if (r < 0)
			fail("cannot reach mountd at %s: %s", mountd_socket_path(socket),
			     strerror(-r));
	}

	for (size_t i = 0; i < n && r == 0; i++) {
		_cleanup_(mountd_reply_done) MountdReply reply = {};
		_cleanup_free_ char *why = NULL;
		Entry *e = &entries[i];
		size_t made = 0;

		r = entry_call(client, bundle, pidfd, root, e, &reply);
		if (r == 0 && !reply.error) {
			e->made = true;
			continue;
		}
		why = r < 0 ? NULL : mountd_reply_error_string(&reply);
		if (r < 0)
			fail("no answer from mountd for %s on %s: %s",
			     e->bind ? e->source : e->type, e->destination, strerror(-r));
		else
			fail("mountd refused %s on %s: %s", e->bind ? e->source : e->type,
			     e->destination, why ?: reply.error);
		for (size_t k = 0; k < i; k++)
			made += entries[k].made;
		if (made > 0 && undo(client, pidfd, root, entries, i))
			fail("unmounted again the %zu mount%s made before it", made,
			     made == 1 ? "" : "s");
		r = r ?: -EPERM;
	}
	entries_free(entries, n);
	return r == 0 ? 0 : 1;
}
