// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "snapshot_fs.h"

#define HASH_CHUNK (256 * 1024)

/* what one hashing thread needs of its own */
struct hasher {
	EVP_MD_CTX *md;
	char *buf;
	uint64_t files, bytes;
};

struct walker {
	struct fp_fs_snapshot *s;
	const struct fp_fs_opts *o;
	size_t cap;
	struct hasher h; /* for files hashed during the walk */
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

static struct fp_fentry *add_entry(struct walker *w, const char *path,
				   size_t len)
{
	struct fp_fs_snapshot *s = w->s;
	struct fp_fentry *e;

	if (s->n == w->cap) {
		size_t ncap = w->cap ? w->cap * 2 : 1024;
		struct fp_fentry *ne = realloc(s->e, ncap * sizeof(*ne));

		if (!ne)
			return NULL;
		s->e = ne;
		w->cap = ncap;
	}
	e = &s->e[s->n];
	memset(e, 0, sizeof(*e));
	if (fp_bytes_dup(&e->path, path, len))
		return NULL;
	s->n++;
	return e;
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

/*
 * Hash the data of a file of st's size. Holes of a sparse file are hashed
 * as the zeros they read as, without reading them.
 */
static int hash_fd(struct hasher *h, int fd, const struct stat *st,
		   unsigned char *out)
{
	static const char zeros[HASH_CHUNK];
	off_t size = st->st_size, pos = 0, data = 0, hole = size;
	bool sparse = (off_t)st->st_blocks * 512 < size;
	ssize_t n;

	if (!EVP_DigestInit_ex(h->md, EVP_sha256(), NULL))
		return -ENOMEM;
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

				EVP_DigestUpdate(h->md, zeros, k);
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

			n = read(fd, h->buf, want);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			if (n == 0)
				return -EAGAIN; /* shrank while read */
			EVP_DigestUpdate(h->md, h->buf, n);
			pos += n;
			h->bytes += n;
		}
	}
	/* growth shows in the fstat the caller compares afterwards */
	EVP_DigestFinal_ex(h->md, out, NULL);
	return 0;
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

/* Hash the open file fd into e; re-read once if it changed meanwhile. */
static void hash_open(struct hasher *h, int fd, struct fp_fentry *e)
{
	struct stat a, b;
	int attempt, ret = 0;

	for (attempt = 0; attempt < 2; attempt++) {
		if (fstat(fd, &a) || !S_ISREG(a.st_mode)) {
			ret = -EAGAIN;
			break;
		}
		if (attempt && lseek(fd, 0, SEEK_SET) < 0) {
			ret = -errno;
			break;
		}
		ret = hash_fd(h, fd, &a, e->sha256);
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
	h->files++;
}

/* O_NONBLOCK: if a FIFO was swapped in since the stat, don't hang */
#define HASH_OPEN_FLAGS \
	(O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

/* During the walk: for a path too long to open whole later. */
static void hash_at(struct hasher *h, int dirfd, const char *name,
		    struct fp_fentry *e)
{
	int fd = openat(dirfd, name, HASH_OPEN_FLAGS);

	if (fd < 0) {
		e->err = errno;
		return;
	}
	hash_open(h, fd, e);
	close(fd);
}

/* After the walk, from any thread: entries do not move any more. */
static void hash_path(struct hasher *h, struct fp_fentry *e)
{
	int fd = open(e->path.data, HASH_OPEN_FLAGS);
	struct stat st;

	if (fd < 0) {
		e->err = errno;
		return;
	}
	/* replaced since the walk saw it: this is the version there is now */
	if (!fstat(fd, &st) && (st.st_ino != e->ino || st.st_dev != e->dev))
		fill_stat(e, &st);
	hash_open(h, fd, e);
	close(fd);
}

static int walk_dir(struct walker *w, int dirfd, char *path, size_t len,
		    dev_t root_dev);

static int visit(struct walker *w, int dirfd, const char *name, char *path,
		 size_t len, dev_t root_dev)
{
	struct fp_fentry *e;
	struct stat st;
	int sub, ret = 0;

	e = add_entry(w, path, len);
	if (!e)
		return -ENOMEM;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		e->type = '?';
		e->err = errno;
		return 0;
	}
	fill_stat(e, &st);
	if (w->o->progress && ++w->progress_at % 4096 == 0)
		w->o->progress(w->o->progress_ctx, w->s->n, w->s->bytes_hashed);
	switch (e->type) {
	case 'f':
		/* hashed after the walk, on every core, unless it is unchanged
		 * since the last snapshot or its path is too long to open */
		if (!try_reuse(w, e) && len >= PATH_MAX)
			hash_at(&w->h, dirfd, name, e);
		break;
	case 'l': {
		char target[PATH_MAX];
		ssize_t n = readlinkat(dirfd, name, target, sizeof(target));

		if (n < 0) {
			e->err = errno;
			break;
		}
		if (fp_bytes_dup(&e->target, target, n))
			return -ENOMEM;
		break;
	}
	case 'd':
		if (st.st_dev != root_dev && !w->o->cross_mounts) {
			e->mount = true;
			break;
		}
		sub = openat(dirfd, name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			e->err = errno;
			break;
		}
		ret = walk_dir(w, sub, path, len, root_dev);
		break;
	}
	return ret;
}

/* Walks the directory open at dirfd (closed here), whose path is path[0..len). */
static int walk_dir(struct walker *w, int dirfd, char *path, size_t len,
		    dev_t root_dev)
{
	size_t self = w->s->n - 1; /* the directory's own entry */
	DIR *d = fdopendir(dirfd);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		w->s->e[self].err = errno;
		close(dirfd);
		return 0;
	}
	for (;;) {
		size_t nlen, plen;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				w->s->e[self].err = errno;
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		nlen = strlen(de->d_name);
		plen = len + (len > 1) + nlen;
		if (plen >= PATH_MAX * 4) {
			w->s->e[self].err = ENAMETOOLONG;
			continue;
		}
		if (len > 1)
			path[len] = '/';
		memcpy(path + len + (len > 1), de->d_name, nlen);
		path[plen] = '\0';
		ret = visit(w, dirfd, de->d_name, path, plen, root_dev);
		path[len] = '\0';
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct fp_fentry *x = a, *y = b;

	return fp_bytes_cmp(x->path.data, x->path.len, y->path.data,
			    y->path.len);
}

static int snapshot_root(struct walker *w, const char *root, char *path)
{
	size_t len = strlen(root);
	struct fp_fentry *e;
	struct stat st;
	int fd;

	if (len >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(path, root, len + 1);
	e = add_entry(w, path, len);
	if (!e)
		return -ENOMEM;
	if (lstat(root, &st)) {
		e->type = '?';
		e->err = errno;
		return 0;
	}
	fill_stat(e, &st);
	if (!S_ISDIR(st.st_mode))
		return 0;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		e->err = errno;
		return 0;
	}
	return walk_dir(w, fd, path, len, st.st_dev);
}

struct pool {
	struct fp_fs_snapshot *s;
	const struct fp_fs_opts *o;
	size_t *todo; /* indices into s->e */
	size_t ntodo;
	size_t next; /* atomic */
	uint64_t files, bytes; /* atomic */
	int err; /* atomic, first failure to start */
};

static void *hash_worker(void *arg)
{
	struct pool *p = arg;
	struct hasher h = { 0 };
	size_t i;

	h.buf = malloc(HASH_CHUNK);
	h.md = EVP_MD_CTX_new();
	if (!h.buf || !h.md) {
		__atomic_store_n(&p->err, -ENOMEM, __ATOMIC_RELAXED);
		goto cleanup;
	}
	while ((i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) <
	       p->ntodo) {
		uint64_t before = h.bytes;

		hash_path(&h, &p->s->e[p->todo[i]]);
		__atomic_fetch_add(&p->files, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&p->bytes, h.bytes - before,
				   __ATOMIC_RELAXED);
	}
cleanup:
	free(h.buf);
	EVP_MD_CTX_free(h.md);
	return NULL;
}

/*
 * Hash every regular file the walk left for later, on all cores: with
 * many small files a snapshot is syscall-bound, with big ones hash-bound,
 * and either way one core leaves the others idle.
 */
static int hash_all(struct fp_fs_snapshot *s, const struct fp_fs_opts *o)
{
	struct pool p = { .s = s, .o = o };
	pthread_t tids[8];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nthreads = ncpu < 1 ? 1 : ncpu > 8 ? 8 : ncpu, started = 0, t;
	size_t i;
	uint64_t shown = 0;

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
	/* this thread hashes too, and keeps the progress line fresh */
	if (o->progress) {
		struct hasher h = { .buf = malloc(HASH_CHUNK),
				    .md = EVP_MD_CTX_new() };

		while (h.buf && h.md &&
		       (i = __atomic_fetch_add(&p.next, 1, __ATOMIC_RELAXED)) <
			       p.ntodo) {
			uint64_t before = h.bytes, files;

			hash_path(&h, &s->e[p.todo[i]]);
			files = __atomic_add_fetch(&p.files, 1,
						   __ATOMIC_RELAXED);
			__atomic_fetch_add(&p.bytes, h.bytes - before,
					   __ATOMIC_RELAXED);
			if (files - shown >= 4096) {
				shown = files;
				o->progress(o->progress_ctx, s->n,
					    s->bytes_hashed +
						    __atomic_load_n(
							    &p.bytes,
							    __ATOMIC_RELAXED));
			}
		}
		free(h.buf);
		EVP_MD_CTX_free(h.md);
	}
	hash_worker(&p);
	for (t = 1; t <= started; t++)
		pthread_join(tids[t], NULL);
	s->files_hashed += p.files;
	s->bytes_hashed += p.bytes;
	free(p.todo);
	/* a thread that could not start its work left it to the others */
	return p.files < p.ntodo ? (p.err ? p.err : -ENOMEM) : 0;
}

int fp_fs_snapshot(struct fp_fs_snapshot *s, char *const *roots, size_t nroots,
		   const struct fp_fs_opts *opts)
{
	struct walker w = { .s = s, .o = opts };
	struct timespec now;
	char *path = NULL;
	size_t i, j;
	int ret = -ENOMEM;

	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_REALTIME, &now);
	s->started_ns = ts_ns(&now);
	w.h.buf = malloc(HASH_CHUNK);
	w.h.md = EVP_MD_CTX_new();
	path = malloc(PATH_MAX * 4 + NAME_MAX + 2);
	if (!w.h.buf || !w.h.md || !path)
		goto cleanup;
	for (i = 0; i < nroots; i++) {
		ret = snapshot_root(&w, roots[i], path);
		if (ret)
			goto cleanup;
	}
	qsort(s->e, s->n, sizeof(*s->e), entry_cmp);
	/* overlapping roots list an entry twice */
	for (i = j = 0; i < s->n; i++) {
		if (j && !entry_cmp(&s->e[j - 1], &s->e[i])) {
			free(s->e[i].path.data);
			free(s->e[i].target.data);
			continue;
		}
		s->e[j++] = s->e[i];
	}
	s->n = j;
	s->files_hashed = w.h.files;
	s->bytes_hashed = w.h.bytes;
	ret = hash_all(s, opts);
cleanup:
	free(path);
	free(w.h.buf);
	EVP_MD_CTX_free(w.h.md);
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
