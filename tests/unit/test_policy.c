// SPDX-License-Identifier: GPL-2.0
/* policy: glob matcher, rule parsing, decisions, noise, quoting */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "policy.h"

static struct fp_policy P;
static char err[512];

static void teardown(void)
{
	fp_policy_free(&P);
}

TestSuite(policy, .fini = teardown, .timeout = 10);

/* ---- glob ---- */

static bool g(const char *pat, const char *s)
{
	return fp_glob_match(pat, strlen(pat), s, strlen(s), true);
}

#define MATCH(pat, s) cr_assert(g(pat, s), "'%s' should match '%s'", pat, s)
#define NO_MATCH(pat, s) \
	cr_assert_not(g(pat, s), "'%s' should not match '%s'", pat, s)

Test(policy, glob_literal)
{
	MATCH("/a/b", "/a/b");
	NO_MATCH("/a/b", "/a/bc");
	NO_MATCH("/a/bc", "/a/b");
	MATCH("", "");
	NO_MATCH("", "x");
}

Test(policy, glob_star_within_component)
{
	MATCH("/a/*.c", "/a/x.c");
	MATCH("/a/*.c", "/a/.c");
	MATCH("/a/*", "/a/anything");
	NO_MATCH("/a/*.c", "/a/b/x.c");
	NO_MATCH("/a/*", "/a/b/c");
	MATCH("/a/*/c", "/a/b/c");
	NO_MATCH("/a/*/c", "/a/b/d/c");
	MATCH("/*/*", "/x/y");
	MATCH("/a/x*y*z", "/a/xaaybbz");
	NO_MATCH("/a/x*y*z", "/a/xaaybb");
}

Test(policy, glob_double_star_crosses)
{
	MATCH("/a/**", "/a/b");
	MATCH("/a/**", "/a/b/c/d");
	MATCH("/a/**.c", "/a/b/c/x.c");
	MATCH("/a/**/x.c", "/a/b/c/x.c");
	NO_MATCH("/a/**/x.c", "/a/b/c/y.c");
	NO_MATCH("/a/**", "/b/a/c");
	MATCH("**", "/any/thing");
	MATCH("/proc/self/**", "/proc/self/fd/1");
}

Test(policy, glob_question)
{
	MATCH("/a/?", "/a/b");
	NO_MATCH("/a/?", "/a/bc");
	NO_MATCH("/a/?", "/a/");
	NO_MATCH("/a?b", "/a/b");
	MATCH("/a/??.txt", "/a/xy.txt");
	/* any byte, not any UTF-8 character */
	MATCH("/a/?", "/a/\xff");
}

Test(policy, glob_classes)
{
	MATCH("/a/[a-c]", "/a/a");
	MATCH("/a/[a-c]", "/a/b");
	MATCH("/a/[a-c]", "/a/c");
	NO_MATCH("/a/[a-c]", "/a/d");
	MATCH("/a/[!x]", "/a/y");
	NO_MATCH("/a/[!x]", "/a/x");
	MATCH("/a/[^x]", "/a/y");
	NO_MATCH("/a/[^x]", "/a/x");
	MATCH("/a/[xyz]1", "/a/y1");
	NO_MATCH("/a/[xyz]1", "/a/w1");
	MATCH("/a/[]]", "/a/]");
	MATCH("/a/[!]]", "/a/x");
	NO_MATCH("/a/[!]]", "/a/]");
	MATCH("/a/[a-]", "/a/-");
	/* a class never matches the separator */
	NO_MATCH("/a[!x]b", "/a/b");
	NO_MATCH("/a[/]b", "/a/b");
	/* high bytes compare unsigned */
	MATCH("/a/[\x80-\xff]", "/a/\xe9");
	NO_MATCH("/a/[\x80-\xff]", "/a/e");
}

Test(policy, glob_malformed_class_is_literal)
{
	MATCH("/a/[bc", "/a/[bc");
	NO_MATCH("/a/[bc", "/a/b");
}

Test(policy, glob_escapes)
{
	MATCH("/a/\\*", "/a/*");
	NO_MATCH("/a/\\*", "/a/x");
	MATCH("/a/\\?", "/a/?");
	NO_MATCH("/a/\\?", "/a/x");
	MATCH("/a/\\[x]", "/a/[x]");
	NO_MATCH("/a/\\[x]", "/a/x");
	MATCH("/a/\\\\", "/a/\\");
	MATCH("/a/\\b", "/a/b");
	/* a trailing backslash is itself */
	MATCH("/a/\\", "/a/\\");
}

Test(policy, glob_without_slash_special)
{
	cr_assert(fp_glob_match("sleep*", 6, "sleep 100 /x/y", 14, false));
	cr_assert(fp_glob_match("/usr/*", 6, "/usr/bin/sleep", 14, false));
	cr_assert(fp_glob_match("a?b", 3, "a/b", 3, false));
	cr_assert_not(fp_glob_match("/usr/*", 6, "/usr/bin/sleep", 14, true));
}

Test(policy, glob_lengths_not_nul)
{
	/* bytes with a length: a NUL inside is just a byte */
	cr_assert(fp_glob_match("/a/*", 4, "/a/x\0y", 6, true));
	cr_assert_not(fp_glob_match("/a/x", 4, "/a/x\0y", 6, true));
	cr_assert(fp_glob_match("/a/xyz", 4, "/a/x", 4, true));
}

/* ---- rules ---- */

static char *roots1[] = { "/root" };

static void parse(const char *line, char *const *roots, size_t nroots)
{
	int ret;

	err[0] = '\0';
	ret = fp_policy_parse_line(&P, line, strlen(line), roots, nroots, err,
				   sizeof(err));
	cr_assert_eq(ret, 0, "parse '%s': %d %s", line, ret, err);
}

static int parse_err(const char *line)
{
	int ret;

	err[0] = '\0';
	ret = fp_policy_parse_line(&P, line, strlen(line), roots1, 1, err,
				   sizeof(err));
	cr_assert_neq(ret, 0, "'%s' parsed", line);
	return ret;
}

static enum fp_decision decide(enum fp_rule_target t, const char *s)
{
	return fp_policy_decide(&P, t, s, strlen(s), NULL);
}

static enum fp_decision path(const char *s)
{
	return decide(FP_T_PATH, s);
}

static void assert_rule(size_t i, enum fp_rule_kind k, enum fp_rule_target t,
			const char *pat, size_t plen, const char *text)
{
	const struct fp_rule *r;

	cr_assert_lt(i, P.n, "only %zu rules", P.n);
	r = &P.rules[i];
	cr_assert_eq(r->kind, k, "rule %zu kind %d", i, r->kind);
	cr_assert_eq(r->target, t, "rule %zu target %d", i, r->target);
	cr_assert(r->len == plen && !memcmp(r->pattern, pat, plen),
		  "rule %zu pattern '%.*s' (%zu), want '%.*s'", i, (int)r->len,
		  r->pattern, r->len, (int)plen, pat);
	cr_assert_eq(r->pattern[r->len], '\0');
	if (text)
		cr_assert_str_eq(r->text, text);
}

Test(policy, dir_prefix)
{
	parse("allow /root/logs/", roots1, 1);
	cr_assert_eq(path("/root/logs"), FP_DEC_ALLOW);
	cr_assert_eq(path("/root/logs/a"), FP_DEC_ALLOW);
	cr_assert_eq(path("/root/logs/a/b"), FP_DEC_ALLOW);
	cr_assert_eq(path("/root/logs2"), FP_DEC_NONE);
	cr_assert_eq(path("/root/log"), FP_DEC_NONE);
	cr_assert_eq(path("/root"), FP_DEC_NONE);
}

Test(policy, relative_dir_prefix)
{
	parse("allow logs/", roots1, 1);
	assert_rule(0, FP_ALLOW, FP_T_PATH, "/root/logs/", 11, "allow logs/");
	cr_assert_eq(path("/root/logs"), FP_DEC_ALLOW);
	cr_assert_eq(path("/root/logs/a/b"), FP_DEC_ALLOW);
	cr_assert_eq(path("/root/logs2"), FP_DEC_NONE);
	cr_assert_eq(path("/logs/a"), FP_DEC_NONE);
}

Test(policy, exact_path)
{
	parse("allow /root/a", roots1, 1);
	cr_assert_eq(path("/root/a"), FP_DEC_ALLOW);
	cr_assert_eq(path("/root/a/b"), FP_DEC_NONE);
	cr_assert_eq(path("/root/ab"), FP_DEC_NONE);
	cr_assert_eq(path("/root/"), FP_DEC_NONE);
}

Test(policy, slash_alone_is_everything_below)
{
	parse("allow /", roots1, 1);
	cr_assert_eq(path("/"), FP_DEC_ALLOW);
	cr_assert_eq(path("/etc/passwd"), FP_DEC_ALLOW);
}

Test(policy, relative_patterns_expand_per_root)
{
	static char *roots[] = { "/srv/a", "/srv/b", "/" };

	parse("allow out/*.txt", roots, 3);
	cr_assert_eq(P.n, 3);
	assert_rule(0, FP_ALLOW, FP_T_PATH, "/srv/a/out/*.txt", 16,
		    "allow out/*.txt");
	assert_rule(1, FP_ALLOW, FP_T_PATH, "/srv/b/out/*.txt", 16,
		    "allow out/*.txt");
	assert_rule(2, FP_ALLOW, FP_T_PATH, "/out/*.txt", 10,
		    "allow out/*.txt");
	cr_assert_eq(path("/srv/a/out/x.txt"), FP_DEC_ALLOW);
	cr_assert_eq(path("/srv/b/out/x.txt"), FP_DEC_ALLOW);
	cr_assert_eq(path("/out/x.txt"), FP_DEC_ALLOW);
	cr_assert_eq(path("/srv/c/out/x.txt"), FP_DEC_NONE);
	cr_assert_eq(path("/srv/a/out/sub/x.txt"), FP_DEC_NONE);
}

Test(policy, relative_without_roots_kept)
{
	parse("allow x", NULL, 0);
	assert_rule(0, FP_ALLOW, FP_T_PATH, "x", 1, "allow x");
}

Test(policy, absolute_not_expanded)
{
	static char *roots[] = { "/srv/a", "/srv/b" };

	parse("forbid /etc/", roots, 2);
	cr_assert_eq(P.n, 1);
	assert_rule(0, FP_FORBID, FP_T_PATH, "/etc/", 5, "forbid /etc/");
}

Test(policy, process_and_bind_patterns_not_expanded)
{
	parse("allow process sleep", roots1, 1);
	parse("allow bind tcp/127.0.0.1:8080", roots1, 1);
	assert_rule(0, FP_ALLOW, FP_T_PROCESS, "sleep", 5,
		    "allow process sleep");
	assert_rule(1, FP_ALLOW, FP_T_BIND, "tcp/127.0.0.1:8080", 18,
		    "allow bind tcp/127.0.0.1:8080");
}

/* ---- parsing ---- */

Test(policy, comments_and_blank_lines)
{
	parse("", roots1, 1);
	parse("   \t  ", roots1, 1);
	parse("\n", roots1, 1);
	parse("# allow /x", roots1, 1);
	parse("   # indented comment", roots1, 1);
	cr_assert_eq(P.n, 0);
	cr_assert_not(P.report_noise);
}

Test(policy, kinds_and_whitespace)
{
	parse("allow /a\n", roots1, 1);
	parse("  forbid\t/b  \r\n", roots1, 1);
	parse("expect /c", roots1, 1);
	parse("ignore    /d", roots1, 1);
	cr_assert_eq(P.n, 4);
	assert_rule(0, FP_ALLOW, FP_T_PATH, "/a", 2, "allow /a");
	assert_rule(1, FP_FORBID, FP_T_PATH, "/b", 2, "forbid /b");
	assert_rule(2, FP_EXPECT, FP_T_PATH, "/c", 2, "expect /c");
	assert_rule(3, FP_IGNORE, FP_T_PATH, "/d", 2, "ignore /d");
}

Test(policy, targets)
{
	parse("allow process /usr/bin/sleep", roots1, 1);
	parse("forbid leftover /usr/sbin/sshd", roots1, 1);
	parse("ignore exec /bin/true", roots1, 1);
	parse("allow bind udp/*:53", roots1, 1);
	assert_rule(0, FP_ALLOW, FP_T_PROCESS, "/usr/bin/sleep", 14,
		    "allow process /usr/bin/sleep");
	assert_rule(1, FP_FORBID, FP_T_PROCESS, "/usr/sbin/sshd", 14,
		    "forbid process /usr/sbin/sshd");
	assert_rule(2, FP_IGNORE, FP_T_PROCESS, "/bin/true", 9, NULL);
	assert_rule(3, FP_ALLOW, FP_T_BIND, "udp/*:53", 8,
		    "allow bind udp/*:53");
	cr_assert_eq(decide(FP_T_PROCESS, "/usr/bin/sleep"), FP_DEC_ALLOW);
	cr_assert_eq(decide(FP_T_PATH, "/usr/bin/sleep"), FP_DEC_NONE);
	cr_assert_eq(decide(FP_T_BIND, "udp/0.0.0.0:53"), FP_DEC_ALLOW);
	cr_assert_eq(decide(FP_T_BIND, "udp/[::1]:53"), FP_DEC_ALLOW);
	cr_assert_eq(decide(FP_T_BIND, "tcp/0.0.0.0:53"), FP_DEC_NONE);
}

Test(policy, target_words_alone_are_errors)
{
	/* a target word needs a pattern; a file so named must be quoted */
	cr_assert_neq(parse_err("allow process"), 0);
	cr_assert_neq(parse_err("forbid bind"), 0);
	cr_assert_eq(P.n, 0);
	parse("allow \"process\"", roots1, 1);
	assert_rule(0, FP_ALLOW, FP_T_PATH, "/root/process", 13, NULL);
}

Test(policy, quoted_patterns)
{
	parse("allow \"/root/a b\"", roots1, 1);
	parse("allow \"/root/a\\nb\"", roots1, 1);
	parse("allow \"/root/\\xff\\x41\"", roots1, 1);
	parse("allow \"/root/q\\\"q\"", roots1, 1);
	parse("allow \"/root/b\\\\s\"", roots1, 1);
	parse("allow \"/root/t\\tt\"", roots1, 1);
	parse("allow \"/root/#not a comment\"", roots1, 1);
	parse("allow process \"sleep 100\"", roots1, 1);
	parse("allow \"rel dir/\"", roots1, 1);
	assert_rule(0, FP_ALLOW, FP_T_PATH, "/root/a b", 9, NULL);
	assert_rule(1, FP_ALLOW, FP_T_PATH, "/root/a\nb", 9, NULL);
	assert_rule(2, FP_ALLOW, FP_T_PATH,
		    "/root/\xff"
		    "A",
		    8, NULL);
	assert_rule(3, FP_ALLOW, FP_T_PATH, "/root/q\"q", 9, NULL);
	assert_rule(4, FP_ALLOW, FP_T_PATH, "/root/b\\s", 9, NULL);
	assert_rule(5, FP_ALLOW, FP_T_PATH, "/root/t\tt", 9, NULL);
	assert_rule(6, FP_ALLOW, FP_T_PATH, "/root/#not a comment", 20, NULL);
	assert_rule(7, FP_ALLOW, FP_T_PROCESS, "sleep 100", 9,
		    "allow process \"sleep 100\"");
	assert_rule(8, FP_ALLOW, FP_T_PATH, "/root/rel dir/", 14, NULL);
	cr_assert_eq(path("/root/a b"), FP_DEC_ALLOW);
	cr_assert_eq(path("/root/a\nb"), FP_DEC_ALLOW);
	cr_assert_eq(path("/root/\xff"
			  "A"),
		     FP_DEC_ALLOW);
	cr_assert_eq(path("/root/q\"q"), FP_DEC_ALLOW);
	cr_assert_eq(path("/root/rel dir/x"), FP_DEC_ALLOW);
	cr_assert_eq(decide(FP_T_PROCESS, "sleep 100"), FP_DEC_ALLOW);
}

Test(policy, quoted_glob_escape_kept)
{
	parse("allow \"/root/a\\*b\"", roots1, 1);
	assert_rule(0, FP_ALLOW, FP_T_PATH, "/root/a\\*b", 10, NULL);
	cr_assert_eq(path("/root/a*b"), FP_DEC_ALLOW);
	cr_assert_eq(path("/root/axb"), FP_DEC_NONE);
}

Test(policy, rule_text_quotes_odd_patterns)
{
	parse("allow \"/root/a\\nb\"", roots1, 1);
	cr_assert_str_eq(P.rules[0].text, "allow \"/root/a\\x0ab\"");
}

Test(policy, unknown_rule_is_error)
{
	cr_assert_eq(parse_err("permit /x"), -EINVAL);
	cr_assert(strstr(err, "permit"), "err: %s", err);
	cr_assert_eq(parse_err("Allow /x"), -EINVAL);
	cr_assert_eq(parse_err("allowed /x"), -EINVAL);
	cr_assert_eq(parse_err("/x"), -EINVAL);
	cr_assert_eq(P.n, 0);
}

Test(policy, missing_pattern_is_error)
{
	cr_assert_eq(parse_err("allow"), -EINVAL);
	cr_assert(strstr(err, "no pattern"), "err: %s", err);
	cr_assert_eq(parse_err("forbid   \t"), -EINVAL);
	cr_assert_eq(P.n, 0);
}

Test(policy, bad_quotes_are_errors)
{
	cr_assert_eq(parse_err("allow \"/x"), -EINVAL);
	cr_assert_eq(parse_err("allow \"/x\" junk"), -EINVAL);
	cr_assert_eq(parse_err("allow \"/x\\"), -EINVAL);
	cr_assert_eq(parse_err("allow \"/x\\xg0\""), -EINVAL);
	cr_assert_eq(parse_err("allow \"/x\\x4\""), -EINVAL);
	cr_assert_eq(parse_err("allow \"\""), -EINVAL);
	cr_assert_eq(parse_err("allow \"/a\\x00b\""), -EINVAL);
	cr_assert(strstr(err, "NUL"), "err: %s", err);
	cr_assert_eq(P.n, 0);
}

Test(policy, noise_off)
{
	cr_assert_not(P.report_noise);
	parse("  noise off  ", roots1, 1);
	cr_assert(P.report_noise);
	cr_assert_eq(P.n, 0);
}

Test(policy, load_file)
{
	char tmpl[] = "/tmp/fp-policy-XXXXXX";
	int fd = mkstemp(tmpl);
	static const char text[] = "# a policy\n"
				   "\n"
				   "allow build/\n"
				   "forbid \"/etc/\"\n"
				   "allow process /usr/bin/sleep\n"
				   "noise off\n"
				   "expect out.txt";
	int ret;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, sizeof(text) - 1),
		     (ssize_t)sizeof(text) - 1);
	close(fd);
	ret = fp_policy_load(&P, NULL, tmpl, roots1, 1, err, sizeof(err));
	cr_assert_eq(ret, 0, "%s", err);
	cr_assert_eq(P.n, 4);
	cr_assert(P.report_noise);
	assert_rule(0, FP_ALLOW, FP_T_PATH, "/root/build/", 12, NULL);
	assert_rule(3, FP_EXPECT, FP_T_PATH, "/root/out.txt", 13, NULL);

	fp_policy_free(&P);
	fd = open(tmpl, O_WRONLY | O_TRUNC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "allow /a\n\nallow\n", 16), 16);
	close(fd);
	ret = fp_policy_load(&P, NULL, tmpl, roots1, 1, err, sizeof(err));
	cr_assert_eq(ret, -EINVAL);
	cr_assert(strstr(err, ":3:"), "line number missing: %s", err);
	unlink(tmpl);

	ret = fp_policy_load(&P, NULL, "/nonexistent/policy", roots1, 1, err,
			     sizeof(err));
	cr_assert_eq(ret, -ENOENT);
	cr_assert(strstr(err, "/nonexistent/policy"), "%s", err);
}

Test(policy, add_rejects_empty_and_nul)
{
	cr_assert_eq(fp_policy_add(&P, FP_ALLOW, FP_T_PATH, "", 0, roots1, 1,
				   err, sizeof(err)),
		     -EINVAL);
	cr_assert_eq(fp_policy_add(&P, FP_ALLOW, FP_T_PATH, "/a\0b", 4, roots1,
				   1, err, sizeof(err)),
		     -EINVAL);
	cr_assert_eq(P.n, 0);
}

/* ---- decisions ---- */

Test(policy, decide_precedence)
{
	const struct fp_rule *r;

	parse("allow /root/", roots1, 1);
	parse("ignore /root/cache/", roots1, 1);
	parse("forbid /root/cache/secret", roots1, 1);
	parse("expect /root/x", roots1, 1);
	cr_assert_eq(fp_policy_decide(&P, FP_T_PATH, "/root/a", 7, &r),
		     FP_DEC_ALLOW);
	cr_assert_str_eq(r->text, "allow /root/");
	cr_assert_eq(fp_policy_decide(&P, FP_T_PATH, "/root/cache/a", 13, &r),
		     FP_DEC_IGNORE);
	cr_assert_str_eq(r->text, "ignore /root/cache/");
	cr_assert_eq(
		fp_policy_decide(&P, FP_T_PATH, "/root/cache/secret", 18, &r),
		FP_DEC_FORBID);
	cr_assert_str_eq(r->text, "forbid /root/cache/secret");
	cr_assert_eq(fp_policy_decide(&P, FP_T_PATH, "/etc/x", 6, &r),
		     FP_DEC_NONE);
	cr_assert_null(r);
	/* expect rules decide nothing */
	fp_policy_free(&P);
	parse("expect /root/x", roots1, 1);
	cr_assert_eq(path("/root/x"), FP_DEC_NONE);
}

Test(policy, first_matching_allow_is_the_rule)
{
	const struct fp_rule *r;

	parse("allow /root/a", roots1, 1);
	parse("allow /root/", roots1, 1);
	cr_assert_eq(fp_policy_decide(&P, FP_T_PATH, "/root/a", 7, &r),
		     FP_DEC_ALLOW);
	cr_assert_str_eq(r->text, "allow /root/a");
}

/* ---- noise ---- */

static bool noise(const char *p)
{
	return fp_policy_is_noise(p, strlen(p));
}

Test(policy, noise_list)
{
	cr_assert(noise("/dev/null"));
	cr_assert(noise("/dev/zero"));
	cr_assert(noise("/dev/urandom"));
	cr_assert(noise("/dev/tty"));
	cr_assert(noise("/dev/tty1"));
	cr_assert(noise("/dev/pts/3"));
	cr_assert(noise("/dev/ptmx"));
	cr_assert(noise("/proc/self/status"));
	cr_assert(noise("/proc/self/uid_map"));
	cr_assert(noise("/proc/thread-self/comm"));
	/* magic links lead anywhere: a write through them is never noise */
	cr_assert_not(noise("/proc/self/fd/1"));
	cr_assert_not(noise("/proc/thread-self/fd/2"));
	cr_assert_not(noise("/proc/self/cwd/x"));
	cr_assert_not(noise("/proc/self/root/etc/passwd"));
	cr_assert_not(noise("/proc/self/task/12/fd/3"));
	cr_assert_not(noise("/proc/self/map_files/1000-2000"));
	cr_assert_not(noise("/dev/sda"));
	cr_assert_not(noise("/dev/null2"));
	cr_assert_not(noise("/dev/pts/3/x"));
	cr_assert_not(noise("/proc/1/fd/1"));
	cr_assert_not(noise("/tmp/dev/null"));
	cr_assert_not(noise("/dev"));
}

Test(policy, forbids_sees_only_forbid_rules)
{
	const struct fp_rule *r = (void *)1;

	parse("allow /tmp/", roots1, 1);
	parse("ignore /tmp/**", roots1, 1);
	cr_assert_eq(fp_policy_forbids(&P, FP_T_PATH, "/tmp/x", 6, &r),
		     FP_DEC_NONE);
	cr_assert_null(r);
	/* noise is not consulted either */
	cr_assert_eq(fp_policy_forbids(&P, FP_T_PATH, "/dev/null", 9, &r),
		     FP_DEC_NONE);
	parse("forbid /tmp/x", roots1, 1);
	cr_assert_eq(fp_policy_forbids(&P, FP_T_PATH, "/tmp/x", 6, &r),
		     FP_DEC_FORBID);
	cr_assert_str_eq(r->text, "forbid /tmp/x");
	cr_assert_eq(fp_policy_forbids(&P, FP_T_PROCESS, "/tmp/x", 6, &r),
		     FP_DEC_NONE);
	fp_policy_free(&P);
}

Test(policy, noise_decisions)
{
	const struct fp_rule *r;

	cr_assert_eq(fp_policy_decide(&P, FP_T_PATH, "/dev/null", 9, &r),
		     FP_DEC_IGNORE);
	cr_assert_null(r);
	cr_assert_eq(path("/dev/sda"), FP_DEC_NONE);
	cr_assert_eq(decide(FP_T_PROCESS, "/dev/null"), FP_DEC_NONE);
	parse("forbid /dev/null", roots1, 1);
	cr_assert_eq(path("/dev/null"), FP_DEC_FORBID);
	fp_policy_free(&P);
	parse("noise off", roots1, 1);
	cr_assert_eq(path("/dev/null"), FP_DEC_NONE);
	cr_assert_eq(path("/dev/pts/3"), FP_DEC_NONE);
}

/* ---- quoting ---- */

static const char *quote(const char *s, size_t len, bool esc)
{
	static char buf[1024];

	fp_policy_quote(buf, sizeof(buf), s, len, esc);
	return buf;
}

Test(policy, quote_bare_and_quoted)
{
	cr_assert_str_eq(quote("/root/x", 7, true), "/root/x");
	cr_assert_str_eq(quote("/a b", 4, true), "\"/a b\"");
	cr_assert_str_eq(quote("/a\nb", 4, true), "\"/a\\x0ab\"");
	cr_assert_str_eq(quote("/\xff", 2, true), "\"/\\xff\"");
	cr_assert_str_eq(quote("/a\"b", 4, true), "\"/a\\\"b\"");
	cr_assert_str_eq(quote("/a#b", 4, true), "\"/a#b\"");
	cr_assert_str_eq(quote("", 0, true), "\"\"");
	cr_assert_str_eq(quote("/a*b", 4, false), "/a*b");
	cr_assert_str_eq(quote("/a*b", 4, true), "\"/a\\\\*b\"");
	cr_assert_str_eq(quote("/a?[b", 5, true), "\"/a\\\\?\\\\[b\"");
	cr_assert_str_eq(quote("/a\0b", 4, true), "\"/a\\x00b\"");
}

Test(policy, quote_truncates_safely)
{
	char buf[8];

	fp_policy_quote(buf, sizeof(buf), "/aaaaaaaaaaaa\n", 14, true);
	cr_assert_lt(strlen(buf), sizeof(buf));
	fp_policy_quote(buf, 2, "/a b", 4, true);
	cr_assert_eq(buf[0], '\0');
}

/* quote with escape_glob, parse as a rule, and it must match s exactly */
static void roundtrip(const char *s, size_t len)
{
	char line[1100];
	int ret;

	snprintf(line, sizeof(line), "allow %s", quote(s, len, true));
	fp_policy_free(&P);
	ret = fp_policy_parse_line(&P, line, strlen(line), roots1, 1, err,
				   sizeof(err));
	cr_assert_eq(ret, 0, "'%s': %s", line, err);
	cr_assert_eq(P.n, 1);
	cr_assert(fp_rule_matches(&P.rules[0], s, len),
		  "'%s' does not match '%.*s'", line, (int)len, s);
}

Test(policy, quote_roundtrip)
{
	static const char *const cases[] = {
		"/root/x",   "/root/a b",  "/root/a\nb",   "/root/\xff",
		"/root/a*b", "/root/a?b",  "/root/[ab]",   "/root/a\"b",
		"/root/#",   "/root/a\tb", "/root/\x7f",   "/root/\"x",
		"/root/ ",   "/root/]",	   "/root/a**/b*", "/root/[!x]",
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		roundtrip(cases[i], strlen(cases[i]));
}

Test(policy, quote_roundtrip_backslash)
{
	/* a file name holding a backslash */
	roundtrip("/root/a\\b", 9);
	roundtrip("/root/\\*", 8);
	roundtrip("/root/x\\", 8);
}

/*
 * A line is bytes with a length, not a C string: a \x escape at its very
 * end, right before a page no one may read, parses without reading past
 * it (sscanf did, looking for a NUL; the fuzzer saw it crash).
 */
Test(policy, hex_escape_at_the_end_of_a_line_reads_no_further)
{
	static const char line[] = "allow \"/w\\xaf\"";
	size_t len = sizeof(line) - 1, page = sysconf(_SC_PAGESIZE);
	struct fp_policy p = { 0 };
	char err[256], *map, *at;

	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(map, MAP_FAILED);
	cr_assert_eq(mprotect(map + page, page, PROT_NONE), 0);
	/* the closing quote is the page's last byte: no NUL after it */
	memset(map, 'x', page);
	at = map + page - len;
	memcpy(at, line, len);
	cr_assert_eq(
		fp_policy_parse_line(&p, at, len, NULL, 0, err, sizeof(err)), 0,
		"%s", err);
	cr_assert_eq(p.n, 1);
	cr_assert_eq(p.rules[0].len, 3);
	cr_assert_eq(memcmp(p.rules[0].pattern, "/w\xaf", 3), 0);
	fp_policy_free(&p);
	munmap(map, 2 * page);
}

/* ---- "." components: "./" is the root (issue 29) ---- */

static enum fp_decision decide_in(const char *line, char *const *roots,
				  size_t nroots, const char *path)
{
	const struct fp_rule *r;

	fp_policy_free(&P);
	memset(&P, 0, sizeof(P));
	cr_assert_eq(fp_policy_parse_line(&P, line, strlen(line), roots, nroots,
					  err, sizeof(err)),
		     0, "%s: %s", line, err);
	return fp_policy_decide(&P, FP_T_PATH, path, strlen(path), &r);
}

Test(policy, dot_slash_is_the_root)
{
	static char *roots[] = { "/w/proj", "/w/other" };
	static const char *const all[] = { "allow ./", "allow .", "allow ./.",
					   "allow .//", "allow \"./\"" };
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		cr_assert_eq(decide_in(all[i], roots, 2, "/w/proj/a/b"),
			     FP_DEC_ALLOW, "%s", all[i]);
		cr_assert_eq(decide_in(all[i], roots, 2, "/w/proj"),
			     FP_DEC_ALLOW, "%s", all[i]);
		cr_assert_eq(decide_in(all[i], roots, 2, "/w/other/x"),
			     FP_DEC_ALLOW, "%s", all[i]);
		cr_assert_eq(decide_in(all[i], roots, 2, "/w/projx"),
			     FP_DEC_NONE, "%s", all[i]);
		cr_assert_eq(decide_in(all[i], roots, 2, "/etc/passwd"),
			     FP_DEC_NONE, "%s", all[i]);
		/* the rule keeps the pattern it was given */
		cr_assert_str_eq(P.rules[0].text, i == 4 ? "allow ./" : all[i]);
	}
	/* the root "/" and "./": everything */
	cr_assert_eq(decide_in("allow ./", (char *[]){ "/" }, 1, "/etc/x"),
		     FP_DEC_ALLOW);
}

Test(policy, dot_components_are_dropped)
{
	static char *roots[] = { "/w" };

	cr_assert_eq(decide_in("allow ./x", roots, 1, "/w/x"), FP_DEC_ALLOW);
	cr_assert_eq(decide_in("allow ./x", roots, 1, "/w/xy"), FP_DEC_NONE);
	cr_assert_eq(decide_in("allow ./d/", roots, 1, "/w/d/e"), FP_DEC_ALLOW);
	cr_assert_eq(decide_in("allow d/.", roots, 1, "/w/d/e"), FP_DEC_ALLOW);
	cr_assert_eq(decide_in("allow a/./b", roots, 1, "/w/a/b"),
		     FP_DEC_ALLOW);
	cr_assert_eq(decide_in("allow ./*.o", roots, 1, "/w/m.o"),
		     FP_DEC_ALLOW);
	cr_assert_eq(decide_in("allow ./*.o", roots, 1, "/w/s/m.o"),
		     FP_DEC_NONE);
	/* absolute rules are taken as they are */
	cr_assert_eq(decide_in("allow /tmp/", roots, 1, "/tmp/x"),
		     FP_DEC_ALLOW);
	cr_assert_eq(decide_in("allow /", roots, 1, "/etc"), FP_DEC_ALLOW);
	/* a file named ".x" or "..x" is a name, not a component to drop */
	cr_assert_eq(decide_in("allow ./.x", roots, 1, "/w/.x"), FP_DEC_ALLOW);
	cr_assert_eq(decide_in("allow ..x", roots, 1, "/w/..x"), FP_DEC_ALLOW);
	/* "\." is an escaped dot: a literal name "." never exists */
	cr_assert_eq(decide_in("allow .cache/", roots, 1, "/w/.cache/a"),
		     FP_DEC_ALLOW);
}

Test(policy, dot_dot_is_refused)
{
	static char *roots[] = { "/w" };
	static const char *const bad[] = { "allow ../x", "allow a/../b",
					   "allow ./../etc/x", "allow .." };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fp_policy_free(&P);
		memset(&P, 0, sizeof(P));
		err[0] = '\0';
		cr_assert_eq(fp_policy_parse_line(&P, bad[i], strlen(bad[i]),
						  roots, 1, err, sizeof(err)),
			     -EINVAL, "%s", bad[i]);
		cr_assert(strstr(err, "'..'"), "%s: %s", bad[i], err);
		cr_assert_eq(P.n, 0);
	}
	/* other targets are globs over other subjects: untouched */
	fp_policy_free(&P);
	memset(&P, 0, sizeof(P));
	cr_assert_eq(fp_policy_parse_line(&P, "allow process ../x", 18, roots,
					  1, err, sizeof(err)),
		     0, "%s", err);
}
