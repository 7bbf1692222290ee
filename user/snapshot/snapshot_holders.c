// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snapshot_fs.h"
#include "snapshot_holders.h"

static int want_cmp(const void *a, const void *b)
{
	const struct fp_holder_want *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (x->ino > y->ino) - (x->ino < y->ino);
}

/* fdinfo's "flags:" (octal): is fd open for writing? */
static bool writable(int procfd, pid_t pid, const char *fd)
{
	char path[300], buf[256], *p;
	unsigned long flags;
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "%d/fdinfo/%s", (int)pid, fd);
	f = openat(procfd, path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return false;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strstr(buf, "flags:");
	if (!p || sscanf(p + 6, "%lo", &flags) != 1)
		return false;
	return (flags & O_ACCMODE) != O_RDONLY;
}

/* Is pid in the run's cgroup (or below it)? Its "0::" line says. */
static bool in_cgroup(int procfd, pid_t pid, const char *cg)
{
	char path[64], buf[4096], *l, *end;
	ssize_t n;
	int f;

	if (!cg || !*cg)
		return false;
	snprintf(path, sizeof(path), "%d/cgroup", (int)pid);
	f = openat(procfd, path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return false;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (l = buf; *l; l = end + 1) {
		end = strchrnul(l, '\n');
		if (!strncmp(l, "0::", 3))
			return fp_path_under(l + 3, end - l - 3, cg,
					     strlen(cg));
		if (!*end)
			break;
	}
	return false;
}

static int add(struct fp_holder_table *out, const struct fp_holder_want *w,
	       pid_t pid)
{
	struct fp_holder *h = realloc(out->h, (out->n + 1) * sizeof(*h));

	if (!h)
		return -ENOMEM;
	out->h = h;
	h = &out->h[out->n];
	h->pid = pid;
	if (fp_bytes_dup(&h->path, w->path, w->len))
		return -ENOMEM;
	out->n++;
	return 0;
}

/* the wanted files pid holds open for writing; found[i]: one is known */
static int scan_pid(int procfd, pid_t pid, struct fp_holder_want *w, size_t n,
		    bool *found, const char *cg, struct fp_holder_table *out)
{
	struct fp_holder_want key, *hit;
	char path[64];
	struct dirent *de;
	struct stat st;
	int fd, ret = 0;
	bool outside_known = false;
	DIR *d;

	snprintf(path, sizeof(path), "%d/fd", (int)pid);
	fd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while (!ret && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    fstatat(dirfd(d), de->d_name, &st, 0) ||
		    !S_ISREG(st.st_mode))
			continue;
		key.dev = st.st_dev;
		key.ino = st.st_ino;
		hit = bsearch(&key, w, n, sizeof(*w), want_cmp);
		if (!hit || found[hit - w] ||
		    !writable(procfd, pid, de->d_name))
			continue;
		if (!outside_known) {
			if (in_cgroup(procfd, pid, cg))
				break; /* the run's own process */
			outside_known = true;
		}
		found[hit - w] = true;
		ret = add(out, hit, pid);
	}
	closedir(d);
	return ret;
}

static int holder_cmp(const void *a, const void *b)
{
	const struct fp_holder *x = a, *y = b;

	return fp_bytes_cmp(x->path.data, x->path.len, y->path.data,
			    y->path.len);
}

void fp_holders_sort(struct fp_holder_table *t)
{
	if (t->n)
		qsort(t->h, t->n, sizeof(*t->h), holder_cmp);
}

int fp_holders_scan(struct fp_holder_want *w, size_t n, pid_t self,
		    const char *run_cgroup, struct fp_holder_table *out)
{
	struct dirent *de;
	bool *found;
	char *end;
	long pid;
	DIR *d;
	int ret = 0;

	if (!n)
		return 0;
	found = calloc(n, sizeof(*found));
	if (!found)
		return -ENOMEM;
	qsort(w, n, sizeof(*w), want_cmp);
	d = opendir("/proc");
	if (!d) {
		free(found);
		return -errno;
	}
	while (!ret && (de = readdir(d))) {
		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || pid == self)
			continue;
		ret = scan_pid(dirfd(d), pid, w, n, found, run_cgroup, out);
	}
	closedir(d);
	free(found);
	fp_holders_sort(out);
	return ret;
}

const struct fp_holder *fp_holder_find(const struct fp_holder_table *t,
				       const char *path, size_t len)
{
	struct fp_holder key = { { (char *)path, len }, 0 };

	if (!t || !t->n)
		return NULL;
	return bsearch(&key, t->h, t->n, sizeof(*t->h), holder_cmp);
}

void fp_holder_table_free(struct fp_holder_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->h[i].path.data);
	free(t->h);
	t->h = NULL;
	t->n = 0;
}
