// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lock.h"
#include "lockfile.h"
#include "userfile.h"

int fp_lockfile_read(const struct fp_creds *c, const char *what,
		     const char *path, struct fp_jv *out)
{
	char err[PATH_MAX + 256], *buf;
	char jerr[128];
	size_t len = 0;
	ssize_t n;
	int fd = fp_input_open(c, what, path, FP_LOCK_MAX_BYTES, err,
			       sizeof(err));

	if (fd < 0) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_USAGE;
	}
	buf = malloc(FP_LOCK_MAX_BYTES + 1);
	while (buf &&
	       (n = read(fd, buf + len, FP_LOCK_MAX_BYTES + 1 - len)) > 0 &&
	       len < FP_LOCK_MAX_BYTES)
		len += n;
	close(fd);
	if (!buf || len > FP_LOCK_MAX_BYTES) {
		fprintf(stderr,
			"footprint: %s %s is too large or memory ran out\n",
			what, path);
		free(buf);
		return FP_EXIT_USAGE;
	}
	if (fp_json_parse(buf, len, out, jerr, sizeof(jerr))) {
		fprintf(stderr,
			"footprint: %s %s is not valid JSON (%s); give the file footprint wrote\n",
			what, path, jerr);
		free(buf);
		return FP_EXIT_USAGE;
	}
	free(buf);
	return 0;
}

int fp_lockfile_kind(const struct fp_jv *v, const char *kind, const char *path)
{
	const char *k = fp_jv_str(v, "lock");
	const struct fp_jv *ver = fp_jv_get(v, "version");

	if (k && !strcmp(k, kind) && fp_jv_as_int(ver, 0) == 1)
		return 0;
	fprintf(stderr,
		"footprint: %s is no %s lock of version 1; give one that footprint lock%s wrote\n",
		path, kind, strcmp(kind, "inputs") ? " RECEIPT" : " --inputs");
	return FP_EXIT_USAGE;
}

int fp_lockfile_snapshot(struct fp_fs_snapshot *s, const char *root,
			 const struct fp_creds *c)
{
	struct fp_fs_opts o = { .creds = c, .rehash_all = true };
	char *roots[1] = { (char *)root };
	int e = fp_fs_snapshot(s, roots, 1, &o);

	if (e)
		fprintf(stderr, "footprint: cannot read the tree %s: %s\n",
			root, strerror(-e));
	return e ? FP_EXIT_USAGE : 0;
}

static int drift_line(const char *root, const char *rel, size_t len,
		      const char *what)
{
	fprintf(stderr,
		"footprint: the inputs drifted from the lock: %s/%.*s %s; restore it, or freeze the inputs again (footprint lock --inputs)\n",
		root, (int)len, rel, what);
	return 1;
}

/* 1 and a line if the locked entry f differs from e */
static int entry_drift(const struct fp_jv *f, const struct fp_fentry *e,
		       const char *root, const char *rel)
{
	const char *t = fp_jv_str(f, "type"), *h = fp_jv_str(f, "sha256");
	const struct fp_jv *m = fp_jv_get(f, "mode");
	const struct fp_jv *l = fp_jv_get(f, "target");
	char hex[65] = "";

	if (e->type == 'f' && e->hashed)
		fp_lock_hex(hex, e->sha256);
	if (!t || e->type != t[0] || fp_jv_as_int(m, -1) != e->mode ||
	    (e->type == 'f' && (!h || strcmp(h, hex))))
		return drift_line(root, rel, strlen(rel), "changed");
	/* a symlink pointed elsewhere is drift like a file's new content */
	if (e->type == 'l' &&
	    (!l || l->type != FP_JV_STR || l->len != e->target.len ||
	     memcmp(l->s, e->target.data, l->len)))
		return drift_line(root, rel, strlen(rel), "points elsewhere");
	return 0;
}

/* the lock's entries and the tree's, both in path byte order, merged */
static int merge_drift(const struct fp_jv *files,
		       const struct fp_fs_snapshot *s, const char *root)
{
	size_t rlen = strlen(root), skip = rlen + (rlen > 1), i = 0, k = 0;
	int c;

	while (i < s->n && s->e[i].path.len == rlen)
		i++;
	while (i < s->n || k < files->n) {
		const char *rel = k < files->n ?
					  fp_jv_str(&files->items[k], "path") :
					  NULL;
		const struct fp_fentry *e = i < s->n ? &s->e[i] : NULL;

		if (k < files->n && !rel) {
			fprintf(stderr,
				"footprint: the input lock holds a path that is not UTF-8, which --inputs-lock does not support yet; keep such paths out of the root\n");
			return FP_EXIT_USAGE;
		}
		if (!e)
			c = 1;
		else if (!rel)
			c = -1;
		else
			c = fp_bytes_cmp(e->path.data + skip,
					 e->path.len - skip, rel, strlen(rel));
		if (c < 0)
			return drift_line(root, e->path.data + skip,
					  e->path.len - skip, "is new");
		if (c > 0)
			return drift_line(root, rel, strlen(rel), "is gone");
		if (entry_drift(&files->items[k], e, root, rel))
			return 1;
		i++;
		k++;
	}
	return 0;
}

int fp_lockfile_check_inputs(const struct fp_jv *il, const char *root,
			     const struct fp_creds *c)
{
	const struct fp_jv *files = fp_jv_get(il, "files");
	struct fp_fs_snapshot s;
	int rc;

	if (!files || files->type != FP_JV_ARR) {
		fprintf(stderr,
			"footprint: the input lock has no files; give one that footprint lock --inputs wrote\n");
		return FP_EXIT_USAGE;
	}
	rc = fp_lockfile_snapshot(&s, root, c);
	if (rc)
		return rc;
	rc = merge_drift(files, &s, root);
	fp_fs_snapshot_free(&s);
	return rc;
}
