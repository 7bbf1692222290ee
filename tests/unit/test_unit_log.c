// SPDX-License-Identifier: GPL-2.0
/*
 * run --unit in the log: the golden clean run given a unit and two shapes
 * is written again (header and trailer re-encoded, every other record
 * copied) and replayed; the receipt must be the live one byte for byte,
 * with the shape diff in it and the verdict failed by the drift.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evlog.h"
#include "logcodec.h"
#include "logrun.h"
#include "run.h"
#include "unit_util.h"

#define DEMO                                                                \
	"{\"mount_point\":\"/var/tmp/shape-demo\",\"source\":\"/dev/vda\"," \
	"\"fstype\":\"ext4\",\"rw\":true}"

/* a one-process shape of a unit with NoNewPrivileges nnp */
static char *shape(bool nnp, const char *mounts)
{
	char *s;

	cr_assert_geq(
		asprintf(
			&s,
			"{\"footprint_shape\":1,\"kind\":\"unit\",\"complete\":true,"
			"\"unit\":{\"properties\":{\"NoNewPrivileges\":\"%s\"}},"
			"\"processes\":[{\"main\":true,\"no_new_privs\":%s,"
			"\"cap_eff\":[],\"listeners\":[\"tcp/127.0.0.1:8080\"],"
			"\"mounts\":[%s]}]}",
			nnp ? "yes" : "no", nnp ? "true" : "false", mounts),
		0);
	return s;
}

static void set(struct fp_bytes *b, const char *s)
{
	b->data = strdup(s);
	b->len = strlen(s);
}

static char *receipt(const char *log, struct fp_run *run)
{
	struct fp_policy pol = { 0 };
	struct fp_findings f = { 0 };
	struct fp_verdict v = { 0 };
	struct fp_outcome o;
	char err[600], *out = NULL;
	size_t len;
	FILE *mem;

	if (log) {
		cr_assert_eq(fp_run_init(run), 0);
		cr_assert_eq(
			fp_log_load(log, run, NULL, NULL, err, sizeof(err)), 0,
			"%s", err);
	}
	cr_assert_eq(fp_run_policy(run, &pol, err, sizeof(err)), 0);
	cr_assert_eq(fp_run_judge(run, &pol, &f, &v, &o), 0);
	mem = open_memstream(&out, &len);
	fp_run_receipt(mem, run, &f, &v, &o);
	fclose(mem);
	fp_verdict_free(&v);
	fp_findings_free(&f);
	fp_policy_free(&pol);
	return out;
}

/* golden's records into path, with run's header and trailer */
static void rewrite(const char *path, struct fp_run *run)
{
	struct fp_enc enc = { 0 };
	struct fp_log_sink sink = { .enc = &enc };
	struct fp_log_where at = { .dirfd = AT_FDCWD,
				   .name = path,
				   .path = path };
	struct fp_evlog_reader r;
	const unsigned char *body;
	unsigned int type;
	char err[600];
	size_t len;
	int fd, ret;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(fp_log_open(&sink, fd, &at, 0, err, sizeof(err)), 0);
	cr_assert_eq(fp_evlog_reader_open(&r, data_path("clean.fplog")), 0);
	while ((ret = fp_evlog_next(&r, &type, &body, &len)) == 1) {
		if (type == FP_REC_HEADER)
			ret = fp_log_header(&sink, run);
		else if (type == FP_REC_TRAILER)
			ret = fp_log_trailer(&sink, run);
		else
			ret = fp_evlog_put(&sink.w, type, body, len);
		cr_assert_eq(ret, 0);
	}
	fp_evlog_reader_close(&r);
	cr_assert_eq(fp_log_close(&sink), 0);
	free(enc.p);
}

static void roundtrip(const char *before, const char *after, const char *policy,
		      char **live_out)
{
	char path[] = "/tmp/fp-unit-log-XXXXXX", *live, *replayed;
	struct fp_run run, back;
	unsigned char hdr[16];
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	live = receipt(data_path("clean.fplog"), &run);
	free(live);
	run.unit = strdup("shape-demo.service");
	run.shape_policy = strdup(policy);
	if (before)
		set(&run.shape[0], before);
	if (after)
		set(&run.shape[1], after);
	rewrite(path, &run);
	live = receipt(NULL, &run);
	replayed = receipt(path, &back);
	cr_assert_str_eq(replayed, live);
	fd = open(path, O_RDONLY);
	cr_assert_eq(read(fd, hdr, 16), 16);
	close(fd);
	cr_assert_eq(hdr[8], FP_LOG_VERSION, "the log's version");
	fp_run_free(&run);
	fp_run_free(&back);
	unlink(path);
	free(replayed);
	*live_out = live;
}

Test(unit_log, drift_fails_and_replays_identically)
{
	char *b = shape(true, ""), *a = shape(false, DEMO), *r;

	roundtrip(b, a, "allow mount /var/tmp/shape-demo rw\n", &r);
	cr_assert(strstr(r, "\"unit\":\"shape-demo.service\""), "%s", r);
	cr_assert(strstr(r, "\"no_new_privs_changed\":true"), "%s", r);
	cr_assert(strstr(r, "\"mounts_changed\":true"), "%s", r);
	cr_assert(strstr(r, "\"rule\":\"allow mount /var/tmp/shape-demo rw\""),
		  "%s", r);
	cr_assert(strstr(r, "its shape drifted"), "%s", r);
	cr_assert(!strncmp(r, "{\"format\":2,\"ok\":false", 22), "%s", r);
	free(r);
	free(b);
	free(a);
}

Test(unit_log, allowed_drift_is_ok)
{
	char *b = shape(true, ""), *a = shape(false, DEMO), *r;

	roundtrip(b, a,
		  "allow mount /var/tmp/shape-demo rw\nallow no_new_privs\n"
		  "allow property NoNewPrivileges\n",
		  &r);
	cr_assert(strstr(r, "\"shape_diff\":{"), "%s", r);
	cr_assert(strstr(r, "\"no_new_privs_changed\":true"), "%s", r);
	cr_assert(!strstr(r, "its shape drifted"), "%s", r);
	free(r);
	free(b);
	free(a);
}

Test(unit_log, missing_after_shape_fails)
{
	char *b = shape(true, ""), *r;

	roundtrip(b, NULL, "", &r);
	cr_assert(strstr(r, "after the command could not be taken"), "%s", r);
	cr_assert(strstr(r, "\"shape_diff\":{\"ok\":false,\"error\""), "%s", r);
	cr_assert(!strncmp(r, "{\"format\":2,\"ok\":false", 22), "%s", r);
	free(r);
	free(b);
}
