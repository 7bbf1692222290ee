// SPDX-License-Identifier: GPL-2.0
/*
 * At the after snapshot of a `run`: the files in the roots whose change
 * only an open for writing of the run explains, looked for among the
 * writable fds of the processes outside the run (snapshot_holders.h).
 * Such a change is unexplained, naming the outside holder. No candidate,
 * no scan: a run that opened nothing for appending pays nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"
#include "snapshot_holders.h"

struct cands {
	const struct fp_run *run;
	struct fp_holder_want *w;
	size_t n, cap;
};

/* a regular file the after snapshot has, whose content may have changed */
static int want(void *ctx, const char *path, size_t len)
{
	struct cands *c = ctx;
	const struct fp_fentry *a, *b;
	struct fp_holder_want *nw;

	a = fp_fs_find(&c->run->fs[FP_PHASE_AFTER], path, len);
	if (!a || a->type != 'f')
		return 0;
	b = fp_fs_find(&c->run->fs[FP_PHASE_BEFORE], path, len);
	if (b && b->type == 'f' && b->hashed && a->hashed &&
	    !memcmp(a->sha256, b->sha256, 32))
		return 0;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		nw = realloc(c->w, c->cap * sizeof(*nw));
		if (!nw)
			return -ENOMEM;
		c->w = nw;
	}
	c->w[c->n++] = (struct fp_holder_want){ a->dev, a->ino, a->path.data,
						a->path.len };
	return 0;
}

int fp_session_holders(struct fp_session *s)
{
	struct fp_run *run = &s->run;
	struct cands c = { .run = run };
	int ret;

	if (run->mode != FP_MODE_RUN || !run->have_snap[FP_PHASE_AFTER])
		return 0;
	ret = fp_recon_opened_only(run->recon, want, &c);
	if (!ret && c.n)
		ret = fp_holders_scan(c.w, c.n, getpid(), run->run_cgroup,
				      &run->holders);
	free(c.w);
	if (ret)
		fprintf(stderr,
			"footprint: cannot look for writers outside the run: %s\n",
			strerror(-ret));
	return ret;
}
