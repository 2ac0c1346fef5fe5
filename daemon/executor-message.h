/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The messages between mountd's loop and a worker, over a SOCK_SEQPACKET
 * pair: a header, the text (a request, an answer) and up to
 * EXEC_FDS_MAX fds beside it.  A text too large for one datagram travels
 * in a sealed memfd, the message's last fd, so that the reader gets
 * exactly what was written.
 */

#include <stddef.h>
#include <stdint.h>

#include "executor.h"

enum {
	EXEC_MSG_TEXT_IN_MEMFD = 1 << 0, /* the last fd holds the text */
	EXEC_MSG_NO_ANSWER = 1 << 1,	 /* the handler failed */
	EXEC_MSG_ROOT = 1 << 2,		 /* a worker's first: its namespace's root */
	EXEC_MSG_REPLY_FD = 1 << 3,	 /* a job's: the last fd is the client's socket */
};

/* Send text (NULL: none) with flags and fds; written is how much of an
 * answer the worker wrote to the client itself.  send_flags as
 * sendmsg()'s. */
int exec_msg_send_written(int sock, const char *text, uint32_t flags, uint32_t written,
			  const int *fds, size_t n_fds, int send_flags);
int exec_msg_send(int sock, const char *text, uint32_t flags, const int *fds, size_t n_fds,
		  int send_flags);

/* One message: 0 with its text (NULL for none) and fds, or -EPIPE at EOF,
 * or another negative errno for a broken message. */
int exec_msg_recv_written(int sock, int recv_flags, uint32_t *ret_flags, uint32_t *ret_written,
			  char **ret_text, int **ret_fds, size_t *ret_n_fds);
int exec_msg_recv(int sock, int recv_flags, uint32_t *ret_flags, char **ret_text, int **ret_fds,
		  size_t *ret_n_fds);
