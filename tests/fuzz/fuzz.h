/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the libFuzzer harnesses share: a check that stops the run (a wrong
 * answer is a finding as much as a crash), and a reader that takes the
 * choices a harness makes (chunk sizes, types, counts) from the input.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                         \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                 \
		}                                                                                \
	} while (0)

/* FUZZ_DEBUG=1 in the environment: harnesses say what they made of an
 * input (for writing seeds: fuzz-NAME -runs=0 SEED). */
static inline bool fuzz_debug(void)
{
	static int on = -1;

	if (on < 0)
		on = getenv("FUZZ_DEBUG") != NULL;
	return on;
}

typedef struct FuzzInput {
	const uint8_t *data;
	size_t size;
} FuzzInput;

static inline uint8_t fuzz_u8(FuzzInput *in)
{
	if (!in->size)
		return 0;
	in->size--;
	return *in->data++;
}

/* Up to n bytes (fewer at the end of the input); *ret_n says how many. */
static inline const uint8_t *fuzz_bytes(FuzzInput *in, size_t n, size_t *ret_n)
{
	const uint8_t *p = in->data;

	if (n > in->size)
		n = in->size;
	in->data += n;
	in->size -= n;
	*ret_n = n;
	return p;
}

/* A NUL-terminated copy of up to n bytes (it ends at a NUL among them);
 * NULL only when out of memory. */
static inline char *fuzz_string(FuzzInput *in, size_t n)
{
	size_t got;
	const uint8_t *p = fuzz_bytes(in, n, &got);

	return strndup((const char *)p, got);
}
