// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
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

/* the most components a magic link's path has: /proc/P/task/T/fd/N */
#define MAGIC_MAX_COMPS 6

/* push, noting whether the path so far passed through a magic link */
static int push_m(struct comp **v, size_t *n, size_t *cap, const char *s,
		  size_t len, bool *magic)
{
	int err = push(v, n, cap, s, len);

	if (!err && *n <= MAGIC_MAX_COMPS && magic_at(*v, *n))
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

/* Reverse the bytes [a, b]. */
static void reverse(char *a, char *b)
{
	while (a < b) {
		char t = *a;

		*a++ = *b;
		*b-- = t;
	}
}

/*
 * Lay base's leaf-first names, each NUL-ended, into p as "/top/.../leaf":
 * the same number of bytes. Reversing the whole run puts the names top
 * first, each reversed behind its NUL; each is then turned back. Eight
 * bytes at a time, and one pass for the names: a base 2,000 names deep
 * costs 2 us, not 8 (a name at a time). Returns the number of names, 0
 * if one is empty, "." or "..".
 */
static size_t lay_names(char *p, const char *base, size_t n)
{
	size_t i = 0, start = 1, j, names = 0;
	uint64_t w;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, base + n - 8 - i, 8);
		w = __builtin_bswap64(w);
		memcpy(p + i, &w, 8);
	}
	for (; i < n; i++)
		p[i] = base[n - 1 - i];
	p[0] = '/';
	for (j = 1; j <= n; j++) {
		if (j < n && p[j])
			continue;
		if (j == start || (j - start <= 2 && p[start] == '.' &&
				   (j - start == 1 || p[start + 1] == '.')))
			return 0;
		reverse(p + start, p + j - 1);
		if (j < n)
			p[j] = '/';
		start = j + 1;
		names++;
	}
	return names;
}

/*
 * The join when nothing needs the component list: a base of plain
 * names, its top one not "proc", and a relative raw whose ".." never
 * reaches the top name (so no magic link can be named, and none is
 * climbed above "/"). The collector must keep up with a descent or an
 * ascent making one such event per level. Returns 1 if it joined, 0 to
 * leave it to the general way, -ENOMEM.
 */
static int join_plain(struct fp_bytes *out, const char *raw, size_t raw_len,
		      const char *base, size_t base_len)
{
	size_t i = 0, pos = base_len, depth;
	const char *top;
	char *p;

	if (!base_len || base[base_len - 1] != '\0')
		return 0;
	top = memrchr(base, '\0', base_len - 1);
	top = top ? top + 1 : base;
	if (!strcmp(top, "proc"))
		return 0;
	p = malloc(base_len + raw_len + 2);
	if (!p)
		return -ENOMEM;
	depth = lay_names(p, base, base_len);
	if (!depth)
		goto general;
	while (i < raw_len) {
		const char *sl = memchr(raw + i, '/', raw_len - i);
		size_t j = sl ? (size_t)(sl - raw) : raw_len;

		if (j - i == 2 && raw[i] == '.' && raw[i + 1] == '.') {
			if (depth <= 1)
				goto general;
			pos = (char *)memrchr(p, '/', pos) - p;
			depth--;
		} else if (j > i && !(j - i == 1 && raw[i] == '.')) {
			p[pos++] = '/';
			memcpy(p + pos, raw + i, j - i);
			pos += j - i;
			depth++;
		}
		i = j + 1;
	}
	p[pos] = '\0';
	out->data = p;
	out->len = pos;
	return 1;
general:
	free(p);
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
		err = join_plain(out, raw, raw_len, base, base_len);
		if (err)
			return err < 0 ? err : 0;
		err = -ENOMEM;
		/* names come leaf first; walk them from the end */
		size_t end = base_len;

		while (end > 0) {
			/* after the NUL before this name's, which is at end - 1 */
			const char *prev = memrchr(base, '\0', end - 1);
			size_t start = prev ? (size_t)(prev - base) + 1 : 0;

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
