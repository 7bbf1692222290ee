// SPDX-License-Identifier: GPL-2.0
/* footprint run: trace one command in its own cgroup. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "cli.h"
#include "collector.h"
#include "event_json.h"
#include "launch.h"
#include "tracer.h"

struct run_opts {
	const char *events_path;
	size_t ring_bytes;
	uint64_t max_argv_bytes;
	bool quiet;
	char **argv;
};

struct run_sink {
	FILE *events;
	uint64_t by_type[FP_EV_BIND + 1];
};

static void run_usage(FILE *f)
{
	fprintf(f,
		"Usage: footprint run [OPTIONS] -- COMMAND [ARG...]\n"
		"\n"
		"Run COMMAND in a new cgroup and trace, in the kernel, every exec,\n"
		"fork, exit, open, unlink, rename and bind it and its descendants make.\n"
		"COMMAND's stdin, stdout and stderr pass through untouched.\n"
		"\n"
		"Options:\n"
		"  -e, --events FILE    write every event as NDJSON to FILE (- for stdout);\n"
		"                       fields are described in docs/events.md\n"
		"      --ring-size SIZE ring buffer size, a power of two (default 16M)\n"
		"      --max-argv SIZE  argv bytes recorded per exec (default 1M); the rest\n"
		"                       is counted in argv_dropped\n"
		"  -q, --quiet          no summary on stderr\n"
		"  -h, --help           show this help\n"
		"\n"
		"Examples:\n"
		"  sudo footprint run -- make install\n"
		"  sudo footprint run --events trace.ndjson -- ./generated_script.sh\n"
		"  sudo footprint run -e - -- sh -c 'echo hi > /tmp/x' | jq .type\n"
		"\n"
		"Exit status: COMMAND's own (128+N if killed by signal N); 2 for a usage\n"
		"error; 125 if footprint could not trace (COMMAND is then never run);\n"
		"126 if COMMAND is not executable; 127 if it was not found.\n");
}

static int parse_run(int argc, char **argv, struct run_opts *o)
{
	static const struct option longopts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "ring-size", required_argument, NULL, 'R' },
		{ "max-argv", required_argument, NULL, 'A' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	o->ring_bytes = 16 << 20;
	o->max_argv_bytes = 1 << 20;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+e:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			o->events_path = optarg;
			break;
		case 'R':
			if (fp_parse_size(optarg, &v) || v < 4096 ||
			    (v & (v - 1)) || v > (1ULL << 30))
				return fp_usage_error(
					"run",
					"--ring-size wants a power of two between 4K and 1G, got '%s'",
					optarg);
			o->ring_bytes = v;
			break;
		case 'A':
			if (fp_parse_size(optarg, &v))
				return fp_usage_error(
					"run",
					"--max-argv wants a size such as 64K, got '%s'",
					optarg);
			o->max_argv_bytes = v;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			run_usage(stdout);
			exit(0);
		default:
			return fp_usage_error("run", "unknown option '%s'",
					      argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return fp_usage_error("run",
				      "no command given; put it after '--'");
	o->argv = argv + optind;
	return 0;
}

static int sink_event(void *ctx, const struct fp_event *ev)
{
	struct run_sink *s = ctx;

	if (ev->type <= FP_EV_BIND)
		s->by_type[ev->type]++;
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
		",\"lost_recursion\":%" PRIu64 ",\"lost_malformed\":%" PRIu64
		",\"argv_incomplete\":%" PRIu64 ",\"lost_per_cpu\":[",
		col->delivered, col->records, st->lost + col->malformed,
		st->lost_ringbuf, st->lost_pending, st->lost_recursion,
		col->malformed, col->argv_incomplete);
	for (i = 0; i < st->ncpus; i++)
		fprintf(f, "%s%" PRIu64, i ? "," : "", st->lost_per_cpu[i]);
	fprintf(f, "],\"complete\":%s}\n",
		st->lost + col->malformed ? "false" : "true");
}

/* Forward a signal meant for footprint; one from the terminal already
 * reached the whole foreground process group. */
static void forward_signal(int sigfd, const struct fp_child *child)
{
	struct signalfd_siginfo si;

	while (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_code == SI_KERNEL &&
		    (si.ssi_signo == SIGINT || si.ssi_signo == SIGQUIT))
			continue;
		kill(child->pid, si.ssi_signo);
	}
}

/* The one poll loop: ring buffer, child exit, signals. */
static int trace_until_exit(struct fp_tracer *t, struct fp_child *child,
			    int sigfd)
{
	struct epoll_event evs[4], ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC);
	bool exited = false;
	int ret = 0, n, i;

	if (ep < 0)
		return -errno;
	ev.data.fd = fp_tracer_epoll_fd(t);
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	ev.data.fd = child->pidfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	ev.data.fd = sigfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	while (!exited) {
		/* without per-event wakeups, a timeout drains the ring */
		n = epoll_wait(ep, evs, 4, 50);
		if (n < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		for (i = 0; i < n; i++) {
			if (evs[i].data.fd == child->pidfd)
				exited = true;
			else if (evs[i].data.fd == sigfd)
				forward_signal(sigfd, child);
		}
		n = fp_tracer_consume(t);
		if (n < 0) {
			ret = n;
			break;
		}
	}
	close(ep);
	return ret;
}

static void summary(const struct run_sink *s, const struct fp_trace_stats *st,
		    const struct fp_collector *col, int status)
{
	uint64_t lost = st->lost + col->malformed;
	char how[64];

	if (WIFSIGNALED(status))
		snprintf(how, sizeof(how), "was killed by %s",
			 sigabbrev_np(WTERMSIG(status)) ?: "a signal");
	else
		snprintf(how, sizeof(how), "exited %d", WEXITSTATUS(status));
	fprintf(stderr,
		"footprint: command %s; %" PRIu64 " events: %" PRIu64
		" exec, %" PRIu64 " fork, %" PRIu64 " exit, %" PRIu64
		" file, %" PRIu64 " bind; %" PRIu64 " lost\n",
		how, col->delivered, s->by_type[FP_EV_EXEC],
		s->by_type[FP_EV_FORK], s->by_type[FP_EV_EXIT],
		s->by_type[FP_EV_FILE], s->by_type[FP_EV_BIND], lost);
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
	struct fp_tracer_opts topts;
	sigset_t fwd, old;
	char err[512];
	int sigfd = -1, status = 0, ret, rc = FP_EXIT_NOTRACE;
	int leftovers;
	pid_t *pids;

	ret = parse_run(argc, argv, &o);
	if (ret)
		return ret;
	if (geteuid() != 0) {
		fprintf(stderr,
			"footprint: tracing needs root; run it under sudo: sudo footprint run -- %s\n",
			o.argv[0]);
		return FP_EXIT_NOTRACE;
	}
	if (o.events_path) {
		sink.events = !strcmp(o.events_path, "-") ?
				      stdout :
				      fopen(o.events_path, "we");
		if (!sink.events) {
			fprintf(stderr,
				"footprint: cannot write events to %s: %s; pick a writable path\n",
				o.events_path, strerror(errno));
			return FP_EXIT_USAGE;
		}
		setvbuf(sink.events, NULL, _IOFBF, 1 << 20);
	}
	col = calloc(1, sizeof(*col));
	if (!col) {
		fprintf(stderr, "footprint: out of memory\n");
		goto cleanup;
	}
	fp_collector_init(col, sink_event, &sink);

	if (fp_cgroup_create(&cg, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
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
	if (sink.events && sink.events != stdout)
		fflush(sink.events);
	fflush(stdout);
	ret = fp_launch(&child, o.argv, cg.fd, &old);
	if (ret) {
		fprintf(stderr,
			"footprint: cannot start the command in cgroup %s: %s\n",
			cg.path, strerror(-ret));
		goto cleanup;
	}
	ret = trace_until_exit(tracer, &child, sigfd);
	if (ret)
		fprintf(stderr, "footprint: tracing failed: %s\n",
			strerror(-ret));
	fp_child_wait(&child, &status);

	leftovers = fp_cgroup_pids(&cg, &pids);
	if (leftovers > 0) {
		if (!o.quiet)
			fprintf(stderr,
				"footprint: killing %d process(es) left running in the run's cgroup\n",
				leftovers);
		free(pids);
	}
	fp_cgroup_kill(&cg);
	if (fp_cgroup_wait_empty(&cg, 5000))
		fprintf(stderr,
			"footprint: processes in %s survived SIGKILL; the trace may be incomplete\n",
			cg.path);
	/* every process in the cgroup is gone: all its records are in the ring */
	fp_tracer_consume(tracer);
	fp_collector_flush(col);
	fp_tracer_stats(tracer, &st);
	if (sink.events)
		write_stats_json(sink.events, &st, col);

	if (child.exec_errno) {
		fprintf(stderr, "footprint: cannot run %s: %s\n", o.argv[0],
			strerror(child.exec_errno));
		rc = child.exec_errno == ENOENT ? FP_EXIT_NOTFOUND :
						  FP_EXIT_NOEXEC;
	} else if (WIFSIGNALED(status)) {
		rc = 128 + WTERMSIG(status);
	} else {
		rc = WEXITSTATUS(status);
	}
	if (ret)
		rc = FP_EXIT_NOTRACE;
	if (st.lost + col->malformed)
		fprintf(stderr,
			"footprint: %" PRIu64
			" events were lost; the trace is incomplete (try a larger --ring-size)\n",
			st.lost + col->malformed);
	if (!o.quiet)
		summary(&sink, &st, col, status);
cleanup:
	if (sink.events && fflush(sink.events)) {
		fprintf(stderr, "footprint: writing events to %s failed: %s\n",
			o.events_path, strerror(errno));
		if (rc == 0)
			rc = FP_EXIT_NOTRACE;
	}
	if (sink.events && sink.events != stdout)
		fclose(sink.events);
	fp_trace_stats_free(&st);
	if (child.pidfd >= 0)
		close(child.pidfd);
	if (sigfd >= 0)
		close(sigfd);
	fp_tracer_close(tracer);
	if (cg.fd >= 0)
		fp_cgroup_remove(&cg);
	free(col);
	return rc;
}
