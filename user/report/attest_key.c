// SPDX-License-Identifier: GPL-2.0
/*
 * The keys in-toto-keygen writes, read and used as in-toto reads and uses
 * them (securesystemslib 0.26: keys.py, rsa_keys.py, ed25519_keys.py), so
 * that a link footprint signs verifies against a layout in-toto made.
 */
#include <errno.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <stdlib.h>
#include <string.h>

#include "attest.h"
#include "attest_doc.h"
#include "json.h"
#include "jsonin.h"
#include "sha256.h"

enum key_kind { KEY_RSA, KEY_ED25519 };

struct fp_attest_key {
	enum key_kind kind;
	EVP_PKEY *pkey;
	char keyid[65];
};

/* below this an RSA key is refused: in-toto-keygen makes 3072 bits */
#define RSA_MIN_BITS 2048

const char *fp_attest_key_id(const struct fp_attest_key *k)
{
	return k->keyid;
}

const char *fp_attest_key_type(const struct fp_attest_key *k)
{
	return k->kind == KEY_RSA ? "rsa" : "ed25519";
}

void fp_attest_key_free(struct fp_attest_key *k)
{
	if (!k)
		return;
	EVP_PKEY_free(k->pkey);
	free(k);
}

int fp_attest_keyid_of(const char *keytype, const char *scheme, const char *pub,
		       char out[65])
{
	struct fp_ad *meta = fp_ad_obj(), *algs = fp_ad_arr(),
		     *keyval = fp_ad_obj();
	struct fp_abuf b = { 0 };
	struct fp_sha256 h;
	unsigned char d[FP_SHA256_LEN];
	int ret = -ENOMEM;

	if (!meta || !algs || !keyval) {
		fp_ad_free(algs);
		fp_ad_free(keyval);
		goto out;
	}
	/* format_keyval_to_metadata(private=False) */
	if (fp_ad_push(algs, fp_ad_cstr("sha256")) ||
	    fp_ad_push(algs, fp_ad_cstr("sha512")) ||
	    fp_ad_cput(keyval, "public", fp_ad_cstr(pub))) {
		fp_ad_free(algs);
		fp_ad_free(keyval);
		goto out;
	}
	if (fp_ad_cput(meta, "keytype", fp_ad_cstr(keytype)) ||
	    fp_ad_cput(meta, "scheme", fp_ad_cstr(scheme)) ||
	    fp_ad_cput(meta, "keyid_hash_algorithms", algs) ||
	    fp_ad_cput(meta, "keyval", keyval))
		goto out;
	fp_ad_canonical(meta, &b);
	if (b.err)
		goto out;
	fp_sha256_init(&h);
	fp_sha256_update(&h, b.p, b.len);
	fp_sha256_final(&h, d);
	fp_hex(out, d, sizeof(d));
	ret = 0;
out:
	fp_ad_free(meta);
	fp_abuf_free(&b);
	return ret;
}

/* never asked: an encrypted key is refused with a line of its own */
static int no_password(char *buf, int size, int rwflag, void *u)
{
	return 0;
}

/* the public PEM as extract_pem() leaves it: header to footer, no more */
static int rsa_public_pem(EVP_PKEY *pkey, char out[65])
{
	BIO *mem = BIO_new(BIO_s_mem());
	char *data, *pem = NULL;
	long n;
	int ret = -1;

	if (!mem || !PEM_write_bio_PUBKEY(mem, pkey))
		goto out;
	n = BIO_get_mem_data(mem, &data);
	while (n > 0 && (data[n - 1] == '\n' || data[n - 1] == '\r' ||
			 data[n - 1] == ' '))
		n--;
	pem = n > 0 ? strndup(data, n) : NULL;
	if (pem && !strncmp(pem, "-----BEGIN PUBLIC KEY-----", 26))
		ret = fp_attest_keyid_of("rsa", "rsassa-pss-sha256", pem, out);
out:
	free(pem);
	BIO_free(mem);
	return ret;
}

static int parse_pem(const char *buf, size_t len, struct fp_attest_key *k,
		     char *err, size_t errlen)
{
	BIO *mem = BIO_new_mem_buf(buf, (int)len);

	if (strstr(buf, "ENCRYPTED")) {
		snprintf(
			err, errlen,
			"footprint: the key is encrypted (in-toto-keygen -p); footprint does not ask for passwords: give it a key made without -p");
		BIO_free(mem);
		return -1;
	}
	if (strstr(buf, "-----BEGIN PUBLIC KEY-----") &&
	    !strstr(buf, "PRIVATE KEY-----")) {
		snprintf(
			err, errlen,
			"footprint: that is a public key (NAME.pub); give the private key file in-toto-keygen wrote beside it (NAME)");
		BIO_free(mem);
		return -1;
	}
	k->pkey = mem ? PEM_read_bio_PrivateKey(mem, NULL, no_password, NULL) :
			NULL;
	BIO_free(mem);
	if (!k->pkey) {
		snprintf(
			err, errlen,
			"footprint: the key is not a PEM private key OpenSSL can read; give one in-toto-keygen wrote");
		return -1;
	}
	if (EVP_PKEY_get_base_id(k->pkey) != EVP_PKEY_RSA) {
		snprintf(
			err, errlen,
			"footprint: the PEM key is not an RSA key; in-toto's PEM keys are RSA (in-toto-keygen -t rsa), or use an ed25519 key");
		return -1;
	}
	if (EVP_PKEY_get_bits(k->pkey) < RSA_MIN_BITS) {
		snprintf(
			err, errlen,
			"footprint: the RSA key has %d bits, fewer than %d; make a new one (in-toto-keygen -b 3072)",
			EVP_PKEY_get_bits(k->pkey), RSA_MIN_BITS);
		return -1;
	}
	k->kind = KEY_RSA;
	if (rsa_public_pem(k->pkey, k->keyid)) {
		snprintf(err, errlen, "footprint: out of memory");
		return -1;
	}
	return 0;
}

static int unhex(const char *s, unsigned char *out, size_t n)
{
	size_t i;
	unsigned int v;

	if (!s || strlen(s) != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1 ||
		    !strchr("0123456789abcdefABCDEF", s[2 * i]) ||
		    !strchr("0123456789abcdefABCDEF", s[2 * i + 1]))
			return -1;
		out[i] = (unsigned char)v;
	}
	return 0;
}

/* the key the public half names: the one the private half makes */
static int ed25519_check(struct fp_attest_key *k, const unsigned char pub[32],
			 const char *pubhex, const char *keyid, char *err,
			 size_t errlen)
{
	unsigned char mine[32];
	size_t n = sizeof(mine);

	if (!EVP_PKEY_get_raw_public_key(k->pkey, mine, &n) || n != 32 ||
	    memcmp(mine, pub, 32)) {
		snprintf(
			err, errlen,
			"footprint: the ed25519 key's public half is not its private half's; give the file in-toto-keygen wrote");
		return -1;
	}
	if (fp_attest_keyid_of("ed25519", "ed25519", pubhex, k->keyid)) {
		snprintf(err, errlen, "footprint: out of memory");
		return -1;
	}
	if (keyid && strcmp(keyid, k->keyid)) {
		snprintf(
			err, errlen,
			"footprint: the key file says its keyid is %.16s..., but its key's is %.16s...; give the file in-toto-keygen wrote",
			keyid, k->keyid);
		return -1;
	}
	return 0;
}

static int parse_json_key(const char *buf, size_t len, struct fp_attest_key *k,
			  char *err, size_t errlen)
{
	struct fp_jv v;
	const struct fp_jv *kv;
	const char *type, *scheme, *pub, *priv;
	unsigned char seed[32], pubb[32];
	char jerr[128];
	int ret = -1;

	if (fp_json_parse(buf, len, &v, jerr, sizeof(jerr))) {
		snprintf(
			err, errlen,
			"footprint: the key is not valid JSON (%s); give a key file in-toto-keygen wrote",
			jerr);
		return -1;
	}
	type = fp_jv_str(&v, "keytype");
	scheme = fp_jv_str(&v, "scheme");
	kv = fp_jv_get(&v, "keyval");
	pub = fp_jv_str(kv, "public");
	priv = fp_jv_str(kv, "private");
	if (!type || strcmp(type, "ed25519")) {
		snprintf(
			err, errlen,
			"footprint: the key's type is %s; footprint signs with RSA (PEM) and ed25519 keys: make one with in-toto-keygen -t rsa or -t ed25519",
			type ? type : "missing");
		goto out;
	}
	if (!priv || !*priv) {
		snprintf(
			err, errlen,
			"footprint: that is a public key (NAME.pub); give the private key file in-toto-keygen wrote beside it (NAME)");
		goto out;
	}
	if (!scheme || strcmp(scheme, "ed25519") || unhex(pub, pubb, 32) ||
	    unhex(priv, seed, 32)) {
		snprintf(
			err, errlen,
			"footprint: the ed25519 key is malformed (scheme, or 64 hex digits per half); give the file in-toto-keygen wrote");
		goto out;
	}
	k->kind = KEY_ED25519;
	k->pkey = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed,
					       sizeof(seed));
	if (!k->pkey)
		snprintf(err, errlen,
			 "footprint: OpenSSL cannot make an ed25519 key of it");
	else
		ret = ed25519_check(k, pubb, pub, fp_jv_str(&v, "keyid"), err,
				    errlen);
out:
	OPENSSL_cleanse(seed, sizeof(seed));
	if (priv)
		OPENSSL_cleanse((char *)priv, strlen(priv));
	fp_jv_free(&v);
	return ret;
}

int fp_attest_key_parse(const char *in, size_t len, struct fp_attest_key **out,
			char *err, size_t errlen)
{
	struct fp_attest_key *k = calloc(1, sizeof(*k));
	/* NUL-terminated for the string calls, and wiped after */
	char *buf = malloc(len + 1);
	size_t i = 0;
	int ret;

	*out = NULL;
	if (!k || !buf) {
		snprintf(err, errlen, "footprint: out of memory");
		free(k);
		free(buf);
		return -1;
	}
	memcpy(buf, in, len);
	buf[len] = '\0';
	while (i < len && strchr(" \t\r\n", buf[i]))
		i++;
	if (memchr(buf, '\0', len)) {
		snprintf(
			err, errlen,
			"footprint: the key is not text; give a key file in-toto-keygen wrote");
		ret = -1;
	} else if (i < len && buf[i] == '{') {
		ret = parse_json_key(buf, len, k, err, errlen);
	} else if (strstr(buf, "-----BEGIN")) {
		ret = parse_pem(buf, len, k, err, errlen);
	} else if (strstr(buf, "@@@@")) {
		snprintf(
			err, errlen,
			"footprint: the key is encrypted (in-toto-keygen -p); footprint does not ask for passwords: give it a key made without -p");
		ret = -1;
	} else {
		snprintf(
			err, errlen,
			"footprint: the key is neither a PEM nor a JSON key; give a private key file in-toto-keygen wrote");
		ret = -1;
	}
	OPENSSL_cleanse(buf, len);
	free(buf);
	if (ret) {
		fp_attest_key_free(k);
		return ret;
	}
	*out = k;
	return 0;
}

int fp_attest_sign(const struct fp_attest_key *k, const void *data, size_t len,
		   unsigned char **sig, size_t *siglen)
{
	EVP_MD_CTX *mctx = EVP_MD_CTX_new();
	EVP_PKEY_CTX *pctx = NULL;
	int ok;

	*sig = NULL;
	if (!mctx)
		return -1;
	if (k->kind == KEY_RSA)
		/* rsa_keys.create_rsa_signature: PSS, MGF1 with SHA-256, a
		 * salt as long as the digest */
		ok = EVP_DigestSignInit(mctx, &pctx, EVP_sha256(), NULL,
					k->pkey) > 0 &&
		     EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) >
			     0 &&
		     EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, 32) > 0 &&
		     EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, EVP_sha256()) > 0;
	else
		ok = EVP_DigestSignInit(mctx, NULL, NULL, NULL, k->pkey) > 0;
	ok = ok && EVP_DigestSign(mctx, NULL, siglen, data, len) > 0 &&
	     (*sig = malloc(*siglen)) &&
	     EVP_DigestSign(mctx, *sig, siglen, data, len) > 0;
	EVP_MD_CTX_free(mctx);
	if (!ok) {
		free(*sig);
		*sig = NULL;
		return -1;
	}
	return 0;
}
