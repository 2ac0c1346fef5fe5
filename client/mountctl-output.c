/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What mountctl prints: findmnt-like trees and tables of List replies, Info
 * attributes, Watch events, kernel messages, and the JSON forms of all of
 * them.  JSON keys reuse findmnt's names where the meaning is the same
 * (target, source, fstype, options, vfs-options, fs-options, fsroot, id,
 * parent, uniq-id, uniq-parent, propagation, maj:min, children), so that
 * scripts written against `findmnt --json` read ours too.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mountctl.h"
#include "util.h"

static bool ascii;

void output_set_ascii(bool a)
{
	ascii = a;
}

void output_json(FILE *f, json_object *o)
{
	fprintf(f, "%s\n",
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_SPACED |
							  JSON_C_TO_STRING_NOSLASHESCAPE));
}

static const char *get_str(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int64_t get_int(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return 0;
	return json_object_get_int64(v);
}

static bool get_bool(json_object *o, const char *key)
{
	json_object *v;

	return o && json_object_object_get_ex(o, key, &v) &&
	       json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

/* The per-mount options as findmnt's VFS-OPTIONS column shows them. */
static char *vfs_options(json_object *attributes)
{
	static const struct {
		const char *key, *word;
	} flags[] = {
		{"noSuid", "nosuid"},		{"noDev", "nodev"},
		{"noExec", "noexec"},		{"noDiratime", "nodiratime"},
		{"noSymfollow", "nosymfollow"},
	};
	const char *atime = get_str(attributes, "atime");
	char *s = strdup(get_bool(attributes, "readOnly") ? "ro" : "rw");

	for (size_t i = 0; s && i < ELEMENTSOF(flags); i++)
		if (get_bool(attributes, flags[i].key)) {
			char *t = NULL;
			if (asprintf(&t, "%s,%s", s, flags[i].word) < 0)
				t = NULL;
			free(s);
			s = t;
		}
	/* strictatime is no flag in mountinfo: findmnt shows nothing. */
	if (s && atime && !streq(atime, "strictatime")) {
		char *t = NULL;
		if (asprintf(&t, "%s,%s", s, atime) < 0)
			t = NULL;
		free(s);
		s = t;
	}
	return s;
}

static void add_str(json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, v ? json_object_new_string(v) : NULL);
}

json_object *output_mount_entry_json(json_object *e)
{
	json_object *o = json_object_new_object(), *attrs = NULL;
	_cleanup_free_ char *vfs = NULL, *all = NULL;
	const char *fs = get_str(e, "options");

	if (!o)
		return NULL;
	json_object_object_get_ex(e, "attributes", &attrs);
	vfs = vfs_options(attrs);
	if (!vfs || asprintf(&all, "%s%s%s", vfs, fs && *fs ? "," : "", fs ?: "") < 0) {
		json_object_put(o);
		return NULL;
	}
	add_str(o, "target", get_str(e, "mountPoint"));
	add_str(o, "source", get_str(e, "source"));
	add_str(o, "fstype", get_str(e, "fsType"));
	add_str(o, "options", all);
	add_str(o, "vfs-options", vfs);
	add_str(o, "fs-options", fs ?: "");
	add_str(o, "fsroot", get_str(e, "root"));
	json_object_object_add(o, "id", json_object_new_int64(get_int(e, "oldId")));
	json_object_object_add(o, "parent", json_object_new_int64(get_int(e, "oldParentId")));
	json_object_object_add(o, "uniq-id", json_object_new_int64(get_int(e, "id")));
	json_object_object_add(o, "uniq-parent", json_object_new_int64(get_int(e, "parentId")));
	add_str(o, "maj:min", get_str(e, "device"));
	add_str(o, "propagation", get_str(e, "propagation"));
	json_object_object_add(o, "peer-group", json_object_new_int64(get_int(e, "peerGroup")));
	json_object_object_add(o, "master", json_object_new_int64(get_int(e, "master")));
	return o;
}

/* ---- list ------------------------------------------------------------------- */

typedef struct Node {
	json_object *entry; /* mountctl form */
	size_t parent;	    /* index, or SIZE_MAX for a root */
} Node;

typedef struct Column {
	const char *header;
	const char *key;
	bool right; /* numbers align right */
} Column;

static const Column tree_columns[] = {
	{"TARGET", "target", false},
	{"SOURCE", "source", false},
	{"FSTYPE", "fstype", false},
	{"OPTIONS", "options", false},
};

static const Column table_columns[] = {
	{"ID", "id", true},
	{"PARENT", "parent", true},
	{"TARGET", "target", false},
	{"SOURCE", "source", false},
	{"FSTYPE", "fstype", false},
	{"PROPAGATION", "propagation", false},
	{"OPTIONS", "options", false},
};

static char *cell(json_object *entry, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(entry, key, &v) || !v)
		return strdup("");
	return strdup(json_object_get_string(v));
}

/* Display width: count UTF-8 lead bytes, which is right for the line
 * drawing characters and for the paths people use. */
static size_t width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

typedef struct Table {
	char **cells; /* rows × cols, row 0 the header */
	size_t rows, cols;
} Table;

static void table_done(Table *t)
{
	for (size_t i = 0; i < t->rows * t->cols; i++)
		free(t->cells[i]);
	free(t->cells);
}

static void table_print(FILE *f, const Table *t, const Column *columns)
{
	_cleanup_free_ size_t *w = calloc(t->cols, sizeof(size_t));

	if (!w)
		return;
	for (size_t r = 0; r < t->rows; r++)
		for (size_t c = 0; c < t->cols; c++)
			w[c] = MAX(w[c], width(t->cells[r * t->cols + c]));
	for (size_t r = 0; r < t->rows; r++) {
		for (size_t c = 0; c < t->cols; c++) {
			const char *s = t->cells[r * t->cols + c];
			size_t pad = w[c] - width(s);
			bool last = c + 1 == t->cols;

			if (columns[c].right)
				fprintf(f, "%*s%s", (int)pad, "", s);
			else
				fprintf(f, "%s%*s", s, last ? 0 : (int)pad, "");
			if (!last)
				fputc(' ', f);
		}
		fputc('\n', f);
	}
}

/* Depth-first: prefix holds the drawing of the ancestors' columns. */
static int tree_rows(Node *nodes, size_t n, size_t parent, const char *prefix, Table *t,
		     size_t *row)
{
	const char *branch = ascii ? "|-" : "\u251c\u2500", *last = ascii ? "`-" : "\u2514\u2500",
		   *bar = ascii ? "| " : "\u2502 ";

	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *child_prefix = NULL;
		bool is_last = true;
		char *target = NULL;

		if (nodes[i].parent != parent)
			continue;
		for (size_t j = i + 1; j < n; j++)
			if (nodes[j].parent == parent) {
				is_last = false;
				break;
			}
		if (parent == SIZE_MAX)
			target = cell(nodes[i].entry, "target");
		else if (asprintf(&target, "%s%s%s", prefix, is_last ? last : branch,
				  get_str(nodes[i].entry, "target") ?: "") < 0)
			target = NULL;
		if (!target)
			return -ENOMEM;
		t->cells[*row * t->cols] = target;
		for (size_t c = 1; c < t->cols; c++) {
			t->cells[*row * t->cols + c] = cell(nodes[i].entry, tree_columns[c].key);
			if (!t->cells[*row * t->cols + c])
				return -ENOMEM;
		}
		(*row)++;
		if (asprintf(&child_prefix, "%s%s", prefix,
			     parent == SIZE_MAX ? "" : (is_last ? "  " : bar)) < 0)
			return -ENOMEM;
		int r = tree_rows(nodes, n, i, child_prefix, t, row);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Parent index of every entry: the entry whose unique ID is its parent ID;
 * none (a root) for the namespace root, whose parent is itself, and for
 * mounts whose parent is not in the list. */
static void link_nodes(Node *nodes, json_object *mounts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(mounts, i);
		int64_t id = get_int(e, "id"), pid = get_int(e, "parentId");

		nodes[i].parent = SIZE_MAX;
		for (size_t j = 0; pid != id && j < n; j++)
			if (j != i && get_int(json_object_array_get_idx(mounts, j), "id") == pid) {
				nodes[i].parent = j;
				break;
			}
	}
}

static json_object *tree_json(Node *nodes, size_t n, size_t parent)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++) {
		json_object *o, *children;

		if (nodes[i].parent != parent)
			continue;
		o = json_object_get(nodes[i].entry);
		children = tree_json(nodes, n, i);
		if (children && json_object_array_length(children) > 0)
			json_object_object_add(o, "children", children);
		else
			json_object_put(children);
		json_object_array_add(a, o);
	}
	return a;
}

int output_list(FILE *f, json_object *mounts, ListStyle style, bool json)
{
	size_t n = mounts && json_object_is_type(mounts, json_type_array)
			   ? json_object_array_length(mounts)
			   : 0;
	_cleanup_free_ Node *nodes = calloc(n ?: 1, sizeof(Node));
	const Column *columns = style == LIST_TREE ? tree_columns : table_columns;
	Table t = {.cols = style == LIST_TREE ? ELEMENTSOF(tree_columns)
					      : ELEMENTSOF(table_columns),
		   .rows = n + 1};
	int r = 0;

	if (!nodes)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		nodes[i].entry = output_mount_entry_json(json_object_array_get_idx(mounts, i));
		if (!nodes[i].entry)
			r = -ENOMEM;
	}
	link_nodes(nodes, mounts, n);

	if (r >= 0 && json) {
		_cleanup_json_ json_object *top = json_object_new_object();
		json_object *fs;

		if (style == LIST_TREE)
			fs = tree_json(nodes, n, SIZE_MAX);
		else {
			fs = json_object_new_array();
			for (size_t i = 0; fs && i < n; i++)
				json_object_array_add(fs, json_object_get(nodes[i].entry));
		}
		if (!top || !fs) {
			json_object_put(fs);
			r = -ENOMEM;
		} else {
			json_object_object_add(top, "filesystems", fs);
			output_json(f, top);
		}
	} else if (r >= 0) {
		t.cells = calloc(t.rows * t.cols, sizeof(char *));
		if (!t.cells)
			r = -ENOMEM;
		for (size_t c = 0; r >= 0 && c < t.cols; c++)
			if (!(t.cells[c] = strdup(columns[c].header)))
				r = -ENOMEM;
		if (r >= 0 && style == LIST_TREE) {
			size_t row = 1;
			r = tree_rows(nodes, n, SIZE_MAX, "", &t, &row);
			t.rows = row; /* a parent cycle would leave rows out */
		} else
			for (size_t i = 0; r >= 0 && i < n; i++)
				for (size_t c = 0; c < t.cols; c++)
					if (!(t.cells[(i + 1) * t.cols + c] =
						      cell(nodes[i].entry, columns[c].key)))
						r = -ENOMEM;
		if (r >= 0)
			table_print(f, &t, columns);
		t.rows = n + 1;
		table_done(&t);
	}
	for (size_t i = 0; i < n; i++)
		json_object_put(nodes[i].entry);
	return r;
}

/* ---- info ------------------------------------------------------------------- */

static void header(FILE *f, const char *attribute, int nth, int mth, bool multi_n, bool multi_m)
{
	fputs(attribute, f);
	if (multi_n)
		fprintf(f, "[%d]", nth);
	if (multi_m)
		fprintf(f, "[%d]", mth);
}

/* fsinfo_attr_capabilities comes as the bitmap's bytes in hex (bit N is
 * bit N%8 of byte N/8); these are the bits' names, as in linux/fsinfo.h
 * without the fsinfo_cap_ prefix. */
static const char *const capability_names[] = {
	"is_kernel_fs",
	"is_block_fs",
	"is_flash_fs",
	"is_network_fs",
	"is_automounter_fs",
	"automounts",
	"adv_locks",
	"mand_locks",
	"leases",
	"uids",
	"gids",
	"projids",
	"id_names",
	"id_guids",
	"windows_attrs",
	"user_quotas",
	"group_quotas",
	"project_quotas",
	"xattrs",
	"journal",
	"data_is_journalled",
	"o_sync",
	"o_direct",
	"volume_id",
	"volume_uuid",
	"volume_name",
	"volume_fsid",
	"cell_name",
	"domain_name",
	"realm_name",
	"iver_all_change",
	"iver_data_change",
	"iver_mono_incr",
	"symlinks",
	"hard_links",
	"hard_links_1dir",
	"device_files",
	"unix_specials",
	"resource_forks",
	"name_case_indep",
	"name_non_utf8",
	"name_has_codepage",
	"sparse",
	"not_persistent",
	"no_unix_mode",
	"has_atime",
	"has_btime",
	"has_ctime",
	"has_mtime",
};

static int hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The reply's values, with a capabilities bitmap also spelt out as one
 * flag per capability, so that people and scripts need not decode bits. */
static json_object *info_values(const char *attribute, json_object *reply)
{
	json_object *values = NULL, *out;
	size_t n;

	if (!json_object_object_get_ex(reply, "values", &values) ||
	    !json_object_is_type(values, json_type_array))
		return NULL;
	out = json_object_new_array();
	n = json_object_array_length(values);
	for (size_t i = 0; out && i < n; i++) {
		json_object *v = json_object_array_get_idx(values, i);
		const char *hex = get_str(v, "text");
		size_t len = hex ? strlen(hex) : 0;

		json_object_array_add(out, json_object_get(v));
		if (!streq(attribute, "capabilities") ||
		    !streq_ptr(get_str(v, "name"), "capabilities") || len % 2)
			continue;
		for (size_t bit = 0; bit < ELEMENTSOF(capability_names) && bit / 8 < len / 2;
		     bit++) {
			int hi = hex_nibble(hex[bit / 8 * 2]),
			    lo = hex_nibble(hex[bit / 8 * 2 + 1]);
			json_object *o;

			if (hi < 0 || lo < 0)
				break;
			o = json_object_new_object();
			if (!o)
				break;
			json_object_object_add(o, "name",
					       json_object_new_string(capability_names[bit]));
			json_object_object_add(
				o, "flag",
				json_object_new_boolean(((hi << 4 | lo) >> (bit % 8)) & 1));
			json_object_array_add(out, o);
		}
	}
	return out;
}

/* Bit names of the "supports" attribute's masks (STATX_* and
 * STATX_ATTR_* from linux/stat.h), shown next to the numbers. */
typedef struct BitName {
	uint64_t bit;
	const char *name;
} BitName;

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

static void put_bits(FILE *f, uint64_t v, const BitName *names)
{
	const char *sep = "";

	fputs("  (", f);
	for (; names->name; names++)
		if (v & names->bit) {
			fprintf(f, "%s%s", sep, names->name);
			sep = ",";
			v &= ~names->bit;
		}
	if (v)
		fprintf(f, "%s0x%" PRIx64, sep, v);
	fputc(')', f);
}

static bool is_false_flag(json_object *v)
{
	json_object *x;

	return json_object_object_get_ex(v, "flag", &x) && x && !json_object_get_boolean(x);
}

int output_info_text(FILE *f, const char *attribute, int nth, int mth, json_object *reply)
{
	_cleanup_json_ json_object *values = info_values(attribute, reply);
	/* 49 lines of capabilities would bury the few that are set. */
	bool only_set = streq(attribute, "capabilities");
	size_t n, w = 0;

	if (!values)
		return -EBADMSG;
	n = json_object_array_length(values);
	header(f, attribute, nth, mth, nth >= 0, mth >= 0);
	fprintf(f, " (%s):\n", get_str(reply, "source") ?: "?");
	for (size_t i = 0; i < n; i++)
		if (!(only_set && is_false_flag(json_object_array_get_idx(values, i))))
			w = MAX(w, strlen(get_str(json_object_array_get_idx(values, i), "name")
						  ?: ""));
	for (size_t i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(values, i), *x;
		const char *name = get_str(v, "name") ?: "";

		if (only_set && is_false_flag(v))
			continue;
		fprintf(f, "    %-*s  ", (int)w, name);
		if (json_object_object_get_ex(v, "number", &x) && x) {
			const BitName *bits = NULL;

			fputs(json_object_get_string(x), f);
			if (streq(attribute, "supports") && streq(name, "stx_mask"))
				bits = statx_mask_bits;
			else if (streq(attribute, "supports") && streq(name, "stx_attributes"))
				bits = statx_attr_bits;
			if (bits && json_object_get_int64(x) > 0)
				put_bits(f, (uint64_t)json_object_get_int64(x), bits);
			fputc('\n', f);
		} else if (json_object_object_get_ex(v, "text", &x) && x)
			fprintf(f, "%s\n", json_object_get_string(x));
		else if (json_object_object_get_ex(v, "flag", &x) && x)
			fprintf(f, "%s\n", json_object_get_boolean(x) ? "yes" : "no");
		else
			fputs("-\n", f);
	}
	return 0;
}

json_object *output_info_json(const char *attribute, int nth, int mth, json_object *reply)
{
	json_object *o = json_object_new_object(), *values = json_object_new_object();
	_cleanup_json_ json_object *a = info_values(attribute, reply);
	size_t n;

	if (!o || !values) {
		json_object_put(o);
		json_object_put(values);
		return NULL;
	}
	json_object_object_add(o, "attribute", json_object_new_string(attribute));
	if (nth >= 0)
		json_object_object_add(o, "nth", json_object_new_int(nth));
	if (mth >= 0)
		json_object_object_add(o, "mth", json_object_new_int(mth));
	add_str(o, "source", get_str(reply, "source"));
	json_object_object_add(o, "values", values);
	if (!a)
		return o;
	n = json_object_array_length(a);
	for (size_t i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(a, i), *x = NULL;
		const char *name = get_str(v, "name");

		if (!name)
			continue;
		if (!(json_object_object_get_ex(v, "number", &x) && x) &&
		    !(json_object_object_get_ex(v, "text", &x) && x))
			json_object_object_get_ex(v, "flag", &x);
		json_object_object_add(values, name, x ? json_object_get(x) : NULL);
	}
	return o;
}

/* ---- watch -------------------------------------------------------------- */

int output_watch_event(FILE *f, json_object *reply, bool json)
{
	const char *event = get_str(reply, "event") ?: "?";
	json_object *mount = NULL;
	_cleanup_json_ json_object *entry = NULL;

	if (json_object_object_get_ex(reply, "mount", &mount) && mount) {
		entry = output_mount_entry_json(mount);
		if (!entry)
			return -ENOMEM;
	}
	if (json) {
		_cleanup_json_ json_object *o = json_object_new_object();

		if (!o)
			return -ENOMEM;
		json_object_object_add(o, "event", json_object_new_string(event));
		if (entry)
			json_object_object_add(o, "mount", json_object_get(entry));
		/* One object per line, so a reader can act on each as it comes. */
		fprintf(f, "%s\n",
			json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								  JSON_C_TO_STRING_NOSLASHESCAPE));
	} else if (entry)
		fprintf(f, "%-7s %s %s %s %s id=%" PRId64 "\n", event,
			get_str(entry, "target") ?: "", get_str(entry, "source") ?: "-",
			get_str(entry, "fstype") ?: "", get_str(entry, "options") ?: "",
			get_int(entry, "id"));
	else
		fprintf(f, "%s\n", event);
	fflush(f);
	return 0;
}

/* ---- messages ---------------------------------------------------------- */

static void message_line(FILE *f, const char *prefix, const char *step, const char *level,
			 const char *text)
{
	static const struct {
		const char *level, *name;
	} levels[] = {{"e", "error"}, {"w", "warning"}, {"i", "info"}};
	const char *name = level;

	for (size_t k = 0; k < ELEMENTSOF(levels); k++)
		if (streq(level, levels[k].level))
			name = levels[k].name;
	fprintf(f, "%s%s: %s: %s\n", prefix, step, name, text);
}

static void output_message(FILE *f, const char *prefix, json_object *m)
{
	message_line(f, prefix, get_str(m, "step") ?: "?", get_str(m, "level") ?: "?",
		     get_str(m, "text") ?: "");
}

static json_object *get_array(json_object *o, const char *key)
{
	json_object *a;

	if (!o || !json_object_object_get_ex(o, key, &a) ||
	    !json_object_is_type(a, json_type_array))
		return NULL;
	return a;
}

void output_messages(FILE *f, const char *prefix, json_object *params, bool all)
{
	json_object *a = get_array(params, "messages");
	size_t n = a ? json_object_array_length(a) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *m = json_object_array_get_idx(a, i);

		if (all || !streq(get_str(m, "level") ?: "?", "i"))
			output_message(f, prefix, m);
	}
}

static void format_usec(char *buf, size_t size, int64_t usec)
{
	if (usec < 1000)
		snprintf(buf, size, "%" PRIi64 "us", usec);
	else if (usec < 1000000)
		snprintf(buf, size, "%.1fms", (double)usec / 1e3);
	else
		snprintf(buf, size, "%.2fs", (double)usec / 1e6);
}

static void step_line(FILE *f, const char *prefix, const char *name, int64_t usec)
{
	char took[32];

	format_usec(took, sizeof(took), usec);
	fprintf(f, "%s%s: ok (%s)\n", prefix, name, took);
}

void output_trace_line(FILE *f, const char *prefix, char *line)
{
	char *field[4] = {}, *p = line;
	size_t n = 0;

	while (n < ELEMENTSOF(field) && p) {
		field[n++] = p;
		p = n < ELEMENTSOF(field) ? strchr(p, '\t') : NULL;
		if (p)
			*p++ = 0;
	}
	if (n == 3 && streq(field[0], "step"))
		step_line(f, prefix, field[1], strtoll(field[2], NULL, 10));
	else if (n == 4 && streq(field[0], "message"))
		message_line(f, prefix, field[1], field[2], field[3]);
	/* Other lines are for newer clients. */
}

void output_trace(FILE *f, const char *prefix, const char *error, json_object *params,
		  bool steps_shown)
{
	json_object *steps = get_array(params, "steps"), *messages = get_array(params, "messages");
	size_t n_steps = steps && !steps_shown ? json_object_array_length(steps) : 0;
	size_t n_messages = messages && !steps_shown ? json_object_array_length(messages) : 0;
	size_t m = 0;
	const char *failed = error ? get_str(params, "step") : NULL;

	for (size_t i = 0; i < n_steps; i++) {
		json_object *s = json_object_array_get_idx(steps, i);
		const char *name = get_str(s, "step") ?: "?";

		step_line(f, prefix, name, get_int(s, "usec"));
		/* A step's messages were logged during it; both lists are in
		 * the order things happened. */
		while (m < n_messages &&
		       streq(get_str(json_object_array_get_idx(messages, m), "step") ?: "", name))
			output_message(f, prefix, json_object_array_get_idx(messages, m++));
	}
	/* The failed step's messages, and any the steps did not claim. */
	for (; m < n_messages; m++)
		output_message(f, prefix, json_object_array_get_idx(messages, m));
	if (failed)
		fprintf(f, "%s%s: failed: %s\n", prefix, failed,
			get_str(params, "errnoName") ?: "?");
}
