/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A receipt (docs/receipt.schema.json) as fleet's rows: the run, and one
 * finding per entry of its lists. The receipt is walked, never held as
 * one tree: its top-level fields are read first, then each list entry is
 * parsed alone, turned into a row and freed, so a receipt of any size
 * takes the memory of its largest entry. What a receipt does not say is
 * read the way the schema documents it (which entries fail the verdict),
 * and each finding gets the rule subject `policy learn` would feed the
 * suggester (suggest.h), so that fleet learn generalises the same way.
 */
#ifndef FP_FLEET_RECEIPT_H
#define FP_FLEET_RECEIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "severity.h"

/* the run id: 32 hex digits and a NUL */
#define FP_FLEET_ID_LEN 33

struct fp_fleet_run {
	bool ok, sidecar, timed_out, complete;
	uint32_t steps;
	int32_t exit_code; /* -1: none (signalled, not run) */
	int32_t signal; /* 0: none */
	uint64_t events, lost, duration_ms;
	char *command; /* argv, NUL-separated */
	size_t command_len;
	char *roots; /* NUL-separated */
	size_t roots_len;
	bool roots_b64; /* they came from "roots_b64" */
	/* "provenance" (when the receipt has it) */
	bool have_provenance;
	char *version, *host, *kernel, *user;
	uint32_t uid;
	char *started, *ended; /* RFC 3339 as written; NULL: none */
	int64_t start_ms, end_ms; /* -1: unknown */
	/* from the findings */
	uint32_t findings, failing;
	uint32_t failing_by[FP_SEV_CRITICAL + 1]; /* by enum fp_severity */
	unsigned char sha256[32];
	char sha256_hex[65];
	char id[FP_FLEET_ID_LEN];
};

struct fp_fleet_finding {
	uint32_t seq; /* its place in the receipt, from 0 */
	char kind[48]; /* "files.read" */
	enum fp_severity severity;
	uint32_t step; /* step_index; 0: none */
	char *step_name;
	size_t step_name_len;
	char *path; /* a path or an executable; NULL for none */
	size_t path_len;
	char *destination; /* "tcp/example.com:443", a DNS name */
	char *address; /* network: the address as printed */
	uint16_t port;
	char *secret; /* files.read: the secret's class */
	char *detail; /* changes, ops, a syscall, a tamper kind, errno */
	int32_t pid; /* the process responsible; 0: none */
	char *exe;
	size_t exe_len;
	char *argv; /* NUL-separated */
	size_t argv_len;
	/* its row in the receipt's process_table when the actor names one
	 * instead of an argv (format 2), else -1 */
	int64_t proc;
	bool allowed, forbidden, failing;
	char *rule;
	/* what a rule allowing it would match (fp_suggester_need) */
	bool has_target;
	enum fp_rule_target target;
	char *subject;
	size_t subject_len;
	bool created, dir; /* a path the run made; known to be a directory */
};

typedef int (*fp_fleet_finding_fn)(void *ctx, const struct fp_fleet_finding *f);

/*
 * The run's fields of the receipt in buf (its bytes, len long), its
 * SHA-256 and its id. 0, or -1 with err filled (not a receipt).
 */
int fp_fleet_receipt_run(const char *buf, size_t len, struct fp_fleet_run *run,
			 char *err, size_t errlen);
/*
 * Every finding of the receipt, in receipt order, to fn (which may stop
 * the walk by returning non-zero: that value is returned); run's counts
 * are filled on the way. processes.executed (every exec, in each
 * process list already) is no finding here. 0, fn's value, -ENOMEM, or
 * -EBADMSG with err filled.
 */
int fp_fleet_receipt_findings(const char *buf, size_t len,
			      struct fp_fleet_run *run, fp_fleet_finding_fn fn,
			      void *ctx, char *err, size_t errlen);
void fp_fleet_run_free(struct fp_fleet_run *run);

struct fp_jv;
/* fleet_finding.c: the finding of kind that entry is. 0 or -ENOMEM */
int fp_fleet_finding_of(struct fp_fleet_finding *f, const char *kind,
			const struct fp_jv *entry);
void fp_fleet_finding_free(struct fp_fleet_finding *f);
/* the rule target's name in a policy line, and back: "path", "read" */
const char *fp_fleet_target_name(enum fp_rule_target t);
int fp_fleet_target_parse(const char *s, size_t len, enum fp_rule_target *t);

#endif
