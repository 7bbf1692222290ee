// SPDX-License-Identifier: GPL-2.0
/*
 * The child that borrows footprint's memory until it execs (spawn.h):
 * the caller resumes only once it has, footprint's handlers do not run
 * in it, and its credentials stay its own, whatever threads footprint
 * has.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "identity.h"
#include "spawn.h"

static volatile sig_atomic_t g_handled;
static volatile int g_seen;

static void on_usr1(int sig)
{
	g_handled = 1;
}

static struct clone_args plain(void)
{
	struct clone_args a;

	memset(&a, 0, sizeof(a));
	a.exit_signal = SIGCHLD;
	return a;
}

static int exec_exit7(void *p)
{
	char *argv[] = { "/bin/sh", "-c", "exit 7", NULL };

	fp_spawn_child_signals();
	execv(argv[0], argv);
	_exit(127);
}

Test(spawn, the_child_execs_and_is_waited_for)
{
	struct clone_args a = plain();
	pid_t pid;
	int st;

	if (!fp_spawn_supported())
		cr_skip_test("no spawn on this arch");
	pid = fp_spawn(&a, 64 * 1024, exec_exit7, NULL);
	cr_assert_gt(pid, 0);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 7, "status %#x", st);
}

static int write_shared(void *p)
{
	g_seen = getpid();
	_exit(0);
}

Test(spawn, the_caller_resumes_once_the_child_is_done)
{
	struct clone_args a = plain();
	pid_t pid;

	if (!fp_spawn_supported())
		cr_skip_test("no spawn on this arch");
	g_seen = 0;
	pid = fp_spawn(&a, 64 * 1024, write_shared, NULL);
	cr_assert_gt(pid, 0);
	/* the same memory, and written before the caller went on */
	cr_assert_eq(g_seen, pid);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
}

static int raise_usr1(void *p)
{
	sigset_t none;

	fp_spawn_child_signals();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	kill(getpid(), SIGUSR1);
	_exit(0);
}

Test(spawn, footprints_handlers_do_not_run_in_the_child)
{
	struct sigaction sa = { .sa_handler = on_usr1 }, now;
	struct clone_args a = plain();
	pid_t pid;
	int st;

	if (!fp_spawn_supported())
		cr_skip_test("no spawn on this arch");
	cr_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	g_handled = 0;
	pid = fp_spawn(&a, 64 * 1024, raise_usr1, NULL);
	cr_assert_gt(pid, 0);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR1, "status %#x", st);
	cr_assert_eq(g_handled, 0);
	/* the caller's handler is still its own */
	cr_assert_eq(sigaction(SIGUSR1, NULL, &now), 0);
	cr_assert_eq(now.sa_handler, on_usr1);
	signal(SIGUSR1, SIG_DFL);
}

static int drop_to_nobody(void *p)
{
	const struct fp_identity *id = p;

	g_seen = fp_identity_apply(id) ? -1 : (int)getuid();
	_exit(0);
}

static void *sleeper(void *p)
{
	pause();
	return NULL;
}

Test(spawn, a_drop_in_the_child_leaves_footprints_threads_root)
{
	gid_t groups[1] = { 65534 };
	struct fp_identity id = { .drop = true,
				  .uid = 65534,
				  .gid = 65534,
				  .groups = groups,
				  .ngroups = 1 };
	struct clone_args a = plain();
	pthread_t th;
	pid_t pid;

	if (!fp_spawn_supported())
		cr_skip_test("no spawn on this arch");
	if (geteuid() != 0)
		cr_skip_test("needs root");
	/* a second thread: glibc's setuid() would have changed it too */
	cr_assert_eq(pthread_create(&th, NULL, sleeper, NULL), 0);
	g_seen = 0;
	pid = fp_spawn(&a, 64 * 1024, drop_to_nobody, &id);
	cr_assert_gt(pid, 0);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	cr_assert_eq(g_seen, 65534);
	cr_assert_eq(getuid(), 0);
	cr_assert_eq(geteuid(), 0);
	pthread_cancel(th);
	pthread_join(th, NULL);
}
