/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * mountd's own lines for the journal: stderr, which systemd connects to it,
 * with the line's priority as its "<N>" prefix (sd-daemon(3)) and "mountd: "
 * before the text; varlink/ writes its own the same way ("varlink: ").
 * Requests have their structured records apart (request-audit.c).
 */

#include <stdio.h>

#include <systemd/sd-daemon.h>

#define log_full(level, fmt, ...) fprintf(stderr, level "mountd: " fmt "\n", ##__VA_ARGS__)
#define log_error(fmt, ...)	  log_full(SD_ERR, fmt, ##__VA_ARGS__)
#define log_warning(fmt, ...)	  log_full(SD_WARNING, fmt, ##__VA_ARGS__)
#define log_notice(fmt, ...)	  log_full(SD_NOTICE, fmt, ##__VA_ARGS__)
#define log_info(fmt, ...)	  log_full(SD_INFO, fmt, ##__VA_ARGS__)
