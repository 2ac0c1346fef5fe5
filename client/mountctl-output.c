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

#include "mount-entry.h"
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

/* The per-mount options as mountinfo (and findmnt's VFS-OPTIONS) shows them,
 * in the kernel's order (show_mnt_opts()). */
static char *vfs_options(json_object *attributes)
{
	const char *atime = get_str(attributes, "atime");
	const struct {
		bool set;
		const char *word;
	} flags[] = {
		{get_bool(attributes, mount_attribute_name(MOUNT_ATTR_NOSUID)), "nosuid"},
		{get_bool(attributes, mount_attribute_name(MOUNT_ATTR_NODEV)), "nodev"},
		{get_bool(attributes, mount_attribute_name(MOUNT_ATTR_NOEXEC)), "noexec"},
		{streq_ptr(atime, "noatime"), "noatime"},
		{get_bool(attributes, mount_attribute_name(MOUNT_ATTR_NODIRATIME)), "nodiratime"},
		/* strictatime is no flag in mountinfo: nothing is shown. */
		{streq_ptr(atime, "relatime"), "relatime"},
		{get_bool(attributes, mount_attribute_name(MOUNT_ATTR_NOSYMFOLLOW)), "nosymfollow"},
	};
	char *s =
		strdup(get_bool(attributes, mount_attribute_name(MOUNT_ATTR_RDONLY)) ? "ro" : "rw");

	for (size_t i = 0; s && i < ELEMENTSOF(flags); i++)
		if (flags[i].set) {
			char *t = NULL;
			if (asprintf(&t, "%s,%s", s, flags[i].word) < 0)
				t = NULL;
			free(s);
			s = t;
		}
	return s;
}

/* findmnt's OPTIONS: the mount's and the superblock's options in one list,
 * read-only when either is (libmount's merge_optstr()).  fs is mountinfo's
 * super options, "rw" or "ro" first (older mountd: without it). */
static char *merge_options(const char *vfs, const char *fs)
{
	const char *rest = fs;
	bool ro = startswith(vfs, "ro") && (vfs[2] == ',' || !vfs[2]);
	char *s = NULL;

	if ((startswith(fs, "ro") || startswith(fs, "rw")) && (fs[2] == ',' || !fs[2])) {
		ro = ro || fs[1] == 'o';
		rest = fs[2] ? fs + 3 : "";
	}
	/* vfs always starts with its own rw/ro: replace that. */
	if (asprintf(&s, "%s%s%s%s", ro ? "ro" : "rw", vfs + 2, *rest ? "," : "", rest) < 0)
		return NULL;
	return s;
}

/* findmnt's PROPAGATION: shared or private, then ",slave", ",unbindable". */
static const char *propagation_words(json_object *e)
{
	bool shared = get_int(e, "peerGroup") != 0, slave = get_int(e, "master") != 0,
	     unbindable = streq_ptr(get_str(e, "propagation"), "unbindable");

	if (unbindable)
		return shared ? "shared,unbindable" : "private,unbindable";
	if (slave)
		return shared ? "shared,slave" : "private,slave";
	return shared ? "shared" : "private";
}

static void add_str(json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, v ? json_object_new_string(v) : NULL);
}

json_object *output_mount_entry_json(json_object *e)
{
	json_object *o = json_object_new_object(), *attrs = NULL;
	_cleanup_free_ char *vfs = NULL, *all = NULL, *source = NULL;
	const char *fs = get_str(e, "options") ?: "", *root = get_str(e, "root"),
		   *src = get_str(e, "source");

	if (!o)
		return NULL;
	json_object_object_get_ex(e, "attributes", &attrs);
	vfs = vfs_options(attrs);
	all = vfs ? merge_options(vfs, fs) : NULL;
	/* As findmnt: the source of a mount of a subtree names the subtree. */
	if (src && root && !streq(root, "/") && asprintf(&source, "%s[%s]", src, root) < 0)
		source = NULL;
	if (!all || (src && root && !streq(root, "/") && !source)) {
		json_object_put(o);
		return NULL;
	}
	add_str(o, "target", get_str(e, "mountPoint"));
	add_str(o, "source", source ?: src);
	add_str(o, "fstype", get_str(e, "fsType"));
	add_str(o, "options", all);
	add_str(o, "vfs-options", vfs);
	add_str(o, "fs-options", fs);
	add_str(o, "fsroot", root);
	json_object_object_add(o, "id", json_object_new_int64(get_int(e, "oldId")));
	json_object_object_add(o, "parent", json_object_new_int64(get_int(e, "oldParentId")));
	json_object_object_add(o, "uniq-id", json_object_new_int64(get_int(e, "id")));
	json_object_object_add(o, "uniq-parent", json_object_new_int64(get_int(e, "parentId")));
	add_str(o, "maj:min", get_str(e, "device"));
	add_str(o, "propagation", propagation_words(e));
	json_object_object_add(o, "peer-group", json_object_new_int64(get_int(e, "peerGroup")));
	json_object_object_add(o, "master", json_object_new_int64(get_int(e, "master")));
	return o;
}

/* ---- list ------------------------------------------------------------------- */

typedef struct Column {
	const char *header; /* findmnt's column name */
	const char *key;    /* its JSON key (findmnt's too) */
	bool right;	    /* numbers align right */
} Column;

/* The columns findmnt has and a List reply can fill. */
static const Column columns_all[] = {
	{"SOURCE", "source", false},
	{"TARGET", "target", false},
	{"FSTYPE", "fstype", false},
	{"OPTIONS", "options", false},
	{"VFS-OPTIONS", "vfs-options", false},
	{"FS-OPTIONS", "fs-options", false},
	{"FSROOT", "fsroot", false},
	{"ID", "id", true},
	{"PARENT", "parent", true},
	{"UNIQ-ID", "uniq-id", true},
	{"UNIQ-PARENT", "uniq-parent", true},
	{"MAJ:MIN", "maj:min", false},
	{"PROPAGATION", "propagation", false},
};
enum {
	C_SOURCE,
	C_TARGET,
	C_FSTYPE,
	C_OPTIONS,
	C_ID = 7,
	C_PARENT,
	C_MAJMIN = 11,
	C_PROPAGATION,
};

static const unsigned tree_columns[] = {C_TARGET, C_SOURCE, C_FSTYPE, C_OPTIONS};
static const unsigned table_columns[] = {C_ID,	   C_PARENT,	  C_TARGET, C_SOURCE,
					 C_FSTYPE, C_PROPAGATION, C_OPTIONS};

#define LIST_COLUMNS_MAX 32

typedef struct Columns {
	const Column *c[LIST_COLUMNS_MAX];
	size_t n;
} Columns;

static int column_by_name(const char *name, size_t len)
{
	for (size_t i = 0; i < ELEMENTSOF(columns_all); i++)
		if (strlen(columns_all[i].header) == len &&
		    strncasecmp(columns_all[i].header, name, len) == 0)
			return (int)i;
	return -1;
}

/* The default columns of style, replaced by -o LIST or, "+LIST", added to. */
static int columns_parse(const char *spec, ListStyle style, Columns *ret, char **ret_bad)
{
	const unsigned *def = style == LIST_TABLE ? table_columns : tree_columns;
	size_t n_def = style == LIST_TABLE ? ELEMENTSOF(table_columns) : ELEMENTSOF(tree_columns);

	*ret = (Columns){};
	if (ret_bad)
		*ret_bad = NULL;
	if (!spec || *spec == '+')
		for (size_t i = 0; i < n_def; i++)
			ret->c[ret->n++] = &columns_all[def[i]];
	if (!spec)
		return 0;
	for (const char *p = spec; *p;) {
		size_t len;
		int k;

		/* "-o +A -o +B" comes as "+A,+B" */
		p += *p == '+';
		len = strcspn(p, ",");
		k = column_by_name(p, len);

		if (k < 0 || ret->n >= LIST_COLUMNS_MAX) {
			if (ret_bad)
				*ret_bad = strndup(p, len);
			return -EINVAL;
		}
		ret->c[ret->n++] = &columns_all[k];
		p += len + (p[len] == ',');
	}
	return ret->n ? 0 : -EINVAL;
}

int output_list_columns_check(const char *spec, char **ret_bad)
{
	Columns c;

	return columns_parse(spec, LIST_TREE, &c, ret_bad);
}

bool fstype_match(const char *type, const char *pattern)
{
	/* libmount's rule: "no" before the first type negates the whole
	 * list; "noTYPE" further on excludes that one type. */
	bool no = startswith(pattern, "no");
	size_t len = strlen(type);

	for (const char *p = pattern + (no ? 2 : 0); p;
	     p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (startswith(p, "no") && strncasecmp(p + 2, type, len) == 0 &&
		    (p[len + 2] == 0 || p[len + 2] == ','))
			return false;
		if (strncasecmp(p, type, len) == 0 && (p[len] == 0 || p[len] == ','))
			return !no;
	}
	return no;
}

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
	for (size_t i = 0; t->cells && i < t->rows * t->cols; i++)
		free(t->cells[i]);
	free(t->cells);
}

static void table_print(FILE *f, const Table *t, const Columns *columns)
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

			if (columns->c[c]->right)
				fprintf(f, "%*s%s", (int)pad, "", s);
			else
				fprintf(f, "%s%*s", s, last ? 0 : (int)pad, "");
			if (!last)
				fputc(' ', f);
		}
		fputc('\n', f);
	}
}

typedef struct Node {
	json_object *entry; /* mountctl form */
	size_t parent;	    /* index, or SIZE_MAX for a root */
	int64_t old_id;	    /* findmnt orders children by it */
	bool match, shown;
} Node;

/* A line of output: a node, under the line of its nearest shown ancestor. */
typedef struct Line {
	size_t node;
	size_t parent; /* line index, or SIZE_MAX at the top */
} Line;

typedef struct Lines {
	Line *l;
	size_t n;
} Lines;

/* Parent index of every entry: the entry whose unique ID is its parent ID;
 * none (a root) for the namespace root, whose parent is itself, and for
 * mounts whose parent is not in the list. */
static void link_nodes(Node *nodes, json_object *mounts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(mounts, i);
		int64_t id = get_int(e, "id"), pid = get_int(e, "parentId");

		nodes[i].parent = SIZE_MAX;
		nodes[i].old_id = get_int(e, "oldId");
		for (size_t j = 0; pid != id && j < n; j++)
			if (j != i && get_int(json_object_array_get_idx(mounts, j), "id") == pid) {
				nodes[i].parent = j;
				break;
			}
	}
}

/* findmnt's tree walk: node's line (if it is shown) under parent_line, then
 * its children in the order of their mountinfo IDs, below that line or,
 * when node is not shown, in its place.  all: every node below is shown
 * (--submounts).  depth guards against a parent cycle. */
static void walk(Node *nodes, size_t n, size_t node, size_t parent_line, bool all, Lines *out,
		 size_t depth)
{
	size_t line = parent_line;
	int64_t last = INT64_MIN;

	if (depth > n || nodes[node].shown)
		return;
	if (all || nodes[node].match) {
		nodes[node].shown = true;
		out->l[out->n] = (Line){.node = node, .parent = parent_line};
		line = out->n++;
	}
	for (;;) {
		size_t next = SIZE_MAX;

		for (size_t i = 0; i < n; i++)
			if (i != node && nodes[i].parent == node && nodes[i].old_id > last &&
			    (next == SIZE_MAX || nodes[i].old_id < nodes[next].old_id))
				next = i;
		if (next == SIZE_MAX)
			break;
		last = nodes[next].old_id;
		walk(nodes, n, next, line, all, out, depth + 1);
	}
}

static bool is_last_child(const Lines *lines, size_t i)
{
	for (size_t j = i + 1; j < lines->n; j++)
		if (lines->l[j].parent == lines->l[i].parent)
			return false;
	return true;
}

/* The tree drawing before line i's target: a bar for each ancestor line
 * that has siblings still to come, then the branch. */
static char *tree_prefix(const Lines *lines, size_t i)
{
	const char *branch = ascii ? "|-" : "\u251c\u2500", *last = ascii ? "`-" : "\u2514\u2500",
		   *bar = ascii ? "| " : "\u2502 ";
	char *s = strdup("");

	if (!s || lines->l[i].parent == SIZE_MAX)
		return s;
	for (size_t a = lines->l[i].parent; s && lines->l[a].parent != SIZE_MAX;
	     a = lines->l[a].parent) {
		char *t = NULL;
		if (asprintf(&t, "%s%s", is_last_child(lines, a) ? "  " : bar, s) < 0)
			t = NULL;
		free(s);
		s = t;
	}
	if (s) {
		char *t = NULL;
		if (asprintf(&t, "%s%s", s, is_last_child(lines, i) ? last : branch) < 0)
			t = NULL;
		free(s);
		s = t;
	}
	return s;
}

/* An entry with only the chosen columns' keys (all of them without -o). */
static json_object *entry_json(json_object *entry, const Columns *cols, bool all_keys)
{
	json_object *o;

	if (all_keys)
		return json_object_get(entry);
	o = json_object_new_object();
	for (size_t c = 0; o && c < cols->n; c++) {
		json_object *v = NULL;

		json_object_object_get_ex(entry, cols->c[c]->key, &v);
		json_object_object_add(o, cols->c[c]->key, json_object_get(v));
	}
	return o;
}

static json_object *lines_json(const Node *nodes, const Lines *lines, size_t parent,
			       const Columns *cols, bool all_keys, bool tree)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < lines->n; i++) {
		json_object *o, *children;

		if (tree && lines->l[i].parent != parent)
			continue;
		o = entry_json(nodes[lines->l[i].node].entry, cols, all_keys);
		if (!o)
			continue;
		if (tree) {
			children = lines_json(nodes, lines, i, cols, all_keys, tree);
			if (children && json_object_array_length(children) > 0)
				json_object_object_add(o, "children", children);
			else
				json_object_put(children);
		}
		json_object_array_add(a, o);
	}
	return a;
}

static bool source_match(json_object *entry, const char *raw_source, const char *source)
{
	unsigned maj, min;

	/* findmnt -S MAJ:MIN names the device number. */
	if (sscanf(source, "%u:%u", &maj, &min) == 2) {
		char dev[32];
		snprintf(dev, sizeof(dev), "%u:%u", maj, min);
		return streq_ptr(get_str(entry, "maj:min"), dev);
	}
	return streq_ptr(raw_source, source);
}

static void mark_matches(Node *nodes, json_object *mounts, size_t n, const ListOptions *o,
			 bool spec_as_target)
{
	for (size_t i = 0; i < n; i++) {
		json_object *e = nodes[i].entry;
		const char *raw = get_str(json_object_array_get_idx(mounts, i), "source");

		nodes[i].match =
			(!o->types || fstype_match(get_str(e, "fstype") ?: "", o->types)) &&
			(!o->source || source_match(e, raw, o->source)) &&
			(!o->spec || (spec_as_target ? streq_ptr(get_str(e, "target"), o->target)
						     : source_match(e, raw, o->spec)));
	}
}

int output_list(FILE *f, json_object *mounts, const ListOptions *o)
{
	size_t n = mounts && json_object_is_type(mounts, json_type_array)
			   ? json_object_array_length(mounts)
			   : 0;
	_cleanup_free_ Node *nodes = calloc(n ?: 1, sizeof(Node));
	Lines lines = {.l = calloc(n ?: 1, sizeof(Line))};
	/* findmnt prints a tree unless a source or mount point is asked for
	 * without --submounts. */
	bool tree = o->style == LIST_TREE && (o->submounts || (!o->source && !o->spec));
	Columns cols;
	int r = 0;

	if (!nodes || !lines.l) {
		free(lines.l);
		return -ENOMEM;
	}
	r = columns_parse(o->columns, o->style, &cols, NULL);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		nodes[i].entry = output_mount_entry_json(json_object_array_get_idx(mounts, i));
		if (!nodes[i].entry)
			r = -ENOMEM;
	}
	if (r >= 0) {
		bool any = false;

		link_nodes(nodes, mounts, n);
		mark_matches(nodes, mounts, n, o, false);
		for (size_t i = 0; i < n; i++)
			any = any || nodes[i].match;
		/* Like findmnt, the argument is a source first, else a
		 * mount point. */
		if (!any && o->spec)
			mark_matches(nodes, mounts, n, o, true);

		if (o->submounts) {
			for (size_t i = 0; i < n; i++)
				if (nodes[i].match)
					walk(nodes, n, i, SIZE_MAX, true, &lines, 0);
		} else if (tree) {
			for (size_t i = 0; i < n; i++)
				if (nodes[i].parent == SIZE_MAX)
					walk(nodes, n, i, SIZE_MAX, false, &lines, 0);
		} else
			for (size_t i = 0; i < n; i++)
				if (nodes[i].match)
					lines.l[lines.n++] = (Line){.node = i, .parent = SIZE_MAX};
	}

	/* As findmnt: a search that found nothing prints nothing. */
	if (r >= 0 && lines.n == 0 && (o->types || o->source || o->spec))
		;
	else if (r >= 0 && o->json) {
		_cleanup_json_ json_object *top = json_object_new_object();
		json_object *fs = lines_json(nodes, &lines, SIZE_MAX, &cols, !o->columns, tree);

		if (!top || !fs) {
			json_object_put(fs);
			r = -ENOMEM;
		} else {
			json_object_object_add(top, "filesystems", fs);
			output_json(f, top);
		}
	} else if (r >= 0) {
		Table t = {.cols = cols.n, .rows = lines.n + 1};

		t.cells = calloc(t.rows * t.cols, sizeof(char *));
		if (!t.cells)
			r = -ENOMEM;
		for (size_t c = 0; r >= 0 && c < t.cols; c++)
			if (!(t.cells[c] = strdup(cols.c[c]->header)))
				r = -ENOMEM;
		for (size_t i = 0; r >= 0 && i < lines.n; i++)
			for (size_t c = 0; r >= 0 && c < t.cols; c++) {
				json_object *e = nodes[lines.l[i].node].entry;
				char **p = &t.cells[(i + 1) * t.cols + c];

				*p = cell(e, cols.c[c]->key);
				/* findmnt's MAJ:MIN lines up at the colon. */
				if (*p && cols.c[c] == &columns_all[C_MAJMIN]) {
					unsigned maj, min;
					char *s = NULL;

					if (sscanf(*p, "%u:%u", &maj, &min) == 2 &&
					    asprintf(&s, "%3u:%-3u", maj, min) >= 0) {
						free(*p);
						*p = s;
					}
				}
				if (*p && tree && cols.c[c] == &columns_all[C_TARGET]) {
					_cleanup_free_ char *prefix = tree_prefix(&lines, i);
					char *s = NULL;

					if (!prefix || asprintf(&s, "%s%s", prefix, *p) < 0)
						s = NULL;
					free(*p);
					*p = s;
				}
				if (!*p)
					r = -ENOMEM;
			}
		if (r >= 0)
			table_print(f, &t, &cols);
		table_done(&t);
	}
	for (size_t i = 0; i < n; i++)
		json_object_put(nodes[i].entry);
	free(lines.l);
	return r < 0 ? r : (int)lines.n;
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

static bool is_false_flag(json_object *v)
{
	json_object *x;

	return json_object_object_get_ex(v, "flag", &x) && x && !json_object_get_boolean(x);
}

int output_info_text(FILE *f, const char *attribute, int nth, int mth, json_object *reply,
		     bool bytes)
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
		if (((json_object_object_get_ex(v, "number", &x) && x) ||
		     (json_object_object_get_ex(v, "text", &x) && x)) &&
		    human_value(f, attribute, name, x, values, bytes))
			fputc('\n', f);
		else if (json_object_object_get_ex(v, "number", &x) && x)
			fprintf(f, "%s\n", json_object_get_string(x));
		else if (json_object_object_get_ex(v, "text", &x) && x)
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
