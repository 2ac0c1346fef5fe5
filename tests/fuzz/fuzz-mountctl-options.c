// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mountctl's -o lists (client/mountctl-options.c) in each mode: the first
 * byte picks the mode, the rest is the list.  A refusal must say why and
 * which word; what is taken must be only what the mode allows (bind and
 * set: attributes and propagation; reconfigure: parameters only), each
 * parameter with a key.
 */
#include <errno.h>

#include "fuzz.h"
#include "mountctl.h"
#include "util.h"

static void check_taken(const MountOptions *o, OptionsMode mode)
{
	size_t n = o->parameters ? json_object_array_length(o->parameters) : 0;

	if (mode == OPTIONS_BIND || mode == OPTIONS_SET)
		FUZZ_CHECK(n == 0);
	if (mode == OPTIONS_RECONFIGURE)
		FUZZ_CHECK(!o->attributes && !o->propagation && !o->recursive);
	if (mode == OPTIONS_REMOUNT)
		FUZZ_CHECK(!o->propagation);
	FUZZ_CHECK(!o->recursive || o->propagation);
	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(o->parameters, i), *v;
		const char *key;

		FUZZ_CHECK(json_object_object_get_ex(p, "key", &v));
		key = json_object_get_string(v);
		FUZZ_CHECK(key && *key && !strchr(key, '='));
		FUZZ_CHECK(json_object_object_get_ex(p, "type", &v));
	}
	if (o->attributes)
		FUZZ_CHECK(json_object_to_json_string(o->attributes));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FuzzInput in = {data, size};
	OptionsMode mode = fuzz_u8(&in) % (OPTIONS_RECONFIGURE + 1);
	_cleanup_free_ char *list = fuzz_string(&in, in.size);
	_cleanup_(mount_options_done) MountOptions o = {};
	_cleanup_free_ char *bad = NULL;
	const char *why = NULL;
	int r;

	if (!list)
		return 0;
	r = mount_options_parse(&o, mode, list, &bad, &why);
	if (fuzz_debug())
		fprintf(stderr, "mode %d: %d %s %s\n", mode, r, strna(bad), strna(why));
	if (r < 0) {
		FUZZ_CHECK(r == -EINVAL || r == -ENOMEM);
		FUZZ_CHECK(r != -EINVAL || (bad && why));
		return 0;
	}
	FUZZ_CHECK(!bad && !why);
	check_taken(&o, mode);
	return 0;
}
