// SPDX-License-Identifier: GPL-2.0
/* footprint events: print the events of a recorded log as NDJSON. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_trace.h"
#include "cli.h"
#include "event_json.h"
#include "json.h"
#include "logrun.h"
#include "run.h"
#include "run_args.h"

struct filter {
	struct fp_chrome_trace *ct; /* --format chrome-trace */
	long pid;
	const char *type;
	const char *prefix;
	size_t prefix_len;
	uint64_t shown;
	/* the kinds the log holds, for a --type that matched nothing */
	char seen[512];
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
		"      --type TYPE        only events of TYPE (exec, open, unlink, ...);\n"
		"                         --type stats prints only the stats record\n"
		"      --path-prefix P    only events with a path starting with P\n"
		"      --format FORMAT    ndjson (the default), or chrome-trace: the\n"
		"                         Trace Event JSON that Perfetto and\n"
		"                         chrome://tracing open, one track per process\n"
		"                         (docs/report.md); it takes no filter\n"
		"  -h, --help             show this help\n"
		"\n"
		"Without a filter the last line is a stats record (docs/events.md);\n"
		"with --pid, --type or --path-prefix only the matching events are\n"
		"printed, and events the run lost are said on stderr.\n"
		"\n"
		"Examples:\n"
		"  footprint events --type exec job.fplog | jq -r '.argv | join(\" \")'\n"
		"  footprint events --type unlink --path-prefix /etc/ job.fplog\n"
		"  footprint events --type stats job.fplog\n"
		"  footprint events --format chrome-trace job.fplog > job.trace.json\n"
		"\n"
		"Exit status: 0; 1 if the log is cut short (what it holds is printed);\n"
		"2 for a usage error, an unreadable or damaged log.\n");
}

static bool has_prefix(const struct fp_bytes *b, const struct filter *f)
{
	return b->data && b->len >= f->prefix_len &&
	       !memcmp(b->data, f->prefix, f->prefix_len);
}

/* "exec,open,..." of the kinds met so far, for the message when --type
 * matched nothing (bounded: there are a few dozen kinds) */
static void note_kind(struct filter *f, const char *kind)
{
	size_t n = strlen(kind), have = strlen(f->seen);
	const char *p = f->seen;

	while ((p = strstr(p, kind))) {
		if ((p == f->seen || p[-1] == ',') &&
		    (p[n] == ',' || p[n] == '\0'))
			return;
		p += n;
	}
	if (have + n + 2 > sizeof(f->seen))
		return;
	if (have)
		f->seen[have++] = ',';
	memcpy(f->seen + have, kind, n + 1);
}

static int show(void *ctx, const struct fp_event *ev)
{
	struct filter *f = ctx;

	if (f->ct) {
		fp_chrome_trace_event(f->ct, ev);
		return 0;
	}
	if (f->type)
		note_kind(f, fp_event_kind(ev));
	if (f->type && !strcmp(f->type, "stats"))
		return 0;
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

/*
 * The stats record ends the unfiltered output, as it ends --events. A
 * filter prints only what it matches (`--type exec | jq '.argv'` must see
 * exec events only); what the run lost is then said on stderr.
 */
static void print_stats(struct filter *f, const struct fp_run *run,
			const char *log)
{
	bool filtered = f->pid >= 0 || f->type || f->prefix;

	if (!filtered || (f->type && !strcmp(f->type, "stats"))) {
		struct json_out j = { .f = stdout };

		json_begin_object(&j);
		json_field_str(&j, "type", "stats");
		json_field_u64(&j, "events", run->events);
		json_field_u64(&j, "lost", run->lost);
		json_field_bool(&j, "complete", !run->lost);
		json_end_object(&j);
		putchar('\n');
		return;
	}
	if (run->lost)
		fprintf(stderr,
			"footprint: %s: the run lost %" PRIu64
			" events: this list is incomplete\n",
			log, run->lost);
	if (f->type && !f->shown && f->pid < 0 && !f->prefix)
		fprintf(stderr,
			"footprint: %s holds no '%s' event (it holds: %s)\n",
			log, f->type, f->seen[0] ? f->seen : "none");
}

/* --format chrome-trace: every event into the trace, the end after them */
static int chrome_trace(struct filter *f, struct fp_chrome_trace *ct,
			struct fp_events_opts *args)
{
	if (args->pid >= 0 || args->type || args->prefix)
		return fp_usage_error(
			"events",
			"--format chrome-trace takes no --pid, --type or --path-prefix");
	if (fp_chrome_trace_begin(ct, stdout)) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_NOTRACE;
	}
	f->ct = ct;
	return 0;
}

int cmd_events(int argc, char **argv)
{
	struct fp_events_opts args = { 0 };
	struct fp_chrome_trace ct;
	const char *format;
	struct filter f;
	struct fp_run run;
	char err[600];
	int ret, rc = FP_EXIT_USAGE;

	ret = fp_events_args_parse(argc, argv, &args);
	if (ret == FP_ARGS_HELP)
		events_usage(stdout);
	if (ret)
		return ret == FP_ARGS_HELP ? FP_EXIT_OK : ret;
	format = args.format ? args.format : "ndjson";
	if (strcmp(format, "ndjson") && strcmp(format, "chrome-trace"))
		return fp_usage_error(
			"events",
			"unknown --format '%s': ndjson or chrome-trace",
			format);
	f = (struct filter){ .pid = args.pid,
			     .type = args.type,
			     .prefix = args.prefix,
			     .prefix_len =
				     args.prefix ? strlen(args.prefix) : 0 };
	if (!strcmp(format, "chrome-trace")) {
		ret = chrome_trace(&f, &ct, &args);
		if (ret)
			return ret;
	}
	if (fp_run_init(&run)) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_NOTRACE;
	}
	ret = fp_log_load(args.log, &run, show, &f, err, sizeof(err));
	if (f.ct && (!ret || ret == -ENODATA))
		fp_chrome_trace_end(f.ct, run.lost);
	fflush(stdout);
	if (ret == -ENODATA) {
		fprintf(stderr, "footprint: %s: %s\n", args.log,
			run.incomplete_why);
		rc = FP_EXIT_VERDICT;
	} else if (ret) {
		fprintf(stderr, "%s\n", err);
	} else {
		if (!f.ct)
			print_stats(&f, &run, args.log);
		rc = FP_EXIT_OK;
	}
	if (f.ct && ret && ret != -ENODATA)
		free(ct.slots);
	fp_run_free(&run);
	return rc;
}
