/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The worker side of the executor (see ops-table.h): one request as the
 * executor carries it, decoded, run with the caller's rights and answered;
 * and the loop's side of a method that runs without a worker.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "ops-table.h"
#include "executor-rights.h"
#include "executor-serial.h"
#include "ops-mount-owner.h"
#include "util.h"

/* ---- the worker side ------------------------------------------------------------ */

static int answer(json_object *reply, char **ret)
{
	/* As the varlink server writes it: mountd may pass it on verbatim. */
	const char *s = json_object_to_json_string_ext(
		reply, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

	if (!s)
		return -ENOMEM;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

static int answer_error(const char *name, json_object *params, char **ret)
{
	_cleanup_json_ json_object *o = json_object_new_object();

	if (json_add(o, "error", json_object_new_string(name)) < 0) {
		json_object_put(params);
		return -ENOMEM;
	}
	if (json_add(o, "parameters", params) < 0)
		return -ENOMEM;
	return answer(o, ret);
}

/* The caller's identity mountd put in the message, root's too: a message
 * without one, or with one that is not whole, is refused rather than taken
 * for root's. */
static int caller_rights(json_object *msg, Rights *ret, gid_t **ret_groups)
{
	json_object *c, *v;
	size_t n;

	*ret = (Rights){};
	*ret_groups = NULL;
	if (!json_object_object_get_ex(msg, "caller", &c) ||
	    !json_object_object_get_ex(c, "uid", &v) || !json_object_is_type(v, json_type_int))
		return -EBADMSG;
	ret->uid = (uid_t)json_object_get_int64(v);
	if (!json_object_object_get_ex(c, "gid", &v) || !json_object_is_type(v, json_type_int))
		return -EBADMSG;
	ret->gid = (gid_t)json_object_get_int64(v);
	/* Who the devices the request makes count against: the caller
	 * itself in a message without one. */
	ret->principal = json_object_object_get_ex(c, "principal", &v) &&
					 json_object_is_type(v, json_type_int)
				 ? (uid_t)json_object_get_int64(v)
				 : ret->uid;
	ret->images_signed_only =
		json_object_object_get_ex(c, "imagesSignedOnly", &v) && json_object_get_boolean(v);
	if (json_object_object_get_ex(c, "groups", &v) && (n = json_object_array_length(v)) > 0) {
		*ret_groups = calloc(n, sizeof(gid_t));
		if (!*ret_groups)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			(*ret_groups)[i] =
				(gid_t)json_object_get_int64(json_object_array_get_idx(v, i));
		ret->groups = *ret_groups;
		ret->n_groups = n;
	}
	return 0;
}

int ops_table_execute_nonblocking(const OpsMethod *m, const void *req, int root_fd,
				  uint64_t mnt_ns_id, json_object **ret_parameters)
{
	_cleanup_(mnt_log_done) MntLog log = {};
	OpsResult res = OPS_RESULT_NULL;
	int r, fd = -EBADF;

	*ret_parameters = NULL;
	if (!m->execute_nonblocking)
		return -EAGAIN;
	r = m->execute_nonblocking(req, root_fd, mnt_ns_id, &res);
	if (r >= 0) {
		r = ops_reply_encode(m, &res, &log, ret_parameters, &fd);
		/* No fds leave the loop this way: a result with one is a
		 * worker's to send. */
		if (r >= 0 && fd >= 0) {
			json_object_put(*ret_parameters);
			*ret_parameters = NULL;
			r = -EAGAIN;
		}
	}
	safe_close(fd);
	m->result_done(&res);
	return r;
}

int ops_table_execute(const char *request, int *fds, size_t n_fds, char **ret_reply, int **ret_fds,
		      size_t *ret_n_fds)
{
	_cleanup_free_ gid_t *groups = NULL;
	Rights rights;
	_cleanup_json_ json_object *msg = NULL, *reply = NULL, *params = NULL;
	_cleanup_(mnt_log_done) MntLog log = {};
	_cleanup_free_ void *req = NULL;
	OpsFds f = {.fds = fds, .n = n_fds, .trace_fd = -EBADF};
	OpsResult res = OPS_RESULT_NULL;
	const char *field, *name;
	const OpsMethod *m;
	json_object *v;
	int r, fd = -EBADF, serial = -EBADF;

	*ret_reply = NULL;
	*ret_fds = NULL;
	*ret_n_fds = 0;
	msg = json_tokener_parse(request);
	if (!msg || !json_object_object_get_ex(msg, "method", &v) ||
	    !(m = ops_method_find(json_object_get_string(v))) || m->run != OPS_RUN_WORKER)
		return -EBADMSG;
	json_object_object_get_ex(msg, "parameters", &v);

	req = malloc(m->request_size);
	if (!req)
		return -ENOMEM;
	m->request_init(req);
	r = ops_request_decode(m, v, &f, req, &field);
	if (r < 0) {
		/* mountd decoded the same request before: this is a bug. */
		m->request_done(req);
		params = json_object_new_object();
		if (json_add(params, "parameter", json_object_new_string(field)) < 0)
			return -ENOMEM;
		return answer_error(OPS_ERROR_NAME_INVALID_PARAMETER, TAKE_PTR(params), ret_reply);
	}
	if (f.trace_fd >= 0) {
		int t = fcntl(f.trace_fd, F_DUPFD_CLOEXEC, 3);

		r = t < 0 ? negative_errno() : mnt_log_trace(&log, t);
		if (r < 0) {
			m->request_done(req);
			return r;
		}
	}
	r = caller_rights(msg, &rights, &groups);
	if (r >= 0 && rights.uid != 0) {
		const char *reason;

		r = ops_restrict_unprivileged(m, req, &reason);
	}
	/* A caller's changes one at a time, so that none acts between
	 * another's check and its act (executor-serial.h); root's are its
	 * own business. */
	if (r >= 0 && rights.uid != 0 && !m->reads) {
		serial = serial_lock(rights.principal);
		if (serial < 0 && serial != -EBADF) {
			r = serial;
			mnt_log_fail(&log, "serial");
		}
	}
	if (r >= 0)
		r = rights_enter(&rights);
	if (r >= 0) {
		r = m->execute(req, &res, &log);
		rights_leave();
		/* Before the next change of the caller's may ask whose it is. */
		if (r >= 0 && rights.uid != 0 && res.mount.mount_id != 0) {
			int k = ops_mount_record(rights.principal, res.mount.mount_id);

			/* The mount is made: not undone for its record, which
			 * only lets the caller change it later. */
			if (k < 0)
				(void)mnt_log_add(&log, "record", 'w',
						  "mountd: the new mount is not recorded as the "
						  "caller's");
		}
	} else
		mnt_log_fail(&log, "credentials");
	serial_unlock(serial);
	/* The trace's reader sees EOF before the reply: no copy of the fd
	 * may stay open here. */
	mnt_log_trace_end(&log);
	for (size_t i = 0; f.trace_fd >= 0 && i < n_fds; i++)
		if (fds[i] == f.trace_fd)
			fds[i] = safe_close(fds[i]);
	if (r < 0)
		r = ops_error_encode(m, req, r, &log, &name, &params) < 0
			    ? -ENOMEM
			    : answer_error(name, TAKE_PTR(params), ret_reply);
	else {
		r = ops_reply_encode(m, &res, &log, &params, &fd);
		if (r >= 0) {
			reply = json_object_new_object();
			r = json_add(reply, "parameters", TAKE_PTR(params));
			if (r >= 0)
				r = answer(reply, ret_reply);
		}
		if (r >= 0 && fd >= 0) {
			*ret_fds = malloc(sizeof(int));
			if (!*ret_fds)
				r = -ENOMEM;
			else {
				(*ret_fds)[0] = TAKE_FD(fd);
				*ret_n_fds = 1;
			}
		}
	}
	safe_close(fd);
	m->result_done(&res);
	m->request_done(req);
	return r;
}
