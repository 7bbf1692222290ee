// SPDX-License-Identifier: GPL-2.0
/*
 * Which parts of a name look random (suggest_int.h): temp names of
 * mkstemp, mktemp and Python's tempfile, and the globs that stand for
 * them.
 */
#include <stdlib.h>
#include <string.h>

#include "suggest_int.h"

void fp_sg_put(struct buf *b, const void *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *p = realloc(b->p, cap);

		if (!p) {
			b->err = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	/* an empty piece may have no bytes at all (a crafted log's empty
	 * name): memcpy() is not for a NULL source, even of 0 bytes */
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* s as a pattern matching only itself: the matcher's specials escaped */
void fp_sg_put_escaped(struct buf *b, const char *s, size_t n,
		       const char *specials)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strchr(specials, s[i]) && s[i])
			fp_sg_put(b, "\\", 1);
		fp_sg_put(b, &s[i], 1);
	}
}

const char *fp_sg_specials(enum fp_rule_target t)
{
	/* "[::1]" in a bind subject is an address: no classes there */
	return t == FP_T_BIND || t == FP_T_CONNECT ? "*?\\" : "*?[\\";
}

static bool word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

static int cclass(unsigned char c)
{
	return c >= 'a' && c <= 'z' ? 1 :
	       c >= 'A' && c <= 'Z' ? 2 :
	       c >= '0' && c <= '9' ? 3 :
				      0;
}

struct shape {
	size_t lower, upper, digit, trans, lower_run;
	bool hex;
};

static void shape_of(const char *t, size_t n, struct shape *sh)
{
	size_t i, run = 0;
	int prev = 0;

	memset(sh, 0, sizeof(*sh));
	sh->hex = true;
	for (i = 0; i < n; i++) {
		unsigned char c = t[i];
		int k = cclass(c);

		sh->lower += k == 1;
		sh->upper += k == 2;
		sh->digit += k == 3;
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			sh->hex = false;
		run = k == 1 ? run + 1 : 0;
		if (run > sh->lower_run)
			sh->lower_run = run;
		if (k && prev && k != prev)
			sh->trans++;
		if (k)
			prev = k;
	}
}

/*
 * Does a run of letters, digits and '_' look random? STRONG: on its own
 * (mixed case and digits; digits and letters changing often; hex; mixed
 * case without a word's long lowercase run). WEAK: two kinds of
 * characters, which is random only if a sibling name of the same shape
 * differs there too. py: Python's tempfile alphabet, eight long.
 */
int fp_sg_randomness(const char *t, size_t n, bool py)
{
	struct shape sh;
	size_t letters;

	if (n < 5 || n > 64)
		return NOT_RANDOM;
	shape_of(t, n, &sh);
	letters = sh.lower + sh.upper;
	if (n >= 6 && ((sh.lower && sh.upper && sh.digit) ||
		       (sh.digit >= 2 && letters >= 2 && sh.trans >= 3) ||
		       (n >= 8 && sh.hex && sh.digit && letters) ||
		       (sh.lower && sh.upper && sh.lower_run <= 3 && n <= 16)))
		return STRONG;
	if (py && n == 8 && !sh.upper)
		return STRONG;
	return (!!sh.lower + !!sh.upper + !!sh.digit) >= 2 ? WEAK : NOT_RANDOM;
}

/*
 * After a temp name's known start (prefix of plen bytes, then n more):
 * mkstemp's [A-Za-z0-9] is random on its own. gcc's is "cc" and exactly
 * six of them, whatever their case (/tmp/cciZvobw.o, /tmp/ccQ1ABCD.s);
 * elsewhere six to ten with two kinds of character, which no word has.
 */
static bool mkstemp_tail(const char *t, size_t plen, size_t n)
{
	struct shape sh;

	if (n < 6 || n > 10)
		return false;
	shape_of(t + plen, n, &sh);
	if (sh.lower + sh.upper + sh.digit != n)
		return false;
	if (plen == 2 && !memcmp(t, "cc", 2) && n == 6)
		return true;
	return (!!sh.lower + !!sh.upper + !!sh.digit) >= 2;
}

/*
 * mktemp(1)'s NAME.XXXXXX: the last part, after a dot, six to ten of
 * [A-Za-z0-9] with two capitals, a capital and a digit, one capital that
 * does not start it, or digits inside letters. No extension looks like
 * that: a capitalised word has one capital, first (notes.Backup), and a
 * numbered one its digits at the end (data.backup2). What is left, all
 * lower case and the like, is one name in 50 of mktemp's six and one in
 * 300 of its eight (/tmp/job.FVpubk, /tmp/job.mvitClwp, /tmp/job.q7vobw).
 */
static bool mktemp_suffix(const char *nm, size_t i, size_t j, size_t n)
{
	struct shape sh;

	if (!i || nm[i - 1] != '.' || j != n || n - i < 6 || n - i > 10)
		return false;
	shape_of(nm + i, n - i, &sh);
	if (sh.lower + sh.upper + sh.digit != n - i)
		return false;
	return sh.upper >= 2 || (sh.upper && sh.digit) ||
	       (sh.upper == 1 && cclass(nm[i]) != 2) ||
	       (sh.lower && sh.digit && sh.trans >= 2);
}

/* fixed starts of temp names glued to their random part */
static size_t known_prefix(const char *t, size_t n)
{
	static const char *const prefixes[] = { "tmp", "cc", "cmTC_" };
	size_t i, l;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		l = strlen(prefixes[i]);
		if (n >= l + 5 && !memcmp(t, prefixes[i], l))
			return l;
	}
	return 0;
}

/*
 * The name with each random-looking part (at level or above) made a '*',
 * the rest escaped. Returns the bytes replaced, 0 for none.
 */
static bool is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool fp_sg_uuid_at(const char *nm, size_t i, size_t n)
{
	static const size_t group[] = { 8, 4, 4, 4, 12 };
	size_t k = i, g, j;

	if (n - i < 36 || (i && is_hex(nm[i - 1])))
		return false;
	for (g = 0; g < 5; g++) {
		for (j = 0; j < group[g]; j++)
			if (!is_hex(nm[k++]))
				return false;
		if (g < 4 && nm[k++] != '-')
			return false;
	}
	return k == n || !is_hex(nm[k]);
}

size_t fp_sg_glob_name(struct buf *b, const char *nm, size_t n, int level,
		       enum fp_rule_target t)
{
	/* Python's tempfile: "tmp" or "pip-...-" and eight of [a-z0-9_] */
	bool py_name = (n >= 4 && !memcmp(nm, "pip-", 4)) ||
		       (n >= 3 && !memcmp(nm, "tmp", 3));
	size_t i = 0, j, p, replaced = 0;

	while (i < n) {
		/* a UUID is random as a whole, its dashes in place */
		if (fp_sg_uuid_at(nm, i, n)) {
			for (j = 0; j < 36; j++)
				fp_sg_put(b, nm[i + j] == '-' ? "-" : "?", 1);
			replaced += 32;
			i += 36;
			continue;
		}
		if (!word_byte(nm[i])) {
			fp_sg_put_escaped(b, &nm[i], 1, fp_sg_specials(t));
			i++;
			continue;
		}
		for (j = i; j < n && word_byte(nm[j]); j++)
			;
		p = known_prefix(nm + i, j - i);
		if (fp_sg_randomness(nm + i + p, j - i - p, py_name) >= level ||
		    (p && mkstemp_tail(nm + i, p, j - i - p)) ||
		    mktemp_suffix(nm, i, j, n)) {
			fp_sg_put(b, nm + i, p);
			fp_sg_put(b, "*", 1);
			replaced += j - i - p;
		} else {
			fp_sg_put_escaped(b, nm + i, j - i, fp_sg_specials(t));
		}
		i = j;
	}
	return replaced;
}

/* Is path[0, dirlen) the system's temp directory ("/tmp/" and the like)? */
bool fp_sg_in_temp_dir(const char *path, size_t dirlen)
{
	static const char *const dirs[] = { "/tmp/", "/var/tmp/", "/dev/shm/" };
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (dirlen == strlen(dirs[i]) && !memcmp(path, dirs[i], dirlen))
			return true;
	return false;
}

/*
 * A bare name of Python's tempfile (mkstemp, mkdtemp, NamedTemporaryFile):
 * eight of [a-z0-9_]. Elsewhere it needs a digit or a '_' after its start,
 * so that a word is never taken for one, nor a word that starts with '_'
 * as private names do (npm's ~/.npm/_cacache); right in the temp
 * directory, where tempfile puts them, eight letters are one too (a
 * sixteenth of its names).
 */
bool fp_sg_python_temp_name(const char *t, size_t n, bool temp_dir)
{
	bool odd = temp_dir;
	size_t i;

	if (n != 8)
		return false;
	for (i = 0; i < n; i++) {
		if (!((t[i] >= 'a' && t[i] <= 'z') ||
		      (t[i] >= '0' && t[i] <= '9') || t[i] == '_'))
			return false;
		odd |= t[i] < 'a' && (t[i] != '_' || i);
	}
	return odd;
}
