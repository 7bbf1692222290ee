// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "proc_walk.h"

static int find_mountpoint(char *out, size_t len)
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

/*
 * Parsed once a process (~0.1 ms; a run asked three times): a run's
 * hierarchy does not move while it lives, and what a long-lived sidecar
 * found it goes on using through its fds.
 */
int fp_cgroup_mountpoint(char *out, size_t len)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char found[PATH_MAX];
	int ret = 0;

	pthread_mutex_lock(&lock);
	if (!found[0])
		ret = find_mountpoint(found, sizeof(found));
	if (!ret && (size_t)snprintf(out, len, "%s", found) >= len)
		ret = -ENAMETOOLONG;
	pthread_mutex_unlock(&lock);
	return ret;
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

int fp_proc_stat_parse(const char *stat, char *state, unsigned long long *start)
{
	/* comm may hold spaces and parentheses: fields resume after the last ) */
	const char *p = strrchr(stat, ')');
	int field;

	if (!p || p[1] != ' ' || !p[2])
		return -EINVAL;
	*state = p[2];
	p++;
	/* ") S ppid ..." : state is field 3, starttime field 22 */
	for (field = 2; field < 22; field++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return -EINVAL;
		if (field == 21)
			return sscanf(p, "%llu", start) == 1 ? 0 : -EINVAL;
		while (*p && *p != ' ')
			p++;
	}
	return -EINVAL;
}

int fp_proc_starttime(pid_t pid, char *state, unsigned long long *start)
{
	char buf[1024];
	int ret = fp_proc_stat_text(pid, buf, sizeof(buf));

	if (ret)
		return ret;
	return fp_proc_stat_parse(buf, state, start);
}

int fp_cgroup_parse_owner(const char *s, size_t len, struct fp_owner *o)
{
	char buf[96];
	int p, end = 0;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (sscanf(buf, "%d %llu %llu%n", &p, &o->start, &o->pidns, &end) !=
		    3 ||
	    end != (int)len || p <= 0)
		return -EINVAL;
	o->pid = p;
	return 0;
}

int fp_owner_self(struct fp_owner *o)
{
	struct stat st;
	char state;
	int ret;

	o->pid = getpid();
	ret = fp_proc_starttime(o->pid, &state, &o->start);
	if (ret)
		return ret;
	if (stat("/proc/self/ns/pid", &st))
		return -errno;
	o->pidns = st.st_ino;
	return 0;
}

/*
 * The same pid with the same start time is the very same process; a zombie
 * (its parent has not reaped it yet) has already closed its BPF links.
 */
static bool owner_alive(const struct fp_owner *o)
{
	unsigned long long now;
	char state;

	return fp_proc_starttime(o->pid, &state, &now) == 0 &&
	       now == o->start && state != 'Z' && state != 'X';
}

static bool has_xattr(int fd, const char *name)
{
	char v[8];

	return fgetxattr(fd, name, v, sizeof(v)) >= 0;
}

/*
 * The runs of a footprint that died: kill what they left running (that
 * ran on untraced once footprint was gone) and say so. A run that ended
 * with leftovers allowed (FP_XATTR_RELEASED) keeps them.
 */
static void reap_dead_run(const struct fp_cgroup *cg, pid_t pid)
{
	pid_t *pids;
	int n;

	if (!has_xattr(cg->fd, FP_XATTR_RELEASED) &&
	    fp_cgroup_populated(cg) == 1) {
		fp_cgroup_freeze(cg);
		n = fp_cgroup_pids(cg, &pids);
		if (n >= 0)
			free(pids);
		fp_cgroup_kill(cg);
		if (fp_cgroup_wait_empty(cg, 2000))
			fprintf(stderr,
				"footprint: processes in %s survived SIGKILL\n",
				cg->path);
		fprintf(stderr,
			"footprint: killed %d processes left running by an earlier footprint (pid %d) that died; they ran untraced after it died\n",
			n > 0 ? n : 0, (int)pid);
	}
	remove_tree(cg->path, 0);
}

static void reap_entry(const char *parent, const char *name,
		       const struct fp_owner *self)
{
	struct fp_cgroup cg;
	struct fp_owner o;
	char owner[96];
	ssize_t len;
	pid_t pid;

	len = snprintf(cg.path, sizeof(cg.path), "%s/%s", parent, name);
	if (len < 0 || (size_t)len >= sizeof(cg.path))
		return;
	cg.fd = open(cg.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cg.fd < 0)
		return;
	len = fgetxattr(cg.fd, FP_XATTR_OWNER, owner, sizeof(owner));
	if (len > 0 && !fp_cgroup_parse_owner(owner, len, &o)) {
		/* pids of another pid namespace cannot be judged from here */
		if (o.pidns == self->pidns && !owner_alive(&o))
			reap_dead_run(&cg, o.pid);
	} else if (sscanf(name, "run-%d-", &pid) == 1 && pid > 0 &&
		   kill(pid, 0) && errno == ESRCH) {
		/* no owner recorded (an older footprint): empty ones only */
		remove_tree(cg.path, 0);
	}
	close(cg.fd);
}

/*
 * Before a run: clean up after footprints that are gone. The names are
 * read first: removing entries while reading cgroupfs skips others.
 */
static void reap_stale(const char *parent, const struct fp_owner *self)
{
	DIR *d = opendir(parent);
	struct dirent *de;
	char **names = NULL, **grown;
	size_t n = 0, cap = 0, i;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "run-", 4))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			grown = realloc(names, cap * sizeof(*names));
			if (!grown)
				break;
			names = grown;
		}
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	for (i = 0; i < n; i++) {
		reap_entry(parent, names[i], self);
		free(names[i]);
	}
	free(names);
}

int fp_cgroup_create(struct fp_cgroup *cg, char *err, size_t errlen)
{
	char mnt[PATH_MAX], parent[PATH_MAX + 16], owner[96];
	struct fp_owner self;
	int ret, n;

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
	/* pid and start time name this footprint for as long as it lives */
	ret = fp_owner_self(&self);
	if (ret) {
		snprintf(
			err, errlen,
			"footprint: cannot read /proc/self/stat or /proc/self/ns/pid: %s; mount /proc",
			strerror(-ret));
		return ret;
	}
	reap_stale(parent, &self);
	snprintf(cg->path, sizeof(cg->path), "%s/run-%d-%llu", parent,
		 (int)self.pid, self.start);
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
	/* trusted.*: only root can write it, so no user can fake an owner */
	n = snprintf(owner, sizeof(owner), "%d %llu %llu", (int)self.pid,
		     self.start, self.pidns);
	if (fsetxattr(cg->fd, FP_XATTR_OWNER, owner, n, 0))
		fprintf(stderr,
			"footprint: cannot mark cgroup %s with its owner: %s; a later footprint will not clean up after this run if it dies\n",
			cg->path, strerror(errno));
	return 0;
}

int fp_cgroup_freeze(const struct fp_cgroup *cg)
{
	int fd = openat(cg->fd, "cgroup.freeze", O_WRONLY | O_CLOEXEC);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, "1", 1);
	close(fd);
	return w == 1 ? 0 : -errno;
}

void fp_cgroup_release(struct fp_cgroup *cg)
{
	if (cg->fd < 0)
		return;
	if (fsetxattr(cg->fd, FP_XATTR_RELEASED, "1", 1, 0))
		fprintf(stderr,
			"footprint: cannot mark cgroup %s as released: %s; the next footprint will kill what is left in it\n",
			cg->path, strerror(errno));
	close(cg->fd);
	cg->fd = -1;
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
