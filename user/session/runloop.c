// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "runloop.h"

/*
 * Pass a signal meant for footprint on to the command; one from the
 * terminal already reached the whole foreground process group, unless
 * the command has a session of its own. A second one ends the run.
 */
static void forward_signal(int sigfd, const struct fp_child *child,
			   struct fp_loop_state *ls)
{
	struct signalfd_siginfo si;

	while (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
		ls->interrupted = true;
		if (++ls->signals >= 2) {
			fp_cgroup_kill(ls->cg);
			continue;
		}
		if (si.ssi_code == SI_KERNEL && !ls->own_session &&
		    (si.ssi_signo == SIGINT || si.ssi_signo == SIGQUIT))
			continue;
		kill(child->pid, si.ssi_signo);
	}
}

/*
 * ^C typed on the command's own terminal reached the command from there;
 * here it interrupts the run, and a second one (or signal) ends it.
 */
static void tty_interrupts(struct fp_loop_state *ls, unsigned int *seen)
{
	unsigned int n;

	if (!ls->tty_interrupts)
		return;
	n = __atomic_load_n(ls->tty_interrupts, __ATOMIC_RELAXED);
	for (; *seen < n; (*seen)++) {
		ls->interrupted = true;
		if (++ls->signals >= 2)
			fp_cgroup_kill(ls->cg);
	}
}

/*
 * How long the loop sleeps when nothing wakes it. Records do not wake the
 * collector one by one (emit(), bpf/common.bpf.h), so what the command
 * emitted since waits in the ring for this long, and what is left there
 * when the command exits is read before anything else: at 50 ms, 1.5-4.6
 * ms after a tar round trip of 2,000 files. While records come, the ring is
 * read every BUSY_MS, on the CPU the command leaves; once a wait found
 * none, every IDLE_MS, which a command that sleeps barely notices.
 */
#define BUSY_MS 10
#define IDLE_MS 50

/* The one poll loop: ring buffer, child exit, signals, timeout. */
int fp_trace_until_exit(struct fp_tracer *t, struct fp_child *child, int sigfd,
			struct fp_log_sink *log, int timerfd,
			struct fp_loop_state *ls)
{
	struct epoll_event evs[4], ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC);
	bool exited = false;
	unsigned int typed = 0;
	int ret = 0, n, i, wait_ms = IDLE_MS;
	uint64_t ticks;

	if (ep < 0)
		return -errno;
	fp_tracer_boost_collector();
	ev.data.fd = fp_tracer_epoll_fd(t);
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	ev.data.fd = child->pidfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	ev.data.fd = sigfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	if (timerfd >= 0) {
		ev.data.fd = timerfd;
		epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	}
	while (!exited) {
		n = epoll_wait(ep, evs, 4, wait_ms);
		if (n < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		for (i = 0; i < n; i++) {
			if (evs[i].data.fd == child->pidfd) {
				exited = true;
			} else if (evs[i].data.fd == sigfd) {
				forward_signal(sigfd, child, ls);
			} else if (evs[i].data.fd == timerfd &&
				   read(timerfd, &ticks, sizeof(ticks)) > 0) {
				ls->timed_out = true;
				fp_cgroup_kill(ls->cg);
			}
		}
		tty_interrupts(ls, &typed);
		n = fp_tracer_consume(t);
		if (n < 0) {
			ret = n;
			break;
		}
		wait_ms = n > 0 ? BUSY_MS : IDLE_MS;
		/* a log killed with the run stays readable up to a second ago */
		if (log)
			fp_evlog_tick(&log->w);
	}
	close(ep);
	return ret;
}
