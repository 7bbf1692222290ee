// SPDX-License-Identifier: GPL-2.0
/* The sidecar's daemon loop (sidecar.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
		       "{\"pid\":%d,\"daemon\":\"%d:%" PRIu64
		       "\",\"events\":%" PRIu64 ",\"lost\":%" PRIu64
		       ",\"steps\":%zu,\"marks\":%u,\"rss_kib\":%lu"
		       ",\"lost_per_minute\":[",
		       (int)getpid(), (int)getpid(), st->self.start_ticks,
		       s->col->delivered, lost,
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

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static bool is_own(const struct fp_sc_peer *p)
{
	return p->footprint && p->clean && p->nown;
}

/* Evidence a traced process left on the control socket, or the daemon's
 * own (pid 0: it names no process of the job). */
static void tamper_event(struct fp_session *s, uint32_t kind, pid_t by,
			 pid_t target, int64_t arg)
{
	struct fp_event ev = { .type = FP_EV_TAMPER };

	fp_tracer_consume(s->tracer);
	ev.ts_ns = mono_ns();
	ev.pid = ev.tid = by;
	ev.tamper.kind = kind;
	ev.tamper.target_pid = target;
	ev.tamper.arg = arg;
	fp_session_inject(s, &ev);
}

static const char *const result_names[] = {
	[FP_CTL_OK] = "ok",
	[FP_CTL_REFUSED] = "refused",
	[FP_CTL_TAMPER] = "tamper",
	[FP_CTL_FOREIGN] = "foreign",
};

/*
 * Every message, done or not, is evidence: in the log (FP_EV_CONTROL,
 * after what the ring holds, which came first) and in the journal.
 */
static void control_event(struct fp_session *s, struct fp_sidecar_state *st,
			  const struct fp_sc_peer *p, uint32_t op,
			  uint32_t result, const char *name, size_t len,
			  pid_t step)
{
	struct fp_event ev = { .type = FP_EV_CONTROL };
	char id[FP_SC_ID_LEN], own[FP_CTL_MAX_OWN * 12 + 1] = "", nm[800];
	size_t o = 0;
	unsigned int i;

	fp_tracer_consume(s->tracer);
	ev.ts_ns = mono_ns();
	ev.pid = ev.tid = p->pid;
	ev.ppid = p->ppid;
	ev.uid = p->uid;
	ev.control.op = op;
	ev.control.result = result;
	ev.control.start_ticks = p->start_ticks;
	ev.control.step_pid = step;
	/* only a checked footprint vouches for the processes above it */
	ev.control.nown = is_own(p) ? p->nown : 0;
	memcpy(ev.control.own, p->own, sizeof(ev.control.own));
	ev.control.name.data = (char *)name;
	ev.control.name.len = len;
	fp_session_inject(s, &ev);

	for (i = 0; i < ev.control.nown; i++)
		o += snprintf(own + o, sizeof(own) - o, "%s%u", i ? "," : "",
			      p->own[i]);
	fp_sc_id(id, p->pid, p->start_ticks);
	fp_sc_esc(nm, sizeof(nm), name ? name : "", len);
	fp_sc_journal_line(
		&st->journal, op != FP_CTL_STATUS && op != FP_CTL_MARK,
		"control", "op=%s peer=%s uid=%u result=%s own=%s%s%s",
		fp_control_op_name(op), id, (unsigned int)p->uid,
		result_names[result], own, len ? " name=" : "", len ? nm : "");
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

/* stop's flags, and the daemon it expects: another one is tamper */
static void take_stop_request(struct fp_session *s, struct fp_sidecar_state *st,
			      const struct fp_sc_msg *m)
{
	struct fp_sc_stop_req r;
	uint64_t ticks = 0;
	pid_t pid = 0;

	fp_sc_stop_decode(m, &r);
	st->annotations = r.annotations;
	st->quiet = r.quiet;
	st->summary_max = r.summary_max;
	if (!r.expect[0] || fp_sc_id_parse(r.expect, &pid, &ticks))
		return;
	if (pid == getpid() && ticks == st->self.start_ticks)
		return;
	tamper_event(s, FP_TAMPER_REPLACED, 0, pid, (int64_t)ticks);
	fp_sc_journal_line(&st->journal, true, "tamper",
			   "kind=replaced expected=%d:%llu", (int)pid,
			   (unsigned long long)ticks);
}

/*
 * hello and stop: only root's footprint, started for the sidecar (stop's
 * child, born in the daemon's cgroup), may say them. Another root
 * process doing so is reaching for the sidecar (to hide from the trace,
 * to end it): refused, and tamper evidence.
 */
static uint32_t root_footprint_only(struct fp_session *s,
				    struct fp_sidecar_state *st,
				    const struct fp_sc_peer *p, uint32_t op)
{
	if (p->uid != 0 || !p->pid)
		return FP_CTL_REFUSED;
	if (is_own(p) && p->in_cgroup)
		return FP_CTL_OK;
	tamper_event(s, FP_TAMPER_CONTROL, p->pid, 0, op);
	return FP_CTL_TAMPER;
}

/* `sidecar mark NAME`: the job's user and root; not another user of
 * the box */
static int serve_mark(int conn, struct fp_session *s,
		      struct fp_sidecar_state *st, const struct fp_sc_peer *p,
		      struct fp_sc_msg *m)
{
	uint32_t res = p->pid && (p->uid == 0 || p->uid == st->owner) ?
			       (is_own(p) ? FP_CTL_OK : FP_CTL_FOREIGN) :
			       FP_CTL_REFUSED;

	control_event(s, st, p, FP_CTL_MARK, res, m->buf + 1, m->len - 1, 0);
	if (res == FP_CTL_REFUSED) {
		fp_sc_reply(conn, "E refused");
		return 0;
	}
	mark_step(s, st, m->buf + 1, m->len - 1);
	fp_sc_reply(conn, "K");
	return 0;
}

/*
 * One request from a client. 1 when it was a stop (its fds in fds), 0
 * when answered, -EAGAIN when nothing has come yet.
 */
static int serve_one(int conn, struct fp_session *s,
		     struct fp_sidecar_state *st, int fds[FP_SC_STOP_FDS])
{
	struct fp_sc_msg m;
	ssize_t n = fp_sc_recv(conn, &m);
	struct fp_sc_peer p;
	uint32_t res;

	if (n == -EAGAIN)
		return -EAGAIN;
	if (n <= 0)
		return 0;
	/* only a stop's fds are the daemon's to keep */
	if (m.buf[0] != FP_SC_STOP)
		fp_sc_msg_close_fds(&m);
	fp_sc_peer_identify(conn, &st->self, &p);
	switch (m.buf[0]) {
	case FP_SC_STATUS:
	case FP_SC_STATUS_TEXT:
		control_event(s, st, &p, FP_CTL_STATUS,
			      is_own(&p) ? FP_CTL_OK : FP_CTL_FOREIGN, NULL, 0,
			      0);
		reply_status(conn, s, st, m.buf[0] == FP_SC_STATUS);
		return 0;
	case FP_SC_MARK:
		return serve_mark(conn, s, st, &p, &m);
	case FP_SC_HELLO:
		res = root_footprint_only(s, st, &p, FP_CTL_HELLO);
		control_event(s, st, &p, FP_CTL_HELLO, res, NULL, 0, 0);
		fp_sc_reply(conn, res == FP_CTL_OK ? "K" : "E refused");
		return 0;
	case FP_SC_STOP:
		res = m.fds_ok ? root_footprint_only(s, st, &p, FP_CTL_STOP) :
				 FP_CTL_REFUSED;
		control_event(s, st, &p, FP_CTL_STOP, res, NULL, 0, 0);
		if (res != FP_CTL_OK) {
			fp_sc_msg_close_fds(&m);
			fp_sc_reply(conn, "E refused");
			return 0;
		}
		memcpy(fds, m.fds, sizeof(m.fds));
		st->stopper = p.pid;
		take_stop_request(s, st, &m);
		return 1;
	default:
		fp_sc_reply(conn, "E unknown request");
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

/* ---- the clients: none of them may hold the loop ---- */

enum { EP_RING, EP_LISTEN, EP_MINUTE, EP_BEAT, EP_CLIENT };
#define EP_TAG(kind, i) (((uint64_t)(kind) << 32) | (uint32_t)(i))

static void client_close(struct fp_sidecar_state *st, unsigned int i)
{
	if (st->clients[i].fd < 0)
		return;
	epoll_ctl(st->epoll_fd, EPOLL_CTL_DEL, st->clients[i].fd, NULL);
	close(st->clients[i].fd);
	st->clients[i].fd = -1;
}

/* A new client, in the first free slot, else in the oldest one's. */
static void client_add(struct fp_sidecar_state *st, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned int i, pick = 0;

	for (i = 0; i < FP_SC_MAX_CLIENTS; i++) {
		if (st->clients[i].fd < 0) {
			pick = i;
			break;
		}
		if (st->clients[i].deadline_ms < st->clients[pick].deadline_ms)
			pick = i;
	}
	client_close(st, pick);
	st->clients[pick].fd = fd;
	st->clients[pick].deadline_ms = fp_now_ms() + FP_SC_CLIENT_MS;
	ev.data.u64 = EP_TAG(EP_CLIENT, pick);
	if (epoll_ctl(st->epoll_fd, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		st->clients[pick].fd = -1;
	}
}

static void clients_accept(struct fp_sidecar_state *st)
{
	int fd, n;

	/* a bounded batch: the ring is drained between two */
	for (n = 0; n < FP_SC_MAX_CLIENTS; n++) {
		fd = accept4(st->listen_fd, NULL, NULL,
			     SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		client_add(st, fd);
	}
}

static void clients_expire(struct fp_sidecar_state *st)
{
	int64_t now = fp_now_ms();
	unsigned int i;

	for (i = 0; i < FP_SC_MAX_CLIENTS; i++)
		if (st->clients[i].fd >= 0 && st->clients[i].deadline_ms < now)
			client_close(st, i);
}

/* A client spoke: 1 when it asked for the stop (then its fd is taken
 * out of the table, to get the answer at the very end). */
static int client_ready(struct fp_session *s, struct fp_sidecar_state *st,
			unsigned int i, int fds[FP_SC_STOP_FDS])
{
	int fd = st->clients[i].fd, ret;

	if (i >= FP_SC_MAX_CLIENTS || fd < 0)
		return 0;
	ret = serve_one(fd, s, st, fds);
	if (ret == -EAGAIN)
		return 0;
	if (ret == 1) {
		epoll_ctl(st->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
		st->clients[i].fd = -1;
		st->stop_conn = fd;
		return 1;
	}
	/* one request per connection */
	client_close(st, i);
	return 0;
}

static int loop_setup(struct fp_session *s, struct fp_sidecar_state *st,
		      int tfd, int hfd)
{
	struct itimerspec minute = { { 60, 0 }, { 60, 0 } };
	struct itimerspec beat = { { 2, 0 }, { 2, 0 } };
	struct epoll_event ev = { .events = EPOLLIN };
	int fl = fcntl(st->listen_fd, F_GETFL);
	unsigned int i;

	for (i = 0; i < FP_SC_MAX_CLIENTS; i++)
		st->clients[i].fd = -1;
	if (st->epoll_fd < 0 || tfd < 0 || hfd < 0 || fl < 0 ||
	    fcntl(st->listen_fd, F_SETFL, fl | O_NONBLOCK) ||
	    timerfd_settime(tfd, 0, &minute, NULL) ||
	    timerfd_settime(hfd, 0, &beat, NULL))
		return -errno;
	ev.data.u64 = EP_TAG(EP_RING, 0);
	if (epoll_ctl(st->epoll_fd, EPOLL_CTL_ADD,
		      fp_tracer_epoll_fd(s->tracer), &ev))
		return -errno;
	ev.data.u64 = EP_TAG(EP_LISTEN, 0);
	if (epoll_ctl(st->epoll_fd, EPOLL_CTL_ADD, st->listen_fd, &ev))
		return -errno;
	ev.data.u64 = EP_TAG(EP_MINUTE, 0);
	if (epoll_ctl(st->epoll_fd, EPOLL_CTL_ADD, tfd, &ev))
		return -errno;
	ev.data.u64 = EP_TAG(EP_BEAT, 0);
	return epoll_ctl(st->epoll_fd, EPOLL_CTL_ADD, hfd, &ev) ? -errno : 0;
}

/* One poll: 1 when a stop came, 0 to go on, -errno when it failed. */
static int poll_once(struct fp_session *s, struct fp_sidecar_state *st, int tfd,
		     int hfd, int fds[FP_SC_STOP_FDS])
{
	struct epoll_event evs[8];
	uint64_t ticks;
	int n, i, ret;

	n = epoll_wait(st->epoll_fd, evs, 8, 50);
	if (n < 0 && errno != EINTR)
		return -errno;
	for (i = 0; i < n; i++) {
		uint32_t kind = evs[i].data.u64 >> 32;

		if (kind == EP_MINUTE && read(tfd, &ticks, sizeof(ticks)) > 0)
			tick_minute(s, st);
		else if (kind == EP_BEAT &&
			 read(hfd, &ticks, sizeof(ticks)) > 0)
			check_heartbeat(s, st);
		else if (kind == EP_LISTEN)
			clients_accept(st);
		else if (kind == EP_CLIENT &&
			 client_ready(s, st, (uint32_t)evs[i].data.u64, fds))
			return 1;
	}
	clients_expire(st);
	ret = fp_tracer_consume(s->tracer);
	if (ret < 0)
		return ret;
	if (s->logging)
		fp_evlog_tick(&s->log.w);
	return 0;
}

/* Poll until a stop request (1: its connection is st->stop_conn), or
 * -errno. */
static int trace_until_stop(struct fp_session *s, struct fp_sidecar_state *st,
			    int fds[FP_SC_STOP_FDS])
{
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	int hfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	unsigned int i;
	int ret;

	st->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	ret = loop_setup(s, st, tfd, hfd);
	if (!ret)
		fp_tracer_boost_collector();
	while (!ret)
		ret = poll_once(s, st, tfd, hfd, fds);
	for (i = 0; i < FP_SC_MAX_CLIENTS; i++)
		client_close(st, i);
	if (tfd >= 0)
		close(tfd);
	if (hfd >= 0)
		close(hfd);
	if (st->epoll_fd >= 0)
		close(st->epoll_fd);
	st->epoll_fd = -1;
	return ret;
}

static long is_pid(void *ctx, pid_t pid, pid_t ppid)
{
	(void)ppid;
	return pid == *(pid_t *)ctx;
}

/* pid is of, or one of its ancestors */
static bool is_ancestor(pid_t pid, pid_t of)
{
	return fp_proc_walk_up(of, is_pid, &pid) != 0;
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

/* The verdict, written where the stop request asked for it. */
static int finish(struct fp_session *s, int fds[FP_SC_STOP_FDS], int64_t t0,
		  bool annotations, pid_t stopper)
{
	int rc;

	/* the stop command's stdout and stderr are ours from now on */
	dup2(fds[2], STDOUT_FILENO);
	dup2(fds[3], STDERR_FILENO);
	if (fds[0] >= 0)
		s->receipt = fdopen(fds[0], "w");
	s->report.markdown_fd = fds[1];
	s->report.annotations = annotations;
	s->run.duration_ms = fp_now_ms() - t0;
	find_leftovers(s, stopper);
	rc = fp_session_after_procs(s);
	if (!rc) {
		fp_session_drain(s, NULL);
		rc = fp_session_after_files(s);
	}
	if (!rc)
		rc = fp_session_verdict(s);
	return rc;
}

static long child_of(void *ctx, pid_t pid, pid_t ppid)
{
	return ppid == *(const pid_t *)ctx ? pid : 0;
}

/* The step that ran `sidecar start`: the child of the step parent that
 * start descends from (it may be start's own sudo); 0 if none. */
static pid_t start_step(const struct fp_sidecar_state *st)
{
	pid_t parent = st->step_parent;

	return parent ? (pid_t)fp_proc_walk_up(st->start_pid, child_of,
					       &parent) :
			0;
}

void fp_sidecar_started(struct fp_session *s, struct fp_sidecar_state *st)
{
	char action[FP_STEP_NAME_MAX] = "", id[FP_SC_ID_LEN], rid[FP_SC_ID_LEN];
	char name[3 * FP_STEP_NAME_MAX + 1];
	pid_t step = start_step(st);
	struct fp_sc_peer p;

	if (fp_sc_pid_identify(st->start_pid, &st->self, &p))
		p.pid = st->start_pid;
	/* GITHUB_ACTION of the step, as the runner set it: sudo dropped it
	 * from start's own environment */
	if (step &&
	    fp_proc_getenv(step, "GITHUB_ACTION", action, sizeof(action)))
		action[0] = '\0';
	fp_sc_id(id, getpid(), st->self.start_ticks);
	fp_sc_id(rid, st->restart_of, st->restart_of_ticks);
	fp_sc_esc(name, sizeof(name), action, strlen(action));
	fp_sc_journal_line(
		&st->journal, true, "start",
		"daemon=%s exe=%llu:%llu uid=%u scope=%s step=%d action=%s restart=%s",
		id, (unsigned long long)st->self.exe_dev,
		(unsigned long long)st->self.exe_ino, (unsigned int)st->owner,
		st->scope, (int)step, name, st->restart_of ? rid : "no");
	control_event(s, st, &p, FP_CTL_START,
		      is_own(&p) ? FP_CTL_OK : FP_CTL_FOREIGN, action,
		      strlen(action), step);
	if (st->restart_of)
		tamper_event(s, FP_TAMPER_RESTART, 0, st->restart_of,
			     (int64_t)st->restart_of_ticks);
}

int fp_sidecar_serve(struct fp_session *s, struct fp_sidecar_state *st)
{
	int fds[FP_SC_STOP_FDS] = { -1, -1, -1, -1 };
	int64_t t0 = fp_now_ms();
	char ready[8 + FP_SC_ID_LEN];
	int conn, rc, i, n;

	/* tracing is live; who the daemon is, for the action to pin */
	n = snprintf(ready, sizeof(ready), "1 %d:%llu", (int)getpid(),
		     (unsigned long long)st->self.start_ticks);
	if (write(st->ready_fd, ready, n) != n)
		return FP_EXIT_NOTRACE;
	close(st->ready_fd);
	st->ready_fd = -1;
	conn = trace_until_stop(s, st, fds);
	if (conn < 0) {
		/* no one asked for the verdict: the log keeps what was seen */
		s->trace_err = conn;
		fp_sc_journal_line(&st->journal, true, "ended", "why=%d", conn);
		return FP_EXIT_NOTRACE;
	}
	s->o.quiet = st->quiet;
	s->o.summary_max = st->summary_max;
	rc = finish(s, fds, t0, st->annotations, st->stopper);
	fp_session_finish(s, &rc, false, 0, 0, NULL);
	if (st->journal.dropped)
		fp_sc_journal_line(&st->journal, true, "dropped", "lines=%llu",
				   (unsigned long long)st->journal.dropped);
	fp_sc_id(ready, getpid(), st->self.start_ticks);
	fp_sc_journal_line(
		&st->journal, true, "stopped", "daemon=%s rc=%d by=%d:%llu",
		ready, rc, (int)st->stopper,
		(unsigned long long)fp_proc_start_ticks(st->stopper));
	/* answered by fp_sidecar_answer once the tracer and cgroup are gone */
	for (i = 1; i < FP_SC_STOP_FDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return rc;
}

void fp_sidecar_answer(struct fp_sidecar_state *st, int rc)
{
	if (st->stop_conn < 0)
		return;
	fp_sc_reply_code(st->stop_conn, rc);
	close(st->stop_conn);
	st->stop_conn = -1;
}
