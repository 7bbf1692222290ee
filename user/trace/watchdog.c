// SPDX-License-Identifier: GPL-2.0
/*
 * After fork() the watchdog makes raw system calls only: footprint may
 * have threads, and the watchdog must not depend on footprint's heap,
 * stdio buffers or locks. It never execs, so it never runs code that is
 * not footprint's.
 *
 * It is forked early (fp_watchdog_spawn), while footprint is small and
 * has one thread: a fork copies the page tables of all footprint has
 * mapped, and while the copy lives every page footprint writes that it
 * had touched before takes a copy-on-write fault. The run's cgroup comes
 * later, over the socket (fp_watchdog_fork).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fdpass.h"
#include "watchdog.h"

#define WD_ARMED 'A'
#define WD_DISARM 'D'
#define WD_CGROUP 'C'
/* how long the watchdog waits for the killed cgroup to empty */
#define WD_EMPTY_POLLS 100
#define WD_POLL_MS 100

struct wd {
	int sock, ppidfd, parent, kill, freeze, events, procs;
	pid_t footprint;
	const char *name; /* the run's cgroup, in parent */
};

/* footprint's word with the run's cgroup (its fd rides along) */
struct wd_cgroup_msg {
	char type;
	char name[NAME_MAX + 1]; /* the cgroup's own, in its parent */
};

static int pidfd_open_(pid_t pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

static void close_between(unsigned int lo, unsigned int hi)
{
	struct rlimit rl;
	unsigned int fd;

	if (lo > hi || !syscall(SYS_close_range, lo, hi, 0))
		return;
	/* before 5.9 */
	if (getrlimit(RLIMIT_NOFILE, &rl))
		rl.rlim_cur = 65536;
	for (fd = lo; fd <= hi && fd < rl.rlim_cur; fd++)
		close(fd);
}

/* Nothing of footprint's outputs or of the command stays open here. */
static void close_others(const int *keep, int n)
{
	int sorted[8], k = 0, i, j, v;
	unsigned int from = 3;

	for (i = 0; i < n && k < 8; i++) {
		if (keep[i] <= 2)
			continue;
		v = keep[i];
		for (j = k++; j > 0 && sorted[j - 1] > v; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = v;
	}
	for (i = 0; i < k; i++) {
		if (sorted[i] > 0)
			close_between(from, sorted[i] - 1);
		from = sorted[i] + 1;
	}
	close_between(from, ~0U);
}

/* fields 48 and 49 of /proc/self/stat: where argv lies (Linux 3.5+) */
static void rename_cmdline(void)
{
	static const char name[] = FP_WATCHDOG_NAME;
	unsigned long long v[2];
	char buf[2048], *p;
	int fd, field;
	ssize_t n;

	fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	for (field = 2; p && *p && field < 49; field++) {
		p = strchr(p + 1, ' ');
		if (p && field >= 47)
			v[field - 47] = strtoull(p + 1, NULL, 10);
	}
	if (!p || v[1] <= v[0] + sizeof(name))
		return;
	memset((void *)(uintptr_t)v[0], 0, v[1] - v[0]);
	memcpy((void *)(uintptr_t)v[0], name, sizeof(name));
	/* root may also cut the region, so ps shows no trailing blanks */
	prctl(PR_SET_MM, PR_SET_MM_ARG_END, v[0] + sizeof(name), 0, 0);
}

/*
 * Out of reach of what kills footprint: the terminal's signals (its own
 * session), the OOM killer (-1000), an unmount of footprint's cwd; and
 * first to run when it has to act (nice -20).
 */
static void detach(void)
{
	static const int sigs[] = { SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,
				    SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU,
				    SIGUSR1, SIGUSR2, SIGALRM };
	struct sigaction sa = { .sa_handler = SIG_IGN };
	struct sched_param rt = { .sched_priority = 1 };
	sigset_t none;
	unsigned int i;
	ssize_t w;
	int fd;

	setsid();
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_NAME, FP_WATCHDOG_NAME, 0, 0, 0);
	rename_cmdline();
	/* it sleeps until it must act, then acts in a few system calls */
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &rt))
		setpriority(PRIO_PROCESS, 0, -20);
	/* best effort: only a unit test runs this without root */
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		w = write(fd, "-1000", 5);
		(void)w;
		close(fd);
	}
	if (chdir("/"))
		return;
}

/* fds 0-2 are the user's to close: keep ours above them */
static int above_stdio(int fd)
{
	return fd >= 0 && fd <= 2 ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : fd;
}

/*
 * stdin and stdout become /dev/null; stderr stays, for the one line that
 * says what happened, unless it was not stderr but one of ours.
 */
static void stdio_null(bool keep_stderr)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	if (!keep_stderr || fcntl(STDERR_FILENO, F_GETFD) < 0)
		dup2(fd, STDERR_FILENO);
	if (fd > 2)
		close(fd);
}

/* pids listed in cgroup.procs: counted, and killed one by one if asked */
static int scan_procs(int fd, bool kill_them)
{
	char buf[4096];
	long pid = 0;
	int count = 0;
	ssize_t n, i;

	if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			if (buf[i] >= '0' && buf[i] <= '9') {
				pid = pid * 10 + (buf[i] - '0');
				continue;
			}
			if (pid > 0) {
				count++;
				if (kill_them)
					kill((pid_t)pid, SIGKILL);
			}
			pid = 0;
		}
	}
	return count;
}

static int populated(int fd)
{
	char buf[256], *p;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	p = strstr(buf, "populated ");
	return p ? p[10] == '1' : -EINVAL;
}

static void wait_empty(const struct wd *w)
{
	struct pollfd p = { .fd = w->events, .events = POLLPRI };
	int i;

	for (i = 0; i < WD_EMPTY_POLLS; i++) {
		if (populated(w->events) != 1)
			return;
		/* before 5.14: what forked since the last pass */
		if (w->kill < 0)
			scan_procs(w->procs, true);
		poll(&p, 1, WD_POLL_MS);
	}
}

static void remove_run(const struct wd *w)
{
	struct timespec step = { 0, 10 * 1000 * 1000 };
	int i;

	/* a dying task may keep the cgroup busy for a moment */
	for (i = 0; i < 100; i++) {
		if (!unlinkat(w->parent, w->name, AT_REMOVEDIR) ||
		    errno != EBUSY)
			return;
		nanosleep(&step, NULL);
	}
}

static void put(char *buf, size_t *len, size_t cap, const char *s)
{
	while (*s && *len + 1 < cap)
		buf[(*len)++] = *s++;
}

static void put_int(char *buf, size_t *len, size_t cap, long v)
{
	char d[24];
	int i = sizeof(d) - 1;

	d[i] = '\0';
	do
		d[--i] = (char)('0' + v % 10);
	while ((v /= 10) && i > 0);
	put(buf, len, cap, d + i);
}

static void report(const struct wd *w, int n)
{
	char msg[512];
	size_t len = 0;

	put(msg, &len, sizeof(msg), "footprint: footprint (pid ");
	put_int(msg, &len, sizeof(msg), w->footprint);
	put(msg, &len, sizeof(msg),
	    ") died while tracing; its watchdog killed the ");
	put_int(msg, &len, sizeof(msg), n);
	put(msg, &len, sizeof(msg),
	    " processes of the command so that none runs on untraced\n");
	if (write(STDERR_FILENO, msg, len) < 0)
		return;
}

static bool gone(int fd, const char *v)
{
	return fd >= 0 && write(fd, v, 1) < 0 && errno == ENODEV;
}

/*
 * footprint is gone: from here on nothing would see what the command does.
 * Freezing first stops every task at once, forks in flight included, so
 * that the count is right and a pid-by-pid kill (before 5.14) wins.
 */
static void __attribute__((noreturn)) fire(const struct wd *w)
{
	int n;

	if (gone(w->freeze, "1"))
		_exit(0);
	n = scan_procs(w->procs, false);
	if (w->kill < 0 || write(w->kill, "1", 1) < 0) {
		if (w->kill >= 0 && errno == ENODEV)
			_exit(0);
		scan_procs(w->procs, true);
	}
	wait_empty(w);
	remove_run(w);
	if (n > 0)
		report(w, n);
	_exit(0);
}

/*
 * Disarmed, with what came with it: the tracer's links, then its warm
 * set, closed here in that order (the set is let go once nothing is
 * attached), so that their detach (a text patch and an IPI to every CPU
 * per tracepoint, ~4 ms in all) is not footprint's. The last close of a
 * link detaches it: they are closed once footprint has ended, which
 * closes its end of the socket (fp_watchdog_release_fds says why). At
 * no special priority: it is no longer urgent.
 */
static void __attribute__((noreturn))
disarmed(const struct wd *w, const int *fds, int n)
{
	struct pollfd p = { .fd = w->sock, .events = POLLIN };
	struct sched_param normal = { .sched_priority = 0 };
	int i;

	/* a reader of the caller's stderr is not kept waiting for its end */
	close(STDERR_FILENO);
	if (!n)
		_exit(0);
	sched_setscheduler(0, SCHED_OTHER, &normal);
	setpriority(PRIO_PROCESS, 0, 0);
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	for (i = 0; i < n; i++)
		close(fds[i]);
	_exit(0);
}

/* footprint's word, not waited for: a byte into *c, its fds into fds */
static ssize_t recv_word(int sock, char *c, int *fds, int *nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * FP_FDPASS_MAX)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { c, 1 };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	ssize_t n = recvmsg(sock, &msg, MSG_DONTWAIT);
	size_t k;

	*nfds = 0;
	for (cm = CMSG_FIRSTHDR(&msg); n >= 0 && cm;
	     cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_RIGHTS || *nfds)
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (k > FP_FDPASS_MAX)
			k = FP_FDPASS_MAX;
		memcpy(fds, CMSG_DATA(cm), k * sizeof(int));
		*nfds = (int)k;
	}
	return n;
}

static void __attribute__((noreturn)) watch(const struct wd *w)
{
	struct pollfd p[2] = { { .fd = w->sock, .events = POLLIN },
			       { .fd = w->ppidfd, .events = POLLIN } };
	int fds[FP_FDPASS_MAX], nfds;
	ssize_t n;
	char c;

	for (;;) {
		if (poll(p, w->ppidfd >= 0 ? 2 : 1, -1) < 0 && errno != EINTR)
			fire(w);
		/* a disarm sent just before footprint exited comes first */
		n = recv_word(w->sock, &c, fds, &nfds);
		if (n == 1 && c == WD_DISARM)
			disarmed(w, fds, nfds);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			fire(w);
		/* a leaked copy of footprint's end cannot keep us waiting */
		if (w->ppidfd >= 0 && n < 0 && (p[1].revents & POLLIN))
			fire(w);
	}
}

/*
 * The run's cgroup, from footprint: its fd (close-on-exec), its name in
 * name. On footprint's end or disarm first, there is nothing to guard.
 */
static int recv_cgroup(int sock, char *name)
{
	struct wd_cgroup_msg m;
	int fd;

	if (fp_fdpass_recv(sock, &m, sizeof(m), &fd) || m.type != WD_CGROUP ||
	    fd < 0 || !memchr(m.name, '\0', sizeof(m.name)))
		_exit(0);
	memcpy(name, m.name, sizeof(m.name));
	return fd;
}

static void __attribute__((noreturn)) wd_main(int sock, pid_t footprint)
{
	struct wd w = { .footprint = footprint };
	const char armed = WD_ARMED;
	char name[NAME_MAX + 1];
	int keep[7], cgfd;

	w.sock = above_stdio(sock);
	stdio_null(sock != STDERR_FILENO);
	detach();
	close_others(&w.sock, 1);
	cgfd = recv_cgroup(w.sock, name);
	w.ppidfd = pidfd_open_(footprint);
	w.parent = openat(cgfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	w.kill = openat(cgfd, "cgroup.kill", O_WRONLY | O_CLOEXEC);
	w.freeze = openat(cgfd, "cgroup.freeze", O_WRONLY | O_CLOEXEC);
	w.events = openat(cgfd, "cgroup.events", O_RDONLY | O_CLOEXEC);
	w.procs = openat(cgfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	w.name = name;
	if (w.sock < 0 || w.parent < 0 || w.events < 0 || w.procs < 0 ||
	    !name[0])
		_exit(1);
	keep[0] = w.sock;
	keep[1] = w.ppidfd;
	keep[2] = w.parent;
	keep[3] = w.kill;
	keep[4] = w.freeze;
	keep[5] = w.events;
	keep[6] = w.procs;
	close_others(keep, 7);
	if (getppid() != footprint ||
	    send(w.sock, &armed, 1, MSG_NOSIGNAL) != 1)
		fire(&w);
	watch(&w);
}

static void reap(struct fp_watchdog *wd, int timeout_ms)
{
	struct pollfd p = { .fd = wd->pidfd, .events = POLLIN };
	pid_t r;

	if (wd->pidfd >= 0 && poll(&p, 1, timeout_ms) == 0)
		kill(wd->pid, SIGKILL);
	else if (wd->pidfd < 0 && waitpid(wd->pid, NULL, WNOHANG) == 0)
		kill(wd->pid, SIGKILL);
	do
		r = waitpid(wd->pid, NULL, 0);
	while (r < 0 && errno == EINTR);
}

static int wait_armed(int sock)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	char c = 0;
	int r;

	do
		r = poll(&p, 1, 5000);
	while (r < 0 && errno == EINTR);
	if (r != 1 || recv(sock, &c, 1, 0) != 1 || c != WD_ARMED)
		return -EIO;
	return 0;
}

/* no watchdog, and why the command was not run */
static int watchdog_failed(struct fp_watchdog *wd, int ret, char *err,
			   size_t errlen)
{
	snprintf(
		err, errlen,
		"footprint: cannot start the watchdog that kills the run if footprint dies: %s; the command was not run",
		ret == -EIO ? "it did not report ready" : strerror(-ret));
	if (wd->pid > 0)
		reap(wd, 0);
	if (wd->sock >= 0)
		close(wd->sock);
	if (wd->pidfd >= 0)
		close(wd->pidfd);
	wd->pid = wd->sock = wd->pidfd = -1;
	return ret;
}

int fp_watchdog_spawn(struct fp_watchdog *wd, char *err, size_t errlen)
{
	pid_t self = getpid();
	int sv[2], ret;

	wd->pid = -1;
	wd->sock = -1;
	wd->pidfd = -1;
	wd->handed_sock = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return watchdog_failed(wd, -errno, err, errlen);
	wd->pid = fork();
	if (wd->pid == 0) {
		close(sv[0]);
		wd_main(sv[1], self);
	}
	ret = -errno;
	close(sv[1]);
	wd->sock = sv[0];
	if (wd->pid < 0)
		return watchdog_failed(wd, ret, err, errlen);
	wd->pidfd = pidfd_open_(wd->pid);
	return 0;
}

static int send_cgroup(int sock, const struct fp_cgroup *cg)
{
	struct wd_cgroup_msg m = { .type = WD_CGROUP };
	const char *name = strrchr(cg->path, '/');

	if (!name || strlen(name + 1) >= sizeof(m.name) || cg->fd < 0)
		return -EINVAL;
	strcpy(m.name, name + 1);
	return fp_fdpass_send(sock, &m, sizeof(m), cg->fd);
}

int fp_watchdog_fork(struct fp_watchdog *wd, const struct fp_cgroup *cg,
		     char *err, size_t errlen)
{
	int ret;

	if (wd->pid <= 0 && (ret = fp_watchdog_spawn(wd, err, errlen)))
		return ret;
	ret = send_cgroup(wd->sock, cg);
	return ret ? watchdog_failed(wd, ret, err, errlen) : 0;
}

int fp_watchdog_armed(struct fp_watchdog *wd, char *err, size_t errlen)
{
	int ret = wait_armed(wd->sock);

	return ret ? watchdog_failed(wd, ret, err, errlen) : 0;
}

int fp_watchdog_start(struct fp_watchdog *wd, const struct fp_cgroup *cg,
		      char *err, size_t errlen)
{
	int ret = fp_watchdog_fork(wd, cg, err, errlen);

	return ret ? ret : fp_watchdog_armed(wd, err, errlen);
}

int fp_watchdog_release_fds(struct fp_watchdog *wd, const int *fds, int n)
{
	const char c = WD_DISARM;
	int ret;

	if (wd->pid <= 0 || wd->sock < 0)
		return -ESRCH;
	ret = fp_fdpass_send_n(wd->sock, &c, 1, fds, n);
	if (ret)
		fprintf(stderr,
			"footprint: the watchdog (pid %d) died during the run; had footprint died too, the command would have run on untraced\n",
			(int)wd->pid);
	wd->handed = !ret && n > 0;
	/* a watchdog handed fds waits for this end to close */
	if (!wd->handed)
		close(wd->sock);
	else
		wd->handed_sock = wd->sock;
	wd->sock = -1;
	return ret;
}

void fp_watchdog_release(struct fp_watchdog *wd)
{
	fp_watchdog_release_fds(wd, NULL, 0);
}

void fp_watchdog_disarm(struct fp_watchdog *wd)
{
	if (wd->pid <= 0)
		return;
	fp_watchdog_release(wd);
	/* it exits at once; one that does not (stopped) is no use now. One
	 * that closes what it was handed is not waited for: init reaps it */
	if (!wd->handed)
		reap(wd, 2000);
	if (wd->pidfd >= 0)
		close(wd->pidfd);
	wd->pid = wd->sock = wd->pidfd = -1;
}
