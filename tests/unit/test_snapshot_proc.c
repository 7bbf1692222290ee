// SPDX-License-Identifier: GPL-2.0
/* fp_proc_snapshot against the live system: this process and its children */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "snapshot_proc.h"
#include "unit_util.h"

static int g_argc;
static char **g_argv;
static uint64_t g_ctor_ticks;

static uint64_t boot_ticks(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec) *
	       sysconf(_SC_CLK_TCK) / 1000000000ULL;
}

/* glibc hands init_array functions the argv the process was exec'd with */
__attribute__((constructor)) static void grab_argv(int argc, char **argv)
{
	g_argc = argc;
	g_argv = argv;
	g_ctor_ticks = boot_ticks();
}

static void assert_bytes(const struct fp_bytes *b, const char *want, size_t len,
			 const char *what)
{
	cr_assert_not_null(b->data, "%s: data is NULL", what);
	cr_assert_eq(b->len, len, "%s: len %zu, want %zu (\"%.*s\")", what,
		     b->len, len, (int)b->len, b->data);
	cr_assert(memcmp(b->data, want, len) == 0, "%s: got \"%.*s\"", what,
		  (int)b->len, b->data);
	cr_assert_eq(b->data[len], '\0', "%s: not NUL-terminated", what);
}

/* this process's argv, as /proc/PID/cmdline lays it out */
static char *own_cmdline(size_t *len)
{
	size_t n = 0;
	char *buf;
	int i;

	for (i = 0; i < g_argc; i++)
		n += strlen(g_argv[i]) + 1;
	buf = malloc(n + 1);
	cr_assert_not_null(buf);
	n = 0;
	for (i = 0; i < g_argc; i++) {
		memcpy(buf + n, g_argv[i], strlen(g_argv[i]) + 1);
		n += strlen(g_argv[i]) + 1;
	}
	*len = n;
	return buf;
}

static uint64_t own_cap_eff(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = { 0 };

	cr_assert_eq(syscall(SYS_capget, &h, d), 0, "capget: %s",
		     strerror(errno));
	return (uint64_t)d[1].effective << 32 | d[0].effective;
}

/* a failed assertion must not leave a sleeping child behind */
static void die_with_parent(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) || getppid() != parent)
		_exit(1);
}

typedef void (*setup_fn)(const void *arg);

/*
 * Fork a child that runs setup and then sleeps; returns once the setup is
 * done, so a snapshot taken next sees its effects.
 */
static pid_t spawn(setup_fn setup, const void *arg)
{
	pid_t pid, parent = getpid();
	int p[2];
	char c;

	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (!pid) {
		die_with_parent(parent);
		close(p[0]);
		if (setup)
			setup(arg);
		c = 'x';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	cr_assert_eq(read(p[0], &c, 1), 1, "child died during setup");
	close(p[0]);
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
}

Test(snapshot_proc, self_exact)
{
	char exe[PATH_MAX], cwd[PATH_MAX], comm[17] = { 0 }, cg[4096];
	struct fp_proc_table t;
	const struct fp_proc *p;
	size_t argv_len;
	char *argv = own_cmdline(&argv_len);
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe));
	cr_assert_gt(n, 0);
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	prctl(PR_GET_NAME, comm, 0, 0, 0);
	own_cgroup_path(cg, sizeof(cg));

	cr_assert_eq(fp_proc_snapshot(&t), 0);
	p = fp_proc_find(&t, getpid());
	cr_assert_not_null(p, "own pid %d missing", getpid());
	cr_assert_eq(p->pid, getpid());
	cr_assert_eq(p->ppid, getppid());
	cr_assert_eq(p->uid, getuid());
	cr_assert_str_eq(p->comm, comm);
	assert_bytes(&p->exe, exe, n, "exe");
	assert_bytes(&p->cwd, cwd, strlen(cwd), "cwd");
	assert_bytes(&p->argv, argv, argv_len, "argv");
	assert_bytes(&p->cgroup, cg, strlen(cg), "cgroup");
	cr_assert_eq(p->cap_eff, own_cap_eff(), "cap_eff %llx",
		     (unsigned long long)p->cap_eff);
	cr_assert_eq(p->no_new_privs, prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	cr_assert_not(p->kernel_thread);
	/* started before the constructor ran, and not long before */
	cr_assert_leq(p->start_ticks, g_ctor_ticks);
	cr_assert_lt(g_ctor_ticks - p->start_ticks,
		     60 * (uint64_t)sysconf(_SC_CLK_TCK));
	fp_proc_table_free(&t);
	cr_assert_null(t.procs);
	cr_assert_eq(t.n, 0);
	free(argv);
}

Test(snapshot_proc, table_sorted_and_consistent)
{
	struct fp_proc_table t;
	const struct fp_proc *p;
	size_t i;

	cr_assert_eq(fp_proc_snapshot(&t), 0);
	cr_assert_gt(t.n, 2);
	for (i = 0; i < t.n; i++) {
		p = &t.procs[i];
		cr_assert_gt(p->pid, 0);
		if (i)
			cr_assert_lt(t.procs[i - 1].pid, p->pid,
				     "not sorted at %zu", i);
		cr_assert_eq(fp_proc_find(&t, p->pid), p);
		cr_assert(fp_proc_same(p, p));
		cr_assert_not_null(p->exe.data);
		cr_assert_not_null(p->cwd.data);
		cr_assert_not_null(p->argv.data);
		cr_assert_not_null(p->cgroup.data);
		cr_assert_lt(strlen(p->comm), sizeof(p->comm));
		if (p->kernel_thread) {
			cr_assert(p->pid == 2 || p->ppid == 2,
				  "kthread %d has ppid %d", p->pid, p->ppid);
			cr_assert_eq(p->argv.len, 0);
			cr_assert_eq(p->exe.len, 0);
			/* identity only: nothing else of them is judged */
			cr_assert_eq(p->cwd.len, 0);
			cr_assert_eq(p->cgroup.len, 0);
		}
	}
	cr_assert_null(fp_proc_find(&t, 0));
	cr_assert_null(fp_proc_find(&t, -1));
	cr_assert_null(fp_proc_find(&t, INT_MAX));

	p = fp_proc_find(&t, 1);
	cr_assert_not_null(p, "no pid 1");
	cr_assert_not(p->kernel_thread);
	cr_assert_eq(p->ppid, 0);
	cr_assert_gt(p->argv.len, 0);

	/* in the initial pid namespace pid 2 is kthreadd */
	p = fp_proc_find(&t, 2);
	if (p && !strcmp(p->comm, "kthreadd")) {
		cr_assert(p->kernel_thread);
		cr_assert_eq(p->ppid, 0);
		cr_assert_eq(p->exe.len, 0);
		cr_assert_eq(p->argv.len, 0);
	}
	fp_proc_table_free(&t);
}

static void set_nnp(const void *arg)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		_exit(1);
}

Test(snapshot_proc, child_no_new_privs_comes_and_goes)
{
	struct fp_proc_table t;
	const struct fp_proc *p, *self;
	struct fp_proc seen, self_seen;
	uint64_t before, after;
	pid_t pid;

	before = boot_ticks();
	pid = spawn(set_nnp, NULL);
	after = boot_ticks();

	cr_assert_eq(fp_proc_snapshot(&t), 0);
	p = fp_proc_find(&t, pid);
	cr_assert_not_null(p, "child %d missing", pid);
	self = fp_proc_find(&t, getpid());
	cr_assert_not_null(self);
	cr_assert_eq(p->ppid, getpid());
	cr_assert_eq(p->no_new_privs, 1);
	cr_assert_eq(self->no_new_privs,
		     prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	cr_assert_geq(p->start_ticks, before);
	cr_assert_leq(p->start_ticks, after);
	cr_assert_not(p->kernel_thread);
	cr_assert_str_eq(p->comm, self->comm);
	cr_assert_eq(p->uid, self->uid);
	/* fork without exec: same image, same argv, same directory */
	assert_bytes(&p->exe, self->exe.data, self->exe.len, "exe");
	assert_bytes(&p->argv, self->argv.data, self->argv.len, "argv");
	assert_bytes(&p->cwd, self->cwd.data, self->cwd.len, "cwd");
	cr_assert_not(fp_proc_same(p, self));
	seen = *p;
	self_seen = *self;
	fp_proc_table_free(&t);

	reap(pid);
	cr_assert_eq(fp_proc_snapshot(&t), 0);
	p = fp_proc_find(&t, pid);
	cr_assert(!p || !fp_proc_same(p, &seen), "child %d still listed", pid);
	self = fp_proc_find(&t, getpid());
	cr_assert_not_null(self);
	cr_assert(fp_proc_same(self, &self_seen));
	fp_proc_table_free(&t);
}

static void set_name(const void *arg)
{
	if (prctl(PR_SET_NAME, (const char *)arg, 0, 0, 0))
		_exit(1);
}

Test(snapshot_proc, comm_with_parens_and_spaces)
{
	static const char *const names[] = {
		"a) b(", ") 0 0 (", "x (y) z)", "(", ")", "123456789012345",
	};
	struct fp_proc_table t;
	const struct fp_proc *p;
	pid_t pids[6];
	size_t i;

	for (i = 0; i < 6; i++)
		pids[i] = spawn(set_name, names[i]);
	cr_assert_eq(fp_proc_snapshot(&t), 0);
	for (i = 0; i < 6; i++) {
		p = fp_proc_find(&t, pids[i]);
		cr_assert_not_null(p, "child \"%s\" missing", names[i]);
		cr_assert_str_eq(p->comm, names[i]);
		/* fields after comm must still line up */
		cr_assert_eq(p->ppid, getpid(), "\"%s\": ppid %d", names[i],
			     p->ppid);
		cr_assert_not(p->kernel_thread);
		cr_assert_gt(p->start_ticks, 0);
	}
	fp_proc_table_free(&t);
	for (i = 0; i < 6; i++)
		reap(pids[i]);
}

static void enter_dir(const void *arg)
{
	if (chdir((const char *)arg))
		_exit(1);
}

/* directory names are bytes: newline, 0xff and ')' must come back intact */
Test(snapshot_proc, cwd_is_lossless)
{
	char tmpl[] = "/tmp/fp-snap-XXXXXX", dir[PATH_MAX];
	struct fp_proc_table t;
	const struct fp_proc *p;
	pid_t pid;

	cr_assert_not_null(mkdtemp(tmpl));
	snprintf(dir, sizeof(dir), "%s/d \n\xff) (deleted)", tmpl);
	cr_assert_eq(mkdir(dir, 0700), 0);
	pid = spawn(enter_dir, dir);
	cr_assert_eq(fp_proc_snapshot(&t), 0);
	p = fp_proc_find(&t, pid);
	cr_assert_not_null(p);
	assert_bytes(&p->cwd, dir, strlen(dir), "cwd");
	fp_proc_table_free(&t);
	reap(pid);
	rmdir(dir);
	rmdir(tmpl);
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	cr_assert_geq(in, 0, "%s: %s", from, strerror(errno));
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	cr_assert_geq(out, 0, "%s: %s", to, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		cr_assert_eq(write(out, buf, n), n);
	cr_assert_eq(n, 0);
	close(in);
	close(out);
}

/* the kernel's " (deleted)" suffix is part of the link and is kept */
Test(snapshot_proc, deleted_exe_after_exec)
{
	static const char want_argv[] = "fp sleep\0"
					"1000";
	char tmpl[] = "/tmp/fp-snap-XXXXXX", bin[PATH_MAX], want[PATH_MAX + 16];
	char *const argv[] = { "fp sleep", "1000", NULL };
	struct fp_proc_table t;
	const struct fp_proc *p;
	pid_t pid, parent = getpid();
	int pfd[2], err = 0;

	cr_assert_not_null(mkdtemp(tmpl));
	snprintf(bin, sizeof(bin), "%s/fp sleep", tmpl);
	copy_file("/bin/sleep", bin);
	cr_assert_eq(pipe2(pfd, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		die_with_parent(parent);
		execv(bin, argv);
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pfd[1]);
	/* EOF on the close-on-exec pipe: the exec has happened */
	cr_assert_eq(read(pfd[0], &err, sizeof(err)), 0, "exec: %s",
		     strerror(err));
	close(pfd[0]);
	cr_assert_eq(unlink(bin), 0);
	snprintf(want, sizeof(want), "%s (deleted)", bin);

	cr_assert_eq(fp_proc_snapshot(&t), 0);
	p = fp_proc_find(&t, pid);
	cr_assert_not_null(p);
	assert_bytes(&p->exe, want, strlen(want), "exe");
	assert_bytes(&p->argv, want_argv, sizeof(want_argv), "argv");
	cr_assert_str_eq(p->comm, "fp sleep");
	cr_assert_eq(p->ppid, getpid());
	cr_assert_eq(p->no_new_privs, 0);
	fp_proc_table_free(&t);
	reap(pid);
	rmdir(tmpl);
}

/* a zombie has no exe, cwd or argv, but it is still a process */
Test(snapshot_proc, zombie_listed_with_empty_pieces)
{
	struct fp_proc_table t;
	const struct fp_proc *p;
	siginfo_t si;
	pid_t pid;

	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid)
		_exit(7);
	cr_assert_eq(waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0);

	cr_assert_eq(fp_proc_snapshot(&t), 0);
	p = fp_proc_find(&t, pid);
	cr_assert_not_null(p, "zombie %d missing", pid);
	cr_assert_eq(p->ppid, getpid());
	cr_assert_eq(p->exe.len, 0);
	cr_assert_eq(p->cwd.len, 0);
	cr_assert_eq(p->argv.len, 0);
	cr_assert_not(p->kernel_thread);
	fp_proc_table_free(&t);

	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	cr_assert_eq(fp_proc_snapshot(&t), 0);
	cr_assert_null(fp_proc_find(&t, pid));
	fp_proc_table_free(&t);
}

/* the pids /proc lists now, into pids (at most max) */
static size_t list_proc(pid_t *pids, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;

	cr_assert_not_null(d);
	while ((de = readdir(d)) && n < max)
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			pids[n++] = atoi(de->d_name);
	closedir(d);
	return n;
}

static bool listed(const pid_t *pids, size_t n, pid_t pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* a snapshot misses no process that lived through it */
Test(snapshot_proc, every_process_listed_before_and_after_is_read)
{
	static pid_t before[65536], after[65536];
	size_t nb, na, i, both = 0;
	struct fp_proc_table t;

	nb = list_proc(before, 65536);
	cr_assert_eq(fp_proc_snapshot(&t), 0);
	na = list_proc(after, 65536);
	for (i = 0; i < nb; i++) {
		if (!listed(after, na, before[i]))
			continue;
		both++;
		cr_assert_not_null(fp_proc_find(&t, before[i]),
				   "pid %d is listed but not in the table",
				   (int)before[i]);
	}
	/* this process and pid 1 at least, and a machine's kernel threads */
	cr_assert_gt(both, 3);
	fp_proc_table_free(&t);
}

/*
 * Many processes, so that the table is read in shares on several threads:
 * every one is found under its own pid, with its own command line.
 */
Test(snapshot_proc, many_processes_each_read_as_itself)
{
	enum { N = 200 };
	static pid_t kids[N];
	char arg[N][32], want[64];
	struct fp_proc_table t;
	const struct fp_proc *p;
	size_t j;
	int i, n;

	for (i = 0; i < N; i++) {
		snprintf(arg[i], sizeof(arg[i]), "3600.%03d", i);
		kids[i] = fork();
		cr_assert_geq(kids[i], 0);
		if (!kids[i]) {
			/* gone with the test, even one that failed midway, and
			 * holding none of its output open */
			int null = open("/dev/null", O_RDWR);

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
			execl("/bin/sleep", "sleep", arg[i], (char *)NULL);
			_exit(127);
		}
	}
	/* each has exec'd once its cmdline is sleep's */
	for (i = 0; i < N; i++) {
		char path[64], buf[64];
		int tries;

		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)kids[i]);
		for (tries = 0; tries < 2000; tries++) {
			cr_assert_eq(waitpid(kids[i], NULL, WNOHANG), 0,
				     "child %d could not run /bin/sleep", i);
			int fd = open(path, O_RDONLY);
			ssize_t k = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

			if (fd >= 0)
				close(fd);
			if (k > 6 && !memcmp(buf, "sleep", 6))
				break;
			usleep(1000);
		}
	}
	cr_assert_eq(fp_proc_snapshot(&t), 0);
	for (i = 0; i < N; i++) {
		p = fp_proc_find(&t, kids[i]);
		cr_assert_not_null(p, "child %d (pid %d) is missing", i,
				   (int)kids[i]);
		n = snprintf(want, sizeof(want), "sleep%c%s", 0, arg[i]);
		cr_assert_eq(p->argv.len, (size_t)n + 1,
			     "pid %d: argv of %zu bytes", (int)kids[i],
			     p->argv.len);
		cr_assert_arr_eq(p->argv.data, want, n + 1);
		cr_assert_eq(p->ppid, getpid());
		cr_assert_str_eq(p->comm, "sleep");
	}
	for (j = 1; j < t.n; j++)
		cr_assert_lt(t.procs[j - 1].pid, t.procs[j].pid);
	fp_proc_table_free(&t);
	for (i = 0; i < N; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
}

/* this process's entry of a snapshot taken since prev */
static struct fp_proc since_self(const struct fp_proc *mine,
				 struct fp_proc_table *t)
{
	struct fp_proc q = *mine;
	struct fp_proc_table prev = { .procs = &q, .n = 1 };
	const struct fp_proc *p;

	cr_assert_eq(fp_proc_snapshot_since(t, &prev), 0);
	p = fp_proc_find(t, getpid());
	cr_assert_not_null(p);
	return *p;
}

/*
 * Since an earlier table, the same process in the same cgroup keeps what
 * was read of it then (here a planted exe shows that it was not read
 * again); a different start time or cgroup is read afresh, and so is
 * every process the earlier table lacks.
 */
Test(snapshot_proc, since_reads_again_only_what_may_have_changed)
{
	char planted[] = "/planted/exe", cwd[] = "/planted/cwd";
	char argv[] = "planted\0argv", other[] = "/elsewhere";
	char exe[PATH_MAX], comm[17] = { 0 };
	struct fp_proc_table t0, t;
	struct fp_proc mine, p;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe));

	cr_assert_gt(n, 0);
	prctl(PR_GET_NAME, comm, 0, 0, 0);
	cr_assert_eq(fp_proc_snapshot(&t0), 0);
	cr_assert_not_null(fp_proc_find(&t0, getpid()));
	mine = *fp_proc_find(&t0, getpid());
	mine.exe = bytes(planted, strlen(planted));
	mine.cwd = bytes(cwd, strlen(cwd));
	mine.argv = bytes(argv, sizeof(argv));
	mine.uid = 4242;
	mine.cap_eff = 0x42;
	mine.no_new_privs = 7;
	/* read again from stat, whatever the earlier table said */
	mine.ppid = 1;
	strcpy(mine.comm, "planted");

	p = since_self(&mine, &t);
	assert_bytes(&p.exe, planted, strlen(planted), "carried exe");
	assert_bytes(&p.cwd, cwd, strlen(cwd), "carried cwd");
	assert_bytes(&p.argv, argv, sizeof(argv), "carried argv");
	cr_assert_eq(p.uid, 4242);
	cr_assert_eq(p.cap_eff, 0x42);
	cr_assert_eq(p.no_new_privs, 7);
	cr_assert_eq(p.ppid, getppid());
	cr_assert_str_eq(p.comm, comm);
	assert_bytes(&p.cgroup, mine.cgroup.data, mine.cgroup.len, "cgroup");
	fp_proc_table_free(&t);

	mine.start_ticks++;
	p = since_self(&mine, &t);
	assert_bytes(&p.exe, exe, n, "exe of a pid reused");
	cr_assert_eq(p.uid, getuid());
	fp_proc_table_free(&t);

	mine.start_ticks--;
	mine.cgroup = bytes(other, strlen(other));
	p = since_self(&mine, &t);
	assert_bytes(&p.exe, exe, n, "exe after a move to another cgroup");
	cr_assert_eq(p.uid, getuid());
	fp_proc_table_free(&t);
	free(mine.exe.data);
	free(mine.cwd.data);
	free(mine.argv.data);
	free(mine.cgroup.data);
	fp_proc_table_free(&t0);
}

/* a table past its bound is refused whole, not cut */
Test(snapshot_proc, past_the_bound_is_an_error)
{
	struct fp_proc_table t = { .n = 7 };

	/* this process, pid 1 and the kernel's threads: more than 2 */
	cr_assert_eq(fp_proc_snapshot_max(&t, NULL, 2), -E2BIG);
	cr_assert_null(t.procs);
	cr_assert_eq(t.n, 0);
	cr_assert_eq(fp_proc_snapshot_max(&t, NULL, FP_PROC_MAX), 0);
	cr_assert_gt(t.n, 2);
	fp_proc_table_free(&t);
}

Test(snapshot_proc, same_means_pid_and_start)
{
	struct fp_proc a = { .pid = 10, .start_ticks = 500 };
	struct fp_proc b = a;

	cr_assert(fp_proc_same(&a, &b));
	b.ppid = 99;
	b.comm[0] = 'x';
	cr_assert(fp_proc_same(&a, &b));
	b.start_ticks = 501;
	cr_assert_not(fp_proc_same(&a, &b));
	b = a;
	b.pid = 11;
	cr_assert_not(fp_proc_same(&a, &b));
}

Test(snapshot_proc, find_and_free_on_empty_table)
{
	struct fp_proc_table t = { 0 };

	cr_assert_null(fp_proc_find(&t, 1));
	fp_proc_table_free(&t);
	cr_assert_eq(t.n, 0);
}

/*
 * A table read early and brought up to now (session.c, procs_late): a
 * process begun since is read whole, one ended since is dropped, and the
 * rest are kept as they were read, sorted as a snapshot is.
 */
Test(snapshot_proc, refresh_adds_the_new_and_drops_the_gone)
{
	struct fp_proc_table t;
	const struct fp_proc *p, *self;
	struct fp_proc self_seen;
	pid_t gone, born;
	size_t i;

	gone = spawn(set_nnp, NULL);
	cr_assert_eq(fp_proc_snapshot(&t), 0);
	cr_assert_not_null(fp_proc_find(&t, gone));
	self = fp_proc_find(&t, getpid());
	cr_assert_not_null(self);
	self_seen = *self;
	reap(gone);
	born = spawn(set_nnp, NULL);

	cr_assert_eq(fp_proc_snapshot_refresh(&t), 0);
	p = fp_proc_find(&t, born);
	cr_assert_not_null(p, "child %d begun since is missing", born);
	cr_assert_eq(p->ppid, getpid());
	cr_assert_eq(p->no_new_privs, 1);
	cr_assert_not_null(p->argv.data);
	cr_assert_gt(p->argv.len, 0);
	p = fp_proc_find(&t, gone);
	cr_assert_null(p, "child %d ended since is still listed", gone);
	self = fp_proc_find(&t, getpid());
	cr_assert_not_null(self);
	cr_assert(fp_proc_same(self, &self_seen));
	/* kept as read: the same bytes, not read again */
	cr_assert_eq(self->argv.data, self_seen.argv.data);
	for (i = 1; i < t.n; i++)
		cr_assert_lt(t.procs[i - 1].pid, t.procs[i].pid);
	reap(born);
	fp_proc_table_free(&t);
}
