// SPDX-License-Identifier: GPL-2.0
/* The daemon's files in the state directory (sidecar.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sidecar.h"

/* No daemon's file is there (a journal may be): a directory no sidecar
 * used, or one from before footprint kept a journal if not. */
bool fp_sidecar_state_empty(int statefd)
{
	static const char *const files[] = { FP_SIDECAR_CTL, FP_SIDECAR_PID,
					     FP_SIDECAR_LOG, FP_SIDECAR_LOG_ID,
					     FP_SIDECAR_ROOTS };
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (!fstatat(statefd, files[i], &st, AT_SYMLINK_NOFOLLOW))
			return false;
	return true;
}

/*
 * The one writer of the daemon's files in the state directory: name made
 * anew (root's, 0600, never through a link) and written whole. 0, or
 * -errno after one line: a stop that cannot find them cannot fail closed,
 * so the daemon does not start without them.
 */
static int state_write(int statefd, const char *name, const char *buf,
		       size_t len)
{
	int fd = openat(statefd, name,
			O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
			0600);
	size_t off = 0;
	ssize_t n;
	int e = 0;

	if (fd < 0)
		e = -errno;
	while (!e && off < len) {
		n = write(fd, buf + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			e = n < 0 ? -errno : -EIO;
		else
			off += n;
	}
	if (fd >= 0 && close(fd) && !e)
		e = -errno;
	if (e)
		fprintf(stderr,
			"footprint: cannot write %s in the state directory: %s; the sidecar did not start\n",
			name, strerror(-e));
	return e;
}

/*
 * Where --record put the log, for a stop that finds the daemon dead: the
 * file's device and inode, then its path.
 */
int fp_sidecar_write_log_id(int statefd, struct fp_session *s)
{
	struct fp_output *log = &s->outs[FP_OUT_LOG];
	struct stat st;
	char *buf;
	int n, ret;

	if (fstat(s->log.w.fd, &st)) {
		ret = -errno;
		fprintf(stderr,
			"footprint: cannot stat the log %s: %s; the sidecar did not start\n",
			s->o.record_path, strerror(-ret));
		return ret;
	}
	n = asprintf(&buf, "%llu %llu\n%s/%s", (unsigned long long)st.st_dev,
		     (unsigned long long)st.st_ino, log->dir.real,
		     log->dir.base);
	if (n < 0) {
		fprintf(stderr, "footprint: out of memory\n");
		return -ENOMEM;
	}
	ret = state_write(statefd, FP_SIDECAR_LOG_ID, buf, n);
	free(buf);
	return ret;
}

/* The daemon's pid, and its cgroup's procs, for stop to move into. */
int fp_sidecar_write_pidfile(int statefd, const struct fp_cgroup *cg)
{
	char buf[sizeof(cg->path) + 64];
	int n = snprintf(buf, sizeof(buf), "%d\n%s/cgroup.procs\n",
			 (int)getpid(), cg->path);

	return state_write(statefd, FP_SIDECAR_PID, buf, n);
}

/* The watched roots, NUL-separated, for stop: an output there would be
 * a change of the job's. */
int fp_sidecar_write_roots(int statefd, char *const *roots, size_t n)
{
	size_t i, len = 0, off = 0;
	char *buf;
	int ret;

	for (i = 0; i < n; i++)
		len += strlen(roots[i]) + 1;
	buf = malloc(len ? len : 1);
	if (!buf) {
		fprintf(stderr, "footprint: out of memory\n");
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		memcpy(buf + off, roots[i], strlen(roots[i]) + 1);
		off += strlen(roots[i]) + 1;
	}
	ret = state_write(statefd, FP_SIDECAR_ROOTS, buf, len);
	free(buf);
	return ret;
}

size_t fp_sidecar_read_roots(int statefd, char *buf, size_t len, char **roots,
			     size_t max)
{
	int fd = openat(statefd, FP_SIDECAR_ROOTS,
			O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;
	size_t i, k = 0;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (i = 0; i < (size_t)n && k < max; i += strlen(buf + i) + 1)
		roots[k++] = buf + i;
	return k;
}
