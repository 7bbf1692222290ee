// SPDX-License-Identifier: GPL-2.0
/* footprint events: print the events of a recorded log as NDJSON. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "event_json.h"
#include "logrun.h"
#include "run.h"
#include "run_args.h"

struct filter {
	long pid;
	const char *type;
	const char *prefix;
	size_t prefix_len;
	uint64_t shown;
};

static void events_usage(FILE *f)
{
	fprintf(f,
		"Usage: footprint events [OPTIONS] LOG\n"
		"\n"
		"Print the events of a log recorded with 'footprint run --record' as\n"
		"NDJSON, in the format of 'footprint run --events' (docs/events.md).\n"
		"\n"
		"Options:\n"
		"      --pid PID          only events of process PID\n"
		"      --type TYPE        only events of TYPE (exec, open, unlink, ...)\n"
		"      --path-prefix P    only events with a path starting with P\n"
		"  -h, --help             show this help\n"
		"\n"
		"Examples:\n"
		"  footprint events job.fplog | jq -r 'select(.type==\"exec\") | .argv | join(\" \")'\n"
		"  footprint events --type unlink --path-prefix /etc/ job.fplog\n"
		"\n"
		"Exit status: 0; 1 if the log is cut short (what it holds is printed);\n"
		"2 for a usage error, an unreadable or damaged log.\n");
}

static bool has_prefix(const struct fp_bytes *b, const struct filter *f)
{
	return b->data && b->len >= f->prefix_len &&
	       !memcmp(b->data, f->prefix, f->prefix_len);
}

static int show(void *ctx, const struct fp_event *ev)
{
	struct filter *f = ctx;

	if (f->pid >= 0 && ev->pid != (uint32_t)f->pid)
		return 0;
	if (f->type && strcmp(f->type, fp_event_kind(ev)))
		return 0;
	if (f->prefix) {
		bool hit = false;

		if (ev->type == FP_EV_FILE)
			hit = has_prefix(&ev->file.path[0].path, f) ||
			      (ev->file.npaths > 1 &&
			       has_prefix(&ev->file.path[1].path, f));
		else if (ev->type == FP_EV_EXEC)
			hit = has_prefix(&ev->exec.exe, f);
		if (!hit)
			return 0;
	}
	fp_event_write_json(stdout, ev);
	f->shown++;
	return 0;
}

int cmd_events(int argc, char **argv)
{
	struct fp_events_opts args = { 0 };
	struct filter f;
	struct fp_run run;
	char err[600];
	int ret, rc = FP_EXIT_USAGE;

	ret = fp_events_args_parse(argc, argv, &args);
	if (ret == FP_ARGS_HELP)
		events_usage(stdout);
	if (ret)
		return ret == FP_ARGS_HELP ? FP_EXIT_OK : ret;
	f = (struct filter){ .pid = args.pid,
			     .type = args.type,
			     .prefix = args.prefix,
			     .prefix_len =
				     args.prefix ? strlen(args.prefix) : 0 };
	if (fp_run_init(&run)) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_NOTRACE;
	}
	ret = fp_log_load(args.log, &run, show, &f, err, sizeof(err));
	fflush(stdout);
	if (ret == -ENODATA) {
		fprintf(stderr, "footprint: %s: %s\n", args.log,
			run.incomplete_why);
		rc = FP_EXIT_VERDICT;
	} else if (ret) {
		fprintf(stderr, "%s\n", err);
	} else {
		printf("{\"type\":\"stats\",\"events\":%" PRIu64
		       ",\"lost\":%" PRIu64 ",\"complete\":%s}\n",
		       run.events, run.lost, run.lost ? "false" : "true");
		rc = FP_EXIT_OK;
	}
	fp_run_free(&run);
	return rc;
}
