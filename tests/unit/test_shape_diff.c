// SPDX-License-Identifier: GPL-2.0
/* shape diff: the four booleans, exact deltas, the shape policy */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_diff.h"

static struct fp_jv B, A;
static struct fp_shape_policy P;
static struct fp_shape_diff D;
static char err[512];

static void teardown(void)
{
	fp_jv_free(&B);
	fp_jv_free(&A);
	fp_shape_policy_free(&P);
	fp_shape_diff_free(&D);
}

TestSuite(shape_diff, .fini = teardown, .timeout = 10);

/* a one-process shape; the parts a test varies are arguments */
static void shape(struct fp_jv *v, const char *caps, const char *nnp,
		  const char *listeners, const char *mounts, const char *props)
{
	char doc[8192];

	snprintf(
		doc, sizeof(doc),
		"{\"footprint_shape\":1,\"kind\":\"unit\",\"complete\":true,"
		"\"unit\":{\"properties\":{%s}},"
		"\"processes\":[{\"pid\":7,\"main\":true,\"exe\":\"/usr/bin/python3\","
		"\"exe_sha256\":\"ab\",\"uids\":[65534,65534,65534,65534],"
		"\"cap_eff\":[%s],\"no_new_privs\":%s,"
		"\"seccomp\":{\"mode\":\"disabled\",\"filters\":0},"
		"\"namespaces\":{\"mnt\":{\"id\":5,\"differs_from_init\":true}},"
		"\"listeners\":[%s],\"mounts\":[%s]}]}",
		props, caps, nnp, listeners, mounts);
	cr_assert_eq(fp_json_parse(doc, strlen(doc), v, err, sizeof(err)), 0,
		     "%s", err);
}

static void policy(const char *text)
{
	cr_assert_eq(
		fp_shape_policy_parse(text, strlen(text), &P, err, sizeof(err)),
		0, "%s", err);
}

static void diff(void)
{
	cr_assert_eq(fp_shape_diff(&B, &A, &P, &D, err, sizeof(err)), 0, "%s",
		     err);
}

static const struct fp_shape_drift *find(const char *change,
					 const char *subject)
{
	size_t i;

	for (i = 0; i < D.n; i++)
		if (!strcmp(D.drift[i].change, change) &&
		    !strcmp(D.drift[i].subject, subject))
			return &D.drift[i];
	return NULL;
}

#define TMP \
	"{\"mount_point\":\"/tmp\",\"source\":\"/dev/vda\",\"fstype\":\"ext4\",\"root\":\"/tmp/systemd-private-%s\",\"rw\":true}"
#define DEMO(rw)                                                                                          \
	"{\"mount_point\":\"/var/tmp/shape-demo\",\"source\":\"/dev/vda\",\"fstype\":\"ext4\",\"rw\":" rw \
	"}"

Test(shape_diff, identical_is_ok)
{
	shape(&B, "\"CAP_NET_RAW\"", "true", "\"tcp/127.0.0.1:8080\"", "", "");
	shape(&A, "\"CAP_NET_RAW\"", "true", "\"tcp/127.0.0.1:8080\"", "", "");
	policy("");
	diff();
	cr_assert(D.ok);
	cr_assert_eq(D.n, 0);
	for (int f = 0; f < FP_SF_N; f++)
		cr_assert_not(D.changed[f], "%s", fp_shape_field_names[f]);
}

Test(shape_diff, caps_gained_and_lost_by_name)
{
	shape(&B, "\"CAP_CHOWN\",\"CAP_NET_RAW\"", "true", "", "", "");
	shape(&A, "\"CAP_NET_RAW\",\"CAP_SYS_ADMIN\"", "true", "", "", "");
	policy("allow cap CAP_CHOWN\n");
	diff();
	cr_assert(D.changed[FP_SF_CAP_EFF]);
	cr_assert_not(D.changed[FP_SF_MOUNTS]);
	cr_assert_eq(D.n, 2);
	cr_assert_eq(find("gained", "CAP_SYS_ADMIN")->rule, -1);
	cr_assert_eq(find("lost", "CAP_CHOWN")->rule, 0);
	cr_assert_not(D.ok);
}

Test(shape_diff, allowed_cap_passes)
{
	shape(&B, "", "true", "", "", "");
	shape(&A, "\"CAP_NET_BIND_SERVICE\"", "true", "", "", "");
	policy("# ports below 1024\nallow cap CAP_NET_BIND_SERVICE\n");
	diff();
	cr_assert(D.changed[FP_SF_CAP_EFF]);
	cr_assert(D.ok);
}

Test(shape_diff, seed_002_step_five)
{
	shape(&B, "", "true", "\"tcp/127.0.0.1:8080\"", TMP,
	      "\"NoNewPrivileges\":\"yes\",\"ReadWritePaths\":\"\"");
	shape(&A, "", "false", "\"tcp/127.0.0.1:8080\"", TMP "," DEMO("true"),
	      "\"NoNewPrivileges\":\"no\",\"ReadWritePaths\":\"/var/tmp/shape-demo\"");
	policy("allow mount /var/tmp/shape-demo rw\n");
	diff();
	cr_assert(D.changed[FP_SF_MOUNTS]);
	cr_assert(D.changed[FP_SF_NO_NEW_PRIVS]);
	cr_assert_not(D.changed[FP_SF_CAP_EFF]);
	cr_assert_not(D.changed[FP_SF_SOCKETS]);
	cr_assert(D.changed[FP_SF_UNIT]);
	cr_assert_eq(find("added rw", "/var/tmp/shape-demo")->rule, 0);
	cr_assert_str_eq(find("changed", "no_new_privs")->before, "true");
	cr_assert_str_eq(find("changed", "no_new_privs")->after, "false");
	cr_assert_str_eq(find("changed", "NoNewPrivileges")->after, "no");
	/* the mount is allowed, the dropped NoNewPrivileges is not */
	cr_assert_not(D.ok);
}

Test(shape_diff, private_tmp_root_is_not_drift)
{
	char b[512], a[512];

	snprintf(b, sizeof(b), TMP, "1111");
	snprintf(a, sizeof(a), TMP, "2222");
	shape(&B, "", "true", "", b, "");
	shape(&A, "", "true", "", a, "");
	policy("");
	diff();
	cr_assert_not(D.changed[FP_SF_MOUNTS]);
	cr_assert(D.ok);
}

Test(shape_diff, read_only_rule_does_not_allow_writable)
{
	shape(&B, "", "true", "", DEMO("false"), "");
	shape(&A, "", "true", "", DEMO("true"), "");
	policy("allow mount /var/tmp/shape-demo ro\n");
	diff();
	cr_assert_eq(find("made writable", "/var/tmp/shape-demo")->rule, -1);
	cr_assert_not(D.ok);
	fp_shape_policy_free(&P);
	fp_shape_diff_free(&D);
	policy("allow mount /var/tmp/shape-demo rw\n");
	diff();
	cr_assert(D.ok);
}

Test(shape_diff, listeners_added_and_removed)
{
	shape(&B, "", "true", "\"tcp/127.0.0.1:8080\"", "", "");
	shape(&A, "", "true", "\"tcp/0.0.0.0:8080\",\"udp/[::]:53\"", "", "");
	policy("allow listen tcp/127.0.0.1:8080\nallow listen udp/[::]:53\n");
	diff();
	cr_assert(D.changed[FP_SF_SOCKETS]);
	cr_assert_eq(D.n, 3);
	cr_assert_eq(find("added", "tcp/0.0.0.0:8080")->rule, -1);
	cr_assert_geq(find("added", "udp/[::]:53")->rule, 0);
	cr_assert_geq(find("removed", "tcp/127.0.0.1:8080")->rule, 0);
	cr_assert_not(D.ok);
}

Test(shape_diff, incomplete_shape_is_never_ok)
{
	const char *doc = "{\"footprint_shape\":1,\"complete\":false,"
			  "\"processes\":[{\"main\":true}]}";

	cr_assert_eq(fp_json_parse(doc, strlen(doc), &B, err, sizeof(err)), 0);
	cr_assert_eq(fp_json_parse(doc, strlen(doc), &A, err, sizeof(err)), 0);
	policy("");
	diff();
	cr_assert_eq(D.n, 0);
	cr_assert_not(D.ok);
}

Test(shape_diff, not_a_shape)
{
	cr_assert_eq(fp_json_parse("{\"a\":1}", 7, &B, err, sizeof(err)), 0);
	cr_assert_eq(fp_json_parse("{\"a\":1}", 7, &A, err, sizeof(err)), 0);
	policy("");
	cr_assert_eq(fp_shape_diff(&B, &A, &P, &D, err, sizeof(err)), -1);
	cr_assert(strstr(err, "BEFORE is not a footprint shape"), "%s", err);
}

Test(shape_diff, policy_errors_name_the_line)
{
	cr_assert_eq(fp_shape_policy_parse("allow cap X\nallow cap\n", 22, &P,
					   err, sizeof(err)),
		     -1);
	cr_assert(strstr(err, "line 2:"), "%s", err);
	cr_assert_eq(
		fp_shape_policy_parse("deny cap X\n", 11, &P, err, sizeof(err)),
		-1);
	cr_assert(strstr(err, "line 1:"), "%s", err);
	cr_assert_eq(fp_shape_policy_parse("allow mount /x rx\n", 18, &P, err,
					   sizeof(err)),
		     -1);
	cr_assert_eq(fp_shape_policy_parse("allow exe now\n", 14, &P, err,
					   sizeof(err)),
		     -1);
	cr_assert_eq(fp_shape_policy_parse("allow bogus\n", 12, &P, err,
					   sizeof(err)),
		     -1);
}
