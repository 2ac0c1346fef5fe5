/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * docs/man/io.mountd1.5.scd against the operation table: each method of
 * the table has a "## NAME" section under METHODS and no other method has
 * one; its signature line is the one the D-Bus vtable is built from (front-bus.c
 * build_vtable()); its "Options:" list names every a{sv} key, nested ones
 * as dotted paths, with its D-Bus type, and nothing else; its "Reply:"
 * list every reply field D-Bus carries; its ERRORS list names every D-Bus
 * error of the error table (ops-errors.c) and no other.  A key added to the
 * table without a word in the page, or a word for a key that is gone,
 * fails here.
 *
 * Usage: test-dbus-doc [PAGE]   (default: the one in docs/man/, run from the top)
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops-table.h"
#include "tap.h"
#include "util.h"

#define MAX_ITEMS 64

typedef struct Item {
	char name[96];
	char signature[64];
} Item;

typedef struct List {
	Item items[MAX_ITEMS];
	size_t n;
} List;

static void list_add(List *l, const char *prefix, const char *name, const char *signature)
{
	if (l->n >= MAX_ITEMS)
		abort(); /* raise MAX_ITEMS */
	snprintf(l->items[l->n].name, sizeof(l->items[l->n].name), "%s%s", prefix, name);
	snprintf(l->items[l->n].signature, sizeof(l->items[l->n].signature), "%s", signature);
	l->n++;
}

static const Item *list_find(const List *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (streq(l->items[i].name, name))
			return &l->items[i];
	return NULL;
}

/* ---- what the table says ------------------------------------------------------ */

/* As front-bus.c converts them: fds (the varlink convention: an int named
 * "...Fd"/"fd") are "h", integers any integer type (shown as "u"). */
static const char *field_signature(const JsonDispatch *e)
{
	size_t len = strlen(e->name);

	if (len >= 2 && (streq(e->name + len - 2, "Fd") || streq(e->name + len - 2, "fd")))
		return "h";
	switch (e->type) {
	case JSON_T_STRING:
		return "s";
	case JSON_T_INTEGER:
	case JSON_T_UNSIGNED:
		return "u";
	case JSON_T_BOOLEAN:
		return "b";
	case JSON_T_OBJECT:
		return "a{sv}";
	case JSON_T_ARRAY:
		return "a(ssv)";
	default:
		return "?";
	}
}

static bool is_bus_arg(const OpsMethod *m, const char *name)
{
	for (const OpsBusArg *a = m->bus_args; a->name; a++)
		if (streq(a->name, name))
			return true;
	return false;
}

/* The keys of the options dictionary, nested objects as dotted paths. */
static void table_keys(const OpsMethod *m, const JsonDispatch *fields, const char *prefix,
		       List *ret)
{
	for (const JsonDispatch *e = fields; e->name; e++) {
		char sub[96];

		if (!*prefix && is_bus_arg(m, e->name))
			continue;
		list_add(ret, prefix, e->name, field_signature(e));
		if (e->type == JSON_T_OBJECT && e->data) {
			snprintf(sub, sizeof(sub), "%s%s.", prefix, e->name);
			table_keys(m, e->data, sub, ret);
		}
	}
}

static void table_reply(const OpsMethod *m, List *ret)
{
	if (m->bus_reply_signature) {
		list_add(ret, "", "watch", m->bus_reply_signature);
		return;
	}
	for (const OpsReplyField *f = m->reply; f->name; f++)
		if (f->dbus)
			list_add(ret, "", f->name, ops_reply_kind_signature(f->kind));
}

/* "Create(s fsType, a(ssv) parameters, a{sv} options) -> (t mountId, ...)" */
static void table_signature(const OpsMethod *m, const List *reply, char *buf, size_t size)
{
	FILE *f = fmemopen(buf, size, "w");
	bool first = true;

	if (!f)
		abort();
	fprintf(f, "%s(", m->name);
	for (const OpsBusArg *a = m->bus_args; a->name; a++, first = false)
		fprintf(f, "%s%s %s", first ? "" : ", ", a->signature, a->name);
	if (!m->bus_no_options)
		fprintf(f, "%sa{sv} options", first ? "" : ", ");
	fputs(") -> (", f);
	for (size_t i = 0; i < reply->n; i++)
		fprintf(f, "%s%s %s", i ? ", " : "", reply->items[i].signature,
			reply->items[i].name);
	fputs(")", f);
	fclose(f);
}

/* ---- what the page says ----------------------------------------------------------- */

static char **lines;
static size_t n_lines;

static int read_page(const char *path)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t size = 0;
	ssize_t len;

	if (!f)
		return -errno;
	while ((len = getline(&line, &size, f)) >= 0) {
		char **l = reallocarray(lines, n_lines + 1, sizeof(char *));

		if (!l)
			return -ENOMEM;
		lines = l;
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = 0;
		lines[n_lines++] = TAKE_PTR(line);
		size = 0;
	}
	free(line);
	return 0;
}

/* The lines of "## NAME" under "# METHODS": [*ret_begin, *ret_end). */
static bool page_section(const char *name, size_t *ret_begin, size_t *ret_end)
{
	bool methods = false;

	for (size_t i = 0; i < n_lines; i++) {
		if (startswith(lines[i], "# "))
			methods = streq(lines[i], "# METHODS");
		if (!methods || !startswith(lines[i], "## ") || !streq(lines[i] + 3, name))
			continue;
		*ret_begin = i + 1;
		for (i++; i < n_lines && lines[i][0] != '#'; i++)
			;
		*ret_end = i;
		return true;
	}
	return false;
}

/* The first ``` block, its words joined by single spaces. */
static void page_signature(size_t begin, size_t end, char *buf, size_t size)
{
	size_t len = 0;
	bool in = false;

	buf[0] = 0;
	for (size_t i = begin; i < end; i++) {
		if (startswith(lines[i], "```")) {
			if (in)
				break;
			in = true;
			continue;
		}
		for (const char *p = lines[i]; in && *p && len + 2 < size; p++) {
			if (*p == ' ' || *p == '\t')
				continue;
			if ((p == lines[i] || p[-1] == ' ' || p[-1] == '\t') && len > 0)
				buf[len++] = ' ';
			buf[len++] = *p;
		}
		buf[len] = 0;
	}
}

/* "*name* signature" lines (a trailing " ++" is scdoc's line break) after
 * the line "heading" up to the next such heading line. */
static void page_items(size_t begin, size_t end, const char *heading, List *ret)
{
	bool in = false;

	for (size_t i = begin; i < end; i++) {
		char name[96], signature[64], rest[8] = "";
		int n;

		if (streq(lines[i], "Options:") || streq(lines[i], "Reply:")) {
			in = streq(lines[i], heading);
			continue;
		}
		if (!in || lines[i][0] != '*')
			continue;
		n = sscanf(lines[i], "*%95[^*]* %63s %7s", name, signature, rest);
		if (n >= 2 && (n == 2 || streq(rest, "++")))
			list_add(ret, "", name, signature);
	}
}

static void compare(const char *method, const char *what, const List *table, const List *page)
{
	for (size_t i = 0; i < table->n; i++) {
		const Item *p = list_find(page, table->items[i].name);

		ok(p && streq(p->signature, table->items[i].signature),
		   "%s: %s %s %s is documented%s%s%s", method, what, table->items[i].name,
		   table->items[i].signature, p ? " (page says " : "", p ? p->signature : "",
		   p ? ")" : "");
	}
	for (size_t i = 0; i < page->n; i++)
		ok(list_find(table, page->items[i].name), "%s: documented %s %s exists", method,
		   what, page->items[i].name);
}

/* "*NAME*" lines under "# ERRORS" against the error table's D-Bus names. */
static void test_errors(void)
{
	size_t n_page = 0, n_table = 0;
	bool errors = false;

	for (size_t i = 0; i < ops_errors_n; i++) {
		bool found = false;

		if (!ops_errors[i].bus_name)
			continue;
		n_table++;
		for (size_t j = 0; j < n_lines; j++) {
			if (startswith(lines[j], "# "))
				errors = streq(lines[j], "# ERRORS");
			found = found ||
				(errors && lines[j][0] == '*' &&
				 startswith(lines[j] + 1, ops_errors[i].bus_name) &&
				 streq(lines[j] + 1 + strlen(ops_errors[i].bus_name), "*"));
		}
		ok(found, "error %s is documented", ops_errors[i].bus_name);
	}
	errors = false;
	for (size_t j = 0; j < n_lines; j++) {
		bool known = false;

		if (startswith(lines[j], "# "))
			errors = streq(lines[j], "# ERRORS");
		if (!errors || lines[j][0] != '*')
			continue;
		n_page++;
		for (size_t i = 0; i < ops_errors_n; i++)
			known = known ||
				(ops_errors[i].bus_name &&
				 startswith(lines[j] + 1, ops_errors[i].bus_name) &&
				 streq(lines[j] + 1 + strlen(ops_errors[i].bus_name), "*"));
		ok(known, "documented error %s is one mountd answers", lines[j]);
	}
	ok(n_page == n_table, "%zu D-Bus errors in the table, %zu on the page", n_table, n_page);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "docs/man/io.mountd1.5.scd";
	size_t n_sections = 0, n_methods = 0;
	bool methods = false;
	int r;

	r = read_page(path);
	ok(r == 0 && n_lines > 0, "%s is read (%zu lines)", path, n_lines);
	if (r < 0)
		return tap_done();

	for (const OpsMethod *m = ops_methods; m->name; m++) {
		List keys = {}, reply = {}, page_keys = {}, page_reply = {};
		char want[512], got[512];
		size_t begin, end;

		n_methods++;
		ok(page_section(m->name, &begin, &end), "%s has a section", m->name);
		if (!page_section(m->name, &begin, &end))
			continue;
		table_reply(m, &reply);
		table_signature(m, &reply, want, sizeof(want));
		page_signature(begin, end, got, sizeof(got));
		ok(streq(got, want), "%s: the signature is %s (page: %s)", m->name, want, got);
		table_keys(m, m->fields, "", &keys);
		page_items(begin, end, "Options:", &page_keys);
		compare(m->name, "option", &keys, &page_keys);
		page_items(begin, end, "Reply:", &page_reply);
		compare(m->name, "reply field", &reply, &page_reply);
	}
	for (size_t i = 0; i < n_lines; i++) {
		if (startswith(lines[i], "# "))
			methods = streq(lines[i], "# METHODS");
		if (methods && startswith(lines[i], "## ")) {
			n_sections++;
			ok(ops_method_find(lines[i] + 3), "section %s is a method", lines[i] + 3);
		}
	}
	ok(n_sections == n_methods, "%zu methods, %zu sections", n_methods, n_sections);
	test_errors();

	for (size_t i = 0; i < n_lines; i++)
		free(lines[i]);
	free(lines);
	return tap_done();
}
