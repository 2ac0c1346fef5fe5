// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Info's decoding of fsinfo() answers (daemon/ops-info.c), with the system
 * call replaced (linked with --wrap=mnt_fsinfo): the input is the answer a
 * kernel gives, [attribute][repeat][growth] then the value's bytes, the
 * value being those bytes repeated repeat+1 times and growing by growth
 * bytes on every call, as a value that changes between the calls would.
 * The kernel's side of the contract is kept (fsinfo(2)): at most bufsize
 * bytes copied, the full size returned.  A string must come out whole, up
 * to its first NUL, however long; a growing value must not loop for ever.
 */
#include <errno.h>

#include "fuzz.h"
#include "ops.h"
#include "util.h"

static struct {
	const uint8_t *pattern;
	size_t n_pattern, repeat, growth;
	unsigned calls;
} answer;

static size_t value_size(void)
{
	return answer.n_pattern * answer.repeat + answer.growth * answer.calls;
}

static uint8_t value_byte(size_t i)
{
	size_t all = answer.n_pattern * answer.repeat;

	return i < all ? answer.pattern[i % answer.n_pattern] : 'g';
}

int __wrap_mnt_fsinfo(int dfd, const char *path, unsigned at_flags, uint32_t request, uint32_t nth,
		      uint32_t mth, void *buf, size_t bufsize);
int __wrap_mnt_fsinfo(int dfd, const char *path, unsigned at_flags, uint32_t request, uint32_t nth,
		      uint32_t mth, void *buf, size_t bufsize)
{
	size_t size = value_size();

	(void)dfd, (void)path, (void)at_flags, (void)request, (void)nth, (void)mth;
	answer.calls++;
	if (size == 0)
		return -ENODATA; /* as for an empty string */
	for (size_t i = 0; i < MIN(size, bufsize); i++)
		((uint8_t *)buf)[i] = value_byte(i);
	return size > INT32_MAX ? -EOVERFLOW : (int)size;
}

/* The attributes decode_fsinfo() answers with one string, "value". */
static bool is_string(int attr)
{
	return attr == 7 || (attr >= 9 && attr <= 13) || (attr >= 15 && attr <= 18);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FuzzInput in = {data, size};
	int attr = fuzz_u8(&in) % 20;
	OpsInfoRequest req = {.nth = 0};
	OpsInfoResult res = {};
	size_t final;
	int r;

	answer.repeat = fuzz_u8(&in) + 1;
	answer.growth = fuzz_u8(&in);
	answer.pattern = fuzz_bytes(&in, in.size, &answer.n_pattern);
	answer.calls = 0;
	r = ops_info_fsinfo(-EBADF, &req, attr, &res);
	if (fuzz_debug())
		fprintf(stderr, "attr %d: %d after %u calls, %zu values\n", attr, r, answer.calls,
			res.n_values);
	FUZZ_CHECK(answer.calls >= 1 && answer.calls <= 4);
	answer.calls--;
	final = value_size(); /* what the last call reported */
	if (r < 0) {
		FUZZ_CHECK(r == -ENODATA || r == -EPROTO || r == -EOVERFLOW || r == -ENOMEM);
		FUZZ_CHECK(r != -EOVERFLOW || answer.growth || final > (1U << 20));
		FUZZ_CHECK(res.n_values == 0);
		return 0;
	}
	FUZZ_CHECK(res.source == OPS_INFO_FSINFO && res.n_values > 0);
	if (is_string(attr)) {
		size_t len = 0;

		while (len < final && value_byte(len))
			len++;
		FUZZ_CHECK(res.n_values == 1 && res.values[0].type == OPS_VALUE_STRING);
		FUZZ_CHECK(strlen(res.values[0].str) == len);
		for (size_t i = 0; i < len; i++)
			FUZZ_CHECK((uint8_t)res.values[0].str[i] == value_byte(i));
	}
	ops_info_result_done(&res);
	return 0;
}
