// SPDX-License-Identifier: GPL-2.0
/* A receipt walked entry by entry: the run's fields, then each finding. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet_jv.h"
#include "fleet_receipt.h"
#include "jsonin.h"
#include "json.h"
#include "sha256.h"

/* deeper than any receipt; a hostile one stops here */
#define SCAN_DEPTH 64

static const char *ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* the end of the value at p, or NULL when it is malformed */
static const char *skip_value(const char *p, const char *end, int depth)
{
	char close;

	if (p >= end)
		return NULL;
	if (*p == '"')
		return skip_string(p, end);
	if (*p != '{' && *p != '[') {
		const char *s = p;

		while (p < end && !strchr(",]}: \t\r\n", *p))
			p++;
		return p > s ? p : NULL;
	}
	if (depth >= SCAN_DEPTH)
		return NULL;
	close = *p == '{' ? '}' : ']';
	p = ws(p + 1, end);
	if (p < end && *p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			if (p >= end || *p != '"' || !(p = skip_string(p, end)))
				return NULL;
			p = ws(p, end);
			if (p >= end || *p != ':')
				return NULL;
			p = ws(p + 1, end);
		}
		p = skip_value(p, end, depth + 1);
		if (!p)
			return NULL;
		p = ws(p, end);
		if (p < end && *p == ',') {
			p = ws(p + 1, end);
			continue;
		}
		return p < end && *p == close ? p + 1 : NULL;
	}
}

/*
 * Calls fn for each member of the object (key as raw bytes between its
 * quotes) or each item of the array at [p, end). 0, fn's value, or
 * -EBADMSG.
 */
typedef int (*member_fn)(void *ctx, const char *key, size_t klen, const char *v,
			 const char *vend);

static int each(const char *p, const char *end, member_fn fn, void *ctx)
{
	bool obj;
	int ret;

	p = ws(p, end);
	if (p >= end || (*p != '{' && *p != '['))
		return -EBADMSG;
	obj = *p == '{';
	p = ws(p + 1, end);
	if (p < end && *p == (obj ? '}' : ']'))
		return 0;
	for (;;) {
		const char *k = NULL, *kend = NULL, *v;

		if (obj) {
			if (p >= end || *p != '"' ||
			    !(kend = skip_string(p, end)))
				return -EBADMSG;
			k = p + 1;
			p = ws(kend, end);
			kend--;
			if (p >= end || *p != ':')
				return -EBADMSG;
			p = ws(p + 1, end);
		}
		v = p;
		p = skip_value(p, end, 1);
		if (!p)
			return -EBADMSG;
		ret = fn(ctx, k, k ? (size_t)(kend - k) : 0, v, p);
		if (ret)
			return ret;
		p = ws(p, end);
		if (p < end && *p == ',') {
			p = ws(p + 1, end);
			continue;
		}
		return p < end && *p == (obj ? '}' : ']') ? 0 : -EBADMSG;
	}
}

static bool key_is(const char *k, size_t klen, const char *name)
{
	return klen == strlen(name) && !memcmp(k, name, klen);
}

static int parse(const char *v, const char *vend, struct fp_jv *jv)
{
	char err[128];

	return fp_json_parse(v, vend - v, jv, err, sizeof(err)) ? -EBADMSG : 0;
}

/* "2026-12-02T09:04:05.123Z" as milliseconds since the epoch; -1 */
static int64_t rfc3339_ms(const char *s)
{
	struct tm tm = { 0 };
	int ms = 0, n = 0;
	time_t t;

	if (!s ||
	    sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon,
		   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6)
		return -1;
	if (s[n] == '.') {
		int digits = 0;

		for (n++; s[n] >= '0' && s[n] <= '9'; n++, digits++)
			if (digits < 3)
				ms = ms * 10 + (s[n] - '0');
		for (; digits > 0 && digits < 3; digits++)
			ms *= 10;
	}
	if (s[n] != 'Z' || s[n + 1])
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	t = timegm(&tm);
	return t == (time_t)-1 ? -1 : (int64_t)t * 1000 + ms;
}

static char *dup_str(const struct fp_jv *o, const char *key)
{
	const char *s = fp_jv_str(o, key);

	return s ? strdup(s) : NULL;
}

static int read_provenance(struct fp_fleet_run *run, const struct fp_jv *p)
{
	size_t n;

	if (p->type != FP_JV_OBJ)
		return 0;
	/* a key given twice: the last one holds, as in fp_json_parse */
	free(run->version);
	free(run->host);
	free(run->kernel);
	free(run->user);
	free(run->started);
	free(run->ended);
	run->have_provenance = true;
	if (fp_fleet_jv_bytes(p, "footprint", &run->version, &n) == -ENOMEM ||
	    fp_fleet_jv_bytes(p, "host", &run->host, &n) == -ENOMEM ||
	    fp_fleet_jv_bytes(p, "kernel", &run->kernel, &n) == -ENOMEM ||
	    fp_fleet_jv_bytes(p, "user", &run->user, &n) == -ENOMEM)
		return -ENOMEM;
	run->uid = (uint32_t)fp_jv_int(p, "uid", 0);
	run->started = dup_str(p, "started");
	run->ended = dup_str(p, "ended");
	run->start_ms = rfc3339_ms(run->started);
	run->end_ms = rfc3339_ms(run->ended);
	return 0;
}

static int read_command(struct fp_fleet_run *run, const struct fp_jv *c)
{
	const struct fp_jv *x;

	if (c->type != FP_JV_OBJ)
		return 0;
	x = fp_jv_get(c, "exit_code");
	run->exit_code = x && x->type == FP_JV_NUM ? fp_jv_as_int(x, -1) : -1;
	run->signal = (int32_t)fp_jv_int(c, "signal", 0);
	run->timed_out = fp_jv_bool(c, "timed_out") == 1;
	run->duration_ms = (uint64_t)fp_jv_int(c, "duration_ms", 0);
	free(run->command);
	return fp_fleet_jv_strv(c, "argv", &run->command, &run->command_len);
}

static int count_item(void *ctx, const char *k, size_t klen, const char *v,
		      const char *vend)
{
	(*(uint32_t *)ctx)++;
	return 0;
}

/* one top-level member, for the run's fields */
static int run_member(void *ctx, const char *k, size_t klen, const char *v,
		      const char *vend)
{
	struct fp_fleet_run *run = ctx;
	struct fp_jv jv;
	int ret = 0;

	if (key_is(k, klen, "steps"))
		return *v == '[' ? each(v, vend, count_item, &run->steps) : 0;
	if (!key_is(k, klen, "ok") && !key_is(k, klen, "command") &&
	    !key_is(k, klen, "trace") && !key_is(k, klen, "roots") &&
	    !key_is(k, klen, "roots_b64") && !key_is(k, klen, "mode") &&
	    !key_is(k, klen, "provenance"))
		return 0;
	if (parse(v, vend, &jv))
		return -EBADMSG;
	if (key_is(k, klen, "ok")) {
		run->ok = jv.type == FP_JV_BOOL && jv.b;
	} else if (key_is(k, klen, "mode")) {
		run->sidecar = jv.type == FP_JV_STR && !strcmp(jv.s, "sidecar");
	} else if (key_is(k, klen, "trace") && jv.type == FP_JV_OBJ) {
		run->events = (uint64_t)fp_jv_int(&jv, "events", 0);
		run->lost = (uint64_t)fp_jv_int(&jv, "lost", 0);
		run->complete = fp_jv_bool(&jv, "complete") == 1;
	} else if (key_is(k, klen, "command")) {
		ret = read_command(run, &jv);
	} else if (key_is(k, klen, "roots") && !run->roots_b64) {
		free(run->roots);
		ret = fp_fleet_jv_items(&jv, false, &run->roots,
					&run->roots_len);
	} else if (key_is(k, klen, "roots_b64")) {
		/* the exact bytes of roots that are not UTF-8 */
		free(run->roots);
		run->roots_b64 = true;
		ret = fp_fleet_jv_items(&jv, true, &run->roots,
					&run->roots_len);
	} else {
		ret = read_provenance(run, &jv);
	}
	fp_jv_free(&jv);
	/* a field missing or mistyped is unknown, not a broken receipt */
	return ret == -ENOMEM ? -ENOMEM : 0;
}

static void hex(char *out, const unsigned char *d, size_t n)
{
	fp_hex(out, d, n);
}

/*
 * The same run pushed as its receipt, as its log (judged again: the same
 * bytes) or re-judged by another policy has one id: from where, when and
 * what it ran when the receipt says so, else from the receipt's bytes.
 */
static void run_id(struct fp_fleet_run *run)
{
	struct fp_sha256 h;
	unsigned char d[32];
	char uid[16];

	if (!run->have_provenance || !run->started || !run->host) {
		memcpy(run->id, run->sha256_hex, FP_FLEET_ID_LEN - 1);
		run->id[FP_FLEET_ID_LEN - 1] = '\0';
		return;
	}
	snprintf(uid, sizeof(uid), "%u", run->uid);
	fp_sha256_init(&h);
	fp_sha256_update(&h, "footprint-run/1", 16);
	fp_sha256_update(&h, run->host, strlen(run->host) + 1);
	fp_sha256_update(&h, uid, strlen(uid) + 1);
	fp_sha256_update(&h, run->started, strlen(run->started) + 1);
	fp_sha256_update(&h, run->ended ? run->ended : "",
			 run->ended ? strlen(run->ended) + 1 : 1);
	fp_sha256_update(&h, run->command ? run->command : "",
			 run->command_len);
	fp_sha256_update(&h, "", 1);
	fp_sha256_update(&h, run->roots ? run->roots : "", run->roots_len);
	fp_sha256_final(&h, d);
	hex(run->id, d, 16);
}

int fp_fleet_receipt_run(const char *buf, size_t len, struct fp_fleet_run *run,
			 char *err, size_t errlen)
{
	struct fp_sha256 h;
	const char *p = ws(buf, buf + len);
	int ret;

	memset(run, 0, sizeof(*run));
	run->exit_code = -1;
	run->start_ms = run->end_ms = -1;
	if (p >= buf + len || *p != '{') {
		snprintf(err, errlen, "not a receipt (no JSON object)");
		return -1;
	}
	ret = each(p, buf + len, run_member, run);
	if (ret) {
		snprintf(err, errlen,
			 ret == -ENOMEM ? "out of memory" :
					  "not a receipt (bad JSON)");
		fp_fleet_run_free(run);
		return -1;
	}
	fp_sha256_init(&h);
	fp_sha256_update(&h, buf, len);
	fp_sha256_final(&h, run->sha256);
	hex(run->sha256_hex, run->sha256, 32);
	run_id(run);
	return 0;
}

void fp_fleet_run_free(struct fp_fleet_run *run)
{
	free(run->command);
	free(run->roots);
	free(run->version);
	free(run->host);
	free(run->kernel);
	free(run->user);
	free(run->started);
	free(run->ended);
	memset(run, 0, sizeof(*run));
}

/* ---- the findings ---- */

/* a row of the receipt's process_table: its JSON text */
struct ptab_row {
	const char *v, *vend;
};

struct walk {
	struct fp_fleet_run *run;
	struct ptab_row *rows; /* the process table (format 2), in order */
	size_t nrows, cap;
	fp_fleet_finding_fn fn;
	void *ctx;
	const char *group; /* "files", "processes", "network"; NULL: top */
	char kind[48];
	uint32_t seq;
};

static int ptab_row(void *ctx, const char *k, size_t klen, const char *v,
		    const char *vend)
{
	struct walk *w = ctx;
	struct ptab_row *r;

	if (w->nrows == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;

		r = realloc(w->rows, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		w->rows = r;
		w->cap = cap;
	}
	w->rows[w->nrows++] = (struct ptab_row){ v, vend };
	return 0;
}

static int ptab_member(void *ctx, const char *k, size_t klen, const char *v,
		       const char *vend)
{
	if (!key_is(k, klen, "process_table") || *v != '[')
		return 0;
	return each(v, vend, ptab_row, ctx);
}

/* an actor that names its row in the process table: the row's argv */
static int argv_from_table(struct walk *w, struct fp_fleet_finding *f)
{
	struct fp_jv row;
	int ret;

	if (f->proc < 0 || (uint64_t)f->proc >= w->nrows || f->argv)
		return 0;
	if (parse(w->rows[f->proc].v, w->rows[f->proc].vend, &row))
		return -EBADMSG;
	ret = fp_fleet_jv_strv(&row, "argv", &f->argv, &f->argv_len);
	fp_jv_free(&row);
	return ret == -ENOMEM ? ret : 0;
}

static int entry(void *ctx, const char *k, size_t klen, const char *v,
		 const char *vend)
{
	struct walk *w = ctx;
	struct fp_fleet_finding f;
	struct fp_jv jv;
	int ret;

	if (*v != '{')
		return 0;
	if (parse(v, vend, &jv))
		return -EBADMSG;
	ret = fp_fleet_finding_of(&f, w->kind, &jv);
	if (!ret)
		ret = argv_from_table(w, &f);
	if (!ret) {
		f.seq = w->seq++;
		w->run->findings++;
		if (f.failing) {
			w->run->failing++;
			w->run->failing_by[f.severity]++;
		}
		ret = w->fn ? w->fn(w->ctx, &f) : 0;
	}
	fp_fleet_finding_free(&f);
	fp_jv_free(&jv);
	return ret;
}

static int list(void *ctx, const char *k, size_t klen, const char *v,
		const char *vend)
{
	struct walk *w = ctx;

	if (*v != '[' || klen + strlen(w->group) + 2 > sizeof(w->kind))
		return 0;
	snprintf(w->kind, sizeof(w->kind), "%s.%.*s", w->group, (int)klen, k);
	/* every exec: each is in a process list already */
	if (!strcmp(w->kind, "processes.executed"))
		return 0;
	return each(v, vend, entry, w);
}

static int findings_member(void *ctx, const char *k, size_t klen, const char *v,
			   const char *vend)
{
	struct walk *w = ctx;

	if (key_is(k, klen, "tamper") && *v == '[') {
		snprintf(w->kind, sizeof(w->kind), "tamper");
		return each(v, vend, entry, w);
	}
	if (*v != '{' ||
	    !(key_is(k, klen, "files") || key_is(k, klen, "processes") ||
	      key_is(k, klen, "network")))
		return 0;
	w->group = key_is(k, klen, "files")	? "files" :
		   key_is(k, klen, "processes") ? "processes" :
						  "network";
	return each(v, vend, list, w);
}

int fp_fleet_receipt_findings(const char *buf, size_t len,
			      struct fp_fleet_run *run, fp_fleet_finding_fn fn,
			      void *ctx, char *err, size_t errlen)
{
	struct walk w = { .run = run, .fn = fn, .ctx = ctx };
	int ret;

	run->findings = run->failing = 0;
	memset(run->failing_by, 0, sizeof(run->failing_by));
	ret = each(buf, buf + len, ptab_member, &w);
	if (!ret)
		ret = each(buf, buf + len, findings_member, &w);
	free(w.rows);
	if (ret == -EBADMSG)
		snprintf(err, errlen, "not a receipt (bad JSON in a list)");
	else if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return ret;
}
