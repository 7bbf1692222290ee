// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "path.h"
#include "policy.h"
#include "userfile.h"

static bool is_glob(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[' || s[i] == '\\')
			return true;
	return false;
}

/* [...] at p; returns bytes consumed or 0 if malformed (then literal) */
static size_t match_class(const char *p, size_t plen, unsigned char c,
			  bool *hit)
{
	size_t i = 1;
	bool neg = false, found = false;

	if (i < plen && (p[i] == '!' || p[i] == '^')) {
		neg = true;
		i++;
	}
	if (i < plen && p[i] == ']') {
		found |= c == ']';
		i++;
	}
	for (; i < plen && p[i] != ']'; i++) {
		unsigned char lo = p[i], hi = lo;

		if (i + 2 < plen && p[i + 1] == '-' && p[i + 2] != ']') {
			hi = p[i + 2];
			i += 2;
		}
		if (c >= lo && c <= hi)
			found = true;
	}
	if (i >= plen)
		return 0;
	*hit = found != neg;
	return i + 1;
}

/* One pattern element: a byte, ?, a [class], * or **. */
struct glob_tok {
	enum { G_BYTE, G_ANY, G_CLASS, G_STAR, G_STARS } kind;
	unsigned char c; /* G_BYTE */
	size_t at; /* G_CLASS: offset of the '[' in the pattern */
};

static size_t glob_compile(const char *p, size_t plen, bool slash_special,
			   bool classes, struct glob_tok *t)
{
	size_t pi = 0, n = 0, k;
	bool hit;

	while (pi < plen) {
		struct glob_tok *g = &t[n++];

		g->kind = G_BYTE;
		g->c = p[pi];
		if (p[pi] == '*') {
			/* "**" crosses '/', and so does any star without
			 * slash_special */
			g->kind = G_STAR;
			if (!slash_special ||
			    (pi + 1 < plen && p[pi + 1] == '*')) {
				g->kind = G_STARS;
				pi += pi + 1 < plen && p[pi + 1] == '*';
			}
		} else if (p[pi] == '?') {
			g->kind = G_ANY;
		} else if (p[pi] == '[' && classes &&
			   (k = match_class(p + pi, plen - pi, 0, &hit))) {
			g->kind = G_CLASS;
			g->at = pi;
			pi += k - 1;
		} else if (p[pi] == '\\' && pi + 1 < plen) {
			g->c = p[++pi];
		}
		pi++;
	}
	return n;
}

/* Can token g take byte c (and move on, or stay for a star)? */
static bool glob_takes(const struct glob_tok *g, const char *p, size_t plen,
		       unsigned char c, bool slash_special)
{
	bool hit = false;

	switch (g->kind) {
	case G_BYTE:
		return c == g->c;
	case G_CLASS:
		match_class(p + g->at, plen - g->at, c, &hit);
		return hit && !(slash_special && c == '/');
	case G_STARS:
		return true;
	default: /* G_ANY, G_STAR */
		return !(slash_special && c == '/');
	}
}

/* Every state reachable from the live ones without reading a byte. */
static void glob_close(const struct glob_tok *t, size_t n, unsigned char *on)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (on[i] && (t[i].kind == G_STAR || t[i].kind == G_STARS))
			on[i + 1] = 1;
}

/* How many bytes the pattern starts with that match only themselves. */
static size_t literal_prefix(const char *p, size_t plen, bool classes)
{
	size_t i;

	for (i = 0; i < plen; i++)
		if (p[i] == '*' || p[i] == '?' || p[i] == '\\' ||
		    (classes && p[i] == '['))
			break;
	return i;
}

/*
 * The pattern run as an automaton over the subject, one set of live
 * states per byte: time plen * slen at worst, never exponential, and no
 * recursion, however many stars a pattern holds (the subject comes from
 * the traced command, the pattern from the user).
 */
static bool glob_match(const char *p, size_t plen, const char *s, size_t slen,
		       bool slash_special, bool classes)
{
	struct glob_tok small[64], *t = small;
	unsigned char on_small[2 * 65], *buf = on_small, *on, *next;
	size_t n, i, si;
	bool live = true, ret;

	/* most subjects differ from most patterns in the first bytes: the
	 * judge asks every path of a run against every rule and noise glob */
	n = literal_prefix(p, plen, classes);
	if (slen < n || memcmp(p, s, n))
		return false;
	if (plen > 64) {
		t = malloc(plen * sizeof(*t));
		buf = malloc(2 * (plen + 1));
		if (!t || !buf) {
			free(t);
			free(buf);
			return false;
		}
	}
	on = buf;
	next = buf + plen + 1;
	n = glob_compile(p, plen, slash_special, classes, t);
	memset(on, 0, n + 1);
	on[0] = 1;
	glob_close(t, n, on);
	for (si = 0; si < slen && live; si++) {
		unsigned char *tmp;

		memset(next, 0, n + 1);
		live = false;
		for (i = 0; i < n; i++) {
			if (!on[i] ||
			    !glob_takes(&t[i], p, plen, (unsigned char)s[si],
					slash_special))
				continue;
			if (t[i].kind == G_STAR || t[i].kind == G_STARS)
				next[i] = 1;
			else
				next[i + 1] = 1;
			live = true;
		}
		glob_close(t, n, next);
		tmp = on;
		on = next;
		next = tmp;
	}
	ret = live && on[n];
	if (t != small) {
		free(t);
		free(buf);
	}
	return ret;
}

bool fp_glob_match(const char *p, size_t plen, const char *s, size_t slen,
		   bool slash_special)
{
	return glob_match(p, plen, s, slen, slash_special, true);
}

/*
 * A glob ending in '/' (/tmp/pip-* and a slash) is every directory it
 * matches and everything below them, as "dir/" is.
 */
static bool glob_dir_matches(const char *p, size_t plen, const char *s,
			     size_t len)
{
	size_t k;

	for (k = 1; k <= len; k++)
		if ((k == len || s[k] == '/') &&
		    fp_glob_match(p, plen, s, k, true))
			return true;
	return false;
}

/* read rules name paths, and match them as path rules do */
static bool pathlike(enum fp_rule_target t)
{
	return t == FP_T_PATH || t == FP_T_READ || t == FP_T_SETUID ||
	       t == FP_T_MOUNT;
}

bool fp_rule_matches(const struct fp_rule *r, const char *s, size_t len)
{
	const char *p = r->pattern;
	size_t plen = r->len;

	if (pathlike(r->target) && plen == 1 && p[0] == '/')
		return true; /* "/" is everything */
	if (pathlike(r->target) && plen > 1 && p[plen - 1] == '/' &&
	    !is_glob(p, plen)) {
		/* "dir/" is the directory and everything below it */
		if (len == plen - 1 && !memcmp(s, p, len))
			return true;
		return len >= plen && !memcmp(s, p, plen);
	}
	if (pathlike(r->target) && plen > 1 && p[plen - 1] == '/' &&
	    (plen < 2 || p[plen - 2] != '\\'))
		return glob_dir_matches(p, plen - 1, s, len);
	if (!is_glob(p, plen))
		return len == plen && !memcmp(s, p, len);
	/* "[::1]" in a bind subject is an address, not a class */
	if (r->target == FP_T_BIND || r->target == FP_T_CONNECT)
		return glob_match(p, plen, s, len, false, false);
	return fp_glob_match(p, plen, s, len, pathlike(r->target));
}

static int add_rule(struct fp_policy *p, enum fp_rule_kind kind,
		    enum fp_rule_target target, const char *pat, size_t len,
		    const char *text, const char *by, size_t bylen)
{
	struct fp_rule *nr = realloc(p->rules, (p->n + 1) * sizeof(*nr));
	struct fp_rule *r;

	if (!nr)
		return -ENOMEM;
	p->rules = nr;
	r = &p->rules[p->n];
	r->pattern = malloc(len + 1);
	r->text = strdup(text);
	r->by = by ? malloc(bylen + 1) : NULL;
	if (!r->pattern || !r->text || (by && !r->by)) {
		free(r->pattern);
		free(r->text);
		free(r->by);
		return -ENOMEM;
	}
	memcpy(r->pattern, pat, len);
	r->pattern[len] = '\0';
	r->len = len;
	if (by) {
		memcpy(r->by, by, bylen);
		r->by[bylen] = '\0';
		p->nby++;
	}
	r->bylen = bylen;
	r->kind = kind;
	r->target = target;
	p->n++;
	return 0;
}

static const char *kind_name(enum fp_rule_kind k)
{
	static const char *const names[] = { "allow", "forbid", "expect",
					     "ignore" };
	return names[k];
}

const char *fp_policy_procop_word(enum fp_rule_target t)
{
	static const char *const words[] = { "setuid ", "mount ", "namespace ",
					     "fileless " };

	return t >= FP_T_SETUID && t <= FP_T_FILELESS ? words[t - FP_T_SETUID] :
							NULL;
}

static const char *target_name(enum fp_rule_target t)
{
	if (t >= FP_T_SETUID)
		return fp_policy_procop_word(t);
	return t == FP_T_PROCESS ? "process " :
	       t == FP_T_BIND	 ? "bind " :
	       t == FP_T_PRIV	 ? "privileged " :
	       t == FP_T_READ	 ? "read " :
	       t == FP_T_SIGNAL	 ? "signal " :
	       t == FP_T_PTRACE	 ? "ptrace " :
	       t == FP_T_CONNECT ? "connect " :
	       t == FP_T_DNS	 ? "dns " :
				   "";
}

/*
 * A relative path pattern without its "." components: "./x" is "x", "a/./b" is
 * "a/b", and "." or "./" alone is "" with *dir set (the root itself and
 * everything in it, as "DIR/" is a directory and what is below it). A
 * user writes "./" to mean the root; the kernel never reports a path
 * with a "." in it, so such a pattern could never match. A ".."
 * component is refused (-EINVAL): a pattern is not resolved against the
 * filesystem, and "../x" would silently match nothing. out holds len
 * bytes; returns the length of the result.
 */
static ssize_t drop_dots(const char *pat, size_t len, char *out, bool *dir)
{
	size_t i = 0, o = 0, n;

	*dir = len && pat[len - 1] == '/';
	if (len && pat[0] == '/')
		out[o++] = pat[i++];
	while (i < len) {
		n = 0;
		while (i + n < len && pat[i + n] != '/')
			n++;
		if (n == 2 && pat[i] == '.' && pat[i + 1] == '.')
			return -EINVAL;
		if (n == 1 && pat[i] == '.') {
			/* "x/." is the directory x */
			if (i + n == len)
				*dir = true;
		} else if (n) {
			if (o && out[o - 1] != '/')
				out[o++] = '/';
			memcpy(out + o, pat + i, n);
			o += n;
		}
		i += n + 1;
	}
	if (*dir && o && out[o - 1] != '/')
		out[o++] = '/';
	return o;
}

int fp_policy_add(struct fp_policy *p, enum fp_rule_kind kind,
		  enum fp_rule_target target, const char *pattern, size_t len,
		  char *const *roots, size_t nroots, char *err, size_t errlen)
{
	return fp_policy_add_by(p, kind, target, pattern, len, NULL, 0, roots,
				nroots, err, errlen);
}

/* "by EXE" scopes a read rule to the processes of that executable */
static int check_by(enum fp_rule_kind kind, enum fp_rule_target target,
		    const char *by, size_t bylen, char *err, size_t errlen)
{
	if (!by)
		return 0;
	if (target != FP_T_READ) {
		snprintf(
			err, errlen,
			"footprint: 'by' names the program of a read rule only: '%s read PATTERN by EXE'",
			kind_name(kind));
		return -EINVAL;
	}
	if (!bylen || memchr(by, '\0', bylen)) {
		snprintf(err, errlen,
			 "footprint: 'by' wants an executable's path pattern");
		return -EINVAL;
	}
	return 0;
}

/* what no rule can be: empty, a NUL, a promise about what changes nothing */
static int check_rule(enum fp_rule_kind kind, enum fp_rule_target target,
		      const char *pattern, size_t len, char *err, size_t errlen)
{
	if (len == 0) {
		snprintf(err, errlen, "footprint: empty %s pattern",
			 kind_name(kind));
		return -EINVAL;
	}
	if (memchr(pattern, '\0', len)) {
		snprintf(err, errlen,
			 "footprint: a %s pattern cannot hold a NUL byte",
			 kind_name(kind));
		return -EINVAL;
	}
	if ((target == FP_T_READ || target == FP_T_SIGNAL ||
	     target == FP_T_PTRACE || target >= FP_T_SETUID) &&
	    kind == FP_EXPECT) {
		const char *w = target_name(target);

		snprintf(
			err, errlen,
			"footprint: 'expect %.*s' is not a rule: it changes nothing to expect; use allow, forbid or ignore",
			(int)strlen(w) - 1, w);
		return -EINVAL;
	}
	return 0;
}

/* A relative path pattern (norm, len; dir: it named a directory) as one
 * rule per root. */
static int add_under_roots(struct fp_policy *p, enum fp_rule_kind kind,
			   enum fp_rule_target target, const char *pattern,
			   size_t len, const char *text, const char *by,
			   size_t bylen, char *const *roots, size_t nroots)
{
	size_t i, k;
	int ret = 0;

	for (i = 0; i < nroots && !ret; i++) {
		size_t rl = strlen(roots[i]), al = 0;
		char *abs = malloc(2 * rl + 1 + len);

		if (!abs)
			return -ENOMEM;
		/* the root is a name, not a pattern: "/w/a*b" matches only
		 * itself (an escape makes the rule a glob, which reads it so) */
		for (k = 0; k < rl; k++) {
			if (is_glob(roots[i] + k, 1))
				abs[al++] = '\\';
			abs[al++] = roots[i][k];
		}
		if (!(rl == 1 && roots[i][0] == '/'))
			abs[al++] = '/';
		memcpy(abs + al, pattern, len);
		ret = add_rule(p, kind, target, abs, al + len, text, by, bylen);
		free(abs);
	}
	return ret;
}

int fp_policy_add_by(struct fp_policy *p, enum fp_rule_kind kind,
		     enum fp_rule_target target, const char *pattern,
		     size_t len, const char *by, size_t bylen,
		     char *const *roots, size_t nroots, char *err,
		     size_t errlen)
{
	char quoted[8192], qby[8192] = "", *text = NULL, *norm = NULL;
	bool dir = false;
	ssize_t nl;
	int ret = 0;

	if (check_rule(kind, target, pattern, len, err, errlen) ||
	    check_by(kind, target, by, bylen, err, errlen))
		return -EINVAL;
	fp_policy_quote(quoted, sizeof(quoted), pattern, len, false);
	if (by)
		fp_policy_quote(qby, sizeof(qby), by, bylen, false);
	if (asprintf(&text, "%s %s%s%s%s", kind_name(kind), target_name(target),
		     quoted, by ? " by " : "", qby) < 0)
		return -ENOMEM;
	/* a relative path pattern: an absolute one is taken as it is */
	if (pathlike(target) && pattern[0] != '/') {
		norm = malloc(len + 1);
		if (!norm) {
			ret = -ENOMEM;
			goto cleanup;
		}
		nl = drop_dots(pattern, len, norm, &dir);
		if (nl < 0) {
			snprintf(
				err, errlen,
				"footprint: '..' in the pattern %s is not resolved; name the path without it",
				quoted);
			ret = -EINVAL;
			goto cleanup;
		}
		/* "." and "./": the root, written as "" before its '/' */
		pattern = norm;
		len = nl;
		if (!len && !dir) {
			snprintf(err, errlen, "footprint: empty %s pattern",
				 kind_name(kind));
			ret = -EINVAL;
			goto cleanup;
		}
	}
	if (!pathlike(target) || (len && pattern[0] == '/') || nroots == 0)
		ret = len ? add_rule(p, kind, target, pattern, len, text, by,
				     bylen) :
			    add_rule(p, kind, target, "./", 2, text, by, bylen);
	else
		ret = add_under_roots(p, kind, target, pattern, len, text, by,
				      bylen, roots, nroots);
cleanup:
	free(norm);
	free(text);
	return ret;
}

/* "process", "leftover", "exec", "bind", "read", "signal", "ptrace" or
 * "privileged": a target, not a pattern */
static bool is_target_word(const char *s, size_t len,
			   enum fp_rule_target *target)
{
	static const char *const words[] = { "process", "leftover",   "exec",
					     "bind",	"read",	      "signal",
					     "ptrace",	"privileged", "connect",
					     "dns" };
	static const enum fp_rule_target targets[] = {
		FP_T_PROCESS, FP_T_PROCESS, FP_T_PROCESS, FP_T_BIND,
		FP_T_READ,    FP_T_SIGNAL,  FP_T_PTRACE,  FP_T_PRIV,
		FP_T_CONNECT, FP_T_DNS
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strlen(words[i]) == len && !memcmp(s, words[i], len)) {
			*target = targets[i];
			return true;
		}
	}
	for (i = FP_T_SETUID; i <= FP_T_FILELESS; i++) {
		const char *w = fp_policy_procop_word(i);

		/* the word has a space after it */
		if (strlen(w) == len + 1 && !memcmp(s, w, len)) {
			*target = i;
			return true;
		}
	}
	return false;
}

/* the value of an ASCII hex digit (isxdigit is true of c) */
static unsigned int hex_digit(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static int unquote(const char *s, size_t len, char *out, size_t *outlen,
		   const char **end)
{
	size_t i = 1, o = 0;

	while (i < len && s[i] != '"') {
		char c = s[i++];

		if (c == '\\') {
			if (i >= len)
				return -EINVAL;
			c = s[i++];
			switch (c) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'x':
				/* by hand: sscanf would read on to a NUL the
				 * line does not have */
				if (i + 2 > len ||
				    !isxdigit((unsigned char)s[i]) ||
				    !isxdigit((unsigned char)s[i + 1]))
					return -EINVAL;
				c = (char)(hex_digit(s[i]) << 4 |
					   hex_digit(s[i + 1]));
				i += 2;
				break;
			case '"':
			case '\\':
				break;
			default:
				/* keep glob escapes for the matcher */
				out[o++] = '\\';
				break;
			}
		}
		out[o++] = c;
	}
	if (i >= len)
		return -EINVAL;
	*outlen = o;
	*end = s + i + 1;
	return 0;
}

/* Nothing but blanks, or blanks and a comment, from s to e? */
static bool only_comment(const char *s, const char *e)
{
	const char *t = s;

	while (t < e && isspace((unsigned char)*t))
		t++;
	return t == e || (*t == '#' && t > s);
}

/* A bare pattern ends at a '#' after a blank: "allow a.txt  # covers 3" */
static const char *bare_end(const char *s, const char *e)
{
	const char *t;

	for (t = s + 1; t < e; t++)
		if (*t == '#' && isspace((unsigned char)t[-1]))
			break;
	while (t > s && isspace((unsigned char)t[-1]))
		t--;
	return t;
}

/* blanks from s up to e skipped */
static const char *skip_blanks(const char *s, const char *e)
{
	while (s < e && isspace((unsigned char)*s))
		s++;
	return s;
}

/* The word "by" at t (before e), a blank before it, and a blank or e
 * after it? */
static bool by_at(const char *s, const char *t, const char *e)
{
	return t > s && isspace((unsigned char)t[-1]) && e - t >= 2 &&
	       t[0] == 'b' && t[1] == 'y' &&
	       (e - t == 2 || isspace((unsigned char)t[2]));
}

/*
 * A bare read pattern ends before " by EXE": the end of the pattern in
 * [s, pe), and *exe where EXE starts (NULL: no "by"). A read pattern
 * that holds " by " is written quoted.
 */
static const char *bare_by(const char *s, const char *pe, const char **exe)
{
	const char *t, *b;

	*exe = NULL;
	for (t = s + 1; t < pe; t++) {
		if (!by_at(s, t, pe))
			continue;
		for (b = t; b > s && isspace((unsigned char)b[-1]); b--)
			;
		*exe = skip_blanks(t + 2, pe);
		return b;
	}
	return pe;
}

/* One token, quoted or bare, into out; then a comment, or for a read
 * pattern (read) "by" and where EXE starts (*exe). */
static int token(const char *s, const char *e, char *out, size_t *len,
		 bool read, const char **exe)
{
	const char *end, *t;

	*exe = NULL;
	if (s < e && *s == '"') {
		if (unquote(s, e - s, out, len, &end))
			return -EINVAL;
		t = skip_blanks(end, e);
		if (read && by_at(end, t, e)) {
			*exe = skip_blanks(t + 2, e);
			return 0;
		}
		return only_comment(end, e) ? 0 : -EINVAL;
	}
	end = bare_end(s, e);
	if (read)
		end = bare_by(s, end, exe);
	*len = end - s;
	memcpy(out, s, *len);
	return 0;
}

/*
 * The pattern of a rule from s to e and, for a read rule, the program it
 * is scoped to ("by EXE", into byout): *by set when there is one.
 */
static int parse_pattern(const char *s, const char *e,
			 enum fp_rule_target target, char *pat, size_t *plen,
			 char *byout, bool *by, size_t *bylen, char *err,
			 size_t errlen)
{
	const char *exe, *none;

	*by = false;
	if (token(s, e, pat, plen, target == FP_T_READ, &exe)) {
		snprintf(err, errlen, "bad quoted pattern %.*s", (int)(e - s),
			 s);
		return -EINVAL;
	}
	if (!exe)
		return 0;
	if (exe >= e || *exe == '#' ||
	    token(exe, e, byout, bylen, false, &none) || !*bylen) {
		snprintf(
			err, errlen,
			"'by' wants the path of a program: 'read PATTERN by /usr/sbin/unix_chkpwd'");
		return -EINVAL;
	}
	*by = true;
	return 0;
}

/*
 * "severity KIND LEVEL": the findings of KIND (a receipt list, "files.read",
 * "network.dns") are LEVEL (critical, high, medium, low) in every report.
 */
static int parse_severity(struct fp_policy *p, const char *s, const char *e,
			  char *err, size_t errlen)
{
	const char *kind, *lvl;
	size_t kl, ll;
	enum fp_severity sev;
	int k;

	kind = skip_blanks(s, e);
	for (s = kind; s < e && !isspace((unsigned char)*s); s++)
		;
	kl = s - kind;
	lvl = skip_blanks(s, e);
	for (s = lvl; s < e && !isspace((unsigned char)*s); s++)
		;
	ll = s - lvl;
	if (!kl || !ll || !only_comment(s, e)) {
		snprintf(
			err, errlen,
			"'severity' wants a kind and a level: severity KIND critical|high|medium|low");
		return -EINVAL;
	}
	k = fp_severity_kind(kind, kl);
	if (k < 0 || (kl > 7 && !memcmp(kind, "tamper.", 7))) {
		snprintf(
			err, errlen,
			"unknown finding kind '%.*s' in a severity line: want one of %s",
			(int)kl, kind, fp_severity_kinds());
		return -EINVAL;
	}
	if (fp_severity_parse(lvl, ll, &sev)) {
		snprintf(
			err, errlen,
			"unknown severity '%.*s': want critical, high, medium or low",
			(int)ll, lvl);
		return -EINVAL;
	}
	p->sev.sev[k] = sev;
	return 0;
}

int fp_policy_parse_line(struct fp_policy *p, const char *line, size_t len,
			 char *const *roots, size_t nroots, char *err,
			 size_t errlen)
{
	static const char *const kinds[] = { "allow", "forbid", "expect",
					     "ignore" };
	enum fp_rule_target target = FP_T_PATH;
	const char *s = line, *e = line + len, *w;
	char *pat = NULL;
	size_t plen, k, wl, bylen = 0;
	bool by = false;
	int ret;

	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	if (s == e || *s == '#')
		return 0;
	if ((size_t)(e - s) == 9 && !memcmp(s, "noise off", 9)) {
		p->report_noise = true;
		return 0;
	}
	if (e - s > 9 && !memcmp(s, "severity", 8) &&
	    isspace((unsigned char)s[8]))
		return parse_severity(p, s + 9, e, err, errlen);
	for (w = s; w < e && !isspace((unsigned char)*w); w++)
		;
	wl = w - s;
	for (k = 0; k < 4; k++)
		if (strlen(kinds[k]) == wl && !memcmp(s, kinds[k], wl))
			break;
	if (k == 4) {
		snprintf(
			err, errlen,
			"unknown rule '%.*s': want allow, forbid, expect or ignore",
			(int)wl, s);
		return -EINVAL;
	}
	s = w;
	while (s < e && isspace((unsigned char)*s))
		s++;
	for (w = s; w < e && !isspace((unsigned char)*w); w++)
		;
	wl = w - s;
	/* a bare target word is a rule without a pattern; quote a file
	 * that has such a name */
	if (is_target_word(s, wl, &target))
		s = w;
	/* a raised privilege is never noise, nor a promise to keep */
	if (target == FP_T_PRIV && (k == FP_EXPECT || k == FP_IGNORE)) {
		snprintf(err, errlen,
			 "'%s privileged' is not a rule: use allow or forbid",
			 kinds[k]);
		return -EINVAL;
	}
	while (s < e && isspace((unsigned char)*s))
		s++;
	if (s == e) {
		snprintf(err, errlen, "rule '%s' has no pattern", kinds[k]);
		return -EINVAL;
	}
	pat = malloc(2 * (e - s) + 2);
	if (!pat)
		return -ENOMEM;
	ret = parse_pattern(s, e, target, pat, &plen, pat + (e - s) + 1, &by,
			    &bylen, err, errlen);
	if (!ret)
		ret = fp_policy_add_by(p, k, target, pat, plen,
				       by ? pat + (e - s) + 1 : NULL, bylen,
				       roots, nroots, err, errlen);
	free(pat);
	return ret;
}

int fp_policy_load(struct fp_policy *p, const struct fp_creds *creds,
		   const char *file, char *const *roots, size_t nroots,
		   char *err, size_t errlen)
{
	char *line = NULL, msg[512];
	size_t cap = 0, total = 0;
	ssize_t n;
	int fd, lineno = 0, ret = 0;
	FILE *f;

	fd = fp_input_open(creds, "policy", file, FP_POLICY_MAX_BYTES, err,
			   errlen);
	if (fd < 0)
		return fd;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		snprintf(err, errlen, "footprint: out of memory");
		return -ENOMEM;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		/* the file may grow after fstat checked its size */
		total += n;
		if (total > FP_POLICY_MAX_BYTES) {
			snprintf(
				err, errlen,
				"footprint: policy %s is larger than %d MiB; split it",
				file, FP_POLICY_MAX_BYTES >> 20);
			ret = -EFBIG;
			break;
		}
		msg[0] = '\0';
		ret = fp_policy_parse_line(p, line, n, roots, nroots, msg,
					   sizeof(msg));
		if (ret) {
			/* fp_policy_add's own messages start "footprint: " */
			snprintf(err, errlen, "footprint: %s:%d: %s", file,
				 lineno,
				 !msg[0] ? strerror(-ret) :
				 !strncmp(msg, "footprint: ", 11) ? msg + 11 :
								    msg);
			break;
		}
	}
	free(line);
	fclose(f);
	return ret;
}

void fp_policy_free(struct fp_policy *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->rules[i].pattern);
		free(p->rules[i].text);
		free(p->rules[i].by);
	}
	free(p->rules);
	p->rules = NULL;
	p->n = 0;
	p->nby = 0;
}

/* a rule scoped "by EXE": does the process's executable match it? */
static bool by_matches(const struct fp_rule *r, const char *by, size_t bylen)
{
	struct fp_rule exe = { .kind = r->kind,
			       .target = FP_T_PROCESS,
			       .pattern = r->by,
			       .len = r->bylen };

	if (!r->by)
		return true;
	return by && fp_rule_matches(&exe, by, bylen);
}

enum fp_decision fp_policy_decide(const struct fp_policy *p,
				  enum fp_rule_target target, const char *s,
				  size_t len, const struct fp_rule **rule)
{
	return fp_policy_decide_by(p, target, s, len, NULL, 0, rule);
}

bool fp_policy_names(const struct fp_policy *p, enum fp_rule_target target,
		     const char *s, size_t len, bool *by)
{
	bool named = false;
	size_t i;

	*by = false;
	for (i = 0; i < p->n; i++) {
		const struct fp_rule *r = &p->rules[i];

		if (r->target != target || r->kind == FP_EXPECT ||
		    !fp_rule_matches(r, s, len))
			continue;
		named = true;
		*by |= r->by != NULL;
	}
	return named;
}

enum fp_decision fp_policy_decide_by(const struct fp_policy *p,
				     enum fp_rule_target target, const char *s,
				     size_t len, const char *by, size_t bylen,
				     const struct fp_rule **rule)
{
	const struct fp_rule *allow = NULL, *ignore = NULL;
	size_t i;

	if (rule)
		*rule = NULL;
	for (i = 0; i < p->n; i++) {
		const struct fp_rule *r = &p->rules[i];

		if (r->target != target || r->kind == FP_EXPECT ||
		    !fp_rule_matches(r, s, len) || !by_matches(r, by, bylen))
			continue;
		if (r->kind == FP_FORBID) {
			if (rule)
				*rule = r;
			return FP_DEC_FORBID;
		}
		if (r->kind == FP_IGNORE && !ignore)
			ignore = r;
		if (r->kind == FP_ALLOW && !allow)
			allow = r;
	}
	if (target == FP_T_PATH && !ignore && !p->report_noise &&
	    fp_policy_is_noise(s, len))
		return FP_DEC_IGNORE;
	if (rule)
		*rule = ignore ? ignore : allow;
	return ignore ? FP_DEC_IGNORE : allow ? FP_DEC_ALLOW : FP_DEC_NONE;
}

enum fp_decision fp_policy_forbids(const struct fp_policy *p,
				   enum fp_rule_target target, const char *s,
				   size_t len, const struct fp_rule **rule)
{
	size_t i;

	if (rule)
		*rule = NULL;
	for (i = 0; i < p->n; i++) {
		const struct fp_rule *r = &p->rules[i];

		if (r->target == target && r->kind == FP_FORBID && !r->by &&
		    fp_rule_matches(r, s, len)) {
			if (rule)
				*rule = r;
			return FP_DEC_FORBID;
		}
	}
	return FP_DEC_NONE;
}

bool fp_policy_is_noise(const char *path, size_t len)
{
	static const char *const noise[] = {
		"/dev/null",
		"/dev/zero",
		"/dev/full",
		"/dev/random",
		"/dev/urandom",
		"/dev/tty",
		"/dev/tty*",
		"/dev/pts/*",
		"/dev/ptmx",
		"/proc/self/**",
		"/proc/thread-self/**",
	};
	size_t i;

	/* /proc/self/fd/3 is whatever fd 3 is: that is not noise */
	if (fp_path_magic(path, len))
		return false;
	for (i = 0; i < sizeof(noise) / sizeof(noise[0]); i++)
		if (fp_glob_match(noise[i], strlen(noise[i]), path, len, true))
			return true;
	return false;
}

void fp_policy_quote(char *out, size_t outlen, const char *s, size_t len,
		     bool escape_glob)
{
	size_t i, o = 0;
	enum fp_rule_target t;
	/* a pattern that reads as a target word must stay a pattern */
	bool bare = len > 0 && s[0] != '"' && !is_target_word(s, len, &t);

	for (i = 0; i < len && bare; i++) {
		unsigned char c = s[i];

		if (c <= 0x20 || c >= 0x7f || c == '"' || c == '#' ||
		    (escape_glob && strchr("*?[\\", c)))
			bare = false;
	}
	if (bare) {
		snprintf(out, outlen, "%.*s", (int)len, s);
		return;
	}
	if (outlen < 3) {
		if (outlen)
			out[0] = '\0';
		return;
	}
	out[o++] = '"';
	for (i = 0; i < len && o + 10 < outlen; i++) {
		unsigned char c = s[i];

		if (c == '\\' && escape_glob) {
			/* the matcher's escape, itself escaped for the quotes */
			o += snprintf(out + o, outlen - o, "\\\\\\\\");
		} else if (c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = c;
		} else if (escape_glob && strchr("*?[", c) && c) {
			/* a literal glob character in a suggested path */
			o += snprintf(out + o, outlen - o, "\\\\%c", c);
		} else if (c < 0x20 || c >= 0x7f) {
			o += snprintf(out + o, outlen - o, "\\x%02x", c);
		} else {
			out[o++] = c;
		}
	}
	out[o++] = '"';
	out[o] = '\0';
}

char *fp_policy_quote_dup(const char *s, size_t len, bool escape_glob)
{
	/* at most four bytes out per byte in, plus quotes and NUL */
	size_t n = 4 * len + 16;
	char *out = malloc(n);

	if (out)
		fp_policy_quote(out, n, s, len, escape_glob);
	return out;
}
