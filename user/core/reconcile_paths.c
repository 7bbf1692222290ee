// SPDX-License-Identifier: GPL-2.0
/*
 * The paths the events changed that the snapshots do not show: cut or
 * magic names, transient files, changes outside the roots, and where a
 * rename took them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reconcile_int.h"

#define MOVES(r) fp_vec_arr(&(r)->moves, const struct move)

/* The first rename after seq of a directory above path (len bytes): the
 * one that took what was in it along. NULL if none; *at: its length. */
static const struct move *next_move(const struct fp_recon *r, const char *p,
				    size_t len, uint64_t seq, size_t *at)
{
	const struct move *best = NULL, *m;
	const struct path_state *ps;
	size_t k;
	uint32_t i;

	struct fp_prefix pre;

	/* moves are kept in the order they were fed: none after seq, none
	 * to find (a lookup a level of the path saved, for every path) */
	if (!r->moves.n || MOVES(r)[r->moves.n - 1].seq <= seq)
		return NULL;
	fp_prefix_init(&pre);
	for (k = 1; k < len; k++) {
		if (p[k] != '/')
			continue;
		/* each prefix hashed from the last: see explain() */
		ps = fp_hashmap_get_prefix(&r->paths, &pre, p, k);
		for (i = ps ? ps->moves : 0; i; i = m->prev) {
			m = &MOVES(r)[i - 1];
			if (m->seq <= seq)
				break;
			if (!best || m->seq < best->seq) {
				best = m;
				*at = k;
			}
		}
	}
	return best;
}

/*
 * Where the file that was at path after event seq ended, following the
 * renames of the directories above it: a new malloc'd path in *out (NULL
 * when it did not move), and the event of its last move in *seq. 0 or
 * -ENOMEM.
 */
static int where_it_ended(const struct fp_recon *r, const char *p, size_t len,
			  uint64_t *seq, struct fp_bytes *out)
{
	const struct move *m;
	size_t at;
	char *n;

	out->data = NULL;
	out->len = 0;
	while ((m = next_move(r, out->data ?: p, out->data ? out->len : len,
			      *seq, &at))) {
		const char *cur = out->data ?: p;
		size_t clen = out->data ? out->len : len;

		n = malloc(m->to_len + clen - at + 1);
		if (!n) {
			free(out->data);
			out->data = NULL;
			return -ENOMEM;
		}
		memcpy(n, m->to, m->to_len);
		memcpy(n + m->to_len, cur + at, clen - at);
		n[m->to_len + clen - at] = '\0';
		free(out->data);
		out->data = n;
		out->len = m->to_len + clen - at;
		*seq = m->seq;
	}
	return 0;
}

/* the last rename away from ps, if that was the last thing done to it */
static const struct move *renamed_last(const struct fp_recon *r,
				       const struct path_state *ps)
{
	const struct move *m = ps->moves ? &MOVES(r)[ps->moves - 1] : NULL;

	return m && m->seq == ps->seq && ps->exists == 0 ? m : NULL;
}

enum { KEEP, DROP };

/* a transient finding's creator and remover: 0 or -ENOMEM */
static int fill_transient(const struct fp_recon *r, struct fp_file_finding *f,
			  const struct who *created, const struct who *removed)
{
	struct fp_file_actors *m = fp_ff_more(f);

	if (!m || fp_rc_actor_fill(r, &m->created_by, created) ||
	    fp_rc_actor_fill(r, &m->removed_by, removed))
		return -ENOMEM;
	return 0;
}

/* created where it ended, then removed there: transient there */
static int transient_at(const struct fp_recon *r, struct fp_findings *out,
			const struct fp_bytes *to, const struct path_state *ps,
			const struct path_state *then)
{
	struct fp_file_finding *f =
		fp_rc_add_file(out, FP_F_TRANSIENT, to->data, to->len);

	if (!f || fill_transient(r, f, &ps->created, &then->removed) ||
	    fp_rc_actor_fill(r, &f->by, &then->last) ||
	    fp_rc_ran_fill(r, f, ps->ran ? ps : then, false))
		return -ENOMEM;
	f->made_exec = ps->made_exec || then->made_exec;
	f->explained = true;
	return DROP;
}

/*
 * What became of the file at ps (key) once it was moved to `to`, after
 * event seq: KEEP its finding at its old name, DROP it (it is reported
 * where it ended), or -ENOMEM.
 */
static int ended_at(const struct fp_recon *r, const struct fp_recon_input *in,
		    const struct path_state *ps, const struct fp_bytes *to,
		    uint64_t seq, bool own, bool carried,
		    struct fp_findings *out)
{
	const struct path_state *then =
		fp_hashmap_get(&r->paths, to->data, to->len);
	struct fp_file_finding *f;

	if (then && then->seq > seq) {
		/* its new name's own events tell the rest */
		if (own && !carried && then->born)
			return DROP;
		if (ps->born && !then->born && then->exists == 0 &&
		    (then->ops & FP_OP_REMOVED) &&
		    fp_rc_under_roots(in, to->data, to->len))
			return transient_at(r, out, to, ps, then);
		return KEEP;
	}
	if (fp_rc_under_roots(in, to->data, to->len))
		return DROP;
	if (own || then)
		return KEEP;
	f = fp_rc_add_file(out, FP_F_OUTSIDE, to->data, to->len);
	if (!f || fp_rc_actor_fill(r, &f->by, &ps->last))
		return -ENOMEM;
	f->changes = ps->ops | FP_OP_RENAMED_TO;
	f->explained = true;
	return DROP;
}

/*
 * A file made or changed outside the roots that a rename (of itself, or
 * of a directory above it) took elsewhere is reported once, where it
 * ended: inside a root the snapshots show it there; removed there, it is
 * transient there; outside, it is an outside_roots finding there. What
 * is done at its new name later is its new name's own, and then it stays
 * where it was. A file that was there before the run and was renamed
 * away is a change where it was, and stays.
 */
static int relocate(const struct fp_recon *r, const struct fp_recon_input *in,
		    const char *key, size_t klen, const struct path_state *ps,
		    struct fp_findings *out)
{
	const struct move *own = ps->born ? renamed_last(r, ps) : NULL;
	struct fp_bytes to, start = { (char *)key, klen };
	uint64_t seq = ps->seq;
	bool carried;
	int ret;

	if (own) {
		start = (struct fp_bytes){ (char *)own->to, own->to_len };
		seq = own->seq;
	} else if (ps->exists == 0) {
		return KEEP;
	}
	if (where_it_ended(r, start.data, start.len, &seq, &to))
		return -ENOMEM;
	carried = to.data != NULL;
	if (!carried && !own)
		return KEEP;
	if (!carried)
		to = start;
	ret = ended_at(r, in, ps, &to, seq, own, carried, out);
	if (carried)
		free(to.data);
	return ret;
}

int fp_rc_path_findings(const struct fp_recon *r,
			const struct fp_recon_input *in,
			struct fp_findings *out)
{
	size_t i;
	int ret;

	for (i = 0; i < r->paths.cap; i++) {
		const struct fp_hslot *s = &r->paths.slots[i];
		const struct path_state *ps = s->val;
		struct fp_file_finding *f;

		if (!s->key || !ps->ops)
			continue;
		if (s->len >= 2 && s->key[0] == '\0') {
			f = fp_rc_add_file(
				out, s->key[1] == 'c' ? FP_F_CUT : FP_F_MAGIC,
				s->key + 2, s->len - 2);
			if (!f || fp_rc_actor_fill(r, &f->by, &ps->last))
				return -ENOMEM;
			f->changes = ps->ops;
			continue;
		}
		if (ps->born && ps->exists == 0 && (ps->ops & FP_OP_REMOVED)) {
			f = fp_rc_add_file(out, FP_F_TRANSIENT, s->key, s->len);
			if (!f ||
			    fill_transient(r, f, &ps->created, &ps->removed) ||
			    fp_rc_actor_fill(r, &f->by, &ps->last) ||
			    fp_rc_ran_fill(r, f, ps, false))
				return -ENOMEM;
			f->explained = true;
			continue;
		}
		if (fp_rc_under_roots(in, s->key, s->len))
			continue;
		ret = relocate(r, in, s->key, s->len, ps, out);
		if (ret < 0)
			return ret;
		if (ret == DROP)
			continue;
		f = fp_rc_add_file(out, FP_F_OUTSIDE, s->key, s->len);
		if (!f || fp_rc_actor_fill(r, &f->by, &ps->last) ||
		    fp_rc_ran_fill(r, f, ps, true))
			return -ENOMEM;
		f->changes = ps->ops;
		f->explained = true;
		f->by_open = ps->ops == FP_OP_WRITTEN && !ps->wrote;
	}
	return 0;
}
