/* SPDX-License-Identifier: GPL-2.0 */
/* The HTML report's parts (html.h): what they share. */
#ifndef FP_HTML_INT_H
#define FP_HTML_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "jsonin.h"
#include "severity.h"

/* the page's bounds: rows past them are counted, "and N more" */
#define FP_HTML_FINDINGS_PER_SEV 50
#define FP_HTML_REASONS 10
#define FP_HTML_PROC_ROWS 2500
#define FP_HTML_CHILDREN 40
#define FP_HTML_DIRS 200
#define FP_HTML_FILES_PER_DIR 25
#define FP_HTML_FILE_ROWS 3000
#define FP_HTML_DESTS 200
#define FP_HTML_WRITERS 4
/* values a receipt may hold: as attest's bound */
#define FP_HTML_VALUES (1u << 24)

/* a failing finding: an entry of a receipt list */
struct fp_html_finding {
	const char *list; /* "files.added", "tamper", ... */
	const struct fp_jv *e;
	const struct fp_jv *by; /* who, or NULL */
	enum fp_severity sev;
	size_t order; /* in the receipt */
};

/* a process table id by pid */
struct fp_html_pid {
	int64_t pid;
	size_t id;
};

struct fp_html {
	FILE *out;
	const struct fp_jv *r; /* the receipt */
	const struct fp_jv *procs; /* process_table, or NULL */
	size_t nprocs;
	uint8_t *proc_sev; /* the worst failing finding of each, 0 none */
	uint32_t *proc_nfind;
	struct fp_html_finding *find; /* most severe first */
	size_t nfind;
	uint64_t by_sev[FP_SEV_CRITICAL + 1];
	struct fp_html_pid *by_pid; /* sorted by (pid, id) */
	char lists[64][48]; /* the names findings point to */
	size_t nlists;
};

/* html_esc.c: bytes as HTML text, lossless: invalid UTF-8 and control
 * bytes are shown as \xNN, direction overrides as \u{NNNN} */
void fp_html_text(FILE *f, const char *s, size_t len);
void fp_html_str(FILE *f, const char *s); /* a C string */
/* the exact bytes of e's key: key_b64 decoded when present, else the
 * string; *buf is freed by the caller (NULL when not decoded). false if
 * e has no such string. */
bool fp_html_bytes(const struct fp_jv *e, const char *key, const char **s,
		   size_t *len, char **buf);
/* e's key as text (exact bytes), or fallback when it has none */
void fp_html_field(FILE *f, const struct fp_jv *e, const char *key,
		   const char *fallback);
/* argv of an actor as one line, at most max bytes of it, "..." past */
void fp_html_argv(FILE *f, const struct fp_jv *actor, size_t max);
/* 1234 us as "1.2 ms" */
void fp_html_duration(FILE *f, int64_t us);

/* html_find.c: the failing findings, most severe first, and by process */
int fp_html_findings(struct fp_html *h);
/* the process table id of an actor ({"proc"} or by pid), or -1 */
long fp_html_proc_of(const struct fp_html *h, const struct fp_jv *actor);
/* what a finding is about: its path, address, name or exe */
void fp_html_subject(FILE *f, const struct fp_jv *e);
/* the actor of a list's entry: by, created_by, asked_by, or the entry */
const struct fp_jv *fp_html_actor(const char *list, const struct fp_jv *e);
/* whether an entry fails the verdict, as the schema has each list */
bool fp_html_failing(const char *list, const struct fp_jv *e);
/* the entry's own severity, else its list's */
enum fp_severity fp_html_sev(const char *list, const struct fp_jv *e);

/* the page's sections */
void fp_html_verdict(struct fp_html *h);
void fp_html_findings_section(struct fp_html *h);
int fp_html_procs_section(struct fp_html *h);
int fp_html_files_section(struct fp_html *h);
int fp_html_net_section(struct fp_html *h);
/* html_style.c: the page's <style> */
void fp_html_style(FILE *f);

#endif
