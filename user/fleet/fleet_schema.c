// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_rb.h"
#include "fleet_schema.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct fp_fleet_col run_cols[] = {
	{ "run_id", "String" },
	{ "job", "String" },
	{ "mode", "String" },
	{ "steps", "UInt32" },
	{ "host", "String" },
	{ "user", "String" },
	{ "uid", "UInt32" },
	{ "version", "String" },
	{ "kernel", "String" },
	{ "started", "DateTime" },
	{ "ended", "DateTime" },
	{ "duration_ms", "UInt64" },
	{ "origin", "String" },
	{ "ok", "UInt8" },
	{ "exit_code", "Int32" },
	{ "signal", "Int32" },
	{ "timed_out", "UInt8" },
	{ "complete", "UInt8" },
	{ "events", "UInt64" },
	{ "lost", "UInt64" },
	{ "command", "Array(String)" },
	{ "roots", "Array(String)" },
	{ "findings", "UInt32" },
	{ "failing", "UInt32" },
	{ "critical", "UInt32" },
	{ "high", "UInt32" },
	{ "medium", "UInt32" },
	{ "low", "UInt32" },
	{ "receipt_sha256", "String" },
	{ "pushed", "DateTime" },
};

#define SEVERITY "Enum8('low' = 1, 'medium' = 2, 'high' = 3, 'critical' = 4)"

static const struct fp_fleet_col finding_cols[] = {
	{ "run_id", "String" },	      { "job", "String" },
	{ "started", "DateTime" },    { "seq", "UInt32" },
	{ "step", "UInt32" },	      { "step_name", "String" },
	{ "kind", "String" },	      { "severity", SEVERITY },
	{ "path", "String" },	      { "destination", "String" },
	{ "address", "String" },      { "port", "UInt16" },
	{ "secret", "String" },	      { "detail", "String" },
	{ "pid", "Int32" },	      { "exe", "String" },
	{ "argv", "Array(String)" },  { "allowed", "UInt8" },
	{ "forbidden", "UInt8" },     { "failing", "UInt8" },
	{ "rule", "String" },	      { "rule_target", "String" },
	{ "rule_subject", "String" }, { "created", "UInt8" },
	{ "is_dir", "UInt8" },
};

static const struct fp_fleet_col event_cols[] = {
	{ "run_id", "String" },	   { "job", "String" },
	{ "started", "DateTime" }, { "seq", "UInt64" },
	{ "ts_ns", "UInt64" },	   { "type", "String" },
	{ "syscall", "String" },   { "pid", "UInt32" },
	{ "ppid", "UInt32" },	   { "uid", "UInt32" },
	{ "comm", "String" },	   { "path", "String" },
	{ "path2", "String" },	   { "argv", "Array(String)" },
	{ "flags", "UInt64" },	   { "ret", "Int64" },
	{ "address", "String" },   { "port", "UInt16" },
	{ "protocol", "String" },
};

const struct fp_fleet_table fp_fleet_tables[FP_TABLE_N] = {
	[FP_TABLE_RUNS] = { "footprint_runs", run_cols, N(run_cols),
			    "(job, run_id)" },
	[FP_TABLE_FINDINGS] = { "footprint_findings", finding_cols,
				N(finding_cols), "(job, run_id, seq)" },
	[FP_TABLE_EVENTS] = { "footprint_events", event_cols, N(event_cols),
			      "(job, run_id, seq)" },
};

/* a growing string; NULL once an allocation failed */
static void add(char **s, size_t *len, const char *fmt, const char *a,
		const char *b)
{
	char *more = NULL, *n;
	size_t m;

	if (!*s)
		return;
	if (asprintf(&more, fmt, a, b) < 0) {
		free(*s);
		*s = NULL;
		return;
	}
	m = strlen(more);
	n = realloc(*s, *len + m + 1);
	if (n) {
		memcpy(n + *len, more, m + 1);
		*len += m;
	} else {
		free(*s);
	}
	*s = n;
	free(more);
}

char *fp_fleet_insert_sql(unsigned int t)
{
	const struct fp_fleet_table *tb = &fp_fleet_tables[t];
	char *s = strdup("");
	size_t len = 0, i;

	add(&s, &len, "INSERT INTO %s%s (", tb->name, "");
	for (i = 0; i < tb->ncols; i++)
		add(&s, &len, "%s%s", i ? ", " : "", tb->cols[i].name);
	add(&s, &len, ") FORMAT RowBinary%s%s", "", "");
	return s;
}

/* CREATE TABLE IF NOT EXISTS name (cols) ENGINE = ... */
static char *create_sql(const struct fp_fleet_table *tb, const char *name)
{
	char *s = strdup("");
	size_t len = 0, i;

	add(&s, &len, "CREATE TABLE IF NOT EXISTS %s%s (", name, "");
	for (i = 0; i < tb->ncols; i++)
		add(&s, &len, i ? ", %s %s" : "%s %s", tb->cols[i].name,
		    tb->cols[i].type);
	add(&s, &len,
	    ") ENGINE = ReplacingMergeTree() PARTITION BY toYYYYMM(started) ORDER BY %s%s",
	    tb->order_by, "");
	return s;
}

static int run(struct fp_ch *c, char *sql)
{
	int ret;

	if (!sql) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	ret = fp_ch_query(c, sql) ? -1 : 0;
	free(sql);
	return ret;
}

/* the one String a query answers (RowBinary), into out */
static int one_string(struct fp_ch *c, char *sql, char *out, size_t outlen)
{
	struct fp_rbin r;
	const char *s;
	size_t n;

	if (run(c, sql))
		return -1;
	r = (struct fp_rbin){ (const unsigned char *)c->answer, c->answer_len,
			      0, false };
	s = fp_rbin_str(&r, &n);
	snprintf(out, outlen, "%.*s", (int)n, r.err ? "" : s);
	return 0;
}

static char *fmt(const char *f, const char *a, const char *b, const char *c)
{
	char *s = NULL;

	return asprintf(&s, f, a, b, c) < 0 ? NULL : s;
}

/* name's engine is what init makes; its columns include ours */
static int check_table(struct fp_ch *c, const struct fp_fleet_table *tb,
		       const char *name, const char *engine)
{
	char got[256], *q;
	struct fp_rbin r;
	size_t i, n, k;
	const char *s;

	q = fmt("SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = '%s' FORMAT RowBinary",
		name, NULL, NULL);
	if (one_string(c, q, got, sizeof(got)))
		return -1;
	if (strcmp(got, engine) &&
	    !(!strcmp(engine, "MergeTree") && strstr(got, "MergeTree"))) {
		snprintf(
			c->err, sizeof(c->err),
			"%s: table %s is a %s table, not the %s one fleet init makes%s; drop it or use another database",
			c->shown, name, got[0] ? got : "missing", engine,
			strcmp(engine, "Distributed") ? " without --cluster" :
							" with --cluster");
		return -1;
	}
	q = fmt("SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = '%s' FORMAT RowBinary",
		name, NULL, NULL);
	if (run(c, q))
		return -1;
	for (i = 0; i < tb->ncols; i++) {
		bool found = false;

		r = (struct fp_rbin){ (const unsigned char *)c->answer,
				      c->answer_len, 0, false };
		while (!found && !fp_rbin_done(&r)) {
			s = fp_rbin_str(&r, &n);
			found = n == strlen(tb->cols[i].name) &&
				!memcmp(s, tb->cols[i].name, n);
			s = fp_rbin_str(&r, &k);
			if (found &&
			    (k != strlen(tb->cols[i].type) ||
			     memcmp(s, tb->cols[i].type, k)) &&
			    strncmp(tb->cols[i].type, "Enum8", 5)) {
				snprintf(
					c->err, sizeof(c->err),
					"%s: column %s.%s is %.*s, not %s; the table was made by another footprint (docs/fleet.md)",
					c->shown, name, tb->cols[i].name,
					(int)k, s, tb->cols[i].type);
				return -1;
			}
		}
		if (!found) {
			snprintf(
				c->err, sizeof(c->err),
				"%s: table %s has no column %s; it was made by another footprint: add the column (docs/fleet.md) or use another database",
				c->shown, name, tb->cols[i].name);
			return -1;
		}
	}
	return 0;
}

static int make_table(struct fp_ch *c, const struct fp_fleet_table *tb,
		      const char *cluster, const char *db)
{
	char local[64], *q;

	if (!cluster)
		return run(c, create_sql(tb, tb->name)) ?:
			       check_table(c, tb, tb->name, "MergeTree");
	snprintf(local, sizeof(local), "%s_local", tb->name);
	if (run(c, create_sql(tb, local)) ||
	    check_table(c, tb, local, "MergeTree"))
		return -1;
	q = fmt("CREATE TABLE IF NOT EXISTS %s AS %s_local ENGINE = Distributed(%s, ",
		tb->name, tb->name, cluster);
	if (q) {
		char *q2 = fmt("%s%s, '%s', cityHash64(run_id))", q, db, local);

		free(q);
		q = q2;
	}
	return run(c, q) ?: check_table(c, tb, tb->name, "Distributed");
}

int fp_fleet_init_node(struct fp_ch *c, const char *cluster, bool events)
{
	char db[256], n[32], *qc = NULL, *qdb = NULL;
	unsigned int t;
	int ret = 0;

	if (one_string(c, strdup("SELECT currentDatabase() FORMAT RowBinary"),
		       db, sizeof(db)))
		return -1;
	if (cluster) {
		qc = fp_ch_quote(cluster, strlen(cluster));
		qdb = fp_ch_quote(db, strlen(db));
		if (!qc || !qdb ||
		    one_string(
			    c,
			    fmt("SELECT toString(count()) FROM system.clusters WHERE cluster = %s FORMAT RowBinary",
				qc, NULL, NULL),
			    n, sizeof(n)))
			ret = -1;
		else if (!strcmp(n, "0")) {
			snprintf(
				c->err, sizeof(c->err),
				"%s has no cluster %s in its remote_servers; define it in the server's configuration on every node (docs/fleet.md)",
				c->shown, cluster);
			ret = -1;
		}
	}
	for (t = 0; t < FP_TABLE_N && !ret; t++)
		if (t != FP_TABLE_EVENTS || events)
			ret = make_table(c, &fp_fleet_tables[t], qc, qdb);
	free(qc);
	free(qdb);
	return ret;
}
