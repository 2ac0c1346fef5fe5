/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One mount as List, Watch and both front ends give it (the IDL's
 * MountEntry): the fields are shared/mount-entry.h's MOUNT_ENTRY_FIELDS,
 * each with its JSON name, its kind and its member of OpsMountEntry (ops.h).
 * The kind says how the field is written as JSON (json-c objects, and
 * List's direct text), its IDL type and its D-Bus type; the D-Bus signature
 * of a mount follows from the list.  A field added there is in every
 * writer; front-bus.c appends by kind.
 */

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "mount-entry.h"
#include "ops.h"

/* Each kind's D-Bus type. */
#define OPS_ENTRY_SIG_U64				  "t"
#define OPS_ENTRY_SIG_U32				  "u"
#define OPS_ENTRY_SIG_STRING				  "s"
#define OPS_ENTRY_SIG_OPT_STRING			  "s"
#define OPS_ENTRY_SIG_ATTRIBUTES			  "a{sv}"
#define OPS_ENTRY_SIG_PROPAGATION			  "s"
#define OPS_ENTRY_SIG_DEVICE				  "s"
#define OPS_ENTRY_SIG_(name, kind, member, client_member) OPS_ENTRY_SIG_##kind

/* A mount as D-Bus carries it: a struct of the fields in order. */
#define OPS_MOUNT_ENTRY_SIGNATURE MOUNT_ENTRY_FIELDS(OPS_ENTRY_SIG_)

typedef struct OpsMountEntryField {
	const char *name;
	size_t name_len;
	MountEntryKind kind;
	size_t offset; /* in OpsMountEntry */
} OpsMountEntryField;

extern const OpsMountEntryField ops_mount_entry_fields[]; /* name == NULL ends */

/* The IDL type of a kind ("int", "string", "Attributes"), and whether the
 * field is optional. */
const char *ops_entry_kind_idl(MountEntryKind k, bool *ret_optional);

/* JSON of one mount, shared by Watch and the D-Bus front end. */
json_object *ops_mount_entry_to_json(const OpsMountEntry *e);
/* List's mounts as an array that serializes straight from the result (taken
 * from res, which is left empty); its elements are not objects of their
 * own.  NULL: no memory. */
json_object *ops_mounts_to_json(OpsListResult *res);
/* The JSON text of a List reply's mounts as List writes it, directly from
 * the entries (for the tests: it must equal ops_mount_entry_to_json()'s). */
char *ops_mounts_to_text(const OpsListResult *res);
