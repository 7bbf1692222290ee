/* SPDX-License-Identifier: GPL-2.0 */
/* Reading and writing footprint's JSON files for lock and promote. */
#ifndef FP_LOCKFILE_H
#define FP_LOCKFILE_H

#include <stdio.h>

#include "creds.h"
#include "jsonin.h"
#include "snapshot_fs.h"

#define FP_LOCK_MAX_BYTES (64u << 20)
/*
 * The version of the locks footprint writes: 2 spells modes as octal
 * strings ("0644", "4755"). Version 1 locks, with decimal modes, are
 * still read.
 */
#define FP_LOCK_VERSION 2

/* 0, or FP_EXIT_USAGE after one line naming what and path */
int fp_lockfile_read(const struct fp_creds *c, const char *what,
		     const char *path, struct fp_jv *out);
/* an input lock's object (kind "inputs") or an output lock's ("outputs"),
 * of version 1 or 2; 0 or FP_EXIT_USAGE after one line */
int fp_lockfile_kind(const struct fp_jv *v, const char *kind, const char *path);
/*
 * Snapshot root (as c) and compare it with the input lock il: 0 when it
 * matches, 1 after one line naming the first drifted path, or an exit
 * code.
 */
int fp_lockfile_check_inputs(const struct fp_jv *il, const char *root,
			     const struct fp_creds *c);
/* snapshot one root as c; 0 or FP_EXIT_USAGE after one line */
int fp_lockfile_snapshot(struct fp_fs_snapshot *s, const char *root,
			 const struct fp_creds *c);

#endif
