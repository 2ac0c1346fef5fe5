/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountctl info: fsinfo() attributes through mountd, every one of them
 * when none is named, multi-valued ones enumerated instance by instance.
 */

#include <errno.h>
#include <string.h>

#include "mountctl.h"
#include "util.h"

/* ---- info ----------------------------------------------------------------- */

typedef enum InstanceKind {
	ONE,
	N,  /* Nth instances */
	NM, /* Nth instances, each with Mth */
} InstanceKind;

static const struct {
	const char *name;
	InstanceKind kind;
} info_attributes[] = {
	{"statfs", ONE},	 {"fsinfo", ONE},    {"ids", ONE},
	{"limits", ONE},	 {"supports", ONE},  {"capabilities", ONE},
	{"timestamp_info", ONE}, {"volume_id", ONE}, {"volume_uuid", ONE},
	{"volume_name", ONE},	 {"cell_name", ONE}, {"domain_name", ONE},
	{"realm_name", ONE},	 {"server_name", N}, {"server_address", NM},
	{"parameter", N},	 {"source", N},	     {"name_encoding", ONE},
	{"name_codepage", ONE},	 {"io_size", ONE},   {"verity", ONE},
};

/* Enough for any real filesystem; stops a misbehaving daemon looping us. */
#define INFO_INSTANCES_MAX 1024

typedef enum InfoOutcome {
	INFO_OK,
	INFO_NONE,	  /* no such instance (ENODATA) */
	INFO_UNSUPPORTED, /* NotSupported, or EOPNOTSUPP from the filesystem */
	INFO_ERROR,	  /* any other error reply */
} InfoOutcome;

typedef struct InfoRun {
	Ctx *c;
	const char *path;
	bool no_fallback;
	json_object *json; /* array of results with --json */
	bool explicit_attr;
	bool all;   /* --all: also say which attributes there are not */
	bool bytes; /* --bytes */
	int failed;
} InfoRun;

static const char *errno_name_of(const MountdReply *reply)
{
	json_object *v;

	if (reply->parameters && json_object_object_get_ex(reply->parameters, "errnoName", &v) &&
	    json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return NULL;
}

/* Ask one instance; prints it (or why not) unless it does not exist.
 * Returns an exit code (the transport's) or 0 with *ret the outcome. */
static int info_one(InfoRun *run, const char *attr, int nth, int mth, bool show_n, bool show_m,
		    InfoOutcome *ret)
{
	_cleanup_json_ json_object *p = NULL;
	_cleanup_(mountd_reply_done) MountdReply reply = {};
	Ctx *c = run->c;
	int r;

	r = params_new(c, &p);
	if (r)
		return r;
	json_object_object_add(p, "path", json_object_new_string(run->path));
	json_object_object_add(p, "attribute", json_object_new_string(attr));
	if (nth > 0)
		json_object_object_add(p, "nth", json_object_new_int(nth));
	if (mth > 0)
		json_object_object_add(p, "mth", json_object_new_int(mth));
	if (run->no_fallback)
		json_object_object_add(p, "noFallback", json_object_new_boolean(true));
	r = call_raw(c, "Info", p, &reply);
	if (r)
		return r;

	if (!reply.error) {
		*ret = INFO_OK;
		if (run->json) {
			json_object *o = output_info_json(attr, show_n ? nth : -1,
							  show_m ? mth : -1, reply.parameters);
			if (o)
				json_object_array_add(run->json, o);
		} else
			output_info_text(stdout, attr, show_n ? nth : -1, show_m ? mth : -1,
					 reply.parameters, run->bytes);
		return 0;
	}

	const char *en = errno_name_of(&reply);
	bool mount_failed = streq(reply.error, MOUNTD_INTERFACE ".MountFailed");

	if (mount_failed && streq_ptr(en, "ENODATA"))
		*ret = INFO_NONE;
	else if (streq(reply.error, MOUNTD_INTERFACE ".NotSupported") ||
		 (mount_failed && streq_ptr(en, "EOPNOTSUPP")))
		*ret = INFO_UNSUPPORTED;
	else
		*ret = INFO_ERROR;
	/* A missing later instance is just the end of the enumeration. */
	if (*ret == INFO_NONE && (nth > 0 || mth > 0))
		return 0;
	if (*ret == INFO_ERROR || run->explicit_attr) {
		_cleanup_free_ char *line = mountd_reply_error_string(&reply);
		json_object *bad;

		/* An unknown name: say which names there are. */
		if (streq(reply.error, "org.varlink.service.InvalidParameter") &&
		    json_object_object_get_ex(reply.parameters, "parameter", &bad) &&
		    streq_ptr(json_object_get_string(bad), "attribute")) {
			fprintf(stderr, "mountctl: %s: unknown attribute '%s'; the attributes are:",
				c->command, attr);
			for (size_t i = 0; i < ELEMENTSOF(info_attributes); i++)
				fprintf(stderr, "%s %s", i ? "," : "", info_attributes[i].name);
			fprintf(stderr, " (%s)\n", line ?: reply.error);
		} else
			err(c, "%s %s: %s", run->path, attr, line ?: reply.error);
		run->failed = EXIT_FAILED;
	}
	if (run->json) {
		json_object *o = json_object_new_object();

		if (o) {
			json_object_object_add(o, "attribute", json_object_new_string(attr));
			json_object_object_add(o, "error", json_object_new_string(reply.error));
			json_object_object_add(o, "parameters", json_object_get(reply.parameters));
			json_object_array_add(run->json, o);
		}
	} else if (!run->explicit_attr && *ret != INFO_ERROR && run->all)
		printf("%s: %s\n", attr, *ret == INFO_NONE ? "none" : "not supported");
	return 0;
}

static int info_attribute(InfoRun *run, const char *attr, InstanceKind kind, int nth, int mth)
{
	InfoOutcome o;
	int r;

	if (nth >= 0 || kind == ONE)
		return info_one(run, attr, MAX(nth, 0), MAX(mth, 0), kind != ONE,
				kind == NM && mth >= 0, &o);
	for (int n = 0; n < INFO_INSTANCES_MAX; n++) {
		if (kind == N) {
			r = info_one(run, attr, n, 0, true, false, &o);
			if (r || o != INFO_OK)
				return r;
			continue;
		}
		for (int m = 0; m < INFO_INSTANCES_MAX; m++) {
			r = info_one(run, attr, n, m, true, true, &o);
			if (r)
				return r;
			if (o != INFO_OK) {
				if (m == 0)
					return 0; /* no Nth instance at all */
				break;
			}
		}
	}
	return 0;
}

int cmd_info(Ctx *c, Args *a, int argc, char **argv)
{
	_cleanup_json_ json_object *json = c->json ? json_object_new_array() : NULL;
	InfoRun run = {.c = c,
		       .path = argv[0],
		       .no_fallback = a->no_fallback,
		       .json = json,
		       .explicit_attr = argc > 1,
		       .all = a->all,
		       .bytes = a->bytes};
	int r;

	if (a->mth >= 0 && a->nth < 0)
		a->nth = 0;
	if (argc == 1) {
		if (a->nth >= 0) {
			err(c, "--nth and --mth need an attribute name");
			return EXIT_USAGE;
		}
		for (size_t i = 0; i < ELEMENTSOF(info_attributes); i++) {
			r = info_attribute(&run, info_attributes[i].name, info_attributes[i].kind,
					   -1, -1);
			if (r)
				return r;
			/* statfs always answers (it has a fallback); when it
			 * fails the path is the problem: say it once. */
			if (i == 0 && run.failed)
				return run.failed;
		}
	}
	for (int i = 1; i < argc; i++) {
		InstanceKind kind = NM;

		for (size_t k = 0; k < ELEMENTSOF(info_attributes); k++)
			if (streq(argv[i], info_attributes[k].name))
				kind = info_attributes[k].kind;
		/* An unknown name goes to mountd as is: it may know better. */
		r = info_attribute(&run, argv[i], kind, a->nth, a->mth);
		if (r)
			return r;
	}
	if (json) {
		_cleanup_json_ json_object *o = json_object_new_object();

		if (o) {
			json_object_object_add(o, "path", json_object_new_string(argv[0]));
			json_object_object_add(o, "attributes", json_object_get(json));
			output_json(stdout, o);
		}
	}
	return run.failed;
}
