/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A D-Bus method call's arguments as the JSON parameters of its method in
 * the operation table (the shape of the API is described in front-bus.c): the
 * positional arguments the table lists, then the a{sv} options, nested
 * a{sv} as objects, "h" values as indexes into fds.  Pure conversion, no
 * bus connection needed: fuzzed on its own (tests/fuzz/fuzz-bus-args.c).
 */

#include <stddef.h>

#include <json-c/json.h>
#include <systemd/sd-bus.h>

#include "ops-table.h"

typedef struct BusArgs {
	sd_bus_message *m; /* borrowed; holds the fds the parameters name */
	json_object *params;
	int *fds; /* the message's, by the index the parameters use */
	size_t n_fds;
	char field[160]; /* the argument that did not convert */
} BusArgs;

/* Read m's arguments (from the first one) as om's parameters into a, to be
 * released with bus_args_done() either way.  -ENOMEM, or another negative
 * errno with a->field naming the argument as a dotted path
 * ("placement.namespace.pid", "parameters[0].value"; "parameters" when no
 * narrower one is known). */
int bus_args_to_json(sd_bus_message *m, const OpsMethod *om, BusArgs *a);
void bus_args_done(BusArgs *a);
