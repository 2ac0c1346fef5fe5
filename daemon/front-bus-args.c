// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * D-Bus arguments → the JSON parameters io.mountd.Mount takes, along the
 * operation table: see front-bus-args.h, and front-bus.c for the shape of the API.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base64.h"
#include "front-bus-args.h"
#include "util.h"

static void set_field(BusArgs *c, const char *path)
{
	/* The innermost failure names the field; outer levels keep it. */
	if (!c->field[0])
		snprintf(c->field, sizeof(c->field), "%s", path);
}

static void subpath(char *buf, size_t size, const char *path, const char *key)
{
	snprintf(buf, size, "%s%s%s", path, *path ? "." : "", key);
}

/* An fd of the message by the index the parameters name it with; the
 * message keeps it open. */
static int add_fd(BusArgs *c, int fd, json_object **ret)
{
	int *a = reallocarray(c->fds, c->n_fds + 1, sizeof(int));

	if (!a)
		return -ENOMEM;
	c->fds = a;
	c->fds[c->n_fds] = fd;
	*ret = json_object_new_int((int)c->n_fds++);
	return *ret ? 0 : -ENOMEM;
}

static int dict_to_json(BusArgs *c, const char *path, json_object *obj);

static int variant_to_json(BusArgs *c, const char *contents, const char *path, json_object **ret)
{
	union {
		const char *s;
		int b, fd;
		uint8_t y;
		int16_t n;
		uint16_t q;
		int32_t i;
		uint32_t u;
		int64_t x;
		uint64_t t;
	} v;
	int r;

	*ret = NULL;
	if (streq(contents, "a{sv}")) {
		_cleanup_json_ json_object *o = json_object_new_object();

		if (!o)
			return -ENOMEM;
		r = dict_to_json(c, path, o);
		if (r >= 0)
			*ret = TAKE_PTR(o);
		return r;
	}
	if (strlen(contents) != 1)
		return -EINVAL;
	r = sd_bus_message_read_basic(c->m, contents[0], &v);
	if (r < 0)
		return r;
	switch (contents[0]) {
	case 's':
	case 'o':
	case 'g':
		*ret = json_object_new_string(v.s);
		break;
	case 'b':
		*ret = json_object_new_boolean(v.b);
		break;
	case 'y':
		*ret = json_object_new_int64(v.y);
		break;
	case 'n':
		*ret = json_object_new_int64(v.n);
		break;
	case 'q':
		*ret = json_object_new_int64(v.q);
		break;
	case 'i':
		*ret = json_object_new_int64(v.i);
		break;
	case 'u':
		*ret = json_object_new_int64(v.u);
		break;
	case 'x':
		*ret = json_object_new_int64(v.x);
		break;
	case 't':
		*ret = json_object_new_uint64(v.t);
		break;
	case 'h':
		return add_fd(c, v.fd, ret);
	default:
		return -EINVAL;
	}
	return *ret ? 0 : -ENOMEM;
}

/* An a{sv} into obj, each key a JSON member of its variant's value. */
static int dict_to_json(BusArgs *c, const char *path, json_object *obj)
{
	int r;

	r = sd_bus_message_enter_container(c->m, SD_BUS_TYPE_ARRAY, "{sv}");
	if (r < 0)
		return set_field(c, *path ? path : "options"), r;
	for (;;) {
		const char *key, *contents;
		json_object *v = NULL;
		char sub[160];

		r = sd_bus_message_enter_container(c->m, SD_BUS_TYPE_DICT_ENTRY, "sv");
		if (r <= 0)
			break;
		r = sd_bus_message_read(c->m, "s", &key);
		if (r < 0)
			break;
		subpath(sub, sizeof(sub), path, key);
		/* A key twice is a client bug that would otherwise be decided
		 * silently by the order of the entries. */
		r = json_object_object_get_ex(obj, key, NULL) ? -EINVAL : 0;
		if (r >= 0)
			r = sd_bus_message_peek_type(c->m, NULL, &contents);
		if (r >= 0)
			r = sd_bus_message_enter_container(c->m, SD_BUS_TYPE_VARIANT, contents);
		if (r >= 0)
			r = variant_to_json(c, contents, sub, &v);
		if (r >= 0)
			r = sd_bus_message_exit_container(c->m);
		if (r >= 0)
			r = sd_bus_message_exit_container(c->m);
		if (r < 0) {
			json_object_put(v);
			set_field(c, sub);
			return r;
		}
		r = json_add(obj, key, v);
		if (r < 0)
			return r;
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(c->m);
	if (r < 0)
		set_field(c, *path ? path : "options");
	return r;
}

/* One (key, type, value) parameter as {"key", "type", "value"/"fd"}. */
static int param_to_json(BusArgs *c, json_object *p)
{
	const char *key, *type, *contents, *s;
	int r, fd, b;

	r = sd_bus_message_read(c->m, "ss", &key, &type);
	if (r < 0)
		return r;
	r = json_add(p, "key", json_object_new_string(key));
	if (r >= 0)
		r = json_add(p, "type", json_object_new_string(type));
	if (r >= 0)
		r = sd_bus_message_peek_type(c->m, NULL, &contents);
	if (r >= 0)
		r = sd_bus_message_enter_container(c->m, SD_BUS_TYPE_VARIANT, contents);
	if (r < 0)
		return r;
	if (streq(contents, "s")) {
		r = sd_bus_message_read(c->m, "s", &s);
		if (r >= 0)
			r = json_add(p, "value", json_object_new_string(s));
	} else if (streq(contents, "ay")) {
		const void *data;
		size_t size;

		r = sd_bus_message_read_array(c->m, 'y', &data, &size);
		if (r >= 0 && size > 0) {
			_cleanup_free_ char *text = NULL;

			r = base64_encode(data, size, &text);
			if (r >= 0)
				r = json_add(p, "value", json_object_new_string(text));
		}
	} else if (streq(contents, "h") || streq(contents, "(hs)")) {
		bool with_path = contents[0] == '(';
		json_object *index = NULL;

		r = with_path ? sd_bus_message_read(c->m, "(hs)", &fd, &s)
			      : sd_bus_message_read(c->m, "h", &fd);
		if (r >= 0)
			r = add_fd(c, fd, &index);
		if (r >= 0)
			r = json_add(p, "fd", index);
		if (r >= 0 && with_path)
			r = json_add(p, "value", json_object_new_string(s));
	} else if (streq(contents, "b")) {
		r = sd_bus_message_read(c->m, "b", &b);
		if (r >= 0 && !b)
			r = -EINVAL; /* a flag is there or not */
	} else
		r = -EINVAL;
	if (r < 0)
		return r;
	return sd_bus_message_exit_container(c->m);
}

static int params_to_json(BusArgs *c, json_object **ret)
{
	_cleanup_json_ json_object *a = json_object_new_array();
	int r;

	if (!a)
		return -ENOMEM;
	r = sd_bus_message_enter_container(c->m, SD_BUS_TYPE_ARRAY, "(ssv)");
	for (size_t i = 0; r >= 0; i++) {
		json_object *p;
		char field[48];

		r = sd_bus_message_enter_container(c->m, SD_BUS_TYPE_STRUCT, "ssv");
		if (r <= 0)
			break;
		p = json_object_new_object();
		if (json_add(a, NULL, p) < 0)
			return -ENOMEM;
		r = param_to_json(c, p);
		if (r >= 0)
			r = sd_bus_message_exit_container(c->m);
		if (r < 0) {
			snprintf(field, sizeof(field), "parameters[%zu].%s", i,
				 json_object_object_get_ex(p, "type", NULL) ? "value" : "key");
			set_field(c, field);
		}
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(c->m);
	if (r < 0) {
		set_field(c, "parameters");
		return r;
	}
	*ret = TAKE_PTR(a);
	return 0;
}

static bool field_optional(const OpsMethod *m, const char *name)
{
	for (const JsonDispatch *e = m->fields; e->name; e++)
		if (streq(e->name, name))
			return !(e->flags & JSON_MANDATORY);
	return false;
}

/* The method's positional arguments and options as its JSON parameters. */
static int args_to_json(BusArgs *c, const OpsMethod *m)
{
	int r;

	c->params = json_object_new_object();
	if (!c->params)
		return -ENOMEM;
	for (const OpsBusArg *a = m->bus_args; a->name; a++) {
		json_object *v = NULL;
		const char *s;

		if (streq(a->signature, "a(ssv)"))
			r = params_to_json(c, &v);
		else {
			r = sd_bus_message_read(c->m, "s", &s);
			if (r < 0)
				set_field(c, a->name);
			/* "" is D-Bus's null where the field may be absent. */
			else if (*s || !field_optional(m, a->name)) {
				v = json_object_new_string(s);
				r = v ? 0 : -ENOMEM;
			}
		}
		if (r < 0)
			return r;
		if (v && json_add(c->params, a->name, v) < 0)
			return -ENOMEM;
	}
	return m->bus_no_options ? 0 : dict_to_json(c, "", c->params);
}

int bus_args_to_json(sd_bus_message *m, const OpsMethod *om, BusArgs *a)
{
	int r;

	*a = (BusArgs){.m = m};
	r = args_to_json(a, om);
	if (r < 0 && r != -ENOMEM && !a->field[0])
		set_field(a, "parameters");
	return r;
}

void bus_args_done(BusArgs *a)
{
	json_object_put(a->params);
	free(a->fds);
	*a = (BusArgs){};
}
