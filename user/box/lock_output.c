// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "lock_findings.h"
#include "lock_output.h"
#include "lockfile.h"
#include "lockjv.h"
#include "say_bytes.h"
#include "userfile.h"

static const char *const ops[] = { "added", "changed", "removed" };
enum { ADDED, CHANGED, REMOVED };

static bool is_false(const struct fp_jv *v)
{
	return v && v->type == FP_JV_BOOL && !v->b;
}

/* a change whose path is set aside, or that cannot be applied without
 * one: a removal of what holds one, anything under an addition that is */
static bool skipped(const struct fp_lock_walk *w, const struct fp_jv *c, int op,
		    const char *p, size_t n)
{
	const char *t = fp_jv_str(c, "type");
	const char *bt = fp_jv_str(fp_jv_get(c, "before"), "type");
	bool emptied = op == REMOVED || (op == CHANGED && bt && bt[0] == 'd' &&
					 t && t[0] != 'd');

	if (!w)
		return false;
	return fp_lock_is_aside(w, p, n) || fp_lock_in_aside_dir(w, p, n) ||
	       (emptied && fp_lock_aside_under(w, p, n));
}

/* what is left when the findings are set aside: a reason that is no
 * finding's, or NULL */
static const char *other_failure(const struct fp_jv *r)
{
	const struct fp_jv *cmd = fp_jv_get(r, "command");
	const struct fp_jv *tr = fp_jv_get(r, "trace");
	const struct fp_jv *ex = fp_jv_get(r, "expected");
	size_t i;

	if (fp_jv_int(cmd, "exit_code", -1) != 0)
		return "the command did not exit 0";
	if (fp_jv_bool(cmd, "interrupted") == 1)
		return "footprint was interrupted";
	if (fp_jv_bool(cmd, "timed_out") == 1)
		return "the command timed out";
	if (!tr || fp_jv_get(tr, "complete") == NULL ||
	    is_false(fp_jv_get(tr, "complete")))
		return "the trace is incomplete";
	for (i = 0; ex && ex->type == FP_JV_ARR && i < ex->n; i++)
		if (is_false(fp_jv_get(&ex->items[i], "met")))
			return "an expected change did not happen";
	return NULL;
}

/*
 * A failure the walk of the findings did not see (a list it does not
 * know that has no "allowed" field): the receipt's reasons that no file
 * finding gave. "... and N more failing findings" is the lists' own.
 */
static const char *unseen_reason(const struct fp_jv *r)
{
	const struct fp_jv *rs = fp_jv_get(r, "reasons");
	size_t i;

	for (i = 0; rs && rs->type == FP_JV_ARR && i < rs->n; i++)
		if (!rs->items[i].s || (strncmp(rs->items[i].s, "files.", 6) &&
					strncmp(rs->items[i].s, "... and ", 8)))
			return rs->items[i].s ? rs->items[i].s : "?";
	return NULL;
}

static void write_bytes(struct json_out *j, const char *key,
			const struct fp_jv *o)
{
	char *b;
	size_t n;

	if (!fp_lockjv_bytes(o, key, &b, &n))
		json_field_bytes(j, key, b, n);
	free(b);
}

static void write_state(struct json_out *j, const struct fp_jv *s)
{
	const char *h = fp_jv_str(s, "sha256"), *t = fp_jv_str(s, "type");
	unsigned int mode = 0;
	char m[8];

	fp_lockjv_mode(fp_jv_get(s, "mode"), &mode);
	fp_lock_mode_str(m, mode);
	json_field_str(j, "type", t ? t : "?");
	json_field_str(j, "mode", m);
	if (h)
		json_field_str(j, "sha256", h);
	if (fp_jv_get(s, "target") || fp_jv_get(s, "target_b64"))
		write_bytes(j, "target", s);
}

/* one proposed change into the lock: an element of "changes" */
static void write_change(struct json_out *j, const struct fp_jv *c, int op)
{
	const struct fp_jv *b = fp_jv_get(c, "before");

	json_begin_object(j);
	write_bytes(j, "path", c);
	json_field_str(j, "op", ops[op]);
	if (op != REMOVED)
		write_state(j, c);
	if (b && b->type == FP_JV_OBJ) {
		json_field_object(j, "before");
		write_state(j, b);
		json_end_object(j);
	} else {
		json_field_null(j, "before");
	}
	json_end_object(j);
}

static void write_roots(struct json_out *j, const struct fp_jv *layers)
{
	size_t i;

	json_field_array(j, "roots");
	for (i = 0; layers && i < layers->n; i++) {
		const struct fp_jv *l = &layers->items[i];
		const char *h = fp_jv_str(l, "input_sha256");

		json_begin_object(j);
		json_field_str(j, "root", fp_jv_str(l, "root") ?: "");
		json_field_str(j, "upper", fp_jv_str(l, "upper") ?: "");
		if (h)
			json_field_str(j, "input_sha256", h);
		else
			json_field_null(j, "input_sha256");
		json_end_object(j);
	}
	json_end_array(j);
}

/* the changes (skipped ones left out), then the skipped paths */
static int write_body(struct json_out *j, const struct fp_jv *prop,
		      const struct fp_lock_walk *w)
{
	struct fp_sbuf sk = { 0 };
	bool failed;
	size_t op, i, n;
	char *p;

	json_field_array(j, "changes");
	for (op = 0; op < 3; op++) {
		const struct fp_jv *l = fp_jv_get(prop, ops[op]);

		for (i = 0; l && l->type == FP_JV_ARR && i < l->n; i++) {
			if (fp_lockjv_bytes(&l->items[i], "path", &p, &n))
				continue; /* unlockable() refused it */
			if (skipped(w, &l->items[i], op, p, n))
				fp_sbuf_add(&sk, p, n + 1);
			else
				write_change(j, &l->items[i], op);
			free(p);
		}
	}
	json_end_array(j);
	json_field_strv(j, "skipped", sk.p ?: "", sk.len);
	failed = sk.err;
	fp_sbuf_free(&sk);
	return failed ? FP_EXIT_USAGE : 0;
}

/* why change c of op cannot be locked, or NULL */
static const char *change_unlockable(const struct fp_jv *c, int op)
{
	const struct fp_jv *b = fp_jv_get(c, "before");
	const char *t = fp_jv_str(c, "type");
	unsigned int m;
	size_t n;
	char *tg;
	int e;

	if (op != REMOVED && t && t[0] == 'f' && !fp_jv_str(c, "sha256"))
		return "has no hash (it could not be read while it was hashed)";
	if ((op != REMOVED && fp_lockjv_mode(fp_jv_get(c, "mode"), &m)) ||
	    (b && b->type == FP_JV_OBJ &&
	     fp_lockjv_mode(fp_jv_get(b, "mode"), &m)))
		return "has no mode footprint can read";
	e = fp_lockjv_bytes(c, "target", &tg, &n);
	free(tg);
	if (!e || e == -ENOENT)
		e = fp_lockjv_bytes(b, "target", &tg, &n);
	else
		tg = NULL;
	free(tg);
	return e && e != -ENOENT ? "has a symlink target that cannot be read" :
				   NULL;
}

/* the first change to lock that cannot be: why, and its path in *path
 * (free it; NULL when the path itself is the trouble) */
static const char *unlockable(const struct fp_jv *prop,
			      const struct fp_lock_walk *w, char **path)
{
	const char *why;
	size_t op, i, n;

	for (op = 0; op < 3; op++) {
		const struct fp_jv *l = fp_jv_get(prop, ops[op]);

		for (i = 0; l && l->type == FP_JV_ARR && i < l->n; i++) {
			if (fp_lockjv_bytes(&l->items[i], "path", path, &n))
				return "has a path that cannot be read";
			why = skipped(w, &l->items[i], op, *path, n) ?
				      NULL :
				      change_unlockable(&l->items[i], op);
			if (why)
				return why;
			free(*path);
		}
	}
	*path = NULL;
	return NULL;
}

static int refuse_skip(const struct fp_jv *r, const char *path,
		       const struct fp_lock_walk *w)
{
	const char *why = other_failure(r);

	if (why) {
		fprintf(stderr,
			"footprint: lock: the receipt %s failed, and not only by findings (%s); --skip-disallowed cannot lock it; fix the run and lock again\n",
			fp_said(path), why);
		return FP_EXIT_VERDICT;
	}
	if (w->nreal) {
		fprintf(stderr,
			"footprint: lock: the receipt %s failed by %zu finding%s that no scratch box held, which really happened (%.*s",
			fp_said(path), w->nreal, w->nreal == 1 ? "" : "s",
			(int)w->named.len, w->named.p ?: "");
		if (w->nreal > FP_LOCK_NAMED)
			fprintf(stderr, "; and %zu more",
				w->nreal - FP_LOCK_NAMED);
		fprintf(stderr,
			"); --skip-disallowed cannot set %s aside; fix the run and lock again\n",
			w->nreal == 1 ? "it" : "them");
		return FP_EXIT_VERDICT;
	}
	why = unseen_reason(r);
	if (why) {
		fprintf(stderr,
			"footprint: lock: the receipt %s failed (%s), which is no change the scratch box held; --skip-disallowed cannot set it aside\n",
			fp_said(path), fp_said(why));
		return FP_EXIT_VERDICT;
	}
	return 0;
}

static int check_receipt(const struct fp_jv *r, const char *path, bool skip,
			 struct fp_lock_walk *w, bool *walked)
{
	const struct fp_jv *ok = fp_jv_get(r, "ok");
	const char *why;
	char *bad;
	int rc;

	if (!fp_jv_get(fp_jv_get(r, "scratch"), "proposed")) {
		fprintf(stderr,
			"footprint: lock: %s is not the receipt of a scratch run; run the job with footprint run --scratch DIR --receipt FILE\n",
			fp_said(path));
		return FP_EXIT_USAGE;
	}
	/* a passing receipt is locked whole: nothing in it failed */
	if (!(ok && ok->type == FP_JV_BOOL && ok->b)) {
		if (!skip) {
			fprintf(stderr,
				"footprint: lock: the receipt %s failed; fix the run, or lock only what was allowed with --skip-disallowed\n",
				fp_said(path));
			return FP_EXIT_VERDICT;
		}
		if (fp_lock_walk(r, w)) {
			fprintf(stderr,
				"footprint: lock: out of memory reading %s\n",
				fp_said(path));
			return FP_EXIT_USAGE;
		}
		*walked = true;
		rc = refuse_skip(r, path, w);
		if (rc)
			return rc;
	}
	why = unlockable(fp_jv_get(fp_jv_get(r, "scratch"), "proposed"),
			 *walked ? w : NULL, &bad);
	if (why) {
		fprintf(stderr,
			"footprint: lock: the proposed change %s %s; fix the run and lock again\n",
			bad ? fp_said(bad) : "?", why);
		free(bad);
		return FP_EXIT_VERDICT;
	}
	return 0;
}

int fp_lock_output(const char *receipt, const char *out, bool skip)
{
	struct fp_creds self = { 0 };
	struct fp_lock_walk w = { 0 };
	const struct fp_jv *sc, *ok;
	struct json_out j = { 0 };
	bool walked = false;
	struct fp_jv r;
	int rc = fp_lockfile_read(&self, "the receipt", receipt, &r);

	if (rc)
		return rc;
	rc = check_receipt(&r, receipt, skip, &w, &walked);
	if (!rc && !(j.f = fp_outdir_fopen("the lock", out)))
		rc = FP_EXIT_USAGE;
	if (!rc) {
		sc = fp_jv_get(&r, "scratch");
		ok = fp_jv_get(&r, "ok");
		json_begin_object(&j);
		json_field_str(&j, "lock", "outputs");
		json_field_u64(&j, "version", FP_LOCK_VERSION);
		json_field_bool(&j, "receipt_ok", ok && ok->b);
		json_field_str(&j, "scratch_dir", fp_jv_str(sc, "dir") ?: "");
		write_roots(&j, fp_jv_get(sc, "layers"));
		rc = write_body(&j, fp_jv_get(sc, "proposed"),
				walked ? &w : NULL);
		json_end_object(&j);
		fputc('\n', j.f);
		if (fflush(j.f) || (j.f != stdout && fclose(j.f)))
			rc = rc ? rc : FP_EXIT_USAGE;
	}
	if (walked)
		fp_lock_walk_free(&w);
	fp_jv_free(&r);
	return rc;
}
