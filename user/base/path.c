// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"

struct comp {
	const char *s;
	size_t len;
};

static bool comp_is(const struct comp *c, const char *s)
{
	return c->len == strlen(s) && !memcmp(c->s, s, c->len);
}

static bool comp_number(const struct comp *c)
{
	size_t i;

	for (i = 0; i < c->len; i++)
		if (c->s[i] < '0' || c->s[i] > '9')
			return false;
	return c->len > 0;
}

/*
 * Do the n components name a /proc magic link: /proc/P/{cwd,root,exe},
 * /proc/P/{fd,map_files}/N, also under /proc/P/task/T/, with P a pid,
 * "self" or "thread-self"? The kernel follows these to a file it does not
 * name, so no lexical path says where they lead.
 */
static bool magic_at(const struct comp *v, size_t n)
{
	size_t k = 2;

	if (n < 3 || !comp_is(&v[0], "proc") ||
	    !(comp_number(&v[1]) || comp_is(&v[1], "self") ||
	      comp_is(&v[1], "thread-self")))
		return false;
	if (n >= 5 && comp_is(&v[2], "task") && comp_number(&v[3]))
		k = 4;
	if (n == k + 1)
		return comp_is(&v[k], "cwd") || comp_is(&v[k], "root") ||
		       comp_is(&v[k], "exe");
	return n == k + 2 &&
	       (comp_is(&v[k], "fd") || comp_is(&v[k], "map_files"));
}

static int push(struct comp **v, size_t *n, size_t *cap, const char *s,
		size_t len)
{
	if (len == 0 || (len == 1 && s[0] == '.'))
		return 0;
	if (len == 2 && s[0] == '.' && s[1] == '.') {
		/* ".." above "/" is "/" */
		if (*n)
			(*n)--;
		return 0;
	}
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		struct comp *nv = realloc(*v, ncap * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = (struct comp){ s, len };
	return 0;
}

/* push, noting whether the path so far passed through a magic link */
static int push_m(struct comp **v, size_t *n, size_t *cap, const char *s,
		  size_t len, bool *magic)
{
	int err = push(v, n, cap, s, len);

	if (!err && magic_at(*v, *n))
		*magic = true;
	return err;
}

static int push_split(struct comp **v, size_t *n, size_t *cap, const char *s,
		      size_t len, bool *magic)
{
	size_t i = 0;

	while (i < len) {
		size_t j = i;

		while (j < len && s[j] != '/')
			j++;
		if (push_m(v, n, cap, s + i, j - i, magic))
			return -ENOMEM;
		i = j + 1;
	}
	return 0;
}

int fp_path_join_magic(struct fp_bytes *out, const char *raw, size_t raw_len,
		       const char *base, size_t base_len, bool *magic)
{
	struct comp *v = NULL;
	size_t n = 0, cap = 0, total = 0, i;
	int err = -ENOMEM;
	char *p;

	if (!(raw_len && raw[0] == '/') && base_len) {
		/* names come leaf first; walk them from the end */
		size_t end = base_len;

		while (end > 0) {
			size_t start = end - 1; /* index of this name's NUL */

			while (start > 0 && base[start - 1] != '\0')
				start--;
			if (push_m(&v, &n, &cap, base + start, end - 1 - start,
				   magic))
				goto cleanup;
			end = start;
		}
	}
	if (push_split(&v, &n, &cap, raw, raw_len, magic))
		goto cleanup;

	for (i = 0; i < n; i++)
		total += 1 + v[i].len;
	p = malloc(total ? total + 1 : 2);
	if (!p)
		goto cleanup;
	out->data = p;
	if (!n)
		*p++ = '/';
	for (i = 0; i < n; i++) {
		*p++ = '/';
		memcpy(p, v[i].s, v[i].len);
		p += v[i].len;
	}
	*p = '\0';
	out->len = p - out->data;
	err = 0;
cleanup:
	free(v);
	return err;
}

int fp_path_join(struct fp_bytes *out, const char *raw, size_t raw_len,
		 const char *base, size_t base_len)
{
	bool magic = false;

	return fp_path_join_magic(out, raw, raw_len, base, base_len, &magic);
}

bool fp_path_magic(const char *p, size_t len)
{
	struct comp *v = NULL;
	size_t n = 0, cap = 0;
	bool magic = false;

	/* out of memory: say yes, the caller then fails closed */
	if (push_split(&v, &n, &cap, p, len, &magic))
		magic = true;
	free(v);
	return magic;
}
