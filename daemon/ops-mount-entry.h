/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One mount as List, Watch and both front ends give it (the IDL's
 * MountEntry), described once: each field with its member of OpsMountEntry
 * (ops.h), its JSON name and its kind.  The kind says how the field is
 * written as JSON (json-c objects, and List's direct text), its IDL type
 * and its D-Bus type; the D-Bus signature of a mount follows from the list.
 * test-ops-table holds the list against the IDL.  A field added here is in
 * every writer; bus.c appends by kind.
 */

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "ops.h"

#define OPS_MOUNT_ENTRY_FIELDS(X)                  \
	X(id, "id", U64)                           \
	X(parent_id, "parentId", U64)              \
	X(id_old, "oldId", U32)                    \
	X(parent_id_old, "oldParentId", U32)       \
	X(fstype, "fsType", STRING)                \
	X(source, "source", OPT_STRING)            \
	X(root, "root", STRING)                    \
	X(mount_point, "mountPoint", STRING)       \
	X(options, "options", OPT_STRING)          \
	X(attr, "attributes", ATTRIBUTES)          \
	X(propagation, "propagation", PROPAGATION) \
	X(peer_group, "peerGroup", U64)            \
	X(master, "master", U64)                   \
	X(dev_major, "device", DEVICE)

typedef enum OpsEntryKind {
	OPS_ENTRY_U64,	       /* uint64_t; int */
	OPS_ENTRY_U32,	       /* uint32_t; int */
	OPS_ENTRY_STRING,      /* char *, "" for NULL */
	OPS_ENTRY_OPT_STRING,  /* char *, left out when NULL (D-Bus: "") */
	OPS_ENTRY_ATTRIBUTES,  /* uint64_t MOUNT_ATTR_*; Attributes, D-Bus a{sv} */
	OPS_ENTRY_PROPAGATION, /* uint64_t MS_*; string */
	OPS_ENTRY_DEVICE,      /* uint32_t major, then minor; "major:minor" */
} OpsEntryKind;

/* Each kind's D-Bus type. */
#define OPS_ENTRY_SIG_U64	  "t"
#define OPS_ENTRY_SIG_U32	  "u"
#define OPS_ENTRY_SIG_STRING	  "s"
#define OPS_ENTRY_SIG_OPT_STRING  "s"
#define OPS_ENTRY_SIG_ATTRIBUTES  "a{sv}"
#define OPS_ENTRY_SIG_PROPAGATION "s"
#define OPS_ENTRY_SIG_DEVICE	  "s"
#define OPS_ENTRY_SIG_(member, name, kind) OPS_ENTRY_SIG_##kind

/* A mount as D-Bus carries it: a struct of the fields in order. */
#define OPS_MOUNT_ENTRY_SIGNATURE OPS_MOUNT_ENTRY_FIELDS(OPS_ENTRY_SIG_)

typedef struct OpsMountEntryField {
	const char *name;
	size_t name_len;
	OpsEntryKind kind;
	size_t offset; /* in OpsMountEntry */
} OpsMountEntryField;

extern const OpsMountEntryField ops_mount_entry_fields[]; /* name == NULL ends */

/* The IDL type of a kind ("int", "string", "Attributes"), and whether the
 * field is optional. */
const char *ops_entry_kind_idl(OpsEntryKind k, bool *ret_optional);

/* JSON of one mount, shared by Watch and the D-Bus front end. */
json_object *ops_mount_entry_to_json(const OpsMountEntry *e);
/* List's mounts as an array that serializes straight from the result (taken
 * from res, which is left empty); its elements are not objects of their
 * own.  NULL: no memory. */
json_object *ops_mounts_to_json(OpsListResult *res);
/* The JSON text of a List reply's mounts as List writes it, directly from
 * the entries (for the tests: it must equal ops_mount_entry_to_json()'s). */
char *ops_mounts_to_text(const OpsListResult *res);
