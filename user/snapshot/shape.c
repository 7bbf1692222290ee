// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup.h"
#include "shape.h"

void fp_shape_note(struct fp_shape *s, const char *fmt, ...)
{
	va_list ap;
	char *n;

	if (s->nnotes == FP_SHAPE_NOTES_MAX)
		return; /* the shape is incomplete already; 64 reasons say so */
	va_start(ap, fmt);
	if (vasprintf(&n, fmt, ap) >= 0)
		s->notes[s->nnotes++] = n;
	va_end(ap);
}

static int pid_cmp(const void *a, const void *b)
{
	const struct fp_shape_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* the root of the process tree: its parent is not in the shape */
static pid_t pick_main(const struct fp_shape *s)
{
	size_t i, k;

	for (i = 0; i < s->nprocs; i++) {
		for (k = 0; k < s->nprocs; k++)
			if (s->procs[k].pid == s->procs[i].ppid)
				break;
		if (k == s->nprocs)
			return s->procs[i].pid;
	}
	return s->nprocs ? s->procs[0].pid : 0;
}

/* read every pid (a vanished one is skipped), then the sockets */
static int capture(struct fp_shape *s, const pid_t *pids, size_t n)
{
	struct fp_shape_ns init[FP_NS_N];
	size_t i;
	int ret = 0, r;

	/* not a gap in the service's shape: reported apart, not a note */
	s->init_ns_unreadable = fp_shape_init_ns(init) != 0;
	s->procs = calloc(n ? n : 1, sizeof(*s->procs));
	if (!s->procs)
		ret = -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		r = fp_shape_read_proc(s, &s->procs[s->nprocs], pids[i], init);
		if (r == -ENOMEM)
			ret = r;
		else if (!r)
			s->nprocs++;
		else
			fp_shape_proc_free(&s->procs[s->nprocs]);
	}
	if (ret)
		return ret;
	qsort(s->procs, s->nprocs, sizeof(*s->procs), pid_cmp);
	if (!s->main_pid)
		s->main_pid = pick_main(s);
	return fp_shape_read_sockets(s);
}

int fp_shape_pid(struct fp_shape *s, pid_t pid)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->kind = "pid";
	if (asprintf(&s->target, "%d", (int)pid) < 0)
		return -ENOMEM;
	s->main_pid = pid;
	ret = capture(s, &pid, 1);
	if (!ret && !s->nprocs)
		ret = -ESRCH;
	return ret;
}

static int open_procs(const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};
	char mnt[PATH_MAX], *rel;
	size_t n;
	int root, fd;

	/* cgroup2 is not always at /sys/fs/cgroup (hybrid: .../unified) */
	if (fp_cgroup_mountpoint(mnt, sizeof(mnt)))
		return -ENOENT;
	n = strlen(mnt);
	if (!strncmp(path, mnt, n) && (path[n] == '/' || !path[n]))
		path += n;
	while (*path == '/')
		path++;
	if (asprintf(&rel, "%s%scgroup.procs", path, *path ? "/" : "") < 0)
		return -ENOMEM;
	root = open(mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);
	fd = root < 0 ? -1 : syscall(SYS_openat2, root, rel, &how, sizeof(how));
	fd = fd < 0 ? -errno : fd;
	if (root >= 0)
		close(root);
	free(rel);
	return fd;
}

/* at most FP_SHAPE_PROCS_MAX pids from a cgroup.procs */
static int read_pids(struct fp_shape *s, int fd, pid_t **out, size_t *n)
{
	FILE *f = fdopen(fd, "r");
	pid_t *v;
	int pid;

	*n = 0;
	v = calloc(FP_SHAPE_PROCS_MAX, sizeof(*v));
	if (!f || !v) {
		if (f)
			fclose(f);
		else
			close(fd);
		free(v);
		return -ENOMEM;
	}
	while (fscanf(f, "%d", &pid) == 1) {
		if (*n == FP_SHAPE_PROCS_MAX) {
			fp_shape_note(s, "more than %d processes",
				      FP_SHAPE_PROCS_MAX);
			break;
		}
		v[(*n)++] = pid;
	}
	fclose(f);
	*out = v;
	return 0;
}

int fp_shape_cgroup_into(struct fp_shape *s, const char *path)
{
	pid_t *pids = NULL;
	size_t n;
	int fd, ret;

	fd = open_procs(path);
	if (fd < 0)
		return fd;
	ret = read_pids(s, fd, &pids, &n);
	if (!ret)
		ret = capture(s, pids, n);
	free(pids);
	return ret;
}

int fp_shape_cgroup(struct fp_shape *s, const char *path)
{
	memset(s, 0, sizeof(*s));
	s->kind = "cgroup";
	s->target = strdup(path);
	if (!s->target)
		return -ENOMEM;
	return fp_shape_cgroup_into(s, path);
}

int fp_shape_unit(struct fp_shape *s, const char *unit)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->kind = "unit";
	s->target = strdup(unit);
	if (!s->target)
		return -ENOMEM;
	ret = fp_shape_read_unit(s, unit);
	if (ret)
		return ret;
	s->main_pid = s->unit.main_pid;
	if (!s->unit.control_group || !s->unit.control_group[0]) {
		fp_shape_note(s, "the unit has no cgroup: it is not running");
		return capture(s, NULL, 0);
	}
	return fp_shape_cgroup_into(s, s->unit.control_group);
}

void fp_shape_free(struct fp_shape *s)
{
	size_t i;

	for (i = 0; i < s->nprocs; i++)
		fp_shape_proc_free(&s->procs[i]);
	free(s->procs);
	for (i = 0; i < s->nnotes; i++)
		free(s->notes[i]);
	for (i = 0; i < s->unit.nprops; i++)
		free(s->unit.vals[i]);
	free(s->unit.name);
	free(s->unit.control_group);
	free(s->target);
	memset(s, 0, sizeof(*s));
}
