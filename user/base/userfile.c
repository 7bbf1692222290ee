// SPDX-License-Identifier: GPL-2.0
/* Outputs and inputs opened with the invoking user's rights, no links. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "userfile.h"

#define NO_LINKS (RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

static int open_nolinks(int dirfd, const char *path, int flags)
{
	struct open_how how = {
		.flags = flags | O_CLOEXEC,
		.resolve = NO_LINKS,
	};
	long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

static const char *why(int e)
{
	switch (e) {
	case ELOOP:
		return "a component is a symbolic link, and footprint follows none; give the real path";
	case EACCES:
	case EPERM:
		return "permission denied (footprint opens it with your rights, not root's)";
	case ENOENT:
		return "no such file or directory";
	case EISDIR:
		return "it is a directory";
	case EXDEV:
		return "it crosses a magic link";
	default:
		return strerror(e);
	}
}

static char *fd_path(int fd)
{
	char link[64], buf[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n < 0 || n == sizeof(buf) - 1)
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

int fp_outdir_open(struct fp_outdir *d, const struct fp_creds *c,
		   const char *what, const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char *dir = NULL;
	int ret;

	memset(d, 0, sizeof(*d));
	d->dirfd = -1;
	d->base = strdup(slash ? slash + 1 : path);
	dir = slash ? strndup(path, slash == path ? 1 : slash - path) :
		      strdup(".");
	if (!d->base || !dir) {
		ret = -ENOMEM;
		snprintf(err, errlen, "footprint: out of memory");
		goto cleanup;
	}
	if (!*d->base || !strcmp(d->base, ".") || !strcmp(d->base, "..")) {
		ret = -EISDIR;
		snprintf(
			err, errlen,
			"footprint: cannot write %s to %s: that names a directory; give a file name",
			what, path);
		goto cleanup;
	}
	ret = fp_creds_enter(c);
	if (!ret) {
		ret = open_nolinks(AT_FDCWD, dir, O_PATH | O_DIRECTORY);
		fp_creds_leave(c);
	}
	if (ret < 0) {
		snprintf(
			err, errlen,
			"footprint: cannot write %s to %s: its directory %s: %s",
			what, path, dir, why(-ret));
		goto cleanup;
	}
	d->dirfd = ret;
	d->real = fd_path(d->dirfd);
	ret = d->real ? 0 : -ENAMETOOLONG;
	if (ret)
		snprintf(
			err, errlen,
			"footprint: cannot write %s to %s: its directory's path is too long; pick a shorter one",
			what, path);
cleanup:
	free(dir);
	if (ret)
		fp_outdir_close(d);
	return ret;
}

/* a new file, as the user; replaced over d->base when asked */
static int create_as_user(struct fp_outdir *d, bool replace)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	char tmp[64];
	unsigned int r, tries;
	int fd;

	struct stat st;

	fd = openat(d->dirfd, d->base, flags, 0600);
	if (fd >= 0 || errno != EEXIST || !replace)
		return fd >= 0 ? fd : -errno;
	/* a file or a link is replaced; /dev/null or a FIFO never is */
	if (fstatat(d->dirfd, d->base, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return -ENOTSUP;
	/* rename replaces what is there, link or file, without following it */
	for (tries = 0; tries < 16; tries++) {
		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (unsigned int)getpid() * 2654435761u + tries;
		snprintf(tmp, sizeof(tmp), ".footprint-%08x.tmp", r);
		fd = openat(d->dirfd, tmp, flags, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		return -errno;
	if (renameat(d->dirfd, tmp, d->dirfd, d->base)) {
		int e = errno;

		unlinkat(d->dirfd, tmp, 0);
		close(fd);
		return -e;
	}
	return fd;
}

int fp_outdir_create(struct fp_outdir *d, const struct fp_creds *c,
		     const char *what, const char *path, bool replace,
		     char *err, size_t errlen)
{
	int fd, ret;

	ret = fp_creds_enter(c);
	if (ret)
		goto fail;
	fd = create_as_user(d, replace);
	fp_creds_leave(c);
	if (fd < 0) {
		ret = fd;
		goto fail;
	}
	/* ours for the run: the command, running as the user, cannot write
	 * or truncate it; handed back when the run is over */
	if (fchown(fd, geteuid(), getegid())) {
		ret = -errno;
		close(fd);
		goto fail;
	}
	return fd;
fail:
	if (ret == -ENOTSUP)
		snprintf(
			err, errlen,
			"footprint: %s exists and is not a regular file; give a file path for %s, or - for stdout",
			path, what);
	else if (ret == -EEXIST)
		snprintf(
			err, errlen,
			"footprint: %s exists; pick another path for %s or add --force",
			path, what);
	else
		snprintf(err, errlen, "footprint: cannot write %s to %s: %s",
			 what, path, why(-ret));
	return ret;
}

void fp_outdir_close(struct fp_outdir *d)
{
	if (d->dirfd >= 0)
		close(d->dirfd);
	free(d->base);
	free(d->real);
	memset(d, 0, sizeof(*d));
	d->dirfd = -1;
}

int fp_input_open(const struct fp_creds *c, const char *what, const char *path,
		  size_t max, char *err, size_t errlen)
{
	struct stat st;
	int fd, ret;

	ret = fp_creds_enter(c);
	if (ret) {
		fd = ret;
	} else {
		/* O_NONBLOCK: a FIFO must not hang us before fstat refuses it */
		fd = open_nolinks(AT_FDCWD, path,
				  O_RDONLY | O_NONBLOCK | O_NOCTTY);
		fp_creds_leave(c);
	}
	if (fd < 0) {
		snprintf(err, errlen, "footprint: cannot read %s %s: %s", what,
			 path, why(-fd));
		return fd;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen,
			 "footprint: cannot read %s %s: not a regular file",
			 what, path);
		close(fd);
		return -EINVAL;
	}
	if ((size_t)st.st_size > max) {
		snprintf(err, errlen,
			 "footprint: %s %s is larger than %zu MiB; split it",
			 what, path, max >> 20);
		close(fd);
		return -EFBIG;
	}
	/* reads may block from here on, as on any regular file */
	fcntl(fd, F_SETFL, 0);
	return fd;
}

FILE *fp_outdir_fopen(const char *what, const char *path)
{
	struct fp_outdir d;
	char err[PATH_MAX + 256];
	FILE *f = NULL;
	int fd;

	if (!path || !strcmp(path, "-"))
		return stdout;
	if (fp_outdir_open(&d, NULL, what, path, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return NULL;
	}
	fd = fp_outdir_create(&d, NULL, what, path, true, err, sizeof(err));
	if (fd < 0)
		fprintf(stderr, "%s\n", err);
	else if (!(f = fdopen(fd, "w")))
		close(fd);
	fp_outdir_close(&d);
	return f;
}

int fp_outdir_fclose(FILE *f, const char *what, const char *path)
{
	int err = fflush(f) ? errno : 0;

	/* closed even when the flush failed: the fd is not left behind */
	if (f != stdout && fclose(f) && !err)
		err = errno;
	if (!err)
		return 0;
	fprintf(stderr, "footprint: writing %s to %s failed: %s\n", what,
		path ? path : "-", strerror(err));
	return -1;
}

/* mkdir -p of path as the calling thread's user, one component at a
 * time under the one before, never following a link */
static int make_dirs(const char *path)
{
	char *copy = strdup(path), *comp, *save = NULL;
	int dirfd, fd, ret = 0;

	if (!copy)
		return -ENOMEM;
	dirfd = open_nolinks(AT_FDCWD, *path == '/' ? "/" : ".",
			     O_PATH | O_DIRECTORY);
	for (comp = strtok_r(copy, "/", &save); comp && dirfd >= 0 && !ret;
	     comp = strtok_r(NULL, "/", &save)) {
		if (mkdirat(dirfd, comp, 0700) && errno != EEXIST)
			ret = -errno;
		fd = ret ? -1 : open_nolinks(dirfd, comp, O_PATH | O_DIRECTORY);
		if (!ret && fd < 0)
			ret = fd;
		close(dirfd);
		dirfd = fd;
	}
	if (dirfd >= 0)
		close(dirfd);
	else if (!ret)
		ret = dirfd;
	free(copy);
	return ret;
}

int fp_userdir_open(const struct fp_creds *c, const char *what,
		    const char *path, bool create, char *err, size_t errlen)
{
	int fd, ret = fp_creds_enter(c);

	if (ret) {
		fd = ret;
	} else {
		fd = create ? make_dirs(path) : 0;
		if (fd >= 0)
			fd = open_nolinks(AT_FDCWD, path,
					  O_RDONLY | O_DIRECTORY);
		fp_creds_leave(c);
	}
	if (fd < 0)
		snprintf(err, errlen, "footprint: cannot %s %s %s: %s",
			 create ? "make" : "open", what, path, why(-fd));
	return fd;
}
