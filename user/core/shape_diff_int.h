/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the files of the shape diff; not for its callers. */
#ifndef FP_SHAPE_DIFF_INT_H
#define FP_SHAPE_DIFF_INT_H

#include "shape_diff.h"

/* record one delta and the first rule that allows it; -1: out of memory */
int fp_shape_drift(struct fp_shape_diff *d, const struct fp_shape_policy *pol,
		   enum fp_shape_field f, const char *change,
		   const char *subject, const char *before, const char *after);
/* the process marked "main", or NULL */
const struct fp_jv *fp_shape_main_proc(const struct fp_jv *shape);
int fp_shape_diff_mounts(struct fp_shape_diff *d,
			 const struct fp_shape_policy *pol,
			 const struct fp_jv *pb, const struct fp_jv *pa);
int fp_shape_diff_scalars(struct fp_shape_diff *d,
			  const struct fp_shape_policy *pol,
			  const struct fp_jv *pb, const struct fp_jv *pa);
int fp_shape_diff_unit(struct fp_shape_diff *d,
		       const struct fp_shape_policy *pol,
		       const struct fp_jv *sb, const struct fp_jv *sa);

#endif
