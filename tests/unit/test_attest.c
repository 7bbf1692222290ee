// SPDX-License-Identifier: GPL-2.0
/*
 * Attestations: securesystemslib's canonical JSON, in-toto's keyids and
 * signatures (known values computed by in-toto 1.3.1 / securesystemslib
 * 0.26 from the keys in tests/data/attest), which reads of a run are its
 * materials, and the link made of a receipt.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest.h"
#include "attest_doc.h"
#include "cli.h"
#include "jsonin.h"
#include "judge.h"
#include "receipt.h"
#include "reads_fixture.h"
#include "reconcile.h"
#include "sensitive.h"
#include "unit_util.h"

/* ---- canonical JSON ---- */

/* securesystemslib.formats.encode_canonical of
 * {"b":1,"a":"x\"y\\z\né","c":[True,False,None,-5,0],"é":{},"":[],
 *  "Z":{"k":"\t"}} */
static const char canon_want[] =
	"{\"\":[],\"Z\":{\"k\":\"\t\"},\"a\":\"x\\\"y\\\\z\n\xc3\xa9\","
	"\"b\":1,\"c\":[true,false,null,-5,0],\"\xc3\xa9\":{}}";

static struct fp_ad *canon_example(void)
{
	struct fp_ad *o = fp_ad_obj(), *c = fp_ad_arr(), *z = fp_ad_obj();

	cr_assert(o && c && z);
	cr_assert_eq(fp_ad_cput(o, "b", fp_ad_int(1)), 0);
	cr_assert_eq(fp_ad_cput(o, "a", fp_ad_cstr("x\"y\\z\n\xc3\xa9")), 0);
	cr_assert_eq(fp_ad_push(c, fp_ad_bool(true)), 0);
	cr_assert_eq(fp_ad_push(c, fp_ad_bool(false)), 0);
	cr_assert_eq(fp_ad_push(c, fp_ad_null()), 0);
	cr_assert_eq(fp_ad_push(c, fp_ad_int(-5)), 0);
	cr_assert_eq(fp_ad_push(c, fp_ad_int(0)), 0);
	cr_assert_eq(fp_ad_cput(o, "c", c), 0);
	cr_assert_eq(fp_ad_cput(o, "\xc3\xa9", fp_ad_obj()), 0);
	cr_assert_eq(fp_ad_cput(o, "", fp_ad_arr()), 0);
	cr_assert_eq(fp_ad_cput(z, "k", fp_ad_cstr("\t")), 0);
	cr_assert_eq(fp_ad_cput(o, "Z", z), 0);
	return o;
}

Test(attest_canon, as_securesystemslib_encodes)
{
	struct fp_ad *o = canon_example();
	struct fp_abuf b = { 0 };

	fp_ad_canonical(o, &b);
	cr_assert_not(b.err);
	cr_assert_eq(b.len, strlen(canon_want), "%s", b.p);
	cr_assert(!memcmp(b.p, canon_want, b.len), "%s", b.p);
	fp_abuf_free(&b);
	fp_ad_free(o);
}

/* the file's JSON reads back to the same strings: what in-toto signs
 * again is what was signed */
Test(attest_canon, json_reads_back_to_the_same_values)
{
	struct fp_ad *o = canon_example();
	struct fp_abuf b = { 0 };
	struct fp_jv v;
	char err[128];

	fp_ad_json(o, &b, 1);
	cr_assert_not(b.err);
	cr_assert_null(memchr(b.p, '\t', b.len), "control bytes escaped");
	cr_assert_eq(fp_json_parse(b.p, b.len, &v, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_str_eq(fp_jv_str(&v, "a"), "x\"y\\z\n\xc3\xa9");
	cr_assert_str_eq(fp_jv_str(fp_jv_get(&v, "Z"), "k"), "\t");
	cr_assert_eq(fp_jv_get(&v, "c")->n, 5);
	/* sorted as canonical JSON sorts, so a reader sees the same order */
	cr_assert_str_eq(v.keys[0], "");
	cr_assert_str_eq(v.keys[1], "Z");
	fp_jv_free(&v);
	fp_abuf_free(&b);
	fp_ad_free(o);
}

Test(attest_canon, base64)
{
	struct fp_abuf b = { 0 };

	fp_abuf_base64(&b, (const unsigned char *)"DSSEv1", 6);
	fp_abuf_base64(&b, (const unsigned char *)"a", 1);
	fp_abuf_base64(&b, (const unsigned char *)"ab", 2);
	cr_assert_str_eq(b.p, "RFNTRXYxYQ==YWI=");
	fp_abuf_free(&b);
}

/* ---- keys ---- */

static struct fp_attest_key *load(const char *name, char *err, size_t errlen)
{
	struct fp_attest_key *k = NULL;
	size_t len;
	char *buf = slurp(data_path(name), &len);

	fp_attest_key_parse(buf, len, &k, err, errlen);
	free(buf);
	return k;
}

#define RSA_KEYID \
	"09e208f5fcd2a6baa9f03990d2bd04f28835edc067e246252e805aa0aa887d05"
#define ED_KEYID \
	"703094379499cca60bec6331033fb1aacff4e1baa5086eae196922eda5963430"

Test(attest_key, keyids_as_in_toto_computes_them)
{
	char err[300] = "";
	struct fp_attest_key *rsa = load("attest/rsa", err, sizeof(err));
	struct fp_attest_key *ed;

	cr_assert_not_null(rsa, "%s", err);
	cr_assert_str_eq(fp_attest_key_id(rsa), RSA_KEYID);
	cr_assert_str_eq(fp_attest_key_type(rsa), "rsa");
	ed = load("attest/ed", err, sizeof(err));
	cr_assert_not_null(ed, "%s", err);
	cr_assert_str_eq(fp_attest_key_id(ed), ED_KEYID);
	fp_attest_key_free(rsa);
	fp_attest_key_free(ed);
}

Test(attest_key, keyid_of_a_public_key_file)
{
	size_t len;
	char *pub = slurp(data_path("attest/rsa.pub"), &len), out[65];

	while (len && pub[len - 1] == '\n')
		pub[--len] = '\0';
	cr_assert_eq(fp_attest_keyid_of("rsa", "rsassa-pss-sha256", pub, out),
		     0);
	cr_assert_str_eq(out, RSA_KEYID);
	free(pub);
}

/* keys.create_signature(ed_key, b"footprint") */
Test(attest_key, ed25519_signature_as_securesystemslib_makes_it)
{
	static const char want[] =
		"b87c6f2f4dc28f766a25eb127e70ae114bd0648305d522f47e96db74e6a2ad33"
		"f3c79ad1728f8a0de8061837cfbf6c41132747244b2c947b608f266458c66d07";
	char err[300], hex[129];
	struct fp_attest_key *ed = load("attest/ed", err, sizeof(err));
	unsigned char *sig;
	size_t n, i;

	cr_assert_not_null(ed, "%s", err);
	cr_assert_eq(fp_attest_sign(ed, "footprint", 9, &sig, &n), 0);
	cr_assert_eq(n, 64);
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", sig[i]);
	cr_assert_str_eq(hex, want);
	free(sig);
	fp_attest_key_free(ed);
}

/* RSASSA-PSS, SHA-256, MGF1 SHA-256, a salt of exactly 32 bytes */
Test(attest_key, rsa_pss_verifies_with_a_32_byte_salt)
{
	char err[300];
	struct fp_attest_key *rsa = load("attest/rsa", err, sizeof(err));
	size_t len, n;
	char *pem = slurp(data_path("attest/rsa.pub"), &len);
	BIO *bio = BIO_new_mem_buf(pem, (int)len);
	EVP_PKEY *pub = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
	EVP_MD_CTX *m = EVP_MD_CTX_new();
	EVP_PKEY_CTX *p = NULL;
	unsigned char *sig;

	cr_assert(rsa && pub && m);
	cr_assert_eq(fp_attest_sign(rsa, "footprint", 9, &sig, &n), 0);
	cr_assert_eq(n, 256);
	cr_assert_eq(EVP_DigestVerifyInit(m, &p, EVP_sha256(), NULL, pub), 1);
	EVP_PKEY_CTX_set_rsa_padding(p, RSA_PKCS1_PSS_PADDING);
	EVP_PKEY_CTX_set_rsa_pss_saltlen(p, 32);
	EVP_PKEY_CTX_set_rsa_mgf1_md(p, EVP_sha256());
	cr_assert_eq(EVP_DigestVerify(m, sig, n,
				      (const unsigned char *)"footprint", 9),
		     1);
	EVP_MD_CTX_free(m);
	EVP_PKEY_free(pub);
	BIO_free(bio);
	free(sig);
	free(pem);
	fp_attest_key_free(rsa);
}

static void refused(const char *key, const char *why)
{
	struct fp_attest_key *k = NULL;
	char err[300] = "";

	cr_assert_neq(
		fp_attest_key_parse(key, strlen(key), &k, err, sizeof(err)), 0,
		"%s", key);
	cr_assert_null(k);
	cr_assert(strstr(err, why), "%s: %s", why, err);
	cr_assert(!strncmp(err, "footprint: ", 11), "%s", err);
}

Test(attest_key, what_is_not_a_private_key_says_so)
{
	size_t len;
	char *pub = slurp(data_path("attest/rsa.pub"), &len);
	char *edpub = slurp(data_path("attest/ed.pub"), &len);

	refused(pub, "public key");
	refused(edpub, "public key");
	refused("-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
		"DEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n",
		"encrypted");
	refused("0011@@@@100000@@@@aabb@@@@ccdd@@@@eeff", "encrypted");
	refused("{\"keytype\": \"ecdsa\", \"scheme\": \"ecdsa-sha2-nistp256\"}",
		"ed25519");
	refused("hello", "neither");
	free(pub);
	free(edpub);
}

Test(attest_key, a_keyid_that_is_not_the_keys_is_refused)
{
	size_t len;
	char *ed = slurp(data_path("attest/ed"), &len);
	char *at = strstr(ed, ED_KEYID);

	cr_assert_not_null(at);
	at[0] = at[0] == '0' ? '1' : '0';
	refused(ed, "keyid");
	free(ed);
}

/* ---- which reads are materials (reconcile) ---- */

static struct fp_reads_conf C = { roots, 1, NULL, 0, &P, false };
static struct fp_fentry ents[8];

static void teardown(void)
{
	size_t i;

	reads_fixture_free();
	for (i = 0; i < 8; i++)
		free(ents[i].path.data);
	memset(ents, 0, sizeof(ents));
}

TestSuite(attest_reads, .init = reads_fixture_setup, .fini = teardown,
	  .timeout = 10);

static void open_of(const char *path, uint64_t flags, bool created)
{
	struct fp_event ev =
		file_event_of(10, FP_SYS_OPENAT, path, NULL, flags, created, 3);

	feed(&ev);
}

static void rename_of(const char *from, const char *to)
{
	struct fp_event ev =
		file_event_of(10, FP_SYS_RENAME, from, to, 0, false, 0);

	feed(&ev);
}

/* the before snapshot: these regular files, sorted, each hashed */
static void before(const char *const *paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		ents[i] = (struct fp_fentry){ .type = 'f', .hashed = true };
		ents[i].path = bytes(paths[i], strlen(paths[i]));
		memset(ents[i].sha256, (int)(0x10 + i), 32);
	}
	B.e = A.e = ents;
	B.n = A.n = n;
}

static const struct fp_read_finding *read_at(const char *path)
{
	const struct fp_read_finding *x = find_read(&F, path, NULL);

	if (!x)
		cr_assert_fail("no read of %s", path);
	return x;
}

Test(attest_reads, a_file_the_run_made_and_read_is_no_material)
{
	static const char *const b[] = { "/r/a.c", "/r/kept.o", "/r/late",
					 "/r/old.o", "/r/renamed" };

	before(b, 5);
	fp_recon_set_reads(R, &C);
	open_of("/r/a.c", O_RDONLY, false); /* read as it was */
	open_of("/r/new.o", O_WRONLY | O_CREAT | O_TRUNC, true);
	open_of("/r/new.o", O_RDONLY, false); /* the linker reads it */
	open_of("/r/old.o", O_RDWR | O_CREAT | O_TRUNC, false);
	open_of("/r/old.o", O_RDONLY, false); /* rebuilt, then read */
	open_of("/r/late", O_RDONLY, false); /* read, then rewritten */
	open_of("/r/late", O_WRONLY | O_TRUNC, false);
	open_of("/r/kept.o", O_WRONLY | O_APPEND, false); /* not made anew */
	open_of("/r/kept.o", O_RDONLY, false);
	open_of("/r/tmp", O_WRONLY | O_CREAT, true);
	rename_of("/r/tmp", "/r/renamed"); /* replaced */
	open_of("/r/renamed", O_RDONLY, false);
	judge();
	cr_assert(read_at("/r/a.c")->orig_read);
	cr_assert_not(read_at("/r/new.o")->orig_read);
	cr_assert_not(read_at("/r/old.o")->orig_read);
	cr_assert(read_at("/r/late")->orig_read);
	cr_assert(read_at("/r/kept.o")->orig_read);
	cr_assert_not(read_at("/r/renamed")->orig_read);
}

/* the receipt says it: before_sha256 for a material, null when the file
 * could not be hashed, absent otherwise */
Test(attest_reads, receipt_before_sha256)
{
	static const char *const b[] = { "/r/a.c", "/r/u.c" };
	struct fp_receipt_info ri = { 0 };
	struct fp_outcome o = { .complete = true };
	char *argv[] = { "cc", NULL }, *buf = NULL, err[128];
	const struct fp_jv *reads;
	struct fp_jv v;
	size_t len = 0, i;
	FILE *mem = open_memstream(&buf, &len);
	bool seen[3] = { false };

	before(b, 2);
	ents[1].hashed = false; /* unreadable before */
	fp_recon_set_reads(R, &C);
	open_of("/r/a.c", O_RDONLY, false);
	open_of("/r/u.c", O_RDONLY, false);
	open_of("/r/n.o", O_RDWR | O_CREAT, true);
	judge();
	ri.argv = argv;
	ri.outcome = &o;
	ri.roots = roots;
	ri.nroots = 1;
	ri.version = "0.1.0";
	ri.host = "h";
	ri.kernel = "6.1";
	fp_receipt_write(mem, &ri, &F, &V);
	fclose(mem);
	cr_assert_eq(fp_json_parse(buf, len, &v, err, sizeof(err)), 0, "%s",
		     err);
	reads = fp_jv_get(fp_jv_get(&v, "files"), "read");
	cr_assert_not_null(reads);
	for (i = 0; i < reads->n; i++) {
		const struct fp_jv *x = &reads->items[i];
		const char *p = fp_jv_str(x, "path");
		const struct fp_jv *h = fp_jv_get(x, "before_sha256");

		if (!strcmp(p, "/r/a.c")) {
			cr_assert_str_eq(
				h->s,
				"1010101010101010101010101010101010101010101010101010101010101010");
			seen[0] = true;
		} else if (!strcmp(p, "/r/u.c")) {
			cr_assert_eq(h->type, FP_JV_NULL);
			seen[1] = true;
		} else if (!strcmp(p, "/r/n.o")) {
			cr_assert_null(h);
			seen[2] = true;
		}
	}
	cr_assert(seen[0] && seen[1] && seen[2]);
	cr_assert_eq(fp_jv_bool(fp_jv_get(&v, "files"), "read_before_sha256"),
		     1);
	cr_assert_str_eq(fp_jv_str(fp_jv_get(&v, "provenance"), "kernel"),
			 "6.1");
	fp_jv_free(&v);
	free(buf);
}

/* ---- the link made of a receipt ---- */

#define H1 "1111111111111111111111111111111111111111111111111111111111111111"
#define H2 "2222222222222222222222222222222222222222222222222222222222222222"
#define H3 "3333333333333333333333333333333333333333333333333333333333333333"

/* a receipt of roots ROOTS with read items READS, added ADDED; current:
 * as this footprint writes it, else as one before attest did (no
 * read_before_sha256, no provenance) */
static char *receipt(const char *roots_json, const char *reads,
		     const char *added, bool ok, bool current)
{
	char *r;

	cr_assert(
		asprintf(
			&r,
			"{\"ok\":%s,\"reasons\":[%s],"
			"\"command\":{\"argv\":[\"make\",\"-j2\"],\"exit_code\":0,"
			"\"signal\":null,\"timed_out\":false,\"interrupted\":false,"
			"\"duration_ms\":1},"
			"\"trace\":{\"events\":1,\"lost\":0,\"complete\":true},"
			"\"roots\":%s%s,"
			"\"files\":{\"added\":[%s],\"removed\":[],\"changed\":["
			"{\"path\":\"/r/lib.a\",\"after\":{\"type\":\"f\",\"sha256\":\"" H3
			"\"}}],\"read\":[%s],\"read_omitted\":0%s},"
			"\"processes\":{},\"network\":{},\"expected\":[],"
			"\"suggestions\":[],\"suggestion_counts\":[]}\n",
			ok ? "true" : "false",
			ok ? "" : "\"files.added: /r/x\"", roots_json,
			current ?
				",\"provenance\":{\"footprint\":\"0.1.0\","
				"\"host\":\"ci\",\"kernel\":\"6.1.0\","
				"\"user\":\"u\",\"uid\":1000,\"started\":"
				"\"2026-12-02T09:04:05.123Z\",\"ended\":null}" :
				"",
			added, reads,
			current ? ",\"read_before_sha256\":true" : "") > 0);
	return r;
}

static const char READS[] =
	"{\"path\":\"/r/src/a.c\",\"before_sha256\":\"" H1 "\"},"
	"{\"path\":\"/r/out.o\"},"
	"{\"path\":\"/etc/hosts\"}";
static const char ADDED[] =
	"{\"path\":\"/r/out.o\",\"after\":{\"type\":\"f\",\"sha256\":\"" H2
	"\"}},"
	"{\"path\":\"/r/link\",\"after\":{\"type\":\"l\",\"target\":\"out.o\"}},"
	"{\"path\":\"/r/dir\",\"after\":{\"type\":\"d\"}}";

static int make(const char *r, struct fp_attest_opts *o, struct fp_jv *out,
		char *err, size_t errlen)
{
	char errj[128], *doc;
	size_t len;
	struct fp_attest_key *k = load("attest/ed", err, errlen);
	int rc;

	cr_assert_not_null(k, "%s", err);
	rc = fp_attest_make(r, strlen(r), k, o, &doc, &len, err, errlen);
	fp_attest_key_free(k);
	if (rc)
		return rc;
	cr_assert_eq(fp_json_parse(doc, len, out, errj, sizeof(errj)), 0, "%s",
		     errj);
	free(doc);
	return 0;
}

Test(attest_link, materials_products_and_the_rest)
{
	struct fp_attest_opts o = { .name = "build" };
	char *r = receipt("[\"/r\"]", READS, ADDED, false, true), err[300];
	const struct fp_jv *s, *m, *p, *by;
	struct fp_jv v;

	cr_assert_eq(make(r, &o, &v, err, sizeof(err)), 0, "%s", err);
	s = fp_jv_get(&v, "signed");
	cr_assert_str_eq(fp_jv_str(s, "_type"), "link");
	cr_assert_str_eq(fp_jv_str(s, "name"), "build");
	cr_assert_eq(s->n, 7, "exactly Link's fields");
	m = fp_jv_get(s, "materials");
	cr_assert_eq(m->n, 1, "a file the run made is no material");
	cr_assert_str_eq(fp_jv_str(fp_jv_get(m, "src/a.c"), "sha256"), H1);
	p = fp_jv_get(s, "products");
	cr_assert_eq(p->n, 2, "regular files only");
	cr_assert_str_eq(fp_jv_str(fp_jv_get(p, "out.o"), "sha256"), H2);
	cr_assert_str_eq(fp_jv_str(fp_jv_get(p, "lib.a"), "sha256"), H3);
	cr_assert_eq(fp_jv_get(fp_jv_get(p, "out.o"), "sha256") != NULL, 1);
	cr_assert_eq(fp_jv_get(fp_jv_get(p, "out.o"), "sha256")->len, 64);
	cr_assert_eq(fp_jv_get(p, "out.o")->n, 1, "sha256 only");
	cr_assert_str_eq(fp_jv_get(s, "command")->items[1].s, "-j2");
	by = fp_jv_get(s, "byproducts");
	cr_assert_eq(fp_jv_int(by, "return-value", -1), 0);
	cr_assert_str_eq(fp_jv_str(by, "verdict"), "failed");
	cr_assert_str_eq(fp_jv_get(by, "reasons")->items[0].s,
			 "files.added: /r/x");
	cr_assert_eq(strlen(fp_jv_str(by, "receipt-sha256")), 64);
	cr_assert_str_eq(fp_jv_str(fp_jv_get(s, "environment"), "kernel"),
			 "6.1.0");
	cr_assert_str_eq(
		fp_jv_str(&fp_jv_get(&v, "signatures")->items[0], "keyid"),
		ED_KEYID);
	fp_jv_free(&v);
	free(r);
}

Test(attest_link, several_roots_are_named_from_their_common_directory)
{
	struct fp_attest_opts o = { .name = "build" };
	char *r = receipt("[\"/w/app\",\"/w/lib\"]",
			  "{\"path\":\"/w/lib/x.h\",\"before_sha256\":\"" H1
			  "\"}",
			  "", true, true),
	     err[300];
	struct fp_jv v;

	/* lib.a is under neither root's directory's... it is /r/lib.a */
	cr_assert_eq(make(r, &o, &v, err, sizeof(err)), 0, "%s", err);
	cr_assert_not_null(fp_jv_get(
		fp_jv_get(fp_jv_get(&v, "signed"), "materials"), "lib/x.h"));
	fp_jv_free(&v);
	free(r);
}

static void refuses(const char *r, struct fp_attest_opts *o, int code,
		    const char *why)
{
	char err[300] = "";
	struct fp_jv v;

	cr_assert_eq(make(r, o, &v, err, sizeof(err)), code, "%s", err);
	cr_assert(strstr(err, why), "%s: %s", why, err);
	cr_assert(!strncmp(err, "footprint: ", 11), "%s", err);
}

Test(attest_link, refusals)
{
	struct fp_attest_opts o = { .name = "build" };
	char *r;

	r = receipt("[\"/r\"]", READS, ADDED, false, true);
	o.only_ok = true;
	refuses(r, &o, FP_EXIT_VERDICT, "verdict failed");
	o.only_ok = false;
	o.materials_all = true;
	refuses(r, &o, FP_EXIT_USAGE, "log");
	o.materials_all = false;
	free(r);
	/* a receipt of a footprint before attest cannot say what was read */
	r = receipt("[\"/r\"]", READS, ADDED, true, false);
	refuses(r, &o, FP_EXIT_USAGE, "older");
	free(r);
	r = receipt("[\"/r\"]", "{\"path\":\"/r/u.c\",\"before_sha256\":null}",
		    "", true, true);
	refuses(r, &o, FP_EXIT_VERDICT, "could not be hashed");
	free(r);
	r = receipt("[\"/r\"]", "",
		    "{\"path\":\"/r/big\",\"after\":{\"type\":\"f\"}}", true,
		    true);
	refuses(r, &o, FP_EXIT_VERDICT, "could not be hashed");
	free(r);
	r = receipt("[\"/r\"]", "",
		    "{\"path\":\"/r/\\ufffd\",\"path_b64\":\"L3IvgA==\","
		    "\"after\":{\"type\":\"f\",\"sha256\":\"" H1 "\"}}",
		    true, true);
	refuses(r, &o, FP_EXIT_VERDICT, "UTF-8");
	free(r);
	refuses("{\"ok\":true}", &o, FP_EXIT_USAGE, "not a receipt");
	refuses("not json", &o, FP_EXIT_USAGE, "not valid JSON");
}

Test(attest_link, reads_past_the_bound_are_refused)
{
	struct fp_attest_opts o = { .name = "build" };
	char *r = receipt("[\"/r\"]", READS, ADDED, true, true), *at;

	at = strstr(r, "\"read_omitted\":0");
	cr_assert_not_null(at);
	at[15] = '7';
	refuses(r, &o, FP_EXIT_VERDICT, "materials-all");
	free(r);
}

Test(attest_link, materials_all_is_the_before_snapshot)
{
	static const char *const b[] = { "/r/a", "/r/z/b" };
	struct fp_attest_opts o = { .name = "build", .materials_all = true };
	char *r = receipt("[\"/r\"]", READS, ADDED, true, true), err[300];
	const struct fp_jv *m;
	struct fp_jv v;

	before(b, 2);
	o.before = &B;
	cr_assert_eq(make(r, &o, &v, err, sizeof(err)), 0, "%s", err);
	m = fp_jv_get(fp_jv_get(&v, "signed"), "materials");
	cr_assert_eq(m->n, 2);
	cr_assert_not_null(fp_jv_get(m, "z/b"));
	cr_assert_null(fp_jv_get(m, "src/a.c"), "not the reads");
	cr_assert_str_eq(
		fp_jv_str(fp_jv_get(fp_jv_get(&v, "signed"), "byproducts"),
			  "materials"),
		"before-snapshot");
	fp_jv_free(&v);
	free(r);
	ents[1].unstable = true;
	r = receipt("[\"/r\"]", READS, ADDED, true, true);
	refuses(r, &o, FP_EXIT_VERDICT, "could not be hashed");
	free(r);
}

Test(attest_link, statement_in_a_dsse_envelope)
{
	struct fp_attest_opts o = { .name = "build",
				    .format = FP_ATTEST_STATEMENT };
	char *r = receipt("[\"/r\"]", READS, ADDED, true, true), err[300];
	const struct fp_jv *sigs;
	struct fp_jv v;

	cr_assert_eq(make(r, &o, &v, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(fp_jv_str(&v, "payloadType"),
			 "application/vnd.in-toto+json");
	sigs = fp_jv_get(&v, "signatures");
	cr_assert_eq(sigs->n, 1);
	cr_assert_str_eq(fp_jv_str(&sigs->items[0], "keyid"), ED_KEYID);
	/* 64 bytes of ed25519 in base64 */
	cr_assert_eq(strlen(fp_jv_str(&sigs->items[0], "sig")), 88);
	fp_jv_free(&v);
	free(r);
}

Test(attest_link, default_names_and_step_names)
{
	char err[300];
	struct fp_attest_key *k = load("attest/rsa", err, sizeof(err));
	struct fp_attest_opts o = { .name = "build" };
	char *n;

	n = fp_attest_default_name(&o, k);
	cr_assert_str_eq(n, "build.09e208f5.link");
	free(n);
	o.format = FP_ATTEST_STATEMENT;
	n = fp_attest_default_name(&o, k);
	cr_assert_str_eq(n, "build.09e208f5.intoto.jsonl");
	free(n);
	cr_assert(fp_attest_name_ok("build-1.x"));
	cr_assert_not(fp_attest_name_ok("a/b"));
	cr_assert_not(fp_attest_name_ok(".hidden"));
	cr_assert_not(fp_attest_name_ok(""));
	cr_assert_not(fp_attest_name_ok("bad\xff"));
	fp_attest_key_free(k);
}
