// SPDX-License-Identifier: GPL-2.0
/* sidecar start: the before snapshot, the scope, and the daemon's birth. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "cli.h"
#include "json.h"
#include "sidecar.h"

#include "sidecar_cmd.h"

/* Tracing starts from an empty log in the state directory, or --record. */
static int daemon_session(struct fp_session *s, struct sidecar_opts *o,
			  int statefd, char **roots, struct fp_policy *pol,
			  const struct fp_creds *c)
{
	struct fp_session_opts so = {
		.roots = roots,
		.nroots = o->nroots,
		.pol = pol,
		.invoker = c,
		.record_path = o->record_path ? o->record_path : FP_SIDECAR_LOG,
		.record_max = o->record_max,
		.log_fd = -1,
		.log_dirfd = statefd,
		.force = true,
		.quiet = true,
		.mem_budget = o->mem_budget,
		.ring_bytes = o->ring_bytes,
		.every_open = o->every_open,
		.report_reads = o->report_reads,
		.max_argv_bytes = 1 << 20,
	};
	int rc;

	if (!o->record_path) {
		so.log_fd = openat(statefd, FP_SIDECAR_LOG,
				   O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
					   O_CLOEXEC,
				   0600);
		if (so.log_fd < 0) {
			fprintf(stderr,
				"footprint: cannot write the log in the state directory: %s\n",
				strerror(errno));
			return FP_EXIT_NOTRACE;
		}
	}
	if (fp_session_init(s, &so)) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_NOTRACE;
	}
	rc = fp_session_prepare(s);
	if (!rc)
		rc = fp_session_outputs(s);
	if (!rc && o->record_path)
		sidecar_write_log_id(statefd, s);
	return rc;
}

/* Point the tracer at the job: cgroups and process trees; never us. */
static int daemon_scope(struct fp_session *s, const struct sidecar_opts *o)
{
	char mnt[PATH_MAX], path[2 * PATH_MAX];
	size_t i;
	int fd, ret;

	if (o->ncgroups && fp_cgroup_mountpoint(mnt, sizeof(mnt))) {
		fprintf(stderr,
			"footprint: no cgroup v2 hierarchy is mounted\n");
		return FP_EXIT_NOTRACE;
	}
	for (i = 0; i < o->ncgroups; i++) {
		size_t ml = strlen(mnt);
		const char *cg = o->cgroups[i];

		/* /sys/fs/cgroup/x as well as /x (below the mount) */
		if (!strncmp(cg, mnt, ml) && (cg[ml] == '/' || !cg[ml]))
			snprintf(path, sizeof(path), "%s", cg);
		else
			snprintf(path, sizeof(path), "%s/%s", mnt, cg);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr,
				"footprint: cannot open cgroup %s: %s; give a path below %s\n",
				path, strerror(errno), mnt);
			return FP_EXIT_USAGE;
		}
		ret = fp_tracer_add_cgroup(s->tracer, fd);
		close(fd);
		if (ret) {
			fprintf(stderr,
				"footprint: cannot trace cgroup %s: %s\n", path,
				strerror(-ret));
			return FP_EXIT_NOTRACE;
		}
	}
	for (i = 0; i < o->npid_trees; i++) {
		ret = fp_tracer_add_pid_tree(s->tracer, o->pid_trees[i]);
		if (ret) {
			fprintf(stderr,
				"footprint: cannot trace the tree of pid %d: %s\n",
				(int)o->pid_trees[i], strerror(-ret));
			return ret == -ESRCH ? FP_EXIT_USAGE : FP_EXIT_NOTRACE;
		}
	}
	if (o->step_parent)
		fp_tracer_set_step_parent(s->tracer, o->step_parent);
	return fp_tracer_add_self(s->tracer, getpid()) ? FP_EXIT_NOTRACE : 0;
}

/*
 * A GitHub Actions job: every step is a child of Runner.Worker, found
 * among start's ancestors (sudo does not keep GITHUB_ACTIONS, so the
 * process tree is asked, not the environment). 0 when there is none.
 */
static pid_t find_runner_worker(void)
{
	char path[64], comm[64], stat[512];
	pid_t pid = getppid();
	int hops, ppid;
	FILE *f;

	for (hops = 0; pid > 1 && hops < 64; hops++) {
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		f = fopen(path, "re");
		if (!f)
			return 0;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
		if (!strcmp(comm, "Runner.Worker\n"))
			return pid;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		f = fopen(path, "re");
		if (!f)
			return 0;
		if (!fgets(stat, sizeof(stat), f) || !strrchr(stat, ')') ||
		    sscanf(strrchr(stat, ')') + 2, "%*c %d", &ppid) != 1) {
			fclose(f);
			return 0;
		}
		fclose(f);
		pid = ppid;
	}
	return 0;
}

/* A sidecar's run: its step parent, and its state directory, a write
 * under which by the job is tampering. */
static int sidecar_header(struct fp_session *s, const struct sidecar_opts *o,
			  int statefd)
{
	char link[64], dir[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", statefd);
	n = readlink(link, dir, sizeof(dir) - 1);
	if (n <= 0 || n == sizeof(dir) - 1)
		return -ENAMETOOLONG;
	dir[n] = '\0';
	return fp_run_set_sidecar(&s->run, o->step_parent, dir);
}

/* The daemon never traces itself: it lives in a cgroup of its own. */
static int daemon_cgroup(struct fp_cgroup *cg)
{
	char err[512], procs[sizeof(cg->path) + 16];
	FILE *f;

	if (fp_cgroup_create(cg, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_NOTRACE;
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg->path);
	f = fopen(procs, "we");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
		fprintf(stderr, "footprint: cannot move into %s: %s\n",
			cg->path, strerror(errno));
		return FP_EXIT_NOTRACE;
	}
	return 0;
}

/* the daemon's pid, and its cgroup, where `stop` moves itself so that
 * its own outputs are not the job's */
static void leave_cgroup(const struct fp_cgroup *cg)
{
	char procs[sizeof(cg->path) + 16];
	char *slash;
	FILE *f;

	snprintf(procs, sizeof(procs), "%s", cg->path);
	slash = strrchr(procs, '/');
	if (!slash)
		return;
	strcpy(slash, "/cgroup.procs");
	f = fopen(procs, "we");
	if (f) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
}

/* Bounded: a stop that hangs must not keep the daemon forever. */
static void wait_for_stop_to_leave(const struct fp_cgroup *cg)
{
	struct timespec step = { 0, 2 * 1000 * 1000 };
	int waited;

	for (waited = 0; waited < 10000; waited += 2) {
		if (fp_cgroup_populated(cg) != 1)
			return;
		nanosleep(&step, NULL);
	}
}

/* stdio of the job is not ours to keep once tracing is live */
static void detach_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

static int run_daemon(struct sidecar_opts *o, int statefd,
		      struct fp_sidecar_state *start, char **roots,
		      struct fp_policy *pol, const struct fp_creds *c)
{
	static char *const argv[] = { "footprint", "sidecar", NULL };
	struct fp_sidecar_state st = *start;
	struct fp_cgroup cg = { .fd = -1 };
	struct fp_session s = { 0 };
	char err[512];
	int rc;

	static const int ignored[] = { SIGTERM, SIGINT,	 SIGHUP, SIGQUIT,
				       SIGUSR1, SIGUSR2, SIGPIPE };
	size_t i;

	/* the runner kills what carries its tracking id after the job */
	unsetenv("RUNNER_TRACKING_ID");
	/* a signal from the job is tamper evidence (the kernel side sees
	 * it sent), not the end of the trace; only SIGKILL ends it, and
	 * stop then fails closed */
	for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	prctl(PR_SET_DUMPABLE, 0);
	if (fp_sc_self_init(&st.self) ||
	    fp_sc_journal_open(&st.journal, statefd)) {
		fprintf(stderr,
			"footprint: cannot keep the journal in the state directory: %s\n",
			strerror(errno));
		return FP_EXIT_NOTRACE;
	}
	rc = daemon_cgroup(&cg);
	if (!rc && fp_sc_self_cgroup(&st.self))
		rc = FP_EXIT_NOTRACE;
	if (!rc)
		rc = daemon_session(&s, o, statefd, roots, pol, c);
	if (!rc && sidecar_header(&s, o, statefd))
		rc = FP_EXIT_NOTRACE;
	/* relative outputs are open: nothing keeps a directory busy now */
	if (!rc && chdir("/"))
		rc = FP_EXIT_NOTRACE;
	if (!rc && fp_session_open_tracer(&s, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		rc = FP_EXIT_NOTRACE;
	}
	if (!rc && fp_session_header(&s, argv, cg.rel))
		rc = FP_EXIT_NOTRACE;
	if (!rc)
		rc = daemon_scope(&s, o);
	if (!rc)
		rc = fp_session_before(&s);
	if (!rc && fp_session_attach(&s, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		rc = FP_EXIT_NOTRACE;
	}
	if (!rc) {
		st.listen_fd = sidecar_listen(statefd);
		if (st.listen_fd < 0) {
			fprintf(stderr,
				"footprint: cannot listen in the state directory: %s\n",
				strerror(errno));
			rc = FP_EXIT_NOTRACE;
		}
	}
	if (!rc) {
		sidecar_write_pidfile(statefd, &cg);
		sidecar_write_roots(statefd, roots, o->nroots);
		fp_sidecar_started(&s, &st);
		detach_stdio();
		rc = fp_sidecar_serve(&s, &st);
		unlinkat(statefd, FP_SIDECAR_CTL, 0);
		unlinkat(statefd, FP_SIDECAR_PID, 0);
	}
	fp_session_free(&s);
	if (cg.fd >= 0) {
		/* out of our own cgroup first: a cgroup with us in it stays */
		leave_cgroup(&cg);
	}
	fp_sidecar_answer(&st, rc);
	if (cg.fd >= 0) {
		/* stop's child waits in it for the answer, then exits */
		wait_for_stop_to_leave(&cg);
		fp_cgroup_remove(&cg);
	}
	fp_sc_journal_close(&st.journal);
	return rc;
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
	if (!last.any && !sidecar_state_empty(statefd)) {
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
	if (!o->nroots)
		o->roots_arg[o->nroots++] = ".";
	rc = fp_resolve_roots(o->roots_arg, o->nroots, c, roots);
	if (!rc)
		rc = fp_rule_args_policy(&o->rules, &pol, c, roots, o->nroots);
	if (rc)
		goto cleanup;
	rc = FP_EXIT_USAGE;
	statefd = sidecar_open_state(o, c, true);
	if (statefd < 0)
		goto cleanup;
	/* held by the daemon (it keeps statefd) for as long as it lives:
	 * two starts at once cannot both take the directory */
	if (flock(statefd, LOCK_EX | LOCK_NB) || sidecar_alive(statefd)) {
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
	for (i = 0; i < 64; i++)
		free(roots[i]);
	return rc;
}
