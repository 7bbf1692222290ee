/* SPDX-License-Identifier: GPL-2.0 */
/* The tests of what an event carries through the log's codec. */
#ifndef FP_CODEC_FIXTURE_H
#define FP_CODEC_FIXTURE_H

#include <criterion/criterion.h>

#include "logcodec.h"

/* in, encoded and decoded into out: the record is read to its end */
static inline void roundtrip(const struct fp_event *in, struct fp_event *out)
{
	struct fp_enc e = { 0 };
	struct fp_dec d;
	uint64_t ts = 0;

	fp_enc_event(&e, in, &ts);
	cr_assert_eq(e.err, 0);
	d = (struct fp_dec){ .p = e.p, .len = e.len };
	ts = 0;
	cr_assert_eq(fp_dec_event(&d, out, &ts), 0);
	cr_assert_eq(d.pos, d.len, "the record was not read to its end");
	fp_enc_free(&e);
}

#endif
