// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The operation table's JSON decoding (daemon/ops-table-decode.c), as the varlink
 * front end and the workers use it: the input is {"method": NAME,
 * "parameters": {...}}, NAME any method of the table.  A refusal must name
 * a field; a request it takes must decode again from its own JSON text (the
 * worker decodes what mountd sends it, and refuses nothing mountd took),
 * and an unprivileged caller's new mount must come out nosuid,nodev.
 * Nothing is executed.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <unistd.h>

#include "fuzz.h"
#include "ops-table.h"
#include "executor-rights.h"
#include "util.h"

/* The fds a request may name: a file, a directory, a pipe's write end
 * (traceFd), and an index whose fd was taken already. */
static int fds[4] = {-EBADF, -EBADF, -EBADF, -EBADF};

static void open_fds(void)
{
	int p[2];

	if (fds[0] >= 0)
		return;
	fds[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	fds[1] = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	FUZZ_CHECK(pipe2(p, O_CLOEXEC) == 0);
	close(p[0]);
	fds[2] = p[1];
	FUZZ_CHECK(fds[0] >= 0 && fds[1] >= 0);
}

static int decode(const OpsMethod *m, json_object *params, OpsFds *f, void **ret_req,
		  const char **ret_field)
{
	void *req = calloc(1, m->request_size);
	int r;

	FUZZ_CHECK(req);
	m->request_init(req);
	*f = (OpsFds){.fds = fds, .n = ELEMENTSOF(fds), .trace_fd = -EBADF};
	*ret_field = NULL;
	r = ops_request_decode(m, params, f, req, ret_field);
	if (r < 0) {
		m->request_done(req);
		free(req);
		req = NULL;
	}
	*ret_req = req;
	return r;
}

static void check_taken(const OpsMethod *m, json_object *params, void *req, const OpsFds *f)
{
	_cleanup_json_ json_object *again = NULL, *err = NULL;
	const char *field, *reason, *name;
	OpsTargets t = {};
	OpsFds f2;
	void *req2;
	bool known = f->trace_fd < 0;
	int r;

	for (size_t i = 0; i < ELEMENTSOF(fds); i++)
		known = known || f->trace_fd == fds[i];
	FUZZ_CHECK(known);

	/* What mountd sends its worker. */
	again = json_tokener_parse(json_object_to_json_string_ext(
		params, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	FUZZ_CHECK(again);
	r = decode(m, again, &f2, &req2, &field);
	if (r < 0)
		fprintf(stderr, "the worker refuses %s: %s\n", field,
			json_object_to_json_string(params));
	FUZZ_CHECK(r >= 0);
	m->request_done(req2);
	free(req2);

	if (m->targets)
		m->targets(req, &t);
	FUZZ_CHECK(!t.target || t.target_field);
	FUZZ_CHECK(!t.source || t.source_field);
	r = ops_restrict_unprivileged(m, req, &reason);
	FUZZ_CHECK(r == 0 || (r == -EPERM && reason));
	if (r == 0 && t.attr && t.new_mount) {
		const uint64_t kept = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;

		FUZZ_CHECK((t.attr->set & kept) == kept && !(t.attr->clear & kept));
	}
	FUZZ_CHECK(ops_error_encode(m, req, -EOPNOTSUPP, NULL, &name, &err) == 0 && name && err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_json_ json_object *msg = NULL, *empty = NULL;
	json_tokener *tok;
	json_object *v, *params;
	const OpsMethod *m;
	const char *field;
	void *req;
	OpsFds f;
	int r;

	open_fds();
	tok = json_tokener_new();
	FUZZ_CHECK(tok);
	/* As the varlink transport parses a message. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	msg = json_tokener_parse_ex(tok, (const char *)data, (int)MIN(size, (size_t)INT32_MAX));
	json_tokener_free(tok);
	if (!json_object_object_get_ex(msg, "method", &v) ||
	    !(m = ops_method_find(json_object_get_string(v))))
		return 0;
	if (!json_object_object_get_ex(msg, "parameters", &params) || !params)
		params = empty = json_object_new_object();
	if (!json_object_is_type(params, json_type_object))
		return 0; /* the transport closes the connection */

	r = decode(m, params, &f, &req, &field);
	if (fuzz_debug())
		fprintf(stderr, "%s: %s%s\n", m->name, r < 0 ? "refused, field " : "taken",
			r < 0 ? field : "");
	if (r < 0) {
		FUZZ_CHECK(r == -EINVAL || r == -ENOMEM);
		FUZZ_CHECK(field); /* "" for an unknown member named "" */
		return 0;
	}
	check_taken(m, params, req, &f);
	m->request_done(req);
	free(req);
	return 0;
}
