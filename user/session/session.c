// SPDX-License-Identifier: GPL-2.0
/* A traced session, whoever drives it (session.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "event_json.h"
#include "fdpass.h"
#include "json.h"
#include "reconcile.h"
#include "session.h"
#include "snapshot_net.h"
#include "snapshot_proc.h"
#include "version.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

int64_t fp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int fp_resolve_roots(const char *const *args, size_t n,
		     const struct fp_creds *c, char **roots)
{
	size_t i;
	int e;

	for (i = 0; i < n; i++) {
		e = fp_creds_enter(c);
		if (!e) {
			roots[i] = realpath(args[i], NULL);
			e = errno;
			fp_creds_leave(c);
		}
		if (!roots[i]) {
			fprintf(stderr,
				"footprint: cannot watch root %s: %s; give an existing directory to --root\n",
				args[i], strerror(e));
			return FP_EXIT_USAGE;
		}
	}
	return 0;
}

static int log_failed(struct fp_session *s, int ret)
{
	if (ret && !s->log_err) {
		s->log_err = ret;
		/* a segment that could not be made says why itself */
		if (s->log.w.msg[0])
			fprintf(stderr, "%s\n", s->log.w.msg);
		else
			fprintf(stderr,
				"footprint: writing the log %s failed: %s\n",
				s->o.record_path, strerror(-ret));
	}
	return ret;
}

static int sink_event(void *ctx, const struct fp_event *ev)
{
	struct fp_session *s = ctx;
	int err;

	err = fp_recon_feed(s->run.recon, ev);
	if (ev->type == FP_EV_FILE && ev->file.count > 1)
		s->run.opens_collapsed += ev->file.count - 1;
	if (err && !s->recon_err)
		s->recon_err = err;
	if (s->logging && !s->log_err)
		log_failed(s, fp_log_event(&s->log, ev));
	if (s->events)
		fp_event_write_json(s->events, ev);
	return 0;
}

int fp_session_sink(void *ctx, const struct fp_event *ev)
{
	return sink_event(ctx, ev);
}

void fp_session_inject(struct fp_session *s, const struct fp_event *ev)
{
	sink_event(s, ev);
}

/* The stats record that ends --events (docs/events.md). */
static void write_stats_json(FILE *f, const struct fp_trace_stats *st,
			     const struct fp_collector *col)
{
	struct json_out j = { .f = f };
	unsigned int i;

	json_begin_object(&j);
	json_field_str(&j, "type", "stats");
	json_field_u64(&j, "events", col->delivered);
	json_field_u64(&j, "records", col->records);
	json_field_u64(&j, "lost", st->lost + col->malformed);
	json_field_u64(&j, "lost_ringbuf", st->lost_ringbuf);
	json_field_u64(&j, "lost_pending", st->lost_pending);
	json_field_u64(&j, "lost_recursion", st->lost_recursion);
	json_field_u64(&j, "lost_compat", st->lost_compat);
	json_field_u64(&j, "lost_net", st->lost_net);
	json_field_u64(&j, "lost_malformed", col->malformed);
	json_field_u64(&j, "argv_incomplete", col->argv_incomplete);
	json_field_array(&j, "lost_per_cpu");
	for (i = 0; i < st->ncpus; i++)
		json_elem_u64(&j, st->lost_per_cpu[i]);
	json_end_array(&j);
	json_field_bool(&j, "complete", !(st->lost + col->malformed));
	json_end_object(&j);
	fputc('\n', f);
}

static void progress(void *ctx, uint64_t entries, uint64_t bytes)
{
	fprintf(stderr, "\rfootprint: %s: %llu entries, %llu MiB hashed ",
		(const char *)ctx, (unsigned long long)entries,
		(unsigned long long)(bytes >> 20));
}

int fp_session_init(struct fp_session *s, const struct fp_session_opts *o)
{
	static const char *const what[FP_OUT_N] = { "the log", "the events",
						    "the receipt",
						    "the HTML report" };
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->o = *o;
	for (i = 0; i < FP_OUT_N; i++) {
		s->outs[i].what = what[i];
		s->outs[i].dir.dirfd = -1;
		s->outs[i].fd = -1;
	}
	s->outs[FP_OUT_LOG].path = o->record_path;
	s->outs[FP_OUT_EVENTS].path = o->events_path;
	s->outs[FP_OUT_RECEIPT].path = o->receipt_path;
	s->outs[FP_OUT_HTML].path = o->html_path;
	s->log.w.fd = -1;
	s->log.enc = &s->enc;
	s->report.markdown_fd = -1;
	s->fo.cross_mounts = o->cross_mounts;
	s->fo.rehash_all = o->rehash_all;
	s->fo.creds = o->invoker;
	s->fo.deadline_ns = o->deadline_ms * 1000000;
	s->fo.max_bytes = o->mem_budget;
	s->fo.root_fds = o->root_fds;
	if (!o->quiet && isatty(STDERR_FILENO))
		s->fo.progress = progress;
	if (fp_run_init(&s->run))
		return -ENOMEM;
	fp_run_set_budget(&s->run, o->mem_budget);
	return 0;
}

int fp_session_prepare(struct fp_session *s)
{
	unsigned int i;
	int rc = 0;

	for (i = 0; !rc && i < FP_OUT_N; i++) {
		if (i == FP_OUT_LOG && s->o.log_fd >= 0)
			continue;
		rc = fp_output_prepare(&s->outs[i], s->o.invoker, s->o.roots,
				       s->o.nroots);
	}
	return rc;
}

int fp_session_outputs(struct fp_session *s)
{
	struct fp_output *log = &s->outs[FP_OUT_LOG];
	const struct fp_creds *c = s->o.invoker;
	char err[512];

	if (s->o.record_path) {
		bool given = s->o.log_fd >= 0;
		/* the segments go where the first is, made as it was */
		struct fp_log_where at = {
			.dirfd = given ? s->o.log_dirfd : log->dir.dirfd,
			.name = given ? s->o.record_path : log->dir.base,
			.path = s->o.record_path,
			.creds = given ? NULL : c,
			.replace = given || s->o.force,
		};

		if (!given && fp_output_create(log, c, s->o.force) < 0)
			return FP_EXIT_USAGE;
		if (fp_log_open(&s->log, given ? s->o.log_fd : log->fd, &at,
				s->o.record_max, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return FP_EXIT_USAGE;
		}
		s->logging = true;
	}
	if (s->o.events_path) {
		s->events = fp_output_stream(&s->outs[FP_OUT_EVENTS], c);
		if (!s->events)
			return FP_EXIT_USAGE;
		setvbuf(s->events, NULL, _IOFBF, 1 << 20);
	}
	if (s->o.receipt_path) {
		s->receipt = fp_output_stream(&s->outs[FP_OUT_RECEIPT], c);
		if (!s->receipt)
			return FP_EXIT_USAGE;
	}
	/* made now, as the receipt is, so that a page that could not be
	 * written fails before anything runs; written by the hook */
	if (s->o.html_path && strcmp(s->o.html_path, "-") &&
	    fp_output_create(&s->outs[FP_OUT_HTML], c, true) < 0)
		return FP_EXIT_USAGE;
	return 0;
}

int fp_session_open_tracer(struct fp_session *s, char *err, size_t errlen)
{
	s->col = calloc(1, sizeof(*s->col));
	if (!s->col) {
		snprintf(err, errlen, "footprint: out of memory");
		return -ENOMEM;
	}
	fp_collector_init(s->col, sink_event, s);
	return fp_tracer_open(&s->tracer, &s->o.tracer, s->col, err, errlen);
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

int fp_session_header(struct fp_session *s, char *const *argv,
		      const char *run_cgroup)
{
	struct fp_run *run = &s->run;
	struct utsname u;
	struct passwd *pw;
	char cwd[PATH_MAX];
	size_t i, argc = 0;

	for (i = 0; argv[i]; i++)
		if (fp_run_add_str(&run->argv, &argc, argv[i]))
			return -ENOMEM;
	for (i = 0; i < s->o.nroots; i++)
		if (fp_run_add_str(&run->roots, &run->nroots, s->o.roots[i]))
			return -ENOMEM;
	if (fp_run_set_policy(run, s->o.pol))
		return -ENOMEM;
	run->report_reads = s->o.report_reads;
	if (fp_run_collect_homes(run) || fp_run_reads_ready(run))
		return -ENOMEM;
	uname(&u);
	run->kernel = strdup(u.release);
	run->hostname = strdup(u.nodename);
	run->boot_id = read_line_file("/proc/sys/kernel/random/boot_id");
	run->version = strdup(fp_version());
	run->cwd = strdup(getcwd(cwd, sizeof(cwd)) ? cwd : "");
	/* the invoking user (SUDO_UID under sudo), as the header says */
	if (s->o.invoker && s->o.invoker->active) {
		run->uid = s->o.invoker->uid;
		run->gid = s->o.invoker->gid;
	} else {
		run->uid = getuid();
		run->gid = getgid();
	}
	pw = getpwuid(run->uid);
	run->user = strdup(pw ? pw->pw_name : "");
	run->run_cgroup = strdup(run_cgroup);
	run->start_ns = realtime_ns();
	if (!run->kernel || !run->hostname || !run->boot_id || !run->version ||
	    !run->cwd || !run->user || !run->run_cgroup)
		return -ENOMEM;
	return 0;
}

/* a process or socket table that could not be read, said once */
static int rest_failed(int ret, unsigned int phase)
{
	const char *label = phase == FP_PHASE_BEFORE ? "before" : "after";

	if (ret == -E2BIG)
		fprintf(stderr,
			"footprint: more than %d processes at the %s snapshot, more than footprint reads; %s\n",
			FP_PROC_MAX, label,
			phase == FP_PHASE_BEFORE ?
				"the command was not run; run footprint where fewer run" :
				"the trace is incomplete and no verdict is given; limit the command's processes (ulimit -u) and run again");
	else if (ret)
		fprintf(stderr,
			"footprint: cannot read the process or socket table: %s\n",
			strerror(-ret));
	return ret;
}

/* the after table: from the tracer's task iterator where it can be */
static int after_procs(struct fp_session *s)
{
	struct fp_proc_table *t = &s->run.procs[FP_PHASE_AFTER];
	const struct fp_proc_table *prev = &s->run.procs[FP_PHASE_BEFORE];
	int fd, ret;

	fd = s->tracer && fp_proc_tasks_usable() ?
		     fp_tracer_tasks_fd(s->tracer) :
		     -EOPNOTSUPP;
	if (fd < 0)
		return fp_proc_snapshot_since(t, prev);
	ret = fp_proc_snapshot_tasks(t, prev, fd);
	close(fd);
	return ret;
}

static int tasks_open(void *tracer)
{
	return fp_tracer_tasks_fd(tracer);
}

/*
 * The before table: from the tracer's task iterator where it can be,
 * else (no tracer yet, another pid namespace, no iterator) from /proc.
 */
static int before_procs(struct fp_session *s)
{
	struct fp_proc_table *t = &s->run.procs[FP_PHASE_BEFORE];
	struct fp_tasks_src src = { tasks_open, s->tracer };
	int ret;

	if (!s->tracer || !fp_proc_tasks_usable())
		return fp_proc_snapshot(t);
	ret = fp_proc_snapshot_tasks_fresh(t, &src);
	if (ret && ret != -ENOMEM && ret != -E2BIG)
		ret = fp_proc_snapshot(t);
	return ret;
}

static int take_snapshot(struct fp_session *s, unsigned int phase, bool with_fs,
			 bool with_rest)
{
	const char *label = phase == FP_PHASE_BEFORE ? "before" : "after";
	struct fp_run *run = &s->run;
	int ret = 0;

	if (with_rest) {
		if (phase == FP_PHASE_AFTER)
			ret = after_procs(s);
		else
			ret = before_procs(s);
		if (!ret)
			ret = fp_sock_snapshot_new(
				&run->socks[phase],
				phase == FP_PHASE_AFTER ?
					&run->socks[FP_PHASE_BEFORE] :
					NULL);
		if (ret)
			return rest_failed(ret, phase);
	}
	if (!with_fs)
		return 0;
	s->fo.progress_ctx = (void *)label;
	ret = fp_fs_snapshot(&run->fs[phase], run->roots, run->nroots, &s->fo);
	if (s->fo.progress)
		fputs("\r\033[K", stderr);
	if (ret == -E2BIG)
		fprintf(stderr,
			"footprint: the %s snapshot holds more than --memory-budget (%" PRIu64
			" MiB) allows; %s\n",
			label, s->fo.max_bytes >> 20,
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
		fprintf(stderr, "footprint: %s snapshot failed: %s\n", label,
			strerror(-ret));
	else
		run->have_snap[phase] = true;
	return ret;
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

/*
 * The process table read while the tracer loads, then brought up to the
 * launch once it has (fp_proc_snapshot_refresh: a listing of /proc, and
 * what it lists anew read), and the sockets read then: the table is as
 * of just before the command starts, as a full read there would have it,
 * for a fraction of the time. 0 or -errno, said.
 */
static int procs_early(struct fp_session *s)
{
	int ret = fp_proc_snapshot(&s->run.procs[FP_PHASE_BEFORE]);

	return ret ? rest_failed(ret, FP_PHASE_BEFORE) : 0;
}

static int procs_late(struct fp_session *s)
{
	struct fp_run *run = &s->run;
	int ret = fp_proc_snapshot_refresh(&run->procs[FP_PHASE_BEFORE]);

	if (!ret)
		ret = fp_sock_snapshot_new(&run->socks[FP_PHASE_BEFORE], NULL);
	return ret ? rest_failed(ret, FP_PHASE_BEFORE) : 0;
}

/*
 * A kept set loads in 2-6 ms, and the files' snapshot may take longer: if
 * the load is done within this much after it, the process table is read
 * with the tracer's task iterator (a few reads a process instead of six
 * files), else from /proc while the load goes on. A load from scratch
 * (~200 ms) then waits for the table, not the table for it.
 */
#define KEPT_LOAD_MS 25

/*
 * The files, then the tracer's load waited for a little (KEPT_LOAD_MS):
 * loaded, the process table is read with its task iterator and the
 * sockets after it. Still loading on the other CPU (tracer_async.c),
 * most of the table is read from /proc meanwhile; once it has loaded,
 * the table brought up to now and the sockets. Either way the table is
 * complete last before the attach and the launch, as
 * before: a process that starts between the snapshots is
 * the run's (in its cgroup, which the command is cloned into) or
 * new_outside, and the window for another user's is no wider than it
 * was (BENCHMARKS.md, "Snapshots before the loader is joined"). A --unit
 * shape, a D-Bus round trip, waits for the load, and the table is read
 * after it, as before. A tracer that did not load fails the run: a
 * session that never started, whose log goes (fp_session_finish).
 * Without a load in flight (sidecar), the processes first, then the
 * files, as ever.
 */
static int before_snapshot(struct fp_session *s)
{
	bool *have = &s->run.have_snap[FP_PHASE_BEFORE];
	bool unit = s->o.unit != NULL;
	int fs_ret, rc, loading = 1;

	if (!s->loader) {
		rc = fp_session_shape(s, FP_PHASE_BEFORE);
		if (!rc)
			s->snap_ret =
				take_snapshot(s, FP_PHASE_BEFORE, true, true);
		return rc;
	}
	fs_ret = take_snapshot(s, FP_PHASE_BEFORE, true, false);
	*have = false;
	/* the secrets' stat calls too, for the attach */
	fp_session_secret_ids_read(s);
	if (!unit)
		loading = fp_session_join_tracer_within(s, KEPT_LOAD_MS);
	if (loading < 0)
		return FP_EXIT_NOTRACE;
	if (loading && !unit)
		s->snap_ret = procs_early(s);
	/* nothing left to join once joined within the wait */
	if (fp_session_join_tracer(s, false))
		return FP_EXIT_NOTRACE;
	if (unit) {
		rc = fp_session_shape(s, FP_PHASE_BEFORE);
		if (rc)
			return rc;
	}
	if (unit || !loading)
		s->snap_ret = take_snapshot(s, FP_PHASE_BEFORE, false, true);
	else if (!s->snap_ret)
		s->snap_ret = procs_late(s);
	if (!s->snap_ret)
		s->snap_ret = fs_ret;
	*have = !s->snap_ret;
	return 0;
}

int fp_session_before(struct fp_session *s)
{
	int rc = before_snapshot(s);

	if (rc)
		return rc;
	if (s->snap_ret == -ETIMEDOUT) {
		/* a receipt that says why nothing ran */
		if (!snapshot_incomplete(
			    &s->run,
			    "the before snapshot did not finish within --timeout; the command was not run") &&
		    s->receipt &&
		    !fp_run_judge(&s->run, s->o.pol, &s->findings, &s->verdict,
				  &s->out)) {
			struct fp_report_outputs ro = FP_REPORT_OUTPUTS_INIT;

			ro.receipt = s->receipt;
			ro.quiet = true;
			fp_report_judged(&(struct fp_judged){ &s->run,
							      &s->findings,
							      &s->verdict,
							      &s->out, NULL },
					 &ro, FP_EXIT_TIMEOUT);
			s->receipt_written = true;
		}
		return FP_EXIT_TIMEOUT;
	}
	if (s->snap_ret == -E2BIG)
		return FP_EXIT_USAGE;
	if (s->snap_ret)
		return FP_EXIT_NOTRACE;
	if (s->logging &&
	    (log_failed(s, fp_log_header(&s->log, &s->run)) ||
	     log_failed(s, fp_log_snapshot(&s->log, &s->run, FP_PHASE_BEFORE,
					   true, true))))
		return FP_EXIT_NOTRACE;
	return 0;
}

int fp_session_attach(struct fp_session *s, char *err, size_t errlen)
{
	int ret = fp_session_secret_ids(s, err, errlen);

	if (!ret)
		ret = fp_tracer_attach(s->tracer, err, errlen);

	if (s->events)
		fflush(s->events);
	fflush(stdout);
	return ret;
}

int fp_session_after_procs(struct fp_session *s)
{
	return take_snapshot(s, FP_PHASE_AFTER, false, true);
}

/*
 * What the ring holds, to the collector. A consumer that fails (a window
 * it cannot map) leaves records unread: the trace is incomplete, as when
 * the driver's loop fails.
 */
void fp_session_consume(struct fp_session *s)
{
	int ret = fp_tracer_consume(s->tracer);

	if (ret >= 0 || s->trace_err)
		return;
	fprintf(stderr, "footprint: tracing failed: %s\n", strerror(-ret));
	s->trace_err = ret;
}

/* stop: take every task out of scope, the links left for the close */
static void drain(struct fp_session *s, bool stop)
{
	fp_session_consume(s);
	/* stopped first: no task can hold back an open once drained */
	if (stop)
		fp_tracer_stop(s->tracer);
	else
		fp_tracer_detach(s->tracer);
	fp_session_consume(s);
	fp_tracer_drain_held(s->tracer);
	fp_collector_flush(s->col);
	fp_tracer_stats(s->tracer, &s->st);
	fp_tracer_flush_flows(s->tracer, s->col);
	if (s->events)
		write_stats_json(s->events, &s->st, s->col);
}

void fp_session_drain(struct fp_session *s, struct fp_watchdog *wd)
{
	int fds[FP_FDPASS_MAX], n = 0;

	/* a run's links go once it is drained, on a thread (close_async) */
	drain(s, s->close_async);
	if (wd && s->close_async && s->tracer)
		n = fp_tracer_end_fds(s->tracer, fds, FP_FDPASS_MAX);
	if (wd)
		fp_watchdog_release_fds(wd, fds, n > 0 ? n : 0);
	if (s->close_async)
		fp_session_close_tracer(s);
}

/* The after snapshot gets what is left of --timeout, and at least
 * min(DUR, 5s) when the command used it all up: a receipt of what it did. */
static int64_t after_deadline_ns(int64_t deadline_ms, int64_t timeout_ms)
{
	int64_t least = fp_now_ms() + (timeout_ms < 5000 ? timeout_ms : 5000);

	if (!deadline_ms)
		return 0;
	return (deadline_ms > least ? deadline_ms : least) * 1000000;
}

int fp_session_after_files(struct fp_session *s)
{
	struct fp_run *run = &s->run;
	int ret = fp_session_shape(s, FP_PHASE_AFTER);

	if (ret)
		return ret;
	s->fo.prev = &run->fs[FP_PHASE_BEFORE];
	s->fo.touched = fp_recon_touched;
	s->fo.touched_ctx = run->recon;
	s->fo.deadline_ns =
		after_deadline_ns(s->o.deadline_ms, s->o.timeout_ms);
	ret = s->snap_ret = take_snapshot(s, FP_PHASE_AFTER, true, false);
	if (ret == -ETIMEDOUT &&
	    snapshot_incomplete(
		    run, "the after snapshot did not finish within --timeout"))
		return FP_EXIT_NOTRACE;
	if (ret == -E2BIG &&
	    snapshot_incomplete(
		    run,
		    "the after snapshot holds more than the memory budget allows"))
		return FP_EXIT_NOTRACE;
	if (ret && ret != -ETIMEDOUT && ret != -E2BIG)
		return FP_EXIT_NOTRACE;
	/* right after the files, while an outside writer still holds its fd */
	if (!ret && fp_session_holders(s))
		return FP_EXIT_NOTRACE;

	run->events = s->col->delivered;
	run->lost = s->st.lost + s->col->malformed + (s->trace_err ? 1 : 0);
	run->recon_failed = s->recon_err != 0;
	run->end_ns = realtime_ns();
	run->have_trailer = true;
	/* without its after snapshot the log replays as cut short */
	if (s->logging && !ret &&
	    (log_failed(s, fp_log_snapshot(&s->log, run, FP_PHASE_AFTER, true,
					   true)) ||
	     log_failed(s, fp_log_holders(&s->log, run)) ||
	     log_failed(s, fp_log_trailer(&s->log, run))))
		return FP_EXIT_NOTRACE;
	return 0;
}

static void shape_summary(void *ctx)
{
	fp_session_shape_summary(ctx);
}

int fp_session_verdict(struct fp_session *s)
{
	struct fp_report_outputs ro = s->report;
	struct fp_judged j = { &s->run, &s->findings, &s->verdict, &s->out,
			       &s->st };
	int rc;

	if (fp_run_judge(&s->run, s->o.pol, &s->findings, &s->verdict,
			 &s->out)) {
		fprintf(stderr, "footprint: out of memory while reconciling\n");
		return FP_EXIT_NOTRACE;
	}
	ro.receipt = s->receipt;
	ro.quiet = s->o.quiet;
	ro.summary_max = s->o.summary_max;
	ro.summary_more = shape_summary;
	ro.summary_more_ctx = s;
	rc = fp_run_exit_code(&s->run, &s->verdict);
	if (s->snap_ret == -ETIMEDOUT)
		rc = FP_EXIT_TIMEOUT;
	s->receipt_written = s->receipt != NULL;
	return fp_report_judged(&j, &ro, rc);
}

/* a stream's last bytes, and its close: an output that failed turns an
 * ok into "could not trace" */
static void close_stream(FILE **f, const char *what, const char *path, int *rc)
{
	bool bad;

	if (!*f)
		return;
	bad = fflush(*f) != 0;
	if (*f != stdout && fclose(*f))
		bad = true;
	*f = NULL;
	if (!bad)
		return;
	fprintf(stderr, "footprint: writing %s to %s failed: %s\n", what, path,
		strerror(errno));
	if (*rc == FP_EXIT_OK)
		*rc = FP_EXIT_NOTRACE;
}

void fp_session_finish(struct fp_session *s, int *rc, bool hand, uid_t uid,
		       gid_t gid, const char *name)
{
	unsigned int i;

	/* the log of a session that never started would block the next one */
	if (!s->run.have_snap[FP_PHASE_BEFORE] || s->snap_ret == -ETIMEDOUT) {
		if (!s->run.have_trailer)
			fp_output_discard(&s->outs[FP_OUT_LOG], s->o.invoker);
	}
	/* the invoking user may read what footprint wrote, once it is done */
	if (hand)
		fp_output_hand_over(s->outs, FP_OUT_N, uid, gid, name);
	if (hand && s->outs[FP_OUT_LOG].fd >= 0)
		fp_log_hand_over(&s->log, uid, gid, name);
	/* no receipt at all beats an empty one that looks like a verdict */
	if (!s->receipt_written)
		fp_output_discard(&s->outs[FP_OUT_RECEIPT], s->o.invoker);
	close_stream(&s->events, "events", s->o.events_path, rc);
	close_stream(&s->receipt, "the receipt", s->o.receipt_path, rc);
	/* written by the commands' hook, if there was a verdict */
	fp_output_discard_empty(&s->outs[FP_OUT_HTML], s->o.invoker);
	if (s->outs[FP_OUT_HTML].fd >= 0) {
		close(s->outs[FP_OUT_HTML].fd);
		s->outs[FP_OUT_HTML].fd = -1;
	}
	if (log_failed(s, fp_log_close(&s->log)) && *rc == FP_EXIT_OK)
		*rc = FP_EXIT_NOTRACE;
	if (s->log_err && *rc == FP_EXIT_OK)
		*rc = FP_EXIT_NOTRACE;
	for (i = 0; i < FP_OUT_N; i++)
		fp_output_close(&s->outs[i]);
}

void fp_session_free(struct fp_session *s)
{
	fp_log_close(&s->log);
	fp_enc_free(&s->enc);
	fp_verdict_free(&s->verdict);
	fp_findings_free(&s->findings);
	fp_trace_stats_free(&s->st);
	fp_session_join_tracer(s, true);
	fp_session_join_closer(s);
	fp_tracer_close(s->tracer);
	s->tracer = NULL;
	free(s->secret_ids);
	s->secret_ids = NULL;
	fp_run_free(&s->run);
	free(s->col);
	s->col = NULL;
}
