// SPDX-License-Identifier: GPL-2.0
/* fp_path_join: raw syscall path + leaf-first dentry names -> absolute path */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"

static void check_join(const char *raw, size_t raw_len, const char *base,
		       size_t base_len, const char *want, size_t want_len)
{
	struct fp_bytes out = { 0 };
	int rc = fp_path_join(&out, raw, raw_len, base, base_len);

	cr_assert_eq(rc, 0, "fp_path_join returned %d", rc);
	cr_assert_not_null(out.data);
	cr_assert_eq(out.len, want_len, "len %zu, want %zu: got \"%.*s\"",
		     out.len, want_len, (int)out.len, out.data);
	cr_assert(memcmp(out.data, want, want_len) == 0,
		  "got \"%.*s\", want \"%.*s\"", (int)out.len, out.data,
		  (int)want_len, want);
	cr_assert_eq(out.data[out.len], '\0', "result not NUL-terminated");
	free(out.data);
}

/* literals only: sizeof gives the length without the final NUL */
#define JOIN(raw, base, want)                                          \
	check_join(raw, sizeof(raw) - 1, base, sizeof(base) - 1, want, \
		   sizeof(want) - 1)

Test(path, absolute_raw_ignores_base)
{
	JOIN("/etc/passwd", "c\0b\0a\0", "/etc/passwd");
	JOIN("/etc/passwd", "", "/etc/passwd");
	JOIN("/", "c\0b\0a\0", "/");
}

Test(path, relative_raw_joined_to_base)
{
	/* base "c\0b\0a\0" is /a/b/c */
	JOIN("foo", "c\0b\0a\0", "/a/b/c/foo");
	JOIN("x/y/z", "c\0b\0a\0", "/a/b/c/x/y/z");
	JOIN("foo", "tmp\0", "/tmp/foo");
}

Test(path, empty_base_is_root)
{
	JOIN("foo", "", "/foo");
	JOIN("foo/bar", "", "/foo/bar");
	JOIN("..", "", "/");
}

Test(path, raw_empty)
{
	JOIN("", "c\0b\0a\0", "/a/b/c");
	JOIN("", "", "/");
}

Test(path, dot_components)
{
	JOIN(".", "c\0b\0a\0", "/a/b/c");
	JOIN("./foo", "c\0b\0a\0", "/a/b/c/foo");
	JOIN("a/./b/.", "", "/a/b");
	JOIN("/./etc/./", "x\0", "/etc");
	/* only "." and ".." are special */
	JOIN("...", "", "/...");
	JOIN(".hidden/..x/x..", "", "/.hidden/..x/x..");
}

Test(path, dotdot_components)
{
	JOIN("..", "c\0b\0a\0", "/a/b");
	JOIN("../..", "c\0b\0a\0", "/a");
	JOIN("../../..", "c\0b\0a\0", "/");
	JOIN("../d", "c\0b\0a\0", "/a/b/d");
	JOIN("x/../y", "c\0b\0a\0", "/a/b/c/y");
	JOIN("/usr/lib/../bin", "", "/usr/bin");
}

Test(path, dotdot_above_root_stays_at_root)
{
	JOIN("/..", "", "/");
	JOIN("/../../x", "", "/x");
	JOIN("../../../../etc", "c\0b\0a\0", "/etc");
	JOIN("../../../../..", "c\0b\0a\0", "/");
	JOIN("/a/../../b/../../c", "", "/c");
}

Test(path, repeated_and_trailing_slashes)
{
	JOIN("//", "", "/");
	JOIN("//etc//passwd", "x\0", "/etc/passwd");
	JOIN("a//b", "c\0", "/c/a/b");
	JOIN("dir/", "c\0b\0a\0", "/a/b/c/dir");
	JOIN("/etc/", "", "/etc");
	JOIN("dir///", "", "/dir");
}

Test(path, unusual_bytes_in_names)
{
	/* names are bytes: anything but '/' and NUL goes through as is */
	JOIN("q\"x\n", "n\xff\0", "/n\xff/q\"x\n");
	JOIN("\xff\xfe", "", "/\xff\xfe");
	JOIN("/a\nb/\"c\"/\xc0\xaf", "", "/a\nb/\"c\"/\xc0\xaf");
	JOIN("f", "line\nbreak\0quo\"te\0", "/quo\"te/line\nbreak/f");
	JOIN("back\\slash", "", "/back\\slash");
}

Test(path, raw_not_nul_terminated_is_bounded_by_len)
{
	/* raw_len excludes the rest of the buffer */
	check_join("abc/def", 3, "b\0a\0", 4, "/a/b/abc", 8);
	check_join("/xyz", 2, NULL, 0, "/x", 2);
}

Test(path, long_raw_path)
{
	/* 1250 components "dNNN" -> 6250 bytes, well past PATH_MAX */
	size_t n = 1250, i, rl = 0, wl = 0;
	char *raw = malloc(n * 6 + (n / 100 + 1) * 10 + 1);
	char *want = malloc(n * 6 + 1);

	cr_assert(raw && want);
	for (i = 0; i < n; i++) {
		rl += sprintf(raw + rl, "/d%04zu", i);
		/* with some noise that normalisation removes */
		if (i % 100 == 0)
			rl += sprintf(raw + rl, "/./zz/..//");
		wl += sprintf(want + wl, "/d%04zu", i);
	}
	cr_assert_gt(wl, 4096);
	check_join(raw, rl, "", 0, want, wl);
	free(raw);
	free(want);
}

Test(path, long_base_and_long_name)
{
	/* 2048 levels of "x" (leaf first), then a 5000-byte file name */
	size_t depth = 2048, nlen = 5000, i, bl = 0, wl = 0;
	char *base = malloc(depth * 2);
	char *raw = malloc(nlen);
	char *want = malloc(depth * 2 + 1 + nlen + 1);

	cr_assert(base && raw && want);
	for (i = 0; i < depth; i++) {
		base[bl++] = 'x';
		base[bl++] = '\0';
		want[wl++] = '/';
		want[wl++] = 'x';
	}
	memset(raw, 'n', nlen);
	want[wl++] = '/';
	memset(want + wl, 'n', nlen);
	wl += nlen;
	check_join(raw, nlen, base, bl, want, wl);
	/* ".." drops one of the 2048 levels */
	wl = (depth - 1) * 2;
	memcpy(want + wl, "/y", 2);
	check_join("../y", 4, base, bl, want, wl + 2);
	free(base);
	free(raw);
	free(want);
}

static bool join_magic(const char *raw, const char *base, size_t base_len,
		       const char *want)
{
	struct fp_bytes out = { 0 };
	bool magic = false;
	int rc = fp_path_join_magic(&out, raw, strlen(raw), base, base_len,
				    &magic);

	cr_assert_eq(rc, 0);
	cr_assert_str_eq(out.data, want);
	free(out.data);
	return magic;
}

#define MAGIC(raw, base, want) join_magic(raw, base, sizeof(base) - 1, want)

Test(path, magic_links_are_flagged)
{
	cr_assert(MAGIC("/proc/self/fd/3", "", "/proc/self/fd/3"));
	cr_assert(MAGIC("/proc/123/fd/3/x", "", "/proc/123/fd/3/x"));
	cr_assert(
		MAGIC("/proc/thread-self/fd/0", "", "/proc/thread-self/fd/0"));
	cr_assert(MAGIC("/proc/self/cwd", "", "/proc/self/cwd"));
	cr_assert(MAGIC("/proc/self/root/etc/passwd", "",
			"/proc/self/root/etc/passwd"));
	cr_assert(MAGIC("/proc/self/exe", "", "/proc/self/exe"));
	cr_assert(
		MAGIC("/proc/self/task/9/fd/1", "", "/proc/self/task/9/fd/1"));
	cr_assert(MAGIC("/proc/self/map_files/1-2", "",
			"/proc/self/map_files/1-2"));
	/* relative to a directory in /proc: the walk gives the pid */
	cr_assert(MAGIC("3",
			"fd\0"
			"77\0"
			"proc\0",
			"/proc/77/fd/3"));
}

/* ".." after a magic link leaves no mark in the lexical result */
Test(path, magic_link_then_dotdot_is_still_flagged)
{
	cr_assert(
		MAGIC("/proc/self/fd/3/../../self/x", "", "/proc/self/self/x"));
	cr_assert(MAGIC("/proc/self/cwd/../../../tmp/x", "", "/tmp/x"));
}

Test(path, ordinary_proc_paths_are_not_magic)
{
	cr_assert_not(MAGIC("/proc/self/status", "", "/proc/self/status"));
	cr_assert_not(MAGIC("/proc/self/fd", "", "/proc/self/fd"));
	cr_assert_not(MAGIC("/proc/self/ns/net", "", "/proc/self/ns/net"));
	cr_assert_not(MAGIC("/proc/sys/fd/3", "", "/proc/sys/fd/3"));
	cr_assert_not(MAGIC("/tmp/proc/self/fd/3", "", "/tmp/proc/self/fd/3"));
	cr_assert_not(MAGIC("/proc/12a/fd/3", "", "/proc/12a/fd/3"));
	cr_assert_not(MAGIC("/proc/self/fdx/3", "", "/proc/self/fdx/3"));
}

Test(path, fp_path_magic_on_strings)
{
	cr_assert(fp_path_magic("/proc/self/fd/3", 15));
	cr_assert(fp_path_magic("/proc/1/root", 12));
	cr_assert_not(fp_path_magic("/proc/1/rootx", 13));
	cr_assert_not(
		fp_path_magic("/proc/self/fd/3", 13)); /* "/proc/self/fd" */
}

/*
 * The reference: the base's names top first, then the raw components,
 * "." dropped and ".." removing the one before (not above "/"). The
 * join has a fast way for plain names; both must give these bytes.
 */
static char *reference_join(const char *raw, size_t raw_len, const char *base,
			    size_t base_len)
{
	const char *comp[4096];
	size_t len[4096], n = 0, i, end = base_len, total = 0;
	char *out, *p;

	while (end > 0) {
		size_t start = end - 1;

		while (start > 0 && base[start - 1])
			start--;
		comp[n] = base + start;
		len[n++] = end - 1 - start;
		end = start;
	}
	for (i = 0; i < raw_len;) {
		size_t j = i;

		while (j < raw_len && raw[j] != '/')
			j++;
		if (j - i == 2 && raw[i] == '.' && raw[i + 1] == '.') {
			if (n)
				n--;
		} else if (j > i && !(j - i == 1 && raw[i] == '.')) {
			comp[n] = raw + i;
			len[n++] = j - i;
		}
		i = j + 1;
	}
	for (i = 0; i < n; i++)
		total += len[i] + 1;
	out = p = malloc(total + 2);
	cr_assert_not_null(out);
	if (!n)
		*p++ = '/';
	for (i = 0; i < n; i++) {
		*p++ = '/';
		memcpy(p, comp[i], len[i]);
		p += len[i];
	}
	*p = '\0';
	return out;
}

/* a base deep as a descent makes it, joined to raws with and without dots */
Test(path, deep_base_joins_as_the_reference_does)
{
	static const char *raws[] = { "f",   "a/b",   "a//b/",
				      "./f", "../f",  "a/../b",
				      "",    "x/./y", "../../.." };
	char base[8192];
	size_t n = 0, r;
	int i;

	for (i = 0; i < 2000; i++) {
		base[n++] = i % 7 ? 'd' : 'e';
		if (i % 5 == 0)
			base[n++] = 'x';
		base[n++] = '\0';
	}
	for (r = 0; r < sizeof(raws) / sizeof(raws[0]); r++) {
		char *want = reference_join(raws[r], strlen(raws[r]), base, n);

		check_join(raws[r], strlen(raws[r]), base, n, want,
			   strlen(want));
		free(want);
	}
}

/* random names and raws: the fast way and the general one agree */
Test(path, random_joins_agree_with_the_reference)
{
	static const char alpha[] = "ab./";
	char base[512], raw[64];
	unsigned int seed = 12345;
	int t;

	for (t = 0; t < 20000; t++) {
		size_t bn = 0, rn = 0, k, names = rand_r(&seed) % 12;
		char *want;

		for (k = 0; k < names; k++) {
			size_t l = 1 + rand_r(&seed) % 4, m;

			for (m = 0; m < l; m++)
				base[bn++] = "abcp"[rand_r(&seed) % 4];
			base[bn++] = '\0';
		}
		rn = rand_r(&seed) % 16;
		for (k = 0; k < rn; k++)
			raw[k] = alpha[rand_r(&seed) % 4];
		if (rn && raw[0] == '/')
			raw[0] = 'a';
		want = reference_join(raw, rn, base, bn);
		check_join(raw, rn, base, bn, want, strlen(want));
		free(want);
	}
}

/* a random name of 1 to 12 of "abcp", one in four up to 250, or "proc" */
static size_t random_name(char *dst, unsigned int *seed)
{
	size_t l, m;

	if (rand_r(seed) % 50 == 0) {
		memcpy(dst, "proc", 5);
		return 5;
	}
	l = 1 + rand_r(seed) % (rand_r(seed) % 4 ? 12 : 250);
	for (m = 0; m < l; m++)
		dst[m] = "abcp"[rand_r(seed) % 4];
	dst[l] = '\0';
	return l + 1;
}

/*
 * Walks down and up deep trees, as a descent or rm -rf makes its events:
 * each base is the last one with a name more at the leaf and names cut
 * at the top to fit the room, or one less and names added at the top,
 * or the same, or another. The join starts from the last long base when
 * it can (path.c's memo); it must give the reference's bytes every time.
 */
Test(path, walks_down_and_up_join_as_the_reference_does)
{
	static const char *raws[] = {
		"f",	   "..", "x/../y",
		"../../z", ".",	 "../../../../../../../../../../w"
	};
	static char base[8192], next[8192];
	unsigned int seed = 4242;
	size_t n = 0, m, k, room;
	int t;

	for (t = 0; t < 20000; t++) {
		int step = rand_r(&seed) % 10;
		const char *raw = raws[rand_r(&seed) % 6];
		char *want;

		room = 600 + rand_r(&seed) % 3496;
		if (step < 4 || n == 0) {
			/* down: a name more at the leaf, cut at the room */
			m = random_name(next, &seed);
			for (k = 0; k < n && m + k < room;) {
				size_t l = strlen(base + k) + 1;

				if (m + k + l > room)
					break;
				k += l;
			}
			memcpy(next + m, base, k);
			n = m + k;
		} else if (step < 8) {
			/* up: the first name gone, names added at the top */
			size_t first = strlen(base) + 1,
			       add = rand_r(&seed) % 3;

			m = n > first ? n - first : 0;
			memcpy(next, base + first, m);
			while (add-- && m + 13 < sizeof(next))
				m += random_name(next + m, &seed);
			n = m;
		} else if (step == 8) {
			memcpy(next, base, n);
		} else {
			/* elsewhere: a new deep base */
			for (n = 0; n < room;)
				n += random_name(next + n, &seed);
		}
		memcpy(base, next, n);
		if (!n)
			continue;
		want = reference_join(raw, strlen(raw), base, n);
		check_join(raw, strlen(raw), base, n, want, strlen(want));
		free(want);
	}
}
