// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape.h"

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static int unescape(const char *s, size_t len, struct fp_bytes *out)
{
	char *d = malloc(len + 1);
	size_t i, n = 0;

	if (!d)
		return -ENOMEM;
	for (i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 3 < len && s[i + 1] >= '0' &&
		    s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' &&
		    s[i + 3] >= '0' && s[i + 3] <= '7') {
			d[n++] = (s[i + 1] - '0') << 6 | (s[i + 2] - '0') << 3 |
				 (s[i + 3] - '0');
			i += 3;
		} else {
			d[n++] = s[i];
		}
	}
	d[n] = '\0';
	out->data = d;
	out->len = n;
	return 0;
}

/*
 * Peer group numbers change with every restart, so only the kinds are
 * kept: that a mount is shared or a slave is what matters for review.
 */
static void propagation(const char *opt, size_t len, char *out, size_t outlen)
{
	const char *kinds[] = { "shared:", "master:", "propagate_from:",
				"unbindable" };
	const char *names[] = { "shared", "slave", "slave", "unbindable" };
	size_t i;

	for (i = 0; i < 4; i++) {
		if (len < strlen(kinds[i]) ||
		    strncmp(opt, kinds[i], strlen(kinds[i])) ||
		    strstr(out, names[i]))
			continue;
		if (out[0])
			strncat(out, ",", outlen - strlen(out) - 1);
		strncat(out, names[i], outlen - strlen(out) - 1);
	}
}

/* "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw" */
static int parse_line(char *l, struct fp_shape_mount *m)
{
	char *f[16], *sep = NULL, *tok, *save;
	size_t n = 0, i;

	memset(m, 0, sizeof(*m));
	for (tok = strtok_r(l, " ", &save); tok && n < 16;
	     tok = strtok_r(NULL, " ", &save))
		f[n++] = tok;
	for (i = 6; i < n; i++)
		if (!strcmp(f[i], "-")) {
			sep = f[i];
			break;
		}
	if (n < 6 || !sep || i + 2 >= n)
		return -EINVAL;
	for (size_t k = 6; k < i; k++)
		propagation(f[k], strlen(f[k]), m->propagation,
			    sizeof(m->propagation));
	if (!m->propagation[0])
		strcpy(m->propagation, "private");
	m->rw = !strncmp(f[5], "rw", 2) && (f[5][2] == ',' || !f[5][2]);
	if (unescape(f[3], strlen(f[3]), &m->root) ||
	    unescape(f[4], strlen(f[4]), &m->point) ||
	    unescape(f[i + 1], strlen(f[i + 1]), &m->fstype) ||
	    unescape(f[i + 2], strlen(f[i + 2]), &m->source))
		return -ENOMEM;
	return 0;
}

static int bytes_cmp(const struct fp_bytes *a, const struct fp_bytes *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->data, b->data, n);

	return c ? c : (a->len > b->len) - (a->len < b->len);
}

static int mount_cmp(const void *x, const void *y)
{
	const struct fp_shape_mount *a = x, *b = y;
	int c = bytes_cmp(&a->point, &b->point);

	if (!c)
		c = bytes_cmp(&a->source, &b->source);
	if (!c)
		c = bytes_cmp(&a->fstype, &b->fstype);
	if (!c)
		c = bytes_cmp(&a->root, &b->root);
	return c ? c : (int)a->rw - (int)b->rw;
}

int fp_shape_read_mounts(struct fp_shape *s, struct fp_shape_proc *p, int dirfd)
{
	struct fp_bytes b = { 0 };
	char *l, *nl;
	int ret;

	ret = fp_shape_slurp(dirfd, "mountinfo", &b, 16 << 20);
	if (ret) {
		fp_shape_note(s, "pid %d: its mount table is unreadable (%s)",
			      p->pid, strerror(-ret));
		return ret == -ENOMEM ? ret : 0;
	}
	p->mounts = calloc(FP_SHAPE_MOUNTS_MAX, sizeof(*p->mounts));
	if (!p->mounts) {
		free(b.data);
		return -ENOMEM;
	}
	for (l = b.data; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if (p->nmounts == FP_SHAPE_MOUNTS_MAX) {
			fp_shape_note(s, "pid %d: more than %d mounts", p->pid,
				      FP_SHAPE_MOUNTS_MAX);
			break;
		}
		ret = parse_line(l, &p->mounts[p->nmounts]);
		p->nmounts++; /* freed with the rest even when half parsed */
		if (ret == -ENOMEM)
			break;
		if (ret) {
			fp_shape_note(s,
				      "pid %d: a mountinfo line is malformed",
				      p->pid);
			p->nmounts--;
		}
		ret = 0;
	}
	free(b.data);
	if (!ret)
		qsort(p->mounts, p->nmounts, sizeof(*p->mounts), mount_cmp);
	return ret;
}
