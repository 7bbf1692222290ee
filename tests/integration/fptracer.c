// SPDX-License-Identifier: GPL-2.0
/*
 * fptracer: the tracer API (user/trace/tracer.h) driven directly, for the
 * scope, step-name, tamper and heartbeat tests (test_scope.py), until the
 * sidecar daemon exists. Test-only: it is not installed.
 *
 * Usage: fptracer [--cgroup PATH]... [--pid-tree PID]... [--self PID]...
 *                 [--step-parent PID] [--max-tree-pids N]
 *
 * Traces with its own pid among the self processes, prints
 * {"ready":PID} once attached, then every event as NDJSON on stdout.
 * Signals, answered with one line each:
 *   SIGUSR2  {"heartbeat":RC}       fp_tracer_heartbeat()
 *   SIGUSR1  {"closed_links":N}     close every BPF link fd behind the
 *                                   tracer's back (what an attacker would)
 *   SIGHUP   {"hup":true}           nothing else: a target for kill tests
 *   SIGTERM, SIGINT                 drain, print {"stats":{...}}, exit 0
 * Exits 1 with a "footprint:" line on stderr when the tracer fails.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "collector.h"
#include "event_json.h"
#include "tracer.h"

static int print_event(void *ctx, const struct fp_event *ev)
{
	fp_event_write_json(stdout, ev);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: fptracer [--cgroup PATH]... [--pid-tree PID]... [--self PID]...\n"
		"                [--step-parent PID] [--max-tree-pids N]\n");
	exit(2);
}

static int parse_args(int argc, char **argv, struct fp_tracer_opts *o)
{
	int i, fd;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--cgroup")) {
			fd = open(v, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0 || o->ncgroups >= FP_TRACER_MAX_CGROUPS) {
				fprintf(stderr, "fptracer: cgroup %s: %s\n", v,
					strerror(errno));
				return -1;
			}
			o->cgroup_fds[o->ncgroups++] = fd;
		} else if (!strcmp(a, "--pid-tree") &&
			   o->npid_trees < FP_TRACER_MAX_PID_TREES) {
			o->pid_trees[o->npid_trees++] = atoi(v);
		} else if (!strcmp(a, "--self") &&
			   o->nself < FP_TRACER_MAX_SELF) {
			o->self_tgids[o->nself++] = atoi(v);
		} else if (!strcmp(a, "--step-parent")) {
			o->step_parent = atoi(v);
		} else if (!strcmp(a, "--max-tree-pids")) {
			o->max_tree_pids = atoi(v);
		} else {
			usage();
		}
	}
	return 0;
}

/* The test's stand-in for an attacker closing the daemon's link fds. */
static int close_links(void)
{
	DIR *d = opendir("/proc/self/fdinfo");
	struct dirent *de;
	int n = 0, dfd;

	if (!d)
		return -errno;
	dfd = dirfd(d);
	while ((de = readdir(d))) {
		char buf[1024];
		ssize_t len;
		int fd = openat(dfd, de->d_name, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		if (strstr(buf, "link_type:") && !close(atoi(de->d_name)))
			n++;
	}
	closedir(d);
	return n;
}

/* true once asked to stop */
static bool on_signal(int sigfd, struct fp_tracer *t)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGUSR2:
			printf("{\"heartbeat\":%d}\n", fp_tracer_heartbeat(t));
			break;
		case SIGUSR1:
			printf("{\"closed_links\":%d}\n", close_links());
			break;
		case SIGHUP:
			printf("{\"hup\":true}\n");
			break;
		default:
			stop = true;
		}
		fflush(stdout);
	}
	return stop;
}

static void print_stats(struct fp_tracer *t, struct fp_collector *c)
{
	struct fp_trace_stats st;

	if (fp_tracer_stats(t, &st))
		return;
	printf("{\"stats\":{\"events\":%llu,\"delivered\":%llu,\"lost\":%llu,\"lost_scope\":%llu,\"malformed\":%llu}}\n",
	       (unsigned long long)st.events, (unsigned long long)c->delivered,
	       (unsigned long long)st.lost, (unsigned long long)st.lost_scope,
	       (unsigned long long)c->malformed);
	fp_trace_stats_free(&st);
}

static int trace_loop(struct fp_tracer *t, struct fp_collector *c, int sigfd)
{
	struct epoll_event evs[2], ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC), n;
	bool stop = false;

	if (ep < 0)
		return 1;
	ev.data.fd = fp_tracer_epoll_fd(t);
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	ev.data.fd = sigfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sigfd, &ev);
	while (!stop) {
		n = epoll_wait(ep, evs, 2, 50);
		/* events before the answer to a signal that follows them */
		fp_tracer_consume(t);
		fflush(stdout);
		if (n > 0)
			stop = on_signal(sigfd, t);
	}
	fp_tracer_consume(t);
	fp_collector_flush(c);
	print_stats(t, c);
	fflush(stdout);
	close(ep);
	return 0;
}

int main(int argc, char **argv)
{
	struct fp_tracer_opts o = { .ring_bytes = 16 << 20,
				    .max_argv_bytes = 1 << 20 };
	static struct fp_collector col;
	struct fp_tracer *t;
	char err[512];
	sigset_t set;
	int sigfd, rc;

	if (parse_args(argc, argv, &o))
		return 1;
	if (o.nself < FP_TRACER_MAX_SELF)
		o.self_tgids[o.nself++] = getpid();
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	fp_collector_init(&col, print_event, NULL);
	if (sigfd < 0 || fp_tracer_open(&t, &o, &col, err, sizeof(err)) ||
	    fp_tracer_attach(t, err, sizeof(err))) {
		fprintf(stderr, "%s\n", sigfd < 0 ? "fptracer: signalfd" : err);
		return 1;
	}
	printf("{\"ready\":%d}\n", (int)getpid());
	fflush(stdout);
	rc = trace_loop(t, &col, sigfd);
	fp_tracer_close(t);
	return rc;
}
