/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "change.h"
#include "util.h"

int change_init(Change *c, ChangeKind kind, void *req, size_t size, MntLog *log)
{
	*c = (Change){.kind = kind, .res = {.mount_fd = -EBADF}};
	c->req = malloc(size);
	if (!c->req)
		return -ENOMEM;
	memcpy(c->req, req, size);
	memset(req, 0, size);
	c->log = *log;
	*log = (MntLog){};
	return 0;
}

void change_run(Change *c)
{
	switch (c->kind) {
	case CHANGE_CREATE:
		c->r = ops_create(c->req, &c->res, &c->log);
		break;
	case CHANGE_BIND:
		c->r = ops_bind(c->req, &c->res, &c->log);
		break;
	case CHANGE_RECONFIGURE:
		c->r = ops_reconfigure(c->req, &c->log);
		break;
	case CHANGE_SETATTR:
		c->r = ops_setattr(c->req, &c->log);
		break;
	case CHANGE_MOVE:
		c->r = ops_move(c->req, &c->log);
		break;
	case CHANGE_UNMOUNT:
		c->r = ops_unmount(c->req, &c->log);
		break;
	default:
		c->r = -EINVAL;
	}
	mnt_log_trace_end(&c->log);
}

void change_done(Change *c)
{
	if (c->req)
		switch (c->kind) {
		case CHANGE_CREATE:
			ops_create_request_done(c->req);
			break;
		case CHANGE_BIND:
			ops_bind_request_done(c->req);
			break;
		case CHANGE_RECONFIGURE:
			ops_reconfigure_request_done(c->req);
			break;
		case CHANGE_SETATTR:
			ops_setattr_request_done(c->req);
			break;
		case CHANGE_MOVE:
			ops_move_request_done(c->req);
			break;
		case CHANGE_UNMOUNT:
			ops_unmount_request_done(c->req);
			break;
		default:
			break;
		}
	free(c->req);
	ops_mount_result_done(&c->res);
	mnt_log_done(&c->log);
	*c = (Change){.res = {.mount_fd = -EBADF}};
}
