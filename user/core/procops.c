// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "procops.h"

const char *const fp_procop_list_names[FP_PO_NKINDS] = {
	[FP_PO_MOUNT] = "mounts",
	[FP_PO_NAMESPACE] = "namespaces",
	[FP_PO_FILELESS] = "fileless_exec",
	[FP_PO_SETID] = "setuid",
};

#define FP_SETID_BITS 06000

static bool same_bytes(const struct fp_bytes *a, const struct fp_bytes *b)
{
	return a->len == b->len &&
	       (!a->len || !memcmp(a->data, b->data, a->len));
}

int fp_procop_note(struct fp_vec *lists, uint64_t *omitted,
		   const struct fp_procop_finding *x)
{
	struct fp_vec *v = &lists[x->kind];
	struct fp_procop_finding *y = fp_vec_arr(v, struct fp_procop_finding);
	size_t i;

	for (i = 0; i < v->n; i++) {
		if (y[i].sys != x->sys || y[i].pid != x->pid ||
		    y[i].flags != x->flags || y[i].mode != x->mode ||
		    !same_bytes(&y[i].path, &x->path) ||
		    !same_bytes(&y[i].source, &x->source))
			continue;
		y[i].count++;
		if (!x->err)
			y[i].err = 0;
		return 0;
	}
	if (v->n >= FP_PROCOPS_MAX) {
		omitted[x->kind]++;
		return 0;
	}
	y = fp_vec_push(v, sizeof(*y));
	if (!y)
		return -ENOMEM;
	*y = *x;
	y->count = 1;
	y->path.data = NULL;
	y->source.data = NULL;
	if (fp_bytes_dup(&y->path, x->path.data ?: "", x->path.len) ||
	    fp_bytes_dup(&y->source, x->source.data ?: "", x->source.len))
		return -ENOMEM;
	return 1;
}

int fp_procop_event_kind(const struct fp_event *ev)
{
	if (ev->type != FP_EV_PROCOP)
		return -1;
	return fp_sys_mountlike(ev->procop.sys) ? FP_PO_MOUNT : FP_PO_NAMESPACE;
}

/*
 * A successful chmod that sets 04000 or 02000, or an open, mknod or
 * creat that created a file with them. mkdir is not: a set-group-ID
 * directory only passes its group on.
 */
uint32_t fp_procop_setid_mode(const struct fp_event *ev)
{
	uint32_t mode = ev->file.mode & 07777;

	if (ev->type != FP_EV_FILE || ev->file.ret < 0 ||
	    !(mode & FP_SETID_BITS))
		return 0;
	switch (fp_file_op(ev)) {
	case FP_FOP_CHMOD:
	case FP_FOP_MKNOD:
		return mode;
	case FP_FOP_OPEN:
		return ev->file.created && (ev->file.flags & O_CREAT) ? mode :
									0;
	default:
		return 0;
	}
}

void fp_procops_free(struct fp_vec *lists)
{
	size_t k, i;

	for (k = 0; k < FP_PO_NKINDS; k++) {
		struct fp_procop_finding *y =
			fp_vec_arr(&lists[k], struct fp_procop_finding);

		for (i = 0; i < lists[k].n; i++) {
			free(y[i].path.data);
			free(y[i].source.data);
			fp_actor_clear(&y[i].by);
		}
		free(lists[k].v);
		memset(&lists[k], 0, sizeof(lists[k]));
	}
}
