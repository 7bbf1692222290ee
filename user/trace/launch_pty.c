// SPDX-License-Identifier: GPL-2.0
/*
 * The command on a terminal of its own (cmdterm.h), launched as sudo's
 * use_pty does: a monitor, a small root process outside the run's
 * cgroup, leads the terminal's session and launches the command as its
 * child, in a process group of its own in the terminal's foreground.
 *
 * Why not the command as the session's leader, footprint's child: a
 * process group whose members' parents are all outside its session is
 * orphaned, and the kernel discards the stop signals of ^Z for it (as
 * POSIX says), so ^Z would do nothing. The monitor is the parent inside
 * the session. It tells footprint, over a socket, the command's pid (a
 * pidfd) and each time the command stops or ends; footprint passes ^Z
 * on to the caller's shell (cmdterm.c). It dies with footprint.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmdterm.h"
#include "fdpass.h"
#include "launch_int.h"

/* what the monitor says, one message each */
enum {
	MON_PID = 'P', /* the command runs: its pidfd */
	MON_ERROR = 'E', /* it does not: -errno */
	MON_STOPPED = 'S', /* it stopped: the signal */
	MON_EXITED = 'X', /* it ended: its wait status */
	MON_ACK = 'A', /* footprint's one word: it has the pid */
};

struct mon_msg {
	int type;
	int value;
};

static int send_msg(int sock, int type, int value, int fd)
{
	struct mon_msg m = { type, value };

	return fp_fdpass_send(sock, &m, sizeof(m), fd);
}

/* One message; *fd the descriptor it carried (-1: none). 0, or -1. */
static int recv_msg(int sock, struct mon_msg *m, int *fd)
{
	return fp_fdpass_recv(sock, m, sizeof(*m), fd);
}

/*
 * footprint has read the command's pid off the pidfd: until then the
 * command is not reaped, as its pid would be gone with it (a command
 * quicker than footprint's reading was, 1 run in 20 under qemu). 0, or
 * -1 if footprint went away.
 */
static int wait_ack(int sock)
{
	char c;
	ssize_t n;

	do
		n = recv(sock, &c, 1, 0);
	while (n < 0 && errno == EINTR);
	return n == 1 && c == MON_ACK ? 0 : -1;
}

/*
 * The monitor: the session and its terminal, the command, then its
 * stops and its end, told to footprint. Never returns.
 */
static void monitor(int sock, int errfd, char *const argv[], int cgroup_fd,
		    const sigset_t *mask, const struct fp_identity *id,
		    const struct fp_scratch *sc, const struct fp_pty *pty)
{
	int pidfd = -1, status;
	pid_t pid, r;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, "fp-monitor", 0, 0, 0);
	if (setsid() < 0 || ioctl(pty->slave, TIOCSCTTY, 0)) {
		send_msg(sock, MON_ERROR, -errno, -1);
		_exit(1);
	}
	pid = fp_launch_command(cgroup_fd, errfd, argv, mask, id, sc, pty,
				&pidfd);
	if (pid < 0) {
		send_msg(sock, MON_ERROR, -errno, -1);
		_exit(1);
	}
	close(errfd);
	/* as the command does itself: whichever comes first */
	setpgid(pid, pid);
	tcsetpgrp(pty->slave, pid);
	if (send_msg(sock, MON_PID, 0, pidfd) || wait_ack(sock)) {
		kill(pid, SIGKILL);
		_exit(1);
	}
	close(pidfd);
	for (;;) {
		r = waitpid(pid, &status, WUNTRACED);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == pid && WIFSTOPPED(status)) {
			send_msg(sock, MON_STOPPED, WSTOPSIG(status), -1);
			continue;
		}
		/* no status to be had: say it was killed */
		send_msg(sock, MON_EXITED, r == pid ? status : SIGKILL, -1);
		_exit(0);
	}
}

/* The pid in footprint's namespace of the process a pidfd refers to. */
static pid_t pidfd_pid(int pidfd)
{
	char path[64], line[128];
	pid_t pid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Pid: %d", &pid) == 1)
			break;
	fclose(f);
	return pid;
}

pid_t fp_monitor_launch(struct fp_child *child, int errfd, char *const argv[],
			int cgroup_fd, const sigset_t *mask,
			const struct fp_identity *id,
			const struct fp_scratch *sc, const struct fp_pty *pty)
{
	struct mon_msg m = { 0 };
	int sv[2], fd, e;
	pid_t mon, pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -1;
	mon = fork();
	if (mon == 0) {
		close(sv[0]);
		monitor(sv[1], errfd, argv, cgroup_fd, mask, id, sc, pty);
	}
	e = errno;
	close(sv[1]);
	if (mon < 0) {
		close(sv[0]);
		errno = e;
		return -1;
	}
	child->monitor = mon;
	child->monitor_fd = sv[0];
	/* in a box, the monitor sees the command's pid in the box's pid
	 * namespace: the pidfd says which it is here */
	if (recv_msg(sv[0], &m, &fd) || m.type != MON_PID || fd < 0 ||
	    (pid = pidfd_pid(fd)) <= 0 ||
	    send(sv[0], &(char){ MON_ACK }, 1, MSG_NOSIGNAL) != 1) {
		e = m.type == MON_ERROR && m.value < 0 ? -m.value : EPROTO;
		if (fd >= 0)
			close(fd);
		fp_monitor_end(child);
		errno = e;
		return -1;
	}
	child->pidfd = fd;
	return pid;
}

pid_t fp_monitor_wait(struct fp_child *child, int *status)
{
	struct mon_msg m;
	int fd;

	*status = SIGKILL; /* the monitor gone without a word */
	while (!recv_msg(child->monitor_fd, &m, &fd)) {
		if (fd >= 0)
			close(fd);
		if (m.type == MON_EXITED) {
			*status = m.value;
			break;
		}
	}
	fp_monitor_end(child);
	return child->pid;
}

void fp_monitor_end(struct fp_child *child)
{
	pid_t r;

	if (child->monitor_fd >= 0)
		close(child->monitor_fd);
	child->monitor_fd = -1;
	if (child->monitor <= 0)
		return;
	/* it ends once the command has; if footprint gives up first, now */
	kill(child->monitor, SIGKILL);
	do
		r = waitpid(child->monitor, NULL, 0);
	while (r < 0 && errno == EINTR);
	child->monitor = -1;
}

int fp_monitor_stopped(int monitor_fd)
{
	struct mon_msg m;
	ssize_t n;
	int fd;

	n = recv(monitor_fd, &m, sizeof(m), MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n != sizeof(m) || m.type != MON_STOPPED)
		return -1; /* the end, for fp_monitor_wait() to read */
	if (recv_msg(monitor_fd, &m, &fd))
		return -1;
	if (fd >= 0)
		close(fd);
	return m.value > 0 ? m.value : SIGTSTP;
}
