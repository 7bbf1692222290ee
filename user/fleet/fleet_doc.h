/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What push sends: a receipt's bytes (a file mapped, or a log's receipt
 * rendered into an unnamed temporary file, so that neither is held in
 * memory), with what is known of where and when the run was when the
 * receipt does not say (its log's header, or the time of the push).
 */
#ifndef FP_FLEET_DOC_H
#define FP_FLEET_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "creds.h"

struct fp_fleet_origin {
	char *host, *user, *version, *kernel; /* NULL: unknown */
	uint32_t uid;
	int64_t start_ns, end_ns; /* 0: unknown */
	char from[8]; /* "log", "file", "push" */
};

struct fp_fleet_doc {
	char *name; /* as the user named it, for messages */
	int fd;
	void *map;
	size_t maplen;
	const char *receipt; /* in map */
	size_t len;
	struct fp_fleet_origin origin;
	char *job; /* a spooled entry's */
	char *log; /* a log's path, for --events */
	/* a spooled entry: its name in the spool directory */
	int spool_dirfd;
	char *spool_name;
};

#define FP_FLEET_SPOOL_MAGIC "footprint-spool 1 "

struct fp_run;
struct fp_findings;
struct fp_verdict;
struct fp_outcome;

/* The judged run's receipt, rendered. 0, or -1 after a line. */
int fp_fleet_doc_judged(struct fp_fleet_doc *d, const char *name,
			const struct fp_run *run, const struct fp_findings *f,
			const struct fp_verdict *v,
			const struct fp_outcome *out);
/*
 * path: a receipt, a log (judged as replay does) or a spooled entry,
 * opened as c, never through a link. 0, or FP_EXIT_USAGE after a line.
 */
int fp_fleet_doc_file(struct fp_fleet_doc *d, const char *path,
		      const struct fp_creds *c);
/* The receipt in fd (read from its start); taken. 0, or -1 after a line */
int fp_fleet_doc_fd(struct fp_fleet_doc *d, int fd, const char *name);
/* A spooled entry, fd open on it (taken): header and receipt. */
int fp_fleet_doc_spooled(struct fp_fleet_doc *d, int fd, const char *name);
void fp_fleet_doc_free(struct fp_fleet_doc *d);
void fp_fleet_origin_free(struct fp_fleet_origin *o);

#endif
