// SPDX-License-Identifier: GPL-2.0
/* fleet's pure parts: severity, RowBinary, a receipt as rows. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_rb.h"
#include "fleet_receipt.h"
#include "severity.h"
#include "unit_util.h"

Test(severity, issue_31_table)
{
	cr_assert_eq(fp_severity_of("files.read"), FP_SEV_CRITICAL);
	cr_assert_eq(fp_severity_of("processes.privileged"), FP_SEV_CRITICAL);
	cr_assert_eq(fp_severity_of("tamper"), FP_SEV_CRITICAL);
	cr_assert_eq(fp_severity_of("tamper.signal"), FP_SEV_CRITICAL);
	cr_assert_eq(fp_severity_of("files.setuid"), FP_SEV_CRITICAL);
	cr_assert_eq(fp_severity_of("processes.fileless_exec"),
		     FP_SEV_CRITICAL);
	cr_assert_eq(fp_severity_of("network.connected"), FP_SEV_HIGH);
	cr_assert_eq(fp_severity_of("files.outside_roots"), FP_SEV_HIGH);
	cr_assert_eq(fp_severity_of("processes.leftover"), FP_SEV_HIGH);
	cr_assert_eq(fp_severity_of("processes.signalled_outside"),
		     FP_SEV_HIGH);
	cr_assert_eq(fp_severity_of("processes.ptraced"), FP_SEV_HIGH);
	cr_assert_eq(fp_severity_of("files.unexplained"), FP_SEV_MEDIUM);
	cr_assert_eq(fp_severity_of("network.bound"), FP_SEV_MEDIUM);
	cr_assert_eq(fp_severity_of("processes.mounts"), FP_SEV_MEDIUM);
	cr_assert_eq(fp_severity_of("files.added"), FP_SEV_LOW);
	cr_assert_eq(fp_severity_of("files.changed"), FP_SEV_LOW);
	/* a list this footprint does not know is never ranked low */
	cr_assert_eq(fp_severity_of("files.brand_new"), FP_SEV_HIGH);
}

Test(severity, names_round_trip)
{
	enum fp_severity s;
	int i;

	for (i = FP_SEV_LOW; i <= FP_SEV_CRITICAL; i++) {
		const char *n = fp_severity_name(i);

		cr_assert_eq(fp_severity_parse(n, strlen(n), &s), 0, "%s", n);
		cr_assert_eq((int)s, i);
	}
	cr_assert_neq(fp_severity_parse("info", 4, &s), 0);
	cr_assert_neq(fp_severity_parse("critical", 4, &s), 0);
}

Test(rowbinary, encodes_as_clickhouse_reads)
{
	struct fp_rb b = { 0 };
	struct fp_rbin r;
	const char *s;
	size_t n;

	fp_rb_u32(&b, 0x01020304);
	fp_rb_bytes(&b, "a\0\xff", 3);
	fp_rb_strv(&b, "sh\0-c\0\0", 7);
	fp_rb_varint(&b, 300);
	cr_assert(!b.err);
	/* UInt32 little-endian; a String's LEB128 length, then its bytes */
	cr_assert_eq(memcmp(b.p,
			    "\x04\x03\x02\x01\x03"
			    "a\0\xff",
			    8),
		     0);
	/* Array(String): three items, the last one empty */
	cr_assert_eq(memcmp(b.p + 8, "\x03\x02sh\x02-c\x00", 8), 0);
	cr_assert_eq(memcmp(b.p + 16, "\xac\x02", 2), 0);
	r = (struct fp_rbin){ b.p, b.len, 0, false };
	cr_assert_eq(fp_rbin_u32(&r), 0x01020304);
	s = fp_rbin_str(&r, &n);
	cr_assert_eq(n, 3);
	cr_assert_eq(memcmp(s, "a\0\xff", 3), 0);
	cr_assert_eq(fp_rbin_varint(&r), 3);
	fp_rbin_str(&r, &n);
	fp_rbin_str(&r, &n);
	fp_rbin_str(&r, &n);
	cr_assert_eq(n, 0);
	cr_assert_eq(fp_rbin_varint(&r), 300);
	cr_assert(fp_rbin_done(&r));
	cr_assert(!r.err);
	/* past the end: an error, never a read out of bounds */
	fp_rbin_u32(&r);
	cr_assert(r.err);
	fp_rb_free(&b);
}

struct seen {
	unsigned int n, failing, bound, logs;
	char bind_subject[64];
};

static int on_finding(void *ctx, const struct fp_fleet_finding *f)
{
	struct seen *s = ctx;

	cr_assert_eq(f->seq, s->n, "findings come in receipt order");
	s->n++;
	s->failing += f->failing;
	cr_assert_str_neq(f->kind, "processes.executed");
	if (!strcmp(f->kind, "network.bound")) {
		s->bound++;
		cr_assert(f->failing);
		cr_assert(f->has_target);
		cr_assert_eq(f->target, FP_T_BIND);
		snprintf(s->bind_subject, sizeof(s->bind_subject), "%s",
			 f->subject);
		cr_assert_eq(f->severity, FP_SEV_MEDIUM);
	}
	if (!strcmp(f->kind, "files.added") && f->path &&
	    strstr(f->path, "/root/logs")) {
		s->logs++;
		cr_assert(f->allowed);
		cr_assert(!f->failing);
		cr_assert_str_eq(f->rule, "allow logs/");
		cr_assert(f->created);
		cr_assert_eq(f->target, FP_T_PATH);
	}
	if (!strcmp(f->kind, "files.transient")) {
		cr_assert(f->failing);
		cr_assert(f->created);
		cr_assert_str_eq(f->exe, "/usr/bin/dash");
		/* made and removed again: medium, not the roots' low, below
		 * what reached outside (severity.c, one table) */
		cr_assert_eq(f->severity, FP_SEV_MEDIUM);
	}
	/* only reported, judged by nothing: low whatever its list */
	if (!f->failing && !f->allowed)
		cr_assert_eq(f->severity, FP_SEV_LOW, "%s", f->kind);
	return 0;
}

Test(fleet_receipt, golden_changes)
{
	struct fp_fleet_run run;
	struct seen s = { 0 };
	char err[256];
	size_t len;
	char *buf = slurp(data_path("changes.receipt.json"), &len);

	cr_assert_eq(fp_fleet_receipt_run(buf, len, &run, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert(!run.ok);
	cr_assert(!run.sidecar);
	cr_assert(run.complete);
	cr_assert_eq(run.exit_code, 0);
	cr_assert_eq(run.events, 1718);
	cr_assert_eq(strlen(run.id), 32);
	cr_assert_eq(memcmp(run.command, "sh\0-c\0mkdir logs", 16), 0);
	cr_assert_eq(fp_fleet_receipt_findings(buf, len, &run, on_finding, &s,
					       err, sizeof(err)),
		     0, "%s", err);
	/* as many failing findings as the receipt has reasons */
	cr_assert_eq(s.failing, 7);
	cr_assert_eq(run.failing, 7);
	cr_assert_eq(run.findings, s.n);
	cr_assert_eq(s.bound, 1);
	cr_assert_eq(s.logs, 2);
	/* a bind to a port the kernel picked is allowed as port 0 */
	cr_assert_str_eq(s.bind_subject, "tcp/127.0.0.1:0");
	cr_assert_eq(run.failing_by[FP_SEV_HIGH], 0);
	/* the transient and the bind */
	cr_assert_eq(run.failing_by[FP_SEV_MEDIUM], 2);
	cr_assert_eq(run.failing_by[FP_SEV_LOW], 5);
	fp_fleet_run_free(&run);
	free(buf);
}

/* with provenance, the id is the run's (where, when, what), so that a
 * receipt judged again by another policy is the same run */
Test(fleet_receipt, id_from_provenance)
{
	const char *a =
		"{\"ok\":true,\"command\":{\"argv\":[\"true\"]},\"roots\":[\"/r\"],"
		"\"provenance\":{\"footprint\":\"0.1\",\"host\":\"ci-7\","
		"\"kernel\":\"6.1\",\"user\":\"u\",\"uid\":1000,"
		"\"started\":\"2026-12-02T09:04:05.123Z\","
		"\"ended\":\"2026-12-02T09:04:06.5Z\"},\"files\":{}}";
	const char *b =
		"{\"ok\":false,\"command\":{\"argv\":[\"true\"]},\"roots\":[\"/r\"],"
		"\"provenance\":{\"footprint\":\"0.1\",\"host\":\"ci-7\","
		"\"kernel\":\"6.1\",\"user\":\"u\",\"uid\":1000,"
		"\"started\":\"2026-12-02T09:04:05.123Z\","
		"\"ended\":\"2026-12-02T09:04:06.5Z\"},\"files\":{}}";
	struct fp_fleet_run ra, rb;
	char err[128];

	cr_assert_eq(fp_fleet_receipt_run(a, strlen(a), &ra, err, 128), 0);
	cr_assert_eq(fp_fleet_receipt_run(b, strlen(b), &rb, err, 128), 0);
	cr_assert_str_eq(ra.id, rb.id);
	cr_assert_str_neq(ra.sha256_hex, rb.sha256_hex);
	cr_assert_str_eq(ra.host, "ci-7");
	cr_assert_eq(ra.uid, 1000);
	cr_assert_eq(ra.start_ms, 1796202245123LL);
	cr_assert_eq(ra.end_ms, 1796202246500LL);
	fp_fleet_run_free(&ra);
	fp_fleet_run_free(&rb);
}

Test(fleet_receipt, refuses_what_is_no_receipt)
{
	static const char *const bad[] = {
		"",
		"[]",
		"{",
		"{\"ok\":",
		"{\"files\":{\"added\":[{]}}",
		"{\"a\":\"unterminated}",
	};
	struct fp_fleet_run run;
	char err[128], deep[512];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_neq(fp_fleet_receipt_run(bad[i], strlen(bad[i]), &run,
						   err, sizeof(err)),
			      0, "%s", bad[i]);
	/* nesting deeper than any receipt stops the walk, not the stack */
	memset(deep, '[', sizeof(deep));
	memcpy(deep, "{\"x\":", 5);
	cr_assert_neq(fp_fleet_receipt_run(deep, sizeof(deep), &run, err,
					   sizeof(err)),
		      0);
}
