// SPDX-License-Identifier: GPL-2.0
/*
 * The walk is iterative, its stack on the heap, and reads each directory
 * relative to its parent's fd: depth and path length are bounded by
 * memory, not by the C stack or PATH_MAX. Only the innermost directories
 * keep an fd open; an outer one is reopened through ".." of its child and
 * must still be the directory the walk saw (dev/ino).
 *
 * Hashing comes after the walk, on every core, and reopens each file
 * beneath its root's fd without following symlinks or entering other
 * mounts: swapping a directory for a symlink between walk and hash leads
 * nowhere. Only the regular file the walk saw (dev/ino) is ever hashed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "creds.h"
#include "sha256.h"
#include "snapshot_fs.h"

#define HASH_CHUNK (256 * 1024)
#define DENTS_BUF (32 * 1024)
/* directory fds the walk holds at most, whatever the depth */
#define WALK_OPEN_FDS 32

/* what one hashing thread needs of its own */
struct hasher {
	struct fp_sha256 md;
	char *buf;
	uint64_t files, bytes;
	int64_t deadline_ns;
};

/* one directory on the walk's stack */
struct frame {
	size_t dir; /* its entry in s->e */
	size_t next, end; /* its children still to descend into */
	int fd; /* -1: closed to bound the fds, or lost (err) */
	int err; /* why it could not be reopened */
};

struct root {
	const char *path;
	size_t len;
	int fd; /* the root directory, -1 when it is not one */
	dev_t dev;
	int via; /* fp_fs_opts.root_fds[i], or -1 */
};

struct walker {
	struct fp_fs_snapshot *s;
	const struct fp_fs_opts *o;
	size_t cap;
	uint64_t used; /* bytes the entries take, against o->max_bytes */
	struct frame *stack;
	size_t depth, stack_cap;
	char *dents; /* getdents64 buffer */
	char *link; /* readlinkat buffer */
	size_t link_cap;
	dev_t root_dev;
	uint64_t progress_at;
};

int fp_bytes_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

bool fp_path_under(const char *path, size_t len, const char *root,
		   size_t rootlen)
{
	if (rootlen == 1 && root[0] == '/')
		return len >= 1 && path[0] == '/';
	if (len < rootlen || memcmp(path, root, rootlen))
		return false;
	return len == rootlen || path[rootlen] == '/';
}

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec;
}

static char type_of(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG:
		return 'f';
	case S_IFDIR:
		return 'd';
	case S_IFLNK:
		return 'l';
	case S_IFIFO:
		return 'p';
	case S_IFSOCK:
		return 's';
	case S_IFCHR:
		return 'c';
	case S_IFBLK:
		return 'b';
	}
	return '?';
}

static void fill_stat(struct fp_fentry *e, const struct stat *st)
{
	e->type = type_of(st->st_mode);
	e->mode = st->st_mode & 07777;
	e->uid = st->st_uid;
	e->gid = st->st_gid;
	e->size = st->st_size;
	e->mtime_ns = ts_ns(&st->st_mtim);
	e->ctime_ns = ts_ns(&st->st_ctim);
	e->dev = st->st_dev;
	e->ino = st->st_ino;
}

static bool same_version(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
	       a->st_size == b->st_size &&
	       ts_ns(&a->st_mtim) == ts_ns(&b->st_mtim) &&
	       ts_ns(&a->st_ctim) == ts_ns(&b->st_ctim);
}

static int64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return ts_ns(&t);
}

static bool past(int64_t deadline_ns)
{
	return deadline_ns && mono_ns() >= deadline_ns;
}

static struct fp_fentry *add_entry(struct walker *w, char *path, size_t len)
{
	struct fp_fs_snapshot *s = w->s;
	struct fp_fentry *e;

	/* the table, as allocated, and every path: what the tree costs us */
	w->used += len + 1;
	if (s->n == w->cap) {
		size_t ncap = w->cap ? w->cap * 2 : 1024;
		struct fp_fentry *ne = NULL;

		w->used += (ncap - w->cap) * sizeof(*ne);
		if (!w->o->max_bytes || w->used <= w->o->max_bytes)
			ne = realloc(s->e, ncap * sizeof(*ne));
		if (!ne) {
			free(path);
			return NULL;
		}
		s->e = ne;
		w->cap = ncap;
	}
	if (w->o->max_bytes && w->used > w->o->max_bytes) {
		free(path);
		return NULL;
	}
	e = &s->e[s->n++];
	memset(e, 0, sizeof(*e));
	e->path.data = path;
	e->path.len = len;
	return e;
}

/* parent's path + "/" + name, in a buffer of its own */
static struct fp_fentry *add_child(struct walker *w, size_t parent,
				   const char *name, size_t nlen)
{
	const struct fp_bytes *pp = &w->s->e[parent].path;
	size_t slash = pp->len > 1, len = pp->len + slash + nlen;
	char *path = malloc(len + 1);

	if (!path)
		return NULL;
	memcpy(path, pp->data, pp->len);
	path[pp->len] = '/';
	memcpy(path + pp->len + slash, name, nlen + 1);
	return add_entry(w, path, len);
}

static const char *base_name(const struct fp_fentry *e)
{
	const char *slash = memrchr(e->path.data, '/', e->path.len);

	return slash ? slash + 1 : e->path.data;
}

static bool try_reuse(struct walker *w, struct fp_fentry *e)
{
	const struct fp_fs_opts *o = w->o;
	const struct fp_fentry *p;

	if (!o->prev || o->rehash_all)
		return false;
	if (o->touched && o->touched(o->touched_ctx, e->path.data, e->path.len))
		return false;
	p = fp_fs_find(o->prev, e->path.data, e->path.len);
	if (!p || !p->hashed || p->unstable || p->type != 'f' ||
	    p->dev != e->dev || p->ino != e->ino || p->size != e->size ||
	    p->mtime_ns != e->mtime_ns || p->ctime_ns != e->ctime_ns)
		return false;
	/* git's racy-clean rule: a change in the same clock tick keeps ctime */
	if (p->ctime_ns >= o->prev->started_ns - FP_RACY_MARGIN_NS)
		return false;
	memcpy(e->sha256, p->sha256, sizeof(e->sha256));
	e->hashed = true;
	e->reused = true;
	return true;
}

/* A symlink target of any length, without a PATH_MAX buffer. */
static int read_link(struct walker *w, int dirfd, const char *name,
		     struct fp_fentry *e)
{
	ssize_t n = 0;

	for (;;) {
		if (!w->link_cap || n == (ssize_t)w->link_cap) {
			size_t ncap = w->link_cap ? w->link_cap * 2 : 256;
			char *nb = realloc(w->link, ncap);

			if (!nb)
				return -ENOMEM;
			w->link = nb;
			w->link_cap = ncap;
		}
		n = readlinkat(dirfd, name, w->link, w->link_cap);
		if (n < 0) {
			e->err = errno;
			return 0;
		}
		if (n < (ssize_t)w->link_cap)
			break;
	}
	w->used += n + 1;
	return fp_bytes_dup(&e->target, w->link, n) ? -ENOMEM : 0;
}

static int visit(struct walker *w, struct frame *f, const char *name)
{
	struct fp_fentry *e = add_child(w, f->dir, name, strlen(name));
	struct stat st;

	if (!e)
		return -ENOMEM;
	if (fstatat(f->fd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		e->type = '?';
		e->err = errno;
		return 0;
	}
	fill_stat(e, &st);
	if (w->o->progress && ++w->progress_at % 4096 == 0)
		w->o->progress(w->o->progress_ctx, w->s->n, 0);
	if (past(w->o->deadline_ns))
		return -ETIMEDOUT;
	switch (e->type) {
	case 'f':
		/* hashed after the walk, on every core, unless unchanged since
		 * the last snapshot */
		try_reuse(w, e);
		break;
	case 'l':
		return read_link(w, f->fd, name, e);
	case 'd':
		if (st.st_dev != w->root_dev && !w->o->cross_mounts)
			e->mount = true;
		break;
	}
	return 0;
}

/* Every entry of the directory on top of the stack, appended to s->e. */
static int read_dir(struct walker *w, struct frame *f)
{
	ssize_t n, off;
	int ret;

	f->next = w->s->n;
	f->end = w->s->n;
	for (;;) {
		n = getdents64(f->fd, w->dents, DENTS_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			w->s->e[f->dir].err = errno;
		if (n <= 0)
			break;
		for (off = 0; off < n;) {
			struct dirent64 *d =
				(struct dirent64 *)(w->dents + off);

			off += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			ret = visit(w, f, d->d_name);
			f->end = w->s->n;
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int push(struct walker *w, size_t dir, int fd)
{
	struct frame *f;

	if (w->depth == w->stack_cap) {
		size_t ncap = w->stack_cap ? w->stack_cap * 2 : 64;
		struct frame *ns = realloc(w->stack, ncap * sizeof(*ns));

		if (!ns) {
			close(fd);
			return -ENOMEM;
		}
		w->stack = ns;
		w->stack_cap = ncap;
	}
	f = &w->stack[w->depth++];
	*f = (struct frame){ .dir = dir, .fd = fd };
	if (w->depth > WALK_OPEN_FDS) {
		struct frame *old = &w->stack[w->depth - 1 - WALK_OPEN_FDS];

		if (old->fd >= 0)
			close(old->fd);
		old->fd = -1;
	}
	return read_dir(w, f);
}

/* Is fd still the directory the walk recorded in e? */
static bool same_dir(int fd, const struct fp_fentry *e)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISDIR(st.st_mode) && st.st_dev == e->dev &&
	       st.st_ino == e->ino;
}

/*
 * Back from a child to a parent whose fd was closed: ".." of the child
 * is the parent unless something moved meanwhile, and then the rest of
 * the parent is marked, never looked up by a path that may lead elsewhere.
 */
static void pop(struct walker *w)
{
	struct frame *f = &w->stack[--w->depth], *up;
	int fd;

	if (w->depth) {
		up = &w->stack[w->depth - 1];
		if (up->fd < 0 && !up->err) {
			fd = f->fd < 0 ? -1 :
					 openat(f->fd, "..",
						O_RDONLY | O_DIRECTORY |
							O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0 && same_dir(fd, &w->s->e[up->dir])) {
				up->fd = fd;
			} else {
				if (fd >= 0)
					close(fd);
				up->err = ESTALE;
			}
		}
	}
	if (f->fd >= 0)
		close(f->fd);
}

static int descend(struct walker *w, struct frame *f, size_t c)
{
	struct fp_fentry *e = &w->s->e[c];
	int fd;

	if (f->fd < 0) {
		e->err = f->err;
		return 0;
	}
	fd = openat(f->fd, base_name(e),
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC |
			    O_NONBLOCK);
	if (fd < 0) {
		e->err = errno;
		return 0;
	}
	if (!same_dir(fd, e)) {
		/* replaced since its stat: not the directory the walk saw */
		e->err = ESTALE;
		e->unstable = true;
		close(fd);
		return 0;
	}
	return push(w, c, fd);
}

static int walk(struct walker *w)
{
	int ret = 0;

	while (w->depth && !ret) {
		struct frame *f = &w->stack[w->depth - 1];
		const struct fp_fentry *e = NULL;

		while (f->next < f->end) {
			e = &w->s->e[f->next++];
			if (e->type == 'd' && !e->mount && !e->err)
				break;
			e = NULL;
		}
		if (e)
			ret = descend(w, f, e - w->s->e);
		else
			pop(w);
	}
	return ret;
}

static int snapshot_root(struct walker *w, struct root *r)
{
	char *path = strdup(r->path);
	struct fp_fentry *e = path ? add_entry(w, path, r->len) : NULL;
	struct stat st;
	int fd;

	if (!e)
		return -ENOMEM;
	if (r->via >= 0 ? fstat(r->via, &st) : lstat(r->path, &st)) {
		e->type = '?';
		e->err = errno;
		return 0;
	}
	fill_stat(e, &st);
	if (!S_ISDIR(st.st_mode))
		return 0;
	if (r->via >= 0)
		fd = openat(r->via, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	else
		fd = open(r->path,
			  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !same_dir(fd, e)) {
		e->err = fd < 0 ? errno : ESTALE;
		if (fd >= 0)
			close(fd);
		return 0;
	}
	/* kept for the hashing, which opens files beneath it */
	r->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (r->fd < 0) {
		close(fd);
		return -errno;
	}
	r->dev = st.st_dev;
	w->root_dev = st.st_dev;
	return push(w, w->s->n - 1, fd) ?: walk(w);
}

/*
 * Hash the data of a file of st's size. Holes of a sparse file are hashed
 * as the zeros they read as, without reading them. The deadline is looked
 * at every chunk: a 100 GiB hole takes a minute to hash.
 */
static int hash_fd(struct hasher *h, int fd, const struct stat *st,
		   unsigned char *out)
{
	static const char zeros[HASH_CHUNK];
	off_t size = st->st_size, pos = 0, data = 0, hole = size;
	bool sparse = (off_t)st->st_blocks * 512 < size;
	ssize_t n;

	fp_sha256_init(&h->md);
	while (pos < size) {
		if (sparse) {
			data = lseek(fd, pos, SEEK_DATA);
			if (data < 0) /* ENXIO: a hole to the end */
				data = errno == ENXIO ? size : pos;
			if (data > size)
				data = size;
			while (pos < data) {
				off_t k = data - pos < HASH_CHUNK ? data - pos :
								    HASH_CHUNK;

				if (past(h->deadline_ns))
					return -ETIMEDOUT;
				fp_sha256_update(&h->md, zeros, k);
				pos += k;
			}
			if (pos >= size)
				break;
			hole = lseek(fd, pos, SEEK_HOLE);
			if (hole < 0 || hole > size)
				hole = size;
			if (lseek(fd, pos, SEEK_SET) < 0)
				return -errno;
		}
		while (pos < hole) {
			size_t want = hole - pos < HASH_CHUNK ? hole - pos :
								HASH_CHUNK;

			if (past(h->deadline_ns))
				return -ETIMEDOUT;
			n = read(fd, h->buf, want);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			if (n == 0)
				return -EAGAIN; /* shrank while read */
			fp_sha256_update(&h->md, h->buf, n);
			pos += n;
			h->bytes += n;
		}
	}
	/* growth shows in the fstat the caller compares afterwards */
	fp_sha256_final(&h->md, out);
	return 0;
}

/*
 * Hash the open file fd into e; re-read once if it changed meanwhile.
 * opened: fd's fstat, taken just after its open; the first read starts
 * from it rather than a second fstat (one system call in six a file).
 * 0, or -ETIMEDOUT.
 */
static int hash_open(struct hasher *h, int fd, struct fp_fentry *e,
		     const struct stat *opened)
{
	struct stat a, b;
	int attempt, ret = 0;

	h->files++;
	for (attempt = 0; attempt < 2; attempt++) {
		if (!attempt)
			a = *opened;
		else if (fstat(fd, &a))
			a.st_mode = 0;
		if (!S_ISREG(a.st_mode)) {
			ret = -EAGAIN;
			break;
		}
		if (attempt && lseek(fd, 0, SEEK_SET) < 0) {
			ret = -errno;
			break;
		}
		ret = hash_fd(h, fd, &a, e->sha256);
		if (ret == -ETIMEDOUT)
			return ret;
		if (ret && ret != -EAGAIN)
			break;
		if (!ret && !fstat(fd, &b) && same_version(&a, &b)) {
			fill_stat(e, &b);
			e->hashed = true;
			break;
		}
		ret = -EAGAIN;
		fill_stat(e, &a);
	}
	if (ret == -EAGAIN || attempt == 2) {
		e->unstable = true;
		e->hashed = false;
	} else if (ret) {
		e->err = -ret;
	}
	return 0;
}

/* O_NONBLOCK: if a FIFO was swapped in since the stat, don't hang */
#define HASH_OPEN_FLAGS \
	(O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

/*
 * rel beneath the root, one component at a time: for paths longer than
 * openat2 takes, bind mounts it refuses, and kernels without it.
 */
static int open_by_components(const struct root *r, const char *rel, size_t len,
			      bool cross_mounts)
{
	const char *p = rel, *end = rel + len, *slash;
	char name[NAME_MAX + 1];
	int cur = r->fd, next, fd = -1, err = 0;
	struct stat st;
	size_t n;

	for (;;) {
		slash = memchr(p, '/', end - p);
		n = (slash ? slash : end) - p;
		if (!n || n > NAME_MAX) {
			err = ENAMETOOLONG;
			break;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		if (!slash) {
			fd = openat(cur, name, HASH_OPEN_FLAGS);
			err = fd < 0 ? errno : 0;
			break;
		}
		next = openat(cur, name,
			      O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			err = errno;
			break;
		}
		if (fstat(next, &st) || !S_ISDIR(st.st_mode) ||
		    (!cross_mounts && st.st_dev != r->dev)) {
			err = EXDEV;
			close(next);
			break;
		}
		if (cur != r->fd)
			close(cur);
		cur = next;
		p = slash + 1;
	}
	if (cur != r->fd)
		close(cur);
	errno = err;
	return fd;
}

static int open_beneath(const struct root *r, const char *rel, size_t len,
			bool cross_mounts)
{
	struct open_how how = {
		.flags = HASH_OPEN_FLAGS,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS |
			   (cross_mounts ? 0 : RESOLVE_NO_XDEV),
	};
	int fd;

	if (len < PATH_MAX) {
		fd = syscall(SYS_openat2, r->fd, rel, &how, sizeof(how));
		if (fd >= 0 || (errno != ENOSYS && errno != EXDEV &&
				errno != EAGAIN && errno != ENAMETOOLONG))
			return fd;
	}
	return open_by_components(r, rel, len, cross_mounts);
}

/* the innermost root e lies under */
static const struct root *root_of(const struct root *roots, size_t n,
				  const struct fp_fentry *e)
{
	const struct root *best = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (fp_path_under(e->path.data, e->path.len, roots[i].path,
				  roots[i].len) &&
		    (!best || roots[i].len > best->len))
			best = &roots[i];
	return best;
}

/* The regular file the walk saw at e, or nothing. */
static int open_entry(const struct root *roots, size_t nroots,
		      const struct fp_fentry *e, bool cross_mounts)
{
	const struct root *r = root_of(roots, nroots, e);
	size_t skip;

	if (!r) {
		errno = ENOENT;
		return -1;
	}
	if (e->path.len == r->len)
		return open(r->path, HASH_OPEN_FLAGS);
	if (r->fd < 0) {
		errno = ENOTDIR;
		return -1;
	}
	skip = r->len + (r->len > 1);
	return open_beneath(r, e->path.data + skip, e->path.len - skip,
			    cross_mounts);
}

struct pool {
	struct fp_fs_snapshot *s;
	const struct fp_fs_opts *o;
	const struct root *roots;
	size_t nroots;
	size_t *todo; /* indices into s->e */
	size_t ntodo;
	size_t next; /* atomic */
	size_t done; /* atomic */
	uint64_t files, bytes; /* atomic */
	int err; /* atomic: the first failure stops every thread */
};

static int hash_entry(struct pool *p, struct hasher *h, struct fp_fentry *e)
{
	int fd = open_entry(p->roots, p->nroots, e, p->o->cross_mounts);
	struct stat st;
	int ret;

	if (fd < 0) {
		/* the path no longer leads to the file the walk saw */
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP ||
		    errno == EXDEV || errno == ENXIO)
			e->unstable = true;
		else
			e->err = errno;
		return 0;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_dev != e->dev ||
	    st.st_ino != e->ino) {
		/* swapped since the walk: never hash what took its place */
		e->unstable = true;
		close(fd);
		return 0;
	}
	ret = hash_open(h, fd, e, &st);
	close(fd);
	return ret;
}

static void fail(struct pool *p, int err)
{
	int none = 0;

	__atomic_compare_exchange_n(&p->err, &none, err, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* Take files off the list until there are none or the pool failed. */
static void drain(struct pool *p, struct hasher *h, bool show)
{
	uint64_t shown = 0;
	size_t i, done;

	while (!__atomic_load_n(&p->err, __ATOMIC_RELAXED) &&
	       (i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) <
		       p->ntodo) {
		uint64_t files = h->files, bytes = h->bytes;
		int ret = past(h->deadline_ns) ?
				  -ETIMEDOUT :
				  hash_entry(p, h, &p->s->e[p->todo[i]]);

		__atomic_fetch_add(&p->files, h->files - files,
				   __ATOMIC_RELAXED);
		__atomic_fetch_add(&p->bytes, h->bytes - bytes,
				   __ATOMIC_RELAXED);
		if (ret) {
			fail(p, ret);
			break;
		}
		done = __atomic_add_fetch(&p->done, 1, __ATOMIC_RELAXED);
		if (show && done - shown >= 4096) {
			shown = done;
			p->o->progress(
				p->o->progress_ctx, p->s->n,
				p->s->bytes_hashed +
					__atomic_load_n(&p->bytes,
							__ATOMIC_RELAXED));
		}
	}
}

static void drain_with(struct pool *p, bool show)
{
	struct hasher h = { .deadline_ns = p->o->deadline_ns };

	h.buf = malloc(HASH_CHUNK);
	/* without a hasher of its own a thread leaves its share to others */
	if (h.buf)
		drain(p, &h, show);
	free(h.buf);
}

static void *hash_worker(void *arg)
{
	struct pool *p = arg;

	/* per thread: a worker reads with the user's rights or not at all */
	if (fp_creds_enter(p->o->creds))
		return NULL;
	drain_with(p, false);
	fp_creds_leave(p->o->creds);
	return NULL;
}

/*
 * Hash every regular file the walk left for later, on all cores: with
 * many small files a snapshot is syscall-bound, with big ones hash-bound,
 * and either way one core leaves the others idle. The calling thread has
 * entered the creds already and hashes too.
 */
static int hash_all(struct fp_fs_snapshot *s, const struct fp_fs_opts *o,
		    const struct root *roots, size_t nroots)
{
	struct pool p = { .s = s, .o = o, .roots = roots, .nroots = nroots };
	pthread_t tids[8];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nthreads = ncpu < 1 ? 1 : ncpu > 8 ? 8 : ncpu, started = 0, t;
	size_t i;

	p.todo = malloc((s->n ? s->n : 1) * sizeof(size_t));
	if (!p.todo)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		const struct fp_fentry *e = &s->e[i];

		if (e->type == 'f' && !e->hashed && !e->unstable && !e->err)
			p.todo[p.ntodo++] = i;
	}
	if (p.ntodo < 64)
		nthreads = 1;
	for (t = 1; t < nthreads; t++) {
		if (pthread_create(&tids[t], NULL, hash_worker, &p))
			break;
		started++;
	}
	drain_with(&p, o->progress != NULL);
	for (t = 1; t <= started; t++)
		pthread_join(tids[t], NULL);
	s->files_hashed += p.files;
	s->bytes_hashed += p.bytes;
	free(p.todo);
	if (!p.err && p.done < p.ntodo)
		p.err = -ENOMEM;
	return p.err;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct fp_fentry *x = a, *y = b;

	return fp_bytes_cmp(x->path.data, x->path.len, y->path.data,
			    y->path.len);
}

/* sorted by path; overlapping roots list an entry twice */
static void sort_entries(struct fp_fs_snapshot *s)
{
	size_t i, j;

	qsort(s->e, s->n, sizeof(*s->e), entry_cmp);
	for (i = j = 0; i < s->n; i++) {
		if (j && !entry_cmp(&s->e[j - 1], &s->e[i])) {
			free(s->e[i].path.data);
			free(s->e[i].target.data);
			continue;
		}
		s->e[j++] = s->e[i];
	}
	s->n = j;
}

static int walk_roots(struct walker *w, struct root *r, size_t nroots)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < nroots && !ret; i++)
		ret = snapshot_root(w, &r[i]);
	/* an error leaves frames behind */
	while (w->depth) {
		struct frame *f = &w->stack[--w->depth];

		if (f->fd >= 0)
			close(f->fd);
	}
	return ret;
}

int fp_fs_snapshot(struct fp_fs_snapshot *s, char *const *roots, size_t nroots,
		   const struct fp_fs_opts *o)
{
	struct walker w = { .s = s, .o = o };
	struct root *r = calloc(nroots ? nroots : 1, sizeof(*r));
	struct timespec now;
	size_t i;
	int ret = -ENOMEM;

	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_REALTIME, &now);
	s->started_ns = ts_ns(&now);
	w.dents = malloc(DENTS_BUF);
	if (!r || !w.dents)
		goto cleanup;
	for (i = 0; i < nroots; i++) {
		r[i].path = roots[i];
		r[i].len = strlen(roots[i]);
		r[i].fd = -1;
		r[i].via = o->root_fds ? o->root_fds[i] : -1;
	}
	ret = fp_creds_enter(o->creds);
	if (ret)
		goto cleanup;
	ret = walk_roots(&w, r, nroots);
	if (ret == -ENOMEM && o->max_bytes && w.used > o->max_bytes)
		ret = -E2BIG;
	if (!ret) {
		sort_entries(s);
		if (o->after_walk)
			o->after_walk(o->after_walk_ctx);
		ret = hash_all(s, o, r, nroots);
	}
	fp_creds_leave(o->creds);
cleanup:
	for (i = 0; r && i < nroots; i++)
		if (r[i].fd >= 0)
			close(r[i].fd);
	free(r);
	free(w.dents);
	free(w.link);
	free(w.stack);
	if (ret)
		fp_fs_snapshot_free(s);
	return ret;
}
void fp_fs_snapshot_free(struct fp_fs_snapshot *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->e[i].path.data);
		free(s->e[i].target.data);
	}
	free(s->e);
	memset(s, 0, sizeof(*s));
}

const struct fp_fentry *fp_fs_find(const struct fp_fs_snapshot *s,
				   const char *path, size_t len)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fp_fentry *e = &s->e[mid];
		int c = fp_bytes_cmp(e->path.data, e->path.len, path, len);

		if (!c)
			return e;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
