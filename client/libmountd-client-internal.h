/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What libmountd-client.c shares with the other files of the library (the
 * List reader): not installed, not API.
 */

#include "libmountd-client.h"

/* Send a call; the transport errors of mountd_client_call(). */
int client_send_call(MountdClient *c, const char *method, json_object *params, const int *fds,
		     size_t n_fds, bool more, bool oneway);

/* Read the next message and take its text (NUL-terminated, to free()) into
 * *ret_text and its fds into ret (whose other fields stay empty). */
int client_receive_text(MountdClient *c, char **ret_text, MountdReply *ret);

/* A message's text into ret's error, continues and parameters. */
int client_parse_reply_text(const char *text, MountdReply *ret);
