/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Base64 (RFC 4648): binary fsconfig() values travel as base64 text in
 * JSON, and as "ay" on D-Bus. */

#include <stddef.h>

/* Padding optional; -EINVAL for anything that is not base64. */
int base64_decode(const char *s, void **ret, size_t *ret_size);
/* NUL-terminated, padded. */
int base64_encode(const void *data, size_t size, char **ret);
