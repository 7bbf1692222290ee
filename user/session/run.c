// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "evlog.h"
#include "receipt.h"
#include "run.h"

int fp_run_init(struct fp_run *run)
{
	memset(run, 0, sizeof(*run));
	run->recon = fp_recon_new();
	run->mem_budget = FP_RECON_BUDGET_DEFAULT;
	return run->recon ? 0 : -ENOMEM;
}

void fp_run_set_budget(struct fp_run *run, uint64_t bytes)
{
	run->mem_budget = bytes;
	fp_recon_set_budget(run->recon, bytes);
}

const char *fp_run_mode_name(enum fp_run_mode mode)
{
	return mode == FP_MODE_SIDECAR ? "sidecar" : "run";
}

int fp_run_set_sidecar(struct fp_run *run, pid_t step_parent,
		       const char *state_dir)
{
	run->mode = FP_MODE_SIDECAR;
	run->step_parent = step_parent;
	fp_recon_set_step_parent(run->recon, step_parent);
	free(run->state_dir);
	run->state_dir = state_dir ? strdup(state_dir) : NULL;
	return state_dir && !run->state_dir ? -ENOMEM : 0;
}

const char *fp_run_incomplete_reason(const struct fp_run *run)
{
	if (fp_recon_unfolded(run->recon))
		return "budget";
	if (run->lost)
		return "lost";
	if (fp_recon_uring_why(run->recon))
		return "io_uring";
	if (run->recon_failed)
		return "memory";
	if (!run->have_trailer || run->incomplete_why)
		return "log";
	if (!run->have_snap[FP_PHASE_BEFORE] || !run->have_snap[FP_PHASE_AFTER])
		return "snapshot";
	return NULL;
}

/* v is NULL-terminated, as fp_run_add_str keeps it */
static void free_strv(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void fp_run_free(struct fp_run *run)
{
	int p;

	free_strv(run->argv);
	free(run->cwd);
	free(run->user);
	free(run->hostname);
	free(run->kernel);
	free(run->boot_id);
	free(run->version);
	free(run->run_cgroup);
	free(run->state_dir);
	free(run->scratch_dir);
	free_strv(run->roots);
	free_strv(run->policy);
	free_strv(run->homes);
	fp_policy_free(&run->read_pol);
	for (p = 0; p < 2; p++) {
		fp_fs_snapshot_free(&run->fs[p]);
		fp_proc_table_free(&run->procs[p]);
		fp_sock_table_free(&run->socks[p]);
	}
	fp_recon_free(run->recon);
	free(run->leftover);
	free(run->incomplete_why);
	free(run->unit);
	free(run->shape_policy);
	free(run->shape[0].data);
	free(run->shape[1].data);
	fp_holder_table_free(&run->holders);
	memset(run, 0, sizeof(*run));
}

/* append s to a NULL-terminated vector of n strings */
int fp_run_add_str(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(char *));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(s);
	if (!nv[*n])
		return -ENOMEM;
	nv[++*n] = NULL;
	return 0;
}

/* the policy's "severity KIND LEVEL" lines, so that a replay ranks alike */
static int fp_run_add_severity(struct fp_run *run, const struct fp_sevmap *m)
{
	char line[128];
	int k;

	for (k = 0; fp_severity_kind_name(k); k++) {
		if (!m->sev[k])
			continue;
		snprintf(line, sizeof(line), "severity %s %s",
			 fp_severity_kind_name(k), fp_severity_name(m->sev[k]));
		if (fp_run_add_str(&run->policy, &run->npolicy, line))
			return -ENOMEM;
	}
	return 0;
}

int fp_run_set_policy(struct fp_run *run, const struct fp_policy *pol)
{
	size_t i;

	run->report_noise = pol->report_noise;
	for (i = 0; i < pol->n; i++) {
		const char *t = pol->rules[i].text;

		/* one relative rule became one rule per root */
		if (run->npolicy && !strcmp(run->policy[run->npolicy - 1], t))
			continue;
		if (fp_run_add_str(&run->policy, &run->npolicy, t))
			return -ENOMEM;
	}
	return fp_run_add_severity(run, &pol->sev);
}

int fp_run_policy(const struct fp_run *run, struct fp_policy *pol, char *err,
		  size_t errlen)
{
	size_t i;
	int ret;

	pol->report_noise = run->report_noise;
	for (i = 0; i < run->npolicy; i++) {
		ret = fp_policy_parse_line(pol, run->policy[i],
					   strlen(run->policy[i]), run->roots,
					   run->nroots, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

int fp_run_judge(const struct fp_run *run, const struct fp_policy *pol,
		 struct fp_findings *f, struct fp_verdict *v,
		 struct fp_outcome *o)
{
	struct fp_recon_input in = { 0 };
	int after = run->have_snap[FP_PHASE_AFTER] ? FP_PHASE_AFTER :
						     FP_PHASE_BEFORE;
	int ret;

	memset(o, 0, sizeof(*o));
	o->exit_code = WIFEXITED(run->status) ? WEXITSTATUS(run->status) : -1;
	o->signal = WIFSIGNALED(run->status) ? WTERMSIG(run->status) : 0;
	o->timed_out = run->timed_out;
	o->interrupted = run->interrupted;
	o->lost = run->lost;
	o->complete = !fp_run_incomplete_reason(run);
	o->incomplete_why = run->incomplete_why;
	if (!run->have_trailer && !run->incomplete_why)
		o->incomplete_why = "the log has no trailer";
	if (fp_recon_budget_why(run->recon))
		o->incomplete_why = fp_recon_budget_why(run->recon);
	/* io_uring requests footprint could not judge: named */
	if (!o->incomplete_why)
		o->incomplete_why = fp_recon_uring_why(run->recon);
	if (!run->have_trailer)
		o->exit_code = -1;
	o->roots = run->roots;
	o->nroots = run->nroots;
	o->no_network = run->no_network;
	o->homes = run->homes;
	o->nhomes = run->nhomes;

	in.fs_before = &run->fs[FP_PHASE_BEFORE];
	in.fs_after = &run->fs[after];
	in.proc_before = &run->procs[FP_PHASE_BEFORE];
	in.proc_after = &run->procs[after];
	in.sock_before = &run->socks[FP_PHASE_BEFORE];
	in.sock_after = &run->socks[after];
	in.roots = run->roots;
	in.nroots = run->nroots;
	in.leftover = run->leftover;
	in.nleftover = run->nleftover;
	in.own_pid = run->own_pid;
	in.run_cgroup = run->run_cgroup;
	in.state_dir = run->state_dir;
	in.holders = &run->holders;
	ret = fp_reconcile(run->recon, &in, f);
	if (!ret)
		ret = fp_judge(pol, f, o, v);
	if (!ret && run->unit)
		ret = fp_run_shape_verdict(run, v);
	return ret;
}

void fp_run_receipt(FILE *out, const struct fp_run *run,
		    const struct fp_findings *f, const struct fp_verdict *v,
		    const struct fp_outcome *o)
{
	struct fp_receipt_info ri = {
		.argv = run->argv,
		.outcome = o,
		.duration_ms = run->duration_ms,
		.events = run->events,
		.opens_collapsed = run->opens_collapsed,
		.roots = run->roots,
		.nroots = run->nroots,
		.incomplete = fp_run_incomplete_reason(run),
		.sidecar = run->mode == FP_MODE_SIDECAR,
		.scratch_dir = run->scratch_dir,
		.fs_before = &run->fs[FP_PHASE_BEFORE],
		/* without an after snapshot nothing is proposed */
		.fs_after = &run->fs[run->have_snap[FP_PHASE_AFTER] ?
					     FP_PHASE_AFTER :
					     FP_PHASE_BEFORE],
		.unit = run->unit,
		.version = run->version,
		.host = run->hostname,
		.kernel = run->kernel,
		.user = run->user,
		.uid = run->uid,
		.start_ns = run->start_ns,
		.end_ns = run->end_ns,
	};
	struct fp_shape_policy sp;
	struct fp_shape_diff sd;

	/* judged again here as in fp_run_shape_verdict: pure, so the same */
	if (run->unit && !fp_run_shape_diff(run, &sp, &sd, &ri.shape_why)) {
		ri.shape_diff = &sd;
		ri.shape_policy = &sp;
	} else if (run->unit) {
		ri.shape_why = "out of memory";
	}
	fp_receipt_write(out, &ri, f, v);
	if (ri.shape_diff) {
		fp_shape_diff_free(&sd);
		fp_shape_policy_free(&sp);
	}
}

int fp_run_exit_code(const struct fp_run *run, const struct fp_verdict *v)
{
	if (run->exec_errno)
		return run->exec_errno == ENOENT ? FP_EXIT_NOTFOUND :
						   FP_EXIT_NOEXEC;
	if (run->timed_out)
		return FP_EXIT_TIMEOUT;
	return v->ok ? FP_EXIT_OK : FP_EXIT_VERDICT;
}
