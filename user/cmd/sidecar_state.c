// SPDX-License-Identifier: GPL-2.0
/* The sidecar's state directory and its control socket (sidecar_cmd.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "sidecar.h"

#include "sidecar_cmd.h"

/* A directory of root's that no one else may write: 0, or -EPERM. */
static int roots_alone(int fd)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022))
		return -EPERM;
	return 0;
}

/*
 * The default state directory, /run/footprint/sidecar-UID: one per
 * invoking user, so that two users of one runner never share one and
 * each finds their own without --state. Every level is root's, opened
 * from the one above through no link; start makes what is missing, as
 * root (no user may write there, so no user can plant anything).
 */
static int open_default(const char *path, uid_t uid, bool make)
{
	char name[32];
	int run, top = -1, fd = -1;

	snprintf(name, sizeof(name), "sidecar-%u", (unsigned int)uid);
	run = open("/run", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (run < 0 || roots_alone(run))
		goto cleanup;
	if (make && mkdirat(run, "footprint", 0755) && errno != EEXIST)
		goto cleanup;
	top = openat(run, "footprint",
		     O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (top < 0)
		goto cleanup;
	if (roots_alone(top)) {
		fprintf(stderr,
			"footprint: /run/footprint is not root's alone (or not a directory); remove it\n");
		errno = EPERM;
		goto cleanup;
	}
	if (make && mkdirat(top, name, 0711) && errno != EEXIST)
		goto cleanup;
	fd = openat(top, name,
		    (make ? O_RDONLY : O_PATH) | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
cleanup:
	if (fd < 0)
		fprintf(stderr,
			"footprint: cannot %s the state directory %s: %s%s\n",
			make ? "make" : "open", path, strerror(errno),
			make ? "" :
			       "; is the sidecar started (sudo footprint sidecar start)?");
	if (top >= 0)
		close(top);
	if (run >= 0)
		close(run);
	return fd;
}

/* a --state the user named: its parent opened as the user, through no
 * link; made (as the user) when missing, then root's */
static int open_named(const char *path, const struct fp_creds *c, bool make)
{
	char err[PATH_MAX + 256];
	struct fp_outdir d;
	struct stat st;
	int fd = -1, ret;

	if (fp_outdir_open(&d, make ? c : NULL, "the state directory", path,
			   err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	if (make && !fp_creds_enter(c)) {
		ret = mkdirat(d.dirfd, d.base, 0711);
		fp_creds_leave(c);
		if (ret && errno != EEXIST) {
			fprintf(stderr,
				"footprint: cannot make the state directory %s: %s\n",
				path, strerror(errno));
			goto cleanup;
		}
	}
	/* O_PATH: search permission is all anyone but root has */
	fd = openat(d.dirfd, d.base,
		    (make ? O_RDONLY : O_PATH) | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr,
			"footprint: cannot open the state directory %s: %s; is the sidecar started (sudo footprint sidecar start)?\n",
			path, strerror(errno));
		goto cleanup;
	}
	/* a directory the user made there is not ours until it is root's */
	if (make && !fstat(fd, &st) && st.st_uid != 0 &&
	    (fchown(fd, 0, 0) || fchmod(fd, 0711)))
		fprintf(stderr, "footprint: cannot make %s root's: %s\n", path,
			strerror(errno));
cleanup:
	fp_outdir_close(&d);
	return fd;
}

/*
 * The state directory, root's and 0711 (anyone may ask for status, only
 * root may stop or read the log), made when missing, refused when it is
 * anything else. An fd on it, or -1 after one line.
 */
int sidecar_open_state(const struct sidecar_opts *o, const struct fp_creds *c,
		       bool make)
{
	struct stat st;
	int fd = o->default_state ? open_default(o->state, o->state_uid, make) :
				    open_named(o->state, c, make);

	if (fd >= 0 &&
	    (fstat(fd, &st) || st.st_uid != 0 || (st.st_mode & 066))) {
		fprintf(stderr,
			"footprint: the state directory %s is not root's alone; remove it or pick another --state\n",
			o->state);
		close(fd);
		fd = -1;
	}
	return fd;
}
