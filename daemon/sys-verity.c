/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <json-c/json.h>
#include <libcryptsetup.h>
#include <libdevmapper.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>

#include "base64.h"
#include "executor-worker.h"
#include "fs-probe.h"
#include "sys-loopdev.h"
#include "sys-verity.h"
#include "test-hook.h"
#include "util.h"

/* The Discoverable Partitions Specification's types for this
 * architecture: a root partition first, else a usr one. */
typedef struct DdiTypes {
	const char *data, *hash, *sig;
} DdiTypes;

static const DdiTypes ddi_types[] = {
#if defined(__x86_64__)
	{"4f68bce3-e8cd-4db1-96e7-fbcaf984b709", "2c7357ed-ebd2-46d9-aec1-23d437ec2bf5",
	 "41092b05-9fc8-4523-994f-2def0408b176"},
	{"8484680c-9521-48c6-9c11-b0720656f69e", "77ff5f63-e7b6-4633-acf4-1565b864c0e6",
	 "e7bb33fb-06cf-4e81-8273-e543b413e2e2"},
#elif defined(__aarch64__)
	{"b921b045-1df0-41c3-af44-4c6f280d3fae", "df3300ce-d69f-4c92-978c-9bfb0f38d820",
	 "6db69de6-29f4-4758-a7a5-962190f00ce3"},
#endif
};

/* A root hash is a digest in hex: sha256 to sha512. */
#define ROOT_HASH_MAX 128
/* The signature partition holds a small JSON object, NUL-padded. */
#define SIG_PART_MAX (1024 * 1024)

/* libcryptsetup's own words, kept until a step fails: they explain a
 * failure, and are noise beside a success (it reports devices it probes
 * and cannot open, which do not matter to the activation). */
typedef struct CryptLog {
	char text[4][256];
	unsigned n;
} CryptLog;

static void verity_log(int level, const char *msg, void *userdata)
{
	CryptLog *l = userdata;
	char *t;
	size_t n;

	if (level != CRYPT_LOG_ERROR || l->n >= ELEMENTSOF(l->text))
		return;
	t = l->text[l->n++];
	snprintf(t, sizeof(l->text[0]), "%s", msg);
	n = strlen(t);
	while (n > 0 && t[n - 1] == '\n')
		t[--n] = '\0';
}

static void verity_log_quiet(int level, const char *msg, void *userdata)
{
}

static void crypt_freep(struct crypt_device **cd)
{
	if (*cd)
		crypt_free(*cd);
}

static int crypt_result(MntLog *log, const CryptLog *l, const char *step, uint64_t start, int r)
{
	for (unsigned i = 0; r < 0 && i < l->n; i++)
		(void)mnt_log_add(log, step, 'e', l->text[i]);
	return mnt_log_result(log, step, start, r);
}

/* A DDI is a GPT disk, whose header ("EFI PART") is at LBA 1: 512 or
 * 4096 bytes in.  Two small reads tell a filesystem image from a disk
 * before libblkid's partition probers read their dozens of places. */
static bool gpt_signature(int reader)
{
	static const off_t lba1[] = {512, 4096};

	for (size_t i = 0; i < ELEMENTSOF(lba1); i++) {
		char sig[8];

		if (pread(reader, sig, sizeof(sig), lba1[i]) == (ssize_t)sizeof(sig) &&
		    memcmp(sig, "EFI PART", sizeof(sig)) == 0)
			return true;
	}
	return false;
}

/* The partitions of the first type set of ddi_types[] the image has. */
static int ddi_find(int reader, Ddi *ret)
{
	_cleanup_blkid_ blkid_probe pr = NULL;
	blkid_partlist pl;
	int n, r;

	*ret = (Ddi){};
	if (!gpt_signature(reader))
		return 0;
	/* A DDI's table is GPT: the other probers need not look. */
	r = fs_probe_table(reader, 0, 0, "gpt", &pr);
	if (r < 0)
		return r == -ENXIO ? 0 : r;
	pl = blkid_probe_get_partitions(pr);
	if (!pl)
		return 0;
	n = blkid_partlist_numof_partitions(pl);
	for (size_t t = 0; t < ELEMENTSOF(ddi_types); t++) {
		Ddi d = {};

		for (int i = 0; i < n; i++) {
			blkid_partition p = blkid_partlist_get_partition(pl, i);
			const char *type = blkid_partition_get_type_string(p), *uuid;
			blkid_loff_t start = blkid_partition_get_start(p),
				     size = blkid_partition_get_size(p);
			DdiPart *slot;

			if (!type)
				continue;
			if (strcasecmp(type, ddi_types[t].data) == 0)
				slot = &d.data;
			else if (strcasecmp(type, ddi_types[t].hash) == 0)
				slot = &d.hash;
			else if (strcasecmp(type, ddi_types[t].sig) == 0)
				slot = &d.sig;
			else
				continue;
			/* Two of a kind: which one is checked would be
			 * mountd's guess. */
			if (slot->found)
				return -ENOTUNIQ;
			if (start < 0 || size <= 0)
				return -ENXIO;
			uuid = blkid_partition_get_uuid(p);
			*slot = (DdiPart){.found = true,
					  .offset = (uint64_t)start * 512,
					  .size = (uint64_t)size * 512};
			if (uuid)
				snprintf(slot->uuid, sizeof(slot->uuid), "%s", uuid);
		}
		if (d.data.found) {
			*ret = d;
			return 1;
		}
	}
	return 0;
}

int verity_ddi_probe(int reader, Ddi *ret, MntLog *log)
{
	uint64_t start = mnt_step_start();
	int r = ddi_find(reader, ret);

	if (r == -ENOTUNIQ)
		(void)mnt_log_add(log, "verity:partitions", 'e',
				  "mountd: the image has more than one partition of a type it "
				  "mounts; which is meant is not mountd's to guess");
	if (mnt_log_result(log, "verity:partitions", start, r) < 0)
		return r;
	return r > 0 && ret->hash.found;
}

static bool hex_valid(const char *s)
{
	size_t n = strlen(s);

	if (n < 64 || n > ROOT_HASH_MAX || n % 2)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

static void hex_to_bin(const char *s, unsigned char *out)
{
	for (size_t i = 0; s[2 * i]; i++) {
		char b[3] = {s[2 * i], s[2 * i + 1], 0};

		out[i] = (unsigned char)strtoul(b, NULL, 16);
	}
}

/* rootHash and signature from the -verity-sig partition's JSON. */
static int read_sig_partition(int reader, const DdiPart *p, char **ret_hash, void **ret_sig,
			      size_t *ret_sig_size, MntLog *log)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_json_ json_object *o = NULL;
	json_object *h, *s;
	size_t n = p->size;
	ssize_t k;

	if (n > SIG_PART_MAX)
		n = SIG_PART_MAX;
	buf = malloc(n + 1);
	if (!buf)
		return -ENOMEM;
	k = pread(reader, buf, n, (off_t)p->offset);
	if (k < 0)
		return negative_errno();
	buf[k] = '\0';
	o = json_tokener_parse(buf);
	if (!o || !json_object_object_get_ex(o, "rootHash", &h) ||
	    !json_object_is_type(h, json_type_string) ||
	    !json_object_object_get_ex(o, "signature", &s) ||
	    !json_object_is_type(s, json_type_string)) {
		(void)mnt_log_add(log, "verity:signature", 'e',
				  "mountd: the signature partition is not a JSON object with "
				  "rootHash and signature");
		return -EBADMSG;
	}
	if (!hex_valid(json_object_get_string(h))) {
		(void)mnt_log_add(log, "verity:signature", 'e',
				  "mountd: the signature partition's rootHash is not a hex digest");
		return -EBADMSG;
	}
	if (base64_decode(json_object_get_string(s), ret_sig, ret_sig_size) < 0) {
		(void)mnt_log_add(log, "verity:signature", 'e',
				  "mountd: the signature partition's signature is not base64");
		return -EBADMSG;
	}
	*ret_hash = strdup(json_object_get_string(h));
	if (!*ret_hash) {
		free(*ret_sig);
		*ret_sig = NULL;
		return -ENOMEM;
	}
	return 0;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(PKCS7 *, PKCS7_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(X509 *, X509_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(BIO *, BIO_free)
static inline void x509_stack_freep(STACK_OF(X509) * *s)
{
	if (*s)
		sk_X509_free(*s);
}

/* A certificate file root put there: owned by root, writable by nobody
 * else, not a link. */
static FILE *open_cert(int dir, const char *name)
{
	_cleanup_close_ int fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	struct stat st;
	FILE *f;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022))
		return NULL;
	f = fdopen(fd, "re");
	if (f)
		TAKE_FD(fd);
	return f;
}

/* Which certificate of /etc/verity.d/ signed root_hash: 0 and its
 * subject, -ENOKEY when none did (no certificate, or a signature by a key
 * not there), -EBADMSG when the signature is no PKCS#7 at all. */
static int verify_userspace(const char *root_hash, const void *sig, size_t sig_size,
			    char **ret_signer)
{
	_cleanup_(PKCS7_freep) PKCS7 *p7 = NULL;
	_cleanup_closedir_ DIR *d = NULL;
	const unsigned char *p = sig;
	struct dirent *de;
	struct stat st;
	int dir;

	p7 = d2i_PKCS7(NULL, &p, (long)sig_size);
	if (!p7 || !PKCS7_type_is_signed(p7))
		return -EBADMSG;
	dir = worker_host_openat(WORKER_HOST_ROOT, "etc/verity.d",
				 O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dir < 0)
		return -ENOKEY;
	if (fstat(dir, &st) < 0 || st.st_uid != 0 || (st.st_mode & 022)) {
		close(dir);
		return -ENOKEY;
	}
	d = fdopendir(dir);
	if (!d) {
		close(dir);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		_cleanup_fclose_ FILE *f = NULL;
		_cleanup_(X509_freep) X509 *cert = NULL;
		_cleanup_(BIO_freep) BIO *data = NULL;
		_cleanup_(x509_stack_freep) STACK_OF(X509) *certs = NULL;
		size_t n = strlen(de->d_name);
		char subject[256];

		if (n < 5 || !streq(de->d_name + n - 4, ".crt"))
			continue;
		f = open_cert(dirfd(d), de->d_name);
		if (!f)
			continue;
		cert = PEM_read_X509(f, NULL, NULL, NULL);
		certs = sk_X509_new_null();
		data = BIO_new_mem_buf(root_hash, (int)strlen(root_hash));
		if (!certs || !data)
			return -ENOMEM;
		if (!cert || !sk_X509_push(certs, cert))
			continue;
		/* The certificate's presence here is the trust: no chain. */
		if (PKCS7_verify(p7, certs, NULL, data, NULL, PKCS7_NOINTERN | PKCS7_NOVERIFY) != 1)
			continue;
		X509_NAME_oneline(X509_get_subject_name(cert), subject, sizeof(subject));
		if (asprintf(ret_signer, "%s (/etc/verity.d/%s)", subject, de->d_name) < 0)
			return -ENOMEM;
		return 0;
	}
	return -ENOKEY;
}

typedef struct Activation {
	VerityDev *d;
	const char *data_node, *hash_node;
	uint64_t hash_offset; /* of the tree's superblock in hash_node */
	const unsigned char *hash;
	size_t hash_size;
	const void *sig;
	size_t sig_size;
	bool signed_only;
	MntLog *log;
	CryptLog crypt_log;
} Activation;

static int activate_logged(Activation *a)
{
	VerityDev *d = a->d;
	uint64_t start = mnt_step_start();
	int r;

	r = crypt_init_data_device(&d->cd, a->hash_node, a->data_node);
	if (r < 0)
		return mnt_log_result(a->log, "verity:load", start, r);
	crypt_set_log_callback(d->cd, verity_log, &a->crypt_log);
	r = crypt_load(d->cd, CRYPT_VERITY,
		       &(struct crypt_params_verity){.hash_area_offset = a->hash_offset});
	if (crypt_result(a->log, &a->crypt_log, "verity:load", start, r) < 0)
		return r;
	start = mnt_step_start();
	if (!d->signer && a->sig) {
		/* The kernel checks it against its own keyring. */
		r = crypt_activate_by_signed_key(d->cd, d->name, (const char *)a->hash,
						 a->hash_size, a->sig, a->sig_size,
						 CRYPT_ACTIVATE_READONLY);
		if (r >= 0) {
			d->active = true;
			d->signer = strdup("the kernel's keyring");
			return d->signer ? mnt_log_result(a->log, "verity:activate", start, 0)
					 : -ENOMEM;
		}
		if (a->signed_only) {
			(void)mnt_log_add(a->log, "verity:signature", 'e',
					  "mountd: the image's signature is by no key in "
					  "/etc/verity.d/ or the kernel's keyring");
			return mnt_log_result(a->log, "verity:signature", start, -EKEYREJECTED);
		}
	}
	r = crypt_activate_by_volume_key(d->cd, d->name, (const char *)a->hash, a->hash_size,
					 CRYPT_ACTIVATE_READONLY);
	if (r >= 0)
		d->active = true;
	return crypt_result(a->log, &a->crypt_log, "verity:activate", start, r);
}

/* In mountd's root: libcryptsetup opens the loop devices and
 * /dev/mapper/control by name.  Its log goes nowhere once this returns:
 * the CryptLog is this call's. */
static int activate(void *userdata)
{
	Activation *a = userdata;
	int r;

	/* libcryptsetup waits for udev to have run its rules on the new
	 * device (a semaphore cookie), which is most of the time an
	 * activation takes: mountd uses no name udev makes, only the
	 * kernel's (hold()), so it does not wait.  udev still runs the
	 * rules, after the fact. */
	dm_udev_set_sync_support(0);
	r = activate_logged(a);

	if (a->d->cd)
		crypt_set_log_callback(a->d->cd, verity_log_quiet, NULL);
	return r;
}

/* The device's number, from device-mapper itself (by the name mountd gave
 * it): its node is then the kernel's own, in mountd's /dev. */
static int dm_devno(const char *name, dev_t *ret)
{
	struct dm_task *t = dm_task_create(DM_DEVICE_INFO);
	struct dm_info info;
	int r = -EIO;

	if (!t)
		return -ENOMEM;
	if (dm_task_set_name(t, name) && dm_task_run(t) && dm_task_get_info(t, &info)) {
		r = info.exists ? 0 : -ENXIO;
		*ret = makedev(info.major, info.minor);
	}
	dm_task_destroy(t);
	return r;
}

/* Held open and set to go with its last user: from here on the device
 * cannot outlive both this fd and the mount, whatever happens to mountd. */
static int hold(void *userdata)
{
	VerityDev *d = userdata;
	dev_t devno;
	int r;

	r = dm_devno(d->name, &devno);
	if (r < 0)
		return r;
	r = worker_host_devname(devno, &d->node);
	if (r < 0)
		return r;
	d->fd = open(d->node, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (d->fd < 0)
		return negative_errno();
	r = crypt_deactivate_by_name(d->cd, d->name, CRYPT_DEACTIVATE_DEFERRED);
	if (r >= 0)
		d->active = false;
	return r;
}

int verity_attach(int image_fd, int reader, const Ddi *ddi, const VerityRequest *vr, VerityDev *ret,
		  char **ret_fstype, MntLog *log)
{
	_cleanup_(verity_donep) VerityDev d = VERITY_DEV_NULL;
	_cleanup_(loopdev_donep) LoopDev data = LOOPDEV_NULL, hash = LOOPDEV_NULL;
	_cleanup_free_ char *root_hash = NULL, *fstype = NULL;
	_cleanup_free_ void *sig_buf = NULL;
	_cleanup_free_ unsigned char *bin = NULL;
	static unsigned counter;
	const void *sig = vr->signature;
	size_t sig_size = vr->signature_size;
	uint64_t start = mnt_step_start();
	DdiPart data_part = {}, hash_part = {};
	uint64_t hash_offset = 0;
	int r;

	if (ddi) {
		data_part = ddi->data;
		hash_part = ddi->hash;
		if (ddi->sig.found) {
			r = read_sig_partition(reader, &ddi->sig, &root_hash, &sig_buf, &sig_size,
					       log);
			if (mnt_log_result(log, "verity:signature", start, r) < 0)
				return r;
			sig = sig_buf;
		} else {
			/* Unsigned: the two partitions' UUIDs are the root
			 * hash's halves (what systemd-repart writes). */
			char h[65];
			size_t n = 0;

			for (const char *s = ddi->data.uuid; *s && n < 32; s++)
				if (*s != '-')
					h[n++] = *s;
			for (const char *s = ddi->hash.uuid; *s && n < 64; s++)
				if (*s != '-')
					h[n++] = *s;
			h[n] = '\0';
			root_hash = strdup(h);
			if (!root_hash)
				return -ENOMEM;
			sig = NULL;
			sig_size = 0;
		}
	} else {
		root_hash = strdup(vr->root_hash);
		if (!root_hash)
			return -ENOMEM;
	}
	if (!hex_valid(root_hash)) {
		(void)mnt_log_add(log, "verity:signature", 'e',
				  "mountd: the image names no root hash");
		return mnt_log_result(log, "verity:signature", start, -EBADMSG);
	}

	if (sig) {
		r = verify_userspace(root_hash, sig, sig_size, &d.signer);
		if (r == -EBADMSG)
			(void)mnt_log_add(log, "verity:signature", 'e',
					  "mountd: the signature is no PKCS#7 signed data");
		if (r < 0 && r != -ENOKEY)
			return mnt_log_result(log, "verity:signature", start, r);
	} else if (vr->signed_only) {
		(void)mnt_log_add(log, "verity:signature", 'e',
				  "mountd: the image is not signed, and the policy lets this "
				  "caller mount signed images only");
		return mnt_log_result(log, "verity:signature", start, -EKEYREJECTED);
	}
	if (mnt_log_result(log, "verity:signature", start, 0) < 0)
		return -ENOMEM;

	/* A DDI's hash partition after its data partition (systemd-repart
	 * writes them so): one loop device over both, the tree found at its
	 * offset into it, is one device fewer to make, for udev to process
	 * and to count. */
	if (ddi && hash_part.offset >= data_part.offset + data_part.size) {
		r = loopdev_attach_range(image_fd, data_part.offset,
					 hash_part.offset + hash_part.size - data_part.offset,
					 &data, log);
		hash_offset = hash_part.offset - data_part.offset;
	} else {
		r = loopdev_attach_range(image_fd, data_part.offset, data_part.size, &data, log);
		if (r >= 0)
			r = loopdev_attach_range(ddi ? image_fd : vr->hash_fd, hash_part.offset,
						 hash_part.size, &hash, log);
	}
	if (r < 0)
		return r;
	d.devices = 1 + (data.node != NULL) + (hash.node != NULL);

	d.root_hash = TAKE_PTR(root_hash);
	if (asprintf(&d.name, "mountd-verity-%.16s-%d-%u", d.root_hash, (int)getpid(), counter++) <
	    0) {
		d.name = NULL;
		return -ENOMEM;
	}
	bin = malloc(strlen(d.root_hash) / 2);
	if (!bin)
		return -ENOMEM;
	hex_to_bin(d.root_hash, bin);
	Activation a = {.d = &d,
			.data_node = data.node,
			.hash_node = hash.node ?: data.node,
			.hash_offset = hash_offset,
			.hash = bin,
			.hash_size = strlen(d.root_hash) / 2,
			.sig = sig,
			.sig_size = sig_size,
			.signed_only = vr->signed_only,
			.log = log};
	r = worker_in_host_root(activate, &a);
	if (r < 0)
		return r;
	start = mnt_step_start();
	r = worker_in_host_root(hold, &d);
	if (mnt_log_result(log, "verity:hold", start, r) < 0)
		return r;
	test_stop_at("verity");
	if (ret_fstype) {
		_cleanup_(mnt_log_done) MntLog scratch = {};

		start = mnt_step_start();
		/* The type from the data's bytes through mountd's reader (the
		 * file's page cache, nothing hashed, no contention with udev's
		 * own look at the new device): it only picks the driver, and
		 * every byte the driver parses comes through dm-verity.  Where
		 * those bytes name no one type, the checked device is asked,
		 * and tells a block that does not match the tree. */
		r = loopdev_probe_fstype(reader, data_part.offset, data_part.size, &fstype,
					 &scratch);
		if (r < 0)
			r = loopdev_probe_fstype(d.fd, 0, 0, &fstype, log);
		if (r < 0 && verity_corrupted(&d)) {
			(void)mnt_log_add(
				log, "verity:data", 'e',
				"dm-verity: the image's data does not match its root hash");
			return mnt_log_result(log, "verity:data", start, -EBADMSG);
		}
		if (mnt_log_result(log, "probe", start, r) < 0)
			return r;
	}
	if (ret_fstype)
		*ret_fstype = TAKE_PTR(fstype);
	/* The loop devices go with the verity device now (autoclear). */
	*ret = d;
	d = VERITY_DEV_NULL;
	return 0;
}

static int corrupted(void *userdata)
{
	VerityDev *d = userdata;
	struct crypt_active_device cad;

	return crypt_get_active_device(d->cd, d->name, &cad) >= 0 &&
	       (cad.flags & CRYPT_ACTIVATE_CORRUPTED);
}

bool verity_corrupted(VerityDev *d)
{
	return d->cd && d->name && worker_in_host_root(corrupted, d) > 0;
}

void verity_info_done(VerityInfo *i)
{
	free(i->name);
	free(i->root_hash);
	free(i->hash_algorithm);
	*i = (VerityInfo){};
}

static int info_from_table(void *userdata)
{
	VerityInfo *i = userdata;
	_cleanup_(crypt_freep) struct crypt_device *cd = NULL;
	struct crypt_params_verity vp = {};
	struct crypt_active_device cad;
	char key[ROOT_HASH_MAX / 2];
	size_t key_size = sizeof(key);
	int r;

	r = crypt_init_by_name(&cd, i->name);
	if (r < 0)
		return r == -ENODEV ? -ENODATA : r;
	crypt_set_log_callback(cd, verity_log_quiet, NULL);
	if (!streq(crypt_get_type(cd) ?: "", CRYPT_VERITY))
		return -ENODATA;
	r = crypt_get_verity_info(cd, &vp);
	if (r >= 0)
		r = crypt_volume_key_get(cd, CRYPT_ANY_SLOT, key, &key_size, NULL, 0);
	if (r >= 0)
		r = crypt_get_active_device(cd, i->name, &cad);
	if (r < 0)
		return r;
	i->hash_algorithm = strdup(vp.hash_name ?: "");
	i->root_hash = malloc(2 * key_size + 1);
	if (!i->hash_algorithm || !i->root_hash)
		return -ENOMEM;
	for (size_t n = 0; n < key_size; n++)
		snprintf(i->root_hash + 2 * n, 3, "%02x", (unsigned char)key[n]);
	i->root_hash[2 * key_size] = 0;
	i->data_block_size = vp.data_block_size;
	i->hash_block_size = vp.hash_block_size;
	i->data_blocks = vp.data_size;
	i->corrupted = cad.flags & CRYPT_ACTIVATE_CORRUPTED;
	return 0;
}

int verity_info(int fd, VerityInfo *ret)
{
	_cleanup_(verity_info_done) VerityInfo i = {};
	char name[128];
	struct stat st;
	int r;

	if (fstat(fd, &st) < 0)
		return negative_errno();
	/* The device-mapper name: none where it is no dm device. */
	r = worker_host_block_attr(st.st_dev, "dm/name", name, sizeof(name));
	if (r < 0)
		return r == -ENOENT ? -ENODATA : r;
	i.name = strdup(name);
	if (!i.name)
		return -ENOMEM;
	r = worker_in_host_root(info_from_table, &i);
	if (r < 0)
		return r;
	*ret = i;
	i = (VerityInfo){};
	return 0;
}

static int deactivate(void *userdata)
{
	VerityDev *d = userdata;

	return crypt_deactivate_by_name(d->cd, d->name, 0);
}

void verity_done(VerityDev *d)
{
	if (d->active)
		(void)worker_in_host_root(deactivate, d);
	safe_close(d->fd);
	if (d->cd)
		crypt_free(d->cd);
	free(d->name);
	free(d->node);
	free(d->root_hash);
	free(d->signer);
	*d = VERITY_DEV_NULL;
}
