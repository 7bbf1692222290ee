// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lock.h"
#include "lockfile.h"
#include "lockjv.h"
#include "say_bytes.h"
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
			what, fp_said(path));
		free(buf);
		return FP_EXIT_USAGE;
	}
	if (fp_json_parse(buf, len, out, jerr, sizeof(jerr))) {
		fprintf(stderr,
			"footprint: %s %s is not valid JSON (%s); give the file footprint wrote\n",
			what, fp_said(path), jerr);
		free(buf);
		return FP_EXIT_USAGE;
	}
	free(buf);
	return 0;
}

int fp_lockfile_kind(const struct fp_jv *v, const char *kind, const char *path)
{
	const char *k = fp_jv_str(v, "lock");
	int64_t ver = fp_jv_as_int(fp_jv_get(v, "version"), 0);

	if (k && !strcmp(k, kind) && ver >= 1 && ver <= FP_LOCK_VERSION)
		return 0;
	fprintf(stderr,
		"footprint: %s is no %s lock of version 1 or %d; give one that footprint lock%s wrote\n",
		fp_said(path), kind, FP_LOCK_VERSION,
		strcmp(kind, "inputs") ? " RECEIPT" : " --inputs");
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
			fp_said(root), strerror(-e));
	return e ? FP_EXIT_USAGE : 0;
}

static int drift_line(const char *root, const char *rel, size_t len,
		      const char *what)
{
	fprintf(stderr, "footprint: the inputs drifted from the lock: %s/",
		fp_said(root));
	fp_say_bytes(stderr, rel, len);
	fprintf(stderr,
		" %s; restore it, or freeze the inputs again (footprint lock --inputs)\n",
		what);
	return 1;
}

/* 1 and a line if the locked entry f differs from e */
static int entry_drift(const struct fp_jv *f, const struct fp_fentry *e,
		       const char *root, const char *rel, size_t rlen)
{
	const char *t = fp_jv_str(f, "type"), *h = fp_jv_str(f, "sha256");
	unsigned int mode;
	char hex[65] = "", *l = NULL;
	size_t llen = 0;
	bool moved;

	if (e->type == 'f' && e->hashed)
		fp_lock_hex(hex, e->sha256);
	if (!t || e->type != t[0] ||
	    fp_lockjv_mode(fp_jv_get(f, "mode"), &mode) || mode != e->mode ||
	    (e->type == 'f' && (!h || strcmp(h, hex))))
		return drift_line(root, rel, rlen, "changed");
	if (e->type != 'l')
		return 0;
	/* a symlink pointed elsewhere is drift like a file's new content */
	moved = fp_lockjv_bytes(f, "target", &l, &llen) ||
		llen != e->target.len || memcmp(l, e->target.data, llen);
	free(l);
	return moved ? drift_line(root, rel, rlen, "points elsewhere") : 0;
}

/* the lock's entries and the tree's, both in path byte order, merged */
static int merge_drift(const struct fp_jv *files,
		       const struct fp_fs_snapshot *s, const char *root)
{
	size_t rlen = strlen(root), skip = rlen + (rlen > 1), i = 0, k = 0;
	size_t len = 0;
	char *rel = NULL;
	int c, rc = 0;

	while (i < s->n && s->e[i].path.len == rlen)
		i++;
	while (!rc && (i < s->n || k < files->n)) {
		const struct fp_fentry *e = i < s->n ? &s->e[i] : NULL;

		free(rel);
		rel = NULL;
		if (k < files->n &&
		    fp_lockjv_bytes(&files->items[k], "path", &rel, &len)) {
			fprintf(stderr,
				"footprint: the input lock holds an entry without a path footprint can read; give the file footprint lock --inputs wrote\n");
			return FP_EXIT_USAGE;
		}
		if (!e)
			c = 1;
		else if (!rel)
			c = -1;
		else
			c = fp_bytes_cmp(e->path.data + skip,
					 e->path.len - skip, rel, len);
		if (c < 0)
			rc = drift_line(root, e->path.data + skip,
					e->path.len - skip, "is new");
		else if (c > 0)
			rc = drift_line(root, rel, len, "is gone");
		else
			rc = entry_drift(&files->items[k], e, root, rel, len);
		i++;
		k++;
	}
	free(rel);
	return rc;
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
