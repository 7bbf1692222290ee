// SPDX-License-Identifier: GPL-2.0
/*
 * fpprobe: make exactly one named syscall through syscall(2), so that libc
 * cannot substitute another one, for the integration tests to trace.
 *
 * Every subcommand prints one line on stdout, "pid=N" followed by what the
 * test needs to check (fds, ports, child pids; thread-exec prints a second
 * line from the new image), and exits 0 when the syscall did what was
 * asked. On an unexpected failure it prints "errno=NAME" on stderr and
 * exits 1; on a usage error it exits 2. A
 * syscall the machine does not have (ENOSYS; arm64 has no open, creat,
 * unlink, rename or fork) exits 77, which the tests take as a skip.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* missing on newer architectures: syscall(-1) fails with ENOSYS */
#ifndef SYS_open
#define SYS_open -1
#endif
#ifndef SYS_creat
#define SYS_creat -1
#endif
#ifndef SYS_unlink
#define SYS_unlink -1
#endif
#ifndef SYS_rename
#define SYS_rename -1
#endif
#ifndef SYS_fork
#define SYS_fork -1
#endif

#ifndef CLONE_NEWUSER
#define CLONE_NEWUSER 0x10000000
#endif
#ifndef CLONE_NEWNS
#define CLONE_NEWNS 0x00020000
#endif

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static const char *prog = "fpprobe";

static void usage(void)
{
	fprintf(stderr,
		"usage: %s open PATH | chdir-open DIR REL | openat DIR REL |\n"
		"       openat-badfd REL | openat2 DIR REL | creat PATH |\n"
		"       unlink PATH | unlinkat DIR REL [rmdir] | rename OLD NEW |\n"
		"       renameat2 DIR OLD NEW [exchange|noreplace] |\n"
		"       bind4 ADDR PORT | bind6 ADDR PORT | bind-unix PATH |\n"
		"       bind-abstract NAME | open-missing PATH |\n"
		"       fork-noexec PATH | thread-exit PATH | thread-exec |\n"
		"       exit N | kill-self SIG | busy N PATH |\n"
		"       exec-many N BYTES PROG | open-many DIR K |\n"
		"       signal PID SIG | bpf | bpf-compat | ptrace-seize PID |\n"
		"       ptrace-attach PID | walk STEP...\n",
		prog);
	exit(2);
}

/* The syscall failed when it should not have. */
static void fail(const char *what)
{
	int e = errno;

	fprintf(stderr, "%s: %s failed: errno=%s (%s)\n", prog, what,
		strerrorname_np(e) ?: "?", strerror(e));
	exit(e == ENOSYS ? 77 : 1);
}

/* One line on stdout, flushed now: a later kill must not lose it. */
static void report(const char *fmt, ...)
{
	va_list ap;

	printf("pid=%ld", (long)syscall(SYS_getpid));
	if (fmt[0]) {
		putchar(' ');
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	putchar('\n');
	fflush(stdout);
}

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end)
		usage();
	return v;
}

/* Setup, not the syscall under test: libc may use openat here. */
static int open_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		fail("open(DIR)");
	return fd;
}

static int do_open(const char *path)
{
	long fd = syscall(SYS_open, path, O_WRONLY | O_CREAT, 0644);

	if (fd < 0)
		fail("open");
	report("fd=%ld", fd);
	return 0;
}

static int do_chdir_open(const char *dir, const char *rel)
{
	long fd;

	if (syscall(SYS_chdir, dir))
		fail("chdir");
	fd = syscall(SYS_open, rel, O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		fail("open");
	report("fd=%ld", fd);
	return 0;
}

static int do_openat(const char *dir, const char *rel)
{
	int dirfd = open_dir(dir);
	long fd = syscall(SYS_openat, dirfd, rel, O_CREAT | O_WRONLY, 0600);

	if (fd < 0)
		fail("openat");
	report("dirfd=%d fd=%ld", dirfd, fd);
	return 0;
}

/* openat with a dirfd that is not open: EBADF expected. */
static int do_openat_badfd(const char *rel)
{
	int dirfd = 987;
	long fd;

	close(dirfd);
	fd = syscall(SYS_openat, dirfd, rel, O_CREAT | O_WRONLY, 0600);
	if (fd >= 0 || errno != EBADF) {
		errno = fd >= 0 ? 0 : errno;
		fail("openat(bad dirfd) expecting EBADF");
	}
	report("dirfd=%d", dirfd);
	return 0;
}

static int do_openat2(const char *dir, const char *rel)
{
	struct open_how how;
	int dirfd = open_dir(dir);
	long fd;

	memset(&how, 0, sizeof(how));
	how.flags = O_CREAT | O_WRONLY;
	how.mode = 0600;
	how.resolve = RESOLVE_NO_SYMLINKS;
	fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	if (fd < 0)
		fail("openat2");
	report("dirfd=%d fd=%ld", dirfd, fd);
	return 0;
}

static int do_creat(const char *path)
{
	long fd = syscall(SYS_creat, path, 0644);

	if (fd < 0)
		fail("creat");
	report("fd=%ld", fd);
	return 0;
}

static int do_unlink(const char *path)
{
	if (syscall(SYS_unlink, path))
		fail("unlink");
	report("");
	return 0;
}

static int do_unlinkat(const char *dir, const char *rel, const char *how)
{
	int dirfd = open_dir(dir);
	int flags = 0;

	if (how && !strcmp(how, "rmdir"))
		flags = AT_REMOVEDIR;
	else if (how)
		usage();
	if (syscall(SYS_unlinkat, dirfd, rel, flags))
		fail("unlinkat");
	report("dirfd=%d", dirfd);
	return 0;
}

static int do_rename(const char *oldp, const char *newp)
{
	if (syscall(SYS_rename, oldp, newp))
		fail("rename");
	report("");
	return 0;
}

static int do_renameat2(const char *dir, const char *oldp, const char *newp,
			const char *how)
{
	int dirfd = open_dir(dir);
	unsigned int flags = 0;

	if (how && !strcmp(how, "exchange"))
		flags = RENAME_EXCHANGE;
	else if (how && !strcmp(how, "noreplace"))
		flags = RENAME_NOREPLACE;
	else if (how)
		usage();
	if (syscall(SYS_renameat2, dirfd, oldp, dirfd, newp, flags))
		fail("renameat2");
	report("dirfd=%d", dirfd);
	return 0;
}

static int do_bind(int family, const char *addr, const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	void *in;
	int bound;

	if (fd < 0)
		fail("socket");
	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(number(port));
		in = &sin->sin_addr;
		len = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(number(port));
		in = &sin6->sin6_addr;
		len = sizeof(*sin6);
	}
	if (inet_pton(family, addr, in) != 1)
		usage();
	if (syscall(SYS_bind, fd, &ss, len)) {
		fprintf(stdout, "pid=%ld fd=%d errno=%s\n",
			(long)syscall(SYS_getpid), fd,
			strerrorname_np(errno) ?: "?");
		fflush(stdout);
		fail("bind");
	}
	len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		fail("getsockname");
	if (family == AF_INET)
		bound = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	else
		bound = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	report("fd=%d port=%d", fd, bound);
	return 0;
}

/* AF_UNIX stream socket: a path, or an abstract name (no leading NUL). */
static int do_bind_unix(const char *name, bool abstract)
{
	struct sockaddr_un sun;
	socklen_t len;
	size_t n = strlen(name);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		fail("socket");
	if (n + 1 > sizeof(sun.sun_path))
		usage();
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (abstract) {
		memcpy(sun.sun_path + 1, name, n);
		len = offsetof(struct sockaddr_un, sun_path) + 1 + n;
	} else {
		memcpy(sun.sun_path, name, n);
		len = offsetof(struct sockaddr_un, sun_path) + n + 1;
	}
	if (syscall(SYS_bind, fd, &sun, len))
		fail("bind");
	report("fd=%d", fd);
	return 0;
}

static int do_open_missing(const char *path)
{
	long fd = syscall(SYS_open, path, O_RDONLY);

	if (fd >= 0 || errno != ENOENT) {
		errno = fd >= 0 ? 0 : errno;
		fail("open expecting ENOENT");
	}
	report("");
	return 0;
}

/* The child makes one traced syscall and exits 7 without exec'ing. */
static int do_fork_noexec(const char *path)
{
	int status;
	pid_t child;

	fflush(stdout);
	child = syscall(SYS_fork);
	if (child < 0)
		fail("fork");
	if (child == 0) {
		if (syscall(SYS_open, path, O_WRONLY | O_CREAT, 0644) < 0)
			_exit(1);
		_exit(7);
	}
	if (waitpid(child, &status, 0) != child)
		fail("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 7) {
		fprintf(stderr, "%s: child status 0x%x\n", prog, status);
		exit(1);
	}
	report("child=%d", (int)child);
	return 0;
}

static int do_exit(const char *code)
{
	long n = number(code);

	report("");
	syscall(SYS_exit_group, n);
	return 1;
}

static int do_kill_self(const char *sig)
{
	long n = number(sig);

	report("");
	syscall(SYS_kill, syscall(SYS_getpid), n);
	/* not reached for a fatal signal */
	return 1;
}

static const char *thread_path;

/* The leader is gone: open, then end the process with status 4. */
static void *late_thread(void *unused)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	if (syscall(SYS_open, thread_path, O_WRONLY | O_CREAT, 0644) < 0)
		fail("open");
	report("tid=%ld", (long)syscall(SYS_gettid));
	syscall(SYS_exit_group, 4);
	return NULL;
}

/* The leader exits alone (SYS_exit); a second thread outlives it. */
static int do_thread_exit(const char *path)
{
	pthread_t t;

	thread_path = path;
	if (pthread_create(&t, NULL, late_thread, NULL))
		fail("pthread_create");
	syscall(SYS_exit, 0);
	return 1;
}

/* A non-leader thread execs: "fpprobe exit 0" takes over the process. */
static void *exec_thread(void *unused)
{
	char *const args[] = { "fpprobe", "exit", "0", NULL };

	report("tid=%ld", (long)syscall(SYS_gettid));
	syscall(SYS_execve, "/proc/self/exe", args, environ);
	fail("execve");
	return NULL;
}

static int do_thread_exec(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, exec_thread, NULL))
		fail("pthread_create");
	pthread_join(t, NULL);
	return 1;
}

/* Noise for the cgroup filter: N rounds (0: until killed). */
static int do_busy(const char *count, const char *path)
{
	long n = number(count), i;
	long fd;

	report("");
	for (i = 0; n == 0 || i < n; i++) {
		fd = syscall(SYS_open, path, O_WRONLY | O_CREAT, 0644);
		if (fd < 0)
			fail("open");
		close(fd);
		if (syscall(SYS_unlink, path))
			fail("unlink");
	}
	return 0;
}

/*
 * N children, one after the other, each exec PROG with about BYTES of
 * arguments (in pieces under MAX_ARG_STRLEN) and exit.
 */
static int do_exec_many(const char *count, const char *bytes, const char *prog)
{
	long n = number(count), size = number(bytes), i, npad;
	const long piece = 100000;
	char **args, *pad;
	int status;
	pid_t pid;

	npad = (size + piece - 1) / piece;
	args = calloc(npad + 2, sizeof(*args));
	pad = malloc(piece + 1);
	if (!args || !pad)
		fail("malloc");
	memset(pad, 'x', piece);
	pad[piece] = '\0';
	args[0] = (char *)prog;
	for (i = 0; i < npad; i++)
		args[i + 1] = pad;
	report("");
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			fail("fork");
		if (pid == 0) {
			syscall(SYS_execve, prog, args, environ);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			fail("exec-many child");
	}
	return 0;
}

/*
 * K*K read-only opens of DIR/lI/lJ/f, distinct names of one file: the test
 * makes DIR/f and the symlinks DIR/l0 .. DIR/l<K-1> to ".".
 */
static int do_open_many(const char *dir, const char *count)
{
	long k = number(count), i, j, fd;
	char path[4096];

	report("");
	/* f and g by turns: an open of the file the last one reached would
	 * be counted into its event, not an event of its own */
	for (i = 0; i < k; i++) {
		for (j = 0; j < k; j++) {
			snprintf(path, sizeof(path), "%s/l%ld/l%ld/%c", dir, i,
				 j, (i * k + j) & 1 ? 'g' : 'f');
			fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
			if (fd < 0)
				fail("openat");
			close(fd);
		}
	}
	return 0;
}

/* For the tamper tests: a signal to another process, as kill(1) sends. */
static int do_signal(const char *pid, const char *sig)
{
	if (syscall(SYS_kill, number(pid), number(sig)))
		fail("kill");
	report("");
	return 0;
}

/* bpf(BPF_PROG_GET_NEXT_ID): harmless, and any bpf() is tamper evidence. */
static int do_bpf(void)
{
	union {
		uint32_t start_id;
		char pad[128];
	} attr;
	long ret;

	memset(&attr, 0, sizeof(attr));
	ret = syscall(SYS_bpf, 11 /* BPF_PROG_GET_NEXT_ID */, &attr,
		      sizeof(attr));
	report("ret=%ld errno=%s", ret,
	       ret < 0 ? strerrorname_np(errno) ?: "?" : "0");
	return 0;
}

/*
 * The same through the 32-bit entry (int $0x80, i386 number 357), which a
 * 64-bit process may use too: 77 where the kernel has no 32-bit entry.
 */
static int do_bpf_compat(void)
{
#if defined(__x86_64__)
	long ret;

	/* no attr (NULL): the call fails, and only the attempt counts */
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "0"(357L), "b"(11L), "c"(0L), "d"(0L)
			 : "memory");
	if (ret == -ENOSYS) {
		errno = ENOSYS;
		fail("int $0x80");
	}
	report("ret=%ld", ret);
	return 0;
#else
	errno = ENOSYS;
	fail("bpf-compat");
	return 1;
#endif
}

/* Seize (never stops the target) and let exit detach; EPERM is fine. */
static int do_ptrace_seize(const char *pid)
{
	long ret = syscall(SYS_ptrace, 0x4206 /* PTRACE_SEIZE */, number(pid),
			   0, 0);

	report("ret=%ld errno=%s", ret,
	       ret < 0 ? strerrorname_np(errno) ?: "?" : "0");
	return 0;
}

/* For an unprivileged caller, refused (EPERM): the attempt is the point. */
static int do_ptrace_attach(const char *pid)
{
	long ret =
		syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, number(pid), 0, 0);

	if (ret == 0) {
		syscall(SYS_ptrace, 17 /* PTRACE_DETACH */, number(pid), 0, 0);
		errno = 0;
		fail("ptrace(PTRACE_ATTACH) expecting EPERM");
	}
	report("ret=%ld errno=%s", ret, strerrorname_np(errno) ?: "?");
	return 0;
}

/* cmd is NAME; its argument count must be within [nmin, nmax]. */
static bool is(const char *cmd, const char *name, int argc, int nmin, int nmax)
{
	if (strcmp(cmd, name))
		return false;
	if (argc < nmin || argc > nmax)
		usage();
	return true;
}

/*
 * walk STEP...: a script of path syscalls, for the walk cache tests.
 * cd:DIR chdir; mk:REL mkdirat(AT_FDCWD); cr:REL create the file REL;
 * dir:DIR open the dirfd that at:REL makes the directory REL under;
 * mv:OLD:NEW renameat; urmv:OLD:NEW the same through io_uring; sync:OUT:IN
 * opens the fifo IN, writes a byte to the fifo OUT, then waits for one on
 * IN (the test acts in between); userns-bind:SRC:DST a new user and mount
 * namespace with SRC bound on DST; down:NAME:N N times mkdirat(dirfd,
 * NAME) and make NAME the dirfd, as a descent through a tree by dirfd
 * does; up:NAME:N N times make ".." the dirfd and mkdirat(dirfd, NAME),
 * as find or chmod -R go back up; rmup:NAME:N N times make ".." the
 * dirfd and rmdir NAME in it, the directory just left, as rm -rf does;
 * in:NAME:N N times make the existing NAME the dirfd.
 */
static char *walk_arg(char *step, char **second)
{
	char *a = strchr(step, ':'), *b;

	if (!a)
		usage();
	*a++ = '\0';
	b = strchr(a, ':');
	if (b)
		*b++ = '\0';
	*second = b;
	return a;
}

/*
 * IN is opened before OUT is written: the test may rename IN's directory
 * as soon as it reads OUT, so IN's name is only good until then. O_RDWR
 * opens a FIFO without waiting for a writer, and the read still waits
 * for the test's byte (this end keeps the FIFO from reading as EOF).
 */
static void walk_sync(const char *out, const char *in)
{
	char c = 'r';
	int in_fd = open(in, O_RDWR | O_CLOEXEC);
	int out_fd = open(out, O_WRONLY | O_CLOEXEC);

	if (in_fd < 0)
		fail("sync in");
	if (out_fd < 0 || write(out_fd, &c, 1) != 1)
		fail("sync out");
	close(out_fd);
	if (read(in_fd, &c, 1) != 1)
		fail("sync in");
	close(in_fd);
}

static void walk_userns_bind(const char *src, const char *dst)
{
	if (syscall(SYS_unshare, CLONE_NEWUSER | CLONE_NEWNS))
		fail("unshare");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		fail("mount private");
	if (mount(src, dst, NULL, MS_BIND, NULL))
		fail("mount bind");
}

/*
 * mkdirat, not openat: a successful open is reported under the path of
 * the file it returned, walked from its own dentry, not under the name
 * relative to the cwd or dirfd that this is about.
 */
static void walk_mkdir(int dirfd, const char *rel)
{
	if (syscall(SYS_mkdirat, dirfd, rel, 0755))
		fail("mkdirat");
}

/* A file created by a name relative to the cwd, reported by its fd too */
static void walk_create(const char *rel)
{
	int fd = openat(AT_FDCWD, rel, O_WRONLY | O_CREAT | O_EXCL, 0644);

	if (fd < 0)
		fail("openat(O_CREAT)");
	close(fd);
}

/* A renameat through io_uring, with no liburing: one SQE, one CQE. */
static void walk_uring_rename(const char *from, const char *to)
{
	struct io_uring_params p;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	unsigned int *tail;
	char *sq, *cq;
	int ring;

	memset(&p, 0, sizeof(p));
	ring = syscall(SYS_io_uring_setup, 1, &p);
	if (ring < 0)
		fail("io_uring_setup");
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned int),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
		  IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(*cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
		  IORING_OFF_CQ_RING);
	sqe = mmap(NULL, p.sq_entries * sizeof(*sqe), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqe == MAP_FAILED)
		fail("mmap(io_uring)");
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_RENAMEAT;
	sqe->fd = AT_FDCWD;
	sqe->addr = (uintptr_t)from;
	sqe->len = AT_FDCWD;
	sqe->addr2 = (uintptr_t)to;
	((unsigned int *)(sq + p.sq_off.array))[0] = 0;
	tail = (unsigned int *)(sq + p.sq_off.tail);
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) != 1)
		fail("io_uring_enter");
	cqe = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	if (cqe[0].res < 0) {
		errno = -cqe[0].res;
		fail("io_uring renameat");
	}
	close(ring);
}

static int walk_down(int dirfd, const char *name, const char *count, bool make)
{
	long i, n = count ? strtol(count, NULL, 10) : 0;
	int sub;

	for (i = 0; i < n; i++) {
		if (make)
			walk_mkdir(dirfd, name);
		sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub < 0)
			fail("openat(down)");
		close(dirfd);
		dirfd = sub;
	}
	return dirfd;
}

/* N times: the parent becomes the dirfd; then mkdir or rmdir NAME in it */
static int walk_up(int dirfd, const char *name, const char *count, bool rm)
{
	long i, n = count ? strtol(count, NULL, 10) : 0;
	int up;

	for (i = 0; i < n; i++) {
		up = openat(dirfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (up < 0)
			fail("openat(..)");
		close(dirfd);
		dirfd = up;
		if (!rm)
			walk_mkdir(dirfd, name);
		else if (syscall(SYS_unlinkat, dirfd, name, AT_REMOVEDIR))
			fail("unlinkat(AT_REMOVEDIR)");
	}
	return dirfd;
}

static int do_walk(char **steps, int n)
{
	int dirfd = -1, i;

	for (i = 0; i < n; i++) {
		char *b, *a = walk_arg(steps[i], &b);
		const char *op = steps[i];

		if (!strcmp(op, "cd") && syscall(SYS_chdir, a))
			fail("chdir");
		else if (!strcmp(op, "mk"))
			walk_mkdir(AT_FDCWD, a);
		else if (!strcmp(op, "cr"))
			walk_create(a);
		else if (!strcmp(op, "dir"))
			dirfd = open_dir(a);
		else if (!strcmp(op, "at"))
			walk_mkdir(dirfd, a);
		else if (!strcmp(op, "mv") && syscall(SYS_renameat, AT_FDCWD, a,
						      AT_FDCWD, b ? b : ""))
			fail("renameat");
		else if (!strcmp(op, "urmv") && b)
			walk_uring_rename(a, b);
		else if (!strcmp(op, "sync") && b)
			walk_sync(a, b);
		else if (!strcmp(op, "down") || !strcmp(op, "in"))
			dirfd = walk_down(dirfd, a, b, op[0] == 'd');
		else if (!strcmp(op, "up") || !strcmp(op, "rmup"))
			dirfd = walk_up(dirfd, a, b, op[0] == 'r');
		else if (!strcmp(op, "userns-bind") && b)
			walk_userns_bind(a, b);
	}
	report("");
	return 0;
}

int main(int argc, char **argv)
{
	const char *c;
	int n;

	if (argc < 2)
		usage();
	c = argv[1];
	argv += 2;
	n = argc - 2;
	if (is(c, "open", n, 1, 1))
		return do_open(argv[0]);
	if (is(c, "chdir-open", n, 2, 2))
		return do_chdir_open(argv[0], argv[1]);
	if (is(c, "openat", n, 2, 2))
		return do_openat(argv[0], argv[1]);
	if (is(c, "openat-badfd", n, 1, 1))
		return do_openat_badfd(argv[0]);
	if (is(c, "openat2", n, 2, 2))
		return do_openat2(argv[0], argv[1]);
	if (is(c, "creat", n, 1, 1))
		return do_creat(argv[0]);
	if (is(c, "unlink", n, 1, 1))
		return do_unlink(argv[0]);
	if (is(c, "unlinkat", n, 2, 3))
		return do_unlinkat(argv[0], argv[1], n > 2 ? argv[2] : NULL);
	if (is(c, "rename", n, 2, 2))
		return do_rename(argv[0], argv[1]);
	if (is(c, "renameat2", n, 3, 4))
		return do_renameat2(argv[0], argv[1], argv[2],
				    n > 3 ? argv[3] : NULL);
	if (is(c, "bind4", n, 2, 2))
		return do_bind(AF_INET, argv[0], argv[1]);
	if (is(c, "bind6", n, 2, 2))
		return do_bind(AF_INET6, argv[0], argv[1]);
	if (is(c, "bind-unix", n, 1, 1))
		return do_bind_unix(argv[0], false);
	if (is(c, "bind-abstract", n, 1, 1))
		return do_bind_unix(argv[0], true);
	if (is(c, "open-missing", n, 1, 1))
		return do_open_missing(argv[0]);
	if (is(c, "fork-noexec", n, 1, 1))
		return do_fork_noexec(argv[0]);
	/* exit takes padding arguments: the argv tests use it */
	if (is(c, "exit", n, 1, n > 1 ? n : 1))
		return do_exit(argv[0]);
	if (is(c, "kill-self", n, 1, 1))
		return do_kill_self(argv[0]);
	if (is(c, "thread-exit", n, 1, 1))
		return do_thread_exit(argv[0]);
	if (is(c, "thread-exec", n, 0, 0))
		return do_thread_exec();
	if (is(c, "busy", n, 2, 2))
		return do_busy(argv[0], argv[1]);
	if (is(c, "exec-many", n, 3, 3))
		return do_exec_many(argv[0], argv[1], argv[2]);
	if (is(c, "open-many", n, 2, 2))
		return do_open_many(argv[0], argv[1]);
	if (is(c, "signal", n, 2, 2))
		return do_signal(argv[0], argv[1]);
	if (is(c, "bpf", n, 0, 0))
		return do_bpf();
	if (is(c, "bpf-compat", n, 0, 0))
		return do_bpf_compat();
	if (is(c, "ptrace-seize", n, 1, 1))
		return do_ptrace_seize(argv[0]);
	if (is(c, "walk", n, 1, n > 1 ? n : 1))
		return do_walk(argv, n);
	if (is(c, "ptrace-attach", n, 1, 1))
		return do_ptrace_attach(argv[0]);
	usage();
	return 2;
}
