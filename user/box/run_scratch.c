// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lockfile.h"
#include "run_scratch.h"
#include "snapshot_fs.h"

static char *fd_path(int fd)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

/* the upper layers must not lie in a lower one, nor a lower in DIR */
static int check_apart(const char *dir, char *const *paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!fp_path_under(dir, strlen(dir), paths[i],
				   strlen(paths[i])) &&
		    !fp_path_under(paths[i], strlen(paths[i]), dir,
				   strlen(dir)))
			continue;
		fprintf(stderr,
			"footprint: --scratch %s overlaps %s; put the scratch directory outside every root and tree it overlays\n",
			dir, paths[i]);
		return FP_EXIT_USAGE;
	}
	return 0;
}

/* DIR's real path before it is made: nothing may be made in a root */
static char *dir_before(const char *dir, const struct fp_creds *c)
{
	char *copy = strdup(dir), *slash, *parent, *out = NULL;
	const char *base;

	if (!copy || fp_creds_enter(c)) {
		free(copy);
		return NULL;
	}
	out = realpath(dir, NULL);
	slash = out ? NULL : strrchr(copy, '/');
	if (!out) {
		base = slash ? slash + 1 : copy;
		if (slash)
			*slash = '\0';
		parent = realpath(slash ? (*copy ? copy : "/") : ".", NULL);
		if (parent &&
		    asprintf(&out, "%s/%s", strcmp(parent, "/") ? parent : "",
			     base) < 0)
			out = NULL;
		free(parent);
	}
	fp_creds_leave(c);
	free(copy);
	return out;
}

static int resolve_also(const struct fp_box_opts *o, const struct fp_creds *c,
			char **out, size_t base)
{
	size_t i;
	int e;

	for (i = 0; i < o->nalso; i++) {
		e = fp_creds_enter(c);
		if (!e) {
			out[base + i] = realpath(o->also[i], NULL);
			e = out[base + i] ? 0 : errno;
			fp_creds_leave(c);
		}
		if (e) {
			fprintf(stderr,
				"footprint: --scratch-also %s: %s; give an existing directory\n",
				o->also[i], strerror(e));
			return FP_EXIT_USAGE;
		}
	}
	return 0;
}

int fp_run_scratch_open(struct fp_scratch *sc, const struct fp_box_opts *o,
			char *const *roots, size_t nroots,
			const struct fp_creds *c, char **dir_real,
			int *root_fds)
{
	char *paths[FP_SCRATCH_LAYERS] = { 0 };
	struct fp_scratch_args a = {
		.dir = o->scratch_dir,
		.paths = paths,
		.npaths = nroots + o->nalso,
		.hide = o->hide,
		.nhide = o->nhide,
		.no_network = o->no_network,
	};
	char err[1024];
	size_t i;
	int rc;

	memset(sc, 0, sizeof(*sc));
	sc->dirfd = -1;
	for (i = 0; i < nroots; i++)
		paths[i] = roots[i];
	rc = resolve_also(o, c, paths, nroots);
	if (!rc) {
		char *guess = dir_before(o->scratch_dir, c);

		rc = guess ? check_apart(guess, paths, a.npaths) : 0;
		free(guess);
	}
	if (!rc && fp_scratch_open(sc, &a, c, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		rc = FP_EXIT_USAGE;
	}
	if (!rc && !(*dir_real = fd_path(sc->dirfd)))
		rc = FP_EXIT_NOTRACE;
	if (!rc)
		rc = check_apart(*dir_real, paths, a.npaths);
	for (i = 0; !rc && i < nroots; i++)
		root_fds[i] = sc->layer[i].mnt;
	/* the layers keep their own copies of the paths they mount on */
	for (i = nroots; i < a.npaths; i++)
		if (!rc)
			sc->layer[i].path = paths[i];
		else
			free(paths[i]);
	return rc;
}

int fp_run_inputs_check(const struct fp_box_opts *o, const struct fp_creds *c)
{
	struct fp_jv il;
	const char *root;
	int rc = fp_lockfile_read(c, "the input lock", o->inputs_lock, &il);

	if (rc)
		return rc;
	rc = fp_lockfile_kind(&il, "inputs", o->inputs_lock);
	root = fp_jv_str(&il, "root");
	if (!rc && !root) {
		fprintf(stderr,
			"footprint: the input lock %s names no root; give one that footprint lock --inputs wrote\n",
			o->inputs_lock);
		rc = FP_EXIT_USAGE;
	}
	if (!rc)
		rc = fp_lockfile_check_inputs(&il, root, c);
	/* drift refuses the run like any other bad input */
	if (rc == 1)
		rc = FP_EXIT_USAGE;
	fp_jv_free(&il);
	return rc;
}
