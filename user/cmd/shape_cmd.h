/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by footprint shape and shape diff. */
#ifndef FP_SHAPE_CMD_H
#define FP_SHAPE_CMD_H

#include <stdio.h>

int cmd_shape_diff(int argc, char **argv);
/* a new file made as the invoking user, or stdout for NULL or "-" */
FILE *fp_shape_output(const char *path, const char *what);
/* flush and close; 0 or FP_EXIT_USAGE after one line */
int fp_shape_close(FILE *f, const char *path, const char *what);
/* a shape policy's text, read as the invoking user and checked; 0 or
 * FP_EXIT_USAGE after one line */
int fp_shape_policy_text(const char *path, char **text);

#endif
