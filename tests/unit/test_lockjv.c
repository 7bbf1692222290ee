// SPDX-License-Identifier: GPL-2.0
/* lock's and promote's readers of modes and byte strings (lockjv.c), and
 * the escaping of names in their messages (say_bytes.c) */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findref.h"
#include "jsonin.h"
#include "lock_findings.h"
#include "lockjv.h"
#include "say_bytes.h"

static struct fp_jv parse(const char *text)
{
	struct fp_jv v;
	char err[128];

	cr_assert_eq(fp_json_parse(text, strlen(text), &v, err, sizeof(err)), 0,
		     "%s", err);
	return v;
}

static int mode_of(const char *text, unsigned int *mode)
{
	struct fp_jv v = parse(text);
	int e = fp_lockjv_mode(fp_jv_get(&v, "mode"), mode);

	fp_jv_free(&v);
	return e;
}

Test(lockjv, modes_old_and_new)
{
	unsigned int m = 0;
	char s[8];

	cr_assert_eq(mode_of("{\"mode\":420}", &m), 0);
	cr_assert_eq(m, 0644);
	cr_assert_eq(mode_of("{\"mode\":\"4755\"}", &m), 0);
	cr_assert_eq(m, 04755);
	cr_assert_eq(mode_of("{\"mode\":\"644\"}", &m), 0);
	cr_assert_eq(m, 0644);
	/* a whole st_mode keeps its permission bits */
	cr_assert_eq(mode_of("{\"mode\":\"100755\"}", &m), 0);
	cr_assert_eq(m, 0755);
	cr_assert_eq(mode_of("{\"mode\":33261}", &m), 0);
	cr_assert_eq(m, 0755);
	fp_lock_mode_str(s, 04755);
	cr_assert_str_eq(s, "4755");
	fp_lock_mode_str(s, 0644);
	cr_assert_str_eq(s, "0644");
}

Test(lockjv, bad_modes_are_refused)
{
	static const char *const bad[] = {
		"{\"mode\":\"0x1ff\"}",
		"{\"mode\":\"9\"}",
		"{\"mode\":\"\"}",
		"{\"mode\":-1}",
		"{\"mode\":1e3}",
		"{\"mode\":null}",
		"{}",
		"{\"mode\":\"77777777\"}",
		"{\"mode\":2000000}",
		"{\"mode\":\" 644\"}",
	};
	unsigned int m;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		cr_assert_eq(mode_of(bad[i], &m), -EINVAL, "%s", bad[i]);
}

static int bytes_of(const char *text, char **out, size_t *len)
{
	struct fp_jv v = parse(text);
	int e = fp_lockjv_bytes(&v, "path", out, len);

	fp_jv_free(&v);
	return e;
}

Test(lockjv, bytes_prefer_b64)
{
	char *p;
	size_t n;

	cr_assert_eq(bytes_of("{\"path\":\"/a/b\"}", &p, &n), 0);
	cr_assert_eq(n, 4);
	cr_assert_str_eq(p, "/a/b");
	free(p);
	/* "caf\xe9" */
	cr_assert_eq(
		bytes_of("{\"path\":\"caf\\ufffd\",\"path_b64\":\"Y2Fm6Q==\"}",
			 &p, &n),
		0);
	cr_assert_eq(n, 4);
	cr_assert_eq(memcmp(p, "caf\xe9", 4), 0);
	free(p);
	cr_assert_eq(bytes_of("{\"path_b64\":\"YWI=\"}", &p, &n), 0);
	cr_assert_str_eq(p, "ab");
	free(p);
	cr_assert_eq(bytes_of("{\"path_b64\":\"\"}", &p, &n), 0);
	cr_assert_eq(n, 0);
	free(p);
	cr_assert_eq(bytes_of("{}", &p, &n), -ENOENT);
	cr_assert_null(p);
}

Test(lockjv, bad_bytes_are_refused)
{
	static const char *const bad[] = {
		"{\"path\":\"a\\u0000b\"}", /* a NUL would cut the path */
		"{\"path_b64\":\"YQBi\"}", /* a\0b */
		"{\"path_b64\":\"YWI\"}", /* no padding */
		"{\"path_b64\":\"Y*I=\"}",
		"{\"path\":7}",
		"{\"path\":\"x\",\"path_b64\":null}",
	};
	size_t i, n;
	char *p;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		cr_assert_eq(bytes_of(bad[i], &p, &n), -EINVAL, "%s", bad[i]);
		cr_assert_null(p);
	}
}

Test(say_bytes, escapes_what_drives_a_terminal)
{
	static const char name[] = "ok/é\n\x1b[31m\\\xff\xe2\x80\xae.txt";
	struct fp_sbuf b = { 0 };

	fp_sbuf_say(&b, name, sizeof(name) - 1);
	fp_sbuf_add(&b, "", 1);
	cr_assert_str_eq(b.p,
			 "ok/é\\x0a\\x1b[31m\\x5c\\xff\\xe2\\x80\\xae.txt");
	cr_assert_str_eq(fp_said("a\tb"), "a\\x09b");
	fp_sbuf_free(&b);
}

/* a receipt of a scratch run on /r whose findings are given */
static struct fp_jv receipt(const char *findings)
{
	char *text;
	struct fp_jv v;

	cr_assert_gt(asprintf(&text,
			      "{\"ok\":false,%s,\"scratch\":{\"layers\":"
			      "[{\"root\":\"/r\",\"upper\":\"0/upper\"}]}}",
			      findings),
		     0);
	v = parse(text);
	free(text);
	return v;
}

static void walk(const char *findings, struct fp_lock_walk *w)
{
	struct fp_jv r = receipt(findings);

	cr_assert_eq(fp_lock_walk(&r, w), 0);
	fp_jv_free(&r);
}

Test(lock_findings, reads_and_reported_lists_do_not_fail)
{
	struct fp_lock_walk w;

	walk("\"files\":{\"read\":[{\"path\":\"/r/calc.py\",\"allowed\":false,"
	     "\"failing\":false},{\"path\":\"/home/u/.ssh/id\",\"allowed\":"
	     "false,\"failing\":false}],\"changed\":[{\"path\":\"/r/calc.py\","
	     "\"allowed\":true}]},\"processes\":{\"executed\":[{\"pid\":3,"
	     "\"allowed\":false}],\"leftover\":[{\"pid\":4,\"allowed\":true}]},"
	     "\"network\":{\"listening\":[{\"address\":\"::1\",\"port\":80,"
	     "\"allowed\":false,\"owner_outside_run\":true}]},\"tamper\":[]",
	     &w);
	cr_assert_eq(w.naside, 0);
	cr_assert_eq(w.nreal, 0, "%.*s", (int)w.named.len, w.named.p);
	fp_lock_walk_free(&w);
}

Test(lock_findings, box_changes_are_set_aside_the_rest_named)
{
	struct fp_lock_walk w;

	walk("\"files\":{\"added\":[{\"path\":\"/r/d\",\"allowed\":false},"
	     "{\"path\":\"/r/ok\",\"allowed\":true}],\"transient\":[{\"path\":"
	     "\"/r/tmp\",\"allowed\":false}],\"outside_roots\":[{\"path\":"
	     "\"/etc/x\",\"allowed\":false}],\"read\":[{\"path\":\"/s\","
	     "\"allowed\":false,\"failing\":true}],\"cut\":[{\"path\":\"/r/c\","
	     "\"allowed\":false}],\"new_list\":[{\"path\":\"/r/n\",\"allowed\":"
	     "false}]},\"processes\":{\"leftover\":[{\"pid\":4,\"exe\":\"/x\","
	     "\"allowed\":false}],\"executed\":[{\"pid\":5,\"allowed\":false,"
	     "\"forbidden\":true}]},\"network\":{\"connected\":[{\"address\":"
	     "\"2001:db8::1\",\"port\":443,\"protocol\":\"tcp\",\"pid\":6,"
	     "\"failing\":true}]},\"tamper\":[{\"kind\":\"signal\"}]",
	     &w);
	cr_assert_eq(w.naside, 2);
	cr_assert(fp_lock_is_aside(&w, "/r/d", 4));
	cr_assert(fp_lock_is_aside(&w, "/r/tmp", 6));
	cr_assert_not(fp_lock_is_aside(&w, "/r/ok", 5));
	/* under a directory the run made that is set aside */
	cr_assert(fp_lock_in_aside_dir(&w, "/r/d/f", 6));
	cr_assert(fp_lock_in_aside_dir(&w, "/r/d/e/f", 8));
	cr_assert_not(fp_lock_in_aside_dir(&w, "/r/dd/f", 7));
	cr_assert(fp_lock_aside_under(&w, "/r", 2));
	cr_assert_not(fp_lock_aside_under(&w, "/r/d", 4));
	/* outside_roots, read, cut, new_list, leftover, executed (forbidden),
	 * connected, tamper */
	cr_assert_eq(w.nreal, 8);
	fp_sbuf_add(&w.named, "", 1);
	cr_assert_str_eq(w.named.p,
			 "files.outside_roots: /etc/x; files.read: /s; "
			 "files.cut: /r/c; files.new_list: /r/n; "
			 "processes.leftover: /x by pid 4");
	fp_lock_walk_free(&w);
}
