/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A mount as io.mountd.Mount's MountEntry gives it, described once for
 * mountd (daemon/ops-mount-entry.c writes it) and its clients
 * (client/libmountd-list.c reads it): X(JSON name, kind, member of mountd's
 * OpsMountEntry, member of the client's MountdMount), in the order mountd
 * writes them.  tests/unit/test-ops-table holds the list against the IDL.
 */

#include <stdint.h>

#include <linux/mount.h>

#define MOUNT_ENTRY_FIELDS(X)                                   \
	X("id", U64, id, id)                                    \
	X("parentId", U64, parent_id, parent_id)                \
	X("oldId", U32, id_old, old_id)                         \
	X("oldParentId", U32, parent_id_old, old_parent_id)     \
	X("fsType", STRING, fstype, fstype)                     \
	X("source", OPT_STRING, source, source)                 \
	X("root", STRING, root, root)                           \
	X("mountPoint", STRING, mount_point, mount_point)       \
	X("options", OPT_STRING, options, options)              \
	X("attributes", ATTRIBUTES, attr, attributes)           \
	X("propagation", PROPAGATION, propagation, propagation) \
	X("peerGroup", U64, peer_group, peer_group)             \
	X("master", U64, master, master)                        \
	X("device", DEVICE, dev_major, dev_major)

typedef enum MountEntryKind {
	MOUNT_ENTRY_U64,	 /* uint64_t; int */
	MOUNT_ENTRY_U32,	 /* uint32_t; int */
	MOUNT_ENTRY_STRING,	 /* a string, "" for none */
	MOUNT_ENTRY_OPT_STRING,	 /* a string, left out (or null) when there is none */
	MOUNT_ENTRY_ATTRIBUTES,	 /* uint64_t MOUNT_ATTR_*; the IDL's Attributes */
	MOUNT_ENTRY_PROPAGATION, /* uint64_t MS_* as statmount(); MOUNT_PROPAGATIONS */
	MOUNT_ENTRY_DEVICE,	 /* uint32_t major, then minor; "major:minor" */
} MountEntryKind;

/* The boolean attributes: X(id, name, MOUNT_ATTR_* bit); the atime mode,
 * an enum, is apart. */
#define MOUNT_ATTRIBUTE_FLAGS(X)                           \
	X(rdonly, "readOnly", MOUNT_ATTR_RDONLY)           \
	X(nosuid, "noSuid", MOUNT_ATTR_NOSUID)             \
	X(nodev, "noDev", MOUNT_ATTR_NODEV)                \
	X(noexec, "noExec", MOUNT_ATTR_NOEXEC)             \
	X(nodiratime, "noDiratime", MOUNT_ATTR_NODIRATIME) \
	X(nosymfollow, "noSymfollow", MOUNT_ATTR_NOSYMFOLLOW)

/* The attributes object's name of one MOUNT_ATTR_* flag; NULL if none. */
static inline const char *mount_attribute_name(uint64_t bit)
{
#define MOUNT_ATTRIBUTE_NAME_(id, name, b) \
	if (bit == (b))                    \
		return name;
	MOUNT_ATTRIBUTE_FLAGS(MOUNT_ATTRIBUTE_NAME_)
#undef MOUNT_ATTRIBUTE_NAME_
	return NULL;
}

/* The attributes object's atime mode: X(name, MOUNT_ATTR_* value). */
#define MOUNT_ATIME_MODES(X)               \
	X("relatime", MOUNT_ATTR_RELATIME) \
	X("noatime", MOUNT_ATTR_NOATIME)   \
	X("strictatime", MOUNT_ATTR_STRICTATIME)

/* A mount's propagation as MountEntry names it: X(name, MS_* bit as
 * statmount() reports it), the first whose bit is set (a mount can be a
 * shared slave); one with none of them is private. */
#define MOUNT_PROPAGATIONS(X)              \
	X("shared", UINT64_C(1) << 20)     \
	X("slave", UINT64_C(1) << 19)      \
	X("unbindable", UINT64_C(1) << 17) \
	X("private", UINT64_C(1) << 18)
