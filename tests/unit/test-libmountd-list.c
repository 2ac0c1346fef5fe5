/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountd_client_list() against a scripted peer: every field of a mount as
 * json-c reads the same text (thousands of mounts with every kind of
 * escape, written by json-c), escapes, null and absent values, keys it
 * does not know, key order, whitespace, replies split over reads and two
 * in one read, error replies, and replies it must refuse; List asked with
 * "more", its mounts in parts, and an error after a part.
 */

#include <errno.h>
#include <linux/mount.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "libmountd-client.h"
#include "tap.h"
#include "util.h"

#define N_BIG 3000

/* The peer answers the n-th call with replies[n] (all those in one write
 * when joined by \0 inside the literal). */
static void peer_send(int fd, const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, text, len, MSG_NOSIGNAL);

		if (n <= 0)
			_exit(90);
		text += n;
		len -= (size_t)n;
	}
}

/* Every List call asks for its mounts in parts. */
static void peer_wait_call(int fd)
{
	char call[4096];
	size_t n = 0;

	do
		if (read(fd, &call[n], 1) != 1)
			_exit(0);
	while (call[n] != 0 && ++n < sizeof(call) - 1);
	call[n] = 0;
	if (!strstr(call, "\"more\":true"))
		_exit(91);
}

/* A mount entry as mountd writes it, strings from json-c. */
static json_object *big_mount(unsigned i)
{
	static const char *const odd[] = {"plain",	 "with space",	"quote\"d",
					  "back\\slash", "tab\there",	"new\nline",
					  "ctl\x01x",	 "caf\xc3\xa9", "\xf0\x9f\x98\x80 emoji",
					  "slash/es"};
	json_object *o = json_object_new_object(), *a = json_object_new_object();
	char s[64], dev[32];

	json_object_object_add(o, "id", json_object_new_int64((int64_t)(1ULL << 32) + i));
	json_object_object_add(o, "parentId", json_object_new_int64((int64_t)(1ULL << 32)));
	json_object_object_add(o, "oldId", json_object_new_int64(20 + i));
	json_object_object_add(o, "oldParentId", json_object_new_int64(19));
	json_object_object_add(o, "fsType", json_object_new_string(i % 2 ? "tmpfs" : "ext4"));
	snprintf(s, sizeof(s), "%s %u", odd[i % 10], i);
	if (i % 3)
		json_object_object_add(o, "source", json_object_new_string(s));
	json_object_object_add(o, "root", json_object_new_string("/"));
	snprintf(s, sizeof(s), "/mnt/%s/%u", odd[(i / 10) % 10], i);
	json_object_object_add(o, "mountPoint", json_object_new_string(s));
	json_object_object_add(o, "options", json_object_new_string("rw,size=4k,mode=755"));
	json_object_object_add(a, "readOnly", json_object_new_boolean(i % 2));
	json_object_object_add(a, "noSuid", json_object_new_boolean(i % 3 == 0));
	json_object_object_add(a, "noDev", json_object_new_boolean(i % 5 == 0));
	json_object_object_add(a, "noExec", json_object_new_boolean(i % 7 == 0));
	json_object_object_add(a, "atime",
			       json_object_new_string(i % 3 == 0   ? "noatime"
						      : i % 3 == 1 ? "relatime"
								   : "strictatime"));
	json_object_object_add(a, "noDiratime", json_object_new_boolean(i % 11 == 0));
	json_object_object_add(a, "noSymfollow", json_object_new_boolean(i % 13 == 0));
	json_object_object_add(o, "attributes", a);
	json_object_object_add(o, "propagation",
			       json_object_new_string(i % 4 == 0   ? "shared"
						      : i % 4 == 1 ? "slave"
						      : i % 4 == 2 ? "private"
								   : "unbindable"));
	json_object_object_add(o, "peerGroup", json_object_new_int64(i % 4 == 0 ? i : 0));
	json_object_object_add(o, "master", json_object_new_int64(i % 4 == 1 ? i + 1 : 0));
	snprintf(dev, sizeof(dev), "%u:%u", i % 2 ? 0 : 8, i);
	json_object_object_add(o, "device", json_object_new_string(dev));
	return o;
}

static char *big_reply(void)
{
	_cleanup_json_ json_object *m = json_object_new_object();
	json_object *p = json_object_new_object(), *a = json_object_new_array();

	for (unsigned i = 0; i < N_BIG; i++)
		json_object_array_add(a, big_mount(i));
	json_object_object_add(p, "mounts", a);
	json_object_object_add(m, "parameters", p);
	return strdup(json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE));
}

static const char small[] =
	"{ \"parameters\" : { \"future\" : {\"x\":[1,-2.5e3,{\"y\":\"z\\\"\"}],\"t\":true},"
	" \"mounts\" : [ {\"id\":1,\"parentId\":1,\"oldId\":2,\"oldParentId\":2,"
	"\"fsType\":\"ext4\",\"source\":\"/dev/v\\u00e9\\ud83d\\ude00\",\"root\":\"/\","
	"\"mountPoint\":\"/a \\\"b\\\"\\\\c\\n\\t\\/d\",\"options\":null,\"attributes\":{"
	"\"readOnly\":true,\"atime\":\"noatime\",\"later\":null},\"propagation\":\"shared\","
	"\"peerGroup\":7,\"master\":0,\"device\":\"254:1\",\"more\":\"x\"} ,\n"
	"{\"device\":\"0:42\",\"master\":3,\"peerGroup\":0,\"propagation\":\"slave\","
	"\"attributes\":{},\"m\\u006funtPoint\":\"/\",\"root\":\"/sub\",\"fsType\":\"tmpfs\","
	"\"oldParentId\":2,\"oldId\":3,\"parentId\":1,\"id\":18446744073709551615} ] } }";

static const char *const bad[] = {
	/* no device */
	"{\"parameters\":{\"mounts\":[{\"id\":1,\"parentId\":1,\"oldId\":2,\"oldParentId\":2,"
	"\"fsType\":\"x\",\"root\":\"/\",\"mountPoint\":\"/\",\"attributes\":{},"
	"\"propagation\":\"private\",\"peerGroup\":0,\"master\":0}]}}",
	/* \u0000 in a string */
	"{\"parameters\":{\"mounts\":[{\"id\":1,\"fsType\":\"a\\u0000b\"}]}}",
	/* an unknown propagation */
	"{\"parameters\":{\"mounts\":[{\"id\":1,\"propagation\":\"odd\"}]}}",
	/* a negative ID */
	"{\"parameters\":{\"mounts\":[{\"id\":-1}]}}",
	/* no mounts at all */
	"{\"parameters\":{}}",
	/* trailing garbage */
	"{\"parameters\":{\"mounts\":[]}} x",
	/* a lone low surrogate */
	"{\"parameters\":{\"mounts\":[{\"fsType\":\"\\udc00\"}]}}",
	/* unterminated */
	"{\"parameters\":{\"mounts\":[{\"fsType\":\"abc",
	/* a major of 33 bits; a device with more after it */
	"{\"parameters\":{\"mounts\":[{\"id\":1,\"device\":\"4294967296:0\"}]}}",
	"{\"parameters\":{\"mounts\":[{\"id\":1,\"device\":\"1:2x\"}]}}",
	/* a key twice, the second spelled with an escape */
	"{\"parameters\":{\"mounts\":[{\"id\":1,\"\\u0069d\":2}]}}",
	/* an error that goes on */
	"{\"error\":\"io.mountd.Mount.InternalError\",\"parameters\":{},\"continues\":true}",
};

/* Parts: three mounts in three replies, the last without continues (each
 * write a reply of its own, the strings point into each); then a part and
 * an error. */
#define PART_MOUNT(id, type, minor)                                                           \
	"{\"id\":" id ",\"parentId\":1,\"oldId\":" id ",\"oldParentId\":1,\"fsType\":\"" type \
	"\",\"root\":\"/\",\"mountPoint\":\"/" id "\",\"attributes\":{},\"propagation\":"     \
	"\"private\",\"peerGroup\":0,\"master\":0,\"device\":\"0:" minor "\"}"
static const char *const parts[] = {
	"{\"parameters\":{\"mounts\":[" PART_MOUNT("1", "one", "1") "]},\"continues\":true}",
	"{\"continues\":true,\"parameters\":{\"mounts\":[" PART_MOUNT("2", "two", "2") "]}}",
	"{\"parameters\":{\"mounts\":[" PART_MOUNT("3", "three", "3") "]}}",
};
static const char *const part_then_error[] = {
	"{\"parameters\":{\"mounts\":[" PART_MOUNT("1", "one", "1") "]},\"continues\":true}",
	"{\"error\":\"io.mountd.Mount.InternalError\",\"parameters\":{\"errno\":12,"
	"\"errnoName\":\"ENOMEM\"}}",
};

static const char error_reply[] = "{\"parameters\":{\"reason\":\"not "
				  "yours\"},\"error\":\"io.mountd.Mount.PermissionDenied\"}";
static const char two[] = "{\"parameters\":{\"mounts\":[]}}\0"
			  "{\"parameters\":{\"mounts\":[],\"x\":1}}";

static void peer(int fd, const char *big)
{
	peer_wait_call(fd);
	peer_send(fd, small, sizeof(small) / 2);
	usleep(20000);
	peer_send(fd, small + sizeof(small) / 2, sizeof(small) - sizeof(small) / 2);
	peer_wait_call(fd);
	peer_send(fd, big, strlen(big) + 1);
	peer_wait_call(fd);
	peer_send(fd, error_reply, sizeof(error_reply));
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		peer_wait_call(fd);
		peer_send(fd, bad[i], strlen(bad[i]) + 1);
	}
	peer_wait_call(fd);
	peer_send(fd, two, sizeof(two));
	peer_wait_call(fd);
	for (size_t i = 0; i < ELEMENTSOF(parts); i++) {
		peer_send(fd, parts[i], strlen(parts[i]) + 1);
		usleep(10000);
	}
	peer_wait_call(fd);
	for (size_t i = 0; i < ELEMENTSOF(part_then_error); i++)
		peer_send(fd, part_then_error[i], strlen(part_then_error[i]) + 1);
	peer_wait_call(fd);
	_exit(0);
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

static bool jbool(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

static uint64_t jnum(json_object *o, const char *key)
{
	return (uint64_t)json_object_get_int64(json_object_object_get(o, key));
}

/* Every field of m against json-c's reading of the same mount. */
static bool same_as_json(const MountdMount *m, json_object *o)
{
	json_object *a = json_object_object_get(o, "attributes");
	const char *atime = jstr(a, "atime"), *prop = jstr(o, "propagation");
	uint64_t attr = (jbool(a, "readOnly") ? MOUNT_ATTR_RDONLY : 0) |
			(jbool(a, "noSuid") ? MOUNT_ATTR_NOSUID : 0) |
			(jbool(a, "noDev") ? MOUNT_ATTR_NODEV : 0) |
			(jbool(a, "noExec") ? MOUNT_ATTR_NOEXEC : 0) |
			(jbool(a, "noDiratime") ? MOUNT_ATTR_NODIRATIME : 0) |
			(jbool(a, "noSymfollow") ? MOUNT_ATTR_NOSYMFOLLOW : 0) |
			(streq(atime, "noatime")       ? MOUNT_ATTR_NOATIME
			 : streq(atime, "strictatime") ? MOUNT_ATTR_STRICTATIME
						       : 0);
	uint64_t propagation = streq(prop, "shared")	? MS_SHARED
			       : streq(prop, "slave")	? MS_SLAVE
			       : streq(prop, "private") ? MS_PRIVATE
							: MS_UNBINDABLE;
	char dev[32];

	snprintf(dev, sizeof(dev), "%u:%u", m->dev_major, m->dev_minor);
	return m->id == jnum(o, "id") && m->parent_id == jnum(o, "parentId") &&
	       m->old_id == jnum(o, "oldId") && m->old_parent_id == jnum(o, "oldParentId") &&
	       streq_ptr(m->fstype, jstr(o, "fsType")) && streq_ptr(m->source, jstr(o, "source")) &&
	       streq_ptr(m->root, jstr(o, "root")) &&
	       streq_ptr(m->mount_point, jstr(o, "mountPoint")) &&
	       streq_ptr(m->options, jstr(o, "options")) && m->attributes == attr &&
	       m->propagation == propagation && m->peer_group == jnum(o, "peerGroup") &&
	       m->master == jnum(o, "master") && streq(dev, jstr(o, "device"));
}

static char *big;

int main(void)
{
	_cleanup_(mountd_client_freep) MountdClient *c = NULL;
	_cleanup_json_ json_object *big_json = NULL;
	MountdMountList l = {};
	int sv[2], status, k;
	pid_t pid;

	signal(SIGPIPE, SIG_IGN);
	/* A global, so that valgrind sees it reachable when the peer _exit()s. */
	big = big_reply();
	if (!big || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return 1;
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		peer(sv[1], big);
	}
	close(sv[1]);
	/* Parsed after the fork: the peer needs only the text. */
	big_json = json_tokener_parse(big);
	if (!big_json)
		return 1;
	ok(mountd_client_new_from_fd(&c, sv[0]) == 0, "wrap a socket");

	k = mountd_client_list(c, NULL, NULL, 0, &l);
	ok(k == 0 && !l.reply.error && l.n_mounts == 2, "a reply in two reads: two mounts");
	if (l.n_mounts == 2) {
		const MountdMount *a = &l.mounts[0], *b = &l.mounts[1];

		ok(a->id == 1 && a->old_id == 2 && streq(a->fstype, "ext4") &&
			   streq(a->source, "/dev/v\xc3\xa9\xf0\x9f\x98\x80") &&
			   streq(a->mount_point, "/a \"b\"\\c\n\t/d") && !a->options,
		   "escapes, \\u with a surrogate pair, a null");
		ok(a->attributes == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOATIME) &&
			   a->propagation == MS_SHARED && a->peer_group == 7 &&
			   a->dev_major == 254 && a->dev_minor == 1,
		   "attributes, propagation, device; unknown keys skipped");
		ok(b->id == UINT64_MAX && b->old_parent_id == 2 && !b->source && !b->options &&
			   streq(b->root, "/sub") && b->attributes == 0 &&
			   b->propagation == MS_SLAVE && b->master == 3 && b->dev_minor == 42,
		   "keys in any order, absent ones NULL, the largest ID");
	}
	mountd_mount_list_done(&l);

	k = mountd_client_list(c, NULL, NULL, 0, &l);
	ok(k == 0 && l.n_mounts == N_BIG, "%d mounts written by json-c", N_BIG);
	{
		json_object *a = json_object_object_get(
			json_object_object_get(big_json, "parameters"), "mounts");
		size_t same = 0;

		for (size_t i = 0; i < l.n_mounts && i < N_BIG; i++)
			same += same_as_json(&l.mounts[i], json_object_array_get_idx(a, i));
		ok(same == N_BIG, "every field of every mount as json-c reads it (%zu of %d)", same,
		   N_BIG);
	}
	mountd_mount_list_done(&l);

	k = mountd_client_list(c, NULL, NULL, 0, &l);
	ok(k == 0 && streq_ptr(l.reply.error, "io.mountd.Mount.PermissionDenied") &&
		   streq_ptr(jstr(l.reply.parameters, "reason"), "not yours") && l.n_mounts == 0,
	   "an error reply: its name and parameters, as mountd_client_call() gives them");
	mountd_mount_list_done(&l);

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		k = mountd_client_list(c, NULL, NULL, 0, &l);
		ok(k == -EBADMSG && !l.mounts && !l.texts, "refused: bad reply %zu (%d)", i, k);
	}

	k = mountd_client_list(c, NULL, NULL, 0, &l);
	ok(k == 0 && l.n_mounts == 0 && !l.reply.error, "two replies in one read: the first");
	mountd_mount_list_done(&l);
	k = mountd_client_list(c, NULL, NULL, 0, &l);
	ok(k == 0 && l.n_mounts == 0 && !l.reply.error, "... and the second, already read");
	mountd_mount_list_done(&l);

	k = mountd_client_list(c, NULL, NULL, 0, &l);
	ok(k == 0 && !l.reply.error && l.n_mounts == 3 && l.n_texts == 3,
	   "three parts: three mounts, three texts (%d, %zu, %zu)", k, l.n_mounts, l.n_texts);
	ok(l.n_mounts == 3 && l.mounts[0].id == 1 && streq(l.mounts[0].fstype, "one") &&
		   streq(l.mounts[1].mount_point, "/2") && l.mounts[2].dev_minor == 3 &&
		   streq(l.mounts[2].fstype, "three"),
	   "  in order, each part's strings intact");
	mountd_mount_list_done(&l);
	k = mountd_client_list(c, NULL, NULL, 0, &l);
	ok(k == 0 && streq_ptr(l.reply.error, "io.mountd.Mount.InternalError") && l.n_mounts == 0,
	   "an error after a part: the error, no mounts (%d, %zu)", k, l.n_mounts);
	mountd_mount_list_done(&l);

	c = mountd_client_free(c);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the peer saw every call");
	free(big);
	return tap_done();
}
