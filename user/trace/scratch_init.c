// SPDX-License-Identifier: GPL-2.0
/*
 * The scratch box's pid namespace. Without one, /proc/PID/root of any
 * process of the user outside the box is the real filesystem, around the
 * overlays and the hides. footprint's launching thread unshares the pid
 * namespace for its children: the first, the box's init, is pid 1 there;
 * the command, cloned next, is pid 2 and still footprint's own child, so
 * its wait status, its pidfd and the signals passed on to it are what
 * they are without a box. The init is not in the run's cgroup: it is no
 * part of the trace. It reaps the orphans and, once footprint says the
 * command is reaped (by closing a pipe), exits when nothing is left: its
 * exit kills whatever still runs in the namespace.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"

/* Runs in the fork of a threaded process: system calls only. */
static void reap_all(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static __attribute__((noreturn)) void box_init(int rfd)
{
	struct signalfd_siginfo si;
	struct pollfd p[2];
	sigset_t all, chld;
	int null, sfd;

	prctl(PR_SET_NAME, "fp-box-init", 0, 0, 0);
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	/* nothing of footprint's (outputs, BPF objects, the overlays, its
	 * terminal) stays open here: with leftovers allowed, this outlives
	 * footprint */
	rfd = fcntl(rfd, F_DUPFD, 10);
	sfd = signalfd(-1, &chld, 0);
	sfd = sfd < 0 ? -1 : fcntl(sfd, F_DUPFD, 10);
	if (rfd < 0 || sfd < 0 || dup2(rfd, 3) != 3 || dup2(sfd, 4) != 4)
		_exit(1);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
	    dup2(null, 2) < 0)
		_exit(1);
	syscall(SYS_close_range, 5, ~0U, 0);
	if (chdir("/"))
		_exit(1);
	p[0] = (struct pollfd){ .fd = 3, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = 4, .events = POLLIN };
	for (;;) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			_exit(1);
		if (p[1].revents && read(4, &si, sizeof(si)) < 0 &&
		    errno != EINTR)
			_exit(1);
		reap_all();
		/* footprint never writes: EOF is the command reaped, or
		 * footprint gone */
		if (p[0].revents)
			break;
	}
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	_exit(0);
}

int fp_box_enter(struct fp_child *child, int *saved)
{
	int pipefd[2], e;
	pid_t pid;

	*saved = open("/proc/thread-self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (*saved < 0)
		return -errno;
	if (pipe2(pipefd, O_CLOEXEC)) {
		e = -errno;
		goto fail;
	}
	if (unshare(CLONE_NEWPID)) {
		e = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		goto fail;
	}
	pid = fork();
	if (pid == 0) {
		close(pipefd[1]);
		box_init(pipefd[0]);
	}
	e = pid < 0 ? -errno : 0;
	close(pipefd[0]);
	if (e) {
		close(pipefd[1]);
		fp_box_leave(*saved);
		*saved = -1;
		return e;
	}
	child->init_pid = pid;
	child->init_fd = pipefd[1];
	return 0;
fail:
	close(*saved);
	*saved = -1;
	return e;
}

int fp_box_leave(int saved)
{
	int e = 0;

	/* footprint's own later children stay in its namespace */
	if (setns(saved, CLONE_NEWPID))
		e = -errno;
	close(saved);
	return e;
}

void fp_box_end(struct fp_child *child)
{
	pid_t r;

	if (child->init_fd >= 0)
		close(child->init_fd);
	child->init_fd = -1;
	if (child->init_pid <= 0)
		return;
	/* from the parent namespace SIGKILL reaches an init; its death
	 * kills everything left in the box */
	kill(child->init_pid, SIGKILL);
	do
		r = waitpid(child->init_pid, NULL, 0);
	while (r < 0 && errno == EINTR);
	child->init_pid = -1;
}
