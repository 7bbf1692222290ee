// SPDX-License-Identifier: GPL-2.0
/*
 * A snapshot is a walk (snapshot_walk.c), a sort by path bytes, and the
 * hashing of what the walk could not reuse (snapshot_hash.c).
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

/* sorted by path; overlapping roots list an entry twice (its bytes are
 * in the chunks, freed with the snapshot) */
static void sort_entries(struct fp_fs_snapshot *s)
{
	size_t i, j;

	qsort(s->e, s->n, sizeof(*s->e), entry_cmp);
	for (i = j = 0; i < s->n; i++)
		if (!j || entry_cmp(&s->e[j - 1], &s->e[i]))
			s->e[j++] = s->e[i];
	s->n = j;
}

int fp_fs_snapshot(struct fp_fs_snapshot *s, char *const *roots, size_t nroots,
		   const struct fp_fs_opts *o)
{
	struct fp_fs_root *r = calloc(nroots ? nroots : 1, sizeof(*r));
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
	ret = fp_fs_walk(s, o, r, nroots);
	if (!ret) {
		sort_entries(s);
		if (o->after_walk)
			o->after_walk(o->after_walk_ctx);
		ret = fp_fs_hash_all(s, o, r, nroots);
	}
	fp_creds_leave(o->creds);
cleanup:
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
