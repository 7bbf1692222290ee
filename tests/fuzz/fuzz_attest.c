// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for attest's inputs, which are the user's files: a
 * receipt (what becomes a link and a statement) and, for an input that
 * starts with 'K', a key. Either is refused with one line starting
 * "footprint: ", or gives a document that parses as JSON. Build and run
 * it with scripts/fuzz.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attest.h"
#include "jsonin.h"

/* tests/data/attest/ed: a test key, never a real one */
static const char key_json[] =
	"{\"keytype\": \"ed25519\", \"scheme\": \"ed25519\", \"keyval\": "
	"{\"public\": "
	"\"5ebea571b7f364870604773b5868e4a05f465bfe079b61cf9233d4f5d4b4f517\", "
	"\"private\": "
	"\"06966cd4f0184cb5e8255d781d4caff0588c906bba64f09ac6b039a05f187971\"}}";

static struct fp_attest_key *key;

static void refused(const char *err)
{
	if (strncmp(err, "footprint: ", 11))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fp_attest_opts o = { .name = "build" };
	struct fp_attest_key *k = NULL;
	char err[1024] = "", jerr[128], *doc = NULL;
	size_t len = 0;
	struct fp_jv v;

	if (!key && fp_attest_key_parse(key_json, strlen(key_json), &key, err,
					sizeof(err)))
		abort();
	if (size && data[0] == 'K') {
		if (fp_attest_key_parse((const char *)data + 1, size - 1, &k,
					err, sizeof(err)))
			refused(err);
		else if (strlen(fp_attest_key_id(k)) != 64)
			abort();
		fp_attest_key_free(k);
		return 0;
	}
	o.format = size && (data[size - 1] & 1) ? FP_ATTEST_STATEMENT :
						  FP_ATTEST_LINK;
	o.only_ok = size && (data[size - 1] & 2);
	if (fp_attest_make((const char *)data, size, key, &o, &doc, &len, err,
			   sizeof(err))) {
		refused(err);
		return 0;
	}
	if (!doc || fp_json_parse(doc, len, &v, jerr, sizeof(jerr)))
		abort();
	fp_jv_free(&v);
	free(doc);
	return 0;
}
