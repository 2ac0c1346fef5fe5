/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Info values as people read them: sizes as findmnt, lsblk and df -h print
 * them, a magic number in hex with its filesystem's name, flag words for
 * flag bits, a UUID as blkid prints it, the fsid as stat -f prints it, and
 * times as dates.  Only the text output uses these; --json keeps the
 * numbers mountd sent.
 */

#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <sys/statvfs.h>
#include <linux/fs.h>

#include "mountctl.h"
#include "util.h"

void human_size(char *buf, size_t size, uint64_t bytes)
{
	static const char units[] = "BKMGTPE";
	unsigned exp = 0;
	uint64_t whole, frac = 0;

	/* The largest power of 1024 not above bytes, as util-linux's
	 * size_to_human_string(): one decimal, rounded, none when it is 0. */
	while (exp < 60 && bytes >= (UINT64_C(1) << (exp + 10)))
		exp += 10;
	whole = bytes >> exp;
	if (exp) {
		uint64_t rest = bytes & ((UINT64_C(1) << exp) - 1);

		/* thousandths of the unit, then rounded to tenths */
		frac = rest >= UINT64_MAX / 1000 ? (rest / 1024 * 1000) >> (exp - 10)
						 : rest * 1000 >> exp;
		frac = (frac + 50) / 100;
		if (frac == 10) {
			whole++;
			frac = 0;
		}
	}
	if (frac)
		snprintf(buf, size, "%" PRIu64 ".%" PRIu64 "%c", whole, frac, units[exp / 10]);
	else
		snprintf(buf, size, "%" PRIu64 "%c", whole, units[exp / 10]);
}

int human_uuid(char *buf, size_t size, const char *hex)
{
	if (!hex || strlen(hex) != 32 || strspn(hex, "0123456789abcdefABCDEF") != 32 || size < 37)
		return -EINVAL;
	/* 8-4-4-4-12, lower case, as blkid and /dev/disk/by-uuid show it */
	snprintf(buf, size, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16,
		 hex + 20);
	for (char *p = buf; *p; p++)
		if (*p >= 'A' && *p <= 'F')
			*p += 'a' - 'A';
	return 0;
}

uint64_t human_fsid(uint64_t fsid)
{
	/* fsinfo gives the two words of statfs's f_fsid in memory order;
	 * stat -f prints val[0] first. */
	return fsid << 32 | fsid >> 32;
}

/* ---- flag words ---- */

typedef struct BitName {
	uint64_t bit;
	const char *name;
} BitName;

/* statfs's f_flags (ST_*), as mount(8) words; ST_VALID (0x20) only says
 * the field is filled in. */
static const BitName st_flag_bits[] = {
	{ST_RDONLY, "ro"},	     {ST_NOSUID, "nosuid"},    {ST_NODEV, "nodev"},
	{ST_NOEXEC, "noexec"},	     {ST_SYNCHRONOUS, "sync"}, {0x20, ""},
	{ST_MANDLOCK, "mand"},	     {ST_WRITE, "write"},      {ST_APPEND, "append"},
	{ST_IMMUTABLE, "immutable"}, {ST_NOATIME, "noatime"},  {ST_NODIRATIME, "nodiratime"},
	{ST_RELATIME, "relatime"},   {0x2000, "nosymfollow"},  {},
};

/* STATX_* (linux/stat.h) */
static const BitName statx_mask_bits[] = {
	{0x1, "type"},
	{0x2, "mode"},
	{0x4, "nlink"},
	{0x8, "uid"},
	{0x10, "gid"},
	{0x20, "atime"},
	{0x40, "mtime"},
	{0x80, "ctime"},
	{0x100, "ino"},
	{0x200, "size"},
	{0x400, "blocks"},
	{0x800, "btime"},
	{0x1000, "mnt_id"},
	{0x2000, "dioalign"},
	{0x4000, "mnt_id_unique"},
	{0x8000, "subvol"},
	{0x10000, "write_atomic"},
	{},
};

/* STATX_ATTR_* (linux/stat.h) */
static const BitName statx_attr_bits[] = {
	{0x4, "compressed"},
	{0x10, "immutable"},
	{0x20, "append"},
	{0x40, "nodump"},
	{0x800, "encrypted"},
	{0x1000, "automount"},
	{0x2000, "mount_root"},
	{0x100000, "verity"},
	{0x200000, "dax"},
	{0x400000, "write_atomic"},
	{},
};

/* FS_IOC_GETFLAGS flags a file may have here (linux/fs.h). */
static const BitName ioc_flag_bits[] = {
	{FS_SECRM_FL, "secrm"},
	{FS_UNRM_FL, "unrm"},
	{FS_COMPR_FL, "compr"},
	{FS_SYNC_FL, "sync"},
	{FS_IMMUTABLE_FL, "immutable"},
	{FS_APPEND_FL, "append"},
	{FS_NODUMP_FL, "nodump"},
	{FS_NOATIME_FL, "noatime"},
	{FS_DIRTY_FL, "dirty"},
	{FS_COMPRBLK_FL, "comprblk"},
	{FS_NOCOMP_FL, "nocomp"},
	{FS_ENCRYPT_FL, "encrypt"},
	{FS_INDEX_FL, "index"},
	{FS_IMAGIC_FL, "imagic"},
	{FS_JOURNAL_DATA_FL, "journal_data"},
	{FS_NOTAIL_FL, "notail"},
	{FS_DIRSYNC_FL, "dirsync"},
	{FS_TOPDIR_FL, "topdir"},
	{FS_HUGE_FILE_FL, "huge_file"},
	{FS_EXTENT_FL, "extent"},
	{FS_VERITY_FL, "verity"},
	{FS_EA_INODE_FL, "ea_inode"},
	{FS_EOFBLOCKS_FL, "eofblocks"},
	{FS_NOCOW_FL, "nocow"},
	{FS_DAX_FL, "dax"},
	{FS_INLINE_DATA_FL, "inline_data"},
	{FS_PROJINHERIT_FL, "projinherit"},
	{FS_CASEFOLD_FL, "casefold"},
	{},
};

/* Windows file attributes (FILE_ATTRIBUTE_*) a filesystem can keep. */
static const BitName win_attr_bits[] = {
	{0x1, "readonly"},	  {0x2, "hidden"},
	{0x4, "system"},	  {0x10, "directory"},
	{0x20, "archive"},	  {0x80, "normal"},
	{0x100, "temporary"},	  {0x200, "sparse_file"},
	{0x400, "reparse_point"}, {0x800, "compressed"},
	{0x1000, "offline"},	  {0x2000, "not_content_indexed"},
	{0x4000, "encrypted"},	  {},
};

static void put_bits(FILE *f, uint64_t v, const BitName *names)
{
	const char *sep = "";

	if (!v) {
		fputc('0', f);
		return;
	}
	fprintf(f, "0x%" PRIx64 " (", v);
	for (; names->bit; names++)
		if (v & names->bit) {
			if (*names->name) {
				fprintf(f, "%s%s", sep, names->name);
				sep = ",";
			}
			v &= ~names->bit;
		}
	if (v)
		fprintf(f, "%s0x%" PRIx64, sep, v);
	fputc(')', f);
}

/* ---- one value ---- */

typedef enum Kind {
	K_SIZE,	    /* bytes */
	K_BLOCKS,   /* a count of f_frsize blocks */
	K_MAGIC,    /* a magic number of linux/magic.h */
	K_FLAGS,    /* bits, named by .bits */
	K_FSID,	    /* statfs's f_fsid */
	K_UUID,	    /* 32 hex digits */
	K_TIME,	    /* seconds since the epoch */
	K_EXPONENT, /* a power of ten of seconds, with its _mantissa */
} Kind;

static const struct {
	const char *attribute, *name; /* name NULL: every value */
	Kind kind;
	const BitName *bits;
} kinds[] = {
	{"statfs", "f_blocks", K_BLOCKS, NULL},
	{"statfs", "f_bfree", K_BLOCKS, NULL},
	{"statfs", "f_bavail", K_BLOCKS, NULL},
	{"statfs", "f_bsize", K_SIZE, NULL},
	{"statfs", "f_frsize", K_SIZE, NULL},
	{"ids", "f_fstype", K_MAGIC, NULL},
	{"ids", "f_flags", K_FLAGS, st_flag_bits},
	{"ids", "f_fsid", K_FSID, NULL},
	{"limits", "max_file_size", K_SIZE, NULL},
	{"limits", "max_xattr_body_len", K_SIZE, NULL},
	{"supports", "stx_mask", K_FLAGS, statx_mask_bits},
	{"supports", "stx_attributes", K_FLAGS, statx_attr_bits},
	{"supports", "ioc_flags", K_FLAGS, ioc_flag_bits},
	{"supports", "win_file_attrs", K_FLAGS, win_attr_bits},
	{"timestamp_info", "minimum_timestamp", K_TIME, NULL},
	{"timestamp_info", "maximum_timestamp", K_TIME, NULL},
	{"timestamp_info", "atime_gran_exponent", K_EXPONENT, NULL},
	{"timestamp_info", "btime_gran_exponent", K_EXPONENT, NULL},
	{"timestamp_info", "ctime_gran_exponent", K_EXPONENT, NULL},
	{"timestamp_info", "mtime_gran_exponent", K_EXPONENT, NULL},
	{"volume_uuid", "uuid", K_UUID, NULL},
	{"io_size", NULL, K_SIZE, NULL},
};

/* The value named name among an Info reply's values ([{name, number|text}]). */
static json_object *sibling(json_object *values, const char *name, const char *type)
{
	for (size_t i = 0; values && i < json_object_array_length(values); i++) {
		json_object *v = json_object_array_get_idx(values, i), *n, *x;

		if (json_object_object_get_ex(v, "name", &n) &&
		    streq(json_object_get_string(n), name) &&
		    json_object_object_get_ex(v, type, &x))
			return x;
	}
	return NULL;
}

static void put_time(FILE *f, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[64];

	fprintf(f, "%" PRId64, t);
	/* Only years strftime can print in four digits. */
	if (t >= -62167219200LL && t <= 253402300799LL && gmtime_r(&tt, &tm) &&
	    strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm))
		fprintf(f, " (%s)", buf);
}

static void put_granularity(FILE *f, int64_t exponent, json_object *mantissa)
{
	static const struct {
		int64_t exponent;
		const char *unit;
	} units[] = {{-9, "ns"}, {-6, "us"}, {-3, "ms"}, {0, "s"}};
	int64_t m = mantissa ? json_object_get_int64(mantissa) : 1;

	fprintf(f, "%" PRId64, exponent);
	for (size_t i = 0; i < ELEMENTSOF(units); i++)
		if (units[i].exponent == exponent) {
			fprintf(f, " (%" PRId64 "%s)", m, units[i].unit);
			return;
		}
	fprintf(f, " (%" PRId64 "e%" PRId64 " s)", m, exponent);
}

bool human_value(FILE *f, const char *attribute, const char *name, json_object *x,
		 json_object *values, bool bytes)
{
	char buf[64];
	size_t k;

	for (k = 0; k < ELEMENTSOF(kinds); k++)
		if (streq(kinds[k].attribute, attribute) &&
		    (!kinds[k].name || streq(kinds[k].name, name)))
			break;
	if (k == ELEMENTSOF(kinds) || !x)
		return false;

	switch (kinds[k].kind) {
	case K_SIZE: {
		uint64_t v = json_object_get_uint64(x);

		if (bytes)
			fprintf(f, "%" PRIu64, v);
		else {
			human_size(buf, sizeof(buf), v);
			fputs(buf, f);
		}
		return true;
	}
	case K_BLOCKS: {
		json_object *frsize = sibling(values, "f_frsize", "number")
					      ?: sibling(values, "f_bsize", "number");
		uint64_t v = json_object_get_uint64(x),
			 bs = frsize ? json_object_get_uint64(frsize) : 0;

		fprintf(f, "%" PRIu64, v);
		if (bs && v <= UINT64_MAX / bs) {
			if (bytes)
				fprintf(f, " (%" PRIu64 " bytes)", v * bs);
			else {
				human_size(buf, sizeof(buf), v * bs);
				fprintf(f, " (%s)", buf);
			}
		}
		return true;
	}
	case K_MAGIC: {
		json_object *fs = sibling(values, "f_fs_name", "text");

		fprintf(f, "0x%" PRIx64, json_object_get_uint64(x));
		if (fs)
			fprintf(f, " (%s)", json_object_get_string(fs));
		return true;
	}
	case K_FLAGS:
		put_bits(f, json_object_get_uint64(x), kinds[k].bits);
		return true;
	case K_FSID:
		fprintf(f, "%" PRIx64, human_fsid(json_object_get_uint64(x)));
		return true;
	case K_UUID:
		if (human_uuid(buf, sizeof(buf), json_object_get_string(x)) < 0)
			return false;
		fputs(buf, f);
		return true;
	case K_TIME:
		put_time(f, json_object_get_int64(x));
		return true;
	case K_EXPONENT: {
		char m[32];

		snprintf(m, sizeof(m), "%.*s_mantissa", (int)(strlen(name) - strlen("_exponent")),
			 name);
		put_granularity(f, json_object_get_int64(x), sibling(values, m, "number"));
		return true;
	}
	}
	return false;
}
