// SPDX-License-Identifier: GPL-2.0
/*
 * footprint report: a receipt, or a recorded log judged as replay judges
 * it, as one self-contained HTML page (docs/report.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "logrun.h"
#include "longopts.h"
#include "replay_cmd.h"
#include "report_hooks.h"
#include "run.h"
#include "run_args.h"
#include "userfile.h"

/* a receipt footprint writes stays far below this (its lists are
 * bounded); anything bigger is not one */
#define REPORT_INPUT_MAX (1024UL << 20)
#define LOG_MAGIC "FPRINTLG"

struct input {
	char *buf;
	size_t len;
};

static void report_usage(FILE *f)
{
	fprintf(f,
		"Usage: footprint report --html FILE RECEIPT|LOG\n"
		"\n"
		"Write one self-contained HTML page (no script, nothing fetched)\n"
		"about a run: the verdict, the findings by severity, the process\n"
		"tree with its timeline (a sidecar job's steps as lanes), the files\n"
		"grouped by directory with their writers, and the network\n"
		"destinations with their counts. The input is a receipt (the JSON of\n"
		"'footprint run -o', '-' for stdin) or a log recorded with --record,\n"
		"told apart by content: a log is judged as 'footprint replay' judges\n"
		"it, with its recorded policy. Each part of the page is bounded, so a\n"
		"long job gives a page of a few MiB at most (docs/report.md).\n"
		"\n"
		"Options:\n"
		"      --html FILE      write the page to FILE (- for stdout)\n"
		"  -h, --help           show this help\n"
		"\n"
		"Examples:\n"
		"  footprint report --html run.html job.fplog\n"
		"  sudo footprint run -o r.json -- make && footprint report --html r.html r.json\n"
		"  footprint replay -q -p today.policy -o - job.fplog |\n"
		"      footprint report --html today.html -\n"
		"\n"
		"Exit status: 0 the page was written (whatever the verdict); 2 usage\n"
		"error, an input that is neither a receipt nor a log, a damaged log,\n"
		"or the page could not be written.\n");
}

const struct option fp_report_longopts[] = {
	{ "html", required_argument, NULL, 'H' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse(int argc, char **argv, const char **html, const char **in)
{
	struct fp_positionals pos = { 0 };
	int c, at;

	fp_opts_start();
	while ((c = fp_next_opt_any_order(argc, argv, "-:h", fp_report_longopts,
					  &at, &pos)) != -1) {
		switch (c) {
		case 'H':
			*html = optarg;
			break;
		case 'h':
			return FP_ARGS_HELP;
		default:
			return fp_bad_option("report", c, argv[at]);
		}
	}
	if (!*html)
		return fp_usage_error("report",
				      "say where to write: --html FILE");
	if (pos.n != 1)
		return fp_usage_error("report",
				      "give exactly one RECEIPT or LOG");
	*in = pos.v[0];
	return 0;
}

/* all of fd, at most REPORT_INPUT_MAX bytes */
static int slurp(int fd, const char *name, struct input *in)
{
	size_t cap = 1 << 16;
	ssize_t n;
	char *b;

	in->buf = malloc(cap);
	for (;;) {
		if (!in->buf)
			goto nomem;
		if (in->len == cap) {
			if (cap >= REPORT_INPUT_MAX) {
				fprintf(stderr,
					"footprint: %s is bigger than %lu MiB: not a receipt footprint wrote\n",
					name, REPORT_INPUT_MAX >> 20);
				return -1;
			}
			cap *= 2;
			b = realloc(in->buf, cap);
			if (!b)
				goto nomem;
			in->buf = b;
		}
		n = read(fd, in->buf + in->len, cap - in->len);
		if (n == 0)
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "footprint: cannot read %s: %s\n", name,
				strerror(errno));
			return -1;
		}
		in->len += n;
	}
nomem:
	fprintf(stderr, "footprint: out of memory reading %s\n", name);
	return -1;
}

/*
 * The receipt of a log, as 'footprint replay -q -o' writes it: judged by
 * replay's core and the one report path, into memory. A failed verdict
 * still gives a receipt; no receipt is the failure.
 */
static int judge_log(const char *log, struct input *in)
{
	struct fp_report_outputs ro = FP_REPORT_OUTPUTS_INIT;
	struct fp_run run;
	struct fp_policy pol = { 0 };
	int rc = -1;

	if (fp_run_init(&run)) {
		fprintf(stderr, "footprint: out of memory\n");
		return -1;
	}
	if (fp_replay_load(log, &run, NULL, &pol))
		goto cleanup;
	ro.receipt = open_memstream(&in->buf, &in->len);
	if (!ro.receipt) {
		fprintf(stderr, "footprint: out of memory\n");
		goto cleanup;
	}
	ro.quiet = true;
	fp_replay_judged(&run, &pol, &ro);
	if (fclose(ro.receipt) || !in->buf)
		fprintf(stderr, "footprint: out of memory\n");
	else if (in->len)
		rc = 0;
cleanup:
	fp_policy_free(&pol);
	fp_run_free(&run);
	return rc;
}

/* the receipt, read or made from the log: told apart by the log's magic */
static int read_input(const char *path, struct input *in)
{
	char magic[sizeof(LOG_MAGIC) - 1];
	struct stat st;
	ssize_t n;
	int fd, rc;

	if (!strcmp(path, "-")) {
		if (slurp(STDIN_FILENO, "stdin", in))
			return -1;
		if (in->len >= sizeof(magic) &&
		    !memcmp(in->buf, LOG_MAGIC, sizeof(magic))) {
			fprintf(stderr,
				"footprint: report: a log cannot be read from stdin; give its path\n");
			return -1;
		}
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "footprint: cannot read %s: %s\n", path,
			fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	n = pread(fd, magic, sizeof(magic), 0);
	if (n == (ssize_t)sizeof(magic) && !memcmp(magic, LOG_MAGIC, n)) {
		close(fd);
		return judge_log(path, in);
	}
	rc = slurp(fd, path, in);
	close(fd);
	return rc;
}

static FILE *open_page(void *path)
{
	return fp_outdir_fopen("the HTML report", path);
}

int cmd_report(int argc, char **argv)
{
	const char *html = NULL, *path = NULL;
	struct input in = { 0 };
	int ret;

	ret = parse(argc, argv, &html, &path);
	if (ret == FP_ARGS_HELP) {
		report_usage(stdout);
		return FP_EXIT_OK;
	}
	if (ret)
		return ret;
	ret = read_input(path, &in) ?
		      FP_EXIT_USAGE :
		      fp_html_page_write(in.buf, in.len, path, html, open_page,
					 (void *)html);
	free(in.buf);
	return ret;
}
