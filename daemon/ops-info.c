/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Info: fsinfo() attributes of the filesystem at a path in a namespace.  The
 * path is resolved by a worker inside the namespace and comes back as an
 * O_PATH fd; fsinfo() and its fallbacks (statfs, statx, statmount) then run
 * here, since none of them care which namespace the caller is in.
 */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include "executor-nonblocking.h"
#include "ops-internal.h"
#include "sys-verity.h"
#include "util.h"

#if __has_include(<linux/fsinfo.h>)
#include <linux/fsinfo.h>
#else
/* The ABI of the fsinfo() patch (kernel/patches), for building before the
 * patched headers exist; at run time such a kernel answers ENOSYS anyway. */
#include <linux/types.h>
enum fsinfo_attribute {
	fsinfo_attr_statfs = 0,
	fsinfo_attr_fsinfo = 1,
	fsinfo_attr_ids = 2,
	fsinfo_attr_limits = 3,
	fsinfo_attr_supports = 4,
	fsinfo_attr_capabilities = 5,
	fsinfo_attr_timestamp_info = 6,
	fsinfo_attr_volume_id = 7,
	fsinfo_attr_volume_uuid = 8,
	fsinfo_attr_volume_name = 9,
	fsinfo_attr_cell_name = 10,
	fsinfo_attr_domain_name = 11,
	fsinfo_attr_realm_name = 12,
	fsinfo_attr_server_name = 13,
	fsinfo_attr_server_address = 14,
	fsinfo_attr_parameter = 15,
	fsinfo_attr_source = 16,
	fsinfo_attr_name_encoding = 17,
	fsinfo_attr_name_codepage = 18,
	fsinfo_attr_io_size = 19,
	fsinfo_attr__nr
};
struct fsinfo_statfs {
	__u64 f_blocks, f_bfree, f_bavail, f_files, f_ffree, f_favail;
	__u32 f_bsize, f_frsize;
};
struct fsinfo_ids {
	char f_fs_name[15 + 1];
	__u64 f_flags, f_fsid, f_sb_id;
	__u32 f_fstype, f_dev_major, f_dev_minor, __padding[1];
};
struct fsinfo_limits {
	__u64 max_file_size, max_uid, max_gid, max_projid;
	__u32 max_dev_major, max_dev_minor, max_hard_links, max_xattr_body_len, max_xattr_name_len,
		max_filename_len, max_symlink_len, __reserved[1];
};
struct fsinfo_supports {
	__u64 stx_attributes;
	__u32 stx_mask, ioc_flags, win_file_attrs, __reserved[1];
};
#define fsinfo_cap__nr 49
struct fsinfo_capabilities {
	__u8 capabilities[(fsinfo_cap__nr + 7) / 8];
};
struct fsinfo_timestamp_info {
	__s64 minimum_timestamp, maximum_timestamp;
	__u16 atime_gran_mantissa, btime_gran_mantissa, ctime_gran_mantissa, mtime_gran_mantissa;
	__s8 atime_gran_exponent, btime_gran_exponent, ctime_gran_exponent, mtime_gran_exponent;
	__u32 __reserved[1];
};
struct fsinfo_volume_uuid {
	__u8 uuid[16];
};
struct fsinfo_io_size {
	__u32 block_size, max_single_read_size, max_single_write_size, best_read_size,
		best_write_size;
};
struct fsinfo_fsinfo {
	__u32 max_attr, max_cap;
};
#endif

/* Past fsinfo()'s own attribute numbers. */
#define INFO_ATTR_VERITY 64

static const char *const attribute_names[] = {
	[fsinfo_attr_statfs] = "statfs",
	[fsinfo_attr_fsinfo] = "fsinfo",
	[fsinfo_attr_ids] = "ids",
	[fsinfo_attr_limits] = "limits",
	[fsinfo_attr_supports] = "supports",
	[fsinfo_attr_capabilities] = "capabilities",
	[fsinfo_attr_timestamp_info] = "timestamp_info",
	[fsinfo_attr_volume_id] = "volume_id",
	[fsinfo_attr_volume_uuid] = "volume_uuid",
	[fsinfo_attr_volume_name] = "volume_name",
	[fsinfo_attr_cell_name] = "cell_name",
	[fsinfo_attr_domain_name] = "domain_name",
	[fsinfo_attr_realm_name] = "realm_name",
	[fsinfo_attr_server_name] = "server_name",
	[fsinfo_attr_server_address] = "server_address",
	[fsinfo_attr_parameter] = "parameter",
	[fsinfo_attr_source] = "source",
	[fsinfo_attr_name_encoding] = "name_encoding",
	[fsinfo_attr_name_codepage] = "name_codepage",
	[fsinfo_attr_io_size] = "io_size",
	/* Not fsinfo()'s: the dm-verity device the filesystem is on. */
	[INFO_ATTR_VERITY] = "verity",
};

const char *const ops_info_source_names[_OPS_INFO_SOURCE_MAX] = {
	[OPS_INFO_FSINFO] = "fsinfo", [OPS_INFO_STATFS] = "statfs",
	[OPS_INFO_STATX] = "statx",   [OPS_INFO_STATMOUNT] = "statmount",
	[OPS_INFO_DM] = "dm",
};

const char *ops_info_source_to_string(OpsInfoSource s)
{
	return s < _OPS_INFO_SOURCE_MAX ? ops_info_source_names[s] : NULL;
}

int ops_info_attribute_from_string(const char *s)
{
	if (!s)
		return fsinfo_attr_statfs;
	for (size_t i = 0; i < ELEMENTSOF(attribute_names); i++)
		if (attribute_names[i] && streq(attribute_names[i], s))
			return (int)i;
	return -EINVAL;
}

void ops_info_request_done(OpsInfoRequest *r)
{
	free(r->path);
	free(r->attribute);
	*r = (OpsInfoRequest){};
}

void ops_info_result_done(OpsInfoResult *r)
{
	for (size_t i = 0; i < r->n_values; i++)
		free(r->values[i].str);
	free(r->values);
	*r = (OpsInfoResult){};
}

int ops_info_validate(const OpsInfoRequest *r, const char **ret_field)
{
	int k = ops_path_validate(r->path, false);

	if (k < 0) {
		*ret_field = "path";
		return k;
	}
	if (ops_info_attribute_from_string(r->attribute) < 0) {
		*ret_field = "attribute";
		return -EINVAL;
	}
	return ops_namespace_validate(&r->ns, "namespace", ret_field);
}

static OpsValue *add_value(OpsInfoResult *res, const char *name, OpsValueType type)
{
	OpsValue *v = reallocarray(res->values, res->n_values + 1, sizeof(OpsValue));

	if (!v)
		return NULL;
	res->values = v;
	v = &res->values[res->n_values++];
	*v = (OpsValue){.name = name, .type = type};
	return v;
}

static int add_u64(OpsInfoResult *res, const char *name, uint64_t x)
{
	OpsValue *v = add_value(res, name, OPS_VALUE_U64);
	if (!v)
		return -ENOMEM;
	v->u = x;
	return 0;
}

static int add_s64(OpsInfoResult *res, const char *name, int64_t x)
{
	OpsValue *v = add_value(res, name, OPS_VALUE_S64);
	if (!v)
		return -ENOMEM;
	v->s = x;
	return 0;
}

bool ops_info_value_signed(const char *name)
{
	/* The fields the S() rows below add. */
	static const char *const names[] = {
		"minimum_timestamp",   "maximum_timestamp",   "atime_gran_exponent",
		"btime_gran_exponent", "ctime_gran_exponent", "mtime_gran_exponent",
	};

	for (size_t i = 0; name && i < ELEMENTSOF(names); i++)
		if (streq(names[i], name))
			return true;
	return false;
}

static int add_str(OpsInfoResult *res, const char *name, const char *s, size_t n)
{
	OpsValue *v = add_value(res, name, OPS_VALUE_STRING);
	if (!v)
		return -ENOMEM;
	v->str = strndup(s, n);
	return v->str ? 0 : -ENOMEM;
}

static int add_hex(OpsInfoResult *res, const char *name, const uint8_t *p, size_t n)
{
	char buf[2 * 64 + 1];

	n = MIN(n, (size_t)64);
	for (size_t i = 0; i < n; i++)
		snprintf(buf + 2 * i, 3, "%02x", p[i]);
	buf[2 * n] = 0;
	return add_str(res, name, buf, 2 * n);
}

/* Turn an fsinfo() answer into named values.  Sizes were checked by the
 * caller against the struct the attribute returns. */
static int decode_fsinfo(int attr, const void *buf, size_t size, OpsInfoResult *res)
{
	int r = 0;

#define U(s, f) (r = r < 0 ? r : add_u64(res, #f, (s)->f))
#define S(s, f) (r = r < 0 ? r : add_s64(res, #f, (s)->f))
	switch (attr) {
	case fsinfo_attr_statfs: {
		const struct fsinfo_statfs *s = buf;
		U(s, f_blocks), U(s, f_bfree), U(s, f_bavail), U(s, f_files);
		U(s, f_ffree), U(s, f_favail), U(s, f_bsize), U(s, f_frsize);
		break;
	}
	case fsinfo_attr_fsinfo: {
		const struct fsinfo_fsinfo *s = buf;
		U(s, max_attr), U(s, max_cap);
		break;
	}
	case fsinfo_attr_ids: {
		const struct fsinfo_ids *s = buf;
		r = add_str(res, "f_fs_name", s->f_fs_name, strnlen(s->f_fs_name, 16));
		U(s, f_flags), U(s, f_fsid), U(s, f_sb_id), U(s, f_fstype);
		U(s, f_dev_major), U(s, f_dev_minor);
		break;
	}
	case fsinfo_attr_limits: {
		const struct fsinfo_limits *s = buf;
		U(s, max_file_size), U(s, max_uid), U(s, max_gid), U(s, max_projid);
		U(s, max_dev_major), U(s, max_dev_minor), U(s, max_hard_links);
		U(s, max_xattr_body_len), U(s, max_xattr_name_len), U(s, max_filename_len);
		U(s, max_symlink_len);
		break;
	}
	case fsinfo_attr_supports: {
		const struct fsinfo_supports *s = buf;
		U(s, stx_attributes), U(s, stx_mask), U(s, ioc_flags), U(s, win_file_attrs);
		break;
	}
	case fsinfo_attr_capabilities:
		r = add_hex(res, "capabilities", buf, size);
		break;
	case fsinfo_attr_timestamp_info: {
		const struct fsinfo_timestamp_info *s = buf;
		S(s, minimum_timestamp), S(s, maximum_timestamp);
		U(s, atime_gran_mantissa), U(s, btime_gran_mantissa);
		U(s, ctime_gran_mantissa), U(s, mtime_gran_mantissa);
		S(s, atime_gran_exponent), S(s, btime_gran_exponent);
		S(s, ctime_gran_exponent), S(s, mtime_gran_exponent);
		break;
	}
	case fsinfo_attr_volume_uuid:
		r = add_hex(res, "uuid", buf, MIN(size, (size_t)16));
		break;
	case fsinfo_attr_server_address:
		r = add_hex(res, "address", buf, size);
		break;
	case fsinfo_attr_io_size: {
		const struct fsinfo_io_size *s = buf;
		U(s, block_size), U(s, max_single_read_size), U(s, max_single_write_size);
		U(s, best_read_size), U(s, best_write_size);
		break;
	}
	default: /* the string attributes */
		r = add_str(res, "value", buf, strnlen(buf, size));
	}
#undef U
#undef S
	return r;
}

static size_t struct_size(int attr)
{
	switch (attr) {
	case fsinfo_attr_statfs:
		return sizeof(struct fsinfo_statfs);
	case fsinfo_attr_fsinfo:
		return sizeof(struct fsinfo_fsinfo);
	case fsinfo_attr_ids:
		return sizeof(struct fsinfo_ids);
	case fsinfo_attr_limits:
		return sizeof(struct fsinfo_limits);
	case fsinfo_attr_supports:
		return sizeof(struct fsinfo_supports);
	case fsinfo_attr_timestamp_info:
		return sizeof(struct fsinfo_timestamp_info);
	case fsinfo_attr_io_size:
		return sizeof(struct fsinfo_io_size);
	default:
		return 0; /* strings and byte arrays: any size */
	}
}

/* Values are small (a path, a label, a struct); more than this is a kernel
 * that reports nonsense, not a value to allocate for. */
#define FSINFO_VALUE_MAX (1U << 20)

int ops_info_fsinfo(int fd, const OpsInfoRequest *r, int attr, OpsInfoResult *res)
{
	size_t size = 4096;
	_cleanup_free_ uint8_t *buf = NULL;
	int n;

	/* fsinfo() returns the value's full size, even when it did not fit:
	 * then call again with that much room (it may have grown by then). */
	for (unsigned tries = 0;; tries++) {
		free(buf);
		/* A NUL after the room: strings come unterminated. */
		buf = calloc(1, size + 1);
		if (!buf)
			return -ENOMEM;
		n = mnt_fsinfo(fd, NULL, 0, (uint32_t)attr, r->nth, r->mth, buf, size);
		if (n < 0)
			return n;
		if ((size_t)n <= size)
			break;
		if ((size_t)n > FSINFO_VALUE_MAX || tries == 3)
			return -EOVERFLOW;
		size = (size_t)n;
	}
	if ((size_t)n < struct_size(attr))
		return -EPROTO; /* a kernel with an older struct */
	res->source = OPS_INFO_FSINFO;
	return decode_fsinfo(attr, buf, (size_t)n, res);
}

static int info_fallback(int fd, int attr, const OpsInfoRequest *r, OpsInfoResult *res)
{
	switch (attr) {
	case fsinfo_attr_statfs: {
		struct statfs sf;
		if (r->nth || r->mth)
			return -ENODATA;
		if (fstatfs(fd, &sf) < 0)
			return negative_errno();
		res->source = OPS_INFO_STATFS;
		/* Same names as fsinfo's, so a client reads either alike. */
		int k = add_u64(res, "f_blocks", sf.f_blocks);
		k = k ?: add_u64(res, "f_bfree", sf.f_bfree);
		k = k ?: add_u64(res, "f_bavail", sf.f_bavail);
		k = k ?: add_u64(res, "f_files", sf.f_files);
		k = k ?: add_u64(res, "f_ffree", sf.f_ffree);
		k = k ?: add_u64(res, "f_favail", sf.f_ffree);
		k = k ?: add_u64(res, "f_bsize", (uint64_t)sf.f_bsize);
		k = k ?: add_u64(res, "f_frsize", (uint64_t)sf.f_frsize);
		return k;
	}
	case fsinfo_attr_limits: {
		struct statfs sf;
		if (r->nth || r->mth)
			return -ENODATA;
		if (fstatfs(fd, &sf) < 0)
			return negative_errno();
		res->source = OPS_INFO_STATFS;
		return add_u64(res, "max_filename_len", (uint64_t)sf.f_namelen);
	}
	case fsinfo_attr_supports: {
		struct statx stx = {};
		if (r->nth || r->mth)
			return -ENODATA;
		if (statx(fd, "", AT_EMPTY_PATH, STATX_ALL, &stx) < 0)
			return negative_errno();
		res->source = OPS_INFO_STATX;
		int k = add_u64(res, "stx_attributes", stx.stx_attributes_mask);
		return k ?: add_u64(res, "stx_mask", stx.stx_mask);
	}
	case fsinfo_attr_ids:
	case fsinfo_attr_parameter: {
		_cleanup_free_ struct statmount *sm = NULL;
		uint64_t id, ns_id;
		int k;

		if (attr == fsinfo_attr_ids && (r->nth || r->mth))
			return -ENODATA;
		k = mnt_unique_id(fd, &id);
		if (k < 0)
			return k;
		/* Our fd pins the mount; statmount needs its namespace only
		 * to find it, and the worker resolved it in r->ns. */
		k = ops_namespace_id(&r->ns, &ns_id, NULL);
		if (k < 0)
			return k;
		k = mnt_statmount(ns_id, id,
				  STATMOUNT_SB_BASIC | STATMOUNT_FS_TYPE | STATMOUNT_MNT_OPTS, &sm);
		if (k < 0)
			return k;
		res->source = OPS_INFO_STATMOUNT;
		if (attr == fsinfo_attr_ids) {
			const char *name = sm->str + sm->fs_type;
			struct statfs sf;
			uint64_t fsid;

			/* f_flags and f_fsid as fsinfo() gives them: statfs's
			 * ST_* flags (not statmount's SB_* ones) and fsid. */
			if (fstatfs(fd, &sf) < 0)
				return negative_errno();
			static_assert(sizeof(fsid) == sizeof(sf.f_fsid), "fsid size");
			memcpy(&fsid, &sf.f_fsid, sizeof(fsid));
			k = add_str(res, "f_fs_name", name, strlen(name));
			k = k ?: add_u64(res, "f_flags", (uint64_t)sf.f_flags);
			k = k ?: add_u64(res, "f_fsid", fsid);
			k = k ?: add_u64(res, "f_fstype", sm->sb_magic);
			k = k ?: add_u64(res, "f_dev_major", sm->sb_dev_major);
			return k ?: add_u64(res, "f_dev_minor", sm->sb_dev_minor);
		}
		/* "parameter" Nth: the Nth superblock option. */
		const char *opts = (sm->mask & STATMOUNT_MNT_OPTS) ? sm->str + sm->mnt_opts : "";
		for (uint32_t i = 0; *opts; i++) {
			size_t len = strcspn(opts, ",");
			if (i == r->nth)
				return r->mth ? -ENODATA : add_str(res, "value", opts, len);
			opts += len + (opts[len] == ',');
		}
		return -ENODATA;
	}
	default:
		return -ENOSYS;
	}
}

static int resolve_in_ns(int root_fd, const int *fds, void *userdata, MntLog *log,
			 WorkerReply *reply)
{
	const OpsInfoRequest *r = userdata;
	int fd = mnt_resolve_in_root(root_fd, r->path, MNT_CREATE_NONE, "path", log);

	if (fd < 0)
		return fd;
	reply->fds[reply->n_fds++] = fd;
	return 0;
}

/* The dm-verity device under fd's filesystem (sys-verity.h); ENODATA for
 * one that is on none. */
static int info_verity(int fd, const OpsInfoRequest *r, OpsInfoResult *res)
{
	_cleanup_(verity_info_done) VerityInfo vi = {};
	const char *status;
	int k;

	if (r->nth || r->mth)
		return -ENODATA;
	k = verity_info(fd, &vi);
	if (k < 0)
		return k;
	status = vi.corrupted ? "corrupted" : "verified";
	res->source = OPS_INFO_DM;
	k = add_str(res, "device", vi.name, strlen(vi.name));
	k = k ?: add_str(res, "root_hash", vi.root_hash, strlen(vi.root_hash));
	k = k ?: add_str(res, "hash_algorithm", vi.hash_algorithm, strlen(vi.hash_algorithm));
	k = k ?: add_u64(res, "data_block_size", vi.data_block_size);
	k = k ?: add_u64(res, "hash_block_size", vi.hash_block_size);
	k = k ?: add_u64(res, "data_blocks", vi.data_blocks);
	return k ?: add_str(res, "status", status, strlen(status));
}

/* fsinfo() of fd, or what the fallbacks know; "step" names the one that
 * failed. */
static int info_of(int fd, const OpsInfoRequest *r, int attr, OpsInfoResult *ret,
		   const char **ret_step)
{
	int k;

	if (attr == INFO_ATTR_VERITY) {
		*ret_step = "verity";
		k = info_verity(fd, r, ret);
		if (k < 0) {
			ops_info_result_done(ret);
			ret->attribute = attribute_names[attr];
		}
		return k;
	}
	*ret_step = "fsinfo";
	k = ops_info_fsinfo(fd, r, attr, ret);
	if (k == -ENOSYS && !r->no_fallback) {
		*ret_step = "fallback";
		k = info_fallback(fd, attr, r, ret);
	}
	if (k < 0) {
		ops_info_result_done(ret);
		ret->attribute = attribute_names[attr];
	}
	return k;
}

int ops_info(const OpsInfoRequest *r, OpsInfoResult *ret, MntLog *log)
{
	_cleanup_close_ int fd = -EBADF;
	const char *step;
	int attr, k;

	*ret = (OpsInfoResult){};
	attr = ops_info_attribute_from_string(r->attribute);
	ret->attribute = attribute_names[attr];

	k = ops_run_in(&r->ns, NULL, 0, resolve_in_ns, (void *)r, log, &fd);
	if (k < 0)
		return k;

	k = info_of(fd, r, attr, ret, &step);
	/* ENOSYS/EOPNOTSUPP: not a failure of a step but "no answer",
	 * reported as NotSupported by the front end. */
	if (k < 0 && k != -ENOSYS && k != -EOPNOTSUPP)
		mnt_log_fail(log, step);
	return k;
}

int ops_info_nonblocking(const OpsInfoRequest *r, int root_fd, uint64_t mnt_ns_id,
			 OpsInfoResult *ret)
{
	_cleanup_close_ int fd = -EBADF;
	const char *step;
	int attr = ops_info_attribute_from_string(r->attribute);

	*ret = (OpsInfoResult){};
	/* libcryptsetup's look at the device-mapper table is a worker's. */
	if (attr < 0 || attr == INFO_ATTR_VERITY)
		return -EAGAIN;
	fd = nonblocking_resolve(root_fd, r->path);
	if (fd < 0 || nonblocking_filesystem(fd, mnt_ns_id) < 0)
		return -EAGAIN;
	ret->attribute = attribute_names[attr];
	return info_of(fd, r, attr, ret, &step) < 0 ? -EAGAIN : 0;
}
