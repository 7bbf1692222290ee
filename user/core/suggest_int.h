/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the suggester (suggest.h): its state, shared by suggest.c (needs
 * become candidate rules), suggest_names.c (which parts of a name look
 * random) and suggest_churn.c (what a run adds under a directory it did
 * not make, collapsed into one rule).
 */
#ifndef FP_SUGGEST_INT_H
#define FP_SUGGEST_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "hashmap.h"
#include "suggest.h"

struct need {
	enum fp_rule_target target;
	char *s;
	size_t len;
	bool created;
	char *by; /* read: the reader's executable ("by EXE"), or NULL */
	size_t bylen;
};

/* a candidate rule */
struct cand {
	enum fp_rule_target target;
	char *pat; /* the matcher's pattern; a directory rule ends in '/' */
	size_t plen;
	bool literal; /* pat is lit escaped: printed as lit, quoted */
	char *lit; /* literal: the subject (a directory's with its '/') */
	size_t litlen;
	bool wide; /* a directory rule or a glob */
	char *weak; /* the glob it becomes if a sibling has the same one */
	size_t weaklen;
	size_t count;
	size_t order;
	unsigned char *runs;
	struct fp_vec samples; /* struct fp_bytes: subjects it covers */
	bool gone; /* merged into another */
	char *by; /* read: "by EXE", the reader's executable */
	size_t bylen;
	bool made; /* a run made what lit names (a created file or dir) */
};

struct fp_suggester {
	unsigned int nruns, run;
	bool relative; /* fp_suggester_relative() */
	struct fp_vec roots; /* struct fp_bytes, of every run */
	size_t run_roots; /* roots[run_roots...]: the current run's */
	struct fp_hashmap homes; /* home directories: no rule covers one */
	struct fp_hashmap created; /* this run: path -> 1, or 2 a directory */
	struct fp_vec needs; /* this run: struct need */
	struct fp_hashmap index; /* target, pattern -> cand index + 1 */
	struct fp_vec cands; /* struct cand */
};

struct buf {
	char *p;
	size_t len, cap;
	bool err;
};

/* growing bytes; err is sticky */
void fp_sg_put(struct buf *b, const void *s, size_t n);
/* s as a pattern matching only itself: the matcher's specials escaped */
void fp_sg_put_escaped(struct buf *b, const char *s, size_t n,
		       const char *specials);
/* the bytes a pattern of target t escapes */
const char *fp_sg_specials(enum fp_rule_target t);

enum { NOT_RANDOM, WEAK, STRONG };

/* Does a run of letters, digits and '_' look random (suggest_names.c)? */
int fp_sg_randomness(const char *t, size_t n, bool py);
/* The name with each random-looking part (at level or above) made a '*',
 * the rest escaped; the bytes replaced, 0 for none. */
size_t fp_sg_glob_name(struct buf *b, const char *nm, size_t n, int level,
		       enum fp_rule_target t);
/* Does a UUID (8-4-4-4-12 lower-case hex) start at nm[i]? */
bool fp_sg_uuid_at(const char *nm, size_t i, size_t n);
/* Is path[0, dirlen) the system's temp directory ("/tmp/" and the like)? */
bool fp_sg_in_temp_dir(const char *path, size_t dirlen);
/* A bare name of Python's tempfile: eight of [a-z0-9_]. */
bool fp_sg_python_temp_name(const char *t, size_t n, bool temp_dir);

/* the candidate for target and pat ("by EXE" for a read), made if new */
int fp_sg_cand_index(struct fp_suggester *s, enum fp_rule_target t,
		     const char *pat, size_t plen, const char *by, size_t bylen,
		     size_t *idx, bool *fresh);
/* into takes c's findings, runs and subjects; c is gone */
int fp_sg_merge(struct fp_suggester *s, struct cand *into, struct cand *c);
/* Would a path rule cover a watched root, or a directory above one? */
bool fp_sg_covers_root(const struct fp_suggester *s, const char *pat,
		       size_t plen);

/* suggest_churn.c: churn under a directory the run did not make, and the
 * package caches, collapsed into one rule each */
int fp_sg_collapse_churn(struct fp_suggester *s);

#endif
