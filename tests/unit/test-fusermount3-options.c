// SPDX-License-Identifier: LGPL-2.1-or-later
/* client/fusermount3-options.c: fusermount3's -o list as libfuse 3.17.2's
 * fusermount3 reads it (escaped commas in fsname= and subtype=, unsafe
 * options a user gives ignored, what fusermount3 sets itself dropped, the
 * words it does not know refused) and the Create and Unmount requests it
 * becomes, compared as the JSON text sent to mountd. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fusermount3-options.h"
#include "tap.h"
#include "util.h"

#define USER 1000
#define PATH "/home/u/mnt"

/* The request's text, as the client sends it. */
static const char *text(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* A list parsed for a uid: what came of it, and the Create request (NULL
 * when it was refused) or the error. */
typedef struct Result {
	int r;
	FuseOptions o;
	char *error;
	json_object *request;
} Result;

static void result_done(Result *res)
{
	fuse_options_done(&res->o);
	free(res->error);
	if (res->request)
		json_object_put(res->request);
	*res = (Result){};
}

static Result parse(const char *list, uid_t uid)
{
	Result res = {.o = FUSE_OPTIONS_NULL};

	res.r = fuse_options_parse(&res.o, list, uid, &res.error);
	if (res.r == 0 &&
	    fuse_create_request(&res.o, PATH, S_IFDIR, uid, uid, -1, &res.request) < 0)
		res.r = -ENOMEM;
	return res;
}

/* The request's member key, as text. */
static const char *member(const Result *res, const char *key)
{
	json_object *v;

	if (!res->request || !json_object_object_get_ex(res->request, key, &v))
		return "(none)";
	return text(v);
}

static size_t n_warnings(const Result *res)
{
	return strv_length(res->o.warnings);
}

#define IDS                                                               \
	"{\"key\":\"fd\",\"type\":\"fd\",\"fd\":0},"                      \
	"{\"key\":\"rootmode\",\"type\":\"string\",\"value\":\"40000\"}," \
	"{\"key\":\"user_id\",\"type\":\"string\",\"value\":\"1000\"},"   \
	"{\"key\":\"group_id\",\"type\":\"string\",\"value\":\"1000\"}"
#define USER_ATTRS "{\"noSuid\":true,\"noDev\":true}"

static void test_libfuse_list(void)
{
	/* As libfuse 3.17.2's fuse_kern_mount() writes it for bindfs: its
	 * flags, the kernel's options, then fsname= (escaped), then subtype=. */
	Result res = parse("rw,nosuid,nodev,default_permissions,fsname=/home/u/src,subtype=bindfs",
			   USER);

	ok(res.r == 0 && n_warnings(&res) == 0, "libfuse's list for bindfs: %d", res.r);
	ok(streq(text(res.request),
		 "{\"fsType\":\"fuse\",\"source\":\"/home/u/src\",\"parameters\":[" IDS
		 ",{\"key\":\"subtype\",\"type\":\"string\",\"value\":\"bindfs\"}"
		 ",{\"key\":\"default_permissions\",\"type\":\"flag\"}],"
		 "\"attributes\":" USER_ATTRS ",\"placement\":{\"path\":\"" PATH "\"}}"),
	   "  the whole Create request: %s", text(res.request));
	result_done(&res);

	res = parse(NULL, USER);
	ok(res.r == 0 && streq(member(&res, "source"), "\"/dev/fuse\"") &&
		   streq(member(&res, "parameters"), "[" IDS "]") &&
		   streq(member(&res, "attributes"), USER_ATTRS),
	   "no list: source /dev/fuse, the four parameters, nosuid,nodev: %s", text(res.request));
	result_done(&res);

	res = parse("subtype=sshfs", USER);
	ok(res.r == 0 && streq(member(&res, "source"), "\"sshfs\""),
	   "a subtype and no fsname: the subtype is the source: %s", member(&res, "source"));
	result_done(&res);
}

static void test_escapes(void)
{
	/* libfuse escapes ',' and '\' in fsname= and subtype=. */
	Result res = parse("fsname=a\\,allow_other\\,user_id=0\\\\x,subtype=s\\,dev", USER);

	ok(res.r == 0 && streq_ptr(res.o.fsname, "a,allow_other,user_id=0\\x") &&
		   streq_ptr(res.o.subtype, "s,dev"),
	   "escaped commas and backslashes in fsname and subtype: '%s' '%s'", strna(res.o.fsname),
	   strna(res.o.subtype));
	ok(streq(member(&res, "source"), "\"a,allow_other,user_id=0\\\\x\""),
	   "  fsname is the source, one value: %s", member(&res, "source"));
	ok(streq(member(&res, "parameters"),
		 "[" IDS ",{\"key\":\"subtype\",\"type\":\"string\",\"value\":\"s,dev\"}]"),
	   "  no option came out of them: %s", member(&res, "parameters"));
	ok(streq(member(&res, "attributes"), USER_ATTRS), "  and it stays nosuid,nodev");
	result_done(&res);

	res = parse("fsname=a\\", USER);
	ok(res.r == 0 && streq_ptr(res.o.fsname, "a\\"), "a backslash at the end stays: '%s'",
	   strna(res.o.fsname));
	result_done(&res);

	res = parse("max_read=1\\,2", USER);
	ok(res.r == -EINVAL && streq_ptr(res.error, "unknown option '2'"),
	   "elsewhere a backslash escapes nothing: %d %s", res.r, strna(res.error));
	result_done(&res);
}

static void test_unsafe(void)
{
	Result res = parse("suid,dev", USER);

	ok(res.r == 0 && n_warnings(&res) == 2 &&
		   streq(res.o.warnings[0], "unsafe option suid ignored") &&
		   streq(res.o.warnings[1], "unsafe option dev ignored"),
	   "suid,dev from a user: ignored, each said (%zu)", n_warnings(&res));
	ok(streq(member(&res, "attributes"), USER_ATTRS), "  the mount is nosuid,nodev: %s",
	   member(&res, "attributes"));
	result_done(&res);

	res = parse("suid,dev", 0);
	ok(res.r == 0 && n_warnings(&res) == 0 && streq(member(&res, "attributes"), "{}"),
	   "suid,dev from root: taken: %s", member(&res, "attributes"));
	result_done(&res);

	res = parse("", 0);
	ok(res.r == 0 && streq(member(&res, "attributes"), USER_ATTRS),
	   "root without them: nosuid,nodev as fusermount3: %s", member(&res, "attributes"));
	result_done(&res);
}

/* As libfuse's fusermount3: dropped, so that what works with the setuid
 * helper works here; the request holds the caller's own values only. */
static void test_own(void)
{
	static const char *const own[] = {"user_id=0", "group_id=0", "rootmode=100644", "fd=3"};
	Result res;

	for (size_t i = 0; i < ELEMENTSOF(own); i++)
		for (uid_t uid = 0; uid <= USER; uid += USER) {
			char want[80];

			snprintf(want, sizeof(want),
				 "option %s ignored: fusermount3 sets %.*s itself", own[i],
				 (int)strcspn(own[i], "="), own[i]);
			res = parse(own[i], uid);
			ok(res.r == 0 && n_warnings(&res) == 1 && streq(res.o.warnings[0], want),
			   "%s from uid %u: dropped, with a note: %s", own[i], (unsigned)uid,
			   n_warnings(&res) ? res.o.warnings[0] : strna(res.error));
			result_done(&res);
		}

	res = parse("user_id=0,group_id=0,rootmode=100644,fd=3,suid,dev,default_permissions", USER);
	ok(res.r == 0 && n_warnings(&res) == 6,
	   "all of them and suid,dev from a user: six notes (%zu)", n_warnings(&res));
	ok(streq(member(&res, "parameters"),
		 "[" IDS ",{\"key\":\"default_permissions\",\"type\":\"flag\"}]"),
	   "  the request's fd, rootmode, user_id, group_id are the caller's, once each: %s",
	   member(&res, "parameters"));
	ok(streq(member(&res, "attributes"), USER_ATTRS), "  and the mount is nosuid,nodev: %s",
	   member(&res, "attributes"));
	result_done(&res);

	/* Only the whole key: a word that merely starts like one is unknown. */
	res = parse("user_idx=0", USER);
	ok(res.r == -EINVAL && streq_ptr(res.error, "unknown option 'user_idx=0'"),
	   "user_idx=0: %s", strna(res.error));
	result_done(&res);
}

static void test_refused(void)
{
	static const char *const unknown[] = {
		"foo", "allow_root", "user=root", "context=x", "default_permissions=1", "user_id"};
	Result res;

	res = parse("rw,blkdev", USER);
	ok(res.r == -EINVAL && streq_ptr(res.error, "option blkdev is privileged"),
	   "blkdev from a user: refused: %s", strna(res.error));
	result_done(&res);
	res = parse("blkdev,fsname=/dev/sdb1", 0);
	ok(res.r == 0 && streq(member(&res, "fsType"), "\"fuseblk\"") &&
		   streq(member(&res, "source"), "\"/dev/sdb1\""),
	   "blkdev from root: fuseblk on the fsname: %s", text(res.request));
	result_done(&res);

	for (size_t i = 0; i < ELEMENTSOF(unknown); i++) {
		char want[64];

		snprintf(want, sizeof(want), "unknown option '%s'", unknown[i]);
		res = parse(unknown[i], USER);
		ok(res.r == -EINVAL && streq_ptr(res.error, want), "%s: %s", unknown[i],
		   strna(res.error));
		result_done(&res);
	}
	res = parse(",rw", USER);
	ok(res.r == -EINVAL && streq_ptr(res.error, "unknown option ''"), "an empty option: %s",
	   strna(res.error));
	result_done(&res);
	res = parse("rw,", USER);
	ok(res.r == 0, "a comma at the end: nothing");
	result_done(&res);
}

static void test_flags(void)
{
	Result res = parse("ro,noexec,noatime,nodiratime,nosymfollow,sync,dirsync,lazytime", USER);

	ok(res.r == 0 && streq(member(&res, "attributes"),
			       "{\"readOnly\":true,\"noSuid\":true,\"noDev\":true,\"noExec\":true,"
			       "\"noDiratime\":true,\"noSymfollow\":true,\"atime\":\"noatime\"}"),
	   "the per-mount flags are attributes: %s", member(&res, "attributes"));
	ok(streq(member(&res, "parameters"),
		 "[" IDS ",{\"key\":\"ro\",\"type\":\"flag\"},{\"key\":\"sync\",\"type\":\"flag\"},"
		 "{\"key\":\"dirsync\",\"type\":\"flag\"},{\"key\":\"lazytime\",\"type\":\"flag\"}"
		 "]"),
	   "  ro, sync, dirsync, lazytime are the superblock's too: %s",
	   member(&res, "parameters"));
	result_done(&res);

	res = parse("ro,rw,noexec,exec,sync,async,lazytime,nolazytime,nodiratime,diratime", USER);
	ok(res.r == 0 && streq(member(&res, "attributes"), USER_ATTRS) &&
		   streq(member(&res, "parameters"), "[" IDS "]"),
	   "the later word wins: %s %s", member(&res, "attributes"), member(&res, "parameters"));
	result_done(&res);

	res = parse("strictatime,noatime", USER);
	ok(res.r == 0 && strstr(member(&res, "attributes"), "\"atime\":\"strictatime\""),
	   "strictatime over noatime, as mount(2): %s", member(&res, "attributes"));
	result_done(&res);
	res = parse("noatime,atime", USER);
	ok(res.r == 0 && strstr(member(&res, "attributes"), "\"atime\":\"relatime\""),
	   "atime after noatime: relatime: %s", member(&res, "attributes"));
	result_done(&res);
	res = parse("relatime,norelatime", USER);
	ok(res.r == 0 && strstr(member(&res, "attributes"), "\"atime\":\"relatime\""),
	   "norelatime: still relatime, the kernel's default: %s", member(&res, "attributes"));
	result_done(&res);

	res = parse("allow_other,max_read=131072,default_permissions,blksize=4096", USER);
	ok(res.r == 0 && streq(member(&res, "parameters"),
			       "[" IDS ",{\"key\":\"allow_other\",\"type\":\"flag\"},"
			       "{\"key\":\"max_read\",\"type\":\"string\",\"value\":\"131072\"},"
			       "{\"key\":\"default_permissions\",\"type\":\"flag\"},"
			       "{\"key\":\"blksize\",\"type\":\"string\",\"value\":\"4096\"}]"),
	   "the filesystem's options are parameters, in order: %s", member(&res, "parameters"));
	result_done(&res);
}

static void test_other(void)
{
	Result res = parse("auto_unmount,nonempty,x-gvfs-show,x-systemd.automount", USER);

	ok(res.r == 0 && res.o.auto_unmount && streq(member(&res, "parameters"), "[" IDS "]") &&
		   n_warnings(&res) == 0,
	   "auto_unmount noted; nonempty and x-* dropped: %s", member(&res, "parameters"));
	result_done(&res);

	res = parse("large_read", USER);
	ok(res.r == 0 && n_warnings(&res) == 1 &&
		   startswith(res.o.warnings[0], "note: 'large_read' mount option is deprecated"),
	   "large_read: a note, then nothing: %s", n_warnings(&res) ? res.o.warnings[0] : "(none)");
	result_done(&res);

	res = parse("suid,foo", USER);
	ok(res.r == -EINVAL && n_warnings(&res) == 1,
	   "what was said before a refusal is kept, to be printed first");
	result_done(&res);
}

static void test_unmount(void)
{
	_cleanup_json_ json_object *r = NULL;
	int k;

	k = fuse_unmount_request(PATH, true, -1, &r);
	ok(k == 0 && streq(text(r), "{\"path\":\"" PATH "\",\"detach\":true,\"fsType\":\"fuse\"}"),
	   "-u -z: Unmount, detached, only a FUSE mount: %s", k == 0 ? text(r) : "(none)");
	json_object_put(TAKE_PTR(r));
	k = fuse_unmount_request(PATH, false, -1, &r);
	ok(k == 0 && strstr(text(r), "\"detach\":false"), "-u: not detached: %s",
	   k == 0 ? text(r) : "(none)");
}

int main(void)
{
	test_libfuse_list();
	test_escapes();
	test_unsafe();
	test_own();
	test_refused();
	test_flags();
	test_other();
	test_unmount();
	return tap_done();
}
