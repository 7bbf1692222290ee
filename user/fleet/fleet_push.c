// SPDX-License-Identifier: GPL-2.0
/*
 * One run into the store: its findings, then its row, the mark that the
 * run is in. Idempotent: a run whose row is there is not pushed again,
 * and findings go on from the last one a push that stopped half-way
 * stored (each INSERT is one block, so it is stored whole or not at
 * all). The tables are ReplacingMergeTree on (job, run id, seq) besides,
 * so two pushes racing each other still merge into one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet_push.h"
#include "fleet_rb.h"
#include "fleet_schema.h"

/* rows per INSERT: below ClickHouse's max_insert_block_size (1048576),
 * so that an INSERT is one block, stored whole or not at all */
#define BATCH_ROWS 262144

static char *env_job(void)
{
	const char *j = getenv("FOOTPRINT_JOB"), *repo, *gj, *wf;
	char *s = NULL;

	if (j && *j)
		return strdup(j);
	repo = getenv("GITHUB_REPOSITORY");
	gj = getenv("GITHUB_JOB");
	wf = getenv("GITHUB_WORKFLOW");
	if (repo && *repo && gj && *gj &&
	    asprintf(&s, "%s/%s/%s", repo, wf ? wf : "", gj) < 0)
		s = NULL;
	return s;
}

/* the command line, arguments joined by spaces, at most 256 bytes */
static char *command_job(const struct fp_fleet_run *run)
{
	size_t n = run->command_len, i;
	char *s;

	while (n && run->command[n - 1] == '\0')
		n--;
	if (n > 256)
		n = 256;
	s = malloc(n + 1);
	for (i = 0; s && i < n; i++)
		s[i] = run->command[i] ? run->command[i] : ' ';
	if (s)
		s[n] = '\0';
	return s;
}

static const char *first(const char *a, const char *b)
{
	return a && *a ? a : b ? b : "";
}

int fp_fleet_meta(const struct fp_fleet *fl, const struct fp_fleet_doc *d,
		  const struct fp_fleet_run *run, struct fp_fleet_meta *m)
{
	const struct fp_fleet_origin *o = &d->origin;
	int64_t dur = (int64_t)run->duration_ms * 1000000;

	memset(m, 0, sizeof(*m));
	m->job = d->job		     ? strdup(d->job) :
		 fl->job && *fl->job ? strdup(fl->job) :
				       env_job();
	if (!m->job)
		m->job = run->command_len ? command_job(run) : strdup("");
	if (!m->job)
		return -ENOMEM;
	m->host = first(run->host, o->host);
	m->user = first(run->user, o->user);
	m->version = first(run->version, o->version);
	m->kernel = first(run->kernel, o->kernel);
	m->uid = run->have_provenance ? run->uid : o->uid;
	m->origin = run->have_provenance && run->start_ms >= 0 ? "receipt" :
		    o->from[0]				       ? o->from :
								 "push";
	if (run->start_ms >= 0) {
		m->start_ns = run->start_ms * 1000000;
		m->end_ns = run->end_ms >= 0 ? run->end_ms * 1000000 :
					       m->start_ns + dur;
	} else {
		m->end_ns = o->end_ns > 0 ? o->end_ns :
					    (int64_t)time(NULL) * 1000000000;
		m->start_ns = o->start_ns > 0 ? o->start_ns : m->end_ns - dur;
	}
	if (m->start_ns < 0)
		m->start_ns = 0;
	if (m->end_ns < m->start_ns)
		m->end_ns = m->start_ns;
	m->started = (uint32_t)(m->start_ns / 1000000000);
	m->ended = (uint32_t)(m->end_ns / 1000000000);
	return 0;
}

void fp_fleet_meta_free(struct fp_fleet_meta *m)
{
	free(m->job);
	memset(m, 0, sizeof(*m));
}

/* the one UInt64 (and the UInt-something after it) a query answers */
static enum fp_ch_status query_u64(struct fp_fleet *fl, const char *sql,
				   uint64_t *a, uint64_t *b, unsigned int bw)
{
	enum fp_ch_status st = fp_ch_query(&fl->ch, sql);
	struct fp_rbin r = { (const unsigned char *)fl->ch.answer,
			     fl->ch.answer_len, 0, false };

	if (st)
		return st;
	*a = fp_rbin_u64(&r);
	if (b)
		*b = bw == 8 ? fp_rbin_u64(&r) : fp_rbin_u32(&r);
	if (r.err) {
		snprintf(
			fl->ch.err, sizeof(fl->ch.err),
			"%s gave an answer footprint cannot read (%zu bytes) to: %.200s",
			fl->ch.shown, fl->ch.answer_len, sql);
		return FP_CH_REFUSED;
	}
	return FP_CH_OK;
}

enum fp_ch_status fp_fleet_resume(struct fp_fleet *fl, unsigned int table,
				  const char *run_id, uint64_t *count,
				  uint64_t *next)
{
	char sql[256];
	uint64_t max = 0;
	enum fp_ch_status st;

	/* run ids are hex: nothing to quote */
	snprintf(
		sql, sizeof(sql),
		"SELECT count(), max(seq) FROM %s WHERE run_id = '%s' FORMAT RowBinary",
		fp_fleet_tables[table].name, run_id);
	st = query_u64(fl, sql, count, &max, table == FP_TABLE_EVENTS ? 8 : 4);
	*next = *count ? max + 1 : 0;
	return st;
}

struct rows {
	struct fp_fleet *fl;
	unsigned int table;
	char *sql;
	struct fp_rb rb;
	size_t n;
	enum fp_ch_status st;
};

/* send what has gathered */
static int rows_flush(struct rows *r)
{
	if (r->rb.err) {
		snprintf(r->fl->ch.err, sizeof(r->fl->ch.err), "out of memory");
		r->st = FP_CH_NOMEM;
	} else if (r->n) {
		r->st = fp_ch_insert(&r->fl->ch, r->sql, r->rb.p, r->rb.len);
	}
	fp_rb_reset(&r->rb);
	r->n = 0;
	return r->st ? -1 : 0;
}

/* one more row is in: send the batch when it is full */
static int rows_added(struct rows *r)
{
	r->n++;
	if (r->rb.err || r->n >= BATCH_ROWS || r->rb.len >= r->fl->batch_bytes)
		return rows_flush(r);
	return 0;
}

struct findings_ctx {
	struct rows rows;
	const char *run_id;
	const struct fp_fleet_meta *m;
	uint64_t from; /* seq stored already below this */
};

static void bytes_or_empty(struct fp_rb *b, const char *s, size_t len)
{
	fp_rb_bytes(b, s ? s : "", s ? len : 0);
}

static int finding_row(void *ctx, const struct fp_fleet_finding *f)
{
	struct findings_ctx *c = ctx;
	struct fp_rb *b = &c->rows.rb;

	if (f->seq < c->from)
		return 0;
	fp_rb_str(b, c->run_id);
	fp_rb_str(b, c->m->job);
	fp_rb_u32(b, c->m->started);
	fp_rb_u32(b, f->seq);
	fp_rb_u32(b, f->step);
	bytes_or_empty(b, f->step_name, f->step_name_len);
	fp_rb_str(b, f->kind);
	fp_rb_u8(b, (uint8_t)f->severity);
	bytes_or_empty(b, f->path, f->path_len);
	fp_rb_str(b, f->destination);
	fp_rb_str(b, f->address);
	fp_rb_u16(b, f->port);
	fp_rb_str(b, f->secret);
	fp_rb_str(b, f->detail);
	fp_rb_i32(b, f->pid);
	bytes_or_empty(b, f->exe, f->exe_len);
	fp_rb_strv(b, f->argv, f->argv_len);
	fp_rb_u8(b, f->allowed);
	fp_rb_u8(b, f->forbidden);
	fp_rb_u8(b, f->failing);
	fp_rb_str(b, f->rule);
	fp_rb_str(b, f->has_target ? fp_fleet_target_name(f->target) : "");
	bytes_or_empty(b, f->has_target ? f->subject : NULL, f->subject_len);
	fp_rb_u8(b, f->created);
	fp_rb_u8(b, f->dir);
	return rows_added(&c->rows);
}

static void run_row(struct fp_rb *b, const struct fp_fleet_run *run,
		    const struct fp_fleet_meta *m)
{
	fp_rb_str(b, run->id);
	fp_rb_str(b, m->job);
	fp_rb_str(b, run->sidecar ? "sidecar" : "run");
	fp_rb_u32(b, run->steps);
	fp_rb_str(b, m->host);
	fp_rb_str(b, m->user);
	fp_rb_u32(b, m->uid);
	fp_rb_str(b, m->version);
	fp_rb_str(b, m->kernel);
	fp_rb_u32(b, m->started);
	fp_rb_u32(b, m->ended);
	fp_rb_u64(b, run->duration_ms);
	fp_rb_str(b, m->origin);
	fp_rb_u8(b, run->ok);
	fp_rb_i32(b, run->exit_code);
	fp_rb_i32(b, run->signal);
	fp_rb_u8(b, run->timed_out);
	fp_rb_u8(b, run->complete);
	fp_rb_u64(b, run->events);
	fp_rb_u64(b, run->lost);
	fp_rb_strv(b, run->command, run->command_len);
	fp_rb_strv(b, run->roots, run->roots_len);
	fp_rb_u32(b, run->findings);
	fp_rb_u32(b, run->failing);
	fp_rb_u32(b, run->failing_by[FP_SEV_CRITICAL]);
	fp_rb_u32(b, run->failing_by[FP_SEV_HIGH]);
	fp_rb_u32(b, run->failing_by[FP_SEV_MEDIUM]);
	fp_rb_u32(b, run->failing_by[FP_SEV_LOW]);
	fp_rb_str(b, run->sha256_hex);
	fp_rb_u32(b, (uint32_t)time(NULL));
}

static enum fp_ch_status push_findings(struct fp_fleet *fl,
				       struct fp_fleet_doc *d,
				       struct fp_fleet_run *run,
				       const struct fp_fleet_meta *m, bool *bad)
{
	struct findings_ctx c = { .rows = { .fl = fl,
					    .table = FP_TABLE_FINDINGS },
				  .run_id = run->id,
				  .m = m };
	char err[256];
	uint64_t count;
	int ret;

	c.rows.st = fp_fleet_resume(fl, FP_TABLE_FINDINGS, run->id, &count,
				    &c.from);
	if (c.rows.st)
		return c.rows.st;
	c.rows.sql = fp_fleet_insert_sql(FP_TABLE_FINDINGS);
	ret = c.rows.sql ? fp_fleet_receipt_findings(d->receipt, d->len, run,
						     finding_row, &c, err,
						     sizeof(err)) :
			   -ENOMEM;
	if (!ret)
		rows_flush(&c.rows);
	else if (ret == -EBADMSG || ret == -ENOMEM) {
		fprintf(stderr, "footprint: fleet: %s: %s\n", d->name,
			ret == -ENOMEM ? "out of memory" : err);
		*bad = true;
	}
	free(c.rows.sql);
	fp_rb_free(&c.rows.rb);
	return *bad ? FP_CH_REFUSED : c.rows.st;
}

static enum fp_ch_status push_run_row(struct fp_fleet *fl,
				      const struct fp_fleet_run *run,
				      const struct fp_fleet_meta *m)
{
	struct rows r = { .fl = fl, .table = FP_TABLE_RUNS };

	r.sql = fp_fleet_insert_sql(FP_TABLE_RUNS);
	if (!r.sql)
		return FP_CH_NOMEM;
	run_row(&r.rb, run, m);
	r.n = 1;
	rows_flush(&r);
	free(r.sql);
	fp_rb_free(&r.rb);
	return r.st;
}

enum fp_push_result fp_fleet_push_doc(struct fp_fleet *fl,
				      struct fp_fleet_doc *d,
				      struct fp_fleet_run *run)
{
	struct fp_fleet_meta m;
	enum fp_ch_status st = FP_CH_OK;
	char sql[256];
	uint64_t n = 0, events = 0;
	bool bad = false, events_failed = false;

	if (fp_fleet_meta(fl, d, run, &m)) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_PUSH_BAD;
	}
	snprintf(
		sql, sizeof(sql),
		"SELECT count() FROM footprint_runs WHERE run_id = '%s' FORMAT RowBinary",
		run->id);
	st = query_u64(fl, sql, &n, NULL, 0);
	if (!st && !n)
		st = push_findings(fl, d, run, &m, &bad);
	if (!st && !n)
		st = push_run_row(fl, run, &m);
	/* the events after the run: a run in the store whose events are
	 * not is pushed again for them, from where they stopped */
	if (!st && fl->events && d->log) {
		st = fp_fleet_push_events(fl, d->log, run->id, &m, &events);
		events_failed = st != FP_CH_OK;
	}
	fl->events_pushed = events;
	fp_fleet_meta_free(&m);
	if (bad)
		return FP_PUSH_BAD;
	if (events_failed)
		return FP_PUSH_NO_EVENTS;
	if (st)
		return FP_PUSH_FAILED;
	return n ? FP_PUSHED_ALREADY : FP_PUSHED;
}
