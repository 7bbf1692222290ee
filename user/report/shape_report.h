/* SPDX-License-Identifier: GPL-2.0 */
/* A shape diff as JSON (docs/shape.schema.json) and as seed 002's table. */
#ifndef FP_SHAPE_REPORT_H
#define FP_SHAPE_REPORT_H

#include <stdio.h>

#include "json.h"
#include "shape_diff.h"

/* the diff's object as the value of the key j is at */
void fp_shape_diff_json_value(struct json_out *j, const struct fp_shape_diff *d,
			      const struct fp_shape_policy *pol);
/* the same as a document, one line */
void fp_shape_diff_json(FILE *f, const struct fp_shape_diff *d,
			const struct fp_shape_policy *pol);
/* changed field, likely meaning, required action; then each delta */
void fp_shape_diff_summary(FILE *f, const struct fp_shape_diff *d,
			   const struct fp_shape_policy *pol);

#endif
