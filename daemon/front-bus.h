/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The D-Bus front end: io.mountd1 on the system bus, object /io/mountd1,
 * interface io.mountd1.Manager.  The same operations as io.mountd.Mount over
 * varlink, decoded into the same Ops*Request structs (ops.h) and answered
 * from the same results; see front-bus.c for the method signatures.
 *
 * The bus is optional: mountd serves varlink without it, so a failure of
 * bus_front_new() is for the caller to log, not to die of.
 */

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#define BUS_NAME      "io.mountd1"
#define BUS_PATH      "/io/mountd1"
#define BUS_INTERFACE "io.mountd1.Manager"

/* The error names are the table's: daemon/ops-errors.c. */

typedef struct BusFront BusFront;

/* Connect to the system bus, export the object and ask for the name (the
 * answer arrives asynchronously; a refusal is logged). */
int bus_front_new(BusFront **ret, sd_event *event);
BusFront *bus_front_free(BusFront *b);
static inline void bus_front_freep(BusFront **b)
{
	if (*b)
		bus_front_free(*b);
}

/* Graceful stop: give up the name, so new calls go to the next instance
 * (bus activation), and answer every call queued before that.  cb runs once
 * when this is done (immediately if there is no bus left). */
void bus_front_stop(BusFront *b, void (*cb)(BusFront *, void *), void *userdata);
bool bus_front_is_drained(BusFront *b);

/* CLOCK_MONOTONIC time (usec) of the last method call answered. */
uint64_t bus_front_last_activity(BusFront *b);
