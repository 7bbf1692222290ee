// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "creds.h"
#include "scratch.h"

/* a user-named path, as the caller's fs identity, through no symlink */
static int open_nolink(int dirfd, const char *path, unsigned long flags)
{
	struct open_how how = {
		.flags = flags | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};

	return syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

/* DIR/N/upper and DIR/N/work; -EEXIST when an earlier run left N */
static int make_layer_dirs(int dirfd, size_t n, int *upper, int *work)
{
	char name[32];

	snprintf(name, sizeof(name), "%zu", n);
	if (mkdirat(dirfd, name, 0700))
		return -errno;
	snprintf(name, sizeof(name), "%zu/upper", n);
	if (mkdirat(dirfd, name, 0755))
		return -errno;
	*upper = open_nolink(dirfd, name, O_PATH | O_DIRECTORY);
	snprintf(name, sizeof(name), "%zu/work", n);
	if (*upper < 0 || mkdirat(dirfd, name, 0700))
		return -errno;
	*work = open_nolink(dirfd, name, O_PATH | O_DIRECTORY);
	return *work < 0 ? -errno : 0;
}

/*
 * userxattr: the overlay's own marks (opaque directories) are user.*
 * xattrs, so that promote, run by the user without root, reads them.
 */
static int mount_overlay(int lower, int upper, int work)
{
	int fs = fsopen("overlay", FSOPEN_CLOEXEC), mnt = -1, e;

	if (fs < 0)
		return -errno;
	if (fsconfig(fs, FSCONFIG_SET_FD, "lowerdir+", NULL, lower) ||
	    fsconfig(fs, FSCONFIG_SET_FD, "upperdir", NULL, upper) ||
	    fsconfig(fs, FSCONFIG_SET_FD, "workdir", NULL, work) ||
	    fsconfig(fs, FSCONFIG_SET_FLAG, "userxattr", NULL, 0) ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		goto out;
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, 0);
out:
	e = errno;
	close(fs);
	return mnt < 0 ? -e : mnt;
}

/* An empty tmpfs no one may enter, or a mode-0 file of one. */
static int mount_hide(bool dir)
{
	int fs = fsopen("tmpfs", FSOPEN_CLOEXEC), mnt = -1, fd, e;

	if (fs < 0)
		return -errno;
	if (fsconfig(fs, FSCONFIG_SET_STRING, "mode", dir ? "0" : "0755", 0) ||
	    fsconfig(fs, FSCONFIG_SET_STRING, "size", "64k", 0) ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		goto out;
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, dir ? MOUNT_ATTR_RDONLY : 0);
	if (mnt < 0 || dir)
		goto out;
	fd = openat(mnt, "hidden", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0);
	if (fd >= 0) {
		close(fd);
		fd = open_tree(mnt, "hidden",
			       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	}
	e = errno;
	close(mnt);
	errno = e;
	mnt = fd;
out:
	e = errno;
	close(fs);
	return mnt < 0 ? -e : mnt;
}

static int open_dir_as(const struct fp_creds *c, const char *path, bool create)
{
	int fd, e = fp_creds_enter(c);

	if (e)
		return e;
	if (create && mkdir(path, 0700) && errno != EEXIST)
		fd = -1;
	else
		fd = open_nolink(AT_FDCWD, path, O_PATH | O_DIRECTORY);
	e = fd < 0 ? -errno : fd;
	fp_creds_leave(c);
	return e;
}

static int open_layer(struct fp_scratch *sc, const char *path,
		      const struct fp_creds *c, char *err, size_t errlen)
{
	struct fp_scratch_layer *l = &sc->layer[sc->nlayers];
	int lower, upper = -1, work = -1, e;

	lower = open_dir_as(c, path, false);
	if (lower < 0) {
		snprintf(
			err, errlen,
			"footprint: --scratch: cannot open %s as %s: %s; give an existing directory without symbolic links",
			path, c->active ? c->name : "root", strerror(-lower));
		return lower;
	}
	e = fp_creds_enter(c);
	if (!e) {
		e = make_layer_dirs(sc->dirfd, sc->nlayers, &upper, &work);
		fp_creds_leave(c);
	}
	if (e)
		snprintf(
			err, errlen,
			"footprint: --scratch: cannot make %zu/upper and %zu/work in the scratch directory: %s; give an empty or new directory that you may write",
			sc->nlayers, sc->nlayers, strerror(-e));
	else if ((e = mount_overlay(lower, upper, work)) < 0)
		snprintf(
			err, errlen,
			"footprint: --scratch: cannot mount an overlay on %s: %s; the scratch directory must be on another filesystem than overlayfs, outside every root",
			path, strerror(-e));
	else
		l->mnt = e;
	close(lower);
	if (upper >= 0)
		close(upper);
	if (work >= 0)
		close(work);
	if (e < 0)
		return e;
	l->path = path;
	sc->nlayers++;
	return 0;
}

static int open_hide(struct fp_scratch *sc, const char *path,
		     const struct fp_creds *c, char *err, size_t errlen)
{
	struct fp_scratch_hide *h = &sc->hide[sc->nhide];
	struct stat st;
	int fd, e = fp_creds_enter(c);

	if (e)
		return e;
	fd = open_nolink(AT_FDCWD, path, O_PATH | O_NOFOLLOW);
	e = fd < 0 || fstat(fd, &st) ? -errno : 0;
	fp_creds_leave(c);
	if (fd >= 0)
		close(fd);
	if (e) {
		snprintf(
			err, errlen,
			"footprint: --hide %s: %s; give an existing path without symbolic links",
			path, strerror(-e));
		return e;
	}
	h->dir = S_ISDIR(st.st_mode);
	h->mnt = mount_hide(h->dir);
	if (h->mnt < 0) {
		snprintf(err, errlen, "footprint: --hide %s: %s", path,
			 strerror(-h->mnt));
		return h->mnt;
	}
	h->path = path;
	sc->nhide++;
	return 0;
}

int fp_scratch_open(struct fp_scratch *sc, const struct fp_scratch_args *a,
		    const struct fp_creds *c, char *err, size_t errlen)
{
	size_t i;
	int e = 0;

	memset(sc, 0, sizeof(*sc));
	sc->no_network = a->no_network;
	if (!getcwd(sc->cwd, sizeof(sc->cwd)))
		sc->cwd[0] = '\0';
	sc->as_user = c->active;
	sc->uid = c->uid;
	sc->gid = c->gid;
	sc->groups = c->groups;
	sc->ngroups = c->ngroups;
	sc->dirfd = open_dir_as(c, a->dir, true);
	if (sc->dirfd < 0) {
		snprintf(
			err, errlen,
			"footprint: --scratch %s: %s; give a directory you may write, without symbolic links",
			a->dir, strerror(-sc->dirfd));
		return sc->dirfd;
	}
	if (a->npaths > FP_SCRATCH_LAYERS || a->nhide > FP_SCRATCH_HIDES) {
		snprintf(err, errlen, "footprint: --scratch: too many trees");
		return -E2BIG;
	}
	for (i = 0; !e && i < a->npaths; i++)
		e = open_layer(sc, a->paths[i], c, err, errlen);
	for (i = 0; !e && i < a->nhide; i++)
		e = open_hide(sc, a->hide[i], c, err, errlen);
	return e;
}

void fp_scratch_close(struct fp_scratch *sc)
{
	size_t i;

	for (i = 0; i < sc->nlayers; i++)
		close(sc->layer[i].mnt);
	for (i = 0; i < sc->nhide; i++)
		close(sc->hide[i].mnt);
	if (sc->dirfd >= 0)
		close(sc->dirfd);
	sc->nlayers = sc->nhide = 0;
	sc->dirfd = -1;
}
