// SPDX-License-Identifier: GPL-2.0
/*
 * footprint run: trace one command it launches in a cgroup of its own. A
 * session (session.h) does the tracing, snapshots and verdict; the box the
 * command runs in is run_target.h's, its scratch box run_scratch.h's.
 * This file is the command line and the calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "attest_job.h"
#include "cli.h"
#include "creds.h"
#include "fleet.h"
#include "report_hooks.h"
#include "run_args.h"
#include "run_scratch.h"
#include "run_target.h"
#include "session.h"
#include "shape_cmd.h"

/* The rules and roots of the run, from its options; 0 or an exit code. */
static int run_policy(struct run_opts *o, const struct fp_creds *c,
		      char **roots, struct fp_policy *pol)
{
	char err[512];
	int rc;

	if (!o->args.nroots)
		o->args.roots_arg[o->args.nroots++] = ".";
	rc = fp_resolve_roots(o->args.roots_arg, o->args.nroots, c, roots);
	if (!rc)
		rc = fp_rule_args_policy(&o->args.rules, pol, c, roots,
					 o->args.nroots);
	/* --leftovers allow is a rule, so that replay judges the same */
	if (!rc && o->leftovers == LEFTOVERS_ALLOW &&
	    fp_policy_parse_line(pol, "allow leftover *", 16, roots,
				 o->args.nroots, err, sizeof(err)))
		rc = FP_EXIT_NOTRACE;
	return rc;
}

/* what a run holds from its options to its end */
struct run_state {
	struct run_opts o;
	struct fp_run_target t;
	struct fp_session s;
	struct fp_attest_job att;
	struct fp_report_push push;
	struct fp_report_html html;
	struct fp_creds invoker;
	struct fp_policy pol;
	char *roots[FP_ROOTS_MAX];
	int root_fds[FP_ROOTS_MAX];
	char *shape_pol;
	int64_t deadline_ms;
};

/* Everything checked and read before a session can be made: the roots,
 * the rules, the attestation's key, the input lock, the shape policy. */
static int run_inputs(struct run_state *r)
{
	struct run_opts *o = &r->o;
	int rc;

	if (o->timeout_ms)
		r->deadline_ms = fp_now_ms() + o->timeout_ms;
	rc = run_policy(o, &r->invoker, r->roots, &r->pol);
	o->attest.quiet = o->args.so.quiet;
	if (!rc)
		rc = fp_attest_job_prepare(&r->att, &o->attest, &r->invoker);
	if (!rc && o->box.inputs_lock)
		rc = fp_run_inputs_check(&o->box, &r->invoker);
	if (!rc && o->shape_policy)
		rc = o->args.so.unit ?
			     fp_shape_policy_text(o->shape_policy,
						  &r->shape_pol) :
			     fp_usage_error("run",
					    "--shape-policy needs --unit");
	return rc;
}

/* The session's options: the parser wrote most of them already. */
static void run_session_opts(struct run_state *r)
{
	struct fp_session_opts *so = &r->o.args.so;

	so->roots = r->roots;
	so->nroots = r->o.args.nroots;
	so->pol = &r->pol;
	so->invoker = &r->invoker;
	so->deadline_ms = r->deadline_ms;
	so->timeout_ms = r->o.timeout_ms;
	/* filled once the overlays are mounted, before any snapshot */
	so->root_fds = r->o.box.scratch_dir ? r->root_fds : NULL;
	so->shape_policy = r->shape_pol;
}

/* From the checks of the outputs to the verdict and the outputs' end. */
static int run_judged(struct run_state *r)
{
	const struct fp_creds *c = &r->invoker;
	struct fp_session *s = &r->s;
	struct run_opts *o = &r->o;
	bool judged = false;
	int rc;

	r->push.fo = (struct fp_fleet_opts){ .url = o->args.push_url,
					     .creds = c,
					     .job = o->args.push_job,
					     .quiet = o->args.so.quiet };
	fp_report_hook_attest(&s->report, &r->att);
	fp_report_hook_push(&s->report, &r->push);
	r->html = (struct fp_report_html){ &s->outs[FP_OUT_HTML], c };
	fp_report_hook_html(&s->report, &r->html);
	/* every output's directory is checked before anything runs */
	rc = fp_session_prepare(s);
	if (!rc)
		rc = fp_run_target_identity(&r->t, o->user, o->as_root, c);
	if (!rc && o->box.scratch_dir)
		rc = fp_run_scratch_open(&r->t.sc, &o->box, r->roots,
					 o->args.nroots, c, &s->run.scratch_dir,
					 r->root_fds);
	s->run.no_network = o->box.scratch_dir && o->box.no_network;
	if (!rc)
		rc = fp_run_target_session(s, &r->t, r->deadline_ms, &judged);
	/* judged: attested in the verdict, with the other outputs */
	if (!judged)
		rc = fp_attest_after_run(&r->att, s, rc);
	/* the outputs go to the invoking user (or, for a root login,
	 * to --user's) once the run is over */
	fp_session_finish(s, &rc, c->active || r->t.id.drop,
			  c->active ? c->uid : r->t.id.uid,
			  c->active ? c->gid : r->t.id.gid,
			  c->active ? c->name : r->t.id.name);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	struct run_state r = {
		.t = FP_RUN_TARGET_INIT,
		.att = FP_ATTEST_JOB_INIT,
	};
	char err[512];
	int rc;
	size_t i;

	/* no core dump: it would hold the trace's data, and footprint's fds
	 * (so the watchdog's trigger) open for as long as it is written */
	prctl(PR_SET_DUMPABLE, 0);
	rc = fp_run_args_parse(argc, argv, &r.o);
	if (rc == FP_ARGS_HELP) {
		fp_run_usage(stdout);
		return FP_EXIT_OK;
	}
	if (rc)
		return rc;
	r.t.argv = r.o.argv;
	r.t.leftovers = r.o.leftovers;
	if (fp_creds_invoker(&r.invoker, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_USAGE;
	}
	rc = run_inputs(&r);
	run_session_opts(&r);
	if (fp_session_init(&r.s, &r.o.args.so)) {
		fprintf(stderr, "footprint: out of memory\n");
		rc = FP_EXIT_NOTRACE;
	}
	if (!rc)
		rc = run_judged(&r);
	fp_session_free(&r.s);
	fp_attest_job_free(&r.att);
	fp_run_target_close(&r.t);
	fp_creds_free(&r.invoker);
	fp_policy_free(&r.pol);
	free(r.shape_pol);
	for (i = 0; i < FP_ROOTS_MAX; i++)
		free(r.roots[i]);
	return rc;
}
