// SPDX-License-Identifier: GPL-2.0
/* Receipt, events and log: created for the invoking user (outputs.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "outputs.h"
#include "snapshot_fs.h"

int fp_output_prepare(struct fp_output *out, const struct fp_creds *c,
		      char *const *roots, size_t nroots)
{
	char err[PATH_MAX + 256];
	size_t i;

	out->fd = -1;
	out->dir.dirfd = -1;
	if (!out->path || !strcmp(out->path, "-"))
		return 0;
	if (fp_outdir_open(&out->dir, c, out->what, out->path, err,
			   sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_USAGE;
	}
	for (i = 0; i < nroots; i++) {
		if (fp_path_under(out->dir.real, strlen(out->dir.real),
				  roots[i], strlen(roots[i]))) {
			fprintf(stderr,
				"footprint: %s %s is inside the watched root %s; write it elsewhere (e.g. /tmp)\n",
				out->what, out->path, roots[i]);
			return FP_EXIT_USAGE;
		}
	}
	return 0;
}

int fp_output_create(struct fp_output *out, const struct fp_creds *c,
		     bool replace)
{
	char err[PATH_MAX + 256];

	out->fd = fp_outdir_create(&out->dir, c, out->what, out->path, replace,
				   err, sizeof(err));
	if (out->fd < 0)
		fprintf(stderr, "%s\n", err);
	return out->fd;
}

FILE *fp_output_stream(struct fp_output *out, const struct fp_creds *c)
{
	FILE *f;

	if (!strcmp(out->path, "-"))
		return stdout;
	if (fp_output_create(out, c, true) < 0)
		return NULL;
	f = fdopen(out->fd, "w");
	if (!f)
		fprintf(stderr, "footprint: out of memory\n");
	return f;
}

void fp_output_hand_over(struct fp_output *outs, size_t n, uid_t uid, gid_t gid,
			 const char *name)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (outs[i].fd >= 0 && fchown(outs[i].fd, uid, gid))
			fprintf(stderr,
				"footprint: cannot give %s to %s: %s; it stays root's\n",
				outs[i].path, name, strerror(errno));
	}
}

void fp_output_discard(struct fp_output *out, const struct fp_creds *c)
{
	struct stat mine, there;

	if (out->fd < 0 || fstat(out->fd, &mine) || fp_creds_enter(c))
		return;
	if (!fstatat(out->dir.dirfd, out->dir.base, &there,
		     AT_SYMLINK_NOFOLLOW) &&
	    there.st_dev == mine.st_dev && there.st_ino == mine.st_ino)
		unlinkat(out->dir.dirfd, out->dir.base, 0);
	fp_creds_leave(c);
}

void fp_output_discard_empty(struct fp_output *out, const struct fp_creds *c)
{
	struct stat st;

	if (out->fd >= 0 && !fstat(out->fd, &st) && !st.st_size)
		fp_output_discard(out, c);
}

void fp_output_close(struct fp_output *out)
{
	fp_outdir_close(&out->dir);
}
