// SPDX-License-Identifier: GPL-2.0
/*
 * footprint fleet: init, push, learn, new (docs/fleet.md). Parsing only;
 * user/fleet/ does the work.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fleet.h"
#include "longopts.h"
#include "run_args.h"

static void fleet_usage(FILE *f)
{
	fprintf(f,
		"Usage: footprint fleet init  --clickhouse URL [--clickhouse URL...] [--cluster NAME] [--events]\n"
		"       footprint fleet push  --clickhouse URL [--job NAME] [--events] FILE...\n"
		"       footprint fleet push  --clickhouse URL --spool DIR\n"
		"       footprint fleet learn --clickhouse URL --job NAME [--last N] [-o POLICY]\n"
		"       footprint fleet new   --clickhouse URL --job NAME [--last N] [--json] RECEIPT|LOG\n"
		"\n"
		"Receipts and events of many runs in ClickHouse (its HTTP interface),\n"
		"so that a platform team can ask across jobs: which read a cloud\n"
		"credential this week, which contacted a host none of its earlier runs\n"
		"did (docs/fleet.md has the tables and example queries).\n"
		"\n"
		"  init   make the tables (idempotent). With --cluster NAME, given one\n"
		"         --clickhouse URL per node: local tables on every node and a\n"
		"         Distributed table over them on each (NAME must be in each\n"
		"         node's remote_servers); no ON CLUSTER, so no ZooKeeper\n"
		"  push   receipts, recorded logs (judged first, as replay does) or\n"
		"         spooled entries; each run once, however often it is pushed.\n"
		"         What cannot be pushed is spooled ($FOOTPRINT_SPOOL, default\n"
		"         ~/.local/state/footprint/spool); --spool DIR sends it\n"
		"  learn  the policy under which the job's last N passing runs pass,\n"
		"         generalised as 'policy learn' does\n"
		"  new    the findings of this run that none of the job's last N runs\n"
		"         had, most severe first; exit 1 when there is one\n"
		"\n"
		"Options:\n"
		"      --clickhouse URL  the server, http://HOST:8123/ (default:\n"
		"                       $FOOTPRINT_CLICKHOUSE, or the credentials file's\n"
		"                       url); never with a password in it: a command\n"
		"                       line is visible to every user\n"
		"      --credentials FILE  user = NAME, password = SECRET (and url = URL)\n"
		"                       lines, mode 0600 (default:\n"
		"                       $FOOTPRINT_CLICKHOUSE_CREDENTIALS, or\n"
		"                       ~/.config/footprint/clickhouse if it exists);\n"
		"                       or set FOOTPRINT_CLICKHOUSE_USER and _PASSWORD\n"
		"      --cluster NAME   init: Distributed tables over the cluster NAME\n"
		"      --events         init: the events table too; push: the exec, file\n"
		"                       and network events of each log too\n"
		"  -j, --job NAME       the job (default: $FOOTPRINT_JOB, else GitHub's\n"
		"                       $GITHUB_REPOSITORY/$GITHUB_WORKFLOW/$GITHUB_JOB,\n"
		"                       else the command line)\n"
		"      --spool DIR      push: send what DIR holds, removing each sent\n"
		"  -n, --last N         learn, new: the job's last N runs (default %d)\n"
		"  -o, --output FILE    learn: write the policy there (a new file, 0600;\n"
		"                       default: stdout)\n"
		"      --json           new: one JSON object per new finding on stdout\n"
		"  -q, --quiet          push, init: say only what went wrong\n"
		"  -h, --help           show this help\n"
		"\n"
		"Examples:\n"
		"  footprint fleet init --clickhouse http://localhost:8123/\n"
		"  footprint fleet init --cluster fp --clickhouse http://ch1:8123/ \\\n"
		"      --clickhouse http://ch2:8123/\n"
		"  footprint fleet push --clickhouse http://ch1:8123/ --job build r.json\n"
		"  footprint fleet push --clickhouse http://ch1:8123/ --events job.fplog\n"
		"  footprint fleet push --clickhouse http://ch1:8123/ \\\n"
		"      --spool ~/.local/state/footprint/spool\n"
		"  footprint fleet learn --clickhouse http://ch1:8123/ --job build \\\n"
		"      --last 10 -o build.policy\n"
		"  footprint fleet new --clickhouse http://ch1:8123/ --job build r.json\n"
		"  sudo footprint run --push http://ch1:8123/ -- make\n"
		"\n"
		"Exit status: 0 done (new: nothing new); 1 new: a new finding; 2 usage\n"
		"error, or a file that is not a receipt, log or spooled entry; 3 the\n"
		"server was not reached or refused (push: what was not sent is\n"
		"spooled).\n",
		FP_FLEET_LAST_DEFAULT);
}

struct fleet_args {
	struct fp_fleet_opts o;
	const char *sub;
	const char *urls[64];
	size_t nurls;
	const char *cluster, *spool, *output;
	unsigned int last;
	bool json;
	char **files;
	size_t nfiles;
};

static int parse_last(const char *arg, unsigned int *out)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (*arg < '0' || *arg > '9' || *end || v < 1 || v > FP_FLEET_LAST_MAX)
		return fp_usage_error(
			"fleet",
			"--last '%s': give a number of runs from 1 to %d", arg,
			FP_FLEET_LAST_MAX);
	*out = (unsigned int)v;
	return 0;
}

enum { O_CH = 256, O_CRED, O_CLUSTER, O_EVENTS, O_SPOOL, O_JSON };

const struct option fp_fleet_longopts[] = {
	{ "clickhouse", required_argument, NULL, O_CH },
	{ "credentials", required_argument, NULL, O_CRED },
	{ "cluster", required_argument, NULL, O_CLUSTER },
	{ "events", no_argument, NULL, O_EVENTS },
	{ "spool", required_argument, NULL, O_SPOOL },
	{ "json", no_argument, NULL, O_JSON },
	{ "job", required_argument, NULL, 'j' },
	{ "last", required_argument, NULL, 'n' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int fleet_args(int argc, char **argv, struct fleet_args *a)
{
	static struct fp_positionals pos;
	int c, at, ret = 0;

	memset(&pos, 0, sizeof(pos));
	a->last = FP_FLEET_LAST_DEFAULT;
	fp_opts_start();
	while (!ret && (c = fp_next_opt_any_order(argc, argv, "-:j:n:o:qh",
						  fp_fleet_longopts, &at,
						  &pos)) != -1) {
		switch (c) {
		case O_CH:
			if (a->nurls == 64)
				return fp_usage_error(
					"fleet",
					"at most 64 --clickhouse URLs");
			a->urls[a->nurls++] = optarg;
			break;
		case O_CRED:
			a->o.credentials = optarg;
			break;
		case O_CLUSTER:
			a->cluster = optarg;
			break;
		case O_EVENTS:
			a->o.events = true;
			break;
		case O_SPOOL:
			a->spool = optarg;
			break;
		case O_JSON:
			a->json = true;
			break;
		case 'j':
			a->o.job = optarg;
			break;
		case 'n':
			ret = parse_last(optarg, &a->last);
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'q':
			a->o.quiet = true;
			break;
		case 'h':
			return FP_ARGS_HELP;
		default:
			return fp_bad_option("fleet", c, argv[at]);
		}
	}
	if (ret)
		return ret;
	if (pos.n > FP_POSITIONALS_MAX)
		return fp_usage_error("fleet", "too many files (at most %d)",
				      FP_POSITIONALS_MAX - 1);
	if (pos.n < 1)
		return fp_usage_error("fleet", "say init, push, learn or new");
	a->sub = pos.v[0];
	a->files = pos.v + 1;
	a->nfiles = pos.n - 1;
	a->o.url = a->nurls ? a->urls[0] : NULL;
	return 0;
}

/* options that the subcommand has no use for are mistakes */
static int only(const struct fleet_args *a, bool cluster, bool spool,
		bool output, bool json, bool many_urls)
{
	const char *bad = a->cluster && !cluster ? "--cluster" :
			  a->spool && !spool	 ? "--spool" :
			  a->output && !output	 ? "--output" :
			  a->json && !json	 ? "--json" :
						   NULL;

	if (bad)
		return fp_usage_error("fleet", "fleet %s takes no %s", a->sub,
				      bad);
	if (a->nurls > 1 && !many_urls)
		return fp_usage_error(
			"fleet",
			"fleet %s takes one --clickhouse (init takes one per node)",
			a->sub);
	return 0;
}

static int fleet_with(struct fleet_args *a)
{
	struct fp_fleet fl;
	int rc = fp_fleet_open(&fl, &a->o);

	if (rc)
		return rc;
	if (!strcmp(a->sub, "push")) {
		if (a->spool)
			rc = fp_fleet_push_spool(&fl, a->spool);
		if (a->nfiles && (!rc || rc == FP_EXIT_FLEET_DOWN)) {
			int more =
				fp_fleet_push_files(&fl, a->files, a->nfiles);

			rc = more ? more : rc;
		}
	} else if (!strcmp(a->sub, "learn")) {
		rc = fp_fleet_learn(&fl, a->o.job, a->last, a->output);
	} else {
		rc = fp_fleet_new(&fl, a->o.job, a->last, a->files[0], a->json);
	}
	fp_fleet_close(&fl);
	return rc;
}

int cmd_fleet(int argc, char **argv)
{
	struct fleet_args a = { 0 };
	int rc = fleet_args(argc, argv, &a);

	if (rc == FP_ARGS_HELP) {
		fleet_usage(stdout);
		return FP_EXIT_OK;
	}
	if (rc)
		return rc;
	if (!strcmp(a.sub, "init")) {
		rc = a.nfiles ? fp_usage_error("fleet", "init takes no files") :
				only(&a, true, false, false, false, true);
		return rc ? rc :
			    fp_fleet_init(&a.o, a.urls, a.nurls, a.cluster,
					  a.o.events);
	}
	if (!strcmp(a.sub, "push")) {
		rc = only(&a, false, true, false, false, false);
		if (!rc && !a.nfiles && !a.spool)
			rc = fp_usage_error(
				"fleet",
				"push wants a receipt, a log or --spool DIR");
	} else if (!strcmp(a.sub, "learn") || !strcmp(a.sub, "new")) {
		bool learn = !strcmp(a.sub, "learn");

		rc = only(&a, false, false, learn, !learn, false);
		if (!rc && !a.o.job)
			rc = fp_usage_error("fleet", "%s wants --job NAME",
					    a.sub);
		if (!rc && learn && a.nfiles)
			rc = fp_usage_error(
				"fleet",
				"learn takes no files; it reads the store");
		if (!rc && !learn && a.nfiles != 1)
			rc = fp_usage_error(
				"fleet",
				"new takes exactly one receipt or log");
		if (!rc && a.o.events)
			rc = fp_usage_error("fleet", "%s takes no --events",
					    a.sub);
	} else {
		rc = fp_usage_error(
			"fleet", "unknown '%s': say init, push, learn or new",
			a.sub);
	}
	return rc ? rc : fleet_with(&a);
}
