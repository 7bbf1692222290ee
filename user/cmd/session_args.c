// SPDX-License-Identifier: GPL-2.0
/* The options run, sidecar and replay share (see session_args.h). */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "reconcile.h"
#include "receipt.h"
#include "run_args.h"
#include "session_args.h"

#define RUN FP_SUB_RUN
#define SIDECAR FP_SUB_SIDECAR
#define ALL (FP_SUB_RUN | FP_SUB_SIDECAR | FP_SUB_REPLAY)

struct shared_opt {
	struct option o;
	unsigned int subs; /* FP_SUB_* that take it */
};

#define OPT(name, has_arg, id, subs)              \
	{                                         \
		{ name, has_arg, NULL, id }, subs \
	}

static const struct shared_opt shared[] = {
	OPT("root", required_argument, FP_OPT_ROOT, RUN | SIDECAR),
	OPT("allow", required_argument, FP_OPT_ALLOW, ALL),
	OPT("forbid", required_argument, FP_OPT_FORBID, ALL),
	OPT("expect", required_argument, FP_OPT_EXPECT, ALL),
	OPT("ignore", required_argument, FP_OPT_IGNORE, ALL),
	OPT("policy", required_argument, FP_OPT_POLICY, ALL),
	OPT("report-noise", no_argument, FP_OPT_REPORT_NOISE, ALL),
	OPT("receipt", required_argument, FP_OPT_RECEIPT, ALL),
	OPT("events", required_argument, FP_OPT_EVENTS, RUN),
	OPT("record", required_argument, FP_OPT_RECORD, RUN | SIDECAR),
	OPT("record-max", required_argument, FP_OPT_RECORD_MAX, RUN | SIDECAR),
	OPT("force", no_argument, FP_OPT_FORCE, RUN),
	OPT("cross-mounts", no_argument, FP_OPT_CROSS_MOUNTS, RUN),
	OPT("rehash-all", no_argument, FP_OPT_REHASH_ALL, RUN),
	OPT("report-reads", no_argument, FP_OPT_REPORT_READS, RUN | SIDECAR),
	OPT("ring-size", required_argument, FP_OPT_RING_SIZE, RUN | SIDECAR),
	OPT("every-open", no_argument, FP_OPT_EVERY_OPEN, RUN | SIDECAR),
	OPT("cold", no_argument, FP_OPT_COLD, RUN),
	OPT("max-argv", required_argument, FP_OPT_MAX_ARGV, RUN),
	OPT("dns-port", required_argument, FP_OPT_DNS_PORT, RUN),
	OPT("memory-budget", required_argument, FP_OPT_MEMORY_BUDGET, ALL),
	OPT("quiet", no_argument, FP_OPT_QUIET, ALL),
	OPT("summary-max", required_argument, FP_OPT_SUMMARY_MAX, ALL),
	OPT("push", required_argument, FP_OPT_PUSH, ALL),
	OPT("job", required_argument, FP_OPT_JOB, ALL),
	OPT("html", required_argument, FP_OPT_HTML, ALL),
};

const struct option *fp_longopts_build(struct option *out, unsigned int sub,
				       const struct option *own)
{
	size_t i, n = 0;

	_Static_assert(sizeof(shared) / sizeof(shared[0]) < FP_LONGOPTS_MAX / 2,
		       "room for the subcommands' own options");
	for (i = 0; i < sizeof(shared) / sizeof(shared[0]); i++)
		if (shared[i].subs & sub)
			out[n++] = shared[i].o;
	for (; own->name && n < FP_LONGOPTS_MAX - 1; own++)
		out[n++] = *own;
	memset(&out[n], 0, sizeof(out[n]));
	return out;
}

void fp_session_args_init(struct fp_session_args *a, unsigned int sub)
{
	a->so.log_fd = -1;
	a->so.summary_max = FP_SUMMARY_MAX_DEFAULT;
	a->so.tracer.ring_bytes = 16 << 20;
	a->so.tracer.max_argv_bytes = 1 << 20;
	/* replay's 0 is the recorded budget */
	if (sub != FP_SUB_REPLAY)
		a->so.mem_budget = FP_RECON_BUDGET_DEFAULT;
	/* the sidecar's daemon loads its own programs and keeps none */
	a->so.tracer.warm = sub == FP_SUB_RUN;
}

/* the options whose value is checked: 1 taken, 0 not, -FP_EXIT_USAGE */
static int take_value(struct fp_session_args *a, const char *sub, int id,
		      const char *arg)
{
	struct fp_session_opts *so = &a->so;
	uint64_t v;
	int e;

	switch (id) {
	case FP_OPT_RECORD_MAX:
		e = fp_parse_record_max(sub, arg, &so->record_max);
		break;
	case FP_OPT_RING_SIZE:
		e = fp_parse_ring_size(sub, arg, &so->tracer.ring_bytes);
		break;
	case FP_OPT_MAX_ARGV:
		e = fp_parse_size(arg, &v) ?
			    fp_usage_error(
				    sub,
				    "--max-argv wants a size such as 64K, got '%s'",
				    arg) :
			    0;
		if (!e)
			so->tracer.max_argv_bytes = v;
		break;
	case FP_OPT_DNS_PORT:
		e = fp_parse_dns_port(sub, arg, so->tracer.dns_ports);
		break;
	case FP_OPT_MEMORY_BUDGET:
		e = fp_parse_budget(sub, arg, &so->mem_budget);
		a->mem_budget_given = true;
		break;
	case FP_OPT_SUMMARY_MAX:
		e = fp_parse_summary_max(sub, arg, &so->summary_max);
		break;
	case FP_OPT_PUSH:
	case FP_OPT_JOB:
		/* docs/fleet.md */
		e = *arg ? 0 :
			   fp_usage_error(sub, "%s wants a value",
					  id == FP_OPT_PUSH ? "--push" :
							      "--job");
		*(id == FP_OPT_PUSH ? &a->push_url : &a->push_job) = arg;
		break;
	default:
		return 0;
	}
	return e ? -FP_EXIT_USAGE : 1;
}

int fp_session_args_take(struct fp_session_args *a, const char *sub, int id,
			 const char *arg)
{
	struct fp_session_opts *so = &a->so;
	int taken = fp_rule_args_take(&a->rules, sub, id, arg);

	if (taken)
		return taken;
	switch (id) {
	case FP_OPT_ROOT:
		if (a->nroots == FP_ROOTS_MAX)
			return -fp_usage_error(sub, "too many --root");
		a->roots_arg[a->nroots++] = arg;
		break;
	case FP_OPT_RECEIPT:
		so->receipt_path = arg;
		break;
	case FP_OPT_HTML:
		so->html_path = arg;
		break;
	case FP_OPT_EVENTS:
		so->events_path = arg;
		break;
	case FP_OPT_RECORD:
		so->record_path = arg;
		break;
	case FP_OPT_FORCE:
		so->force = true;
		break;
	case FP_OPT_CROSS_MOUNTS:
		so->cross_mounts = true;
		break;
	case FP_OPT_REHASH_ALL:
		so->rehash_all = true;
		break;
	case FP_OPT_REPORT_READS:
		so->report_reads = true;
		break;
	case FP_OPT_EVERY_OPEN:
		so->tracer.every_open = true;
		break;
	case FP_OPT_COLD:
		so->tracer.warm = false;
		break;
	case FP_OPT_QUIET:
		so->quiet = true;
		break;
	default:
		return take_value(a, sub, id, arg);
	}
	return 1;
}

int fp_session_args_check(const struct fp_session_args *a, const char *sub)
{
	if (a->push_job && !a->push_url)
		return fp_usage_error(
			sub,
			"--job names the job --push sends; add --push URL");
	return 0;
}
