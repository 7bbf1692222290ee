// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "lock_output.h"
#include "lockfile.h"
#include "userfile.h"

static const char *const ops[] = { "added", "changed", "removed" };

static bool is_false(const struct fp_jv *v)
{
	return v && v->type == FP_JV_BOOL && !v->b;
}

/* a path is skipped when any file finding about it is not allowed */
static bool disallowed(const struct fp_jv *files, const char *path)
{
	size_t l, i;

	for (l = 0; files && l < files->n; l++)
		for (i = 0;
		     files->items[l].type == FP_JV_ARR && i < files->items[l].n;
		     i++) {
			const struct fp_jv *f = &files->items[l].items[i];
			const char *p = fp_jv_str(f, "path");

			if (p && !strcmp(p, path) &&
			    is_false(fp_jv_get(f, "allowed")))
				return true;
		}
	return false;
}

/* a disallowed entry in the list, or in each list of the object */
static bool any_disallowed(const struct fp_jv *v)
{
	size_t i;

	for (i = 0;
	     v && (v->type == FP_JV_ARR || v->type == FP_JV_OBJ) && i < v->n;
	     i++)
		if (v->type == FP_JV_OBJ ?
			    any_disallowed(&v->items[i]) :
			    is_false(fp_jv_get(&v->items[i], "allowed")))
			return true;
	return false;
}

static bool proposed(const struct fp_jv *prop, const char *path)
{
	size_t op, i;

	for (op = 0; op < 3; op++) {
		const struct fp_jv *l = fp_jv_get(prop, ops[op]);

		for (i = 0; l && l->type == FP_JV_ARR && i < l->n; i++) {
			const char *p = fp_jv_str(&l->items[i], "path");

			if (p && !strcmp(p, path))
				return true;
		}
	}
	return false;
}

/*
 * Only a change the box held can be set aside. A disallowed file finding
 * on any other path (a secret read, a write outside the roots, which was
 * real) is a failure no skip undoes: its path, or NULL.
 */
static const char *outside_box(const struct fp_jv *files,
			       const struct fp_jv *prop)
{
	size_t l, i;

	for (l = 0; files && files->type == FP_JV_OBJ && l < files->n; l++)
		for (i = 0;
		     files->items[l].type == FP_JV_ARR && i < files->items[l].n;
		     i++) {
			const struct fp_jv *f = &files->items[l].items[i];
			const char *p = fp_jv_str(f, "path");

			if (is_false(fp_jv_get(f, "allowed")) &&
			    (!p || !proposed(prop, p)))
				return p ? p : "a path that is not UTF-8";
		}
	return NULL;
}

/* what is left when the disallowed file findings are set aside: a
 * reason that is no file's, or NULL */
static const char *other_failure(const struct fp_jv *r)
{
	const struct fp_jv *cmd = fp_jv_get(r, "command");
	const struct fp_jv *ec = fp_jv_get(cmd, "exit_code");
	const struct fp_jv *tr = fp_jv_get(r, "trace");
	const struct fp_jv *ex = fp_jv_get(r, "expected");
	const struct fp_jv *rs = fp_jv_get(r, "reasons");
	size_t i;

	if (fp_jv_as_int(ec, -1) != 0)
		return "the command did not exit 0";
	if (!tr || fp_jv_get(tr, "complete") == NULL ||
	    is_false(fp_jv_get(tr, "complete")))
		return "the trace is incomplete";
	for (i = 0; ex && ex->type == FP_JV_ARR && i < ex->n; i++)
		if (is_false(fp_jv_get(&ex->items[i], "met")))
			return "an expected change did not happen";
	/* the reasons are capped: the lists that fail are looked at too */
	if (any_disallowed(fp_jv_get(fp_jv_get(r, "processes"), "leftover")) ||
	    any_disallowed(fp_jv_get(r, "network")) ||
	    any_disallowed(fp_jv_get(r, "tamper")))
		return "a process left running or a port bound";
	/* "... and N more failing findings": the lists above cover them */
	for (i = 0; rs && rs->type == FP_JV_ARR && i < rs->n; i++)
		if (!rs->items[i].s || (strncmp(rs->items[i].s, "files.", 6) &&
					strncmp(rs->items[i].s, "... and ", 8)))
			return rs->items[i].s ? rs->items[i].s : "?";
	return NULL;
}

static void write_state(struct json_out *j, const struct fp_jv *s)
{
	const struct fp_jv *m = fp_jv_get(s, "mode");
	const char *h = fp_jv_str(s, "sha256"), *t = fp_jv_str(s, "type");
	const struct fp_jv *tg = fp_jv_get(s, "target");

	json_field_str(j, "type", t ? t : "?");
	json_field_u64(j, "mode", fp_jv_as_int(m, 0));
	if (h)
		json_field_str(j, "sha256", h);
	if (tg && tg->type == FP_JV_STR)
		json_field_bytes(j, "target", tg->s, tg->len);
}

/* one proposed change into the lock */
static int write_change(struct json_out *j, const struct fp_jv *c, int op,
			bool *first)
{
	const struct fp_jv *b = fp_jv_get(c, "before");
	struct json_out k = { .f = j->f };

	fputs(*first ? "" : ",", j->f);
	*first = false;
	json_begin_object(&k);
	json_field_str(&k, "path", fp_jv_str(c, "path"));
	json_field_str(&k, "op", ops[op]);
	if (op != 2)
		write_state(&k, c);
	json_key(&k, "before");
	if (b && b->type == FP_JV_OBJ) {
		json_begin_object(&k);
		write_state(&k, b);
		json_end_object(&k);
	} else {
		fputs("null", k.f);
	}
	json_end_object(&k);
	return 0;
}

static void write_roots(struct json_out *j, const struct fp_jv *layers)
{
	size_t i;

	json_key(j, "roots");
	fputc('[', j->f);
	for (i = 0; layers && i < layers->n; i++) {
		const struct fp_jv *l = &layers->items[i];
		const char *h = fp_jv_str(l, "input_sha256");
		struct json_out k = { .f = j->f };

		fputs(i ? "," : "", j->f);
		json_begin_object(&k);
		json_field_str(&k, "root", fp_jv_str(l, "root"));
		json_field_str(&k, "upper", fp_jv_str(l, "upper"));
		json_key(&k, "input_sha256");
		if (h)
			json_string(k.f, h, strlen(h));
		else
			fputs("null", k.f);
		json_end_object(&k);
	}
	fputc(']', j->f);
}

/* the changes (skipped ones left out), then the skipped paths */
static int write_body(struct json_out *j, const struct fp_jv *prop,
		      const struct fp_jv *files)
{
	bool first = true;
	size_t op, i;
	int rc = 0;

	json_key(j, "changes");
	fputc('[', j->f);
	for (op = 0; op < 3 && !rc; op++) {
		const struct fp_jv *l = fp_jv_get(prop, ops[op]);

		for (i = 0; l && l->type == FP_JV_ARR && i < l->n && !rc; i++)
			if (!disallowed(files,
					fp_jv_str(&l->items[i], "path") ?: ""))
				rc = write_change(j, &l->items[i], op, &first);
	}
	fputc(']', j->f);
	json_key(j, "skipped");
	fputc('[', j->f);
	first = true;
	for (op = 0; op < 3; op++) {
		const struct fp_jv *l = fp_jv_get(prop, ops[op]);

		for (i = 0; l && l->type == FP_JV_ARR && i < l->n; i++) {
			const char *p = fp_jv_str(&l->items[i], "path");

			if (!p || !disallowed(files, p))
				continue;
			fputs(first ? "" : ",", j->f);
			first = false;
			json_string(j->f, p, strlen(p));
		}
	}
	fputc(']', j->f);
	return rc;
}

/* a change to lock whose content could not be hashed, or whose path or
 * target is not UTF-8 (not supported yet), or NULL */
static const char *unlockable(const struct fp_jv *prop,
			      const struct fp_jv *files)
{
	size_t op, i;

	for (op = 0; op < 3; op++) {
		const struct fp_jv *l = fp_jv_get(prop, ops[op]);

		for (i = 0; l && l->type == FP_JV_ARR && i < l->n; i++) {
			const struct fp_jv *c = &l->items[i];
			const char *t = fp_jv_str(c, "type");
			const char *p = fp_jv_str(c, "path") ?: "";

			if (fp_jv_get(c, "path_b64") ||
			    fp_jv_get(c, "target_b64"))
				return p;
			if (op < 2 && t && t[0] == 'f' &&
			    !fp_jv_str(c, "sha256") && !disallowed(files, p))
				return p;
		}
	}
	return NULL;
}

static int check_receipt(const struct fp_jv *r, const char *path, bool skip)
{
	const struct fp_jv *ok = fp_jv_get(r, "ok");
	const char *why;

	if (!fp_jv_get(fp_jv_get(r, "scratch"), "proposed")) {
		fprintf(stderr,
			"footprint: lock: %s is not the receipt of a scratch run; run the job with footprint run --scratch DIR --receipt FILE\n",
			path);
		return FP_EXIT_USAGE;
	}
	why = unlockable(fp_jv_get(fp_jv_get(r, "scratch"), "proposed"),
			 fp_jv_get(r, "files"));
	if (why) {
		fprintf(stderr,
			"footprint: lock: %s has no hash (it could not be read while hashed), or is not UTF-8 (not supported); fix the run and lock again\n",
			why);
		return FP_EXIT_VERDICT;
	}
	if (ok && ok->type == FP_JV_BOOL && ok->b)
		return 0;
	if (!skip) {
		fprintf(stderr,
			"footprint: lock: the receipt %s failed; fix the run, or lock only what was allowed with --skip-disallowed\n",
			path);
		return FP_EXIT_VERDICT;
	}
	why = other_failure(r);
	if (why) {
		fprintf(stderr,
			"footprint: lock: the receipt %s failed, and not only by disallowed file changes (%s); --skip-disallowed cannot lock it\n",
			path, why);
		return FP_EXIT_VERDICT;
	}
	why = outside_box(fp_jv_get(r, "files"),
			  fp_jv_get(fp_jv_get(r, "scratch"), "proposed"));
	if (why)
		fprintf(stderr,
			"footprint: lock: the receipt %s failed at %s, which is no change the scratch box held (a read, or a write outside the roots, that really happened); --skip-disallowed cannot set it aside\n",
			path, why);
	return why ? FP_EXIT_VERDICT : 0;
}

int fp_lock_output(const char *receipt, const char *out, bool skip)
{
	struct fp_creds self = { 0 };
	const struct fp_jv *sc, *ok;
	struct json_out j = { 0 };
	struct fp_jv r;
	int rc = fp_lockfile_read(&self, "the receipt", receipt, &r);

	if (rc)
		return rc;
	rc = check_receipt(&r, receipt, skip);
	if (!rc && !(j.f = fp_outdir_fopen("the lock", out)))
		rc = FP_EXIT_USAGE;
	if (!rc) {
		sc = fp_jv_get(&r, "scratch");
		ok = fp_jv_get(&r, "ok");
		json_begin_object(&j);
		json_field_str(&j, "lock", "outputs");
		json_field_u64(&j, "version", 1);
		json_field_bool(&j, "receipt_ok", ok && ok->b);
		json_field_str(&j, "scratch_dir", fp_jv_str(sc, "dir"));
		write_roots(&j, fp_jv_get(sc, "layers"));
		rc = write_body(&j, fp_jv_get(sc, "proposed"),
				fp_jv_get(&r, "files"));
		json_end_object(&j);
		fputc('\n', j.f);
		if (fflush(j.f) || (j.f != stdout && fclose(j.f)))
			rc = rc ? rc : FP_EXIT_USAGE;
	}
	fp_jv_free(&r);
	return rc;
}
