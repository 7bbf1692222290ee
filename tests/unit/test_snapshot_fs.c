// SPDX-License-Identifier: GPL-2.0
/* fp_fs_snapshot on temporary trees, and the path helpers */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "creds.h"
#include "snapshot_fs.h"
#include "snapshot_fs_int.h"

static char dir[256];
static struct fp_fs_snapshot S, S2;
static char *roots[1];

static const char hello_sha[] =
	"5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";

static void setup(void)
{
	char tmpl[] = "/tmp/fp-snapfs-XXXXXX", real[PATH_MAX];

	cr_assert_not_null(mkdtemp(tmpl));
	/* roots must be canonical */
	cr_assert_not_null(realpath(tmpl, real));
	cr_assert_lt(strlen(real), sizeof(dir));
	strcpy(dir, real);
	roots[0] = dir;
}

static void teardown(void)
{
	char cmd[2 * sizeof(dir) + 64];

	fp_fs_snapshot_free(&S);
	fp_fs_snapshot_free(&S2);
	if (dir[0]) {
		snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'",
			 dir, dir);
		if (system(cmd))
			cr_log_warn("cleanup of %s failed", dir);
	}
}

TestSuite(snapshot_fs, .init = setup, .fini = teardown, .timeout = 20);

/* ---- helpers ---- */

static char *at(const char *rel)
{
	static char buf[4][2 * PATH_MAX];
	static int k;
	char *b = buf[k++ % 4];

	snprintf(b, sizeof(buf[0]), "%s/%s", dir, rel);
	return b;
}

static void write_file(const char *rel, const void *data, size_t len,
		       mode_t mode)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC, mode);

	cr_assert_geq(fd, 0, "%s: %s", rel, strerror(errno));
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	cr_assert_eq(fchmod(fd, mode), 0);
	close(fd);
}

static void hex(const unsigned char *h, char *out)
{
	int i;

	for (i = 0; i < 32; i++)
		sprintf(out + 2 * i, "%02x", h[i]);
}

static void assert_sha(const struct fp_fentry *e, const char *want)
{
	char got[65];

	cr_assert(e->hashed, "%s not hashed (err %d, unstable %d)",
		  e->path.data, e->err, e->unstable);
	hex(e->sha256, got);
	cr_assert_str_eq(got, want, "%s", e->path.data);
}

static void snap(struct fp_fs_snapshot *s, const struct fp_fs_opts *o)
{
	static const struct fp_fs_opts none;

	cr_assert_eq(fp_fs_snapshot(s, roots, 1, o ? o : &none), 0);
}

static const struct fp_fentry *find(const struct fp_fs_snapshot *s,
				    const char *rel)
{
	const char *p = rel[0] ? at(rel) : dir;

	return fp_fs_find(s, p, strlen(p));
}

static const struct fp_fentry *need(const struct fp_fs_snapshot *s,
				    const char *rel)
{
	const struct fp_fentry *e = find(s, rel);

	cr_assert_not_null(e, "no entry for '%s'", rel);
	return e;
}

static void assert_sorted(const struct fp_fs_snapshot *s)
{
	size_t i;

	for (i = 1; i < s->n; i++)
		cr_assert_lt(fp_bytes_cmp(s->e[i - 1].path.data,
					  s->e[i - 1].path.len,
					  s->e[i].path.data, s->e[i].path.len),
			     0, "%s before %s", s->e[i - 1].path.data,
			     s->e[i].path.data);
}

/* ---- entries ---- */

Test(snapshot_fs, entry_types)
{
	const struct fp_fentry *e;
	struct stat st;

	write_file("hello", "hello\n", 6, 0640);
	cr_assert_eq(mkdir(at("sub"), 0750), 0);
	cr_assert_eq(chmod(at("sub"), 0750), 0);
	write_file("sub/empty", "", 0, 0600);
	cr_assert_eq(symlink("hello", at("link")), 0);
	cr_assert_eq(symlink("/nonexistent/target", at("dangling")), 0);
	cr_assert_eq(mkfifo(at("fifo"), 0600), 0);
	cr_assert_eq(chmod(at("fifo"), 0604), 0);
	snap(&S, NULL);

	cr_assert_eq(S.n, 7, "%zu entries", S.n);
	assert_sorted(&S);
	cr_assert_gt(S.started_ns, 0);

	e = need(&S, "");
	cr_assert_eq(e->type, 'd');
	cr_assert_eq(e->mode, 0700);

	e = need(&S, "hello");
	cr_assert_eq(e->type, 'f');
	cr_assert_eq(e->mode, 0640);
	cr_assert_eq(e->size, 6);
	cr_assert_eq(e->uid, getuid());
	cr_assert_eq(e->gid, getgid());
	cr_assert_eq(e->err, 0);
	cr_assert_not(e->reused);
	cr_assert_not(e->unstable);
	assert_sha(e, hello_sha);
	cr_assert_eq(stat(at("hello"), &st), 0);
	cr_assert_eq(e->ino, st.st_ino);
	cr_assert_eq(e->dev, st.st_dev);
	cr_assert_eq(e->mtime_ns,
		     st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec);
	cr_assert_eq(e->ctime_ns,
		     st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec);

	e = need(&S, "sub");
	cr_assert_eq(e->type, 'd');
	cr_assert_eq(e->mode, 0750);
	cr_assert_not(e->hashed);

	e = need(&S, "sub/empty");
	cr_assert_eq(e->type, 'f');
	cr_assert_eq(e->size, 0);
	assert_sha(e, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b"
		      "7852b855");

	e = need(&S, "link");
	cr_assert_eq(e->type, 'l');
	cr_assert_not(e->hashed, "a symlink is not followed to be hashed");
	cr_assert_eq(e->target.len, 5);
	cr_assert_str_eq(e->target.data, "hello");
	cr_assert_eq(e->size, 5);

	e = need(&S, "dangling");
	cr_assert_eq(e->type, 'l');
	cr_assert_eq(e->err, 0);
	cr_assert_str_eq(e->target.data, "/nonexistent/target");

	e = need(&S, "fifo");
	cr_assert_eq(e->type, 'p');
	cr_assert_eq(e->mode, 0604);
	cr_assert_not(e->hashed);
	cr_assert_eq(e->err, 0);
	cr_assert_eq(S.files_hashed, 2);
	cr_assert_eq(S.bytes_hashed, 6);
}

Test(snapshot_fs, fifo_with_writer_waiting_not_opened)
{
	/* a FIFO with no writer would block a plain open; nothing hangs */
	cr_assert_eq(mkfifo(at("p"), 0666), 0);
	cr_assert_eq(symlink("p", at("to-fifo")), 0);
	snap(&S, NULL);
	cr_assert_eq(need(&S, "p")->type, 'p');
	cr_assert_eq(need(&S, "to-fifo")->type, 'l');
	cr_assert_eq(S.files_hashed, 0);
}

Test(snapshot_fs, symlinked_dir_not_followed)
{
	size_t i;

	cr_assert_eq(mkdir(at("real"), 0755), 0);
	write_file("real/f", "x", 1, 0644);
	cr_assert_eq(symlink("real", at("alias")), 0);
	cr_assert_eq(symlink("/", at("slash")), 0);
	snap(&S, NULL);
	cr_assert_eq(S.n, 5, "%zu entries", S.n);
	for (i = 0; i < S.n; i++)
		cr_assert_null(strstr(S.e[i].path.data, "alias/"), "%s",
			       S.e[i].path.data);
	cr_assert_eq(need(&S, "alias")->type, 'l');
	cr_assert_eq(need(&S, "slash")->type, 'l');
	cr_assert_str_eq(need(&S, "slash")->target.data, "/");
}

Test(snapshot_fs, root_that_is_a_file)
{
	char *r[1];

	write_file("only", "hello\n", 6, 0644);
	r[0] = at("only");
	cr_assert_eq(fp_fs_snapshot(&S, r, 1, &(struct fp_fs_opts){}), 0);
	cr_assert_eq(S.n, 1);
	cr_assert_eq(S.e[0].type, 'f');
	cr_assert_eq(S.e[0].size, 6);
}

Test(snapshot_fs, missing_root)
{
	char *r[1] = { at("nope") };

	cr_assert_eq(fp_fs_snapshot(&S, r, 1, &(struct fp_fs_opts){}), 0);
	cr_assert_eq(S.n, 1);
	cr_assert_eq(S.e[0].type, '?');
	cr_assert_eq(S.e[0].err, ENOENT);
}

Test(snapshot_fs, overlapping_roots_listed_once)
{
	char sub[PATH_MAX];
	char *r[3];

	cr_assert_eq(mkdir(at("d"), 0755), 0);
	write_file("d/f", "hello\n", 6, 0644);
	snprintf(sub, sizeof(sub), "%s", at("d"));
	r[0] = sub;
	r[1] = dir;
	r[2] = sub;
	cr_assert_eq(fp_fs_snapshot(&S, r, 3, &(struct fp_fs_opts){}), 0);
	cr_assert_eq(S.n, 3, "%zu entries", S.n);
	assert_sorted(&S);
	assert_sha(need(&S, "d/f"), hello_sha);
}

/* given in any order, and one inside another's tree by its name */
Test(snapshot_fs, roots_out_of_order_sorted_by_bytes)
{
	static const char *const sub[] = { "b", "a.b", "a" };
	char paths[3][PATH_MAX];
	char *r[3];
	size_t i;

	for (i = 0; i < 3; i++) {
		char f[64];

		cr_assert_eq(mkdir(at(sub[i]), 0755), 0);
		snprintf(f, sizeof(f), "%s/f", sub[i]);
		write_file(f, "hello\n", 6, 0644);
		snprintf(paths[i], sizeof(paths[i]), "%s", at(sub[i]));
		r[i] = paths[i];
	}
	cr_assert_eq(fp_fs_snapshot(&S, r, 3, &(struct fp_fs_opts){}), 0);
	cr_assert_eq(S.n, 6, "%zu entries", S.n);
	assert_sorted(&S);
	assert_sha(need(&S, "a.b/f"), hello_sha);
	assert_sha(need(&S, "a/f"), hello_sha);
	assert_sha(need(&S, "b/f"), hello_sha);
}

Test(snapshot_fs, sorted_by_bytes)
{
	static const char *const names[] = { "a", "a-b",  "a.b", "a0",
					     "B", "\xff", "a b" };
	size_t i;

	cr_assert_eq(mkdir(at("a"), 0755), 0);
	write_file("a/z", "", 0, 0644);
	for (i = 1; i < sizeof(names) / sizeof(names[0]); i++)
		write_file(names[i], "", 0, 0644);
	snap(&S, NULL);
	cr_assert_eq(S.n, 9);
	assert_sorted(&S);
	/* "a-b" < "a.b" < "a/z" < "a0": bytes, not path components */
	cr_assert_lt(need(&S, "a.b") - S.e, need(&S, "a/z") - S.e);
	cr_assert_lt(need(&S, "a/z") - S.e, need(&S, "a0") - S.e);
	cr_assert_eq(&S.e[S.n - 1], need(&S, "\xff"));
}

/* ---- hashing ---- */

static void sha_zeros_then(size_t zeros, const void *tail, size_t tlen,
			   char *out)
{
	static const unsigned char z[65536];
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char h[32];

	cr_assert(EVP_DigestInit_ex(md, EVP_sha256(), NULL));
	while (zeros) {
		size_t k = zeros < sizeof(z) ? zeros : sizeof(z);

		EVP_DigestUpdate(md, z, k);
		zeros -= k;
	}
	EVP_DigestUpdate(md, tail, tlen);
	EVP_DigestFinal_ex(md, h, NULL);
	EVP_MD_CTX_free(md);
	hex(h, out);
}

#define MiB (1024 * 1024)

Test(snapshot_fs, sparse_file_hole_then_data)
{
	char want[65];
	int fd = open(at("sparse"), O_WRONLY | O_CREAT, 0644);

	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 10 * MiB), 0);
	cr_assert_eq(pwrite(fd, "x", 1, 10 * MiB - 1), 1);
	close(fd);
	sha_zeros_then(10 * MiB - 1, "x", 1, want);
	snap(&S, NULL);
	cr_assert_eq(need(&S, "sparse")->size, 10 * MiB);
	assert_sha(need(&S, "sparse"), want);
}

Test(snapshot_fs, sparse_file_byte_past_truncated_end)
{
	char want[65];
	int fd = open(at("sparse"), O_WRONLY | O_CREAT, 0644);

	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 10 * MiB), 0);
	cr_assert_eq(pwrite(fd, "y", 1, 10 * MiB), 1);
	close(fd);
	sha_zeros_then(10 * MiB, "y", 1, want);
	snap(&S, NULL);
	cr_assert_eq(need(&S, "sparse")->size, 10 * MiB + 1);
	assert_sha(need(&S, "sparse"), want);
}

Test(snapshot_fs, sparse_file_data_then_hole)
{
	unsigned char *buf = calloc(1, 3 * MiB);
	char want[65];
	unsigned char h[32];
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	int fd = open(at("sparse"), O_WRONLY | O_CREAT, 0644);

	cr_assert_geq(fd, 0);
	cr_assert_not_null(buf);
	cr_assert_eq(pwrite(fd, "abc", 3, 0), 3);
	cr_assert_eq(pwrite(fd, "mid", 3, MiB + 5), 3);
	cr_assert_eq(ftruncate(fd, 3 * MiB), 0);
	close(fd);
	memcpy(buf, "abc", 3);
	memcpy(buf + MiB + 5, "mid", 3);
	EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	EVP_DigestUpdate(md, buf, 3 * MiB);
	EVP_DigestFinal_ex(md, h, NULL);
	EVP_MD_CTX_free(md);
	hex(h, want);
	free(buf);
	snap(&S, NULL);
	assert_sha(need(&S, "sparse"), want);
}

Test(snapshot_fs, sparse_file_all_hole)
{
	char want[65];
	int fd = open(at("hole"), O_WRONLY | O_CREAT, 0644);

	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 10 * MiB), 0);
	close(fd);
	sha_zeros_then(10 * MiB, "", 0, want);
	snap(&S, NULL);
	cr_assert_not(need(&S, "hole")->unstable);
	assert_sha(need(&S, "hole"), want);
}

Test(snapshot_fs, large_file_crosses_chunks)
{
	size_t n = 600 * 1024 + 7, i;
	unsigned char *buf = malloc(n), h[32];
	char want[65];
	EVP_MD_CTX *md = EVP_MD_CTX_new();

	cr_assert_not_null(buf);
	for (i = 0; i < n; i++)
		buf[i] = (unsigned char)(i * 31 + (i >> 9));
	write_file("big", buf, n, 0644);
	EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	EVP_DigestUpdate(md, buf, n);
	EVP_DigestFinal_ex(md, h, NULL);
	EVP_MD_CTX_free(md);
	hex(h, want);
	free(buf);
	snap(&S, NULL);
	assert_sha(need(&S, "big"), want);
	cr_assert_eq(S.bytes_hashed, n);
}

/* ---- reuse of the previous hash ---- */

static const char *touched_path;

static bool touched(void *ctx, const char *path, size_t len)
{
	cr_assert_eq(ctx, (void *)&touched_path);
	return touched_path && strlen(touched_path) == len &&
	       !memcmp(path, touched_path, len);
}

/* Before-snapshot whose files are all older than the racy margin, with a
 * marked hash so a reused one is recognisable. */
static void old_before(void)
{
	struct fp_fentry *e;

	write_file("old", "hello\n", 6, 0644);
	write_file("other", "other\n", 6, 0644);
	snap(&S, NULL);
	/* as if the snapshot had been taken a minute later */
	S.started_ns += 60LL * 1000 * 1000 * 1000;
	e = (struct fp_fentry *)need(&S, "old");
	assert_sha(e, hello_sha);
	memset(e->sha256, 0x5a, sizeof(e->sha256));
}

static const char marked[] =
	"5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";

Test(snapshot_fs, reuse_unchanged_old_file)
{
	struct fp_fs_opts o = { .prev = &S };

	old_before();
	snap(&S2, &o);
	cr_assert(need(&S2, "old")->reused);
	assert_sha(need(&S2, "old"), marked);
	cr_assert(need(&S2, "other")->reused);
	cr_assert_eq(S2.files_hashed, 0);
	cr_assert_eq(S2.bytes_hashed, 0);
}

Test(snapshot_fs, no_reuse_when_touched)
{
	struct fp_fs_opts o = { .prev = &S,
				.touched = touched,
				.touched_ctx = &touched_path };

	old_before();
	touched_path = at("old");
	snap(&S2, &o);
	touched_path = NULL;
	cr_assert_not(need(&S2, "old")->reused);
	assert_sha(need(&S2, "old"), hello_sha);
	cr_assert(need(&S2, "other")->reused);
}

Test(snapshot_fs, no_reuse_when_ctime_recent)
{
	struct fp_fs_opts o = { .prev = &S };
	struct fp_fentry *e;

	write_file("old", "hello\n", 6, 0644);
	snap(&S, NULL);
	e = (struct fp_fentry *)need(&S, "old");
	memset(e->sha256, 0x5a, sizeof(e->sha256));
	/* racy: ctime within FP_RACY_MARGIN_NS of the before-snapshot */
	cr_assert_geq(e->ctime_ns, S.started_ns - FP_RACY_MARGIN_NS);
	snap(&S2, &o);
	cr_assert_not(need(&S2, "old")->reused);
	assert_sha(need(&S2, "old"), hello_sha);
}

Test(snapshot_fs, racy_margin_boundary)
{
	struct fp_fs_opts o = { .prev = &S };
	struct fp_fentry *e;

	write_file("old", "hello\n", 6, 0644);
	snap(&S, NULL);
	e = (struct fp_fentry *)need(&S, "old");
	memset(e->sha256, 0x5a, sizeof(e->sha256));
	S.started_ns = e->ctime_ns + FP_RACY_MARGIN_NS;
	snap(&S2, &o);
	cr_assert_not(need(&S2, "old")->reused, "ctime exactly at the margin");
	fp_fs_snapshot_free(&S2);
	S.started_ns = e->ctime_ns + FP_RACY_MARGIN_NS + 1;
	snap(&S2, &o);
	cr_assert(need(&S2, "old")->reused);
}

Test(snapshot_fs, no_reuse_with_rehash_all)
{
	struct fp_fs_opts o = { .prev = &S, .rehash_all = true };

	old_before();
	snap(&S2, &o);
	cr_assert_not(need(&S2, "old")->reused);
	cr_assert_not(need(&S2, "other")->reused);
	assert_sha(need(&S2, "old"), hello_sha);
	cr_assert_eq(S2.files_hashed, 2);
}

Test(snapshot_fs, no_reuse_when_changed)
{
	struct fp_fs_opts o = { .prev = &S };
	struct timespec ts[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };
	char want[65];

	old_before();
	/* same size, other bytes */
	write_file("old", "HELLO\n", 6, 0644);
	/* and even with the old mtime back, ctime moved */
	ts[1].tv_sec = need(&S, "old")->mtime_ns / 1000000000LL;
	ts[1].tv_nsec = need(&S, "old")->mtime_ns % 1000000000LL;
	cr_assert_eq(utimensat(AT_FDCWD, at("old"), ts, 0), 0);
	snap(&S2, &o);
	sha_zeros_then(0, "HELLO\n", 6, want);
	cr_assert_not(need(&S2, "old")->reused);
	assert_sha(need(&S2, "old"), want);
}

Test(snapshot_fs, no_reuse_when_replaced)
{
	struct fp_fs_opts o = { .prev = &S };

	old_before();
	/* a new inode under the old name */
	cr_assert_eq(unlink(at("old")), 0);
	write_file("old", "hello\n", 6, 0644);
	snap(&S2, &o);
	cr_assert_not(need(&S2, "old")->reused);
	assert_sha(need(&S2, "old"), hello_sha);
}

/* ---- unreadable ---- */

#define NOBODY 65534

/* In a child that dropped to nobody: snapshot, check, exit 0 or a code
 * naming the failed check. */
static int child_checks(void)
{
	struct fp_fs_snapshot s;
	const struct fp_fentry *e;
	struct fp_fs_opts o = { 0 };

	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return 10;
	if (fp_fs_snapshot(&s, roots, 1, &o))
		return 11;
	e = fp_fs_find(&s, at("secret"), strlen(at("secret")));
	if (!e)
		return 12;
	if (e->type != 'd')
		return 13;
	if (e->err != EACCES)
		return 14;
	if (fp_fs_find(&s, at("secret/inner"), strlen(at("secret/inner"))))
		return 15;
	e = fp_fs_find(&s, at("noread"), strlen(at("noread")));
	if (!e)
		return 16;
	if (e->type != 'f' || e->err != EACCES || e->hashed)
		return 17;
	e = fp_fs_find(&s, at("open"), strlen(at("open")));
	if (!e || !e->hashed || e->err)
		return 18;
	if (s.n != 4)
		return 19;
	fp_fs_snapshot_free(&s);
	return 0;
}

Test(snapshot_fs, unreadable_dir_and_file)
{
	pid_t pid;
	int status;

	if (geteuid() != 0)
		cr_skip_test("needs root to drop to nobody");
	cr_assert_eq(chmod(dir, 0755), 0);
	cr_assert_eq(mkdir(at("secret"), 0700), 0);
	cr_assert_eq(chown(at("secret"), 0, 0), 0);
	write_file("secret/inner", "x", 1, 0644);
	write_file("noread", "x", 1, 0600);
	cr_assert_eq(chown(at("noread"), 0, 0), 0);
	write_file("open", "hello\n", 6, 0644);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(child_checks());
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status), "child status %#x", status);
	cr_assert_eq(WEXITSTATUS(status), 0,
		     "check %d failed in the unprivileged child",
		     WEXITSTATUS(status));
}

/* ---- deep and long trees ---- */

/* dir + "/" + name repeated n times, in a buffer of its own */
static char *repeat_path(const char *name, int n, const char *tail)
{
	size_t nl = strlen(name),
	       len = strlen(dir) + n * (nl + 1) + 2 + (tail ? strlen(tail) : 0);
	char *p = malloc(len), *q;
	int i;

	cr_assert_not_null(p);
	q = p + sprintf(p, "%s", dir);
	for (i = 0; i < n; i++)
		q += sprintf(q, "/%s", name);
	if (tail)
		sprintf(q, "/%s", tail);
	return p;
}

/* n nested directories called name, a file f ("hello\n") at the bottom;
 * openat all the way, as the path soon exceeds PATH_MAX */
static void make_chain(const char *name, int n)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY), sub, i;

	cr_assert_geq(fd, 0);
	for (i = 0; i < n; i++) {
		cr_assert_eq(mkdirat(fd, name, 0755), 0, "level %d: %s", i,
			     strerror(errno));
		sub = openat(fd, name, O_RDONLY | O_DIRECTORY);
		cr_assert_geq(sub, 0, "level %d: %s", i, strerror(errno));
		close(fd);
		fd = sub;
	}
	sub = openat(fd, "f", O_WRONLY | O_CREAT, 0644);
	cr_assert_geq(sub, 0);
	cr_assert_eq(write(sub, "hello\n", 6), 6);
	close(sub);
	cr_assert_eq(symlinkat("f", fd, "l"), 0);
	close(fd);
}

static const struct fp_fentry *need_abs(const struct fp_fs_snapshot *s,
					const char *p)
{
	const struct fp_fentry *e = fp_fs_find(s, p, strlen(p));

	cr_assert_not_null(e, "no entry for a path of %zu bytes", strlen(p));
	return e;
}

static int open_fds(void)
{
	int fd = open("/dev/null", O_RDONLY), n = fd;

	close(fd);
	return n;
}

Test(snapshot_fs, deep_tree_with_few_fds, .timeout = 60)
{
	/* the recursive walk crashed at about 1,900 levels */
	enum { DEPTH = 10000 };
	struct rlimit rl;
	char *deepest = repeat_path("d", DEPTH, NULL);
	char *f = repeat_path("d", DEPTH, "f");
	char *l = repeat_path("d", DEPTH, "l");
	int before;

	make_chain("d", DEPTH);
	/* one fd per level would not fit */
	before = open_fds();
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = before + 64;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	snap(&S, NULL);
	cr_assert_eq(S.n, 1 + DEPTH + 2, "%zu entries", S.n);
	cr_assert_eq(need_abs(&S, deepest)->type, 'd');
	cr_assert_eq(need_abs(&S, deepest)->err, 0);
	assert_sha(need_abs(&S, f), hello_sha);
	cr_assert_str_eq(need_abs(&S, l)->target.data, "f");
	cr_assert_eq(open_fds(), before, "fds leaked");
	free(deepest);
	free(f);
	free(l);
}

Test(snapshot_fs, path_longer_than_path_max)
{
	char name[251];
	char *deepest, *f;

	memset(name, 'n', 250);
	name[250] = '\0';
	make_chain(name, 24);
	deepest = repeat_path(name, 24, NULL);
	f = repeat_path(name, 24, "f");
	cr_assert_gt(strlen(f), 6000);
	snap(&S, NULL);
	cr_assert_eq(S.n, 1 + 24 + 2, "%zu entries", S.n);
	cr_assert_eq(need_abs(&S, deepest)->type, 'd');
	assert_sha(need_abs(&S, f), hello_sha);
	cr_assert_eq(need_abs(&S, f)->path.len, strlen(f));
	free(deepest);
	free(f);
}

/* ---- the tree changes between walk and hash ---- */

static char outside[256];

/* a directory outside the root with what must never be hashed */
static void make_outside(void)
{
	char tmpl[] = "/tmp/fp-outside-XXXXXX", p[512];
	int fd;

	cr_assert_not_null(mkdtemp(tmpl));
	strcpy(outside, tmpl);
	snprintf(p, sizeof(p), "%s/sub", outside);
	cr_assert_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/sub/f", outside);
	fd = open(p, O_WRONLY | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "TOPSECRET\n", 10), 10);
	close(fd);
}

static void drop_outside(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", outside);
	if (outside[0] && system(cmd))
		cr_log_warn("cleanup of %s failed", outside);
}

static void swap_dir_for_symlink(void *ctx)
{
	char p[512];

	cr_assert_eq(rename(at("sub"), at("sub.old")), 0);
	snprintf(p, sizeof(p), "%s/sub", outside);
	cr_assert_eq(symlink(p, at("sub")), 0);
	snprintf(p, sizeof(p), "%s/sub/f", outside);
	cr_assert_eq(unlink(at("f")), 0);
	cr_assert_eq(symlink(p, at("f")), 0);
	*(int *)ctx += 1;
}

static void assert_never_hashed(const struct fp_fentry *e)
{
	cr_assert_not(e->hashed, "%s was hashed", e->path.data);
	cr_assert(e->unstable, "%s not marked unstable", e->path.data);
	/* the walk's stat, not the swapped-in file's */
	cr_assert_eq(e->type, 'f');
	cr_assert_eq(e->size, 3, "%s: size %llu", e->path.data,
		     (unsigned long long)e->size);
}

Test(snapshot_fs, symlink_swapped_in_between_walk_and_hash)
{
	int called = 0;
	struct fp_fs_opts o = { .after_walk = swap_dir_for_symlink,
				.after_walk_ctx = &called };

	make_outside();
	cr_assert_eq(mkdir(at("sub"), 0755), 0);
	write_file("sub/f", "in\n", 3, 0644);
	write_file("f", "in\n", 3, 0644);
	snap(&S, &o);
	drop_outside();
	cr_assert_eq(called, 1);
	assert_never_hashed(need(&S, "sub/f"));
	assert_never_hashed(need(&S, "f"));
	cr_assert_eq(S.files_hashed, 0);
	cr_assert_eq(S.bytes_hashed, 0);
}

static void swap_file_for_fifo(void *ctx)
{
	cr_assert_eq(unlink(at("f")), 0);
	cr_assert_eq(mkfifo(at("f"), 0666), 0);
}

Test(snapshot_fs, fifo_swapped_in_between_walk_and_hash, .timeout = 10)
{
	struct fp_fs_opts o = { .after_walk = swap_file_for_fifo };

	write_file("f", "in\n", 3, 0644);
	snap(&S, &o);
	assert_never_hashed(need(&S, "f"));
}

/* ---- deadline ---- */

static int64_t mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

Test(snapshot_fs, deadline_stops_hashing_a_huge_sparse_file)
{
	struct fp_fs_opts o = { 0 };
	int fd = open(at("huge"), O_WRONLY | O_CREAT, 0644);
	int64_t t0;

	/* 100 GiB of hole hashes for about a minute */
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 100LL << 30), 0);
	close(fd);
	t0 = mono_ms();
	o.deadline_ns = (t0 + 300) * 1000000LL;
	cr_assert_eq(fp_fs_snapshot(&S, roots, 1, &o), -ETIMEDOUT);
	cr_assert_lt(mono_ms() - t0, 2000, "took %lld ms",
		     (long long)(mono_ms() - t0));
	cr_assert_eq(S.n, 0, "a failed snapshot is empty");
}

Test(snapshot_fs, deadline_already_past_stops_the_walk)
{
	struct fp_fs_opts o = { .deadline_ns = 1 };

	write_file("a", "a", 1, 0644);
	cr_assert_eq(fp_fs_snapshot(&S, roots, 1, &o), -ETIMEDOUT);
}

/* ---- with the invoking user's rights ---- */

Test(snapshot_fs, reads_with_the_invoking_users_rights)
{
	struct fp_creds c;
	struct fp_fs_opts o = { 0 };
	char name[32], err[256];
	int i;

	if (geteuid() != 0)
		cr_skip_test("needs root to act as nobody");
	cr_assert_eq(chmod(dir, 0755), 0);
	/* enough files for every hashing thread to take some */
	for (i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "open%d", i);
		write_file(name, "hello\n", 6, 0644);
		snprintf(name, sizeof(name), "secret%d", i);
		write_file(name, "hello\n", 6, 0600);
	}
	cr_assert_eq(mkdir(at("private"), 0700), 0);
	write_file("private/inner", "x", 1, 0644);
	cr_assert_eq(setenv("SUDO_UID", "65534", 1), 0);
	cr_assert_eq(fp_creds_invoker(&c, err, sizeof(err)), 0, "%s", err);
	cr_assert(c.active);
	o.creds = &c;
	snap(&S, &o);
	for (i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "open%d", i);
		assert_sha(need(&S, name), hello_sha);
		snprintf(name, sizeof(name), "secret%d", i);
		cr_assert_not(need(&S, name)->hashed, "%s hashed", name);
		cr_assert_eq(need(&S, name)->err, EACCES, "%s", name);
	}
	cr_assert_eq(need(&S, "private")->err, EACCES);
	cr_assert_null(find(&S, "private/inner"));
	/* and every thread is root again */
	snap(&S2, NULL);
	assert_sha(need(&S2, "secret0"), hello_sha);
	assert_sha(
		need(&S2, "private/inner"),
		"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881");
	fp_creds_free(&c);
}

/* ---- every CPU walks ---- */

enum { WIDE_TOPS = 12, WIDE_CHAIN = 40 };

/*
 * Directories enough for walkers to hand some to others: WIDE_TOPS tops,
 * each with five directories of three files, a symlink, a FIFO and a
 * directory only root may enter; in the first, a chain deeper than a
 * walker keeps fds for, two directories a level (c goes on, x holds a
 * file), so that a handed directory is walked deep.
 */
static void make_wide_tree(void)
{
	char rel[128];
	int t, d, f, fd, sub, i;

	for (t = 0; t < WIDE_TOPS; t++) {
		snprintf(rel, sizeof(rel), "t%d", t);
		cr_assert_eq(mkdir(at(rel), 0755), 0);
		for (d = 0; d < 5; d++) {
			snprintf(rel, sizeof(rel), "t%d/d%d", t, d);
			cr_assert_eq(mkdir(at(rel), 0755), 0);
			for (f = 0; f < 3; f++) {
				snprintf(rel, sizeof(rel), "t%d/d%d/f%d", t, d,
					 f);
				write_file(rel, rel, strlen(rel), 0644);
			}
		}
		snprintf(rel, sizeof(rel), "t%d/l", t);
		cr_assert_eq(symlink("d0", at(rel)), 0);
		snprintf(rel, sizeof(rel), "t%d/p", t);
		cr_assert_eq(mkfifo(at(rel), 0644), 0);
		snprintf(rel, sizeof(rel), "t%d/private", t);
		cr_assert_eq(mkdir(at(rel), 0700), 0);
		snprintf(rel, sizeof(rel), "t%d/private/inner", t);
		write_file(rel, "x", 1, 0644);
	}
	fd = open(at("t0"), O_RDONLY | O_DIRECTORY);
	cr_assert_geq(fd, 0);
	for (i = 0; i < WIDE_CHAIN; i++) {
		cr_assert_eq(mkdirat(fd, "x", 0755), 0);
		sub = openat(fd, "x/f", O_WRONLY | O_CREAT, 0644);
		cr_assert_geq(sub, 0);
		cr_assert_eq(write(sub, "hello\n", 6), 6);
		close(sub);
		cr_assert_eq(mkdirat(fd, "c", 0755), 0);
		sub = openat(fd, "c", O_RDONLY | O_DIRECTORY);
		cr_assert_geq(sub, 0);
		close(fd);
		fd = sub;
	}
	close(fd);
}

/* the root; a top, its 5 + 15, l, p, private and inner; 3 a level */
#define WIDE_ENTRIES (1 + WIDE_TOPS * 25 + WIDE_CHAIN * 3)

static void assert_same_entries(const struct fp_fs_snapshot *a,
				const struct fp_fs_snapshot *b)
{
	size_t i;

	cr_assert_eq(a->n, b->n, "%zu entries against %zu", a->n, b->n);
	for (i = 0; i < a->n; i++) {
		const struct fp_fentry *x = &a->e[i], *y = &b->e[i];

		cr_assert_eq(fp_bytes_cmp(x->path.data, x->path.len,
					  y->path.data, y->path.len),
			     0, "%s against %s", x->path.data, y->path.data);
		cr_assert(x->type == y->type && x->mode == y->mode &&
				  x->uid == y->uid && x->size == y->size &&
				  x->mtime_ns == y->mtime_ns &&
				  x->ctime_ns == y->ctime_ns &&
				  x->dev == y->dev && x->ino == y->ino,
			  "%s: stat differs", x->path.data);
		cr_assert(x->hashed == y->hashed && x->err == y->err &&
				  x->unstable == y->unstable &&
				  x->mount == y->mount,
			  "%s: hashed %d/%d err %d/%d unstable %d/%d",
			  x->path.data, x->hashed, y->hashed, x->err, y->err,
			  x->unstable, y->unstable);
		cr_assert_eq(memcmp(x->sha256, y->sha256, 32), 0, "%s",
			     x->path.data);
		cr_assert_eq(x->target.len, y->target.len, "%s", x->path.data);
		if (x->target.len)
			cr_assert_eq(memcmp(x->target.data, y->target.data,
					    x->target.len),
				     0, "%s", x->path.data);
	}
}

Test(snapshot_fs, every_cpu_walks_what_one_walks, .timeout = 60)
{
	struct fp_fs_opts one = { .threads = 1 }, many = { .threads = 4 };
	int before, round;

	make_wide_tree();
	before = open_fds();
	snap(&S, &one);
	cr_assert_eq(S.n, WIDE_ENTRIES, "%zu entries", S.n);
	assert_sha(need(&S, "t0/c/c/c/c/c/c/c/c/c/c/c/c/c/c/c/c/c/c/c/c/c/"
			    "c/c/c/c/c/c/c/c/c/c/c/c/c/c/c/c/c/c/x/f"),
		   hello_sha);
	/* which walker takes which directory changes from run to run */
	for (round = 0; round < 20; round++) {
		snap(&S2, &many);
		assert_sorted(&S2);
		assert_same_entries(&S, &S2);
		fp_fs_snapshot_free(&S2);
		cr_assert_eq(open_fds(), before, "fds leaked");
	}
}

/* an entry of a made-up table for fp_fs_merge(): its path, and ino as a
 * tag that tells which entry was kept */
static struct fp_fentry merge_entry(const char *path, uint64_t ino, bool copy,
				    int err)
{
	return (struct fp_fentry){
		.path = { (char *)path, strlen(path) },
		.type = 'd',
		.mode = copy ? 0 : 0755,
		.ino = ino,
		.copy = copy,
		.err = err,
	};
}

/*
 * The walkers' sorted tables merged: one path once, in byte order. A
 * handed directory's copy gives way to its entry wherever either is, and
 * its read error (a reopen through ".." that found another directory)
 * stays; overlapping roots' twice-walked entry is listed once with the
 * error either met. Walker 0's array grows, or is big enough already;
 * the files left to hash are listed by their place in the merged table.
 */
Test(snapshot_fs, merge_gives_a_copy_up_for_its_entry)
{
	struct fp_fentry w1[] = {
		merge_entry("/r/a", 11, true, ESTALE),
		merge_entry("/r/a/x", 12, false, 0),
		merge_entry("/r/b", 13, false, 0),
		merge_entry("/r/d", 14, false, 0),
	};
	struct fp_fentry w2[] = {
		merge_entry("/r/a.c", 21, false, 0),
		merge_entry("/r/a/y", 22, false, EACCES),
		merge_entry("/r/b", 23, false, EACCES),
	};
	static const char *const want[] = { "/r",     "/r/a",	"/r/a.c",
					    "/r/a/x", "/r/a/y", "/r/b",
					    "/r/c",   "/r/d" };
	struct fp_fs_snapshot t1 = { .e = w1, .n = 4 },
			      t2 = { .e = w2, .n = 3 }, none = { 0 };
	struct fp_fs_snapshot *more[] = { &t1, &none, &t2 };
	struct fp_fs_todo todo;
	size_t cap, i;

	/* files: one to hash, one hashed already, one unreadable, and one
	 * whose twin met an error, which is not hashed either */
	w1[1].type = w2[0].type = w2[1].type = 'f';
	w1[2].type = w2[2].type = 'f';
	w1[1].size = 7;
	w2[0].hashed = true;

	for (cap = 4; cap <= 16; cap += 12) {
		struct fp_fs_snapshot s = { .e = malloc(cap * sizeof(*s.e)) };

		cr_assert_not_null(s.e);
		s.e[s.n++] = merge_entry("/r", 1, false, 0);
		s.e[s.n++] = merge_entry("/r/a", 2, false, 0);
		s.e[s.n++] = merge_entry("/r/c", 3, false, 0);
		s.e[s.n++] = merge_entry("/r/d", 4, true, ESTALE);
		cr_assert_eq(fp_fs_merge(&s, cap, more, 3, &todo), 0);
		cr_assert_eq(s.n, 8, "%zu entries", s.n);
		for (i = 0; i < s.n; i++) {
			cr_assert_str_eq(s.e[i].path.data, want[i]);
			cr_assert(!s.e[i].copy, "%s: a copy", want[i]);
		}
		/* /r/a: walker 0's entry, with the copy's error */
		cr_assert_eq(s.e[1].ino, 2);
		cr_assert_eq(s.e[1].mode, 0755);
		cr_assert_eq(s.e[1].err, ESTALE);
		/* /r/b: the first walked, with the error the other met */
		cr_assert_eq(s.e[5].ino, 13);
		cr_assert_eq(s.e[5].err, EACCES);
		/* /r/d: the entry, though its copy came first */
		cr_assert_eq(s.e[7].ino, 14);
		cr_assert_eq(s.e[7].mode, 0755);
		cr_assert_eq(s.e[7].err, ESTALE);
		/* /r/a/x alone is left to hash */
		cr_assert_eq(todo.n, 1);
		cr_assert_eq(todo.at[0], 3);
		cr_assert_eq(todo.bytes, 7);
		free(todo.at);
		free(s.e);
	}
}

Test(snapshot_fs, every_walker_reads_with_the_invoking_users_rights)
{
	struct fp_creds c;
	struct fp_fs_opts o = { .threads = 4 };
	char err[256], rel[64];
	int t;

	if (geteuid() != 0)
		cr_skip_test("needs root to act as nobody");
	cr_assert_eq(chmod(dir, 0755), 0);
	make_wide_tree();
	cr_assert_eq(setenv("SUDO_UID", "65534", 1), 0);
	cr_assert_eq(fp_creds_invoker(&c, err, sizeof(err)), 0, "%s", err);
	o.creds = &c;
	snap(&S, &o);
	for (t = 0; t < WIDE_TOPS; t++) {
		snprintf(rel, sizeof(rel), "t%d/private", t);
		cr_assert_eq(need(&S, rel)->err, EACCES, "%s", rel);
		snprintf(rel, sizeof(rel), "t%d/private/inner", t);
		cr_assert_null(find(&S, rel), "%s listed", rel);
		snprintf(rel, sizeof(rel), "t%d/d4/f2", t);
		cr_assert(need(&S, rel)->hashed, "%s", rel);
	}
	cr_assert_eq(S.n, WIDE_ENTRIES - WIDE_TOPS, "%zu entries", S.n);
	fp_creds_free(&c);
}

/*
 * Whether a tree fits --memory-budget depends on the tree alone: one
 * walker and four agree at every budget around what this one takes (a
 * table of 1,024 entries, 128 KiB, and the paths), fail the same way and
 * leave no fd open.
 */
Test(snapshot_fs, every_walker_fits_the_budget_one_does, .timeout = 60)
{
	struct fp_fs_opts one = { .threads = 1 }, many = { .threads = 4 };
	int before, a, b, fits = 0, not = 0;
	uint64_t kib;

	make_wide_tree();
	before = open_fds();
	for (kib = 120; kib <= 200; kib += 2) {
		one.max_bytes = many.max_bytes = kib * 1024;
		a = fp_fs_snapshot(&S, roots, 1, &one);
		b = fp_fs_snapshot(&S2, roots, 1, &many);
		cr_assert_eq(a, b, "%llu KiB: %d with one walker, %d with four",
			     (unsigned long long)kib, a, b);
		cr_assert(a == 0 || a == -E2BIG, "%llu KiB: %d",
			  (unsigned long long)kib, a);
		cr_assert(!a || !fits, "%llu KiB fails where less fitted",
			  (unsigned long long)kib);
		if (a) {
			not ++;
			cr_assert_eq(S.n, 0);
			cr_assert_eq(S2.n, 0);
		} else {
			fits++;
			assert_same_entries(&S, &S2);
		}
		fp_fs_snapshot_free(&S);
		fp_fs_snapshot_free(&S2);
		cr_assert_eq(open_fds(), before, "fds leaked at %llu KiB",
			     (unsigned long long)kib);
	}
	cr_assert(fits && not, "%d budgets fit, %d did not", fits, not );
}

/* ---- path helpers ---- */

static bool under(const char *p, const char *root)
{
	return fp_path_under(p, strlen(p), root, strlen(root));
}

Test(snapshot_fs, path_under)
{
	cr_assert(under("/", "/"));
	cr_assert(under("/a", "/"));
	cr_assert(under("/a/b/c", "/"));
	cr_assert_not(under("", "/"));
	cr_assert(under("/a", "/a"));
	cr_assert(under("/a/b", "/a"));
	cr_assert(under("/a/b/c", "/a"));
	cr_assert_not(under("/ab", "/a"));
	cr_assert_not(under("/a-b", "/a"));
	cr_assert_not(under("/", "/a"));
	cr_assert_not(under("/b", "/a"));
	cr_assert_not(under("/a", "/a/b"));
	cr_assert(under("/a/b", "/a/b"));
	cr_assert_not(under("/a/bc", "/a/b"));
	/* lengths, not NULs */
	cr_assert(fp_path_under("/a/bc", 4, "/a/b", 4));
	cr_assert_not(fp_path_under("/ab", 3, "/a/x", 2));
	cr_assert(fp_path_under("/a/x", 4, "/a/y", 2));
}

Test(snapshot_fs, bytes_cmp)
{
	cr_assert_eq(fp_bytes_cmp("a", 1, "a", 1), 0);
	cr_assert_lt(fp_bytes_cmp("a", 1, "ab", 2), 0);
	cr_assert_gt(fp_bytes_cmp("ab", 2, "a", 1), 0);
	cr_assert_lt(fp_bytes_cmp("a", 1, "b", 1), 0);
	cr_assert_lt(fp_bytes_cmp("z", 1, "\xff", 1), 0, "bytes are unsigned");
	cr_assert_lt(fp_bytes_cmp("a\0", 1, "a\0", 2), 0);
	cr_assert_eq(fp_bytes_cmp("", 0, "", 0), 0);
	cr_assert_lt(fp_bytes_cmp("/a-b", 4, "/a/b", 4), 0);
}

Test(snapshot_fs, find)
{
	const char *p;

	write_file("a", "", 0, 0644);
	write_file("b", "", 0, 0644);
	write_file("c", "", 0, 0644);
	snap(&S, NULL);
	p = at("b");
	cr_assert_not_null(fp_fs_find(&S, p, strlen(p)));
	cr_assert_eq(fp_fs_find(&S, p, strlen(p))->path.data[strlen(p) - 1],
		     'b');
	p = at("bb");
	cr_assert_null(fp_fs_find(&S, p, strlen(p)));
	/* "DIR/" is a prefix of entries, not an entry */
	cr_assert_null(fp_fs_find(&S, p, strlen(dir) + 1));
	cr_assert_not_null(fp_fs_find(&S, dir, strlen(dir)));
	fp_fs_snapshot_free(&S);
	cr_assert_null(fp_fs_find(&S, dir, strlen(dir)));
}
