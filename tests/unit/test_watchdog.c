// SPDX-License-Identifier: GPL-2.0
/*
 * The watchdog against a stand-in cgroup: a plain directory whose
 * cgroup.kill and cgroup.freeze are regular files, so that what the
 * watchdog writes there can be read back without root. The real cgroup
 * is exercised by tests/integration/test_sec_watchdog.py.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "watchdog.h"

static char g_dir[PATH_MAX];

static void put_file(const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", g_dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static char *get_file(const char *name)
{
	static char buf[4096];
	char path[PATH_MAX + 64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", g_dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* a run cgroup as fp_cgroup_create leaves it, made of plain files */
static void fake_cgroup(struct fp_cgroup *cg, bool with_events)
{
	char tmpl[] = "/tmp/fp-wd-XXXXXX";

	cr_assert_not_null(mkdtemp(tmpl));
	snprintf(g_dir, sizeof(g_dir), "%s/run-1-2", tmpl);
	cr_assert_eq(mkdir(g_dir, 0755), 0);
	put_file("cgroup.kill", "");
	put_file("cgroup.freeze", "");
	/* far above pid_max: a pid-by-pid kill could not hit anything */
	put_file("cgroup.procs", "2147483646\n2147483645\n");
	if (with_events)
		put_file("cgroup.events", "populated 0\nfrozen 0\n");
	snprintf(cg->path, sizeof(cg->path), "%s", g_dir);
	cg->fd = open(g_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(cg->fd, 0);
}

static void cleanup_dir(void)
{
	static const char *files[] = { "cgroup.kill", "cgroup.freeze",
				       "cgroup.procs", "cgroup.events",
				       "stderr" };
	char path[PATH_MAX + 64];
	unsigned int i;

	if (!g_dir[0])
		return;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", g_dir, files[i]);
		unlink(path);
	}
	rmdir(g_dir);
	*strrchr(g_dir, '/') = '\0';
	rmdir(g_dir);
}

static bool wait_for_content(const char *name, const char *want, int ms)
{
	struct timespec step = { 0, 10 * 1000 * 1000 };

	for (; ms > 0; ms -= 10) {
		if (strstr(get_file(name), want))
			return true;
		nanosleep(&step, NULL);
	}
	return false;
}

static pid_t read_pid(int fd)
{
	pid_t pid = -1;

	cr_assert_eq(read(fd, &pid, sizeof(pid)), (ssize_t)sizeof(pid));
	return pid;
}

/*
 * A stand-in for footprint: starts the watchdog with its stderr on a file
 * and a pipe of its own open (not close-on-exec), reports the watchdog's
 * pid and the pipe's, then waits for the word to end, disarming or not.
 */
static void footprint_stand_in(const struct fp_cgroup *cg, int report, int go,
			       bool disarm, bool early)
{
	struct fp_watchdog wd = FP_WATCHDOG_INIT;
	char err[512], path[PATH_MAX + 64], c;
	int leak[2], fd;

	snprintf(path, sizeof(path), "%s/stderr", g_dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
		_exit(2);
	/* run's order: spawned first, the cgroup (and more files) later */
	if (early && fp_watchdog_spawn(&wd, err, sizeof(err)))
		_exit(3);
	if (pipe(leak) || fp_watchdog_start(&wd, cg, err, sizeof(err)))
		_exit(3);
	if (write(report, &wd.pid, sizeof(wd.pid)) < 0 ||
	    write(report, &leak[1], sizeof(leak[1])) < 0)
		_exit(4);
	if (read(go, &c, 1) < 0)
		_exit(5);
	if (disarm)
		fp_watchdog_disarm(&wd);
	_exit(0);
}

static void fd_targets(pid_t pid, char *out, size_t len)
{
	char dir[64], path[128], target[256];
	int fd;
	ssize_t n;
	size_t used = 0;

	out[0] = '\0';
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	for (fd = 0; fd < 64; fd++) {
		snprintf(path, sizeof(path), "%s/%d", dir, fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		used += snprintf(out + used, len - used, "%d=%s\n", fd, target);
		if (used >= len)
			break;
	}
}

static void run_stand_in(bool disarm, bool early, pid_t *wdpid, char *fds,
			 size_t len)
{
	struct fp_cgroup cg;
	int rep[2], go[2], status;
	pid_t fp;

	/* the watchdog outlives the stand-in: this process reaps it */
	cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	fake_cgroup(&cg, true);
	cr_assert_eq(pipe2(rep, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	fp = fork();
	cr_assert_geq(fp, 0);
	if (fp == 0) {
		close(rep[0]);
		close(go[1]);
		footprint_stand_in(&cg, rep[1], go[0], disarm, early);
	}
	close(rep[1]);
	close(go[0]);
	*wdpid = read_pid(rep[0]);
	read_pid(rep[0]); /* the leaked pipe's fd number, unused here */
	fd_targets(*wdpid, fds, len);
	close(go[1]);
	cr_assert_eq(waitpid(fp, &status, 0), fp);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "stand-in status %#x", status);
	close(rep[0]);
	close(cg.fd);
}

static void fires(bool early)
{
	char fds[4096];
	pid_t wd;
	int status;

	run_stand_in(false, early, &wd, fds, sizeof(fds));
	cr_assert(wait_for_content("cgroup.kill", "1", 5000),
		  "cgroup.kill was not written: '%s'", get_file("cgroup.kill"));
	cr_assert_str_eq(get_file("cgroup.freeze"), "1");
	cr_assert_eq(waitpid(wd, &status, 0), wd);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert(strstr(get_file("stderr"), "footprint: footprint (pid ") !=
			  NULL,
		  "stderr: '%s'", get_file("stderr"));
	cr_assert(strstr(get_file("stderr"), "killed the 2 processes") != NULL,
		  "stderr: '%s'", get_file("stderr"));
}

Test(watchdog, fires_when_footprint_dies_without_a_word, .fini = cleanup_dir)
{
	fires(false);
}

Test(watchdog, spawned_early_fires_when_footprint_dies, .fini = cleanup_dir)
{
	fires(true);
}

static void keeps_its_own(bool early)
{
	char fds[4096], *line;
	pid_t wd;

	run_stand_in(true, early, &wd, fds, sizeof(fds));
	/* stdin and stdout are /dev/null, stderr is footprint's */
	cr_assert(strstr(fds, "0=/dev/null\n") && strstr(fds, "1=/dev/null\n"),
		  "%s", fds);
	cr_assert(strstr(fds, "2=") && strstr(fds, "/stderr\n"), "%s", fds);
	for (line = strtok(fds, "\n"); line; line = strtok(NULL, "\n")) {
		/* the stand-in's own pipe, or anything else of footprint's */
		cr_assert_null(strstr(line, "pipe:"), "kept %s", line);
		if (atoi(line) > 2)
			cr_assert(strstr(line, "socket:") ||
					  strstr(line, "pidfd") ||
					  strstr(line, "/tmp/fp-wd-"),
				  "kept %s", line);
	}
	cr_assert_eq(waitpid(wd, NULL, WNOHANG), -1,
		     "a disarmed watchdog outlived footprint");
}

Test(watchdog, keeps_only_its_own_files_open, .fini = cleanup_dir)
{
	keeps_its_own(false);
}

Test(watchdog, spawned_early_keeps_only_its_own_files, .fini = cleanup_dir)
{
	keeps_its_own(true);
}

Test(watchdog, disarmed_before_its_cgroup_it_just_exits, .fini = cleanup_dir)
{
	struct fp_watchdog wd = FP_WATCHDOG_INIT;
	char err[512];

	cr_assert_eq(fp_watchdog_spawn(&wd, err, sizeof(err)), 0, "%s", err);
	cr_assert_gt(wd.pid, 0);
	fp_watchdog_disarm(&wd);
	cr_assert_eq(wd.pid, -1);
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a child is left");
}

Test(watchdog, disarmed_it_leaves_the_cgroup_alone, .fini = cleanup_dir)
{
	char fds[4096];
	pid_t wd;

	run_stand_in(true, false, &wd, fds, sizeof(fds));
	cr_assert_str_eq(get_file("cgroup.kill"), "");
	cr_assert_str_eq(get_file("cgroup.freeze"), "");
	cr_assert_str_eq(get_file("stderr"), "");
}

Test(watchdog, a_cgroup_it_cannot_watch_is_an_error, .fini = cleanup_dir)
{
	struct fp_watchdog wd = FP_WATCHDOG_INIT;
	struct fp_cgroup cg;
	char err[512];

	fake_cgroup(&cg, false);
	cr_assert_neq(fp_watchdog_start(&wd, &cg, err, sizeof(err)), 0);
	cr_assert_eq(strncmp(err, "footprint: ", 11), 0, "%s", err);
	cr_assert_eq(wd.pid, -1);
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a child is left");
	close(cg.fd);
}

/*
 * Fds handed with the disarm (the tracer's links) are closed by the
 * watchdog only after footprint's word, the handed socket's close, which
 * the disarm leaves to footprint's exit: the last close of a link
 * detaches it, and footprint's copy is closed first. The disarm does not
 * wait for the watchdog's exit.
 */
Test(watchdog, handed_fds_are_closed_after_footprints_word, .fini = cleanup_dir)
{
	struct fp_watchdog wd = FP_WATCHDOG_INIT;
	struct pollfd p = { .events = POLLIN };
	struct fp_cgroup cg;
	int pfd[2], sock;
	char err[512], c;
	pid_t pid;

	fake_cgroup(&cg, true);
	cr_assert_eq(fp_watchdog_start(&wd, &cg, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(pipe2(pfd, O_CLOEXEC), 0);
	cr_assert_eq(fp_watchdog_release_fds(&wd, &pfd[1], 1), 0);
	close(pfd[1]);
	pid = wd.pid;
	fp_watchdog_disarm(&wd);
	cr_assert_eq(wd.pid, -1);
	/* what footprint's exit closes */
	sock = wd.handed_sock;
	cr_assert_geq(sock, 0);
	p.fd = pfd[0];
	cr_assert_eq(poll(&p, 1, 300), 0,
		     "the handed fd was closed before footprint's word");
	close(sock);
	cr_assert_eq(poll(&p, 1, 5000), 1, "the handed fd stays open");
	cr_assert_eq(read(pfd[0], &c, 1), 0);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	/* disarmed: the cgroup left alone */
	cr_assert_str_eq(get_file("cgroup.kill"), "");
	cr_assert_str_eq(get_file("cgroup.freeze"), "");
	close(pfd[0]);
	close(cg.fd);
}

/* run's order: forked first, footprint's own start, then asked if armed */
Test(watchdog, one_that_cannot_arm_is_an_error_when_asked, .fini = cleanup_dir)
{
	struct fp_watchdog wd = FP_WATCHDOG_INIT;
	struct fp_cgroup cg;
	char err[512];

	fake_cgroup(&cg, false);
	cr_assert_eq(fp_watchdog_fork(&wd, &cg, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_gt(wd.pid, 0);
	cr_assert_neq(fp_watchdog_armed(&wd, err, sizeof(err)), 0);
	cr_assert_eq(strncmp(err, "footprint: ", 11), 0, "%s", err);
	cr_assert_eq(wd.pid, -1);
	cr_assert_eq(wd.sock, -1);
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a child is left");
	close(cg.fd);
}

Test(proc_stat, parses_state_and_start_time)
{
	/* a comm with blanks and parentheses, as a process may set it */
	const char *line =
		"4242 (a) b (c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 "
		"20 0 1 0 987654 1000 10 18446744073709551615\n";
	unsigned long long start = 0;
	char state = 0;

	cr_assert_eq(fp_proc_stat_parse(line, &state, &start), 0);
	cr_assert_eq(state, 'S');
	cr_assert_eq(start, 987654ULL);
}

Test(proc_stat, rejects_a_cut_line)
{
	unsigned long long start;
	char state;

	cr_assert_neq(fp_proc_stat_parse("1 (x) Z 1 2 3", &state, &start), 0);
	cr_assert_neq(fp_proc_stat_parse("1 (x", &state, &start), 0);
	cr_assert_neq(fp_proc_stat_parse("", &state, &start), 0);
}

Test(proc_stat, this_process_is_itself)
{
	unsigned long long a, b;
	char state;

	cr_assert_eq(fp_proc_starttime(getpid(), &state, &a), 0);
	cr_assert_eq(state, 'R');
	cr_assert_eq(fp_proc_starttime(getppid(), &state, &b), 0);
	cr_assert_leq(b, a);
}

Test(cgroup_owner, parses_only_the_exact_form)
{
	struct fp_owner o;

	cr_assert_eq(fp_cgroup_parse_owner("123 456 789", 11, &o), 0);
	cr_assert_eq(o.pid, 123);
	cr_assert_eq(o.start, 456ULL);
	cr_assert_eq(o.pidns, 789ULL);
	cr_assert_neq(fp_cgroup_parse_owner("123 456 789x", 12, &o), 0);
	cr_assert_neq(fp_cgroup_parse_owner("123 456", 7, &o), 0);
	cr_assert_neq(fp_cgroup_parse_owner("-1 456 789", 10, &o), 0);
	cr_assert_neq(fp_cgroup_parse_owner("0 456 789", 9, &o), 0);
	cr_assert_neq(fp_cgroup_parse_owner("", 0, &o), 0);
}

Test(cgroup_owner, self_is_this_process)
{
	struct fp_owner o;
	unsigned long long start;
	struct stat st;
	char state;

	cr_assert_eq(fp_owner_self(&o), 0);
	cr_assert_eq(o.pid, getpid());
	cr_assert_eq(fp_proc_starttime(getpid(), &state, &start), 0);
	cr_assert_eq(o.start, start);
	cr_assert_eq(stat("/proc/self/ns/pid", &st), 0);
	cr_assert_eq(o.pidns, (unsigned long long)st.st_ino);
}
