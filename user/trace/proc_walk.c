// SPDX-License-Identifier: GPL-2.0
/* A process's ancestors, by /proc/PID/stat (proc_walk.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_walk.h"

/* fields of /proc/PID/stat after the comm: 0-based from the state */
#define STAT_PPID 1
#define STAT_STARTTIME 19

int fp_proc_stat_text(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n <= 0)
		return n < 0 ? (int)n : -ESRCH;
	buf[n] = '\0';
	return 0;
}

int fp_proc_stat(pid_t pid, pid_t *ppid, uint64_t *ticks)
{
	char buf[1024], *p;
	int i, ret = fp_proc_stat_text(pid, buf, sizeof(buf));

	if (ret)
		return ret;
	/* the comm may hold anything but the last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	p += 2;
	for (i = 0; *p && i <= STAT_STARTTIME; i++) {
		if (i == STAT_PPID && ppid)
			*ppid = strtol(p, NULL, 10);
		if (i == STAT_STARTTIME && ticks)
			*ticks = strtoull(p, NULL, 10);
		p = strchr(p, ' ');
		if (!p)
			break;
		p++;
	}
	return i > STAT_STARTTIME ? 0 : -EINVAL;
}

uint64_t fp_proc_start_ticks(pid_t pid)
{
	uint64_t t = 0;

	return fp_proc_stat(pid, NULL, &t) ? 0 : t;
}

pid_t fp_proc_ppid(pid_t pid)
{
	pid_t p = 0;

	return fp_proc_stat(pid, &p, NULL) ? 0 : p;
}

long fp_proc_walk_up(pid_t pid, fp_proc_walk_fn fn, void *ctx)
{
	int hops;
	pid_t ppid;
	long ret;

	for (hops = 0; pid > 1 && hops < FP_PROC_WALK_MAX; hops++) {
		ppid = fp_proc_ppid(pid);
		ret = fn(ctx, pid, ppid);
		if (ret)
			return ret;
		if (!ppid)
			break;
		pid = ppid;
	}
	return 0;
}
