// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "findings.h"

void *fp_vec_push(struct fp_vec *v, size_t elem)
{
	if (v->n == v->cap) {
		size_t ncap = v->cap ? v->cap * 2 : 16;
		void *nv = realloc(v->v, ncap * elem);

		if (!nv)
			return NULL;
		v->v = nv;
		v->cap = ncap;
	}
	memset((char *)v->v + v->n * elem, 0, elem);
	return (char *)v->v + v->n++ * elem;
}

void fp_vec_remove(struct fp_vec *v, size_t i, size_t elem)
{
	char *p = (char *)v->v + i * elem;

	memmove(p, p + elem, (v->n - i - 1) * elem);
	v->n--;
}

void fp_actor_clear(struct fp_actor *a)
{
	free(a->exe.data);
	free(a->argv.data);
	memset(a, 0, sizeof(*a));
}

void fp_file_finding_clear(struct fp_file_finding *x)
{
	free(x->path.data);
	fp_actor_clear(&x->by);
	fp_actor_clear(&x->created_by);
	fp_actor_clear(&x->removed_by);
}

void fp_proc_finding_clear(struct fp_proc_finding *x)
{
	fp_actor_clear(&x->p);
}

void fp_net_finding_clear(struct fp_net_finding *x)
{
	free(x->unix_path.data);
	x->unix_path.data = NULL;
}

void fp_findings_free(struct fp_findings *f)
{
	size_t l, i;

	for (l = 0; l < FP_F_NLISTS; l++) {
		for (i = 0; i < f->files[l].n; i++)
			fp_file_finding_clear(&FP_FILES(f, l)[i]);
		free(f->files[l].v);
	}
	for (l = 0; l < FP_P_NLISTS; l++) {
		for (i = 0; i < f->procs[l].n; i++)
			fp_proc_finding_clear(&FP_PROCS(f, l)[i]);
		free(f->procs[l].v);
	}
	for (l = 0; l < FP_N_NLISTS; l++) {
		for (i = 0; i < f->net[l].n; i++)
			fp_net_finding_clear(&FP_NETS(f, l)[i]);
		free(f->net[l].v);
	}
	memset(f, 0, sizeof(*f));
}
