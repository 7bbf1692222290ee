// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scope.h"

/* "PID (COMM) S PPID ...": COMM may hold spaces and ')', so the last ')' */
static int stat_ppid(const char *stat, pid_t *ppid)
{
	const char *p = strrchr(stat, ')');
	char state;
	int n;

	if (!p || sscanf(p + 1, " %c %d", &state, &n) != 2 || n < 0)
		return -EINVAL;
	*ppid = n;
	return 0;
}

static int read_ppid(int proc_dirfd, const char *pid, pid_t *ppid)
{
	char path[64], buf[512];
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "%s/stat", pid);
	fd = openat(proc_dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -EIO;
	buf[len] = '\0';
	return stat_ppid(buf, ppid);
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

long fp_proc_links(int proc_dirfd, struct fp_proc_link **out)
{
	struct fp_proc_link *v = NULL, *nv;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int fd = dup(proc_dirfd);
	DIR *d;

	*out = NULL;
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		pid_t ppid;

		if (!all_digits(de->d_name) ||
		    read_ppid(proc_dirfd, de->d_name, &ppid))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n].pid = atoi(de->d_name);
		v[n].ppid = ppid;
		n++;
	}
	closedir(d);
	*out = v;
	return n;
}

long fp_tree_close(const struct fp_proc_link *links, size_t n,
		   const struct fp_tree_set *s)
{
	bool *done = calloc(n ? n : 1, sizeof(*done));
	long added = 0;
	bool more = true;
	size_t i;
	int ret;

	if (!done)
		return -ENOMEM;
	/* a pass per level at worst; an added process is a member next pass */
	while (more) {
		more = false;
		for (i = 0; i < n; i++) {
			const struct fp_proc_link *l = &links[i];

			if (done[i] || l->pid == l->ppid ||
			    s->excluded(s->ctx, l->pid) ||
			    s->excluded(s->ctx, l->ppid) ||
			    !s->has(s->ctx, l->ppid) || s->has(s->ctx, l->pid))
				continue;
			ret = s->add(s->ctx, l->pid, l->ppid);
			if (ret < 0) {
				free(done);
				return ret;
			}
			done[i] = true;
			added += ret;
			more |= ret > 0;
		}
	}
	free(done);
	return added;
}
