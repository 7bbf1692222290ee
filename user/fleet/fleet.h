/* SPDX-License-Identifier: GPL-2.0 */
/*
 * footprint fleet (docs/fleet.md): receipts and events of many runs in
 * ClickHouse, over its HTTP interface. init makes the tables; push sends
 * receipts and logs (a log judged first, as replay does), once per run,
 * in bounded batches, and spools what it cannot send; learn writes the
 * policy the job's last passing runs needed, generalised by the same
 * suggester as `policy learn`; new names the findings of a run that none
 * of the job's last runs had.
 */
#ifndef FP_FLEET_H
#define FP_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "creds.h"
#include "fleet_http.h"

/* fleet's exit code when the server could not be reached or refused */
#define FP_EXIT_FLEET_DOWN 3
/* the most runs learn and new look back on */
#define FP_FLEET_LAST_MAX 1000
#define FP_FLEET_LAST_DEFAULT 20

struct fp_fleet_opts {
	/* --clickhouse, --push: from a command line, so it may hold no
	 * credentials; NULL: the environment's or the credentials file's */
	const char *url;
	const char *credentials; /* --credentials FILE */
	const struct fp_creds *creds; /* whose files; NULL: this process's */
	const char *job; /* --job */
	bool events; /* push the events of logs too (--events) */
	bool quiet;
};

struct fp_fleet {
	struct fp_ch ch;
	const struct fp_creds *creds;
	const char *job;
	bool events, quiet;
	char *spool; /* where a push that failed goes */
	size_t batch_bytes; /* rows per INSERT, at most */
	/* what push did */
	unsigned int pushed, already, spooled, failed;
	uint64_t events_pushed; /* of the last document pushed */
};

/*
 * The URL and credentials of o (fleet_conf.c), connected. 0, or
 * FP_EXIT_USAGE after one line on stderr.
 */
int fp_fleet_open(struct fp_fleet *fl, const struct fp_fleet_opts *o);
void fp_fleet_close(struct fp_fleet *fl);

/*
 * fleet init: the tables on each of urls (several: the nodes of
 * cluster). An exit code, after a line per node.
 */
int fp_fleet_init(const struct fp_fleet_opts *o, const char *const *urls,
		  size_t n, const char *cluster, bool events);

/* fleet push FILE... (receipts, logs, spooled entries): an exit code */
int fp_fleet_push_files(struct fp_fleet *fl, char *const *files, size_t n);
/* fleet push --spool DIR: everything spooled there; an exit code */
int fp_fleet_push_spool(struct fp_fleet *fl, const char *dir);

struct fp_run;
struct fp_findings;
struct fp_verdict;
struct fp_outcome;
/*
 * run --push and replay --push: the run as judged, its receipt rendered
 * as the receipt file is. 0 pushed (or spooled: said on stderr), or -1
 * after a line: it is neither in the store nor in the spool.
 */
int fp_fleet_push_judged(const struct fp_fleet_opts *o,
			 const struct fp_run *run, const struct fp_findings *f,
			 const struct fp_verdict *v,
			 const struct fp_outcome *out);
/* sidecar stop --push: the receipt the daemon wrote into fd. As above. */
int fp_fleet_push_receipt_fd(const struct fp_fleet_opts *o, int fd,
			     const char *user);

/* fleet learn: the policy into path ("-": stdout); an exit code */
int fp_fleet_learn(struct fp_fleet *fl, const char *job, unsigned int last,
		   const char *path);
/* fleet new: what file's run has that none of the job's last runs had */
int fp_fleet_new(struct fp_fleet *fl, const char *job, unsigned int last,
		 const char *file, bool json);

#endif
