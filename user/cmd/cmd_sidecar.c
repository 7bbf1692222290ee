// SPDX-License-Identifier: GPL-2.0
/*
 * footprint sidecar start|status|stop: trace a whole CI job from a daemon
 * started at its beginning, and judge it at its end (docs/ci.md). This
 * file is the command line; sidecar_cmd.h says where the rest is.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "run_args.h"
#include "sidecar_cmd.h"
#include "longopts.h"
#include "sidecar_peer.h"

static void sidecar_usage(FILE *f)
{
	fprintf(f,
		"Usage: footprint sidecar start [--state DIR] [--json] [OPTIONS]\n"
		"       footprint sidecar status [--state DIR] [--json]\n"
		"       footprint sidecar mark [--state DIR] NAME\n"
		"       footprint sidecar stop [--state DIR] [--receipt FILE]\n"
		"                              [--html FILE] [--summary FILE.md]\n"
		"                              [--annotations]\n"
		"                              [--summary-max N] [--daemon PID:TICKS]\n"
		"                              [--attest KEY --attest-name STEP]\n"
		"                              [--push URL [--job NAME]]\n"
		"\n"
		"Trace a whole CI job: `start` takes the before snapshot, attaches\n"
		"and leaves a daemon tracing; it returns once tracing is live, so the\n"
		"next command is traced. `stop` takes the after snapshot, judges the\n"
		"whole job, writes the receipt and exits with the verdict's code. If\n"
		"the daemon died meanwhile, `stop` judges the log it left and fails.\n"
		"\n"
		"Options of start:\n"
		"  -r, --root DIR        watch DIR (repeatable; default: the current directory)\n"
		"  -a, --allow, -f, --forbid, -x, --expect, --ignore PATTERN, -p, --policy FILE,\n"
		"      --report-noise    the rules, as for `footprint run`\n"
		"      --pid-tree PID    trace PID and every descendant, present and future\n"
		"                        (repeatable, up to 16)\n"
		"      --cgroup PATH     trace this cgroup v2 and its descendants (repeatable,\n"
		"                        up to 8; below the cgroup2 mount or under it), e.g.\n"
		"                        docker's, for container jobs and services\n"
		"      --step-parent PID its direct children are the job's steps (default:\n"
		"                        the Runner.Worker the scope was found from)\n"
		"                        Default scope: the Runner.Worker among start's\n"
		"                        ancestors (a GitHub Actions job), if there is one;\n"
		"                        --cgroup adds to it, --pid-tree replaces it\n"
		"  -w, --record FILE     keep the event log in FILE (default: in the state\n"
		"                        directory, where stop reads it)\n"
		"      --record-max SIZE cut the log into segments of at most SIZE (at\n"
		"                        least 1M): LOG, LOG.1, LOG.2, ...\n"
		"      --ring-size SIZE  ring buffer size (default 16M)\n"
		"      --every-open      as for `footprint run`: no collapsed opens\n"
		"      --report-reads    as for `footprint run`: every file read in\n"
		"                        files.read, not only secrets and the roots'\n"
		"      --memory-budget SIZE  as for `footprint run` (default 128M)\n"
		"      --json            print the daemon's identity on stdout, one JSON\n"
		"                        object: {\"daemon\":\"PID:TICKS\",...}, for stop\n"
		"                        --daemon\n"
		"Options of every verb:\n"
		"      --state DIR       the daemon's directory (default " DEFAULT_STATE
		",\n"
		"                        UID the invoking user's, SUDO_UID under sudo):\n"
		"                        root's, 0711; made by start, which refuses one\n"
		"                        whose last sidecar no stop ended cleanly\n"
		"Options of stop:\n"
		"  -o, --receipt FILE    write the JSON receipt (- for stdout)\n"
		"      --html FILE       write the HTML report of the job to FILE (its\n"
		"                        steps as lanes of the timeline; docs/report.md)\n"
		"      --summary FILE.md a markdown job summary, under 64 KiB, per step\n"
		"      --annotations     GitHub workflow commands (::error) on stdout, at\n"
		"                        most 10\n"
		"  -q, --quiet           no summary on stderr\n"
		"      --summary-max N   at most N examples per category in the summary\n"
		"                        (default 10)\n"
		"      --daemon PID:TICKS  the daemon start --json named: stop fails with\n"
		"                        a tamper finding if it finds another\n"
		"      --attest KEY      sign an in-toto link of the job with KEY, read\n"
		"                        with your rights (docs/attest.md); with\n"
		"      --attest-name STEP  the step's name in the layout; and optionally\n"
		"      --attest-out FILE, --attest-format link|statement,\n"
		"      --attest-only-ok  as for `footprint run`\n"
		"      --push URL        push the receipt to the ClickHouse at URL\n"
		"                        (docs/fleet.md; spooled when it cannot be)\n"
		"      --job NAME        the job's name there (default: $FOOTPRINT_JOB,\n"
		"                        else GitHub's repository/workflow/job)\n"
		"Of mark: the steps that start from now on are called NAME (when the\n"
		"runner gives them no GITHUB_ACTION); the user who started the sidecar\n"
		"may mark, anyone may ask status, and neither is a step.\n"
		"Options of status:\n"
		"      --json            one JSON object: events, lost, lost per minute, RSS\n"
		"  -h, --help            show this help\n"
		"\n"
		"Examples:\n"
		"  sudo footprint sidecar start --root \"$GITHUB_WORKSPACE\" --cgroup /system.slice/docker.service\n"
		"  footprint sidecar status\n"
		"  footprint sidecar mark integration-tests\n"
		"  sudo footprint sidecar stop --receipt /tmp/footprint.json\n"
		"  sudo footprint sidecar stop --html /tmp/footprint.html\n"
		"  sudo footprint sidecar stop --attest ci.key --attest-name build\n"
		"\n"
		"Exit status: as `footprint run`: 0 ok; 1 the verdict failed (also when\n"
		"the daemon died or its log has a gap); 2 usage error, or a state\n"
		"directory start may not take; 125 cannot trace.\n");
}

static int parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v <= 0 || v > 0x3fffffff)
		return -EINVAL;
	*pid = v;
	return 0;
}

/* sidecar's own options; the shared ones are session_args.c's */
const struct option fp_sidecar_longopts[] = {
	{ "state", required_argument, NULL, FP_OPT_STATE },
	{ "cgroup", required_argument, NULL, FP_OPT_CGROUP },
	{ "pid-tree", required_argument, NULL, FP_OPT_PID_TREE },
	{ "step-parent", required_argument, NULL, FP_OPT_STEP_PARENT },
	{ "json", no_argument, NULL, FP_OPT_JSON },
	{ "summary", required_argument, NULL, FP_OPT_SUMMARY },
	{ "annotations", no_argument, NULL, FP_OPT_ANNOTATIONS },
	{ "daemon", required_argument, NULL, FP_OPT_DAEMON },
	FP_ATTEST_LONGOPTS,
	{ "help", no_argument, NULL, FP_OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* the scope of start: --cgroup, --pid-tree, --step-parent */
static int scope_arg(struct sidecar_opts *o, int c, const char *arg)
{
	if (c == FP_OPT_CGROUP) {
		if (o->ncgroups == MAX_CGROUPS)
			return fp_usage_error("sidecar", "at most 8 --cgroup");
		o->cgroups[o->ncgroups++] = arg;
	} else if (c == FP_OPT_PID_TREE) {
		if (o->npid_trees == FP_TRACER_MAX_PID_TREES)
			return fp_usage_error("sidecar",
					      "at most 16 --pid-tree");
		if (parse_pid(arg, &o->pid_trees[o->npid_trees++]))
			return fp_usage_error(
				"sidecar",
				"--pid-tree wants a process id, got '%s'", arg);
	} else if (parse_pid(arg, &o->step_parent)) {
		return fp_usage_error(
			"sidecar", "--step-parent wants a process id, got '%s'",
			arg);
	}
	return 0;
}

/* sidecar's own options: 0, FP_ARGS_HELP or FP_EXIT_USAGE */
static int sidecar_arg(struct sidecar_opts *o, int c, const char *arg,
		       char **argv, int at)
{
	uint64_t ticks;
	pid_t pid;

	switch (c) {
	case FP_OPT_STATE:
		o->state = arg;
		return 0;
	case FP_OPT_CGROUP:
	case FP_OPT_PID_TREE:
	case FP_OPT_STEP_PARENT:
		return scope_arg(o, c, arg);
	case FP_OPT_JSON:
		o->json = true;
		return 0;
	case FP_OPT_SUMMARY:
		o->summary_path = arg;
		return 0;
	case FP_OPT_ANNOTATIONS:
		o->annotations = true;
		return 0;
	case FP_OPT_DAEMON:
		if (fp_sc_id_parse(arg, &pid, &ticks))
			return fp_usage_error(
				"sidecar",
				"--daemon wants PID:TICKS as start --json printed it, got '%s'",
				arg);
		o->daemon_id = arg;
		return 0;
	case FP_OPT_HELP:
		return FP_ARGS_HELP;
	default:
		return fp_bad_option("sidecar", c, argv[at]);
	}
}

/* the verb and its arguments, once every option is read */
static int sidecar_verb(struct sidecar_opts *o, struct fp_positionals *pos)
{
	if (pos->n < 1)
		return fp_usage_error("sidecar",
				      "say start, status or stop (see --help)");
	o->verb = pos->v[0];
	if (strcmp(o->verb, "start") && strcmp(o->verb, "status") &&
	    strcmp(o->verb, "stop") && strcmp(o->verb, "mark"))
		return fp_usage_error(
			"sidecar",
			"unknown verb '%s'; say start, status, mark or stop",
			o->verb);
	if (o->args.so.html_path && strcmp(o->verb, "stop"))
		return fp_usage_error("sidecar", "--html is stop's");
	if (!strcmp(o->verb, "mark")) {
		if (pos->n != 2 || !*pos->v[1] || strlen(pos->v[1]) > 255)
			return fp_usage_error(
				"sidecar",
				"mark wants one step name of 1 to 255 bytes");
		o->name = pos->v[1];
		return 0;
	}
	if (pos->n > 1)
		return fp_usage_error("sidecar", "unexpected argument '%s'",
				      pos->v[1]);
	if ((o->args.push_url || o->args.push_job) && strcmp(o->verb, "stop"))
		return fp_usage_error("sidecar", "--push and --job are stop's");
	if (fp_session_args_check(&o->args, "sidecar"))
		return FP_EXIT_USAGE;
	return fp_attest_args_check(&o->attest, "sidecar");
}

static int parse_sidecar(int argc, char **argv, struct sidecar_opts *o)
{
	static struct option longopts[FP_LONGOPTS_MAX];
	struct fp_positionals pos = { 0 };
	int c, taken, at;

	fp_session_args_init(&o->args, FP_SUB_SIDECAR);
	fp_longopts_build(longopts, FP_SUB_SIDECAR, fp_sidecar_longopts);
	/* options may come before or after the verb */
	fp_opts_start();
	while ((c = fp_next_opt_any_order(argc, argv, "-:r:a:f:x:p:w:o:qh",
					  longopts, &at, &pos)) != -1) {
		taken = fp_session_args_take(&o->args, "sidecar", c, optarg);
		if (!taken)
			taken = fp_attest_args_take(&o->attest, "sidecar", c,
						    optarg);
		if (taken < 0)
			return -taken;
		if (!taken && (taken = sidecar_arg(o, c, optarg, argv, at)))
			return taken;
	}
	return sidecar_verb(o, &pos);
}

/* ---- the state directory ---- */

int cmd_sidecar(int argc, char **argv)
{
	struct sidecar_opts o = { 0 };
	struct fp_creds invoker = { 0 };
	char err[512];
	int rc = parse_sidecar(argc, argv, &o);

	if (rc == FP_ARGS_HELP) {
		sidecar_usage(stdout);
		return FP_EXIT_OK;
	}
	if (rc)
		return rc;
	if (fp_creds_invoker(&invoker, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_USAGE;
	}
	if (!o.state) {
		/* the invoking user's: under sudo SUDO_UID, else who we are */
		o.default_state = true;
		o.state_uid = invoker.active ? invoker.uid : getuid();
		snprintf(o.state_buf, sizeof(o.state_buf),
			 "/run/footprint/sidecar-%u",
			 (unsigned int)o.state_uid);
		o.state = o.state_buf;
	}
	if (!strcmp(o.verb, "start"))
		rc = sidecar_start(&o, &invoker);
	else if (!strcmp(o.verb, "status"))
		rc = sidecar_status(&o);
	else if (!strcmp(o.verb, "mark"))
		rc = sidecar_mark(&o);
	else
		rc = sidecar_stop(&o, &invoker);
	fp_creds_free(&invoker);
	return rc;
}
