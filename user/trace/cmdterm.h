/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command's terminal. A command that kept the caller's terminal as
 * its controlling tty could type into the caller's shell with TIOCSTI
 * (and it would run once footprint exits). So the command never has it:
 *
 * - stdin is a terminal: the command gets a pseudo-terminal of its own,
 *   in a session of its own, relayed as sudo's use_pty does: the caller's
 *   terminal is in raw mode while the command runs (so ^C, ^Z and the
 *   rest go to the command through its own terminal), its window size
 *   follows the caller's, and the caller's settings come back on every
 *   way out (the end of the command, an error, a fatal signal). Only the
 *   standard fds that were that terminal become the pseudo-terminal: a
 *   pipe or a file among them passes through untouched.
 * - otherwise: the command has no controlling terminal at all (TIOCNOTTY
 *   in the child). It stays in footprint's process group, so the
 *   caller's ^C and ^Z still reach it, and its fds are left as they are.
 */
#ifndef FP_CMDTERM_H
#define FP_CMDTERM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <termios.h>

struct fp_pty {
	int master; /* -1: no pseudo-terminal */
	int slave; /* the command's terminal; closed here once it runs */
	int tty_in; /* the caller's terminal, read (stdin); -1: none */
	/* no pseudo-terminal: footprint's controlling terminal, for the
	 * child to drop (opened here: an open in the child, in the run's
	 * cgroup, would be traced as the command's); -1: none */
	int ctty;
	int tty_out; /* the caller's terminal, written */
	unsigned int fds; /* bit n: fd n (0-2) was the caller's terminal */
	bool raw; /* the caller's terminal is in raw mode */
	struct termios saved; /* its settings before */
	struct termios rawtio; /* what raw mode set */
	long settle_until; /* ms: a shell may set the terminal after fg */
	pid_t child; /* set once launched, for the relay */
	int monitor_fd; /* its monitor's reports (launch_pty.c) */
	int wake[2]; /* the run loop tells the relay the command ended */
	int sigfd; /* SIGWINCH, SIGCONT for the relay */
	pthread_t thread;
	bool running;
	/* ^C and ^\ typed that the command's terminal made signals of: the
	 * run loop reads them as it reads footprint's own SIGINT (atomic) */
	unsigned int interrupts;
};

#define FP_PTY_INIT                                                           \
	{                                                                     \
		.master = -1, .slave = -1, .tty_in = -1, .tty_out = -1,       \
		.ctty = -1, .monitor_fd = -1, .wake = { -1, -1 }, .sigfd = -1 \
	}

/*
 * Before the launch: a pseudo-terminal if stdin is a terminal, with the
 * caller's settings and window size, owned by owner (the user the
 * command runs as; -1: root), as login and sudo make it, so that what
 * opens it by name (a pinentry) can. 0 (p->master -1 when none is
 * needed), or -1 with one line in err.
 */
int fp_pty_open(struct fp_pty *p, uid_t owner, char *err, size_t errlen);
/*
 * The signals the relay reads (SIGWINCH, SIGCONT), to block in
 * footprint, as the run loop's are, before the relay starts.
 */
void fp_pty_sigset(sigset_t *set);
/*
 * In the child, before exec (async-signal-safe): the command's own
 * session and terminal; or, with no pseudo-terminal, no controlling
 * terminal. p may be NULL (no pseudo-terminal). 0 or -errno.
 */
int fp_pty_child(const struct fp_pty *p);
/*
 * Once the command is launched (not before: a child cloned while a second
 * thread runs could deadlock in glibc's setuid()), with the relay's
 * signals blocked: the command's side of the terminal closed here, the
 * caller's terminal in raw mode (if footprint is in its foreground), the
 * relay. 0 or -errno.
 */
int fp_pty_start(struct fp_pty *p, pid_t child, int monitor_fd);
/*
 * The command ended: what it wrote is passed on, the relay stops and the
 * caller's terminal is as it was. Safe to call again, and without start.
 */
void fp_pty_finish(struct fp_pty *p);
void fp_pty_close(struct fp_pty *p);

#endif
