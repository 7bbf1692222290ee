// SPDX-License-Identifier: GPL-2.0
/*
 * A log whose snapshot outgrows the memory it may have: the load fails
 * with -ENOMEM and the run it filled so far is still freed whole (the
 * array it grew is not lost to a failed realloc).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evlog.h"
#include "logcodec.h"
#include "logrun.h"
#include "run.h"

/* glibc's own, under the realloc this file puts in front of it */
extern void *__libc_realloc(void *p, size_t n);

static size_t fail_size; /* a realloc to exactly this many bytes fails */

void *realloc(void *p, size_t n)
{
	if (fail_size && n == fail_size)
		return NULL;
	return __libc_realloc(p, n);
}

#define ENTRIES 300 /* past the first 256 the load makes room for */

static void write_log(const char *path, int fd)
{
	struct fp_enc enc = { 0 };
	struct fp_log_sink s = { .enc = &enc };
	struct fp_run run;
	struct fp_fs_snapshot *fs = &run.fs[FP_PHASE_BEFORE];
	char err[600], name[64];
	size_t i;

	cr_assert_eq(fp_run_init(&run), 0);
	cr_assert_eq(fp_run_add_str(&run.argv, &(size_t){ 0 }, "true"), 0);
	cr_assert_eq(fp_run_add_str(&run.roots, &run.nroots, "/w"), 0);
	fs->e = calloc(ENTRIES, sizeof(*fs->e));
	cr_assert_not_null(fs->e);
	for (i = 0; i < ENTRIES; i++) {
		snprintf(name, sizeof(name), "/w/f%03zu", i);
		fs->e[i].path.data = strdup(name);
		fs->e[i].path.len = strlen(name);
		fs->e[i].type = 'f';
		fs->n++;
	}
	run.have_snap[FP_PHASE_BEFORE] = true;
	cr_assert_eq(fp_evlog_open(&s.w, fd, path, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(fp_log_header(&s, &run), 0);
	cr_assert_eq(fp_log_snapshot(&s, &run, FP_PHASE_BEFORE, true, true), 0);
	cr_assert_eq(fp_evlog_close(&s.w), 0);
	fp_enc_free(&enc);
	fp_run_free(&run);
}

Test(logrun_oom, a_failed_grow_keeps_what_was_loaded)
{
	char path[] = "/tmp/fp-logrun-oom-XXXXXX", err[600];
	struct fp_run back;
	int fd = mkstemp(path), ret;

	cr_assert_geq(fd, 0);
	write_log(path, fd);
	cr_assert_eq(fp_run_init(&back), 0);
	/* the second grow of the before snapshot's entries: 256 are in */
	fail_size = 512 * sizeof(struct fp_fentry);
	ret = fp_log_load(path, &back, NULL, NULL, err, sizeof(err));
	fail_size = 0;
	unlink(path);
	cr_assert_neq(ret, 0, "the load could not have had its memory");
	cr_assert_not_null(back.fs[FP_PHASE_BEFORE].e,
			   "the entries loaded so far were lost");
	cr_assert_geq(back.fs[FP_PHASE_BEFORE].n, 256);
	/* frees every entry it holds: the old code crashed here */
	fp_run_free(&back);
}
