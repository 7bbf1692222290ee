/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside attest: what a receipt says that an attestation states
 * (attest_facts.c), and the documents made of it (attest_link.c,
 * attest_stmt.c).
 */
#ifndef FP_ATTEST_INT_H
#define FP_ATTEST_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "attest.h"
#include "attest_doc.h"
#include "jsonin.h"

/* a file and its sha256, named relative to the roots' directory */
struct fp_attest_art {
	const char *name;
	size_t len;
	char sha256[65];
};

struct fp_attest_arts {
	struct fp_attest_art *v;
	size_t n, cap;
};

struct fp_attest_facts {
	struct fp_jv receipt; /* every string below points into it */
	char receipt_sha256[65];
	const struct fp_jv *argv; /* an array of strings */
	bool ok, complete;
	bool have_rv;
	long long rv; /* return-value: the exit code, or -signal */
	const struct fp_jv *reasons; /* an array of strings */
	/* the receipt's provenance: the footprint that made the run, where,
	 * when (RFC 3339); NULL when it does not say */
	const char *version, *host, *kernel, *started, *ended;
	struct fp_attest_arts materials, products; /* sorted by name */
	bool materials_all;
	/* materials_all: the names made from the before snapshot */
	char **owned;
	size_t nowned;
};

/*
 * What the receipt says, checked: an exit code as fp_attest_make
 * returns, with one line in err unless 0.
 */
int fp_attest_facts_read(struct fp_attest_facts *f, const char *receipt,
			 size_t len, const struct fp_attest_opts *o, char *err,
			 size_t errlen);
void fp_attest_facts_free(struct fp_attest_facts *f);

/* The in-toto link of f, signed, into b. 0, or -1 with err filled. */
int fp_attest_link(const struct fp_attest_facts *f,
		   const struct fp_attest_key *k, const char *name,
		   struct fp_abuf *b, char *err, size_t errlen);
/* The Statement of f in a DSSE envelope, one line, into b. */
int fp_attest_statement(const struct fp_attest_facts *f,
			const struct fp_attest_key *k, const char *name,
			struct fp_abuf *b, char *err, size_t errlen);
/* exit code, verdict, its reasons, completeness, which materials and
 * (with_sha) the receipt's hash: the link's byproducts, and the
 * annotations of the statement's receipt */
struct fp_ad *fp_attest_outcome(const struct fp_attest_facts *f, bool with_sha);
/* {"sha256": hex} */
struct fp_ad *fp_attest_digest(const char *sha256);

#endif
