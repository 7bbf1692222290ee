// SPDX-License-Identifier: GPL-2.0
/*
 * An in-toto attestation Statement (v1) with a SLSA provenance (v1)
 * predicate, in a DSSE envelope signed with the link's key. The fields
 * footprint fills are in docs/attest.md; docs/attest.schema.json checks
 * them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest_int.h"

#define PAYLOAD_TYPE "application/vnd.in-toto+json"
#define DOCS "https://github.com/footprint/footprint/docs/attest.md"

static struct fp_ad *obj(int n, ...);

/* [{"name": ..., "digest": {"sha256": ...}}, ...]: ResourceDescriptors */
static struct fp_ad *descriptors(const struct fp_attest_arts *a)
{
	struct fp_ad *l = fp_ad_arr();
	size_t i;

	for (i = 0; l && i < a->n; i++) {
		if (fp_ad_push(l, obj(2, "name",
				      fp_ad_str(a->v[i].name, a->v[i].len),
				      "digest",
				      fp_attest_digest(a->v[i].sha256)))) {
			fp_ad_free(l);
			return NULL;
		}
	}
	return l;
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

/* one object of key/value pairs, every value taken; NULL if any failed */
static struct fp_ad *obj(int n, ...)
{
	struct fp_ad *o = fp_ad_obj(), *v;
	const char *key;
	va_list ap;
	int i, bad = !o;

	va_start(ap, n);
	for (i = 0; i < n; i++) {
		key = va_arg(ap, const char *);
		v = va_arg(ap, struct fp_ad *);
		if (bad)
			fp_ad_free(v);
		else if (!key)
			fp_ad_free(v); /* an optional field left out */
		else
			bad = fp_ad_cput(o, key, v) != 0;
	}
	va_end(ap);
	if (bad) {
		fp_ad_free(o);
		return NULL;
	}
	return o;
}

static struct fp_ad *opt_str(const char *s)
{
	return s ? fp_ad_cstr(s) : NULL;
}

static struct fp_ad *build_definition(const struct fp_attest_facts *f,
				      const char *name)
{
	return obj(
		4, "buildType", fp_ad_cstr(DOCS "#buildtype-run-v1"),
		"externalParameters",
		obj(2, "step", fp_ad_cstr(name), "command", strings(f->argv)),
		"internalParameters",
		obj(1, f->host ? "host" : NULL, opt_str(f->host)),
		"resolvedDependencies", descriptors(&f->materials));
}

static struct fp_ad *run_details(const struct fp_attest_facts *f)
{
	struct fp_ad *byproducts = fp_ad_arr();
	struct fp_ad *receipt =
		obj(4, "name", fp_ad_cstr("receipt.json"), "digest",
		    fp_attest_digest(f->receipt_sha256), "mediaType",
		    fp_ad_cstr("application/json"), "annotations",
		    fp_attest_outcome(f, false));

	if (!byproducts || fp_ad_push(byproducts, receipt)) {
		fp_ad_free(byproducts);
		return NULL;
	}
	return obj(
		3, "builder",
		obj(2, "id", fp_ad_cstr(DOCS "#builder"), "version",
		    obj(2, f->version ? "footprint" : NULL, opt_str(f->version),
			f->kernel ? "kernel" : NULL, opt_str(f->kernel))),
		"metadata",
		obj(2, f->started ? "startedOn" : NULL, opt_str(f->started),
		    f->ended ? "finishedOn" : NULL, opt_str(f->ended)),
		"byproducts", byproducts);
}

static struct fp_ad *statement(const struct fp_attest_facts *f,
			       const char *name)
{
	return obj(4, "_type", fp_ad_cstr("https://in-toto.io/Statement/v1"),
		   "subject", descriptors(&f->products), "predicateType",
		   fp_ad_cstr("https://slsa.dev/provenance/v1"), "predicate",
		   obj(2, "buildDefinition", build_definition(f, name),
		       "runDetails", run_details(f)));
}

/* DSSE's pre-authentication encoding of the payload: what is signed */
static void pae(struct fp_abuf *b, const char *type, const char *body,
		size_t len)
{
	char head[64];

	snprintf(head, sizeof(head), "DSSEv1 %zu ", strlen(type));
	fp_abuf_put(b, head, strlen(head));
	fp_abuf_put(b, type, strlen(type));
	snprintf(head, sizeof(head), " %zu ", len);
	fp_abuf_put(b, head, strlen(head));
	fp_abuf_put(b, body, len);
}

int fp_attest_statement(const struct fp_attest_facts *f,
			const struct fp_attest_key *k, const char *name,
			struct fp_abuf *b, char *err, size_t errlen)
{
	struct fp_ad *st = statement(f, name), *env = NULL;
	struct fp_abuf body = { 0 }, signed_ = { 0 }, p64 = { 0 }, s64 = { 0 };
	unsigned char *raw = NULL;
	size_t rawlen = 0;
	int ret = -1;

	if (!st)
		goto nomem;
	fp_ad_json(st, &body, -1);
	pae(&signed_, PAYLOAD_TYPE, body.p, body.len);
	if (body.err || signed_.err)
		goto nomem;
	if (fp_attest_sign(k, signed_.p, signed_.len, &raw, &rawlen)) {
		snprintf(err, errlen,
			 "footprint: OpenSSL could not sign with the key");
		goto out;
	}
	fp_abuf_base64(&p64, (const unsigned char *)body.p, body.len);
	fp_abuf_base64(&s64, raw, rawlen);
	if (p64.err || s64.err)
		goto nomem;
	env = fp_ad_arr();
	if (!env ||
	    fp_ad_push(env, obj(2, "keyid", fp_ad_cstr(fp_attest_key_id(k)),
				"sig", fp_ad_str(s64.p, s64.len))))
		goto nomem;
	env = obj(3, "payloadType", fp_ad_cstr(PAYLOAD_TYPE), "payload",
		  fp_ad_str(p64.p, p64.len), "signatures", env);
	if (!env)
		goto nomem;
	fp_ad_json(env, b, -1);
	fp_abuf_put(b, "\n", 1);
	if (b->err)
		goto nomem;
	ret = 0;
	goto out;
nomem:
	snprintf(err, errlen, "footprint: out of memory");
out:
	fp_ad_free(st);
	fp_ad_free(env);
	fp_abuf_free(&body);
	fp_abuf_free(&signed_);
	fp_abuf_free(&p64);
	fp_abuf_free(&s64);
	free(raw);
	return ret;
}
