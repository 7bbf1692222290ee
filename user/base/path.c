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

/* Is [s, s + len) a name a dentry can have: not empty, ".", or ".."? */
static bool plain_name(const char *s, size_t len)
{
	return len && !(len <= 2 && s[0] == '.' && (len == 1 || s[1] == '.'));
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
 * costs 4 us, not 8 (a name at a time). Returns the number of names, 0
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
		if (!plain_name(p + start, j - start))
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
 * The last long base laid, for the next to start from. A descent or an
 * ascent by dirfd (mkdir -p, chmod -R, rm -rf, find) makes one event per
 * level whose base is the last one with a name more at its leaf end, or
 * one less, and names cut or added at its top end: the rest is copied,
 * not laid again. The collector runs on one thread (so does replay);
 * bases under FP_MEMO_MIN bytes are laid cheaply anyway.
 */
#define FP_MEMO_MIN 512
#define FP_MEMO_MAX (64 << 10)
static __thread struct {
	char *base; /* leaf-first names, NUL-ended */
	char *laid; /* the same, "/top/.../leaf" */
	size_t len, cap, names;
} memo;

static size_t count_names(const char *laid, size_t n)
{
	size_t k = 0;

	while (n--)
		k += laid[n] == '/';
	return k;
}

/* lay_names() from the memo, when base is the memo's one level down */
static size_t lay_down(char *p, const char *base, size_t n)
{
	size_t first = strnlen(base, n) + 1, kept = n - first, cut;

	if (first >= n || kept > memo.len || !plain_name(base, first - 1) ||
	    memcmp(base + first, memo.base, kept))
		return 0;
	/* the memo's top names not kept are its laid start */
	cut = memo.len - kept;
	memcpy(p, memo.laid + cut, kept);
	p[kept] = '/';
	memcpy(p + kept + 1, base, first - 1);
	return memo.names - count_names(memo.laid, cut) + 1;
}

/* lay_names() from the memo, when base is the memo's one level up */
static size_t lay_up(char *p, const char *base, size_t n)
{
	size_t first = strnlen(memo.base, memo.len) + 1, kept, extra, more = 0;

	if (first >= memo.len)
		return 0;
	kept = memo.len - first;
	if (kept > n || memcmp(base, memo.base + first, kept))
		return 0;
	/* names found above the memo's top, laid first */
	extra = n - kept;
	if (extra && !(more = lay_names(p, base + kept, extra)))
		return 0;
	memcpy(p + extra, memo.laid, kept);
	return memo.names - 1 + more;
}

static void memo_keep(const char *base, const char *laid, size_t n,
		      size_t names)
{
	char *b, *l;

	if (n < FP_MEMO_MIN || n > FP_MEMO_MAX) {
		memo.len = 0;
		return;
	}
	if (n > memo.cap) {
		b = realloc(memo.base, n);
		if (!b) {
			memo.len = 0;
			return;
		}
		memo.base = b;
		l = realloc(memo.laid, n);
		if (!l) {
			memo.len = 0;
			return;
		}
		memo.laid = l;
		memo.cap = n;
	}
	memcpy(memo.base, base, n);
	memcpy(memo.laid, laid, n);
	memo.len = n;
	memo.names = names;
}

/* lay_names(), from the last long base when it is a level away */
static size_t lay_base(char *p, const char *base, size_t n)
{
	size_t names = 0;

	if (n >= FP_MEMO_MIN && memo.len) {
		if (n == memo.len && !memcmp(base, memo.base, n)) {
			memcpy(p, memo.laid, n);
			return memo.names;
		}
		names = lay_down(p, base, n);
		if (!names)
			names = lay_up(p, base, n);
	}
	if (!names)
		names = lay_names(p, base, n);
	if (names)
		memo_keep(base, p, n, names);
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
	depth = lay_base(p, base, base_len);
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

void fp_put_name(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}
