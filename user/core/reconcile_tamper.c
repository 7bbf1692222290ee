// SPDX-License-Identifier: GPL-2.0
/* Tamper evidence: the tracer's events, and changes to the state directory. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reconcile_int.h"

int fp_rc_feed_tamper(struct fp_recon *r, const struct fp_event *ev)
{
	struct fp_tamper_finding *t;
	struct who w = { ev->pid, exec_of(r, ev->pid), 0 };
	int ret = fp_rc_event_group(r, ev, &w.group);

	if (ret)
		return ret;
	/* kept here, and copied into the findings */
	if (charge(r, 2 * VEC_COST(sizeof(*t))))
		return -EDQUOT;
	t = fp_vec_push(&r->tampers, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->what = FP_TAMPER_EVENT;
	t->kind = ev->tamper.kind;
	t->sig = ev->tamper.sig;
	t->target_pid = ev->tamper.target_pid;
	t->arg = ev->tamper.arg;
	t->ts_ns = ev->ts_ns;
	/* the tracer's own heartbeat names no process */
	return ev->pid ? fp_rc_actor_fill(r, &t->by, &w) : 0;
}

/* A change under the state directory, or one that moves it away. */
static bool hits_state_dir(const char *p, size_t len, unsigned int ops,
			   const char *dir, size_t n)
{
	if (fp_path_under(p, len, dir, n))
		return true;
	return (ops &
		(FP_OP_REMOVED | FP_OP_RENAMED_FROM | FP_OP_RENAMED_TO)) &&
	       fp_path_under(dir, n, p, len);
}

static int tamper_cmp(const void *x, const void *y)
{
	const struct fp_tamper_finding *a = x, *b = y;

	return fp_bytes_cmp(a->path.data, a->path.len, b->path.data,
			    b->path.len);
}

static int state_dir_findings(const struct fp_recon *r, const char *dir,
			      struct fp_findings *out)
{
	size_t i, first = out->tamper.n, n = strlen(dir);
	struct fp_tamper_finding *t;

	/* "/run/fp/" is "/run/fp" */
	while (n > 1 && dir[n - 1] == '/')
		n--;
	for (i = 0; i < r->paths.cap; i++) {
		const struct fp_hslot *s = &r->paths.slots[i];
		const struct path_state *ps = s->val;

		/* a cut or magic name says nothing of where it was */
		if (!s->key || !ps->ops || (s->len && s->key[0] == '\0') ||
		    !hits_state_dir(s->key, s->len, ps->ops, dir, n))
			continue;
		t = fp_vec_push(&out->tamper, sizeof(*t));
		if (!t || fp_bytes_dup(&t->path, s->key, s->len) ||
		    fp_rc_actor_fill(r, &t->by, &ps->last))
			return -ENOMEM;
		t->what = FP_TAMPER_STATE_DIR;
		t->ops = ps->ops;
	}
	/* hash order is not an order */
	if (out->tamper.n > first)
		qsort(FP_TAMPER(out) + first, out->tamper.n - first, sizeof(*t),
		      tamper_cmp);
	return 0;
}

int fp_rc_tamper_findings(const struct fp_recon *r,
			  const struct fp_recon_input *in,
			  struct fp_findings *out)
{
	struct fp_tamper_finding *t;
	size_t i;

	for (i = 0; i < r->tampers.n; i++) {
		const struct fp_tamper_finding *s = fp_vec_at(
			&r->tampers, const struct fp_tamper_finding, i);

		t = fp_vec_push(&out->tamper, sizeof(*t));
		if (!t)
			return -ENOMEM;
		*t = *s;
		t->path.data = NULL;
		if (fp_actor_copy(&t->by, &s->by))
			return -ENOMEM;
	}
	if (!in->state_dir || !in->state_dir[0])
		return 0;
	return state_dir_findings(r, in->state_dir, out);
}
