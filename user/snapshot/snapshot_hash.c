// SPDX-License-Identifier: GPL-2.0
/*
 * Hashing comes after the walk, on every core, and reopens each file
 * beneath its root's fd without following symlinks or entering other
 * mounts: swapping a directory for a symlink between walk and hash leads
 * nowhere. Only the regular file the walk saw (dev/ino) is ever hashed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "creds.h"
#include "sha256.h"
#include "snapshot_fs_int.h"

#define HASH_CHUNK (256 * 1024)
/* below 64 files, what makes a second thread worth starting */
#define HASH_THREAD_BYTES (4 << 20)

/* what one hashing thread needs of its own */
struct hasher {
	struct fp_sha256 md;
	char *buf;
	uint64_t files, bytes;
	int64_t deadline_ns;
};

static bool same_version(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
	       a->st_size == b->st_size &&
	       fp_ts_ns(&a->st_mtim) == fp_ts_ns(&b->st_mtim) &&
	       fp_ts_ns(&a->st_ctim) == fp_ts_ns(&b->st_ctim);
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

				if (fp_past(h->deadline_ns))
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

			if (fp_past(h->deadline_ns))
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
			fp_fs_fill_stat(e, &b);
			e->hashed = true;
			break;
		}
		ret = -EAGAIN;
		fp_fs_fill_stat(e, &a);
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
static int open_by_components(const struct fp_fs_root *r, const char *rel,
			      size_t len, bool cross_mounts)
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

static int open_beneath(const struct fp_fs_root *r, const char *rel, size_t len,
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
static const struct fp_fs_root *root_of(const struct fp_fs_root *roots,
					size_t n, const struct fp_fentry *e)
{
	const struct fp_fs_root *best = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (fp_path_under(e->path.data, e->path.len, roots[i].path,
				  roots[i].len) &&
		    (!best || roots[i].len > best->len))
			best = &roots[i];
	return best;
}

/* The regular file the walk saw at e, or nothing. */
static int open_entry(const struct fp_fs_root *roots, size_t nroots,
		      const struct fp_fentry *e, bool cross_mounts)
{
	const struct fp_fs_root *r = root_of(roots, nroots, e);
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
	const struct fp_fs_root *roots;
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

/* what a hasher's files add to the pool's counts, in one go */
static void flush(struct pool *p, struct hasher *h, size_t *done)
{
	__atomic_fetch_add(&p->files, h->files, __ATOMIC_RELAXED);
	__atomic_fetch_add(&p->bytes, h->bytes, __ATOMIC_RELAXED);
	__atomic_fetch_add(&p->done, *done, __ATOMIC_RELAXED);
	h->files = h->bytes = 0;
	*done = 0;
}

/*
 * Take files off the list, one at a time (a big file is a share of its
 * own), until there are none or the pool failed. The counts go to the
 * pool every HASH_FLUSH files: an atomic add on a line every thread
 * writes costs more than a small file's SHA-256.
 */
#define HASH_FLUSH 64
static void drain(struct pool *p, struct hasher *h, bool show)
{
	size_t i, done = 0, shown = 0;
	int ret;

	while (!__atomic_load_n(&p->err, __ATOMIC_RELAXED) &&
	       (i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) <
		       p->ntodo) {
		ret = fp_past(h->deadline_ns) ?
			      -ETIMEDOUT :
			      hash_entry(p, h, &p->s->e[p->todo[i]]);
		if (ret) {
			fail(p, ret);
			break;
		}
		if (++done < HASH_FLUSH)
			continue;
		flush(p, h, &done);
		if (show && i - shown >= 4096) {
			shown = i;
			p->o->progress(
				p->o->progress_ctx, p->s->n,
				p->s->bytes_hashed +
					__atomic_load_n(&p->bytes,
							__ATOMIC_RELAXED));
		}
	}
	flush(p, h, &done);
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
int fp_fs_hash_all(struct fp_fs_snapshot *s, const struct fp_fs_opts *o,
		   const struct fp_fs_root *roots, size_t nroots,
		   const struct fp_fs_todo *todo)
{
	struct pool p = { .s = s, .o = o, .roots = roots, .nroots = nroots };
	pthread_t tids[FP_FS_THREADS_MAX];
	int nthreads = fp_fs_threads(o), started = 0, t;

	p.todo = todo->at;
	p.ntodo = todo->n;
	/* a thread is not worth its start for a few small files */
	if (p.ntodo < 2 || (p.ntodo < 64 && todo->bytes < HASH_THREAD_BYTES))
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
	if (!p.err && p.done < p.ntodo)
		p.err = -ENOMEM;
	return p.err;
}
