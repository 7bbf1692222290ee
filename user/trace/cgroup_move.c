// SPDX-License-Identifier: GPL-2.0
/* A process into a cgroup (cgroup_move.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup_move.h"

int fp_cgroup_move(int dirfd, pid_t pid)
{
	int fd = openat(dirfd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	char buf[24];
	int n, e = 0;

	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	/* one write: the kernel takes a pid per write(2) */
	if (write(fd, buf, n) != n)
		e = errno ? -errno : -EIO;
	close(fd);
	return e;
}

int fp_cgroup_move_path(const char *path, pid_t pid)
{
	int dirfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC), ret;

	if (dirfd < 0)
		return -errno;
	ret = fp_cgroup_move(dirfd, pid);
	close(dirfd);
	return ret;
}
