// SPDX-License-Identifier: GPL-2.0
/*
 * What a run adds under a directory it did not make, collapsed into one
 * rule when the names are churn (docs/policy.md, "Suggestions"):
 *
 *  - anything under a package manager's cache (~/.npm/_cacache/,
 *    ~/.cache/pip/, ~/.cargo/registry/...) is one rule for the cache;
 *  - a name the run made that is a UUID, a hex digest or a temp name,
 *    below hex fan-out directories (index-v5/03/c6/<sha>, objects/ab/...)
 *    or not, makes the directory above them one rule, "allow DIR/";
 *  - names the run made that differ only in their numbers (ol.0 ...
 *    ol.99990), three or more of one shape in a directory, become one
 *    glob with [0-9]* for each number ("allow out/ol.[0-9]*").
 *
 * A directory rule is never made for a directory that matters as a
 * whole: a watched root or a directory above one, "/" and the top-level
 * directories, the temp directories (/tmp: a glob keeps the name's fixed
 * part there instead, and in any directory named tmp or temp), a home
 * directory and the directories right in it,
 * system trees (/etc, /usr, /boot, /run...) and the secret class's
 * directories (~/.ssh, ~/.gnupg...).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "secrets.h"
#include "suggest_int.h"

/* numbered names of one shape in one directory: churn from this many */
#define NUMBERED_MIN 3

/* below a home (or anywhere: a CI job may set HOME or the cache path) */
static const char *const caches[] = {
	".npm/_cacache",
	".npm/_logs",
	".npm/_npx",
	".cache/pip",
	".cache/pypoetry",
	".cargo/registry",
	".cargo/git",
	".cache/go-build",
	"go/pkg/mod",
	".m2/repository",
	".gradle/caches",
	".gradle/wrapper/dists",
	".cache/yarn",
	".yarn/berry/cache",
	".cache/pnpm",
	".local/share/pnpm/store",
	".cache/node-gyp",
	".nuget/packages",
	".cache/composer",
	".composer/cache",
	".ccache",
	".cache/ccache",
	".cache/bazel",
	".cache/deno",
	".bun/install/cache",
};

static bool is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

static bool has_uuid(const char *nm, size_t n)
{
	size_t i;

	for (i = 0; i + 36 <= n; i++)
		if (fp_sg_uuid_at(nm, i, n))
			return true;
	return false;
}

/* a content hash: 16 or more hex digits, letters and digits both */
static bool hex_digest(const char *t, size_t n)
{
	size_t i, digits = 0;

	if (n < 16)
		return false;
	for (i = 0; i < n; i++) {
		if (!is_hex(t[i]))
			return false;
		digits += t[i] <= '9';
	}
	return digits && digits < n;
}

/* a UUID, a hash, or a temp name's random part somewhere in the name */
static bool strong_name(const char *nm, size_t n)
{
	size_t i = 0, j;

	if (has_uuid(nm, n) || fp_sg_python_temp_name(nm, n, false))
		return true;
	while (i < n) {
		if (!word_byte(nm[i])) {
			i++;
			continue;
		}
		for (j = i; j < n && word_byte(nm[j]); j++)
			;
		if (hex_digest(nm + i, j - i) ||
		    fp_sg_randomness(nm + i, j - i, false) == STRONG)
			return true;
		i = j;
	}
	return false;
}

/* a content store's fan-out directory: "03", "c6", "a" */
static bool fanout(const char *nm, size_t n)
{
	size_t i;

	if (!n || n > 4)
		return false;
	for (i = 0; i < n; i++)
		if (!is_hex(nm[i]))
			return false;
	return true;
}

static bool starts(const char *p, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	return len >= n && !memcmp(p, lit, n);
}

static bool equals(const char *p, size_t len, const char *lit)
{
	return len == strlen(lit) && !memcmp(p, lit, len);
}

/*
 * A temp directory by its name: tmp, temp, .tmp, _temp (RUNNER_TEMP) in
 * any case. Anything may be dropped there, so a glob keeps the fixed part
 * of what the run made, as in /tmp.
 */
static bool temp_named(const char *d, size_t n)
{
	const char *name = d + n;

	while (name > d && name[-1] != '/')
		name--;
	n -= name - d;
	if (n && (name[0] == '.' || name[0] == '_')) {
		name++;
		n--;
	}
	return (n == 3 && !strncasecmp(name, "tmp", 3)) ||
	       (n == 4 && !strncasecmp(name, "temp", 4));
}

/* /root, /home/NAME, or a home the run recorded */
static bool is_home(const struct fp_suggester *s, const char *d, size_t n)
{
	const char *slash;

	if (equals(d, n, "/root"))
		return true;
	if (starts(d, n, "/home/") && n > 6) {
		slash = memchr(d + 6, '/', n - 6);
		if (!slash)
			return true;
	}
	return s->homes.cap && fp_hashmap_get(&s->homes, d, n);
}

/* d[0, n) (absolute, no trailing '/'): a directory no rule may cover */
static bool protected_abs(const struct fp_suggester *s, const char *d, size_t n)
{
	static const char *const sys[] = {
		"/etc",	  "/usr",    "/boot", "/bin", "/sbin", "/lib", "/lib32",
		"/lib64", "/libx32", "/proc", "/sys", "/dev",  "/run"
	};
	const char *up;
	struct buf b = { 0 };
	bool ret;
	size_t i;

	if (n <= 1 || !memchr(d + 1, '/', n - 1))
		return true; /* "/" and /tmp, /home, /opt... */
	if (temp_named(d, n) || equals(d, n, "/dev/shm"))
		return true;
	for (i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (starts(d, n, sys[i]) && d[strlen(sys[i])] == '/')
			return true;
	up = memrchr(d, '/', n);
	if (is_home(s, d, n) || (up > d && is_home(s, d, up - d)))
		return true;
	fp_sg_put_escaped(&b, d, n, fp_sg_specials(FP_T_PATH));
	fp_sg_put(&b, "/", 1);
	ret = b.err || fp_sg_covers_root(s, b.p, b.len);
	free(b.p);
	if (ret)
		return true;
	/* a file in it would be a secret: ~/.gnupg/private-keys-v1.d */
	b = (struct buf){ 0 };
	fp_sg_put(&b, d, n);
	fp_sg_put(&b, "/x", 2);
	ret = b.err || fp_secret_class(b.p, b.len, NULL, 0);
	free(b.p);
	return ret;
}

/* a relative path is below the run's root: the root itself and its temp
 * directories are kept whole */
static bool protected_dir(const struct fp_suggester *s, const char *d, size_t n,
			  bool relative)
{
	return relative ? n == 0 || temp_named(d, n) : protected_abs(s, d, n);
}

/* The cache path p is under (the end of its root in p), or 0. */
static size_t cache_root(const char *p, size_t len)
{
	size_t i, k, m;

	for (k = 0; k < len; k++) {
		if (k && p[k - 1] != '/')
			continue;
		for (i = 0; i < sizeof(caches) / sizeof(caches[0]); i++) {
			m = strlen(caches[i]);
			if (len - k >= m && !memcmp(p + k, caches[i], m) &&
			    (len - k == m || p[k + m] == '/'))
				return k + m;
		}
	}
	return 0;
}

/*
 * The directory above the churn a made path p ends in: the leaf is a
 * strongly random name (strong: or a glob stood for it), and the hex
 * fan-out and random directories above it go with it (*climbed). Its
 * length in p, or -1 for none (a protected directory).
 */
static ssize_t churn_dir(const struct fp_suggester *s, const char *p,
			 size_t len, bool strong, bool *climbed)
{
	bool relative = !len || p[0] != '/';
	size_t top, lo, start;

	start = len;
	while (start > 0 && p[start - 1] != '/')
		start--;
	if (!strong && !strong_name(p + start, len - start))
		return -1;
	top = start; /* where the topmost churn component starts */
	while (top > 1) {
		lo = top - 1;
		while (lo > 0 && p[lo - 1] != '/')
			lo--;
		if (!fanout(p + lo, top - 1 - lo) &&
		    !strong_name(p + lo, top - 1 - lo))
			break;
		top = lo;
	}
	/* down again while the directory above is one to keep whole */
	for (;;) {
		size_t dlen = top ? top - 1 : 0;

		*climbed = top < start;
		if (!protected_dir(s, p, dlen, relative))
			return dlen;
		if (top == start)
			return -1;
		while (p[top] != '/')
			top++;
		top++;
	}
}

/* the name with each run of digits made [0-9]*, the rest escaped; the
 * shape (each run '#') when glob is NULL. Fixed bytes kept, or -1. */
static ssize_t numbered(const char *nm, size_t n, struct buf *glob,
			struct buf *shape)
{
	size_t i = 0, fixed = 0, runs = 0;

	while (i < n) {
		if (nm[i] >= '0' && nm[i] <= '9') {
			while (i < n && nm[i] >= '0' && nm[i] <= '9')
				i++;
			runs++;
			if (glob)
				fp_sg_put(glob, "[0-9]*", 6);
			if (shape)
				fp_sg_put(shape, "#", 1);
			continue;
		}
		if (glob)
			fp_sg_put_escaped(glob, nm + i, 1,
					  fp_sg_specials(FP_T_PATH));
		if (shape)
			fp_sg_put(shape, nm + i, 1);
		fixed++;
		i++;
	}
	return runs ? (ssize_t)fixed : -1;
}

/* the subject path of a candidate: its literal, without a trailing '/' */
static size_t subject(const struct cand *c, bool *dir)
{
	*dir = c->litlen > 1 && c->lit[c->litlen - 1] == '/';
	return c->litlen - *dir;
}

/* D, a NUL, then what follows (a shape or a name): a map key */
static int key_of(struct buf *k, const char *p, size_t dlen, const char *t,
		  size_t tlen)
{
	k->len = 0;
	fp_sg_put(k, p, dlen);
	fp_sg_put(k, "", 1);
	fp_sg_put(k, t, tlen);
	return k->err ? -ENOMEM : 0;
}

struct shapes {
	struct fp_hashmap count; /* dir, shape -> distinct names */
	struct fp_hashmap seen; /* dir, name -> 1 */
};

/* is c a made name that is numbered, and where does its name start? */
static bool numbered_cand(const struct cand *c, size_t *start, size_t *len)
{
	bool dir;

	if (c->gone || c->target != FP_T_PATH || !c->made || !c->literal)
		return false;
	*len = subject(c, &dir);
	*start = *len;
	while (*start > 0 && c->lit[*start - 1] != '/')
		(*start)--;
	return numbered(c->lit + *start, *len - *start, NULL, NULL) >= 0;
}

static int count_shapes(struct fp_suggester *s, struct shapes *sh)
{
	struct buf key = { 0 }, shape = { 0 };
	struct fp_hslot *slot;
	size_t i, start, len;
	int ret = 0;

	for (i = 0; i < s->cands.n && !ret; i++) {
		const struct cand *c = fp_vec_at(&s->cands, struct cand, i);

		if (!numbered_cand(c, &start, &len))
			continue;
		ret = key_of(&key, c->lit, start, c->lit + start, len - start);
		if (ret || !(slot = fp_hashmap_slot(&sh->seen, key.p, key.len)))
			return ret ? ret : -ENOMEM;
		if (slot->val)
			continue;
		slot->val = (void *)1;
		shape.len = 0;
		numbered(c->lit + start, len - start, NULL, &shape);
		ret = key_of(&key, c->lit, start, shape.p, shape.len);
		if (ret ||
		    !(slot = fp_hashmap_slot(&sh->count, key.p, key.len)))
			return ret ? ret : -ENOMEM;
		slot->val = (void *)((uintptr_t)slot->val + 1);
	}
	free(key.p);
	free(shape.p);
	return ret;
}

/* the numbered glob for c, when enough names of its shape are there */
static int numbered_glob(const struct fp_suggester *s, const struct shapes *sh,
			 const struct cand *c, struct buf *out)
{
	struct buf key = { 0 }, shape = { 0 };
	size_t start, len;
	bool dir;
	int ret;

	if (!numbered_cand(c, &start, &len))
		return 0;
	numbered(c->lit + start, len - start, NULL, &shape);
	ret = key_of(&key, c->lit, start, shape.p, shape.len);
	if (!ret && (uintptr_t)fp_hashmap_get(&sh->count, key.p, key.len) >=
			    NUMBERED_MIN) {
		fp_sg_put_escaped(out, c->lit, start,
				  fp_sg_specials(FP_T_PATH));
		if (numbered(c->lit + start, len - start, out, NULL) < 2)
			out->len = 0; /* a glob keeps two fixed bytes */
		else if (subject(c, &dir) && dir)
			fp_sg_put(out, "/", 1);
		ret = out->err ? -ENOMEM : 0;
		if (!ret && out->len && c->lit[0] == '/' &&
		    fp_sg_covers_root(s, out->p, out->len))
			out->len = 0;
	}
	free(key.p);
	free(shape.p);
	return ret;
}

/* c goes into the rule pat (a directory's when dir), made if new */
static int move_into(struct fp_suggester *s, size_t i, const char *pat,
		     size_t plen, const char *lit, size_t litlen, bool literal)
{
	struct cand *c, *into;
	size_t idx;
	bool fresh;
	int ret = fp_sg_cand_index(s, FP_T_PATH, pat, plen, NULL, 0, &idx,
				   &fresh);

	if (ret)
		return ret;
	/* the vector may have moved */
	c = fp_vec_at(&s->cands, struct cand, i);
	into = fp_vec_at(&s->cands, struct cand, idx);
	if (idx == i)
		return 0;
	if (fresh) {
		into->target = FP_T_PATH;
		into->pat = malloc(plen + 1);
		into->lit = malloc(litlen + 1);
		if (!into->pat || !into->lit)
			return -ENOMEM;
		memcpy(into->pat, pat, plen + 1);
		memcpy(into->lit, lit, litlen);
		into->lit[litlen] = '\0';
		into->plen = plen;
		into->litlen = litlen;
		into->literal = literal;
		into->wide = true;
	}
	if (into->gone)
		return 0;
	return fp_sg_merge(s, into, c);
}

/* c goes into "allow D/", D its first d bytes */
static int into_dir(struct fp_suggester *s, size_t i, size_t d, struct buf *pat,
		    struct buf *lit)
{
	const char *p = fp_vec_at(&s->cands, struct cand, i)->lit;

	pat->len = lit->len = 0;
	fp_sg_put_escaped(pat, p, d, fp_sg_specials(FP_T_PATH));
	fp_sg_put(pat, "/", 1);
	fp_sg_put(lit, p, d);
	fp_sg_put(lit, "/", 1);
	if (pat->err || lit->err)
		return -ENOMEM;
	return move_into(s, i, pat->p, pat->len, lit->p, lit->len, true);
}

/* a package cache's rule for c (the cache's length in lit), or 0 */
static size_t in_cache(const struct fp_suggester *s, const struct cand *c)
{
	bool dir;
	size_t len = subject(c, &dir), d = cache_root(c->lit, len);

	/* a cache in a system tree, or above a root, is no rule; nor is a
	 * rule for the cache itself anything new */
	if (!d || protected_dir(s, c->lit, d, c->lit[0] != '/') ||
	    (d == len && dir))
		return 0;
	return d;
}

struct churn {
	ssize_t d; /* the directory above c's churn, or -1 */
	bool climbed;
};

/* D -> 1 + how many rules for churn right in it, 0x80000000 when the
 * churn below it has climbed fan-out directories */
#define CLIMBED ((uintptr_t)1 << 31)

/* where each candidate's churn is, and how much churn each such dir has */
static int find_churn(struct fp_suggester *s, size_t n, struct churn *ch,
		      struct fp_hashmap *dirs)
{
	struct fp_hslot *slot;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct cand *c = fp_vec_at(&s->cands, struct cand, i);
		bool dir;

		ch[i].d = -1;
		if (c->gone || c->target != FP_T_PATH || !c->made || !c->litlen)
			continue;
		ch[i].d = churn_dir(s, c->lit, subject(c, &dir), !c->literal,
				    &ch[i].climbed);
		if (ch[i].d < 0)
			continue;
		slot = fp_hashmap_slot(dirs, c->lit, ch[i].d);
		if (!slot)
			return -ENOMEM;
		slot->val = (void *)((uintptr_t)slot->val + 1 +
				     (ch[i].climbed ? CLIMBED : 0));
	}
	return 0;
}

/*
 * The churn right in a directory that one glob covers stays that glob
 * (/srv/tmp/cc*.s); several rules' worth, or churn below fan-out
 * directories, become the directory's.
 */
static bool dir_worth(const struct fp_hashmap *dirs, const char *d, size_t n)
{
	uintptr_t v = (uintptr_t)fp_hashmap_get(dirs, d, n);

	return (v & CLIMBED) || (v & (CLIMBED - 1)) >= 2;
}

static int collapse(struct fp_suggester *s, size_t n, const struct shapes *sh,
		    const struct churn *ch, const struct fp_hashmap *dirs)
{
	struct buf pat = { 0 }, lit = { 0 };
	size_t i, d;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		const struct cand *c = fp_vec_at(&s->cands, struct cand, i);

		if (c->gone || c->target != FP_T_PATH || !c->litlen)
			continue;
		if ((d = in_cache(s, c))) {
			ret = into_dir(s, i, d, &pat, &lit);
			continue;
		}
		if (ch[i].d > 0 && dir_worth(dirs, c->lit, ch[i].d)) {
			ret = into_dir(s, i, ch[i].d, &pat, &lit);
			continue;
		}
		pat.len = 0;
		ret = numbered_glob(s, sh, c, &pat);
		if (!ret && pat.len)
			ret = move_into(s, i, pat.p, pat.len, c->lit, c->litlen,
					false);
	}
	free(pat.p);
	free(lit.p);
	return ret;
}

int fp_sg_collapse_churn(struct fp_suggester *s)
{
	struct shapes sh = { 0 };
	struct fp_hashmap dirs = { 0 };
	size_t n = s->cands.n;
	struct churn *ch = calloc(n + 1, sizeof(*ch));
	int ret = ch ? count_shapes(s, &sh) : -ENOMEM;

	if (!ret)
		ret = find_churn(s, n, ch, &dirs);
	if (!ret)
		ret = collapse(s, n, &sh, ch, &dirs);
	free(ch);
	fp_hashmap_free(&dirs, NULL);
	fp_hashmap_free(&sh.count, NULL);
	fp_hashmap_free(&sh.seen, NULL);
	return ret;
}
