// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "sha256.h"
#include "shape.h"

const char *const fp_ns_names[FP_NS_N] = { "cgroup", "ipc",  "mnt",  "net",
					   "pid",    "time", "user", "uts" };

int fp_shape_slurp(int dirfd, const char *name, struct fp_bytes *out,
		   size_t max)
{
	size_t cap = 4096, len = 0;
	char *buf = NULL, *nb;
	ssize_t n;
	int fd, ret = 0;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (!buf || cap - len < 2) {
			cap = buf ? cap * 2 : cap;
			nb = realloc(buf, cap);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : 0;
			break;
		}
		len += n;
		if (len > max) {
			ret = -E2BIG;
			break;
		}
	}
	close(fd);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[len] = '\0';
	free(out->data);
	out->data = buf;
	out->len = len;
	return 0;
}

static void parse_ids(const char *s, uint32_t ids[4])
{
	sscanf(s, "%u %u %u %u", &ids[0], &ids[1], &ids[2], &ids[3]);
}

/* status escapes the name, so each field starts a line */
static void parse_status(struct fp_shape_proc *p, const char *s)
{
	static const struct {
		const char *key;
		size_t off;
	} caps[] = {
		{ "CapEff:", offsetof(struct fp_shape_proc, cap_eff) },
		{ "CapPrm:", offsetof(struct fp_shape_proc, cap_prm) },
		{ "CapBnd:", offsetof(struct fp_shape_proc, cap_bnd) },
		{ "CapAmb:", offsetof(struct fp_shape_proc, cap_amb) },
		{ "CapInh:", offsetof(struct fp_shape_proc, cap_inh) },
	};
	size_t i;

	for (; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL) {
		for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
			if (!strncmp(s, caps[i].key, 7))
				*(uint64_t *)((char *)p + caps[i].off) =
					strtoull(s + 7, NULL, 16);
		if (!strncmp(s, "PPid:", 5))
			p->ppid = atoi(s + 5);
		else if (!strncmp(s, "Uid:", 4))
			parse_ids(s + 4, p->uids);
		else if (!strncmp(s, "Gid:", 4))
			parse_ids(s + 4, p->gids);
		else if (!strncmp(s, "NoNewPrivs:", 11))
			p->no_new_privs = atoi(s + 11);
		else if (!strncmp(s, "Seccomp:", 8))
			p->seccomp = atoi(s + 8);
		else if (!strncmp(s, "Seccomp_filters:", 16))
			p->seccomp_filters = atoi(s + 16);
	}
}

/*
 * The image the process runs, as the kernel holds it: /proc/PID/exe opens
 * that inode even if its path was replaced since.
 */
static int hash_exe(int dirfd, char out[65])
{
	unsigned char md[FP_SHA256_LEN];
	struct stat st;
	int fd, ret = -EIO;

	out[0] = '\0';
	fd = openat(dirfd, "exe", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || fp_sha256_fd(fd, md))
		goto out;
	fp_hex(out, md, sizeof(md));
	ret = 0;
out:
	close(fd);
	return ret;
}

static int read_link(int dirfd, const char *name, struct fp_bytes *out)
{
	char buf[4096];
	ssize_t n = readlinkat(dirfd, name, buf, sizeof(buf));

	if (n < 0)
		return -errno;
	free(out->data);
	out->data = strndup(buf, n);
	out->len = out->data ? (size_t)n : 0;
	return out->data ? 0 : -ENOMEM;
}

static int add_inode(struct fp_shape_proc *p, uint64_t ino)
{
	uint64_t *n;

	if (p->nsock_inodes % 64 == 0) {
		n = realloc(p->sock_inodes,
			    (p->nsock_inodes + 64) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		p->sock_inodes = n;
	}
	p->sock_inodes[p->nsock_inodes++] = ino;
	return 0;
}

/* the inodes of the sockets the process holds, to own sock_diag's */
static int read_fds(struct fp_shape *s, struct fp_shape_proc *p, int dirfd)
{
	char link[64];
	unsigned long long ino;
	struct dirent *de;
	size_t seen = 0;
	ssize_t n;
	DIR *d;
	int fd;

	fd = openat(dirfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		fp_shape_note(s, "pid %d: its fds are unreadable", p->pid);
		return 0;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (++seen > FP_SHAPE_FDS_MAX) {
			fp_shape_note(s, "pid %d: more than %d fds", p->pid,
				      FP_SHAPE_FDS_MAX);
			break;
		}
		n = readlinkat(fd, de->d_name, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (sscanf(link, "socket:[%llu]", &ino) == 1 &&
		    add_inode(p, ino)) {
			closedir(d);
			return -ENOMEM;
		}
	}
	closedir(d);
	return 0;
}

static void read_ns(struct fp_shape_proc *p, int dirfd,
		    const struct fp_shape_ns *init_ns)
{
	char name[32];
	struct stat st;
	int i;

	for (i = 0; i < FP_NS_N; i++) {
		snprintf(name, sizeof(name), "ns/%s", fp_ns_names[i]);
		if (fstatat(dirfd, name, &st, 0))
			continue;
		p->ns[i].ino = st.st_ino;
		p->ns[i].known = init_ns && init_ns[i].ino;
		p->ns[i].differs =
			p->ns[i].known && init_ns[i].ino != st.st_ino;
	}
}

int fp_shape_init_ns(struct fp_shape_ns init[FP_NS_N])
{
	struct fp_shape_proc p = { 0 };
	int dirfd = open("/proc/1", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	memset(init, 0, FP_NS_N * sizeof(*init));
	if (dirfd < 0)
		return -errno;
	read_ns(&p, dirfd, NULL);
	close(dirfd);
	memcpy(init, p.ns, sizeof(p.ns));
	return init[FP_NS_MNT].ino ? 0 : -EACCES;
}

/* cgroup2's "0::PATH" line */
static void read_cgroup(struct fp_shape_proc *p, int dirfd)
{
	struct fp_bytes b = { 0 };
	char *l, *nl;

	if (fp_shape_slurp(dirfd, "cgroup", &b, 65536))
		return;
	for (l = b.data; l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(l, "0::", 3)) {
			p->cgroup.data = strdup(l + 3);
			p->cgroup.len = p->cgroup.data ? strlen(l + 3) : 0;
			break;
		}
	}
	free(b.data);
}

/* include/linux/sched.h; not exported to user space */
#define PF_KTHREAD 0x00200000UL

/* stat's field 9, after the name (which may hold spaces and parens) */
static bool kernel_thread(int dirfd)
{
	struct fp_bytes st = { 0 };
	unsigned long flags = 0;
	char *p;

	if (!fp_shape_slurp(dirfd, "stat", &st, 4096) &&
	    (p = strrchr(st.data, ')')))
		sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags);
	free(st.data);
	return flags & PF_KTHREAD;
}

/*
 * Everything comes through one /proc/PID directory fd: if the pid is
 * reused while we read, the reads fail (ESRCH) instead of describing
 * another process.
 */
int fp_shape_read_proc(struct fp_shape *s, struct fp_shape_proc *p, pid_t pid,
		       const struct fp_shape_ns *init_ns)
{
	struct fp_bytes status = { 0 };
	char path[32];
	int dirfd, ret;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->no_new_privs = -1;
	p->seccomp = -1;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	ret = fp_shape_slurp(dirfd, "status", &status, 1 << 20);
	if (ret)
		goto out;
	parse_status(p, status.data);
	/* a kernel thread runs no image: nothing is missing */
	if (kernel_thread(dirfd))
		goto out;
	if (read_link(dirfd, "exe", &p->exe) || hash_exe(dirfd, p->exe_sha256))
		fp_shape_note(s, "pid %d: its executable is unreadable", pid);
	if (fp_shape_slurp(dirfd, "cmdline", &p->argv, 256 * 1024))
		fp_shape_note(s, "pid %d: its command line is unreadable", pid);
	read_cgroup(p, dirfd);
	read_ns(p, dirfd, init_ns);
	ret = read_fds(s, p, dirfd);
	if (!ret)
		ret = fp_shape_read_mounts(s, p, dirfd);
out:
	free(status.data);
	close(dirfd);
	return ret;
}

void fp_shape_proc_free(struct fp_shape_proc *p)
{
	size_t i;

	free(p->exe.data);
	free(p->argv.data);
	free(p->cgroup.data);
	free(p->sock_inodes);
	for (i = 0; i < p->nlisteners; i++)
		free(p->listeners[i]);
	free(p->listeners);
	for (i = 0; i < p->nmounts; i++) {
		free(p->mounts[i].point.data);
		free(p->mounts[i].root.data);
		free(p->mounts[i].fstype.data);
		free(p->mounts[i].source.data);
	}
	free(p->mounts);
	memset(p, 0, sizeof(*p));
}
