// SPDX-License-Identifier: GPL-2.0
/*
 * A snapshot is a walk (snapshot_walk.c) whose walkers each sort what
 * they found by path bytes, the merge of their tables, and the hashing of
 * what the walk could not reuse (snapshot_hash.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "creds.h"
#include "snapshot_fs_int.h"

int fp_bytes_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

bool fp_path_under(const char *path, size_t len, const char *root,
		   size_t rootlen)
{
	if (rootlen == 1 && root[0] == '/')
		return len >= 1 && path[0] == '/';
	if (len < rootlen || memcmp(path, root, rootlen))
		return false;
	return len == rootlen || path[rootlen] == '/';
}

static int entry_cmp(const void *a, const void *b)
{
	const struct fp_fentry *x = a, *y = b;

	return fp_bytes_cmp(x->path.data, x->path.len, y->path.data,
			    y->path.len);
}

void fp_fs_sort(struct fp_fs_snapshot *s)
{
	qsort(s->e, s->n, sizeof(*s->e), entry_cmp);
}

/*
 * Two entries of one path: a handed directory's copy and its entry, or
 * an entry that overlapping roots walked twice. The entry stays, with
 * the other's read error if it met none itself.
 */
static void keep_one(struct fp_fentry *kept, const struct fp_fentry *e)
{
	int err = kept->err ? kept->err : e->err;

	if (kept->copy && !e->copy)
		*kept = *e;
	kept->err = err;
}

/*
 * Merged entry at, which no twin follows: listed if it is a regular file
 * the walk could not reuse, while the merge still has it in the cache.
 */
static void list_to_hash(struct fp_fs_todo *todo, const struct fp_fentry *e,
			 size_t at)
{
	if (e[at].type == 'f' && !e[at].hashed && !e[at].unstable &&
	    !e[at].err) {
		todo->at[todo->n++] = at;
		todo->bytes += e[at].size;
	}
}

int fp_fs_merge(struct fp_fs_snapshot *s, size_t cap,
		struct fp_fs_snapshot *const *more, int nmore,
		struct fp_fs_todo *todo)
{
	const struct fp_fentry *head[FP_FS_THREADS_MAX + 1],
		*end[FP_FS_THREADS_MAX + 1];
	size_t total = s->n, out = 0;
	struct fp_fentry *e = s->e;
	int t, k = 0, pick;

	for (t = 0; t < nmore; t++)
		total += more[t]->n;
	memset(todo, 0, sizeof(*todo));
	todo->at = malloc((total ? total : 1) * sizeof(*todo->at));
	if (!todo->at)
		return -ENOMEM;
	if (total > cap) {
		e = realloc(s->e, total * sizeof(*e));
		if (!e) {
			free(todo->at);
			todo->at = NULL;
			return -ENOMEM;
		}
		s->e = e;
	}
	/*
	 * s's own entries moved to the end of its array: the merge writes
	 * at or before the first it has yet to read, and at it only when
	 * nothing else is left to read.
	 */
	if (total > s->n)
		memmove(e + total - s->n, e, s->n * sizeof(*e));
	if (s->n) {
		head[k] = e + total - s->n;
		end[k++] = e + total;
	}
	for (t = 0; t < nmore && k <= FP_FS_THREADS_MAX; t++) {
		if (!more[t]->n)
			continue;
		head[k] = more[t]->e;
		end[k++] = more[t]->e + more[t]->n;
	}
	while (k) {
		for (pick = 0, t = 1; t < k; t++)
			if (entry_cmp(head[t], head[pick]) < 0)
				pick = t;
		if (out && !entry_cmp(&e[out - 1], head[pick])) {
			keep_one(&e[out - 1], head[pick]);
		} else {
			if (out)
				list_to_hash(todo, e, out - 1);
			if (&e[out] != head[pick])
				e[out] = *head[pick];
			out++;
		}
		if (++head[pick] == end[pick]) {
			head[pick] = head[--k];
			end[pick] = end[k];
		}
	}
	if (out)
		list_to_hash(todo, e, out - 1);
	s->n = out;
	return 0;
}

int fp_fs_snapshot(struct fp_fs_snapshot *s, char *const *roots, size_t nroots,
		   const struct fp_fs_opts *o)
{
	struct fp_fs_root *r = calloc(nroots ? nroots : 1, sizeof(*r));
	struct fp_fs_todo todo = { 0 };
	struct timespec now;
	size_t i;
	int ret = -ENOMEM;

	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_REALTIME, &now);
	s->started_ns = fp_ts_ns(&now);
	if (!r)
		goto cleanup;
	for (i = 0; i < nroots; i++) {
		r[i].path = roots[i];
		r[i].len = strlen(roots[i]);
		r[i].fd = -1;
		r[i].via = o->root_fds ? o->root_fds[i] : -1;
	}
	ret = fp_creds_enter(o->creds);
	if (ret)
		goto cleanup;
	ret = fp_fs_walk(s, o, r, nroots, &todo);
	if (!ret) {
		if (o->after_walk)
			o->after_walk(o->after_walk_ctx);
		ret = fp_fs_hash_all(s, o, r, nroots, &todo);
	}
	fp_creds_leave(o->creds);
cleanup:
	free(todo.at);
	for (i = 0; r && i < nroots; i++)
		if (r[i].fd >= 0)
			close(r[i].fd);
	free(r);
	if (ret)
		fp_fs_snapshot_free(s);
	return ret;
}

void fp_fs_snapshot_free(struct fp_fs_snapshot *s)
{
	size_t i;

	for (i = 0; !s->chunks && i < s->n; i++) {
		free(s->e[i].path.data);
		free(s->e[i].target.data);
	}
	while (s->chunks) {
		struct fp_fs_chunk *c = s->chunks;

		s->chunks = c->next;
		free(c);
	}
	free(s->e);
	memset(s, 0, sizeof(*s));
}

const struct fp_fentry *fp_fs_find(const struct fp_fs_snapshot *s,
				   const char *path, size_t len)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fp_fentry *e = &s->e[mid];
		int c = fp_bytes_cmp(e->path.data, e->path.len, path, len);

		if (!c)
			return e;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
