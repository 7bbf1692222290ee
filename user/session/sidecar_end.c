// SPDX-License-Identifier: GPL-2.0
/*
 * sidecar stop's end of the daemon (sidecar.h): out of the job, the
 * verdict asked of the daemon, or, when it is gone, judged from the log
 * it left (fail closed).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <linux/sched.h>

#include "cli.h"
#include "logrun.h"
#include "report_path.h"
#include "sidecar.h"

/*
 * The job's next step may be the runner reaping every cgroup it made:
 * stop returns once the daemon is gone with its own. Bounded, so that a
 * daemon stuck in teardown does not hang the job.
 */
static void wait_for_daemon_exit(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	if (pidfd < 0)
		return;
	while (poll(&p, 1, 15000) < 0 && errno == EINTR)
		;
	close(pidfd);
}

int fp_sidecar_leave_job(int statefd, int *code)
{
	char procs[PATH_MAX + 64], *slash;
	struct clone_args ca = { .flags = CLONE_INTO_CGROUP,
				 .exit_signal = SIGCHLD };
	int pid, status, cgfd, daemon,
		fd = openat(statefd, FP_SIDECAR_PID,
			    O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	long child;

	if (!f)
		return -1;
	if (fscanf(f, "%d\n%4159s", &pid, procs) != 2 ||
	    strncmp(procs, "/sys/fs/cgroup/", 15) ||
	    !(slash = strrchr(procs, '/'))) {
		fclose(f);
		return -1;
	}
	fclose(f);
	*slash = '\0';
	/* taken before the child asks: the daemon, not a later reuse of pid.
	 * A dead daemon's cgroup is a dead run's to the next `footprint run`,
	 * which kills what is in it: stop then stays where it is */
	daemon = syscall(SYS_pidfd_open, pid, 0);
	if (daemon < 0)
		return -1;
	cgfd = open(procs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cgfd < 0) {
		close(daemon);
		return -1;
	}
	ca.cgroup = cgfd;
	child = syscall(SYS_clone3, &ca, sizeof(ca));
	close(cgfd);
	if (child <= 0) {
		if (daemon >= 0)
			close(daemon);
		return child == 0 ? 1 : -1;
	}
	*code = FP_EXIT_NOTRACE;
	if (waitpid(child, &status, 0) == child && WIFEXITED(status))
		*code = WEXITSTATUS(status);
	else
		fprintf(stderr,
			"footprint: the stop was killed in the daemon's cgroup; nothing says the job was clean: run `sudo footprint sidecar stop` again\n");
	wait_for_daemon_exit(daemon);
	return 0;
}

/* Before stop writes anything: the daemon knows it for footprint's own. */
static void say_hello(int statefd)
{
	char req = FP_SC_HELLO, ack;
	int fd = fp_sc_connect(statefd);

	if (fd < 0)
		return;
	fp_sc_ask(fd, &req, 1, &ack, 1, 30);
	close(fd);
}

void fp_sidecar_stop_init(struct fp_sidecar_stop *x, int statefd,
			  const char *daemon_id)
{
	x->statefd = statefd;
	x->why[0] = '\0';
	say_hello(statefd);
	if (fp_sc_journal_last(statefd, &x->last))
		memset(&x->last, 0, sizeof(x->last));
	x->req.expect[0] = '\0';
	if (daemon_id)
		snprintf(x->req.expect, sizeof(x->req.expect), "%s", daemon_id);
	else if (x->last.any)
		fp_sc_id(x->req.expect, x->last.daemon, x->last.ticks);
}

/* The log the daemon left: in the state directory, or where --record put
 * it (the same file: device and inode as recorded at start). Its
 * segments, if any, are *name.N in *dirfd (statefd or one to close). */
static int dead_log_fd(int statefd, int *dirfd, char **name)
{
	unsigned long long dev, ino;
	char path[PATH_MAX + 2], *slash;
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS |
					   RESOLVE_NO_MAGICLINKS };
	struct open_how dhow = how;
	struct stat st;
	FILE *f;
	int fd = openat(statefd, FP_SIDECAR_LOG_ID,
			O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	*dirfd = statefd;
	*name = strdup(FP_SIDECAR_LOG);
	if (fd < 0)
		return openat(statefd, FP_SIDECAR_LOG,
			      O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	f = fdopen(fd, "r");
	if (!f || fscanf(f, "%llu %llu\n", &dev, &ino) != 2 ||
	    !fgets(path, sizeof(path), f) || !(slash = strrchr(path, '/'))) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	*slash = '\0';
	dhow.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
	*dirfd = syscall(SYS_openat2, AT_FDCWD, *path ? path : "/", &dhow,
			 sizeof(dhow));
	free(*name);
	*name = strdup(slash + 1);
	if (*dirfd < 0)
		return -1;
	fd = syscall(SYS_openat2, *dirfd, slash + 1, &how, sizeof(how));
	if (fd >= 0 &&
	    (fstat(fd, &st) || st.st_dev != dev || st.st_ino != ino)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Fail closed: the daemon is gone. What it recorded is judged all the
 * same, and the verdict fails, saying why.
 */
static int judge_dead(int statefd, FILE *receipt, int summary_fd,
		      const char *why, const struct fp_sc_stop_req *o)
{
	struct fp_run run;
	struct fp_policy pol = { 0 };
	struct fp_findings f = { 0 };
	struct fp_verdict v = { 0 };
	struct fp_outcome out;
	char err[1600], *name;
	int dirfd, fd = dead_log_fd(statefd, &dirfd, &name), ret;
	int rc = FP_EXIT_VERDICT;

	fprintf(stderr, "footprint: %s; judging what it recorded\n", why);
	if (fd < 0 || !name || fp_run_init(&run)) {
		fprintf(stderr,
			"footprint: the sidecar's log cannot be read; the verdict fails\n");
		if (fd >= 0)
			close(fd);
		if (dirfd >= 0 && dirfd != statefd)
			close(dirfd);
		free(name);
		return FP_EXIT_VERDICT;
	}
	/* fd is taken; the segments after it are read from its directory */
	ret = fp_log_load_fd(fd, dirfd, name, name, &run, NULL, NULL, err,
			     sizeof(err));
	if (dirfd != statefd)
		close(dirfd);
	free(name);
	if (ret && ret != -ENODATA)
		fprintf(stderr, "%s\n", err);
	/* the daemon's end first, then whatever the log itself says (a gap) */
	if (run.incomplete_why) {
		char *both = NULL;

		if (asprintf(&both, "%s; %s", why, run.incomplete_why) < 0)
			both = NULL;
		free(run.incomplete_why);
		run.incomplete_why = both;
	} else {
		run.incomplete_why = strdup(why);
	}
	run.have_trailer = false;
	if ((!ret || ret == -ENODATA) &&
	    !fp_run_policy(&run, &pol, err, sizeof(err)) &&
	    !fp_run_judge(&run, &pol, &f, &v, &out)) {
		struct fp_report_outputs ro = FP_REPORT_OUTPUTS_INIT;

		ro.receipt = receipt;
		ro.markdown_fd = summary_fd;
		ro.annotations = o->annotations;
		ro.quiet = o->quiet;
		ro.summary_max = o->summary_max;
		fp_report_judged(
			&(struct fp_judged){ &run, &f, &v, &out, NULL }, &ro,
			rc);
	}
	fp_verdict_free(&v);
	fp_findings_free(&f);
	fp_policy_free(&pol);
	fp_run_free(&run);
	return rc;
}

/* Ask the daemon for the verdict: its exit code, or -1 if it died. */
static int ask_stop(int conn, int receipt_fd, int summary_fd,
		    const struct fp_sc_stop_req *r)
{
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC), rc;
	int fds[FP_SC_STOP_FDS] = {
		[FP_SC_FD_RECEIPT] = receipt_fd >= 0 ? receipt_fd : devnull,
		[FP_SC_FD_SUMMARY] = summary_fd >= 0 ? summary_fd : devnull,
		[FP_SC_FD_STDOUT] = STDOUT_FILENO,
		[FP_SC_FD_STDERR] = STDERR_FILENO,
	};

	if (devnull < 0)
		return -1;
	rc = fp_sc_ask_stop(conn, r, fds);
	close(devnull);
	return rc;
}

static int daemon_is_footprint(int conn, struct fp_sidecar_stop *x)
{
	struct fp_sc_self self;
	struct fp_sc_peer p;

	if (fp_sc_self_init(&self))
		return 0;
	fp_sc_peer_identify(conn, &self, &p);
	if (p.footprint)
		return 1;
	snprintf(
		x->why, sizeof(x->why),
		"the control socket is served by pid %d, which is not footprint: the sidecar was replaced",
		(int)p.pid);
	return 0;
}

static void why_no_daemon(struct fp_sidecar_stop *x, int conn, int rc)
{
	if (x->why[0])
		return;
	if (conn >= 0 && rc < 0)
		snprintf(x->why, sizeof(x->why),
			 "the sidecar daemon died while it was stopping");
	else if (x->last.stopped)
		snprintf(
			x->why, sizeof(x->why),
			"the sidecar was stopped already (%s), so the job after that was not traced",
			x->last.end);
	else
		snprintf(x->why, sizeof(x->why),
			 "the sidecar daemon is gone (killed, or it died)");
}

/* The journal's line for a stop that judged no daemon's verdict. */
static void journal_dead(int statefd, const struct fp_sidecar_stop *x)
{
	struct fp_sc_journal j;
	char id[FP_SC_ID_LEN], why[sizeof(x->why) * 3];

	if (x->last.stopped || fp_sc_journal_open(&j, statefd))
		return;
	fp_sc_id(id, getpid(), fp_proc_start_ticks(getpid()));
	fp_sc_esc(why, sizeof(why), x->why, strlen(x->why));
	fp_sc_journal_line(&j, true, "dead", "by=%s why=%s", id, why);
	fp_sc_journal_close(&j);
}

int fp_sidecar_stop_verdict(struct fp_sidecar_stop *x, int receipt_fd,
			    int summary_fd)
{
	int conn = fp_sc_connect(x->statefd), rc = -1;
	FILE *rf = NULL;

	if (conn >= 0 && daemon_is_footprint(conn, x))
		rc = ask_stop(conn, receipt_fd, summary_fd, &x->req);
	if (conn >= 0)
		close(conn);
	if (rc >= 0)
		return rc;
	why_no_daemon(x, conn, rc);
	/* stdout itself: the receipt before the annotations, as ever */
	if (receipt_fd == STDOUT_FILENO)
		rf = stdout;
	else if (receipt_fd >= 0)
		rf = fdopen(dup(receipt_fd), "w");
	rc = judge_dead(x->statefd, rf, summary_fd, x->why, &x->req);
	if (rf && rf != stdout)
		fclose(rf);
	journal_dead(x->statefd, x);
	return rc;
}
