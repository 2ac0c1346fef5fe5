/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ops-call.h"
#include "util.h"

int ops_call_init(OpsCall *c, OpsCallKind kind, void *req, size_t size, MntLog *log)
{
	*c = (OpsCall){.kind = kind, .res = {.mount_fd = -EBADF}};
	c->req = malloc(size);
	if (!c->req)
		return -ENOMEM;
	memcpy(c->req, req, size);
	memset(req, 0, size);
	c->log = *log;
	*log = (MntLog){};
	return 0;
}

void ops_call_run(OpsCall *c)
{
	switch (c->kind) {
	case OPS_CALL_CREATE:
		c->r = ops_create(c->req, &c->res, &c->log);
		break;
	case OPS_CALL_BIND:
		c->r = ops_bind(c->req, &c->res, &c->log);
		break;
	case OPS_CALL_RECONFIGURE:
		c->r = ops_reconfigure(c->req, &c->log);
		break;
	case OPS_CALL_SETATTR:
		c->r = ops_setattr(c->req, &c->log);
		break;
	case OPS_CALL_MOVE:
		c->r = ops_move(c->req, &c->log);
		break;
	case OPS_CALL_UNMOUNT:
		c->r = ops_unmount(c->req, &c->log);
		break;
	case OPS_CALL_INFO:
		c->r = ops_info(c->req, &c->info, &c->log);
		break;
	default:
		c->r = -EINVAL;
	}
	mnt_log_trace_end(&c->log);
}

void ops_call_done(OpsCall *c)
{
	if (c->req)
		switch (c->kind) {
		case OPS_CALL_CREATE:
			ops_create_request_done(c->req);
			break;
		case OPS_CALL_BIND:
			ops_bind_request_done(c->req);
			break;
		case OPS_CALL_RECONFIGURE:
			ops_reconfigure_request_done(c->req);
			break;
		case OPS_CALL_SETATTR:
			ops_setattr_request_done(c->req);
			break;
		case OPS_CALL_MOVE:
			ops_move_request_done(c->req);
			break;
		case OPS_CALL_UNMOUNT:
			ops_unmount_request_done(c->req);
			break;
		case OPS_CALL_INFO:
			ops_info_request_done(c->req);
			break;
		default:
			break;
		}
	free(c->req);
	ops_mount_result_done(&c->res);
	ops_info_result_done(&c->info);
	mnt_log_done(&c->log);
	*c = (OpsCall){.res = {.mount_fd = -EBADF}};
}
