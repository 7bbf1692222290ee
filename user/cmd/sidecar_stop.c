// SPDX-License-Identifier: GPL-2.0
/* sidecar status, mark and stop: the clients of the daemon's socket, and
 * the verdict of a daemon that is gone (fail closed). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/openat2.h>
#include <linux/sched.h>

#include "cli.h"
#include "fleet.h"
#include "sidecar.h"
#include "sidecar_journal.h"
#include "sidecar_peer.h"
#include "summary_md.h"

#include "sidecar_cmd.h"

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

/*
 * stop is footprint's own, not the job's: it goes on in a child born in
 * the daemon's cgroup (clone3 CLONE_INTO_CGROUP), so that nothing it
 * writes is traced. Returns 1 in that child; 0 in the caller once the
 * child is done, with its exit code in *code; -1 when it must go on
 * where it is.
 */
static int leave_the_job(int statefd, int *code)
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

/* A client that waits for an answer waits this long at most (status,
 * mark, hello): a daemon that does not answer is not worth a hung job. */
static void answer_within(int fd, int seconds)
{
	struct timeval tv = { seconds, 0 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* Before stop writes anything: the daemon knows it for footprint's own. */
static void say_hello(int statefd)
{
	char req = FP_SC_HELLO, ack;
	int fd = sidecar_connect(statefd, NULL);

	if (fd < 0)
		return;
	answer_within(fd, 30);
	if (send(fd, &req, 1, MSG_NOSIGNAL) == 1 && recv(fd, &ack, 1, 0) == 1)
		(void)ack;
	close(fd);
}

/* ---- status ---- */

int sidecar_status(struct sidecar_opts *o)
{
	char buf[4096], req = o->json ? FP_SC_STATUS : FP_SC_STATUS_TEXT;
	int statefd = sidecar_open_state(o, NULL, false), fd;
	ssize_t n;

	if (statefd < 0)
		return FP_EXIT_USAGE;
	fd = sidecar_connect(statefd, o->state);
	if (fd >= 0)
		answer_within(fd, 30);
	close(statefd);
	if (fd < 0) {
		fprintf(stderr,
			"footprint: no sidecar answers in %s (%s); `footprint sidecar stop` will judge what it recorded\n",
			o->state, strerror(-fd));
		return FP_EXIT_VERDICT;
	}
	n = (send(fd, &req, 1, 0) == 1) ? recv(fd, buf, sizeof(buf), 0) : -1;
	close(fd);
	if (n <= 0) {
		fprintf(stderr, "footprint: the sidecar did not answer\n");
		return FP_EXIT_VERDICT;
	}
	/* JSON to stdout, the human lines to stderr */
	fwrite(buf, 1, n, o->json ? stdout : stderr);
	return FP_EXIT_OK;
}

/* ---- mark ---- */

int sidecar_mark(struct sidecar_opts *o)
{
	char req[260], ack = 0;
	int statefd = sidecar_open_state(o, NULL, false), fd;
	size_t len = strlen(o->name);

	if (statefd < 0)
		return FP_EXIT_USAGE;
	fd = sidecar_connect(statefd, o->state);
	if (fd >= 0)
		answer_within(fd, 30);
	close(statefd);
	if (fd < 0) {
		fprintf(stderr, "footprint: no sidecar answers in %s (%s)\n",
			o->state, strerror(-fd));
		return FP_EXIT_VERDICT;
	}
	req[0] = FP_SC_MARK;
	memcpy(req + 1, o->name, len);
	if (send(fd, req, len + 1, MSG_NOSIGNAL) != (ssize_t)len + 1 ||
	    recv(fd, &ack, 1, 0) != 1 || ack != 'K') {
		fprintf(stderr,
			"footprint: the sidecar did not take the mark\n");
		close(fd);
		return FP_EXIT_VERDICT;
	}
	close(fd);
	return FP_EXIT_OK;
}

/* ---- stop ---- */

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
		      const char *why, const struct sidecar_opts *o)
{
	FILE *md;
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
		if (receipt)
			fp_run_receipt(receipt, &run, &f, &v, &out);
		md = summary_fd >= 0 ? fdopen(dup(summary_fd), "w") : NULL;
		if (md) {
			fp_summary_md_write(md, &f, &v, FP_MD_SUMMARY_MAX);
			fclose(md);
		}
		if (o->annotations)
			fp_annotations_write(stdout, &f, &v,
					     FP_ANNOTATIONS_MAX);
		if (!o->quiet) {
			struct fp_summary_opts so = { false, o->summary_max };

			fp_summary_write_opts(stderr, &f, &v, &so);
		}
	}
	fp_verdict_free(&v);
	fp_findings_free(&f);
	fp_policy_free(&pol);
	fp_run_free(&run);
	return rc;
}

/* Ask the daemon for the verdict: "R <code>", or -1 if it died. expect:
 * the daemon's identity this stop expects, or NULL. */
static int ask_stop(int conn, int receipt_fd, int summary_fd,
		    const struct sidecar_opts *o, const char *expect)
{
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int fds[4] = { receipt_fd >= 0 ? receipt_fd : devnull,
		       summary_fd >= 0 ? summary_fd : devnull, STDOUT_FILENO,
		       STDERR_FILENO };
	char req[32 + FP_SC_ID_LEN] = { FP_SC_STOP, o->annotations ? 'a' : '-',
					o->quiet ? 'q' : '-' };
	char ctl[CMSG_SPACE(sizeof(fds))], buf[64];
	/* "X", annotations, quiet, --summary-max in decimal, the daemon */
	struct iovec iov = { req,
			     3 + snprintf(req + 3, sizeof(req) - 3, "%zu%s%s",
					  o->summary_max, expect ? " " : "",
					  expect ? expect : "") };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl,
			    .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	ssize_t n;
	int rc = -1;

	if (devnull < 0)
		return -1;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	if (sendmsg(conn, &m, MSG_NOSIGNAL) == (ssize_t)iov.iov_len) {
		n = recv(conn, buf, sizeof(buf) - 1, 0);
		if (n > 2 && buf[0] == 'R') {
			buf[n] = '\0';
			rc = atoi(buf + 2);
		}
	}
	close(devnull);
	return rc;
}

/*
 * The daemon this stop should find: --daemon's, else the journal's last
 * start. The one found answers for itself (the request carries this, and
 * a genuine daemon that is someone else adds a tamper finding), but only
 * once stop knows it is footprint at all: a control socket served by
 * anything else gets nothing.
 */
struct stop_ctx {
	struct fp_sc_last last;
	char expect[FP_SC_ID_LEN];
	char why[256]; /* judge_dead's reason, when there is no verdict */
};

static int daemon_is_footprint(int conn, struct stop_ctx *x)
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

static void why_no_daemon(struct stop_ctx *x, int conn, int rc)
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
static void journal_dead(int statefd, const struct stop_ctx *x)
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

/* The verdict: the daemon's, or (fail closed) what its log says. */
static int get_verdict(int statefd, struct stop_ctx *x,
		       struct fp_output *receipt, struct fp_output *summary,
		       const struct sidecar_opts *o)
{
	int conn = sidecar_connect(statefd, o->state), rc = -1;
	FILE *rf = NULL;

	if (conn >= 0 && daemon_is_footprint(conn, x))
		rc = ask_stop(conn,
			      o->receipt_path && !strcmp(o->receipt_path, "-") ?
				      STDOUT_FILENO :
				      receipt->fd,
			      summary->fd, o, x->expect[0] ? x->expect : NULL);
	if (conn >= 0)
		close(conn);
	if (rc >= 0)
		return rc;
	why_no_daemon(x, conn, rc);
	if (receipt->fd >= 0)
		rf = fdopen(dup(receipt->fd), "w");
	else if (o->receipt_path)
		rf = stdout;
	rc = judge_dead(statefd, rf, summary->fd, x->why, o);
	if (rf && rf != stdout)
		fclose(rf);
	journal_dead(statefd, x);
	return rc;
}

/* the receipt in mfd (from its start) to out, a file or stdout */
static int copy_receipt(int mfd, int out)
{
	char buf[65536];
	ssize_t n, w, k;

	if (lseek(mfd, 0, SEEK_SET))
		return -errno;
	while ((n = read(mfd, buf, sizeof(buf))) > 0)
		for (k = 0; k < n; k += w)
			if ((w = write(out, buf + k, n - k)) < 0)
				return -errno;
	return n < 0 ? -errno : 0;
}

/*
 * stop --push: the daemon writes the receipt where it can be read back
 * (a memfd), then it goes to --receipt's file or stdout, and to the
 * store (or the spool).
 */
static int stop_and_push(int statefd, struct stop_ctx *x,
			 struct fp_output *receipt, struct fp_output *summary,
			 const struct sidecar_opts *o, const struct fp_creds *c)
{
	struct fp_fleet_opts fo = { .url = o->push_url,
				    .creds = c,
				    .job = o->push_job,
				    .quiet = o->quiet };
	struct sidecar_opts po = *o;
	int file = receipt->fd, mfd, rc, e = 0;

	mfd = memfd_create("footprint-receipt", MFD_CLOEXEC);
	if (mfd < 0) {
		fprintf(stderr,
			"footprint: no memory for the receipt --push sends: %s\n",
			strerror(errno));
		return FP_EXIT_NOTRACE;
	}
	po.receipt_path = NULL;
	receipt->fd = mfd;
	rc = get_verdict(statefd, x, receipt, summary, &po);
	receipt->fd = file;
	if (file >= 0)
		e = copy_receipt(mfd, file);
	else if (o->receipt_path)
		e = copy_receipt(mfd, STDOUT_FILENO);
	if (e)
		fprintf(stderr, "footprint: writing the receipt failed: %s\n",
			strerror(-e));
	/* neither pushed nor spooled: an output that failed */
	if (fp_fleet_push_receipt_fd(&fo, mfd, c->active ? c->name : "root") ||
	    e)
		rc = rc == FP_EXIT_OK ? FP_EXIT_NOTRACE : rc;
	return rc;
}

static int prepare_outputs(int statefd, struct fp_output *receipt,
			   struct fp_output *summary,
			   const struct sidecar_opts *o,
			   const struct fp_creds *c)
{
	static char rootbuf[FP_ROOTS_MAX * (PATH_MAX + 1)];
	char *roots[FP_ROOTS_MAX];
	size_t nroots;
	int rc;

	receipt->path = o->receipt_path;
	nroots = sidecar_read_roots(statefd, rootbuf, sizeof(rootbuf), roots,
				    64);
	summary->path = o->summary_path;
	rc = fp_output_prepare(receipt, c, roots, nroots);
	if (!rc)
		rc = fp_output_prepare(summary, c, roots, nroots);
	if (!rc && o->receipt_path && strcmp(o->receipt_path, "-") &&
	    fp_output_create(receipt, c, true) < 0)
		rc = FP_EXIT_USAGE;
	if (!rc && o->summary_path && strcmp(o->summary_path, "-") &&
	    fp_output_create(summary, c, true) < 0)
		rc = FP_EXIT_USAGE;
	return rc;
}

int sidecar_stop(struct sidecar_opts *o, const struct fp_creds *c)
{
	struct fp_output receipt = FP_OUTPUT_INIT("the receipt");
	struct fp_output summary = FP_OUTPUT_INIT("the job summary");
	struct stop_ctx x = { 0 };
	struct sidecar_attest sa = { .mfd = -1 };
	int statefd, rc, where;
	bool in_child;

	if (geteuid() != 0) {
		fprintf(stderr,
			"footprint: stopping the sidecar needs root; run it under sudo: sudo footprint sidecar stop\n");
		return FP_EXIT_NOTRACE;
	}
	statefd = sidecar_open_state(o, c, false);
	if (statefd < 0)
		return FP_EXIT_USAGE;
	where = leave_the_job(statefd, &rc);
	if (where == 0) {
		close(statefd);
		return rc;
	}
	in_child = where == 1;
	say_hello(statefd);
	if (fp_sc_journal_last(statefd, &x.last))
		memset(&x.last, 0, sizeof(x.last));
	if (o->daemon_id)
		snprintf(x.expect, sizeof(x.expect), "%s", o->daemon_id);
	else if (x.last.any)
		fp_sc_id(x.expect, x.last.daemon, x.last.ticks);
	rc = prepare_outputs(statefd, &receipt, &summary, o, c);
	if (!rc)
		rc = sidecar_attest_begin(&sa, &receipt, o, c);
	if (!rc) {
		rc = o->push_url ?
			     stop_and_push(statefd, &x, &receipt, &summary, o,
					   c) :
			     get_verdict(statefd, &x, &receipt, &summary, o);
		rc = sidecar_attest_end(&sa, &receipt, o, rc);
	}
	close(statefd);
	if (c->active) {
		fp_output_hand_over(&receipt, 1, c->uid, c->gid, c->name);
		fp_output_hand_over(&summary, 1, c->uid, c->gid, c->name);
	}
	if (receipt.fd >= 0)
		close(receipt.fd);
	if (summary.fd >= 0)
		close(summary.fd);
	fp_output_close(&receipt);
	fp_output_close(&summary);
	if (in_child) {
		fflush(stdout);
		_exit(rc);
	}
	return rc;
}
