// SPDX-License-Identifier: GPL-2.0
/*
 * The sidecar's daemon from its birth to its end (sidecar.h): its own
 * cgroup, the session and its scope, the state files, the loop
 * (sidecar.c), and the teardown that stop's answer waits for.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "cgroup_move.h"
#include "cli.h"
#include "sidecar.h"

/* Tracing starts from an empty log in the state directory, or --record. */
static int daemon_session(struct fp_session *s, const struct fp_sidecar_opts *o)
{
	int statefd = o->statefd;
	struct fp_session_opts so = o->so;
	int rc;

	/* the daemon writes the log; stop writes the receipt */
	so.receipt_path = NULL;
	so.record_path = so.record_path ? so.record_path : FP_SIDECAR_LOG;
	so.log_fd = -1;
	so.log_dirfd = statefd;
	so.force = true;
	so.quiet = true;
	if (!o->so.record_path) {
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
	if (!rc && o->so.record_path && fp_sidecar_write_log_id(statefd, s))
		rc = FP_EXIT_NOTRACE;
	return rc;
}

/* Point the tracer at the job: cgroups and process trees; never us. */
static int daemon_scope(struct fp_session *s, const struct fp_sidecar_opts *o)
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

/* A sidecar's run: its step parent, and its state directory, a write
 * under which by the job is tampering. */
static int sidecar_header(struct fp_session *s, const struct fp_sidecar_opts *o)
{
	char link[64], dir[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", o->statefd);
	n = readlink(link, dir, sizeof(dir) - 1);
	if (n <= 0 || n == sizeof(dir) - 1)
		return -ENAMETOOLONG;
	dir[n] = '\0';
	return fp_run_set_sidecar(&s->run, o->step_parent, dir);
}

/* The daemon never traces itself: it lives in a cgroup of its own. */
static int daemon_cgroup(struct fp_cgroup *cg)
{
	char err[512];
	int ret;

	if (fp_cgroup_create(cg, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_NOTRACE;
	}
	ret = fp_cgroup_move(cg->fd, getpid());
	if (ret) {
		fprintf(stderr, "footprint: cannot move into %s: %s\n",
			cg->path, strerror(-ret));
		return FP_EXIT_NOTRACE;
	}
	return 0;
}

/* the daemon's pid, and its cgroup, where `stop` moves itself so that
 * its own outputs are not the job's */
static void leave_cgroup(const struct fp_cgroup *cg)
{
	char parent[sizeof(cg->path)];
	char *slash;

	snprintf(parent, sizeof(parent), "%s", cg->path);
	slash = strrchr(parent, '/');
	if (!slash)
		return;
	*slash = '\0';
	fp_cgroup_move_path(parent, getpid());
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

int fp_sidecar_daemon(const struct fp_sidecar_opts *o,
		      struct fp_sidecar_state *start)
{
	int statefd = o->statefd;
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
		rc = daemon_session(&s, o);
	if (!rc && sidecar_header(&s, o))
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
		st.listen_fd = fp_sc_listen(statefd);
		if (st.listen_fd < 0) {
			fprintf(stderr,
				"footprint: cannot listen in the state directory: %s\n",
				strerror(errno));
			rc = FP_EXIT_NOTRACE;
		}
	}
	if (!rc &&
	    (fp_sidecar_write_pidfile(statefd, &cg) ||
	     fp_sidecar_write_roots(statefd, o->so.roots, o->so.nroots))) {
		/* no daemon's pid for one that never served */
		unlinkat(statefd, FP_SIDECAR_PID, 0);
		rc = FP_EXIT_NOTRACE;
	}
	if (!rc) {
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
