// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmdterm.h"
#include "cgroup_move.h"
#include "launch.h"
#include "launch_int.h"
#include "scratch.h"
#include "spawn.h"

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

static void child_exec(int errfd, char *const argv[], const sigset_t *mask,
		       const struct fp_identity *id,
		       const struct fp_scratch *sc, const struct fp_pty *pty)
{
	int e;

	sigprocmask(SIG_SETMASK, mask, NULL);
	/* never the caller's terminal: TIOCSTI would type into its shell */
	e = fp_pty_child(pty);
	/* the box is built as root, before the drop */
	if (!e && sc)
		e = fp_scratch_enter(sc);
	/* the command never runs with more than it was meant to have */
	/* negative: setting up failed, the command was not started */
	if (!e)
		e = id ? fp_identity_apply(id) : 0;
	if (e) {
		if (write(errfd, &e, sizeof(e)) < 0)
			_exit(125);
		_exit(125);
	}
	if (id && id->envp)
		execvpe(argv[0], argv, id->envp);
	else
		execvp(argv[0], argv);
	e = errno;
	if (write(errfd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

struct spawn_args {
	int errfd;
	char *const *argv;
	const sigset_t *mask;
	const struct fp_identity *id;
	const struct fp_scratch *sc;
	const struct fp_pty *pty;
};

static int spawn_child(void *p)
{
	const struct spawn_args *a = p;

	fp_spawn_child_signals();
	child_exec(a->errfd, a->argv, a->mask, a->id, a->sc, a->pty);
	return 127;
}

/* What the child's stack must hold: execvp's own (a PATH entry, and
 * the argv of a script without #!), the set-up's frames and a margin. */
static size_t spawn_stack(char *const argv[])
{
	size_t argc = 0;

	while (argv[argc])
		argc++;
	return 64 * 1024 + PATH_MAX + (argc + 3) * sizeof(char *);
}

/* The child shares footprint's memory until its exec (spawn.h): no
 * copy of footprint's page tables, no copy-on-write after. */
static pid_t clone_into(int cgroup_fd, int *pidfd, int errfd,
			char *const argv[], const sigset_t *mask,
			const struct fp_identity *id,
			const struct fp_scratch *sc, const struct fp_pty *pty)
{
	struct spawn_args a = { errfd, argv, mask, id, sc, pty };
	struct clone_args args;
	pid_t pid;

	memset(&args, 0, sizeof(args));
	args.flags = CLONE_PIDFD | CLONE_INTO_CGROUP;
	args.pidfd = (uint64_t)(uintptr_t)pidfd;
	args.exit_signal = SIGCHLD;
	args.cgroup = cgroup_fd;
	if (fp_spawn_supported())
		return fp_spawn(&args, spawn_stack(argv), spawn_child, &a);
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		child_exec(errfd, argv, mask, id, sc, pty);
	return pid;
}

/* Kernels before 5.7: the child moves itself before it execs. */
static pid_t fork_then_move(int cgroup_fd, int errfd, char *const argv[],
			    const sigset_t *mask, int *pidfd,
			    const struct fp_identity *id,
			    const struct fp_scratch *sc,
			    const struct fp_pty *pty)
{
	pid_t pid = fork();

	if (pid == 0) {
		int e = fp_cgroup_move(cgroup_fd, 0);

		if (e) {
			if (write(errfd, &e, sizeof(e)) < 0)
				_exit(125);
			_exit(125);
		}
		child_exec(errfd, argv, mask, id, sc, pty);
	}
	if (pid > 0)
		*pidfd = syscall(SYS_pidfd_open, pid, 0);
	return pid;
}

pid_t fp_launch_command(int cgroup_fd, int errfd, char *const argv[],
			const sigset_t *mask, const struct fp_identity *id,
			const struct fp_scratch *sc, const struct fp_pty *pty,
			int *pidfd)
{
	pid_t pid =
		clone_into(cgroup_fd, pidfd, errfd, argv, mask, id, sc, pty);

	if (pid < 0 && (errno == ENOSYS || errno == EINVAL || errno == E2BIG))
		pid = fork_then_move(cgroup_fd, errfd, argv, mask, pidfd, id,
				     sc, pty);
	return pid;
}

/* A command launched that footprint is not to keep: killed, reaped. */
static void unlaunch(struct fp_child *child, pid_t pid)
{
	kill(pid, SIGKILL);
	if (child->monitor > 0) {
		fp_monitor_end(child);
	} else {
		waitpid(pid, NULL, 0);
	}
	close(child->pidfd);
	child->pidfd = -1;
}

int fp_launch(struct fp_child *child, char *const argv[], int cgroup_fd,
	      const sigset_t *child_mask, const struct fp_identity *id,
	      const struct fp_scratch *sc, const struct fp_pty *pty)
{
	int pipefd[2];
	int e = 0, saved = -1;
	ssize_t n;
	pid_t pid;

	child->pid = -1;
	child->pidfd = -1;
	child->exec_errno = 0;
	child->setup_errno = 0;
	child->init_pid = -1;
	child->init_fd = -1;
	child->monitor = -1;
	child->monitor_fd = -1;
	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	e = sc ? fp_box_enter(child, &saved) : 0;
	if (e) {
		close(pipefd[0]);
		close(pipefd[1]);
		return e;
	}
	if (pty && pty->master >= 0)
		pid = fp_monitor_launch(child, pipefd[1], argv, cgroup_fd,
					child_mask, id, sc, pty);
	else
		pid = fp_launch_command(cgroup_fd, pipefd[1], argv, child_mask,
					id, sc, pty, &child->pidfd);
	e = pid < 0 ? errno : 0;
	if (saved >= 0 && fp_box_leave(saved) && pid > 0) {
		/* footprint's next children would be born in the box */
		unlaunch(child, pid);
		pid = -1;
		e = EBUSY;
	}
	if (pid < 0) {
		fp_box_end(child);
		close(pipefd[0]);
		close(pipefd[1]);
		return -e;
	}
	close(pipefd[1]);
	child->pid = pid;
	/* EOF means exec succeeded (the pipe was close-on-exec) */
	do
		n = read(pipefd[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n == sizeof(e) && e < 0)
		child->setup_errno = -e;
	else if (n == sizeof(e))
		child->exec_errno = e;
	return 0;
}

int fp_child_wait(struct fp_child *child, int *status)
{
	pid_t r;

	if (child->monitor > 0) {
		r = fp_monitor_wait(child, status);
	} else {
		do
			r = waitpid(child->pid, status, 0);
		while (r < 0 && errno == EINTR);
	}
	/* the box's init goes once nothing else runs in the box */
	if (r >= 0 && child->init_fd >= 0) {
		close(child->init_fd);
		child->init_fd = -1;
	}
	return r < 0 ? -errno : 0;
}
