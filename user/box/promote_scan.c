// SPDX-License-Identifier: GPL-2.0
/*
 * The scratch change set, from the upper layer of the overlay: a regular
 * file or symlink there is new content (added, or changed when the real
 * tree holds something else at its path; a copy-up that changed nothing
 * is no change), a 0/0 character device is a whiteout (the path and all
 * under it removed), a directory marked opaque replaced the real one (all
 * the real one held is removed).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "lock.h"
#include "promote.h"
#include "say_bytes.h"
#include "sha256.h"

#define SCAN_MAX_DEPTH 256

static int open_beneath(int dirfd, const char *rel, int flags)
{
	struct open_how how = {
		.flags = flags | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};

	return syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
}

static int hash_fd(int fd, char *hex)
{
	unsigned char h[FP_SHA256_LEN];
	int ret = fp_sha256_fd(fd, h);

	if (!ret)
		fp_lock_hex(hex, h);
	return ret;
}

/* the target, cut at PATH_MAX - 1 bytes as the kernel makes them */
static int read_target(int fd, struct fp_pstate *st)
{
	char buf[PATH_MAX];
	ssize_t n = readlinkat(fd, "", buf, sizeof(buf) - 1);

	if (n < 0)
		return -errno;
	st->target = strndup(buf, n);
	return st->target ? 0 : -ENOMEM;
}

/*
 * Hash the regular file sb (stat'ed through an O_PATH fd), opened again
 * at rel without blocking (a FIFO swapped in cannot hold promote), and
 * only if it is still that file.
 */
static int hash_file(int dirfd, const char *rel, const struct stat *sb,
		     struct fp_pstate *st, struct fp_pident *id)
{
	struct stat rb;
	int rd = open_beneath(dirfd, rel, O_RDONLY | O_NONBLOCK), e;

	if (rd < 0)
		return errno == ENXIO || errno == ELOOP ? -ESTALE : -errno;
	e = fstat(rd, &rb) ? -errno : 0;
	if (!e && (!S_ISREG(rb.st_mode) || rb.st_dev != sb->st_dev ||
		   rb.st_ino != sb->st_ino))
		e = -ESTALE;
	if (!e)
		e = hash_fd(rd, st->sha);
	if (!e && id)
		*id = (struct fp_pident){ rb.st_dev, rb.st_ino, rb.st_size };
	close(rd);
	return e;
}

int fp_promote_state_id(int dirfd, const char *rel, struct fp_pstate *st,
			struct fp_pident *id)
{
	struct stat sb;
	int fd, e = 0;

	memset(st, 0, sizeof(*st));
	if (id)
		memset(id, 0, sizeof(*id));
	fd = open_beneath(dirfd, rel, O_PATH);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &sb)) {
		e = -errno;
		goto out;
	}
	st->mode = sb.st_mode & 07777;
	st->type = S_ISREG(sb.st_mode) ? 'f' :
		   S_ISDIR(sb.st_mode) ? 'd' :
		   S_ISLNK(sb.st_mode) ? 'l' :
		   S_ISCHR(sb.st_mode) ? 'c' :
					 '?';
	if (st->type == 'l')
		e = read_target(fd, st);
	if (st->type == 'f')
		e = hash_file(dirfd, rel, &sb, st, id);
out:
	close(fd);
	return e;
}

int fp_promote_state(int dirfd, const char *rel, struct fp_pstate *st)
{
	return fp_promote_state_id(dirfd, rel, st, NULL);
}

static bool same_state(const struct fp_pstate *a, const struct fp_pstate *b)
{
	return a->type == b->type && a->mode == b->mode &&
	       !strcmp(a->sha, b->sha) && !strcmp(fp_ptarget(a), fp_ptarget(b));
}

/* dir/name into out; -ENAMETOOLONG rather than a cut path */
static int join(char *out, size_t n, const char *dir, const char *name)
{
	int k = snprintf(out, n, "%s%s%s", dir, *dir ? "/" : "", name);

	return k < 0 || (size_t)k >= n ? -ENAMETOOLONG : 0;
}

typedef int (*child_fn)(struct fp_proot *r, const char *rel, int depth);

/*
 * fn(rel/name, depth) for each entry of the directory rel under top ("" is
 * top itself), until one fails. A directory that cannot be opened is
 * -errno, or nothing at all if missing_ok and it is not there.
 */
static int each_child(struct fp_proot *r, int top, const char *rel, int depth,
		      bool missing_ok, child_fn fn)
{
	struct dirent *d;
	char sub[PATH_MAX];
	DIR *dir;
	int e = 0,
	    fd = open_beneath(top, *rel ? rel : ".", O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return missing_ok && (errno == ENOENT || errno == ENOTDIR) ?
			       0 :
			       -errno;
	dir = fdopendir(fd);
	if (!dir)
		return close(fd), -ENOMEM;
	while (!e && (d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		e = join(sub, sizeof(sub), rel, d->d_name) ?: fn(r, sub, depth);
	}
	closedir(dir);
	return e;
}

/* everything the real tree holds at rel and beneath, removed */
static int removed_tree(struct fp_proot *r, const char *rel, int depth)
{
	struct fp_pstate real;
	int e = fp_promote_state(r->rootfd, rel, &real);

	if (e || !real.type)
		return e; /* nothing held */
	if (real.type == 'd' && depth < SCAN_MAX_DEPTH)
		e = each_child(r, r->rootfd, rel, depth + 1, false,
			       removed_tree);
	e = e ?: fp_pset_add(&r->scratch, rel, FP_PROMOTE_REMOVED, NULL, &real);
	fp_pstate_free(&real);
	return e;
}

/* a real entry the upper layer does not have: removed, with its tree */
static int removed_if_not_upper(struct fp_proot *r, const char *rel, int depth)
{
	struct fp_pstate up = { 0 };
	int e = fp_promote_state(r->upperfd, rel, &up);

	if (!e && !up.type)
		e = removed_tree(r, rel, depth);
	fp_pstate_free(&up);
	return e;
}

/* a real child of rel that the opaque upper dir does not have */
static int opaque_removals(struct fp_proot *r, const char *rel, int depth)
{
	return each_child(r, r->rootfd, rel, depth + 1, true,
			  removed_if_not_upper);
}

static int scan_dir(struct fp_proot *r, const char *rel, int depth);

static int scan_change(struct fp_proot *r, const char *rel, int depth,
		       const struct fp_pstate *up, const struct fp_pstate *real)
{
	int e = 0;

	if (up->type == 'c') /* a whiteout: the overlay's only devices */
		return removed_tree(r, rel, depth);
	if (up->type == 'd') {
		char v[2] = "";
		int fd = open_beneath(r->upperfd, rel, O_RDONLY | O_DIRECTORY);
		bool opaque = fd >= 0 &&
			      fgetxattr(fd, "user.overlay.opaque", v, 1) == 1 &&
			      v[0] == 'y';

		if (fd >= 0)
			close(fd);
		if (opaque && real->type == 'd')
			e = opaque_removals(r, rel, depth);
		if (!e && !real->type)
			e = fp_pset_add(&r->scratch, rel, FP_PROMOTE_ADDED, up,
					NULL);
		else if (!e && (real->type != 'd' || real->mode != up->mode))
			e = fp_pset_add(&r->scratch, rel, FP_PROMOTE_CHANGED,
					up, real);
		return e ?: scan_dir(r, rel, depth + 1);
	}
	if (!real->type)
		return fp_pset_add(&r->scratch, rel, FP_PROMOTE_ADDED, up,
				   NULL);
	/* a file over a directory: what the directory held went first */
	if (real->type == 'd')
		e = opaque_removals(r, rel, depth);
	if (!e && !same_state(up, real))
		e = fp_pset_add(&r->scratch, rel, FP_PROMOTE_CHANGED, up, real);
	return e;
}

static int scan_entry(struct fp_proot *r, const char *rel, int depth)
{
	struct fp_pstate up, real = { 0 };
	struct fp_pident id;
	int e = fp_promote_state_id(r->upperfd, rel, &up, &id);
	struct fp_pchange *last;

	if (!e)
		e = fp_promote_state(r->rootfd, rel, &real);
	if (!e)
		e = scan_change(r, rel, depth, &up, &real);
	/* a file's change is the last one added: the file it hashed */
	last = r->scratch.n ? &r->scratch.v[r->scratch.n - 1] : NULL;
	if (!e && up.type == 'f' && last && !strcmp(last->rel, rel))
		last->src = id;
	fp_pstate_free(&up);
	fp_pstate_free(&real);
	return e;
}

static int scan_dir(struct fp_proot *r, const char *rel, int depth)
{
	if (depth > SCAN_MAX_DEPTH)
		return -ELOOP;
	return each_child(r, r->upperfd, rel, depth, false, scan_entry);
}

int fp_promote_scan(struct fp_proot *r)
{
	int e = scan_dir(r, "", 0);

	if (e == -E2BIG)
		fp_pset_say(e, "the scratch changes", r->root);
	else if (e)
		fprintf(stderr,
			"footprint: promote: cannot read the scratch layer of %s: %s\n",
			fp_said(r->root),
			e == -ESTALE ? "a file changed type while it was read" :
				       strerror(-e));
	return e;
}
