/* SPDX-License-Identifier: GPL-2.0 */
/* A shape as JSON (docs/shape.schema.json), one line. */
#ifndef FP_SHAPE_JSON_H
#define FP_SHAPE_JSON_H

#include <stdio.h>

#include "shape.h"

void fp_shape_json(FILE *f, const struct fp_shape *s);

#endif
