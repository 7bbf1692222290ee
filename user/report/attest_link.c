// SPDX-License-Identifier: GPL-2.0
/*
 * The in-toto link (in_toto/models/link.py of in-toto 1.3.1): a Metablock
 * whose "signed" holds exactly the seven fields attr.asdict(Link) gives,
 * since in-toto-verify signs again what it reads back, not these bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "attest_int.h"
#include "cli.h"
#include "json.h"

struct fp_ad *fp_attest_digest(const char *sha256)
{
	struct fp_ad *d = fp_ad_obj();

	if (d && fp_ad_cput(d, "sha256", fp_ad_cstr(sha256))) {
		fp_ad_free(d);
		return NULL;
	}
	return d;
}

static struct fp_ad *artifacts(const struct fp_attest_arts *a)
{
	struct fp_ad *o = fp_ad_obj();
	size_t i;

	for (i = 0; o && i < a->n; i++) {
		if (fp_ad_put(o, a->v[i].name, a->v[i].len,
			      fp_attest_digest(a->v[i].sha256))) {
			fp_ad_free(o);
			return NULL;
		}
	}
	return o;
}

static struct fp_ad *strings(const struct fp_jv *a)
{
	struct fp_ad *o = fp_ad_arr();
	size_t i;

	for (i = 0; o && i < a->n; i++) {
		if (fp_ad_push(o, fp_ad_str(a->items[i].s, a->items[i].len))) {
			fp_ad_free(o);
			return NULL;
		}
	}
	return o;
}

static int put_opt(struct fp_ad *o, const char *key, const char *s)
{
	return s ? fp_ad_cput(o, key, fp_ad_cstr(s)) : 0;
}

struct fp_ad *fp_attest_outcome(const struct fp_attest_facts *f, bool with_sha)
{
	struct fp_ad *o = fp_ad_obj();

	if (!o ||
	    fp_ad_cput(o, "return-value",
		       f->have_rv ? fp_ad_int(f->rv) : fp_ad_null()) ||
	    fp_ad_cput(o, "verdict", fp_ad_cstr(f->ok ? "ok" : "failed")) ||
	    fp_ad_cput(o, "reasons", strings(f->reasons)) ||
	    fp_ad_cput(o, "trace-complete", fp_ad_bool(f->complete)) ||
	    fp_ad_cput(o, "materials",
		       fp_ad_cstr(f->materials_all ? "before-snapshot" :
						     "observed")) ||
	    (with_sha &&
	     fp_ad_cput(o, "receipt-sha256", fp_ad_cstr(f->receipt_sha256)))) {
		fp_ad_free(o);
		return NULL;
	}
	return o;
}

static struct fp_ad *environment(const struct fp_attest_facts *f)
{
	struct fp_ad *o = fp_ad_obj();

	if (!o || put_opt(o, "footprint", f->version) ||
	    put_opt(o, "host", f->host) || put_opt(o, "kernel", f->kernel) ||
	    put_opt(o, "started", f->started) ||
	    put_opt(o, "ended", f->ended)) {
		fp_ad_free(o);
		return NULL;
	}
	return o;
}

static struct fp_ad *link_signed(const struct fp_attest_facts *f,
				 const char *name)
{
	struct fp_ad *s = fp_ad_obj();

	if (!s || fp_ad_cput(s, "_type", fp_ad_cstr("link")) ||
	    fp_ad_cput(s, "name", fp_ad_cstr(name)) ||
	    fp_ad_cput(s, "command", strings(f->argv)) ||
	    fp_ad_cput(s, "materials", artifacts(&f->materials)) ||
	    fp_ad_cput(s, "products", artifacts(&f->products)) ||
	    fp_ad_cput(s, "byproducts", fp_attest_outcome(f, true)) ||
	    fp_ad_cput(s, "environment", environment(f))) {
		fp_ad_free(s);
		return NULL;
	}
	return s;
}

int fp_attest_link(const struct fp_attest_facts *f,
		   const struct fp_attest_key *k, const char *name,
		   struct fp_abuf *b, char *err, size_t errlen)
{
	struct fp_ad *signed_ = link_signed(f, name), *meta = NULL,
		     *sigs = NULL, *sig = NULL;
	struct fp_abuf canon = { 0 }, hex = { 0 };
	unsigned char *raw = NULL;
	size_t rawlen = 0, i;
	char h[3];
	int ret = -1;

	if (!signed_)
		goto nomem;
	/* Signable.signable_bytes: the UTF-8 canonical JSON of "signed" */
	fp_ad_canonical(signed_, &canon);
	if (canon.err)
		goto nomem;
	if (fp_attest_sign(k, canon.p, canon.len, &raw, &rawlen)) {
		snprintf(err, errlen,
			 "footprint: OpenSSL could not sign with the key");
		goto out;
	}
	for (i = 0; i < rawlen; i++) {
		fp_hex(h, raw + i, 1);
		fp_abuf_put(&hex, h, 2);
	}
	meta = fp_ad_obj();
	sigs = fp_ad_arr();
	sig = fp_ad_obj();
	if (hex.err || !meta || !sigs || !sig ||
	    fp_ad_cput(sig, "keyid", fp_ad_cstr(fp_attest_key_id(k))) ||
	    fp_ad_cput(sig, "sig", fp_ad_str(hex.p, hex.len)))
		goto nomem;
	if (fp_ad_push(sigs, sig)) {
		sig = NULL;
		goto nomem;
	}
	sig = NULL;
	if (fp_ad_cput(meta, "signatures", sigs)) {
		sigs = NULL;
		goto nomem;
	}
	sigs = NULL;
	if (fp_ad_cput(meta, "signed", signed_)) {
		signed_ = NULL;
		goto nomem;
	}
	signed_ = NULL;
	/* as Metablock.dump writes it: indent 1, keys sorted */
	fp_ad_json(meta, b, 1);
	fp_abuf_put(b, "\n", 1);
	if (b->err)
		goto nomem;
	ret = 0;
	goto out;
nomem:
	snprintf(err, errlen, "footprint: out of memory");
out:
	fp_ad_free(signed_);
	fp_ad_free(meta);
	fp_ad_free(sigs);
	fp_ad_free(sig);
	fp_abuf_free(&canon);
	fp_abuf_free(&hex);
	free(raw);
	return ret;
}

char *fp_attest_default_name(const struct fp_attest_opts *o,
			     const struct fp_attest_key *k)
{
	char *s;

	/* link.py's FILENAME_FORMAT, "{step_name}.{keyid:.8}.link" */
	if (asprintf(&s, "%s.%.8s.%s", o->name, fp_attest_key_id(k),
		     o->format == FP_ATTEST_LINK ? "link" : "intoto.jsonl") < 0)
		return NULL;
	return s;
}

int fp_attest_make(const char *receipt, size_t len,
		   const struct fp_attest_key *k,
		   const struct fp_attest_opts *o, char **doc, size_t *doclen,
		   char *err, size_t errlen)
{
	struct fp_attest_facts f;
	struct fp_abuf b = { 0 };
	int rc;

	*doc = NULL;
	*doclen = 0;
	rc = fp_attest_facts_read(&f, receipt, len, o, err, errlen);
	if (!rc && o->only_ok && !f.ok) {
		snprintf(
			err, errlen,
			"footprint: the run's verdict failed; nothing is attested (--attest-only-ok)");
		rc = FP_EXIT_VERDICT;
	}
	if (!rc &&
	    (o->format == FP_ATTEST_LINK ?
		     fp_attest_link(&f, k, o->name, &b, err, errlen) :
		     fp_attest_statement(&f, k, o->name, &b, err, errlen)))
		rc = FP_EXIT_NOTRACE;
	fp_attest_facts_free(&f);
	if (rc) {
		fp_abuf_free(&b);
		return rc;
	}
	*doc = b.p;
	*doclen = b.len;
	return 0;
}
