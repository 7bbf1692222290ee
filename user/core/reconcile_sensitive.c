// SPDX-License-Identifier: GPL-2.0
/* Sensitive reads and signals outside the run (sensitive.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reconcile_int.h"
#include "authprog.h"

void fp_recon_set_reads(struct fp_recon *r, const struct fp_reads_conf *c)
{
	r->rconf = *c;
}

static bool pid_in_run(const void *ctx, pid_t pid)
{
	const struct fp_recon *r = ctx;
	const struct proc_state *p = proc_of(r, pid);

	return p && !p->exited;
}

/*
 * Is what open ev reads the run's own: the file created, truncated or
 * replaced by the run before it, or by this open? A file the run made and
 * then read (a linker reopening its output) is a product, not a material
 * (docs/attest.md).
 */
static bool content_made(const struct fp_recon *r, const struct fp_event *ev)
{
	const struct fp_bytes *p = &ev->file.path[0].path;
	const struct path_state *ps;

	if (ev->file.created || (ev->file.flags & O_TRUNC))
		return true;
	ps = fp_hashmap_get(&r->paths, p->data, p->len);
	return ps && (ps->born || ps->wrote);
}

/*
 * The key of a kept read: its path, and for a secret (or a path a rule
 * scoped "by EXE" names) a NUL and the reader's executable, so that each
 * program is a finding of its own; a process that never exec'd in the
 * trace by its pid. Returns the key's length; the caller frees *key.
 */
static size_t read_key(const struct fp_recon *r, const struct fp_event *ev,
		       int32_t exec, char **key)
{
	const struct fp_bytes *p = &ev->file.path[0].path;
	const struct fp_bytes *exe =
		exec >= 0 ? &exec_at(r, exec)->cmd->exe : NULL;
	char pid[24];
	size_t n;

	snprintf(pid, sizeof(pid), "\001%u", ev->pid);
	n = exe ? exe->len : strlen(pid);
	*key = malloc(p->len + 1 + n + 1);
	if (!*key)
		return 0;
	memcpy(*key, p->data, p->len);
	(*key)[p->len] = '\0';
	if (n)
		memcpy(*key + p->len + 1, exe ? exe->data : pid, n);
	return p->len + 1 + n;
}

/* an authentication program reading its own configuration: no secret */
static bool auth_own_read(const struct fp_recon *r, int32_t exec,
			  const struct fp_event *ev)
{
	const struct fp_bytes *p = &ev->file.path[0].path;

	return exec >= 0 &&
	       fp_auth_own_config(exec_at(r, exec)->auth, p->data, p->len);
}

static int feed_read_key(struct fp_recon *r, const struct fp_event *ev,
			 struct who *wp, const char *secret, const char *key,
			 size_t klen)
{
	struct fp_read_state *st;
	struct fp_hslot *slot;
	struct who w = *wp;
	int ret;

	st = fp_hashmap_get(&r->reads, key, klen);
	if (!st) {
		if (!secret && ev->file.ret >= 0 &&
		    r->reads_listed >= FP_READS_MAX) {
			r->reads_omitted++;
			return 0;
		}
		if (charge(r, SLOT_COST + ALLOC(klen + 1) + ALLOC(sizeof(*st)) +
				      VEC_COST(sizeof(struct fp_read_finding)) +
				      ALLOC(klen + 1)))
			return -EDQUOT;
		slot = fp_hashmap_slot(&r->reads, key, klen);
		if (!slot ||
		    (!slot->val && !(slot->val = calloc(1, sizeof(*st)))))
			return -ENOMEM;
		st = slot->val;
		r->reads_listed += !secret;
	}
	if (ev->file.ret >= 0 && !st->orig_read && !content_made(r, ev))
		st->orig_read = true;
	if (!fp_read_state_note(st, ev, secret))
		return 0;
	ret = fp_rc_event_group(r, ev, &w.group);
	st->pid = w.pid;
	st->exec = w.exec;
	st->group = w.group;
	return ret;
}

/* a secret, or a read a rule names, is always kept; the rest up to a
 * bound, and counted past it */
int fp_rc_feed_read(struct fp_recon *r, const struct fp_event *ev)
{
	const struct fp_bytes *p = &ev->file.path[0].path;
	struct who w = { ev->pid, exec_of(r, ev->pid), 0 };
	const char *secret;
	char *key;
	size_t klen;
	int ret;

	if (!fp_read_interest(&r->rconf, ev, pid_in_run, r, &secret))
		return 0;
	if (secret && auth_own_read(r, w.exec, ev)) {
		secret = NULL;
		if (!fp_read_kept_plain(&r->rconf, ev))
			return 0;
	}
	if (!fp_read_per_reader(&r->rconf, ev, secret))
		return feed_read_key(r, ev, &w, secret, p->data, p->len);
	klen = read_key(r, ev, w.exec, &key);
	if (!key)
		return -ENOMEM;
	ret = feed_read_key(r, ev, &w, secret, key, klen);
	free(key);
	return ret;
}

int fp_rc_feed_signal(struct fp_recon *r, const struct fp_event *ev)
{
	struct fp_signal_state *st;
	struct fp_signal_key k;
	struct fp_hslot *slot;
	uint32_t g;
	int ret;

	fp_signal_key_of(ev, &k);
	st = fp_hashmap_get(&r->signals, &k, sizeof(k));
	if (!st) {
		if (charge(r,
			   SLOT_COST + ALLOC(sizeof(k) + 1) +
				   ALLOC(sizeof(*st)) +
				   VEC_COST(sizeof(struct fp_signal_finding))))
			return -EDQUOT;
		slot = fp_hashmap_slot(&r->signals, &k, sizeof(k));
		if (!slot ||
		    (!slot->val && !(slot->val = calloc(1, sizeof(*st)))))
			return -ENOMEM;
		st = slot->val;
	}
	if (!fp_signal_state_note(st, ev))
		return 0;
	ret = fp_rc_event_group(r, ev, &g);
	st->exec = exec_of(r, ev->pid);
	st->group = g;
	return ret;
}

static int read_cmp(const void *x, const void *y)
{
	const struct fp_read_finding *a = x, *b = y;
	int c = fp_bytes_cmp(a->path.data, a->path.len, b->path.data,
			     b->path.len);

	/* one path read by several programs: then by reader */
	if (c)
		return c;
	if (a->by.pid != b->by.pid)
		return a->by.pid < b->by.pid ? -1 : 1;
	if (!a->by.exe.len || !b->by.exe.len)
		return !!a->by.exe.len - !!b->by.exe.len;
	return fp_bytes_cmp(a->by.exe.data, a->by.exe.len, b->by.exe.data,
			    b->by.exe.len);
}

static int sig_cmp(const void *x, const void *y)
{
	const struct fp_signal_finding *a = x, *b = y;

	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	if (a->by.pid != b->by.pid)
		return a->by.pid < b->by.pid ? -1 : 1;
	return (a->target_pid > b->target_pid) -
	       (a->target_pid < b->target_pid);
}

int fp_rc_read_findings(const struct fp_recon *r,
			const struct fp_recon_input *in,
			struct fp_findings *out)
{
	struct fp_read_finding *x;
	size_t i;

	for (i = 0; i < r->reads.cap; i++) {
		const struct fp_hslot *s = &r->reads.slots[i];
		const struct fp_read_state *st = s->val;
		struct who w;
		size_t len;

		if (!s->key || !st)
			continue;
		/* the path, without the reader a secret's key names */
		len = strnlen(s->key, s->len);
		x = fp_vec_push(&out->reads, sizeof(*x));
		if (!x || fp_bytes_dup(&x->path, s->key, len))
			return -ENOMEM;
		x->secret = st->secret;
		x->err = st->err;
		x->opens = st->opens;
		x->orig_read = st->orig_read;
		x->before = fp_fs_find(in->fs_before, s->key, len);
		x->after = fp_fs_find(in->fs_after, s->key, len);
		w = (struct who){ st->pid, st->exec, st->group };
		if (fp_rc_actor_fill(r, &x->by, &w))
			return -ENOMEM;
	}
	out->reads_omitted = r->reads_omitted;
	if (out->reads.n)
		qsort(out->reads.v, out->reads.n, sizeof(*x), read_cmp);
	return 0;
}

int fp_rc_signal_findings(const struct fp_recon *r,
			  const struct fp_recon_input *in,
			  struct fp_findings *out)
{
	struct fp_signal_finding *x;
	const struct fp_proc *tp;
	size_t i;

	for (i = 0; i < r->signals.cap; i++) {
		const struct fp_hslot *s = &r->signals.slots[i];
		const struct fp_signal_state *st = s->val;
		struct who w;

		if (!s->key || !st)
			continue;
		x = fp_vec_push(fp_sys_crossproc(st->f.sys) ? &out->ptraced :
							      &out->signalled,
				sizeof(*x));
		if (!x)
			return -ENOMEM;
		*x = st->f;
		memset(&x->target_exe, 0, sizeof(x->target_exe));
		memset(&x->by, 0, sizeof(x->by));
		tp = x->target_pid ?
			     fp_proc_find(in->proc_before, x->target_pid) :
			     NULL;
		if (fp_bytes_dup(&x->target_exe, tp ? tp->exe.data : "",
				 tp ? tp->exe.len : 0))
			return -ENOMEM;
		w = (struct who){ ((const struct fp_signal_key *)s->key)->pid,
				  st->exec, st->group };
		if (fp_rc_actor_fill(r, &x->by, &w))
			return -ENOMEM;
	}
	if (out->signalled.n)
		qsort(out->signalled.v, out->signalled.n, sizeof(*x), sig_cmp);
	if (out->ptraced.n)
		qsort(out->ptraced.v, out->ptraced.n, sizeof(*x), sig_cmp);
	return 0;
}
