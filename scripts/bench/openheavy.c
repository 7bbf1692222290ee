// SPDX-License-Identifier: GPL-2.0
/*
 * Open-heavy workload for scripts/bench/overhead.
 *
 * Usage: openheavy [-a] DIR [N1 [N2]]
 *
 * In DIR: N1 (default 200000) rounds of open+close of one existing file,
 * then N2 (default 20000) rounds of creat(O_CREAT|O_WRONLY)+close+unlink
 * of another. Paths are relative to DIR (the workload chdir()s there), as
 * a build's mostly are; -a makes them absolute instead, which tells the
 * cost of resolving the working directory apart from the rest.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long count_arg(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0) {
		fprintf(stderr, "openheavy: %s must be a count, got '%s'\n",
			what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static char existing[PATH_MAX], scratch[PATH_MAX];
	long n1 = 200000, n2 = 20000, i;
	const char *dir = "";
	int fd, c;

	while ((c = getopt(argc, argv, "a")) != -1) {
		if (c != 'a') {
			fprintf(stderr,
				"Usage: openheavy [-a] DIR [N1 [N2]]\n");
			return 2;
		}
		dir = NULL;
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || argc > 3) {
		fprintf(stderr, "Usage: openheavy [-a] DIR [N1 [N2]]\n");
		return 2;
	}
	if (argc > 1)
		n1 = count_arg(argv[1], "N1");
	if (argc > 2)
		n2 = count_arg(argv[2], "N2");
	if (chdir(argv[0])) {
		fprintf(stderr, "openheavy: cannot enter %s: %s\n", argv[0],
			strerror(errno));
		return 1;
	}
	if (!dir) {
		static char cwd[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd) - 32)) {
			fprintf(stderr, "openheavy: getcwd: %s\n",
				strerror(errno));
			return 1;
		}
		strcat(cwd, "/");
		dir = cwd;
	}
	snprintf(existing, sizeof(existing), "%sopenheavy.existing", dir);
	snprintf(scratch, sizeof(scratch), "%sopenheavy.scratch", dir);
	fd = open(existing, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || close(fd)) {
		fprintf(stderr, "openheavy: cannot create %s in %s: %s\n",
			existing, argv[0], strerror(errno));
		return 1;
	}

	for (i = 0; i < n1; i++) {
		fd = open(existing, O_RDONLY);
		if (fd < 0) {
			fprintf(stderr, "openheavy: open %s: %s\n", existing,
				strerror(errno));
			return 1;
		}
		close(fd);
	}
	for (i = 0; i < n2; i++) {
		fd = open(scratch, O_CREAT | O_WRONLY, 0644);
		if (fd < 0) {
			fprintf(stderr, "openheavy: create %s: %s\n", scratch,
				strerror(errno));
			return 1;
		}
		close(fd);
		if (unlink(scratch)) {
			fprintf(stderr, "openheavy: unlink %s: %s\n", scratch,
				strerror(errno));
			return 1;
		}
	}
	unlink(existing);
	return 0;
}
