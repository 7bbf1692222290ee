/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fleet's tables (docs/fleet.md): one row per run, per finding and, when
 * asked, per event. Written for ClickHouse 18.16 (Debian 12's) and
 * current servers alike: ReplacingMergeTree keyed on the run id (a row
 * pushed twice is one row once merged; the push also looks before it
 * inserts), DateTime in seconds, no LowCardinality, no DateTime64, no
 * ON CLUSTER. With a cluster, each node gets NAME_local tables and a
 * Distributed NAME over them, sharded by the run id, so that one run's
 * rows are on one shard.
 */
#ifndef FP_FLEET_SCHEMA_H
#define FP_FLEET_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "fleet_http.h"

struct fp_fleet_col {
	const char *name, *type;
};

struct fp_fleet_table {
	const char *name; /* "footprint_runs" */
	const struct fp_fleet_col *cols;
	size_t ncols;
	const char *order_by;
};

enum { FP_TABLE_RUNS, FP_TABLE_FINDINGS, FP_TABLE_EVENTS, FP_TABLE_N };

extern const struct fp_fleet_table fp_fleet_tables[FP_TABLE_N];

/* "INSERT INTO t (c1, c2, ...) FORMAT RowBinary", malloc'd */
char *fp_fleet_insert_sql(unsigned int table);

/*
 * Create the tables on the server c is (the events table too with
 * events), as Distributed tables over NAME_local ones with cluster.
 * Idempotent; a table that exists with another engine or without a
 * column this footprint writes is an error. 0, or -1 with c->err.
 */
int fp_fleet_init_node(struct fp_ch *c, const char *cluster, bool events);

#endif
