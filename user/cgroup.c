// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"

int fp_cgroup_mountpoint(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], mnt[PATH_MAX], fstype[64];
	int found = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* id parent maj:min root mountpoint opts [optional...] - fstype */
		char *dash = strstr(line, " - ");

		if (!dash || sscanf(dash + 3, "%63s", fstype) != 1 ||
		    strcmp(fstype, "cgroup2"))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		snprintf(out, len, "%s", mnt);
		found = 0;
		/* the pure v2 location wins over any other */
		if (!strcmp(mnt, "/sys/fs/cgroup"))
			break;
	}
	fclose(f);
	return found;
}

/* cgroups the command made below the run's go first, bottom-up */
static void remove_tree(const char *dir, int depth)
{
	char path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d;

	if (depth > 64)
		return;
	d = opendir(dir);
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_type != DT_DIR || de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			remove_tree(path, depth + 1);
		}
		closedir(d);
	}
	rmdir(dir);
}

/*
 * A footprint that was killed leaves its run cgroup behind. Remove the
 * empty ones whose footprint is gone; rmdir fails on a populated one.
 */
static void reap_stale(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *de;
	char path[PATH_MAX + 300];
	int pid;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (sscanf(de->d_name, "run-%d-", &pid) != 1 || pid <= 0 ||
		    kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", parent, de->d_name);
		remove_tree(path, 0);
	}
	closedir(d);
}

int fp_cgroup_create(struct fp_cgroup *cg, char *err, size_t errlen)
{
	char mnt[PATH_MAX], parent[PATH_MAX + 16];
	struct timespec ts;
	int ret;

	cg->fd = -1;
	ret = fp_cgroup_mountpoint(mnt, sizeof(mnt));
	if (ret) {
		snprintf(
			err, errlen,
			"footprint: no cgroup v2 hierarchy is mounted; mount one (mount -t cgroup2 none /sys/fs/cgroup/unified)");
		return ret;
	}
	snprintf(parent, sizeof(parent), "%s/footprint", mnt);
	if (mkdir(parent, 0755) && errno != EEXIST) {
		ret = -errno;
		snprintf(
			err, errlen,
			"footprint: cannot create cgroup %s: %s; run footprint as root",
			parent, strerror(errno));
		return ret;
	}
	reap_stale(parent);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(cg->path, sizeof(cg->path), "%s/run-%d-%lld", parent,
		 (int)getpid(), (long long)ts.tv_nsec);
	cg->rel = cg->path + strlen(mnt);
	if (!strcmp(mnt, "/"))
		cg->rel = cg->path;
	if (mkdir(cg->path, 0755)) {
		ret = -errno;
		snprintf(
			err, errlen,
			"footprint: cannot create cgroup %s: %s; run footprint as root",
			cg->path, strerror(errno));
		return ret;
	}
	cg->fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "footprint: cannot open cgroup %s: %s",
			 cg->path, strerror(errno));
		rmdir(cg->path);
		return ret;
	}
	return 0;
}

int fp_cgroup_populated(const struct fp_cgroup *cg)
{
	char buf[256];
	int fd = openat(cg->fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	char *p;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	p = strstr(buf, "populated ");
	return p ? p[10] == '1' : -EINVAL;
}

static int collect_pids(const char *dir, pid_t **pids, size_t *n, size_t *cap)
{
	char path[PATH_MAX + 32];
	DIR *d;
	struct dirent *de;
	FILE *f;
	long pid;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fscanf(f, "%ld", &pid) == 1) {
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 16;
			pid_t *np = realloc(*pids, nc * sizeof(pid_t));

			if (!np) {
				ret = -ENOMEM;
				break;
			}
			*pids = np;
			*cap = nc;
		}
		(*pids)[(*n)++] = (pid_t)pid;
	}
	fclose(f);
	d = opendir(dir);
	if (!d)
		return ret;
	while (!ret && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		ret = collect_pids(path, pids, n, cap);
	}
	closedir(d);
	return ret;
}

int fp_cgroup_pids(const struct fp_cgroup *cg, pid_t **pids)
{
	size_t n = 0, cap = 0;
	int ret;

	*pids = NULL;
	ret = collect_pids(cg->path, pids, &n, &cap);
	if (ret) {
		free(*pids);
		*pids = NULL;
		return ret;
	}
	return (int)n;
}

int fp_cgroup_kill(const struct fp_cgroup *cg)
{
	int fd = openat(cg->fd, "cgroup.kill", O_WRONLY | O_CLOEXEC);
	pid_t *pids;
	int n, i;

	if (fd >= 0) {
		ssize_t w = write(fd, "1", 1);

		close(fd);
		if (w == 1)
			return 0;
	}
	/* before 5.14: kill what is there until nothing is left to fork */
	n = fp_cgroup_pids(cg, &pids);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	free(pids);
	return 0;
}

int fp_cgroup_wait_empty(const struct fp_cgroup *cg, int timeout_ms)
{
	struct timespec step = { 0, 2 * 1000 * 1000 };
	int waited = 0;
	int pop;

	while ((pop = fp_cgroup_populated(cg)) == 1) {
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		/* processes forked during a pid-by-pid kill need another pass */
		if (waited && waited % 100 == 0)
			fp_cgroup_kill(cg);
		nanosleep(&step, NULL);
		waited += 2;
	}
	return pop < 0 ? pop : 0;
}

void fp_cgroup_remove(struct fp_cgroup *cg)
{
	if (cg->fd >= 0)
		close(cg->fd);
	cg->fd = -1;
	if (cg->path[0])
		remove_tree(cg->path, 0);
	cg->path[0] = '\0';
}
