// SPDX-License-Identifier: GPL-2.0
/*
 * Time one command from the inside, for scripts/bench/overhead.
 *
 * Usage: walltime OUTFILE CMD [ARG...]
 *
 * Runs CMD, then writes to OUTFILE one line: its wall time (CLOCK_MONOTONIC,
 * fork to reaped) and the CPU time (user + system) of it and the children
 * it waited for, both in nanoseconds; exits with CMD's status. Run under a
 * tracer, it measures how much the traced command itself slowed down,
 * leaving out the tracer's own start-up and teardown. In-kernel tracing
 * (BPF) is charged to the command's system time; a tracer's own process
 * is not.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long start, end, cpu;
	struct rusage ru;
	int status;
	FILE *out;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "Usage: walltime OUTFILE CMD [ARG...]\n");
		return 2;
	}
	start = now_ns();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "walltime: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "walltime: cannot run %s: %s\n", argv[2],
			strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "walltime: wait4: %s\n",
				strerror(errno));
			return 1;
		}
	}
	end = now_ns();
	cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
	out = fopen(argv[1], "w");
	if (!out || fprintf(out, "%lld %lld\n", end - start, cpu) < 0 ||
	    fclose(out)) {
		fprintf(stderr, "walltime: cannot write %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
