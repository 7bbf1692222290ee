// SPDX-License-Identifier: GPL-2.0
/* footprint shape diff: gate on the drift between two runtime shapes. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "creds.h"
#include "jsonin.h"
#include "run_args.h"
#include "shape_cmd.h"
#include "shape_report.h"
#include "userfile.h"
#include "longopts.h"

#define SHAPE_FILE_MAX (64 << 20)
#define POLICY_FILE_MAX (1 << 20)

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: footprint shape diff BEFORE AFTER [--policy FILE] [-o FILE] [-q]\n"
		"\n"
		"Compare two shapes from `footprint shape`: seed 002's four booleans\n"
		"(cap_eff_changed, no_new_privs_changed, sockets_changed,\n"
		"mounts_changed) and more (seccomp, namespaces, unit properties, the\n"
		"executable, the main process's ids and command), each with its exact\n"
		"deltas. The diff (JSON) goes to stdout or FILE; the triage table\n"
		"(changed field, likely meaning, required action) goes to stderr.\n"
		"\n"
		"Options:\n"
		"  --policy FILE   drift to allow, one rule a line ('#' comments):\n"
		"                    allow cap CAP_NET_BIND_SERVICE\n"
		"                    allow listen tcp/127.0.0.1:8080\n"
		"                    allow mount /var/tmp/shape-demo rw   (ro: read-only)\n"
		"                    allow no_new_privs | allow seccomp | allow exe\n"
		"                    allow namespace mnt | allow property PrivateTmp\n"
		"                    allow process   (uids, gids, argv of the main process)\n"
		"  -o, --output FILE  write the diff there instead of stdout\n"
		"  -q, --quiet     no table on stderr\n"
		"  -h, --help      show this help\n"
		"\n"
		"Examples:\n"
		"  footprint shape diff before.json after.json\n"
		"  footprint shape diff before.json after.json --policy shape.policy -o d.json\n"
		"\n"
		"Exit status: 0 no drift, or only allowed drift; 1 drift the policy\n"
		"does not allow, or a shape is incomplete; 2 usage or input error.\n");
}

struct diff_opts {
	const char *before, *after, *policy, *output;
	bool quiet;
};

const struct option fp_shape_diff_longopts[] = {
	{ "policy", required_argument, NULL, 'p' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int diff_args(int argc, char **argv, struct diff_opts *o)
{
	static struct fp_positionals pos;
	int c, at;

	memset(&pos, 0, sizeof(pos));
	fp_opts_start();
	while ((c = fp_next_opt_any_order(argc, argv, "-:o:qh",
					  fp_shape_diff_longopts, &at, &pos)) !=
	       -1) {
		switch (c) {
		case 'p':
			o->policy = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			return FP_ARGS_HELP;
		default:
			return fp_bad_option("shape diff", c, argv[at]);
		}
	}
	if (pos.n != 2)
		return fp_usage_error("shape diff",
				      "give two shapes: BEFORE AFTER");
	o->before = pos.v[0];
	o->after = pos.v[1];
	return 0;
}

/* the whole file, read as the invoking user */
static int slurp(const char *path, const char *what, size_t max, char **out,
		 size_t *len)
{
	struct fp_creds c;
	char err[PATH_MAX + 256];
	size_t cap = max + 1;
	ssize_t n;
	int fd;

	if (fp_creds_invoker(&c, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	fd = fp_input_open(&c, what, path, max, err, sizeof(err));
	fp_creds_free(&c);
	if (fd < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	*out = malloc(cap);
	*len = 0;
	while (*out && (n = read(fd, *out + *len, cap - *len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (*len += n) > max)
			break;
	}
	close(fd);
	if (*out && *len <= max && n == 0) {
		(*out)[*len] = '\0';
		return 0;
	}
	fprintf(stderr, "footprint: shape diff: cannot read %s %s (%s)\n", what,
		path, *len > max ? "too large" : "read error");
	free(*out);
	return -1;
}

static int load_shape(const char *path, struct fp_jv *v)
{
	char err[256], *buf;
	size_t len;
	int ret;

	if (slurp(path, "the shape", SHAPE_FILE_MAX, &buf, &len))
		return -1;
	ret = fp_json_parse(buf, len, v, err, sizeof(err));
	free(buf);
	if (ret)
		fprintf(stderr,
			"footprint: shape diff: %s is not JSON (%s); make it with `footprint shape`\n",
			path, err);
	return ret;
}

static int load_policy(const char *path, struct fp_shape_policy *p)
{
	char err[512], *buf;
	size_t len;
	int ret;

	if (!path)
		return fp_shape_policy_parse("", 0, p, err, sizeof(err));
	if (slurp(path, "the policy", POLICY_FILE_MAX, &buf, &len))
		return -1;
	ret = fp_shape_policy_parse(buf, len, p, err, sizeof(err));
	free(buf);
	if (ret)
		fprintf(stderr, "footprint: shape diff: %s: %s\n", path, err);
	return ret;
}

int fp_shape_policy_text(const char *path, char **text)
{
	struct fp_shape_policy p;
	char err[512], *buf;
	size_t len;

	if (slurp(path, "the shape policy", POLICY_FILE_MAX, &buf, &len))
		return FP_EXIT_USAGE;
	/* the text is what the log keeps and replay parses again */
	if (fp_shape_policy_parse(buf, len, &p, err, sizeof(err))) {
		fprintf(stderr, "footprint: run: %s: %s\n", path, err);
		free(buf);
		return FP_EXIT_USAGE;
	}
	fp_shape_policy_free(&p);
	*text = buf;
	return 0;
}

static int diff_files(const struct diff_opts *o)
{
	struct fp_jv b = { 0 }, a = { 0 };
	struct fp_shape_policy pol = { 0 };
	struct fp_shape_diff d;
	char err[256];
	FILE *out;
	int ret = FP_EXIT_USAGE;

	if (load_shape(o->before, &b) || load_shape(o->after, &a) ||
	    load_policy(o->policy, &pol))
		goto out;
	if (fp_shape_diff(&b, &a, &pol, &d, err, sizeof(err))) {
		fprintf(stderr, "footprint: shape diff: %s\n", err);
		goto out;
	}
	out = fp_shape_output(o->output, "the diff");
	if (out) {
		fp_shape_diff_json(out, &d, &pol);
		ret = fp_shape_close(out, o->output, "the diff");
		if (!ret && !o->quiet)
			fp_shape_diff_summary(stderr, &d, &pol);
		if (!ret && !d.ok)
			ret = FP_EXIT_VERDICT;
	}
	fp_shape_diff_free(&d);
out:
	fp_jv_free(&b);
	fp_jv_free(&a);
	fp_shape_policy_free(&pol);
	return ret;
}

int cmd_shape_diff(int argc, char **argv)
{
	struct diff_opts o = { 0 };
	int ret = diff_args(argc, argv, &o);

	if (ret == FP_ARGS_HELP) {
		usage(stdout);
		return 0;
	}
	return ret ? ret : diff_files(&o);
}
