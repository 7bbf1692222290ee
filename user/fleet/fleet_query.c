// SPDX-License-Identifier: GPL-2.0
/*
 * Queries of learn and new. Each answer is RowBinary, read in place; a
 * job name is quoted byte by byte (fp_ch_quote), run ids are hex. The
 * rows are deduplicated in the query (GROUP BY, DISTINCT), so a run or
 * finding stored twice before a merge counts once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fleet_query.h"
#include "fleet_rb.h"
#include "fleet_receipt.h"

static int failed(struct fp_fleet *fl)
{
	fprintf(stderr, "footprint: fleet: %s\n", fl->ch.err);
	return FP_EXIT_FLEET_DOWN;
}

static int garbled(struct fp_fleet *fl)
{
	fprintf(stderr,
		"footprint: fleet: %s gave an answer footprint cannot read; is it a ClickHouse server, and were its tables made by fleet init?\n",
		fl->ch.shown);
	return FP_EXIT_FLEET_DOWN;
}

void fp_fleet_pasts_free(struct fp_fleet_past *runs, size_t n)
{
	size_t i;

	for (i = 0; runs && i < n; i++)
		free(runs[i].roots);
	free(runs);
}

/* an Array(String) as NUL-separated bytes */
static int read_strv(struct fp_rbin *r, char **out, size_t *len)
{
	uint64_t k = fp_rbin_varint(r), i;
	size_t n = 0, l;
	const char *s;
	char *v = NULL, *nv;

	for (i = 0; i < k && !r->err; i++) {
		s = fp_rbin_str(r, &l);
		nv = realloc(v, n + l + 1);
		if (!nv) {
			free(v);
			return -ENOMEM;
		}
		v = nv;
		memcpy(v + n, s, l);
		n += l;
		v[n++] = '\0';
	}
	*out = v;
	*len = n;
	return 0;
}

int fp_fleet_last_runs(struct fp_fleet *fl, const char *job, unsigned int n,
		       bool passing, const char *except_id,
		       struct fp_fleet_past **runs, size_t *got)
{
	char *qjob = fp_ch_quote(job, strlen(job)), *sql = NULL;
	struct fp_rbin r;
	struct fp_fleet_past *v;
	const char *s;
	size_t l;

	*runs = NULL;
	*got = 0;
	if (!qjob ||
	    asprintf(
		    &sql,
		    "SELECT run_id, any(roots), max(started) AS s FROM footprint_runs WHERE job = %s%s AND run_id != '%s' GROUP BY run_id ORDER BY s DESC, run_id LIMIT %u FORMAT RowBinary",
		    qjob, passing ? " AND ok = 1" : "",
		    except_id ? except_id : "", n) < 0)
		sql = NULL;
	free(qjob);
	if (!sql) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_USAGE;
	}
	if (fp_ch_query(&fl->ch, sql)) {
		free(sql);
		return failed(fl);
	}
	free(sql);
	v = calloc(n, sizeof(*v));
	if (!v) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_USAGE;
	}
	r = (struct fp_rbin){ (const unsigned char *)fl->ch.answer,
			      fl->ch.answer_len, 0, false };
	while (!fp_rbin_done(&r) && *got < n) {
		struct fp_fleet_past *p = &v[*got];

		s = fp_rbin_str(&r, &l);
		snprintf(p->id, sizeof(p->id), "%.*s", (int)l, s);
		if (read_strv(&r, &p->roots, &p->roots_len)) {
			fp_fleet_pasts_free(v, *got + 1);
			fprintf(stderr, "footprint: out of memory\n");
			return FP_EXIT_USAGE;
		}
		p->started = fp_rbin_u32(&r);
		(*got)++;
		/* a run id is hex: anything else is not ours */
		if (l != 32 || strspn(p->id, "0123456789abcdef") != 32)
			r.err = true;
	}
	if (r.err) {
		fp_fleet_pasts_free(v, *got);
		*got = 0;
		return garbled(fl);
	}
	*runs = v;
	return 0;
}

int fp_fleet_past_findings(struct fp_fleet *fl, const char *job,
			   const struct fp_fleet_past *runs, size_t n)
{
	char *qjob = fp_ch_quote(job, strlen(job)), *in, *sql = NULL;
	size_t i;

	in = calloc(n ? n : 1, 36);
	if (!qjob || !in) {
		free(qjob);
		free(in);
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_USAGE;
	}
	for (i = 0; i < n; i++)
		sprintf(in + strlen(in), "%s'%s'", i ? "," : "", runs[i].id);
	if (!n)
		strcpy(in, "''");
	if (asprintf(
		    &sql,
		    "SELECT DISTINCT run_id, seq, kind, rule_target, rule_subject, path, destination, created, is_dir, allowed, failing, forbidden, rule FROM footprint_findings WHERE job = %s AND run_id IN (%s) AND (created = 1 OR allowed = 1 OR failing = 1 OR forbidden = 1) ORDER BY run_id, seq FORMAT RowBinary",
		    qjob, in) < 0)
		sql = NULL;
	free(qjob);
	free(in);
	if (!sql) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_USAGE;
	}
	i = fp_ch_query(&fl->ch, sql);
	free(sql);
	return i ? failed(fl) : 0;
}

int fp_fleet_next_row(struct fp_fleet *fl, size_t *pos,
		      struct fp_fleet_row *row)
{
	struct fp_rbin r = { (const unsigned char *)fl->ch.answer,
			     fl->ch.answer_len, *pos, false };

	if (fp_rbin_done(&r))
		return 0;
	row->run_id = fp_rbin_str(&r, &row->run_id_len);
	fp_rbin_u32(&r); /* seq: in the key of DISTINCT */
	row->kind = fp_rbin_str(&r, &row->kind_len);
	row->target = fp_rbin_str(&r, &row->target_len);
	row->subject = fp_rbin_str(&r, &row->subject_len);
	row->path = fp_rbin_str(&r, &row->path_len);
	row->dest = fp_rbin_str(&r, &row->dest_len);
	row->created = fp_rbin_u8(&r);
	row->dir = fp_rbin_u8(&r);
	row->allowed = fp_rbin_u8(&r);
	row->failing = fp_rbin_u8(&r);
	row->forbidden = fp_rbin_u8(&r);
	row->rule = fp_rbin_str(&r, &row->rule_len);
	*pos = r.pos;
	return r.err ? -1 : 1;
}

/* the rows of run id in the answer: fed to s, created paths first */
static int feed_run(struct fp_fleet *fl, struct fp_suggester *s, const char *id,
		    bool passing_only, bool pass_created)
{
	struct fp_fleet_row row;
	enum fp_rule_target t;
	size_t pos = 0;
	int ret = 0, err = 0;

	while (!err && (ret = fp_fleet_next_row(fl, &pos, &row)) > 0) {
		if (row.run_id_len != 32 || memcmp(row.run_id, id, 32))
			continue;
		if (fp_fleet_target_parse(row.target, row.target_len, &t))
			continue;
		if (pass_created) {
			if (row.created && t == FP_T_PATH)
				err = fp_suggester_created(s, row.subject,
							   row.subject_len,
							   row.dir);
			continue;
		}
		/* what a rule had to allow: failing, or allowed by one */
		if (row.forbidden || !(row.allowed || row.failing) ||
		    (passing_only && row.failing))
			continue;
		err = fp_suggester_need(s, t, row.subject, row.subject_len,
					row.created);
	}
	return err ? err : ret < 0 ? -EBADMSG : 0;
}

int fp_fleet_suggest(struct fp_fleet *fl, const struct fp_fleet_past *runs,
		     size_t n, bool passing_only, struct fp_vec *rules)
{
	struct fp_suggester *s = fp_suggester_new(n ? n : 1);
	size_t i, k, len;
	int ret = s ? 0 : -ENOMEM;

	/* as policy learn: relative to the root when the runs had one */
	if (s)
		fp_suggester_relative(s);

	for (i = n; i-- > 0 && !ret;) {
		const struct fp_fleet_past *p = &runs[i];

		for (k = 0; !ret && k < p->roots_len; k += len + 1) {
			len = strlen(p->roots + k);
			ret = fp_suggester_root(s, p->roots + k, len);
		}
		if (!ret)
			ret = feed_run(fl, s, p->id, passing_only, true);
		if (!ret)
			ret = feed_run(fl, s, p->id, passing_only, false);
		if (!ret)
			ret = fp_suggester_end_run(s);
	}
	if (!ret)
		ret = fp_suggester_finish(s, rules);
	fp_suggester_free(s);
	if (ret == -EBADMSG)
		return garbled(fl);
	if (ret) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_USAGE;
	}
	return 0;
}
