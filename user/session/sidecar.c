// SPDX-License-Identifier: GPL-2.0
/* The sidecar's daemon loop (sidecar.h). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "reconcile.h"
#include "sidecar.h"
#include "summary_md.h"

#define STOP_FDS 4

/* the largest resident set so far, from /proc: what status reports */
static unsigned long rss_hwm_kib(void)
{
	char line[256];
	unsigned long kib = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %lu kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static uint64_t lost_now(struct fp_session *s)
{
	struct fp_trace_stats ts = { 0 };
	uint64_t lost;

	fp_tracer_stats(s->tracer, &ts);
	lost = ts.lost + s->col->malformed;
	fp_trace_stats_free(&ts);
	return lost;
}

static void reply_status(int fd, struct fp_session *s,
			 struct fp_sidecar_state *st, bool json)
{
	char buf[4096];
	unsigned int i, n = st->minute < 60 ? st->minute + 1 : 60;
	size_t len = 0;
	uint64_t lost;

	/* what the ring holds now counts too */
	fp_tracer_consume(s->tracer);
	lost = lost_now(s);

	if (!json) {
		len = snprintf(buf, sizeof(buf),
			       "footprint sidecar: tracing (pid %d)\n"
			       "events: %" PRIu64 "\nlost: %" PRIu64
			       "\nsteps: %zu (marks: %u)\nrss: %lu KiB\n",
			       (int)getpid(), s->col->delivered, lost,
			       fp_recon_steps_so_far(s->run.recon), st->marks,
			       rss_hwm_kib());
		send(fd, buf, len, MSG_NOSIGNAL);
		return;
	}
	len = snprintf(buf, sizeof(buf),
		       "{\"pid\":%d,\"events\":%" PRIu64 ",\"lost\":%" PRIu64
		       ",\"steps\":%zu,\"marks\":%u,\"rss_kib\":%lu"
		       ",\"lost_per_minute\":[",
		       (int)getpid(), s->col->delivered, lost,
		       fp_recon_steps_so_far(s->run.recon), st->marks,
		       rss_hwm_kib());
	/* oldest first, the current minute last */
	for (i = 0; i < n && len < sizeof(buf) - 32; i++)
		len += snprintf(
			buf + len, sizeof(buf) - len, "%s%" PRIu64,
			i ? "," : "",
			st->lost_per_min[(st->minute + 61 - n + i) % 60]);
	len += snprintf(buf + len, sizeof(buf) - len, "]}\n");
	send(fd, buf, len, MSG_NOSIGNAL);
}

/* A stop request: its flags say which of receipt and summary follow. */
static int take_stop_fds(struct msghdr *m, int fds[STOP_FDS])
{
	struct cmsghdr *c = CMSG_FIRSTHDR(m);
	unsigned int i, n;

	for (i = 0; i < STOP_FDS; i++)
		fds[i] = -1;
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
		return -EPROTO;
	n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
	if (n != STOP_FDS) {
		memcpy(fds, CMSG_DATA(c),
		       (n < STOP_FDS ? n : STOP_FDS) * sizeof(int));
		return -EPROTO;
	}
	memcpy(fds, CMSG_DATA(c), sizeof(int) * STOP_FDS);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* `sidecar mark NAME`: the steps that start from now on are NAME. */
static void mark_step(struct fp_session *s, struct fp_sidecar_state *st,
		      char *name, size_t len)
{
	struct fp_event ev = { .type = FP_EV_MARK };

	/* what the ring holds happened before the mark */
	fp_tracer_consume(s->tracer);
	ev.ts_ns = mono_ns();
	ev.pid = ev.tid = getpid();
	ev.mark.name.data = name;
	ev.mark.name.len = len;
	fp_session_inject(s, &ev);
	st->marks++;
}

static int peer_pid(int conn, pid_t *pid)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &uc, &len))
		return -errno;
	*pid = uc.pid;
	return 0;
}

static bool peer_is_root(int conn)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	return !getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &uc, &len) &&
	       uc.uid == 0;
}

/*
 * One request on a new connection. Only root may stop the sidecar;
 * 1 when it was a stop, with its fds in fds.
 */
static int serve_one(int conn, struct fp_session *s,
		     struct fp_sidecar_state *st, int fds[STOP_FDS])
{
	char buf[512], ctl[CMSG_SPACE(sizeof(int) * STOP_FDS)];
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr m = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl,
		.msg_controllen = sizeof(ctl),
	};
	ssize_t n = recvmsg(conn, &m, MSG_CMSG_CLOEXEC);
	pid_t pid = 0;
	int i;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	switch (buf[0]) {
	case FP_SC_STATUS:
	case FP_SC_STATUS_TEXT:
		reply_status(conn, s, st, buf[0] == FP_SC_STATUS);
		return 0;
	case FP_SC_MARK:
		mark_step(s, st, buf + 1, n - 1);
		send(conn, "K", 1, MSG_NOSIGNAL);
		return 0;
	case FP_SC_HELLO:
		/* footprint's own stop: what it does is not the job's */
		if (peer_is_root(conn) && !peer_pid(conn, &pid))
			fp_tracer_add_self(s->tracer, pid);
		send(conn, "K", 1, MSG_NOSIGNAL);
		return 0;
	case FP_SC_STOP:
		/* anyone may connect; only root may end the trace */
		if (take_stop_fds(&m, fds) || !peer_is_root(conn)) {
			for (i = 0; i < STOP_FDS; i++)
				if (fds[i] >= 0)
					close(fds[i]);
			send(conn, "E refused", 9, MSG_NOSIGNAL);
			return 0;
		}
		peer_pid(conn, &st->stopper);
		st->annotations = n > 1 && buf[1] == 'a';
		st->quiet = n > 2 && buf[2] == 'q';
		/* then --summary-max in decimal, if given; root's own */
		st->summary_max = n > 3 ? strtoul(buf + 3, NULL, 10) : 0;
		if (st->summary_max > FP_SUMMARY_MAX_LIMIT)
			st->summary_max = FP_SUMMARY_MAX_LIMIT;
		return 1;
	default:
		send(conn, "E unknown request", 17, MSG_NOSIGNAL);
		return 0;
	}
}

/*
 * The programs must still run: a traced process that unloads or detaches
 * them leaves no event of its own, so their silence is the evidence.
 */
static void check_heartbeat(struct fp_session *s, struct fp_sidecar_state *st)
{
	struct fp_event ev = { .type = FP_EV_TAMPER };

	if (st->heartbeat_lost || fp_tracer_heartbeat(s->tracer) != -ENOLINK)
		return;
	st->heartbeat_lost = true;
	ev.ts_ns = mono_ns();
	ev.pid = ev.tid = getpid();
	ev.tamper.kind = FP_TAMPER_HEARTBEAT;
	ev.tamper.target_pid = getpid();
	fp_session_inject(s, &ev);
}

static void tick_minute(struct fp_session *s, struct fp_sidecar_state *st)
{
	uint64_t lost = lost_now(s);

	st->lost_per_min[st->minute % 60] = lost - st->lost_seen;
	st->lost_seen = lost;
	st->minute++;
	st->lost_per_min[st->minute % 60] = 0;
}

/* Poll until a stop request; its connection is returned, -errno else. */
static int trace_until_stop(struct fp_session *s, struct fp_sidecar_state *st,
			    int fds[STOP_FDS])
{
	struct itimerspec minute = { { 60, 0 }, { 60, 0 } };
	struct itimerspec beat = { { 2, 0 }, { 2, 0 } };
	struct epoll_event evs[4], ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	int hfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	int ret = -EINTR, n, i, conn;
	uint64_t ticks;

	if (ep < 0 || tfd < 0 || hfd < 0 ||
	    timerfd_settime(tfd, 0, &minute, NULL) ||
	    timerfd_settime(hfd, 0, &beat, NULL)) {
		ret = -errno;
		goto cleanup;
	}
	fp_tracer_boost_collector();
	ev.data.fd = fp_tracer_epoll_fd(s->tracer);
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	ev.data.fd = st->listen_fd;
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	ev.data.fd = tfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	ev.data.fd = hfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	for (;;) {
		n = epoll_wait(ep, evs, 4, 50);
		if (n < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		for (i = 0; i < n; i++) {
			if (evs[i].data.fd == tfd &&
			    read(tfd, &ticks, sizeof(ticks)) > 0)
				tick_minute(s, st);
			if (evs[i].data.fd == hfd &&
			    read(hfd, &ticks, sizeof(ticks)) > 0)
				check_heartbeat(s, st);
			if (evs[i].data.fd != st->listen_fd)
				continue;
			conn = accept4(st->listen_fd, NULL, NULL, SOCK_CLOEXEC);
			if (conn < 0)
				continue;
			if (serve_one(conn, s, st, fds) == 1) {
				ret = conn;
				goto cleanup;
			}
			close(conn);
		}
		n = fp_tracer_consume(s->tracer);
		if (n < 0) {
			ret = n;
			break;
		}
		if (s->logging)
			fp_evlog_tick(&s->log.w);
	}
cleanup:
	if (tfd >= 0)
		close(tfd);
	if (hfd >= 0)
		close(hfd);
	if (ep >= 0)
		close(ep);
	return ret;
}

static pid_t parent_of(pid_t pid)
{
	char path[64], stat[512], *rp;
	int ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(stat, sizeof(stat), f) && (rp = strrchr(stat, ')')))
		sscanf(rp + 2, "%*c %d", &ppid);
	fclose(f);
	return ppid;
}

static bool is_ancestor(pid_t pid, pid_t of)
{
	int hops;

	for (hops = 0; of > 1 && hops < 64; hops++, of = parent_of(of))
		if (of == pid)
			return true;
	return false;
}

/*
 * What the job started and left running: alive at stop, forked or
 * exec'd during the trace, and not the stop step itself or one of its
 * ancestors (the runner, the step's shell).
 */
static void find_leftovers(struct fp_session *s, pid_t stopper)
{
	struct fp_run *run = &s->run;
	size_t cap = 0;
	struct dirent *de;
	pid_t pid, *v;
	DIR *d;

	fp_tracer_consume(s->tracer);
	d = opendir("/proc");
	while (d && (de = readdir(d))) {
		pid = atoi(de->d_name);
		if (pid <= 0 || pid == getpid() ||
		    !fp_recon_started_alive(run->recon, pid) ||
		    is_ancestor(pid, stopper))
			continue;
		if (run->nleftover == cap) {
			cap = cap ? 2 * cap : 16;
			v = realloc(run->leftover, cap * sizeof(*v));
			if (!v)
				break;
			run->leftover = v;
		}
		run->leftover[run->nleftover++] = pid;
	}
	if (d)
		closedir(d);
}

/* The markdown job summary (where asked), and annotations on stdout. */
static void write_reports(struct fp_session *s, int summary_fd,
			  bool annotations)
{
	FILE *f = summary_fd >= 0 ? fdopen(dup(summary_fd), "w") : NULL;

	if (f) {
		fp_summary_md_write(f, &s->findings, &s->verdict,
				    FP_MD_SUMMARY_MAX);
		fclose(f);
	}
	if (annotations) {
		fp_annotations_write(stdout, &s->findings, &s->verdict,
				     FP_ANNOTATIONS_MAX);
		fflush(stdout);
	}
}

/* The verdict, written where the stop request asked for it. */
static int finish(struct fp_session *s, int fds[STOP_FDS], int64_t t0,
		  bool annotations, pid_t stopper)
{
	int rc;

	/* the stop command's stdout and stderr are ours from now on */
	dup2(fds[2], STDOUT_FILENO);
	dup2(fds[3], STDERR_FILENO);
	if (fds[0] >= 0)
		s->receipt = fdopen(fds[0], "w");
	s->run.duration_ms = fp_now_ms() - t0;
	find_leftovers(s, stopper);
	rc = fp_session_after_procs(s);
	if (!rc) {
		fp_session_drain(s);
		rc = fp_session_after_files(s);
	}
	if (!rc) {
		rc = fp_session_verdict(s);
		write_reports(s, fds[1], annotations);
	}
	return rc;
}

int fp_sidecar_serve(struct fp_session *s, struct fp_sidecar_state *st)
{
	int fds[STOP_FDS] = { -1, -1, -1, -1 };
	int64_t t0 = fp_now_ms();
	int conn, rc, i;

	if (write(st->ready_fd, "1", 1) != 1)
		return FP_EXIT_NOTRACE;
	close(st->ready_fd);
	st->ready_fd = -1;
	conn = trace_until_stop(s, st, fds);
	if (conn < 0) {
		/* no one asked for the verdict: the log keeps what was seen */
		s->trace_err = conn;
		return FP_EXIT_NOTRACE;
	}
	s->o.quiet = st->quiet;
	s->o.summary_max = st->summary_max;
	rc = finish(s, fds, t0, st->annotations, st->stopper);
	fp_session_finish(s, &rc, false, 0, 0, NULL);
	/* answered by fp_sidecar_answer once the tracer and cgroup are gone */
	st->stop_conn = conn;
	for (i = 1; i < STOP_FDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return rc;
}

void fp_sidecar_answer(struct fp_sidecar_state *st, int rc)
{
	char reply[32];

	if (st->stop_conn < 0)
		return;
	snprintf(reply, sizeof(reply), "R %d", rc);
	send(st->stop_conn, reply, strlen(reply), MSG_NOSIGNAL);
	close(st->stop_conn);
	st->stop_conn = -1;
}
