/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Suggested rules: the allow lines that would let failing findings pass,
 * made general enough to match the next run of the same job. A pure
 * function of the findings (of one run, or of several for policy learn):
 *
 *  - a directory the run created, with findings below it, becomes
 *    "allow DIR/";
 *  - a name the run created whose part looks random (mkstemp, mktemp,
 *    Python's tempfile) becomes a glob: /tmp/cc*.s, or for a created
 *    directory /tmp/pip-target-* followed by a slash;
 *    sibling names of one shape that differ in a run of letters and
 *    digits of one length count as random too;
 *  - a bind that asked for port 0 is allowed as port 0 (any port the
 *    kernel picks);
 *  - churn under a directory the run did not make is one rule: a package
 *    cache's, the directory above UUID and hash names, one glob for
 *    numbered names (suggest_churn.c);
 *  - a secret read is allowed for the program that read it ("by EXE");
 *  - with fp_suggester_relative(), a path below a run's one root is
 *    written relative to it, whichever root each run had.
 *
 * No rule covers a watched root, "/" or a directory above a root; a glob
 * keeps at least two fixed bytes of the name it replaces. Each
 * suggestion says how many findings it covers; they come out ordered by
 * that number, most first.
 */
#ifndef FP_SUGGEST_H
#define FP_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

#include "findings.h"
#include "policy.h"

struct fp_sugg {
	char *line; /* a policy line, "allow /tmp/cc*.s" */
	size_t count; /* findings it covers */
	unsigned char *runs; /* [nruns]: 1 where that run needed it */
};

struct fp_suggester;

/* nruns: how many runs will be fed (1 for a verdict) */
struct fp_suggester *fp_suggester_new(unsigned int nruns);
void fp_suggester_free(struct fp_suggester *s);
/* Rules for paths under a run's one watched root (when it has one) are
 * written relative to it ("allow node_modules/"), whatever the root of
 * each run fed; by default they are absolute. */
void fp_suggester_relative(struct fp_suggester *s);
/* A watched root of a run fed: no rule may cover it or a parent of it. */
int fp_suggester_root(struct fp_suggester *s, const char *root, size_t len);
/* A home directory (of the log's header): no rule covers it, nor a
 * directory right in it, when churn is collapsed. */
int fp_suggester_home(struct fp_suggester *s, const char *home, size_t len);
/* A path the current run created (it did not exist before); dir: known
 * to be a directory. Failing or not. */
int fp_suggester_created(struct fp_suggester *s, const char *path, size_t len,
			 bool dir);
/* A failing finding of the current run: what a rule would match (a path,
 * an executable or command line, a bind subject); created: a path the
 * run made. */
int fp_suggester_need(struct fp_suggester *s, enum fp_rule_target target,
		      const char *subj, size_t len, bool created);
/* The same for a read by a program: "allow read PATH by EXE". */
int fp_suggester_need_by(struct fp_suggester *s, enum fp_rule_target target,
			 const char *subj, size_t len, bool created,
			 const char *by, size_t bylen);
/* The current run has a need so far: what it created shapes only the
 * rules its needs become, and a run with none can leave them out. */
bool fp_suggester_has_needs(const struct fp_suggester *s);
/* The current run is complete: its needs become candidate rules. */
int fp_suggester_end_run(struct fp_suggester *s);
/* The rules (struct fp_sugg), most findings first. */
int fp_suggester_finish(struct fp_suggester *s, struct fp_vec *out);
void fp_suggs_free(struct fp_vec *v);
/* The needs of failing files.read, processes.signalled_outside and
 * processes.ptraced findings (suggest_sensitive.c); 0 or -ENOMEM. */
int fp_sensitive_needs(struct fp_suggester *s, const struct fp_findings *f);

#endif
