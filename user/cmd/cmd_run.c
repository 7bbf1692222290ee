// SPDX-License-Identifier: GPL-2.0
/* footprint run: trace one command in its own cgroup. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pwd.h>
#include <sys/utsname.h>
#include <time.h>

#include <sys/timerfd.h>

#include "cgroup.h"
#include "creds.h"
#include "identity.h"
#include "cli.h"
#include "collector.h"
#include "creds.h"
#include "event_json.h"
#include "judge.h"
#include "logcodec.h"
#include "logrun.h"
#include "run.h"
#include "launch.h"
#include "policy.h"
#include "receipt.h"
#include "reconcile.h"
#include "rule_args.h"
#include "run_args.h"
#include "runloop.h"
#include "snapshot_fs.h"
#include "snapshot_net.h"
#include "snapshot_proc.h"
#include "tracer.h"
#include "userfile.h"
#include "watchdog.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A file footprint writes for the invoking user. */
struct run_output {
	const char *what;
	const char *path; /* NULL: not asked for; "-": stdout */
	struct fp_outdir dir;
	int fd; /* once created */
};

struct run_sink {
	FILE *events;
	struct fp_recon *recon;
	int recon_err;
	struct fp_log_sink *log;
	const char *log_path;
	int log_err;
};

static int log_failed(struct run_sink *s, int ret)
{
	if (ret && !s->log_err) {
		s->log_err = ret;
		fprintf(stderr, "footprint: writing the log %s failed: %s\n",
			s->log_path, strerror(-ret));
	}
	return ret;
}

static int sink_event(void *ctx, const struct fp_event *ev)
{
	struct run_sink *s = ctx;
	int err;

	err = fp_recon_feed(s->recon, ev);
	if (err && !s->recon_err)
		s->recon_err = err;
	if (s->log && !s->log_err)
		log_failed(s, fp_log_event(s->log, ev));
	if (s->events)
		fp_event_write_json(s->events, ev);
	return 0;
}

static void write_stats_json(FILE *f, const struct fp_trace_stats *st,
			     const struct fp_collector *col)
{
	unsigned int i;

	fprintf(f,
		"{\"type\":\"stats\",\"events\":%" PRIu64
		",\"records\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"lost_ringbuf\":%" PRIu64 ",\"lost_pending\":%" PRIu64
		",\"lost_recursion\":%" PRIu64 ",\"lost_compat\":%" PRIu64
		",\"lost_malformed\":%" PRIu64 ",\"argv_incomplete\":%" PRIu64
		",\"lost_per_cpu\":[",
		col->delivered, col->records, st->lost + col->malformed,
		st->lost_ringbuf, st->lost_pending, st->lost_recursion,
		st->lost_compat, col->malformed, col->argv_incomplete);
	for (i = 0; i < st->ncpus; i++)
		fprintf(f, "%s%" PRIu64, i ? "," : "", st->lost_per_cpu[i]);
	fprintf(f, "],\"complete\":%s}\n",
		st->lost + col->malformed ? "false" : "true");
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void progress(void *ctx, uint64_t entries, uint64_t bytes)
{
	fprintf(stderr, "\rfootprint: %s: %llu entries, %llu MiB hashed ",
		(const char *)ctx, (unsigned long long)entries,
		(unsigned long long)(bytes >> 20));
}

/*
 * Open an output's directory with the invoking user's rights, and refuse
 * one inside a watched root: the output would be a finding of its own.
 */
static int prepare_output(struct run_output *out, const struct fp_creds *c,
			  char *const *roots, size_t nroots)
{
	char err[PATH_MAX + 256];
	size_t i;

	out->fd = -1;
	out->dir.dirfd = -1;
	if (!out->path || !strcmp(out->path, "-"))
		return 0;
	if (fp_outdir_open(&out->dir, c, out->what, out->path, err,
			   sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_USAGE;
	}
	for (i = 0; i < nroots; i++) {
		if (fp_path_under(out->dir.real, strlen(out->dir.real),
				  roots[i], strlen(roots[i]))) {
			fprintf(stderr,
				"footprint: %s %s is inside the watched root %s; write it elsewhere (e.g. /tmp)\n",
				out->what, out->path, roots[i]);
			return FP_EXIT_USAGE;
		}
	}
	return 0;
}

/* A new file, created as the invoking user, root's until the run ends. */
static int create_output(struct run_output *out, const struct fp_creds *c,
			 bool replace)
{
	char err[PATH_MAX + 256];

	out->fd = fp_outdir_create(&out->dir, c, out->what, out->path, replace,
				   err, sizeof(err));
	if (out->fd < 0)
		fprintf(stderr, "%s\n", err);
	return out->fd;
}

static FILE *output_stream(struct run_output *out, const struct fp_creds *c)
{
	FILE *f;

	if (!strcmp(out->path, "-"))
		return stdout;
	if (create_output(out, c, true) < 0)
		return NULL;
	f = fdopen(out->fd, "w");
	if (!f)
		fprintf(stderr, "footprint: out of memory\n");
	return f;
}

/* Roots are the user's to name: resolved with the user's rights. */
static int resolve_roots(struct run_opts *o, const struct fp_creds *c,
			 char **roots)
{
	size_t i;
	int e;

	if (!o->nroots)
		o->roots_arg[o->nroots++] = ".";
	for (i = 0; i < o->nroots; i++) {
		e = fp_creds_enter(c);
		if (!e) {
			roots[i] = realpath(o->roots_arg[i], NULL);
			e = errno;
			fp_creds_leave(c);
		}
		errno = e;
		if (!roots[i]) {
			fprintf(stderr,
				"footprint: cannot watch root %s: %s; give an existing directory to --root\n",
				o->roots_arg[i], strerror(errno));
			return FP_EXIT_USAGE;
		}
	}
	return 0;
}

static int take_snapshot(struct fp_run *run, unsigned int phase,
			 struct fp_fs_opts *fo, bool with_fs, bool with_rest)
{
	const char *label = phase == FP_PHASE_BEFORE ? "before" : "after";
	int ret = 0;

	if (with_rest) {
		ret = fp_proc_snapshot(&run->procs[phase]);
		if (!ret)
			ret = fp_sock_snapshot_new(
				&run->socks[phase],
				phase == FP_PHASE_AFTER ?
					&run->socks[FP_PHASE_BEFORE] :
					NULL);
		if (ret) {
			fprintf(stderr,
				"footprint: cannot read the process or socket table: %s\n",
				strerror(-ret));
			return ret;
		}
	}
	if (with_fs) {
		fo->progress_ctx = (void *)label;
		ret = fp_fs_snapshot(&run->fs[phase], run->roots, run->nroots,
				     fo);
		if (fo->progress)
			fputs("\r\033[K", stderr);
		if (ret == -E2BIG)
			fprintf(stderr,
				"footprint: the %s snapshot holds more than --memory-budget (%" PRIu64
				" MiB) allows; %s\n",
				label, fo->max_bytes >> 20,
				phase == FP_PHASE_BEFORE ?
					"watch a smaller --root or raise --memory-budget; the command was not run" :
					"the trace is incomplete and the verdict fails");
		else if (ret == -ETIMEDOUT)
			fprintf(stderr,
				"footprint: the %s snapshot did not finish within --timeout; %s (exit 124)\n",
				label,
				phase == FP_PHASE_BEFORE ?
					"the command was not run" :
					"the trace is incomplete and the verdict fails");
		else if (ret)
			fprintf(stderr, "footprint: %s snapshot failed: %s\n",
				label, strerror(-ret));
		else
			run->have_snap[phase] = true;
	}
	return ret;
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static char *read_line_file(const char *path)
{
	char buf[256];
	FILE *f = fopen(path, "re");
	char *nl;

	if (!f)
		return strdup("");
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return strdup(buf);
}

/* The header of the run: who ran what, where, under which policy. */
static int fill_header(struct fp_run *run, const struct run_opts *o,
		       char **roots, const struct fp_policy *pol,
		       const char *run_cgroup)
{
	struct utsname u;
	struct passwd *pw;
	char cwd[PATH_MAX];
	size_t i, argc = 0;

	for (i = 0; o->argv[i]; i++)
		if (fp_run_add_str(&run->argv, &argc, o->argv[i]))
			return -ENOMEM;
	for (i = 0; i < o->nroots; i++) {
		if (fp_run_add_str(&run->roots, &run->nroots, roots[i]))
			return -ENOMEM;
	}
	if (fp_run_set_policy(run, pol))
		return -ENOMEM;
	uname(&u);
	run->kernel = strdup(u.release);
	run->hostname = strdup(u.nodename);
	run->boot_id = read_line_file("/proc/sys/kernel/random/boot_id");
	run->version = strdup(FOOTPRINT_VERSION);
	run->cwd = strdup(getcwd(cwd, sizeof(cwd)) ? cwd : "");
	run->uid = getuid();
	run->gid = getgid();
	pw = getpwuid(run->uid);
	run->user = strdup(pw ? pw->pw_name : "");
	run->run_cgroup = strdup(run_cgroup);
	run->start_ns = realtime_ns();
	if (!run->kernel || !run->hostname || !run->boot_id || !run->version ||
	    !run->cwd || !run->user || !run->run_cgroup)
		return -ENOMEM;
	return 0;
}

/* The after snapshot gets what is left of --timeout, and at least
 * min(DUR, 5s) when the command used it all up: a receipt of what it did. */
static int64_t after_deadline_ns(int64_t deadline_ms, int64_t timeout_ms)
{
	int64_t least = now_ms() + (timeout_ms < 5000 ? timeout_ms : 5000);

	if (!deadline_ms)
		return 0;
	return (deadline_ms > least ? deadline_ms : least) * 1000000;
}

/* A snapshot past --timeout or its memory budget: the trace is
 * incomplete, and the receipt says why. */
static int snapshot_incomplete(struct fp_run *run, const char *why)
{
	free(run->incomplete_why);
	run->incomplete_why = strdup(why);
	if (run->incomplete_why)
		return 0;
	fprintf(stderr, "footprint: out of memory; no receipt was written\n");
	return -ENOMEM;
}

static void stop_run(struct fp_cgroup *cg)
{
	fp_cgroup_kill(cg);
	if (fp_cgroup_wait_empty(cg, 5000))
		fprintf(stderr,
			"footprint: processes in %s survived SIGKILL; the trace may be incomplete\n",
			cg->path);
}

/*
 * The outputs go to the invoking user (or, for root, to --user's), once the
 * run is over. Only files footprint created itself are ever chowned.
 */
static void hand_over(struct run_output *outs, size_t n,
		      const struct fp_creds *c, const struct fp_identity *id)
{
	uid_t uid = c->active ? c->uid : id->uid;
	gid_t gid = c->active ? c->gid : id->gid;
	size_t i;

	if (!c->active && !id->drop)
		return;
	for (i = 0; i < n; i++) {
		if (outs[i].fd >= 0 && fchown(outs[i].fd, uid, gid))
			fprintf(stderr,
				"footprint: cannot give %s to %s: %s; it stays root's\n",
				outs[i].path, c->active ? c->name : id->name,
				strerror(errno));
	}
}

/*
 * Remove an output that holds nothing worth keeping (a run that never
 * started, a receipt never written), as the user and only if its name
 * still names the file footprint made.
 */
static void discard_output(struct run_output *out, const struct fp_creds *c)
{
	struct stat mine, there;

	if (out->fd < 0 || fstat(out->fd, &mine) || fp_creds_enter(c))
		return;
	if (!fstatat(out->dir.dirfd, out->dir.base, &there,
		     AT_SYMLINK_NOFOLLOW) &&
	    there.st_dev == mine.st_dev && there.st_ino == mine.st_ino)
		unlinkat(out->dir.dirfd, out->dir.base, 0);
	fp_creds_leave(c);
}

/* Under sudo the command runs as the invoking user and nobody else. */
static int check_identity(const struct fp_identity *id,
			  const struct fp_creds *c)
{
	if (!c->active || (id->drop && id->uid == c->uid))
		return 0;
	fprintf(stderr,
		"footprint: under sudo the command runs as %s, the invoking user; --as-root and --user need a root login (e.g. sudo -i, then footprint run --as-root)\n",
		c->name);
	return FP_EXIT_USAGE;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { 0 };
	struct run_sink sink = { 0 };
	struct fp_collector *col = NULL;
	struct fp_tracer *tracer = NULL;
	struct fp_cgroup cg = { .fd = -1 };
	struct fp_child child = { .pid = -1, .pidfd = -1 };
	struct fp_trace_stats st = { 0 };
	struct fp_tracer_opts topts = { 0 };
	struct fp_policy pol = { 0 };
	struct fp_run run;
	struct fp_fs_opts fo = { 0 };
	struct fp_findings findings = { 0 };
	struct fp_verdict verdict = { 0 };
	struct fp_outcome out = { 0 };
	struct fp_enc enc = { 0 };
	struct fp_log_sink log = { .w = { .fd = -1 }, .enc = &enc };
	struct fp_identity id = { 0 };
	struct fp_creds invoker = { 0 };
	struct run_output outs[] = {
		{ .what = "the log", .fd = -1, .dir.dirfd = -1 },
		{ .what = "the events", .fd = -1, .dir.dirfd = -1 },
		{ .what = "the receipt", .fd = -1, .dir.dirfd = -1 },
	};
	struct run_output *log_out = &outs[0], *events_out = &outs[1],
			  *receipt_out = &outs[2];
	struct fp_loop_state ls = { .cg = &cg };
	struct fp_watchdog wd = FP_WATCHDOG_INIT;
	int timerfd = -1, snap_ret = 0;
	bool receipt_written = false;
	int64_t deadline_ms = 0;
	FILE *receipt = NULL;
	char *roots[64] = { 0 };
	sigset_t fwd, old;
	char err[512];
	int sigfd = -1, status = 0, ret, rc = FP_EXIT_NOTRACE;
	int nleft;
	int64_t t0;
	size_t i;

	/* no core dump: it would hold the trace's data, and footprint's fds
	 * (so the watchdog's trigger) open for as long as it is written */
	prctl(PR_SET_DUMPABLE, 0);
	if (fp_run_init(&run)) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_NOTRACE;
	}
	ret = fp_run_args_parse(argc, argv, &o);
	if (ret) {
		fp_run_free(&run);
		if (ret != FP_ARGS_HELP)
			return ret;
		fp_run_usage(stdout);
		return FP_EXIT_OK;
	}
	if (fp_creds_invoker(&invoker, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		rc = FP_EXIT_USAGE;
		goto cleanup;
	}
	log_out->path = o.record_path;
	events_out->path = o.events_path;
	receipt_out->path = o.receipt_path;
	if (o.timeout_ms)
		deadline_ms = now_ms() + o.timeout_ms;
	rc = resolve_roots(&o, &invoker, roots);
	if (!rc)
		rc = fp_rule_args_policy(&o.rules, &pol, &invoker, roots,
					 o.nroots);
	/* --leftovers allow is a rule, so that replay judges the same */
	if (!rc && o.leftovers == LEFTOVERS_ALLOW &&
	    fp_policy_parse_line(&pol, "allow leftover *", 16, roots, o.nroots,
				 err, sizeof(err)))
		rc = FP_EXIT_NOTRACE;
	for (i = 0; !rc && i < ARRAY_SIZE(outs); i++)
		rc = prepare_output(&outs[i], &invoker, roots, o.nroots);
	if (rc)
		goto cleanup;
	rc = FP_EXIT_NOTRACE;
	if (geteuid() != 0) {
		fprintf(stderr,
			"footprint: tracing needs root; run it under sudo: sudo footprint run -- %s\n",
			o.argv[0]);
		goto cleanup;
	}
	if (fp_identity_resolve(&id, o.user, o.as_root, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		rc = FP_EXIT_USAGE;
		goto cleanup;
	}
	rc = check_identity(&id, &invoker);
	if (rc)
		goto cleanup;
	rc = FP_EXIT_NOTRACE;
	/* the log first: it refuses to overwrite, and then nothing else
	 * may have been truncated */
	if (o.record_path) {
		if (create_output(log_out, &invoker, o.force) < 0) {
			rc = FP_EXIT_USAGE;
			goto cleanup;
		}
		if (fp_evlog_open(&log.w, log_out->fd, o.record_path, err,
				  sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			rc = FP_EXIT_USAGE;
			goto drop_log;
		}
		sink.log = &log;
		sink.log_path = o.record_path;
	}
	if (o.events_path) {
		sink.events = output_stream(events_out, &invoker);
		if (!sink.events) {
			rc = FP_EXIT_USAGE;
			goto drop_log;
		}
		setvbuf(sink.events, NULL, _IOFBF, 1 << 20);
	}
	if (o.receipt_path) {
		receipt = output_stream(receipt_out, &invoker);
		if (!receipt) {
			rc = FP_EXIT_USAGE;
			goto drop_log;
		}
	}
	col = calloc(1, sizeof(*col));
	if (!col) {
		fprintf(stderr, "footprint: out of memory\n");
		goto cleanup;
	}
	sink.recon = run.recon;
	fp_collector_init(col, sink_event, &sink);

	if (fp_cgroup_create(&cg, err, sizeof(err)) ||
	    fp_watchdog_start(&wd, &cg, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		goto cleanup;
	}
	fp_run_set_budget(&run, o.mem_budget);
	if (fill_header(&run, &o, roots, &pol, cg.rel)) {
		fprintf(stderr, "footprint: out of memory\n");
		goto cleanup;
	}
	topts.ring_bytes = o.ring_bytes;
	topts.max_argv_bytes = o.max_argv_bytes;
	if (fp_tracer_open(&tracer, &topts, col, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		goto cleanup;
	}
	ret = fp_tracer_set_cgroup(tracer, cg.fd);
	if (ret) {
		fprintf(stderr,
			"footprint: cannot point the tracer at cgroup %s: %s\n",
			cg.path, strerror(-ret));
		goto cleanup;
	}

	fo.cross_mounts = o.cross_mounts;
	fo.rehash_all = o.rehash_all;
	fo.creds = &invoker;
	fo.deadline_ns = deadline_ms * 1000000;
	fo.max_bytes = o.mem_budget;
	if (!o.quiet && isatty(STDERR_FILENO))
		fo.progress = progress;
	snap_ret = take_snapshot(&run, FP_PHASE_BEFORE, &fo, true, true);
	if (snap_ret == -ETIMEDOUT) {
		rc = FP_EXIT_TIMEOUT;
		if (!snapshot_incomplete(
			    &run,
			    "the before snapshot did not finish within --timeout; the command was not run") &&
		    receipt &&
		    !fp_run_judge(&run, &pol, &findings, &verdict, &out))
			fp_run_receipt(receipt, &run, &findings, &verdict,
				       &out);
		receipt_written = receipt != NULL;
		goto drop_log;
	}
	if (snap_ret == -E2BIG)
		rc = FP_EXIT_USAGE;
	if (snap_ret)
		goto cleanup;
	if (sink.log &&
	    (log_failed(&sink, fp_log_header(&log, &run)) ||
	     log_failed(&sink, fp_log_snapshot(&log, &run, FP_PHASE_BEFORE,
					       true, true))))
		goto cleanup;

	sigemptyset(&fwd);
	sigaddset(&fwd, SIGINT);
	sigaddset(&fwd, SIGTERM);
	sigaddset(&fwd, SIGHUP);
	sigaddset(&fwd, SIGQUIT);
	sigprocmask(SIG_BLOCK, &fwd, &old);
	sigfd = signalfd(-1, &fwd, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sigfd < 0) {
		fprintf(stderr, "footprint: signalfd: %s\n", strerror(errno));
		goto cleanup;
	}
	if (fp_tracer_attach(tracer, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		goto cleanup;
	}
	if (sink.events)
		fflush(sink.events);
	fflush(stdout);
	if (deadline_ms) {
		/* absolute: the before snapshot counts against --timeout */
		struct itimerspec its = {
			.it_value = { deadline_ms / 1000,
				      (deadline_ms % 1000) * 1000000 },
		};

		timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		if (timerfd < 0 ||
		    timerfd_settime(timerfd, TFD_TIMER_ABSTIME, &its, NULL)) {
			fprintf(stderr,
				"footprint: cannot set the timeout: %s\n",
				strerror(errno));
			goto cleanup;
		}
	}
	t0 = now_ms();
	ret = fp_launch(&child, o.argv, cg.fd, &old, &id);
	if (ret) {
		fprintf(stderr,
			"footprint: cannot start the command in cgroup %s: %s\n",
			cg.path, strerror(-ret));
		goto cleanup;
	}
	ret = fp_trace_until_exit(tracer, &child, sigfd, sink.log, timerfd,
				  &ls);
	if (ret)
		fprintf(stderr, "footprint: tracing failed: %s\n",
			strerror(-ret));
	fp_child_wait(&child, &status);
	run.duration_ms = now_ms() - t0;
	run.status = status;
	run.exec_errno = child.exec_errno;
	run.timed_out = ls.timed_out;
	run.interrupted = ls.interrupted;
	if (child.setup_errno) {
		fprintf(stderr,
			"footprint: cannot start the command as %s: %s; it was not run\n",
			id.name ? id.name : "root",
			strerror(child.setup_errno));
		goto cleanup;
	}

	/* what is still running is seen before it is stopped */
	nleft = fp_cgroup_pids(&cg, &run.leftover);
	run.nleftover = nleft > 0 ? nleft : 0;
	if (o.leftovers == LEFTOVERS_KILL)
		stop_run(&cg);
	if (take_snapshot(&run, FP_PHASE_AFTER, &fo, false, true))
		goto cleanup;
	if (o.leftovers != LEFTOVERS_ALLOW)
		stop_run(&cg);
	/* every process in the cgroup is gone: all its records are in the ring */
	fp_tracer_consume(tracer);
	fp_collector_flush(col);
	fp_tracer_stats(tracer, &st);
	fp_tracer_detach(tracer);
	if (sink.events)
		write_stats_json(sink.events, &st, col);
	fo.prev = &run.fs[FP_PHASE_BEFORE];
	fo.touched = fp_recon_touched;
	fo.touched_ctx = run.recon;
	fo.deadline_ns = after_deadline_ns(deadline_ms, o.timeout_ms);
	snap_ret = take_snapshot(&run, FP_PHASE_AFTER, &fo, true, false);
	if (snap_ret == -ETIMEDOUT &&
	    snapshot_incomplete(
		    &run, "the after snapshot did not finish within --timeout"))
		goto cleanup;
	if (snap_ret == -E2BIG &&
	    snapshot_incomplete(
		    &run,
		    "the after snapshot holds more than the memory budget allows"))
		goto cleanup;
	if (snap_ret && snap_ret != -ETIMEDOUT && snap_ret != -E2BIG)
		goto cleanup;

	run.events = col->delivered;
	run.lost = st.lost + col->malformed + (ret ? 1 : 0);
	run.recon_failed = sink.recon_err != 0;
	run.end_ns = realtime_ns();
	run.have_trailer = true;
	/* without its after snapshot the log replays as cut short */
	if (sink.log && !snap_ret &&
	    (log_failed(&sink, fp_log_snapshot(&log, &run, FP_PHASE_AFTER, true,
					       true)) ||
	     log_failed(&sink, fp_log_trailer(&log, &run))))
		goto cleanup;

	if (child.exec_errno)
		fprintf(stderr, "footprint: cannot run %s: %s\n", o.argv[0],
			strerror(child.exec_errno));
	if (fp_run_judge(&run, &pol, &findings, &verdict, &out)) {
		fprintf(stderr, "footprint: out of memory while reconciling\n");
		goto cleanup;
	}
	if (receipt)
		fp_run_receipt(receipt, &run, &findings, &verdict, &out);
	receipt_written = receipt != NULL;
	if (run.lost)
		fprintf(stderr,
			"footprint: %" PRIu64
			" events were lost; the trace is incomplete (try a larger --ring-size)\n",
			run.lost);
	if (fp_recon_unfolded(run.recon))
		fprintf(stderr,
			"footprint: the memory budget (--memory-budget, %" PRIu64
			" MiB) ran out; the trace is incomplete and the verdict fails\n",
			o.mem_budget >> 20);
	if (!o.quiet)
		fp_summary_write(stderr, &findings, &verdict,
				 isatty(STDERR_FILENO) && !getenv("NO_COLOR"));
	rc = fp_run_exit_code(&run, &verdict);
	if (snap_ret == -ETIMEDOUT)
		rc = FP_EXIT_TIMEOUT;
	goto cleanup;
drop_log:
	/* the log of a run that never started would block the next one;
	 * removed as the user, by its name in the directory it was made in */
	discard_output(log_out, &invoker);
cleanup:
	/* the invoking user may read what footprint wrote, once it is done */
	hand_over(outs, ARRAY_SIZE(outs), &invoker, &id);
	/* no receipt at all beats an empty one that looks like a verdict */
	if (!receipt_written)
		discard_output(receipt_out, &invoker);
	if (sink.events && fflush(sink.events)) {
		fprintf(stderr, "footprint: writing events to %s failed: %s\n",
			o.events_path, strerror(errno));
		if (rc == FP_EXIT_OK)
			rc = FP_EXIT_NOTRACE;
	}
	if (sink.events && sink.events != stdout)
		fclose(sink.events);
	if (receipt &&
	    (fflush(receipt) || (receipt != stdout && fclose(receipt)))) {
		fprintf(stderr,
			"footprint: writing the receipt to %s failed: %s\n",
			o.receipt_path, strerror(errno));
		if (rc == FP_EXIT_OK)
			rc = FP_EXIT_NOTRACE;
	}
	if (log.w.fd >= 0 && log_failed(&sink, fp_evlog_close(&log.w)) &&
	    rc == FP_EXIT_OK)
		rc = FP_EXIT_NOTRACE;
	for (i = 0; i < ARRAY_SIZE(outs); i++)
		fp_outdir_close(&outs[i].dir);
	if (sink.log_err && rc == FP_EXIT_OK)
		rc = FP_EXIT_NOTRACE;
	fp_enc_free(&enc);
	fp_verdict_free(&verdict);
	fp_findings_free(&findings);
	fp_trace_stats_free(&st);
	if (child.pidfd >= 0)
		close(child.pidfd);
	if (sigfd >= 0)
		close(sigfd);
	if (timerfd >= 0)
		close(timerfd);
	fp_tracer_close(tracer);
	/* allowed leftovers keep their cgroup; nothing else survives us */
	if (cg.fd >= 0 && o.leftovers != LEFTOVERS_ALLOW && child.pid > 0)
		stop_run(&cg);
	if (cg.fd >= 0 && fp_cgroup_populated(&cg) != 1)
		fp_cgroup_remove(&cg);
	else if (cg.fd >= 0 && o.leftovers == LEFTOVERS_ALLOW)
		fp_cgroup_release(&cg);
	else if (cg.fd >= 0)
		close(cg.fd);
	fp_watchdog_disarm(&wd);
	fp_identity_free(&id);
	fp_creds_free(&invoker);
	fp_run_free(&run);
	fp_policy_free(&pol);
	for (i = 0; i < 64; i++)
		free(roots[i]);
	free(col);
	return rc;
}
