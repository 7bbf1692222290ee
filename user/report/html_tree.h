/* SPDX-License-Identifier: GPL-2.0 */
/* The process table as a forest, by step lane (html_tree.c). */
#ifndef FP_HTML_TREE_H
#define FP_HTML_TREE_H

#include "html_int.h"

/* steps with a lane of their own; the others share "other" */
#define FP_HTML_LANES 256

struct fp_html_tree {
	size_t n;
	long *parent; /* the parent in the same lane, or -1: a root */
	size_t *first; /* children of i: kids[first[i] .. first[i + 1]) */
	size_t *kids;
	uint8_t *sub_sev; /* the worst finding of its subtree */
	uint32_t *sub_n; /* processes in its subtree, itself included */
	int64_t *lane; /* its step index, -1 for none */
	int64_t span_us; /* the timeline's length */
};

int fp_html_tree_build(struct fp_html_tree *t, const struct fp_html *h);
void fp_html_tree_free(struct fp_html_tree *t);

#endif
