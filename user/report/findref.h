/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The findings as the reports walk them: by category ("files.added",
 * "tamper", ...), by step, and as one line of text each. Shared by the
 * receipt's steps section, the stderr summary, the markdown job summary
 * and the GitHub annotations, so they all count the same way.
 */
#ifndef FP_FINDREF_H
#define FP_FINDREF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "findings.h"

/* tamper first (it fails whatever the rules say), then files, processes,
 * network, each list in receipt order */
enum {
	FP_CAT_TAMPER = 0,
	FP_CAT_FILES = 1,
	FP_CAT_READ = FP_CAT_FILES + FP_F_NLISTS, /* files.read */
	FP_CAT_PROCS = FP_CAT_READ + 1,
	FP_CAT_PRIV = FP_CAT_PROCS + FP_P_NLISTS, /* processes.privileged */
	FP_CAT_SIGNALLED = FP_CAT_PRIV + 1, /* processes.signalled_outside */
	FP_CAT_PTRACED = FP_CAT_SIGNALLED + 1,
	FP_CAT_NET = FP_CAT_PTRACED + 1, /* bound, listening */
	FP_CAT_CONNECTED = FP_CAT_NET + FP_N_NLISTS,
	FP_CAT_ACCEPTED = FP_CAT_CONNECTED + 1,
	FP_CAT_DNS = FP_CAT_ACCEPTED + 1,
	/* files.setuid, processes.mounts, namespaces, fileless_exec, by
	 * enum fp_procop_kind (core/procops.h): after the others */
	FP_CAT_PROCOPS = FP_CAT_DNS + 1,
	FP_NCAT = FP_CAT_PROCOPS + 4,
};

static inline bool fp_cat_is_procop(unsigned int cat)
{
	return cat >= FP_CAT_PROCOPS && cat < FP_NCAT;
}

/* a category of one of fp_findings.files, .procs (or privileged), .net */
static inline bool fp_cat_is_file(unsigned int cat)
{
	return cat >= FP_CAT_FILES && cat < FP_CAT_READ;
}

static inline bool fp_cat_is_proc(unsigned int cat)
{
	return cat >= FP_CAT_PROCS && cat <= FP_CAT_PRIV;
}

static inline bool fp_cat_is_bind(unsigned int cat)
{
	return cat >= FP_CAT_NET && cat < FP_CAT_CONNECTED;
}

/* one finding: its category, its index in that list, its step (0: none),
 * and (fp_frefs_ranked) its severity and its step's most severe */
struct fp_fref {
	unsigned int step;
	unsigned int cat;
	size_t i;
	unsigned char sev, step_sev; /* enum fp_severity */
};

/* a finding of a processes category (fp_cat_is_proc) */
const struct fp_proc_finding *fp_fref_proc(const struct fp_findings *fi,
					   unsigned int cat, size_t i);
struct fp_read_finding;
struct fp_signal_finding;
struct fp_conn_finding;
struct fp_dns_finding;
/* the finding of a files.read, processes.signalled_outside or ptraced,
 * network.connected or accepted, network.dns category */
const struct fp_read_finding *fp_fref_read(const struct fp_findings *fi,
					   size_t i);
const struct fp_signal_finding *fp_fref_signal(const struct fp_findings *fi,
					       unsigned int cat, size_t i);
const struct fp_conn_finding *fp_fref_conn(const struct fp_findings *fi,
					   unsigned int cat, size_t i);
const struct fp_dns_finding *fp_fref_dns(const struct fp_findings *fi,
					 size_t i);
/* "tamper", "files.added", "processes.leftover", "network.bound" */
const char *fp_cat_name(unsigned int cat, char *buf, size_t len);
size_t fp_cat_len(const struct fp_findings *fi, unsigned int cat);
unsigned int fp_fref_step(const struct fp_findings *fi, unsigned int cat,
			  size_t i);
bool fp_fref_failing(const struct fp_findings *fi, unsigned int cat, size_t i);

/*
 * The failing findings in category order; with by_step, grouped by step
 * (steps in order, then those of no step), keeping that order within a
 * step. out holds struct fp_fref. 0 or -ENOMEM.
 */
int fp_frefs_failing(const struct fp_findings *fi, bool by_step,
		     struct fp_vec *out);
struct fp_sevmap;
/*
 * The same, most severe first (severity.h, as m sets it), then in
 * category order. With by_step, grouped by step, the step of the most
 * severe finding first (steps in order among equals), most severe first
 * within a step: the first line a reviewer reads is the worst.
 */
int fp_frefs_ranked(const struct fp_findings *fi, const struct fp_sevmap *m,
		    bool by_step, struct fp_vec *out);

/* per step (index 0: no step), per category: findings, and failing ones */
struct fp_step_count {
	size_t n[FP_NCAT];
	size_t failing[FP_NCAT];
	size_t failing_all;
};

/* steps.n + 1 counts, or NULL on ENOMEM; free() it */
struct fp_step_count *fp_step_counts(const struct fp_findings *fi);

/* The valid UTF-8 sequence at s: its length and code point; 0 if none. */
size_t fp_utf8_decode(const unsigned char *s, size_t left, uint32_t *cp);
/* Invisible or layout-changing characters a name could hide behind: C1
 * controls, zero-width ones, bidi overrides, line separators, BOM. */
bool fp_cp_sneaky(uint32_t cp);

/* A growing byte buffer; err once an allocation failed. */
struct fp_sbuf {
	char *p;
	size_t len, cap;
	bool err;
};

void fp_sbuf_add(struct fp_sbuf *b, const char *s, size_t len);
void fp_sbuf_str(struct fp_sbuf *b, const char *s);
void fp_sbuf_printf(struct fp_sbuf *b, const char *f, ...)
	__attribute__((format(printf, 2, 3)));
void fp_sbuf_free(struct fp_sbuf *b);
/* at most max bytes of s, "..." when cut */
void fp_sbuf_cut(struct fp_sbuf *b, const char *s, size_t len, size_t max);
/* "pid N argv..." with the arguments joined by spaces */
void fp_sbuf_actor(struct fp_sbuf *b, const struct fp_actor *a, size_t max);

/*
 * What a finding is, in raw bytes (paths and argv as they are, for the
 * caller to escape): "/etc/x by pid 12 sh -c ...", "pid 7 sleep 30",
 * "tcp/0.0.0.0:80 by pid 9", "SIGTERM to footprint's pid 3 by pid 8". At
 * most about max bytes of each path or command line.
 */
void fp_fref_describe(const struct fp_findings *fi, const struct fp_fref *r,
		      size_t max, struct fp_sbuf *out);

/* fp_fref_describe() of files.read, processes.signalled_outside and
 * ptraced, network.connected, accepted and dns (findref_more.c) */
void fp_fref_describe_more(const struct fp_findings *fi,
			   const struct fp_fref *r, size_t max,
			   struct fp_sbuf *out);

#endif
