/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The failing findings of a scratch run's receipt, as lock
 * --skip-disallowed sorts them: a change the scratch box held (a file
 * added, changed or removed under a root, which only the upper layer
 * has) can be set aside; anything else really happened (a secret read, a
 * write outside the roots, a connect, a process left running) and no
 * skip undoes it.
 */
#ifndef FP_LOCK_FINDINGS_H
#define FP_LOCK_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "findref.h"
#include "jsonin.h"

/* findings named in lock's refusal; the rest are counted */
#define FP_LOCK_NAMED 5

struct fp_lock_aside {
	char *p;
	size_t len;
	bool added; /* a path the run made: what is under it goes with it */
};

struct fp_lock_walk {
	/* the failing changes the box held, sorted by path bytes */
	struct fp_lock_aside *aside;
	size_t naside, cap;
	/* the failing findings the box did not hold: how many, and the
	 * first few as "files.read: /home/u/.ssh/id_rsa by pid 12; ..." */
	size_t nreal;
	struct fp_sbuf named;
};

/* 0, or -ENOMEM (w is then freed) */
int fp_lock_walk(const struct fp_jv *receipt, struct fp_lock_walk *w);
void fp_lock_walk_free(struct fp_lock_walk *w);
/* is path set aside itself; is it under a set-aside path the run made */
bool fp_lock_is_aside(const struct fp_lock_walk *w, const char *p, size_t len);
bool fp_lock_in_aside_dir(const struct fp_lock_walk *w, const char *p,
			  size_t len);
/* is anything set aside under the directory p */
bool fp_lock_aside_under(const struct fp_lock_walk *w, const char *p,
			 size_t len);

#endif
