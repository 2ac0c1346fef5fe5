/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "util.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64_decode(const char *s, void **ret, size_t *ret_size)
{
	size_t n = strlen(s), out = 0;
	uint32_t acc = 0;
	int bits = 0;
	_cleanup_free_ uint8_t *buf = malloc(n / 4 * 3 + 3);

	if (!buf)
		return -ENOMEM;
	while (n > 0 && s[n - 1] == '=')
		n--;
	for (size_t i = 0; i < n; i++) {
		const char *c = s[i] ? strchr(alphabet, s[i]) : NULL;

		if (!c)
			return -EINVAL;
		acc = acc << 6 | (uint32_t)(c - alphabet);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[out++] = (uint8_t)(acc >> bits);
		}
	}
	/* Leftover bits must be padding zeros, and a lone 6-bit group is not
	 * a byte. */
	if (bits >= 6 || (acc & ((1u << bits) - 1)))
		return -EINVAL;
	*ret = TAKE_PTR(buf);
	*ret_size = out;
	return 0;
}

int base64_encode(const void *data, size_t size, char **ret)
{
	const uint8_t *in = data;
	char *out = malloc((size + 2) / 3 * 4 + 1), *o = out;

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < size; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;

		if (i + 1 < size)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < size)
			v |= in[i + 2];
		*o++ = alphabet[v >> 18 & 63];
		*o++ = alphabet[v >> 12 & 63];
		*o++ = i + 1 < size ? alphabet[v >> 6 & 63] : '=';
		*o++ = i + 2 < size ? alphabet[v & 63] : '=';
	}
	*o = 0;
	*ret = out;
	return 0;
}
