// SPDX-License-Identifier: GPL-2.0
/*
 * footprint lock: freeze a tree's inputs (--inputs ROOT), or a scratch
 * run's outputs from its receipt (docs/scratch.md). Runs as the invoking
 * user (main.c drops sudo's root before anything is opened).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "lock.h"
#include "lock_output.h"
#include "lockfile.h"
#include "lockjv.h"
#include "say_bytes.h"
#include "userfile.h"
#include "run_args.h"
#include "longopts.h"

struct lock_opts {
	const char *inputs, *out;
	bool skip_disallowed;
	struct fp_positionals pos;
};

static void lock_usage(FILE *f)
{
	fprintf(f,
		"Usage: footprint lock --inputs ROOT -o FILE\n"
		"       footprint lock RECEIPT -o FILE [--skip-disallowed]\n"
		"\n"
		"Freeze the inputs of a job: the mode (octal) and SHA-256 of every\n"
		"entry under ROOT and one hash over the tree (footprint run\n"
		"--inputs-lock checks it). Or lock the outputs of a scratch run\n"
		"(footprint run --scratch) from its receipt: every change the box\n"
		"holds (added, changed, removed) with its mode and SHA-256, the tree\n"
		"it started from, and the skipped paths; footprint promote applies\n"
		"exactly that. A passing receipt is locked whole, however its files\n"
		"were edited (sed -i, a temporary file renamed over the original). A\n"
		"failing receipt is refused.\n"
		"\n"
		"Options:\n"
		"      --inputs ROOT      lock the tree ROOT\n"
		"  -o, --output FILE      write the lock to FILE (- for stdout)\n"
		"      --skip-disallowed  lock a failing receipt whose failing findings\n"
		"                         are all changes the scratch box held: those\n"
		"                         are recorded as skipped and never promoted.\n"
		"                         Anything else that failed really happened\n"
		"                         (a secret read, a write outside the roots, a\n"
		"                         connect, a process left running, the exit\n"
		"                         status): refused, each named by its kind\n"
		"  -h, --help             show this help\n"
		"\n"
		"Examples:\n"
		"  footprint lock --inputs job -o fixture/input.lock\n"
		"  scratch=$(mktemp -d)\n"
		"  sudo footprint run --scratch \"$scratch\" --receipt r.json --allow calc.py -- ./agent\n"
		"  footprint lock r.json --skip-disallowed -o fixture/output.lock\n"
		"  footprint promote --lock fixture/output.lock --scratch \"$scratch\"\n"
		"\n"
		"The formats: docs/input-lock.schema.json, docs/output-lock.schema.json\n"
		"(version 2; locks of version 1, with decimal modes, are still read).\n"
		"Exit status: 0 written; 1 refused (a failing receipt, an unreadable\n"
		"entry); 2 usage or input error.\n");
}

const struct option fp_lock_longopts[] = {
	{ "inputs", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "skip-disallowed", no_argument, NULL, 's' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int lock_args(int argc, char **argv, struct lock_opts *o)
{
	int c, at;

	fp_opts_start();
	while ((c = fp_next_opt_any_order(argc, argv, "-:o:h", fp_lock_longopts,
					  &at, &o->pos)) != -1) {
		if (c == 'i')
			o->inputs = optarg;
		else if (c == 'o')
			o->out = optarg;
		else if (c == 's')
			o->skip_disallowed = true;
		else if (c == 'h')
			return FP_ARGS_HELP;
		else
			return fp_bad_option("lock", c, argv[at]);
	}
	if (!o->out)
		return fp_usage_error("lock", "give the lock file: -o FILE");
	if (!!o->inputs + o->pos.n != 1)
		return fp_usage_error(
			"lock", "give either --inputs ROOT or one RECEIPT");
	if (o->inputs && o->skip_disallowed)
		return fp_usage_error(
			"lock",
			"--skip-disallowed is for a RECEIPT, not --inputs");
	return 0;
}

static void write_files(struct json_out *j, const struct fp_fs_snapshot *s,
			const char *root)
{
	size_t rlen = strlen(root), skip = rlen + (rlen > 1), i;
	char hex[65], m[8], t[2] = { 0 };

	json_field_array(j, "files");
	for (i = 0; i < s->n; i++) {
		const struct fp_fentry *e = &s->e[i];

		if (e->path.len == rlen)
			continue;
		json_begin_object(j);
		json_field_bytes(j, "path", e->path.data + skip,
				 e->path.len - skip);
		t[0] = e->type;
		json_field_str(j, "type", t);
		fp_lock_mode_str(m, e->mode);
		json_field_str(j, "mode", m);
		if (e->type == 'f') {
			fp_lock_hex(hex, e->sha256);
			json_field_str(j, "sha256", hex);
		}
		if (e->type == 'l')
			json_field_bytes(j, "target", e->target.data,
					 e->target.len);
		json_end_object(j);
	}
	json_end_array(j);
}

static int lock_inputs(const struct lock_opts *o)
{
	struct fp_creds self = { 0 };
	struct fp_fs_snapshot s;
	const struct fp_fentry *bad;
	unsigned char h[32];
	char hex[65], *root = realpath(o->inputs, NULL);
	struct json_out j = { 0 };
	int rc;

	if (!root) {
		fprintf(stderr,
			"footprint: lock: cannot open %s: %m; give an existing directory\n",
			fp_said(o->inputs));
		return FP_EXIT_USAGE;
	}
	rc = fp_lockfile_snapshot(&s, root, &self);
	if (!rc && fp_lock_tree_hash(&s, root, h, &bad)) {
		fputs("footprint: lock: ", stderr);
		if (bad)
			fp_say_bytes(stderr, bad->path.data, bad->path.len);
		fputs(" cannot be read or changed while it was hashed; fix it and lock again\n",
		      stderr);
		rc = FP_EXIT_VERDICT;
	}
	if (!rc && !(j.f = fp_outdir_fopen("the lock", o->out)))
		rc = FP_EXIT_USAGE;
	if (!rc) {
		fp_lock_hex(hex, h);
		json_begin_object(&j);
		json_field_str(&j, "lock", "inputs");
		json_field_u64(&j, "version", FP_LOCK_VERSION);
		json_field_str(&j, "root", root);
		json_field_str(&j, "root_sha256", hex);
		write_files(&j, &s, root);
		json_end_object(&j);
		fputc('\n', j.f);
		if (fflush(j.f) || (j.f != stdout && fclose(j.f))) {
			fprintf(stderr,
				"footprint: lock: writing %s failed: %m\n",
				fp_said(o->out));
			rc = FP_EXIT_USAGE;
		}
	}
	if (!rc || rc == FP_EXIT_VERDICT)
		fp_fs_snapshot_free(&s);
	free(root);
	return rc;
}

int cmd_lock(int argc, char **argv)
{
	struct lock_opts o = { 0 };
	int rc = lock_args(argc, argv, &o);

	if (rc == FP_ARGS_HELP) {
		lock_usage(stdout);
		return FP_EXIT_OK;
	}
	if (rc)
		return rc;
	if (o.inputs)
		return lock_inputs(&o);
	return fp_lock_output(o.pos.v[0], o.out, o.skip_disallowed);
}
