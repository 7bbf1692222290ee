// SPDX-License-Identifier: GPL-2.0
/* Who is on the other end of the control socket (sidecar_peer.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sidecar_peer.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5, asm-generic */
#endif

/* how far up from a peer footprint and sudo are looked for */
#define MAX_HOPS 16
/* the most of an environment read: loader variables come first in
 * practice, but a hostile one may pad; past this it is not clean */
#define ENV_MAX (256 * 1024)

void fp_sc_id(char *buf, pid_t pid, uint64_t ticks)
{
	snprintf(buf, FP_SC_ID_LEN, "%d:%" PRIu64, (int)pid, ticks);
}

int fp_sc_id_parse(const char *s, pid_t *pid, uint64_t *ticks)
{
	char *end;
	long p;

	errno = 0;
	p = strtol(s, &end, 10);
	if (errno || end == s || *end != ':' || p <= 0 || p > 0x3fffffff)
		return -EINVAL;
	s = end + 1;
	*ticks = strtoull(s, &end, 10);
	if (errno || end == s || *end)
		return -EINVAL;
	*pid = p;
	return 0;
}

int fp_sc_self_init(struct fp_sc_self *self)
{
	struct stat st;

	memset(self, 0, sizeof(*self));
	if (stat("/proc/self/exe", &st))
		return -errno;
	self->exe_dev = st.st_dev;
	self->exe_ino = st.st_ino;
	/* the system's sudo: a root-owned file only root can replace */
	if (!stat("/usr/bin/sudo", &st) && st.st_uid == 0 &&
	    S_ISREG(st.st_mode)) {
		self->have_sudo = true;
		self->sudo_dev = st.st_dev;
		self->sudo_ino = st.st_ino;
	}
	self->start_ticks = fp_proc_start_ticks(getpid());
	return self->start_ticks ? 0 : -ESRCH;
}

/* the "0::/path" line of /proc/PID/cgroup, NUL-terminated, or "" */
static void cgroup_line(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(buf, len, f))
		if (!strncmp(buf, "0::", 3))
			break;
	if (strncmp(buf, "0::", 3))
		buf[0] = '\0';
	fclose(f);
}

int fp_sc_self_cgroup(struct fp_sc_self *self)
{
	cgroup_line(getpid(), self->cgroup, sizeof(self->cgroup));
	return self->cgroup[0] ? 0 : -ENOENT;
}

/* 1 footprint, 2 sudo, 0 other or gone */
static int exe_kind(pid_t pid, const struct fp_sc_self *self)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st))
		return 0;
	if (st.st_dev == self->exe_dev && st.st_ino == self->exe_ino)
		return 1;
	if (self->have_sudo && st.st_dev == self->sudo_dev &&
	    st.st_ino == self->sudo_ino)
		return 2;
	return 0;
}

static bool traced_by_someone(pid_t pid)
{
	char path[64], line[256];
	bool found = true; /* unreadable: assume the worst */
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return true;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "TracerPid:", 10)) {
			found = strtol(line + 10, NULL, 10) != 0;
			break;
		}
	}
	fclose(f);
	return found;
}

/* what can put foreign code in a process as ld.so and glibc start it */
static bool loader_var(const char *v, size_t len)
{
	static const char *const names[] = {
		"LD_",
		"GCONV_PATH=",
		"GLIBC_TUNABLES=",
		"LOCPATH=",
	};
	size_t i, n;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		n = strlen(names[i]);
		if (len >= n && !memcmp(v, names[i], n))
			return true;
	}
	return false;
}

/* Reads /proc/PID/environ whole into a malloc'd buffer, *len bytes. */
static char *read_environ(pid_t pid, size_t *len)
{
	char path[64], *buf;
	size_t have = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(ENV_MAX + 1);
	while (buf && have < ENV_MAX &&
	       (n = read(fd, buf + have, ENV_MAX - have)) > 0)
		have += n;
	close(fd);
	if (buf && have >= ENV_MAX) {
		free(buf);
		return NULL;
	}
	if (buf) {
		buf[have] = '\0';
		*len = have;
	}
	return buf;
}

static bool clean_environ(pid_t pid)
{
	size_t len = 0, i, n;
	char *env = read_environ(pid, &len);
	bool clean = env != NULL;

	for (i = 0; clean && i < len; i += n + 1) {
		n = strnlen(env + i, len - i);
		if (loader_var(env + i, n))
			clean = false;
	}
	free(env);
	return clean;
}

int fp_proc_getenv(pid_t pid, const char *name, char *buf, size_t len)
{
	size_t elen = 0, i, n, k = strlen(name);
	char *env = read_environ(pid, &elen);
	int ret = -ENOENT;

	if (!env)
		return -EIO;
	for (i = 0; i < elen; i += n + 1) {
		n = strnlen(env + i, elen - i);
		if (n > k && !memcmp(env + i, name, k) && env[i + k] == '=') {
			snprintf(buf, len, "%.*s", (int)(n - k - 1),
				 env + i + k + 1);
			ret = 0;
			break;
		}
	}
	free(env);
	return ret;
}

/* the pidfd's process has not exited: what /proc said was about it */
static bool still_there(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

/* The footprint and sudo processes above p->pid, while they are alive. */
static void own_ancestors(struct fp_sc_peer *p, const struct fp_sc_self *self)
{
	pid_t pid = p->ppid;
	int hops, kind, fd;

	for (hops = 0; hops < MAX_HOPS && pid > 1 && p->nown < FP_CTL_MAX_OWN;
	     hops++) {
		fd = syscall(SYS_pidfd_open, pid, 0);
		if (fd < 0)
			return;
		kind = exe_kind(pid, self);
		/* a footprint above must be clean too: it is the same trust */
		if (kind == 1 &&
		    (traced_by_someone(pid) || !clean_environ(pid)))
			kind = 0;
		if (!kind || !still_there(fd)) {
			close(fd);
			return;
		}
		p->own[p->nown++] = pid;
		pid = fp_proc_ppid(pid);
		close(fd);
	}
}

/* What /proc says of p->pid, checked against pidfd (-1: none). */
static int identify(int pidfd, const struct fp_sc_self *self,
		    struct fp_sc_peer *p)
{
	if (fp_proc_stat(p->pid, &p->ppid, &p->start_ticks))
		return -ESRCH;
	p->footprint = exe_kind(p->pid, self) == 1;
	p->clean = p->footprint && !traced_by_someone(p->pid) &&
		   clean_environ(p->pid);
	if (self->cgroup[0]) {
		char cg[sizeof(self->cgroup)];

		cgroup_line(p->pid, cg, sizeof(cg));
		p->in_cgroup = !strcmp(cg, self->cgroup);
	}
	if (pidfd >= 0 && !still_there(pidfd)) {
		p->footprint = p->clean = p->in_cgroup = false;
		return -ESRCH;
	}
	if (p->footprint && p->clean) {
		p->own[p->nown++] = p->pid;
		own_ancestors(p, self);
	}
	return 0;
}

void fp_sc_peer_identify(int conn, const struct fp_sc_self *self,
			 struct fp_sc_peer *p)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);
	int pidfd = -1;

	memset(p, 0, sizeof(*p));
	if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &uc, &len) || !uc.pid)
		return;
	p->pid = uc.pid;
	p->uid = uc.uid;
	/* the very process that connected, not a later one with its pid */
	len = sizeof(pidfd);
	if (getsockopt(conn, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len))
		pidfd = syscall(SYS_pidfd_open, p->pid, 0);
	if (pidfd < 0 || identify(pidfd, self, p)) {
		/* gone already: nothing it says is footprint's */
		p->footprint = p->clean = false;
		p->nown = 0;
	}
	if (pidfd >= 0)
		close(pidfd);
}

int fp_sc_pid_identify(pid_t pid, const struct fp_sc_self *self,
		       struct fp_sc_peer *p)
{
	int pidfd = syscall(SYS_pidfd_open, pid, 0), ret;
	char path[64];
	struct stat st;

	memset(p, 0, sizeof(*p));
	if (pidfd < 0)
		return -ESRCH;
	p->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (!stat(path, &st))
		p->uid = st.st_uid;
	ret = identify(pidfd, self, p);
	close(pidfd);
	return ret;
}
