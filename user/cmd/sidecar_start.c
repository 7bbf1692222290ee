// SPDX-License-Identifier: GPL-2.0
/* sidecar start: what the daemon is to trace, the state directory taken,
 * and the daemon's birth (its life is session/sidecar_daemon.c's). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>

#include "cli.h"
#include "json.h"
#include "sidecar.h"

#include "sidecar_cmd.h"

/*
 * A GitHub Actions job: every step is a child of Runner.Worker, found
 * among start's ancestors (sudo does not keep GITHUB_ACTIONS, so the
 * process tree is asked, not the environment). 0 when there is none.
 */
static long is_runner_worker(void *ctx, pid_t pid, pid_t ppid)
{
	char path[64], comm[64];
	FILE *f;

	(void)ctx;
	(void)ppid;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return strcmp(comm, "Runner.Worker\n") ? 0 : pid;
}

static pid_t find_runner_worker(void)
{
	long pid = fp_proc_walk_up(getppid(), is_runner_worker, NULL);

	return pid > 0 ? (pid_t)pid : 0;
}

/* The daemon, with start's options as the session takes them. */
static int run_daemon(const struct sidecar_opts *o, int statefd,
		      struct fp_sidecar_state *st, char **roots,
		      const struct fp_policy *pol, const struct fp_creds *c)
{
	struct fp_sidecar_opts d = {
		.statefd = statefd,
		.so = o->args.so,
		.cgroups = o->cgroups,
		.ncgroups = o->ncgroups,
		.pid_trees = o->pid_trees,
		.npid_trees = o->npid_trees,
		.step_parent = o->step_parent,
	};

	d.so.roots = roots;
	d.so.nroots = o->args.nroots;
	d.so.pol = pol;
	d.so.invoker = c;
	return fp_sidecar_daemon(&d, st);
}

/* PID:TICKS of every process the scope hangs on, for the journal: the
 * next start on this state directory sees a restart while one lives. */
static void scope_ids(const struct sidecar_opts *o, struct fp_sidecar_state *st)
{
	char id[FP_SC_ID_LEN];
	size_t i, len = 0;

	st->scope[0] = '\0';
	for (i = 0; i <= o->npid_trees; i++) {
		pid_t pid =
			i < o->npid_trees ? o->pid_trees[i] : o->step_parent;
		uint64_t ticks = pid ? fp_proc_start_ticks(pid) : 0;

		if (!ticks || len + FP_SC_ID_LEN + 1 >= sizeof(st->scope))
			continue;
		fp_sc_id(id, pid, ticks);
		len += snprintf(st->scope + len, sizeof(st->scope) - len,
				"%s%s", len ? "," : "", id);
	}
	if (!len)
		snprintf(st->scope, sizeof(st->scope), "none");
}

/*
 * A state directory is taken afresh, or after a stop that ended its last
 * sidecar cleanly; anything else is evidence to keep. A clean stop while
 * the job that sidecar traced still runs (its scope's processes live on)
 * makes this start a restart: allowed, and a tamper finding of its own.
 * 0, or FP_EXIT_USAGE after one line.
 */
static int take_state(const struct sidecar_opts *o, int statefd,
		      struct fp_sidecar_state *st)
{
	struct fp_sc_last last;
	unsigned int i;

	if (fp_sc_journal_last(statefd, &last)) {
		fprintf(stderr,
			"footprint: the journal in the state directory %s cannot be read; remove the directory (sudo rm -r) or pick another --state\n",
			o->state);
		return FP_EXIT_USAGE;
	}
	if (!last.any && !fp_sidecar_state_empty(statefd)) {
		fprintf(stderr,
			"footprint: the state directory %s holds a sidecar's files but no journal of it; remove it (sudo rm -r) or pick another --state\n",
			o->state);
		return FP_EXIT_USAGE;
	}
	if (last.any && !last.stopped) {
		fprintf(stderr,
			"footprint: the sidecar started in %s (daemon pid %d) %s; judge it with `sudo footprint sidecar stop`%s, or remove the directory (sudo rm -r) to start afresh\n",
			o->state, (int)last.daemon,
			last.dead ? "died before a stop ended it" :
				    "was never stopped",
			last.dead ? " again" : "");
		return FP_EXIT_USAGE;
	}
	for (i = 0; last.any && i < last.nscope; i++) {
		if (fp_proc_start_ticks(last.scope[i]) != last.scope_ticks[i])
			continue;
		st->restart_of = last.daemon;
		st->restart_of_ticks = last.ticks;
		fprintf(stderr,
			"footprint: the job the last sidecar in %s traced still runs (pid %d): this start is a restart, and its verdict will fail\n",
			o->state, (int)last.scope[i]);
		break;
	}
	/* what a clean stop left is not this sidecar's */
	unlinkat(statefd, FP_SIDECAR_LOG_ID, 0);
	unlinkat(statefd, FP_SIDECAR_ROOTS, 0);
	unlinkat(statefd, FP_SIDECAR_PID, 0);
	if (!st->restart_of)
		fp_sc_journal_rotate(statefd);
	return 0;
}

/* "1 PID:TICKS" once tracing is live; EOF if the daemon gave up */
static int wait_ready(int fd, const struct sidecar_opts *o)
{
	char buf[8 + FP_SC_ID_LEN];
	size_t have = 0;
	ssize_t n;

	while (have < sizeof(buf) - 1 &&
	       (n = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0)
		have += n;
	buf[have] = '\0';
	if (have < 3 || buf[0] != '1' || buf[1] != ' ') {
		fprintf(stderr, "footprint: the sidecar did not start\n");
		return FP_EXIT_NOTRACE;
	}
	if (o->json) {
		printf("{\"daemon\":\"%s\",\"state\":", buf + 2);
		json_string(stdout, o->state, strlen(o->state));
		printf("}\n");
		fflush(stdout);
	}
	return FP_EXIT_OK;
}

/* Who the daemon is for, and what it is to trace: the scope, the
 * invoking user (who may mark), the start that made it. */
static int plan_daemon(struct sidecar_opts *o, const struct fp_creds *c,
		       struct fp_sidecar_state *st)
{
	/* --cgroup adds to the runner's tree (docker's cgroups for container
	 * jobs and services); --pid-tree replaces it */
	if (!o->npid_trees) {
		pid_t worker = find_runner_worker();

		if (worker) {
			o->pid_trees[o->npid_trees++] = worker;
			if (!o->step_parent)
				o->step_parent = worker;
		} else if (!o->ncgroups) {
			fprintf(stderr,
				"footprint: say what to trace: --pid-tree PID or --cgroup PATH (no Runner.Worker is among this process's ancestors)\n");
			return FP_EXIT_USAGE;
		}
	}
	st->stop_conn = -1;
	st->epoll_fd = -1;
	st->journal.fd = -1;
	st->owner = c->active ? c->uid : 0;
	st->start_pid = getpid();
	st->step_parent = o->step_parent;
	scope_ids(o, st);
	return 0;
}

/*
 * The daemon is a grandchild in a session of its own (no terminal, no
 * job control, not the runner's step); start returns once it said it is
 * tracing, with its error otherwise.
 */
int sidecar_start(struct sidecar_opts *o, const struct fp_creds *c)
{
	struct fp_sidecar_state st = { 0 };
	struct fp_policy pol = { 0 };
	char *roots[FP_ROOTS_MAX] = { 0 };
	int statefd, pfd[2], status, rc;
	pid_t pid;
	size_t i;

	if (geteuid() != 0) {
		fprintf(stderr,
			"footprint: tracing needs root; run it under sudo: sudo footprint sidecar start\n");
		return FP_EXIT_NOTRACE;
	}
	rc = plan_daemon(o, c, &st);
	if (rc)
		return rc;
	if (!o->args.nroots)
		o->args.roots_arg[o->args.nroots++] = ".";
	rc = fp_resolve_roots(o->args.roots_arg, o->args.nroots, c, roots);
	if (!rc)
		rc = fp_rule_args_policy(&o->args.rules, &pol, c, roots,
					 o->args.nroots);
	if (rc)
		goto cleanup;
	rc = FP_EXIT_USAGE;
	statefd = sidecar_open_state(o, c, true);
	if (statefd < 0)
		goto cleanup;
	/* held by the daemon (it keeps statefd) for as long as it lives:
	 * two starts at once cannot both take the directory */
	if (flock(statefd, LOCK_EX | LOCK_NB) || fp_sc_alive(statefd)) {
		fprintf(stderr,
			"footprint: a sidecar already runs with state %s; stop it first (sudo footprint sidecar stop)\n",
			o->state);
		close(statefd);
		goto cleanup;
	}
	if (take_state(o, statefd, &st)) {
		close(statefd);
		goto cleanup;
	}
	rc = FP_EXIT_NOTRACE;
	if (pipe2(pfd, O_CLOEXEC)) {
		close(statefd);
		goto cleanup;
	}
	st.ready_fd = pfd[1];
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		setsid();
		if (fork() == 0)
			_exit(run_daemon(o, statefd, &st, roots, &pol, c));
		_exit(0);
	}
	close(pfd[1]);
	close(statefd);
	if (pid > 0) {
		waitpid(pid, &status, 0);
		rc = wait_ready(pfd[0], o);
	}
	close(pfd[0]);
cleanup:
	fp_policy_free(&pol);
	for (i = 0; i < FP_ROOTS_MAX; i++)
		free(roots[i]);
	return rc;
}
