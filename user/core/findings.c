// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "proctab.h"
#include "procops.h"
#include "netflow.h"
#include "sensitive.h"

void fp_vec_fault(const struct fp_vec *v, size_t elem, size_t i)
{
	if (v->n && v->elem != elem)
		fprintf(stderr,
			"footprint: internal error: a list of %zu-byte "
			"elements used as one of %zu-byte ones; please report "
			"this bug\n",
			v->elem, elem);
	else
		fprintf(stderr,
			"footprint: internal error: element %zu of a list of "
			"%zu read; please report this bug\n",
			i, v->n);
	abort();
}

void *fp_vec_push(struct fp_vec *v, size_t elem)
{
	if (!v->elem)
		v->elem = elem;
	else if (v->elem != elem)
		fp_vec_fault(v, elem, v->n);
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
	char *p = fp_vec_at_(v, elem, i);

	memmove(p, p + elem, (v->n - i - 1) * elem);
	v->n--;
}

size_t fp_argv_keep_len(const char *argv, size_t len)
{
	size_t n = len;

	if (n <= FP_ARGV_KEEP)
		return n;
	n = FP_ARGV_KEEP;
	/* a cut character would turn the whole argv into base64 */
	while (n > FP_ARGV_KEEP - 3 && ((unsigned char)argv[n] & 0xc0) == 0x80)
		n--;
	return n;
}

struct fp_cmdline *fp_cmdline_new(const char *exe, size_t exelen,
				  const char *argv, size_t argvlen, bool cut)
{
	struct fp_cmdline *c = calloc(1, sizeof(*c));
	size_t keep = fp_argv_keep_len(argv, argvlen);

	if (!c)
		return NULL;
	if (fp_bytes_dup(&c->exe, exe ?: "", exelen) ||
	    fp_bytes_dup(&c->argv, argv ?: "", keep)) {
		free(c->exe.data);
		free(c);
		return NULL;
	}
	c->argv_cut = cut || keep < argvlen;
	c->refs = 1;
	return c;
}

void fp_cmdline_put(struct fp_cmdline *c)
{
	if (!c || --c->refs)
		return;
	free(c->exe.data);
	free(c->argv.data);
	free(c);
}

void fp_actor_share(struct fp_actor *a, struct fp_cmdline *c)
{
	c->refs++;
	a->cmd = c;
	a->exe = c->exe;
	a->argv = c->argv;
	a->argv_cut = c->argv_cut;
}

int fp_actor_own(struct fp_actor *a, const char *exe, size_t exelen,
		 const char *argv, size_t argvlen)
{
	size_t keep = fp_argv_keep_len(argv, argvlen);

	a->cmd = NULL;
	a->argv_cut = keep < argvlen;
	return fp_bytes_dup(&a->exe, exe ?: "", exelen) ?:
		       fp_bytes_dup(&a->argv, argv ?: "", keep);
}

int fp_actor_copy(struct fp_actor *dst, const struct fp_actor *src)
{
	*dst = *src;
	if (src->cmd) {
		fp_actor_share(dst, src->cmd);
		return 0;
	}
	dst->exe.data = dst->argv.data = NULL;
	if (fp_bytes_dup(&dst->exe, src->exe.data ?: "", src->exe.len) ||
	    fp_bytes_dup(&dst->argv, src->argv.data ?: "", src->argv.len))
		return -ENOMEM;
	return 0;
}

void fp_actor_clear(struct fp_actor *a)
{
	if (a->cmd) {
		fp_cmdline_put(a->cmd);
	} else {
		free(a->exe.data);
		free(a->argv.data);
	}
	memset(a, 0, sizeof(*a));
}

const struct fp_actor fp_actor_nobody;

struct fp_file_actors *fp_ff_more(struct fp_file_finding *x)
{
	if (!x->more)
		x->more = calloc(1, sizeof(*x->more));
	return x->more;
}

void fp_file_finding_clear(struct fp_file_finding *x)
{
	struct fp_file_actors *m = x->more;

	free(x->path.data);
	fp_actor_clear(&x->by);
	if (m) {
		fp_actor_clear(&m->created_by);
		fp_actor_clear(&m->removed_by);
		fp_actor_clear(&m->ran_by);
		fp_actor_clear(&m->outside_writer);
		free(m);
		x->more = NULL;
	}
}

void fp_proc_finding_clear(struct fp_proc_finding *x)
{
	fp_actor_clear(&x->p);
}

void fp_net_finding_clear(struct fp_net_finding *x)
{
	free(x->unix_path.data);
	x->unix_path.data = NULL;
	fp_actor_clear(&x->by);
}

void fp_tamper_finding_clear(struct fp_tamper_finding *x)
{
	free(x->path.data);
	x->path.data = NULL;
	fp_actor_clear(&x->by);
}

const char *fp_tamper_name(const struct fp_tamper_finding *x)
{
	if (x->what == FP_TAMPER_STATE_DIR)
		return "state_dir";
	switch (x->kind) {
	case FP_TAMPER_SIGNAL:
		return "signal";
	case FP_TAMPER_BPF:
		return "bpf";
	case FP_TAMPER_PTRACE:
		return "ptrace";
	case FP_TAMPER_HEARTBEAT:
		return "heartbeat";
	case FP_TAMPER_CONTROL:
		return "control";
	case FP_TAMPER_RESTART:
		return "restart";
	case FP_TAMPER_REPLACED:
		return "replaced";
	}
	return "other";
}

unsigned int fp_file_finding_step(const struct fp_file_finding *x)
{
	return x->what == FP_F_TRANSIENT ? fp_ff_actor(x, created_by)->step :
					   x->by.step;
}

const struct fp_step *fp_findings_step(const struct fp_findings *f,
				       unsigned int step)
{
	if (!step || step > f->steps.n)
		return NULL;
	return &FP_STEPS(f)[step - 1];
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
	for (i = 0; i < f->privileged.n; i++)
		fp_proc_finding_clear(&FP_PRIVILEGED(f)[i]);
	free(f->privileged.v);
	for (i = 0; i < f->tamper.n; i++)
		fp_tamper_finding_clear(&FP_TAMPER(f)[i]);
	free(f->tamper.v);
	for (i = 0; i < f->steps.n; i++)
		free(FP_STEPS(f)[i].name.data);
	free(f->steps.v);
	fp_netflow_findings_free(f);
	fp_sensitive_free(f);
	fp_procops_free(f->procops);
	if (f->proctab)
		fp_proctab_free(f->proctab);
	free(f->proctab);
	memset(f, 0, sizeof(*f));
}
