/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attestations of a run (docs/attest.md): an in-toto link, the format
 * in-toto-run writes and in-toto-verify checks, or an in-toto Statement
 * with a SLSA provenance predicate in a DSSE envelope. Both are made from
 * a receipt's bytes (docs/receipt.schema.json), which carry what they
 * need: the files the run read before it changed them and their hashes
 * (materials), the files it added or changed (products), the command, the
 * verdict and where it ran; the whole before snapshot for --materials-all
 * comes from the run or its log. Signed with a key in a format
 * in-toto-keygen writes, through OpenSSL's libcrypto.
 */
#ifndef FP_ATTEST_H
#define FP_ATTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "snapshot_fs.h"

/* a key file is at most this large */
#define FP_ATTEST_KEY_MAX (64u << 10)
/* a receipt given to attest is at most this large */
#define FP_ATTEST_RECEIPT_MAX (1024u << 20)
/* and has at most this many JSON values (its tree is held in memory) */
#define FP_ATTEST_VALUES_MAX (1u << 24)

/* ---- keys (attest_key.c) ---- */

struct fp_attest_key;

/*
 * A private key as in-toto-keygen writes it: an RSA key in PEM (scheme
 * rsassa-pss-sha256) or an ed25519 key in securesystemslib's JSON. 0, or
 * -1 with one line in err saying what to do (an encrypted key, a public
 * key, another type).
 */
int fp_attest_key_parse(const char *buf, size_t len, struct fp_attest_key **out,
			char *err, size_t errlen);
void fp_attest_key_free(struct fp_attest_key *k);
/* as in-toto computes it: 64 hex digits */
const char *fp_attest_key_id(const struct fp_attest_key *k);
/* "rsa" or "ed25519" */
const char *fp_attest_key_type(const struct fp_attest_key *k);
/*
 * The keyid of a public key: the sha256 of the canonical JSON of
 * {keytype, scheme, keyid_hash_algorithms, keyval: {public}}, as
 * securesystemslib's _get_keyid. out holds 65 bytes. 0 or -ENOMEM.
 */
int fp_attest_keyid_of(const char *keytype, const char *scheme, const char *pub,
		       char out[65]);
/* Sign data (RSASSA-PSS with SHA-256 and a 32-byte salt, or ed25519):
 * 0 with *sig malloc'd, or -1. */
int fp_attest_sign(const struct fp_attest_key *k, const void *data, size_t len,
		   unsigned char **sig, size_t *siglen);

/* ---- documents (attest_link.c, attest_stmt.c) ---- */

enum fp_attest_format { FP_ATTEST_LINK, FP_ATTEST_STATEMENT };

struct fp_attest_opts {
	const char *name; /* the step's name in the layout */
	enum fp_attest_format format;
	bool only_ok; /* refuse a run whose verdict failed */
	bool materials_all; /* the whole before snapshot */
	/* the run's before snapshot, when there is one (run, log): for
	 * materials_all; NULL for a receipt alone */
	const struct fp_fs_snapshot *before;
};

/* "link" or "statement" into *f; -1 for anything else */
int fp_attest_format_parse(const char *s, enum fp_attest_format *f);
/* the file name in-toto looks for: "NAME.<first 8 of the keyid>.link",
 * or ".intoto.jsonl" for a statement; malloc'd, NULL on no memory */
char *fp_attest_default_name(const struct fp_attest_opts *o,
			     const struct fp_attest_key *k);
/* is name usable as a step name (and in a file name)? */
bool fp_attest_name_ok(const char *name);

/*
 * Make the attestation of the receipt in receipt[0..len): *doc (malloc'd)
 * holds *doclen bytes, the file to write. Returns 0; 1 (FP_EXIT_VERDICT) when the run cannot be attested as
 * asked: its verdict failed and only_ok is set, or an artifact cannot be
 * stated (not hashed, not UTF-8, reads past the bound); 2 when the
 * receipt is not one footprint wrote, or one too old to say what the run
 * read; 125 when memory runs out. err holds one line for every code but 0.
 */
int fp_attest_make(const char *receipt, size_t len,
		   const struct fp_attest_key *k,
		   const struct fp_attest_opts *o, char **doc, size_t *doclen,
		   char *err, size_t errlen);

#endif
