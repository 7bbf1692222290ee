// SPDX-License-Identifier: GPL-2.0
/*
 * fleet new: the findings of one run that none of the job's last runs
 * had. A finding here is what the judge holds against a run unless a
 * rule allows it (failing, allowed or forbidden); one the earlier runs
 * had is one of the same kind on the same path or destination, one the
 * same rule of the job's policy allowed in them too, or one the policy
 * learned from them (policy learn's generalisation: a temp name's glob,
 * a directory a run made) allows, so that a new temp file of the usual
 * shape is not news while a new host or secret is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fleet.h"
#include "fleet_doc.h"
#include "fleet_query.h"
#include "fleet_receipt.h"
#include "hashmap.h"
#include "json.h"

struct seen {
	/* kind, path, destination of past rows; kind and the rule that
	 * allowed them */
	struct fp_hashmap keys;
	struct fp_policy learned;
};

struct found {
	uint32_t seq;
	enum fp_severity severity;
	char kind[48];
	char *what; /* path or destination */
	size_t what_len;
	char *detail, *secret;
	int32_t pid;
	char *exe;
	size_t exe_len;
	uint32_t step;
	bool failing, allowed, forbidden;
};

struct new_ctx {
	struct seen *seen;
	struct found *v;
	size_t n, cap;
	int err;
};

/* "kind\0path\0destination" */
static char *key_of(const char *kind, size_t klen, const char *path,
		    size_t plen, const char *dest, size_t dlen, size_t *len)
{
	char *k = malloc(klen + plen + dlen + 2);

	if (!k)
		return NULL;
	memcpy(k, kind, klen);
	k[klen] = '\0';
	memcpy(k + klen + 1, path, plen);
	k[klen + 1 + plen] = '\0';
	memcpy(k + klen + plen + 2, dest, dlen);
	*len = klen + plen + dlen + 2;
	return k;
}

static int add_key(struct seen *s, char *k, size_t len)
{
	struct fp_hslot *slot = k ? fp_hashmap_slot(&s->keys, k, len) : NULL;

	free(k);
	if (!slot)
		return -ENOMEM;
	slot->val = s; /* any non-NULL: it is there */
	return 0;
}

/* "kind\0\1rule": allowed by that rule of the job's policy */
static char *rule_key(const char *kind, size_t klen, const char *rule,
		      size_t rlen, size_t *len)
{
	return key_of(kind, klen, "\1", 1, rule, rlen, len);
}

static int remember(struct fp_fleet *fl, struct seen *s)
{
	struct fp_fleet_row row;
	size_t pos = 0, len = 0;
	int ret = 0, err = 0;
	char *k;

	while (!err && (ret = fp_fleet_next_row(fl, &pos, &row)) > 0) {
		if (!(row.allowed || row.failing || row.forbidden))
			continue;
		k = key_of(row.kind, row.kind_len, row.path, row.path_len,
			   row.dest, row.dest_len, &len);
		err = add_key(s, k, len);
		if (err || !row.allowed || !row.rule_len)
			continue;
		k = rule_key(row.kind, row.kind_len, row.rule, row.rule_len,
			     &len);
		err = add_key(s, k, len);
	}
	return err ? err : ret < 0 ? -EBADMSG : 0;
}

/* the learned rules; one relative to the root is taken against this
 * run's roots, as `policy check` takes it against each log's */
static int learned_policy(const struct fp_vec *rules,
			  const struct fp_fleet_run *run, struct fp_policy *pol)
{
	char *roots[FP_ROOTS_MAX], err[256];
	size_t i, n = 0, k, len;

	for (k = 0; run->roots && k < run->roots_len && n < FP_ROOTS_MAX;
	     k += len + 1) {
		len = strlen(run->roots + k);
		roots[n++] = run->roots + k;
	}
	for (i = 0; i < rules->n; i++) {
		const char *line = fp_vec_at(rules, struct fp_sugg, i)->line;

		/* a line that does not parse covers nothing */
		fp_policy_parse_line(pol, line, strlen(line), roots, n, err,
				     sizeof(err));
	}
	return 0;
}

static bool had(const struct seen *s, const struct fp_fleet_finding *f)
{
	const struct fp_rule *rule;
	size_t len;
	char *k = key_of(f->kind, strlen(f->kind), f->path ? f->path : "",
			 f->path ? f->path_len : 0,
			 f->destination ? f->destination : "",
			 f->destination ? strlen(f->destination) : 0, &len);
	bool hit = k && fp_hashmap_get(&s->keys, k, len);

	free(k);
	if (!hit && f->allowed && f->rule) {
		k = rule_key(f->kind, strlen(f->kind), f->rule, strlen(f->rule),
			     &len);
		hit = k && fp_hashmap_get(&s->keys, k, len);
		free(k);
	}
	if (hit || !f->has_target || f->forbidden)
		return hit;
	return fp_policy_decide(&s->learned, f->target, f->subject,
				f->subject_len, &rule) == FP_DEC_ALLOW;
}

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s ? s : "", s ? n : 0);
		d[s ? n : 0] = '\0';
	}
	return d;
}

static int on_finding(void *ctx, const struct fp_fleet_finding *f)
{
	struct new_ctx *c = ctx;
	struct found *x, *nv;
	const char *what = f->destination ? f->destination : f->path;
	size_t wl = f->destination ? strlen(f->destination) : f->path_len;

	if (!(f->failing || f->allowed || f->forbidden) || had(c->seen, f))
		return 0;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		nv = realloc(c->v, c->cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		c->v = nv;
	}
	x = &c->v[c->n++];
	memset(x, 0, sizeof(*x));
	x->seq = f->seq;
	x->severity = f->severity;
	snprintf(x->kind, sizeof(x->kind), "%s", f->kind);
	x->what = dupn(what, what ? wl : 0);
	x->what_len = what ? wl : 0;
	x->detail = f->detail ? strdup(f->detail) : NULL;
	x->secret = f->secret ? strdup(f->secret) : NULL;
	x->pid = f->pid;
	x->exe = dupn(f->exe, f->exe_len);
	x->exe_len = f->exe ? f->exe_len : 0;
	x->step = f->step;
	x->failing = f->failing;
	x->allowed = f->allowed;
	x->forbidden = f->forbidden;
	return x->what && x->exe ? 0 : -ENOMEM;
}

static int by_severity(const void *a, const void *b)
{
	const struct found *x = a, *y = b;

	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* bytes for a terminal: control bytes and backslash as \xHH */
static void put_bytes(FILE *f, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c < 0x20 || c == 0x7f || c == '\\')
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

static void print_line(const struct found *x)
{
	printf("%-8s %s ", fp_severity_name(x->severity), x->kind);
	put_bytes(stdout, x->what, x->what_len);
	if (x->secret)
		printf(" (%s)", x->secret);
	if (x->pid) {
		printf(" by pid %d ", x->pid);
		put_bytes(stdout, x->exe, x->exe_len);
	}
	printf("%s\n", x->forbidden ? " (forbidden)" :
		       x->failing   ? "" :
				      " (allowed)");
}

static void print_json(const struct found *x)
{
	struct json_out j = { .f = stdout };

	json_begin_object(&j);
	json_field_str(&j, "severity", fp_severity_name(x->severity));
	json_field_str(&j, "kind", x->kind);
	json_field_bytes(&j, "what", x->what, x->what_len);
	if (x->secret)
		json_field_str(&j, "secret", x->secret);
	if (x->detail)
		json_field_str(&j, "detail", x->detail);
	if (x->pid) {
		json_field_i64(&j, "pid", x->pid);
		json_field_bytes(&j, "exe", x->exe, x->exe_len);
	}
	if (x->step)
		json_field_u64(&j, "step_index", x->step);
	json_field_bool(&j, "failing", x->failing);
	json_field_bool(&j, "allowed", x->allowed);
	json_end_object(&j);
	fputc('\n', stdout);
}

static void found_free(struct new_ctx *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].what);
		free(c->v[i].detail);
		free(c->v[i].secret);
		free(c->v[i].exe);
	}
	free(c->v);
}

/* what the last runs had: their keys, and the policy learned of them */
static int load_seen(struct fp_fleet *fl, const char *job,
		     struct fp_fleet_past *runs, size_t n,
		     const struct fp_fleet_run *run, struct seen *s)
{
	struct fp_vec rules = { 0 };
	int rc = fp_fleet_past_findings(fl, job, runs, n);

	if (!rc && remember(fl, s)) {
		fprintf(stderr,
			"footprint: fleet new: out of memory, or an answer footprint cannot read\n");
		rc = FP_EXIT_FLEET_DOWN;
	}
	if (!rc)
		rc = fp_fleet_suggest(fl, runs, n, false, &rules);
	if (!rc)
		learned_policy(&rules, run, &s->learned);
	fp_suggs_free(&rules);
	return rc;
}

static void report(const struct new_ctx *c, const char *file, const char *job,
		   size_t nruns, bool json)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		if (json)
			print_json(&c->v[i]);
		else
			print_line(&c->v[i]);
	}
	if (!nruns)
		fprintf(stderr,
			"footprint: fleet new: the store has no run of job '%s' yet: every finding of %s is new\n",
			job, file);
	else if (c->n)
		fprintf(stderr,
			"footprint: fleet new: %zu finding%s of %s that none of the last %zu run%s of '%s' had\n",
			c->n, c->n == 1 ? "" : "s", file, nruns,
			nruns == 1 ? "" : "s", job);
	else
		fprintf(stderr,
			"footprint: fleet new: nothing in %s that the last %zu run%s of '%s' did not have\n",
			file, nruns, nruns == 1 ? "" : "s", job);
}

int fp_fleet_new(struct fp_fleet *fl, const char *job, unsigned int last,
		 const char *file, bool json)
{
	struct seen s = { 0 };
	struct new_ctx c = { .seen = &s };
	struct fp_fleet_past *runs = NULL;
	struct fp_fleet_run run = { 0 };
	struct fp_fleet_doc d;
	char err[256];
	size_t n = 0;
	int rc = fp_fleet_doc_file(&d, file, fl->creds);

	if (!rc &&
	    fp_fleet_receipt_run(d.receipt, d.len, &run, err, sizeof(err))) {
		fprintf(stderr, "footprint: fleet: %s: %s\n", file, err);
		rc = FP_EXIT_USAGE;
	}
	if (!rc)
		rc = fp_fleet_last_runs(fl, job, last, false, run.id, &runs,
					&n);
	if (!rc && n)
		rc = load_seen(fl, job, runs, n, &run, &s);
	if (!rc) {
		rc = fp_fleet_receipt_findings(d.receipt, d.len, &run,
					       on_finding, &c, err,
					       sizeof(err));
		if (rc)
			fprintf(stderr, "footprint: fleet: %s: %s\n", file,
				rc == -ENOMEM ? "out of memory" : err);
		rc = rc ? FP_EXIT_USAGE : 0;
	}
	if (!rc) {
		qsort(c.v, c.n, sizeof(*c.v), by_severity);
		report(&c, file, job, n, json);
		rc = c.n ? FP_EXIT_VERDICT : FP_EXIT_OK;
	}
	found_free(&c);
	fp_hashmap_free(&s.keys, NULL);
	fp_policy_free(&s.learned);
	fp_fleet_pasts_free(runs, n);
	fp_fleet_run_free(&run);
	fp_fleet_doc_free(&d);
	return rc;
}
