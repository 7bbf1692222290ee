// SPDX-License-Identifier: GPL-2.0
/* footprint attest: an in-toto link or statement of a recorded run. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attest_job.h"
#include "cli.h"
#include "logrun.h"
#include "longopts.h"
#include "run_args.h"
#include "userfile.h"

static void attest_usage(FILE *f)
{
	fprintf(f,
		"Usage: footprint attest --key KEY --name STEP [-o FILE] [OPTIONS] RECEIPT|LOG\n"
		"\n"
		"Turn a run into signed in-toto metadata that in-toto-verify checks\n"
		"against a layout (docs/attest.md): the step's materials are the files\n"
		"under the roots that the run read as they were before it, with the\n"
		"sha256 of what it read; its products the files it added or changed,\n"
		"with their sha256 after it; paths are relative to the root (to the\n"
		"roots' common directory when there are several). A file the run made\n"
		"and read again is a product, not a material. The command, the exit\n"
		"code, the verdict and the receipt's sha256 go with them. A run whose\n"
		"verdict failed is attested too, saying so, unless --attest-only-ok.\n"
		"\n"
		"RECEIPT is a receipt footprint wrote (--receipt); LOG a log it\n"
		"recorded (--record), judged again with its own policy as `footprint\n"
		"replay` does, so the receipt hashed is the live one byte for byte.\n"
		"\n"
		"Options:\n"
		"  -k, --key KEY        the private key: in-toto-keygen's RSA key (PEM,\n"
		"                       signed rsassa-pss-sha256) or ed25519 key (JSON),\n"
		"                       unencrypted\n"
		"  -n, --name STEP      the step's name in the layout\n"
		"  -o, --output FILE    write it to FILE (- for stdout); default: the name\n"
		"                       in-toto-verify looks for in the current directory,\n"
		"                       STEP.KEYID8.link (STEP.KEYID8.intoto.jsonl for a\n"
		"                       statement)\n"
		"      --format FORMAT  link (default): in-toto link metadata; statement:\n"
		"                       an in-toto Statement with a SLSA provenance v1\n"
		"                       predicate, in a DSSE envelope (one JSON line)\n"
		"      --materials-all  the materials are every file of the before\n"
		"                       snapshot, not only those read (a LOG only)\n"
		"      --attest-only-ok refuse (exit 1) a run whose verdict failed\n"
		"  -q, --quiet          no line on stderr when it is written\n"
		"  -h, --help           show this help\n"
		"\n"
		"The key is read with your rights and never through a symbolic link.\n"
		"`footprint run --attest KEY --attest-name STEP` and `footprint sidecar\n"
		"stop --attest KEY --attest-name STEP` write the same at the end of a run.\n"
		"\n"
		"Examples:\n"
		"  in-toto-keygen -t ed25519 builder\n"
		"  sudo footprint run --record build.fplog -- make\n"
		"  footprint attest --key builder --name build build.fplog\n"
		"  footprint attest -k builder -n build --format statement r.json\n"
		"  in-toto-verify --layout root.layout --layout-key alice.pub\n"
		"\n"
		"Exit status: 0 written; 1 the run cannot be attested as asked (its\n"
		"verdict failed with --attest-only-ok; a product or material could\n"
		"not be hashed, or is not named in UTF-8; more reads than a receipt\n"
		"lists); 2 usage or input error (the key, the receipt or the log); 125\n"
		"the file could not be written.\n");
}

const struct option fp_attest_longopts[] = {
	{ "key", required_argument, NULL, FP_OPT_ATTEST },
	{ "name", required_argument, NULL, FP_OPT_ATTEST_NAME },
	{ "output", required_argument, NULL, FP_OPT_ATTEST_OUT },
	{ "format", required_argument, NULL, FP_OPT_ATTEST_FORMAT },
	{ "attest-only-ok", no_argument, NULL, FP_OPT_ATTEST_ONLY_OK },
	{ "materials-all", no_argument, NULL, FP_OPT_ATTEST_MATERIALS_ALL },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse(int argc, char **argv, struct fp_attest_args *a,
		 const char **input)
{
	struct fp_positionals pos = { 0 };
	int c, taken, at;

	fp_opts_start();
	while ((c = fp_next_opt_any_order(argc, argv, "-:k:n:o:qh",
					  fp_attest_longopts, &at, &pos)) !=
	       -1) {
		if (c == 'k')
			c = FP_OPT_ATTEST;
		else if (c == 'n')
			c = FP_OPT_ATTEST_NAME;
		else if (c == 'o')
			c = FP_OPT_ATTEST_OUT;
		taken = fp_attest_args_take(a, "attest", c, optarg);
		if (taken < 0)
			return -taken;
		if (taken)
			continue;
		if (c == 'q')
			a->quiet = true;
		else if (c == 'h')
			return FP_ARGS_HELP;
		else
			return fp_bad_option("attest", c, argv[at]);
	}
	if (!a->key)
		return fp_usage_error("attest",
				      "give the private key: --key KEY");
	if (!a->name)
		return fp_usage_error("attest",
				      "give the step's name: --name STEP");
	if (pos.n != 1)
		return fp_usage_error("attest",
				      "give exactly one RECEIPT or LOG file");
	*input = pos.v[0];
	return 0;
}

/* a receipt: its bytes, attested as they are */
static int attest_receipt(struct fp_attest_job *j, int fd, const char *path)
{
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	ssize_t n;
	int rc;

	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fprintf(stderr, "footprint: out of memory\n");
				return FP_EXIT_NOTRACE;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n <= 0)
			break;
		len += n;
		if (len > FP_ATTEST_RECEIPT_MAX) {
			fprintf(stderr,
				"footprint: %s is larger than %u MiB, more than a receipt footprint writes; attest the run's log\n",
				path, FP_ATTEST_RECEIPT_MAX >> 20);
			free(buf);
			return FP_EXIT_USAGE;
		}
	}
	if (n < 0) {
		fprintf(stderr, "footprint: cannot read %s: %s\n", path,
			strerror(errno));
		free(buf);
		return FP_EXIT_USAGE;
	}
	rc = fp_attest_job_receipt(j, buf, len, NULL);
	free(buf);
	return rc;
}

/* a log: judged again as replay does, then its receipt attested */
static int attest_log(struct fp_attest_job *j, int fd, const char *path)
{
	struct fp_run run;
	struct fp_policy pol = { 0 };
	struct fp_findings f = { 0 };
	struct fp_verdict v = { 0 };
	struct fp_outcome o;
	char err[1600];
	int ret, rc = FP_EXIT_USAGE;

	if (fp_run_init(&run)) {
		close(fd);
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_NOTRACE;
	}
	ret = fp_log_load_fd(fd, AT_FDCWD, path, path, &run, NULL, NULL, err,
			     sizeof(err));
	if (ret && ret != -ENODATA) {
		fprintf(stderr, "%s\n", err);
		goto out;
	}
	if (ret == -ENODATA)
		fprintf(stderr, "footprint: %s: %s; the verdict fails\n", path,
			run.incomplete_why);
	if (fp_run_policy(&run, &pol, err, sizeof(err))) {
		fprintf(stderr, "footprint: %s: the recorded policy: %s\n",
			path, err);
		goto out;
	}
	if (fp_run_judge(&run, &pol, &f, &v, &o)) {
		fprintf(stderr, "footprint: out of memory while reconciling\n");
		rc = FP_EXIT_NOTRACE;
		goto out;
	}
	rc = fp_attest_job_run(j, &run, &f, &v, &o);
out:
	fp_verdict_free(&v);
	fp_findings_free(&f);
	fp_policy_free(&pol);
	fp_run_free(&run);
	return rc;
}

int cmd_attest(int argc, char **argv)
{
	struct fp_attest_args a = { 0 };
	struct fp_attest_job j = FP_ATTEST_JOB_INIT;
	const char *input = NULL;
	char err[PATH_MAX + 256], magic[8];
	int rc, fd;

	rc = parse(argc, argv, &a, &input);
	if (rc == FP_ARGS_HELP) {
		attest_usage(stdout);
		return FP_EXIT_OK;
	}
	if (rc)
		return rc;
	rc = fp_attest_job_prepare(&j, &a, NULL);
	if (rc)
		goto out;
	fd = fp_input_open(NULL, "the receipt or log", input, SIZE_MAX, err,
			   sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "%s\n", err);
		rc = FP_EXIT_USAGE;
		goto out;
	}
	if (pread(fd, magic, sizeof(magic), 0) == sizeof(magic) &&
	    !memcmp(magic, "FPRINTLG", 8)) {
		rc = attest_log(&j, fd, input); /* fd is taken */
	} else if (a.materials_all) {
		close(fd);
		rc = fp_usage_error(
			"attest",
			"--materials-all needs the run's before snapshot: give its log (--record), not a receipt");
	} else {
		rc = attest_receipt(&j, fd, input);
		close(fd);
	}
out:
	fp_attest_job_free(&j);
	return rc;
}
