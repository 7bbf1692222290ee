// SPDX-License-Identifier: GPL-2.0
/* The command's terminal (cmdterm.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cmdterm.h"
#include "launch.h"

#define RELAY_BUF 4096
/* how often the relay looks whether it is back in the foreground, and
 * for how long after a SIGCONT whether its raw mode was undone */
#define BACKGROUND_MS 50
#define SETTLE_MS 2000
/* once the command ended: what it wrote is passed on, within bounds (a
 * process it left may write on) */
#define DRAIN_QUIET_MS 100
#define DRAIN_MAX_MS 2000
#define DRAIN_MAX_BYTES (1 << 20)

/*
 * For a fatal signal: the terminal to give its settings back, if in raw
 * mode. Set before raw mode, cleared after the settings came back.
 */
static struct termios restore_tio;
static volatile sig_atomic_t restore_fd = -1;

static void restore_on_signal(int sig)
{
	int fd = restore_fd;

	/* tcsetattr() is async-signal-safe; SA_RESETHAND made it SIG_DFL */
	if (fd >= 0)
		tcsetattr(fd, TCSANOW, &restore_tio);
	raise(sig);
}

/* Signals that end footprint and are not read by its run loop. */
static void catch_fatal(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS,  SIGFPE,	 SIGILL,
				    SIGABRT, SIGTRAP, SIGSYS,	 SIGPIPE,
				    SIGALRM, SIGUSR1, SIGUSR2,	 SIGXCPU,
				    SIGXFSZ, SIGPROF, SIGVTALRM, SIGPWR };
	struct sigaction sa = { .sa_handler = restore_on_signal,
				.sa_flags = SA_RESETHAND },
			 old;
	unsigned int i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* one ignored by who started footprint stays ignored */
		if (sigaction(sigs[i], NULL, &old) || old.sa_handler != SIG_DFL)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

void fp_pty_sigset(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGWINCH);
	sigaddset(set, SIGCONT);
}

static bool same_tty(int fd, const struct stat *tty)
{
	struct stat st;

	return isatty(fd) && !fstat(fd, &st) && S_ISCHR(st.st_mode) &&
	       st.st_rdev == tty->st_rdev;
}

/* The caller's terminal, for writing: a standard fd of it opened so. */
static int tty_for_output(const struct fp_pty *p)
{
	static const int order[] = { 1, 2, 0 };
	unsigned int i;
	int fd, fl;

	for (i = 0; i < 3; i++) {
		fd = order[i];
		fl = fcntl(fd, F_GETFL);
		if ((p->fds & 1U << fd) && fl >= 0 &&
		    (fl & O_ACCMODE) != O_RDONLY)
			return fcntl(fd, F_DUPFD_CLOEXEC, 3);
	}
	/* stdin alone, read-only: the same terminal opened again */
	return open("/proc/self/fd/0", O_WRONLY | O_NOCTTY | O_CLOEXEC);
}

int fp_pty_open(struct fp_pty *p, uid_t owner, char *err, size_t errlen)
{
	struct winsize ws;
	struct stat in;
	int fd;

	if (!isatty(0) || fstat(0, &in) || tcgetattr(0, &p->saved)) {
		/* none: the child drops footprint's, if it has one */
		p->ctty = open("/dev/tty",
			       O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		return 0;
	}
	p->fds = 1;
	for (fd = 1; fd <= 2; fd++)
		if (same_tty(fd, &in))
			p->fds |= 1U << fd;
	if (ioctl(0, TIOCGWINSZ, &ws))
		memset(&ws, 0, sizeof(ws));
	if (openpty(&p->master, &p->slave, NULL, &p->saved, &ws))
		goto fail;
	if ((owner != (uid_t)-1 && fchown(p->slave, owner, -1)) ||
	    fcntl(p->master, F_SETFD, FD_CLOEXEC) ||
	    fcntl(p->slave, F_SETFD, FD_CLOEXEC) ||
	    fcntl(p->master, F_SETFL, O_NONBLOCK) ||
	    pipe2(p->wake, O_CLOEXEC | O_NONBLOCK))
		goto fail;
	p->tty_in = fcntl(0, F_DUPFD_CLOEXEC, 3);
	p->tty_out = tty_for_output(p);
	if (p->tty_in < 0 || p->tty_out < 0)
		goto fail;
	return 0;
fail:
	snprintf(
		err, errlen,
		"footprint: cannot give the command a terminal of its own: %s; run it with stdin not a terminal (< /dev/null)",
		strerror(errno));
	fp_pty_close(p);
	p->fds = 0;
	return -1;
}

int fp_pty_child(const struct fp_pty *p)
{
	sigset_t ttou, old;
	int i, e = 0;
	pid_t pg;

	if (!p || p->master < 0) {
		/*
		 * No terminal at all: footprint's is dropped, in its session
		 * and process group still. Not being a session leader, the
		 * command cannot take it back (TIOCSCTTY). Only ioctls here:
		 * the child is in the run's cgroup, its opens are traced.
		 */
		if (!p || p->ctty < 0)
			return 0;
		if (ioctl(p->ctty, TIOCNOTTY))
			return -errno;
		/* no longer its controlling terminal: ENOTTY */
		if (!ioctl(p->ctty, TIOCGPGRP, &pg) || errno != ENOTTY)
			return -EPERM;
		return 0;
	}
	/*
	 * The monitor (launch_pty.c) leads the terminal's session; the
	 * command is its child, in a group of its own in the terminal's
	 * foreground (SIGTTOU held: set from the background).
	 */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	if (setpgid(0, 0) || tcsetpgrp(p->slave, getpid()))
		e = -errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	for (i = 0; i < 3 && !e; i++)
		if ((p->fds & 1U << i) && dup2(p->slave, i) < 0)
			e = -errno;
	return e;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Is footprint in the caller's terminal's foreground (or is it not its
 * controlling terminal, so that no job control applies)? */
static bool foreground(const struct fp_pty *p)
{
	pid_t pg = tcgetpgrp(p->tty_in);

	return pg < 0 ? errno == ENOTTY : pg == getpgrp();
}

static void term_raw(struct fp_pty *p)
{
	struct termios t = p->saved;

	if (p->raw || !foreground(p))
		return;
	/* output too: the command's terminal made its lines already */
	cfmakeraw(&t);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	p->rawtio = t;
	restore_tio = p->saved;
	restore_fd = p->tty_in;
	if (!tcsetattr(p->tty_in, TCSADRAIN, &t))
		p->raw = true;
	else
		restore_fd = -1;
}

/*
 * Raw mode again if someone set it otherwise: a shell's fg may restore
 * the terminal settings it saved at ^Z after it continued footprint.
 */
static void term_reassert(struct fp_pty *p)
{
	struct termios cur;

	if (p->raw && !tcgetattr(p->tty_in, &cur) &&
	    (cur.c_lflag != p->rawtio.c_lflag ||
	     cur.c_iflag != p->rawtio.c_iflag ||
	     cur.c_oflag != p->rawtio.c_oflag) &&
	    foreground(p))
		tcsetattr(p->tty_in, TCSADRAIN, &p->rawtio);
}

static void term_restore(struct fp_pty *p)
{
	if (!p->raw)
		return;
	tcsetattr(p->tty_in, TCSADRAIN, &p->saved);
	p->raw = false;
	restore_fd = -1;
}

static void copy_winsize(const struct fp_pty *p)
{
	struct winsize ws;

	if (!ioctl(p->tty_in, TIOCGWINSZ, &ws))
		ioctl(p->master, TIOCSWINSZ, &ws);
}

/* Back in the foreground, or continued: the terminal, then the command. */
static void resume(struct fp_pty *p)
{
	pid_t child = p->child;

	term_raw(p);
	p->settle_until = now_ms() + SETTLE_MS;
	copy_winsize(p);
	if (child > 0)
		kill(-child, SIGCONT);
}

/*
 * The command was stopped from its terminal (^Z), its monitor says: the
 * caller's terminal gets its settings back and footprint stops too, so
 * that the caller's shell sees the job stopped. Once continued (fg), so
 * is the command. A SIGSTOP from elsewhere is not the terminal's:
 * footprint goes on.
 */
static void suspend(struct fp_pty *p, int sig)
{
	if (sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU)
		return;
	term_restore(p);
	/* to this thread: it stops before it goes on to resume() (one sent
	 * to the process may be taken by another thread, and this one
	 * would continue the command before the stop reached it) */
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
	resume(p);
}

static void read_signals(struct fp_pty *p)
{
	struct signalfd_siginfo si;

	while (read(p->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGWINCH)
			copy_winsize(p);
		else if (si.ssi_signo == SIGCONT)
			resume(p);
	}
}

struct relay_buf {
	char b[RELAY_BUF];
	size_t off, len;
};

/* Read what fd has into an empty b: 1, 0 (nothing now) or -1 (ended). */
static int fill(int fd, struct relay_buf *b)
{
	ssize_t n = read(fd, b->b, sizeof(b->b));

	if (n > 0) {
		b->off = 0;
		b->len = n;
		return 1;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	return -1;
}

/*
 * ^C or ^\ typed, for a command whose terminal makes signals of them (as
 * it is set now: an editor may have turned that off): the run is
 * interrupted, as when the caller's terminal signalled footprint.
 */
static void count_interrupts(struct fp_pty *p, const struct relay_buf *b)
{
	struct termios t;
	size_t i;

	if (tcgetattr(p->master, &t) || !(t.c_lflag & ISIG))
		return;
	for (i = 0; i < b->len; i++) {
		cc_t c = (cc_t)b->b[b->off + i];

		if (c != _POSIX_VDISABLE &&
		    (c == t.c_cc[VINTR] || c == t.c_cc[VQUIT]))
			__atomic_add_fetch(&p->interrupts, 1, __ATOMIC_RELAXED);
	}
}

/* Write what b holds to fd; -1 if fd can take no more, ever. */
static int flush_some(int fd, struct relay_buf *b)
{
	ssize_t n = write(fd, b->b + b->off, b->len);

	if (n > 0) {
		b->off += n;
		b->len -= n;
		return 0;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	b->len = 0;
	return -1;
}

/* The command ended: what it wrote, up to where the terminal goes quiet. */
static void drain(struct fp_pty *p, struct relay_buf *out)
{
	struct pollfd pf = { .fd = p->master, .events = POLLIN };
	long end = now_ms() + DRAIN_MAX_MS;
	size_t total = 0;

	for (;;) {
		while (out->len) {
			struct pollfd o = { .fd = p->tty_out,
					    .events = POLLOUT };

			if (poll(&o, 1, DRAIN_QUIET_MS * 10) <= 0 ||
			    flush_some(p->tty_out, out))
				return;
		}
		if (total >= DRAIN_MAX_BYTES || now_ms() >= end ||
		    poll(&pf, 1, DRAIN_QUIET_MS) <= 0 ||
		    fill(p->master, out) < 0)
			return;
		total += out->len;
	}
}

/*
 * The relay: the caller's terminal to the command's and back, until the
 * run loop says the command ended. One buffer each way: nothing more is
 * read from a side until what was read from it went on.
 */
static void *relay(void *arg)
{
	struct fp_pty *p = arg;
	struct relay_buf in = { 0 }, out = { 0 };
	bool tty_eof = false, master_eof = false;
	int mon = p->monitor_fd, sig, wait;
	bool settling;
	struct pollfd pf[6];
	char c;

	for (;;) {
		int n = 0, t = -1, m = -1, o = -1, w, s, ms = -1;

		if (p->raw && !tty_eof && !in.len) {
			t = n;
			pf[n++] = (struct pollfd){ p->tty_in, POLLIN, 0 };
		}
		if (!master_eof && (!out.len || in.len)) {
			m = n;
			pf[n++] = (struct pollfd){
				p->master,
				(short)((out.len ? 0 : POLLIN) |
					(in.len ? POLLOUT : 0)),
				0
			};
		}
		if (out.len) {
			o = n;
			pf[n++] = (struct pollfd){ p->tty_out, POLLOUT, 0 };
		}
		w = n;
		pf[n++] = (struct pollfd){ p->wake[0], POLLIN, 0 };
		s = n;
		pf[n++] = (struct pollfd){ p->sigfd, POLLIN, 0 };
		if (mon >= 0) {
			ms = n;
			pf[n++] = (struct pollfd){ mon, POLLIN, 0 };
		}
		/* in the background, and a while after it was continued, the
		 * terminal is looked at again and again: fg may give it back
		 * before or after its SIGCONT, and set it after */
		settling = now_ms() < p->settle_until;
		wait = (p->raw && !settling) || tty_eof ? -1 : BACKGROUND_MS;
		if (poll(pf, n, wait) < 0 && errno != EINTR)
			break;
		if (!p->raw && !tty_eof)
			term_raw(p);
		else if (settling)
			term_reassert(p);
		if (pf[w].revents & POLLIN) {
			if (read(p->wake[0], &c, 1) == 1)
				break;
		}
		if (t >= 0 && pf[t].revents) {
			int got = fill(p->tty_in, &in);

			if (got > 0)
				count_interrupts(p, &in);
			/* hung up: the command reads no more */
			tty_eof = got < 0;
		}
		if (m >= 0 && (pf[m].revents & POLLOUT) && in.len)
			flush_some(p->master, &in);
		if (m >= 0 && (pf[m].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    !out.len && fill(p->master, &out) < 0)
			master_eof = true;
		if (o >= 0 && pf[o].revents && flush_some(p->tty_out, &out))
			out.len = 0;
		if (pf[s].revents)
			read_signals(p);
		if (ms >= 0 && pf[ms].revents) {
			sig = fp_monitor_stopped(mon);
			if (sig > 0)
				suspend(p, sig);
			else if (sig < 0)
				mon = -1; /* its end is fp_child_wait()'s */
		}
	}
	drain(p, &out);
	term_restore(p);
	return NULL;
}

int fp_pty_start(struct fp_pty *p, pid_t child, int monitor_fd)
{
	sigset_t set;

	if (p->master < 0)
		return 0;
	close(p->slave);
	p->slave = -1;
	p->child = child;
	p->monitor_fd = monitor_fd;
	fp_pty_sigset(&set);
	p->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (p->sigfd < 0)
		return -errno;
	catch_fatal();
	term_raw(p);
	errno = pthread_create(&p->thread, NULL, relay, p);
	if (errno) {
		term_restore(p);
		return -errno;
	}
	p->running = true;
	return 0;
}

void fp_pty_finish(struct fp_pty *p)
{
	if (p->running) {
		if (write(p->wake[1], "x", 1) != 1)
			pthread_cancel(p->thread);
		pthread_join(p->thread, NULL);
		p->running = false;
	}
	term_restore(p);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void fp_pty_close(struct fp_pty *p)
{
	fp_pty_finish(p);
	close_fd(&p->master);
	close_fd(&p->slave);
	close_fd(&p->tty_in);
	close_fd(&p->tty_out);
	close_fd(&p->ctty);
	close_fd(&p->wake[0]);
	close_fd(&p->wake[1]);
	close_fd(&p->sigfd);
}
