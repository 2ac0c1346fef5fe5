/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Images whose bytes are checked by the kernel as they are read: a
 * dm-verity device (through libcryptsetup) over a data and a hash area on
 * autoclear read-only loop devices over the caller's fds: one over both
 * where a DDI's hash partition follows its data partition, else one each.
 *
 * Two shapes: a Discoverable Disk Image (the UAPI group's partition types,
 * as systemd-repart and mkosi make them) with a root (else usr) partition
 * for this architecture, its -verity partition and optionally its
 * -verity-sig partition; or a bare filesystem image with its hash tree in
 * a second fd and a root hash (and a PKCS#7 signature of it) given in the
 * request.
 *
 * Trust is the signature's: a detached PKCS#7 signature of the root hash's
 * hex string by a certificate in mountd's own /etc/verity.d/ (root's
 * files, read from mountd's root, never the target's), else one the
 * kernel's keyring holds (it checks that itself at activation).  Where
 * the root hash comes from does not matter beyond that: the kernel
 * compares every block read with the tree under that hash.
 */

#include <stdbool.h>
#include <stdint.h>

#include "sys-mnt.h"

struct crypt_device;

typedef struct VerityDev {
	struct crypt_device *cd;
	char *name;	 /* the device-mapper name, "mountd-verity-..." */
	char *node;	 /* "/dev/dm-N", the kernel's name: what to mount */
	char *root_hash; /* hex */
	char *signer;	 /* the certificate that signed it; NULL: not signed */
	/* The device, open: it is set to be removed with its last user
	 * (deferred removal) as soon as it exists, so this fd keeps it until
	 * the mount holds it, and a mountd killed in between leaves none. */
	int fd;
	bool active;	  /* made, not yet set for deferred removal */
	unsigned devices; /* it and its loop devices, which go with it */
} VerityDev;

#define VERITY_DEV_NULL ((VerityDev){.fd = -EBADF})

/* A partition of a DDI, in bytes from the image's start. */
typedef struct DdiPart {
	bool found;
	uint64_t offset, size;
	char uuid[37];
} DdiPart;

/* A DDI's partitions for this architecture: data (root, else usr), its
 * hash tree, its signature. */
typedef struct Ddi {
	DdiPart data, hash, sig;
} Ddi;

/* What a request names besides the image fd: a bare image's hash tree and
 * root hash (hex) and signature (DER), or nothing for a DDI. */
typedef struct VerityRequest {
	int hash_fd; /* a bare image's; unused for a DDI */
	const char *root_hash;
	const void *signature;
	size_t signature_size;
	bool signed_only; /* refuse what no trusted key signed (EKEYREJECTED) */
} VerityRequest;

/* Drops what is still ours: a device the mount did not take goes with
 * the fd (or now, if it was never set to). */
void verity_done(VerityDev *d);
static inline void verity_donep(VerityDev *d)
{
	verity_done(d);
}

/* Whether the image (reader: loopdev_image_reader()'s) is a DDI with a
 * verity partition for this architecture: 1 yes, with its partitions in
 * *ret; 0 no (anything else: a plain image); <0 on error.  More than one
 * root (or usr) partition of this architecture is -ENOTUNIQ: which of them
 * would be checked is not the caller's to leave open. */
int verity_ddi_probe(int reader, Ddi *ret, MntLog *log);

/* Sets the device up (steps "verity:*") over a DDI's partitions (ddi, from
 * verity_ddi_probe() on reader) or over a bare image and vr's hash fd
 * (ddi NULL), with the filesystem type found in the data area into
 * *ret_fstype when asked. */
int verity_attach(int image_fd, int reader, const Ddi *ddi, const VerityRequest *vr, VerityDev *ret,
		  char **ret_fstype, MntLog *log);

/* After a failed mount: whether the kernel found a block that does not
 * match the tree, which the failure then was. */
bool verity_corrupted(VerityDev *d);

/* What the kernel checks a dm-verity device against, from its table. */
typedef struct VerityInfo {
	char *name;	      /* the device-mapper name */
	char *root_hash;      /* hex */
	char *hash_algorithm; /* "sha256" */
	uint32_t data_block_size, hash_block_size;
	uint64_t data_blocks;
	bool corrupted; /* a block read did not match the tree */
} VerityInfo;

void verity_info_done(VerityInfo *i);
/* Of the dm-verity device fd's filesystem is on: -ENODATA when it is on
 * none (no device, or one of another kind). */
int verity_info(int fd, VerityInfo *ret);
