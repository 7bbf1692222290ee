/* SPDX-License-Identifier: GPL-2.0 */
/* What the Criterion unit tests share. */
#ifndef FP_UNIT_UTIL_H
#define FP_UNIT_UTIL_H

#include <criterion/criterion.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup.h"
#include "event.h"
#include "findings.h"
#include "policy.h"

/* An owned, NUL-terminated copy of len bytes (fp_bytes_dup), or a test
 * failure. */
static inline struct fp_bytes bytes(const char *s, size_t len)
{
	struct fp_bytes b = { 0 };

	cr_assert_eq(fp_bytes_dup(&b, s, len), 0, "out of memory");
	return b;
}

/* tests/data/name (a static buffer): the golden logs and receipts */
static inline char *data_path(const char *name)
{
	static char buf[4096];
	char src[4096];

	/* this header's own path: tests/unit/ */
	snprintf(src, sizeof(src), "%s", __FILE__);
	snprintf(buf, sizeof(buf), "%s/../data/%s", dirname(src), name);
	return buf;
}

/* The whole of path, NUL-terminated (the caller frees it); *len: its
 * bytes, without the NUL. */
static inline char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	cr_assert_not_null(f, "open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	cr_assert_not_null(buf, "out of memory");
	cr_assert_eq(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* v, a vector of char *, holds s: a verdict's reasons or suggestions */
static inline bool has_str(const struct fp_vec *v, const char *s)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (!strcmp(((char **)v->v)[i], s))
			return true;
	return false;
}

/* line, a rule under roots, added to p */
static inline void policy_rule(struct fp_policy *p, char *const *roots,
			       size_t nroots, const char *line)
{
	char err[300] = "";
	int ret = fp_policy_parse_line(p, line, strlen(line), roots, nroots,
				       err, sizeof(err));

	cr_assert_eq(ret, 0, "parse '%s': %d %s", line, ret, err);
}

/* the "0::" line of /proc/self/cgroup, read the plain way */
static inline void own_cgroup_path(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096];

	out[0] = '\0';
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(out, len, "%s", line + 3);
	}
	fclose(f);
}

/* that path, and the inode of its directory: the cgroup's id */
static inline void own_cgroup(char *path, size_t len, uint64_t *id)
{
	char mnt[4096], full[2 * 4096 + 8];
	struct stat st;

	own_cgroup_path(path, len);
	cr_assert_eq(fp_cgroup_mountpoint(mnt, sizeof(mnt)), 0);
	snprintf(full, sizeof(full), "%s%s", mnt, path);
	cr_assert_eq(stat(full, &st), 0, "stat %s", full);
	*id = st.st_ino;
}

#endif
