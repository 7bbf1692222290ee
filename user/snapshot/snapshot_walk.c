// SPDX-License-Identifier: GPL-2.0
/*
 * The walk is iterative, its stack on the heap, and reads each directory
 * relative to its parent's fd: depth and path length are bounded by
 * memory, not by the C stack or PATH_MAX. Only the innermost directories
 * keep an fd open; an outer one is reopened through ".." of its child and
 * must still be the directory the walk saw (dev/ino).
 *
 * A walk is mostly system calls, one stat an entry, and one CPU makes it
 * twice as long as two: every CPU walks. A walker that comes to a
 * directory while it has others left to do, and finds the queue short,
 * opens and checks it as it would itself and queues the fd: another
 * walker reads it, never a path. The queue holds fewer directories than
 * there are walkers, so the fds stay bounded, and a walker starts only
 * when there is a directory for it. Each walker appends to a table of
 * its own, and sorts it once every walker is done; the sorted tables are
 * merged.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "creds.h"
#include "snapshot_fs_int.h"

#define DENTS_BUF (32 * 1024)
/* directory fds a walker holds at most, whatever the depth */
#define WALK_OPEN_FDS 32
#define PROGRESS_EVERY 4096

/* one directory on a walker's stack */
struct frame {
	size_t dir; /* its entry in the walker's table */
	size_t next, end; /* its children still to descend into */
	size_t dirs; /* how many of them are directories */
	int fd; /* -1: closed to bound the fds, or lost (err) */
	int err; /* why it could not be reopened */
};

/* a directory one walker opened and checked, for another to read */
struct walk_item {
	int fd;
	dev_t root_dev;
	struct fp_bytes path; /* the path of its entry: borrowed */
	uint64_t dev, ino;
};

struct walk_pool;

struct walker {
	struct fp_fs_snapshot *s; /* its table: the caller's for walker 0 */
	struct fp_fs_snapshot own;
	struct walk_pool *pool;
	const struct fp_fs_opts *o;
	int id;
	size_t cap;
	struct frame *stack;
	size_t depth, stack_cap;
	char *dents; /* getdents64 buffer */
	char *link; /* readlinkat buffer */
	size_t link_cap;
	dev_t root_dev;
	uint64_t progress_at;
	struct fp_fs_chunk *chunks; /* its paths; the first has room left */
	uint64_t pend_entries, pend_bytes; /* not yet in the pool's counts */
};

struct walk_pool {
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct walk_item q[FP_FS_THREADS_MAX];
	size_t qn; /* written under the lock, read without as a hint */
	int threads; /* walkers at most */
	int members; /* walker 0 and the helpers started */
	int idle; /* members waiting for an item */
	bool done;
	int err; /* atomic: the first failure stops every walker */
	uint64_t entries, bytes; /* atomic: against max_bytes (budget_used) */
	uint64_t seen; /* atomic: entries, for the progress line */
	const struct fp_fs_opts *o;
	struct walker w[FP_FS_THREADS_MAX];
	pthread_t tids[FP_FS_THREADS_MAX];
};

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

void fp_fs_fill_stat(struct fp_fentry *e, const struct stat *st)
{
	e->type = type_of(st->st_mode);
	e->mode = st->st_mode & 07777;
	e->uid = st->st_uid;
	e->gid = st->st_gid;
	e->size = st->st_size;
	e->mtime_ns = fp_ts_ns(&st->st_mtim);
	e->ctime_ns = fp_ts_ns(&st->st_ctim);
	e->dev = st->st_dev;
	e->ino = st->st_ino;
}

int fp_fs_threads(const struct fp_fs_opts *o)
{
	long n = o->threads ? (long)o->threads : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > FP_FS_THREADS_MAX ? FP_FS_THREADS_MAX : n;
}

/*
 * What entries and their path bytes cost against max_bytes: as one table
 * doubling from 1,024 entries would hold them, whatever the walkers
 * hold, so that whether a tree fits depends on the tree, not on how the
 * walkers were scheduled. What they allocate stays within twice that,
 * their chunks' last 64 KiB and the queue's copies aside.
 */
static uint64_t budget_used(uint64_t entries, uint64_t bytes)
{
	uint64_t cap = entries ? 1024 : 0;

	while (cap < entries)
		cap *= 2;
	return cap * sizeof(struct fp_fentry) + bytes;
}

/*
 * One more entry and its bytes against the budget; true if it is spent.
 * A walker adds to the pool's counts every BUDGET_BATCH entries or bytes
 * (atomics on a line both CPUs write were a tenth of an entry's cost),
 * and fp_fs_walk() adds what is left: a tree over the budget is always
 * told, a few dozen entries late at most.
 */
#define BUDGET_BATCH 64
#define BUDGET_BATCH_BYTES (64 * 1024)
static bool over_budget(struct walker *w, uint64_t entries, uint64_t bytes)
{
	struct walk_pool *p = w->pool;
	uint64_t e, b;

	w->pend_entries += entries;
	w->pend_bytes += bytes;
	if (!w->o->max_bytes || (w->pend_entries < BUDGET_BATCH &&
				 w->pend_bytes < BUDGET_BATCH_BYTES))
		return false;
	e = __atomic_add_fetch(&p->entries, w->pend_entries, __ATOMIC_RELAXED);
	b = __atomic_add_fetch(&p->bytes, w->pend_bytes, __ATOMIC_RELAXED);
	w->pend_entries = w->pend_bytes = 0;
	/* each count only grows: over now is over at the end */
	return budget_used(e, b) > w->o->max_bytes;
}

/* A zeroed entry at the end of the walker's table. */
static struct fp_fentry *add_slot(struct walker *w)
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
	e = &s->e[s->n++];
	memset(e, 0, sizeof(*e));
	return e;
}

/*
 * n bytes for a path or a target, in the walker's chunks: a snapshot
 * holds some 100,000 of them, and one malloc and one free each were a
 * tenth of a walk. They go when the snapshot does.
 */
static char *alloc_bytes(struct walker *w, size_t n)
{
	struct fp_fs_chunk *c = w->chunks;

	if (!c || c->cap - c->used < n) {
		size_t cap = n > FP_FS_CHUNK ? n : FP_FS_CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		/* a big one behind the current, which still has room */
		if (w->chunks && cap > FP_FS_CHUNK) {
			c->next = w->chunks->next;
			w->chunks->next = c;
		} else {
			c->next = w->chunks;
			w->chunks = c;
		}
	}
	c->used += n;
	return c->data + c->used - n;
}

/* An entry for the path p1 + "/" + p2 (or p1 alone), copied
 * NUL-terminated into the chunks; its bytes count against the budget. */
static struct fp_fentry *add_entry(struct walker *w, const char *p1,
				   size_t len1, const char *p2, size_t len2)
{
	bool slash = p2 && len1 > 1;
	size_t len = len1 + slash + len2;
	char *path = NULL;
	struct fp_fentry *e = NULL;

	if (!over_budget(w, 1, len + 1))
		path = alloc_bytes(w, len + 1);
	if (path)
		e = add_slot(w);
	if (!e)
		return NULL;
	memcpy(path, p1, len1);
	if (slash)
		path[len1] = '/';
	if (p2)
		memcpy(path + len1 + slash, p2, len2);
	path[len] = '\0';
	e->path.data = path;
	e->path.len = len;
	return e;
}

/* parent's path + "/" + name */
static struct fp_fentry *add_child(struct walker *w, size_t parent,
				   const char *name, size_t nlen)
{
	const struct fp_bytes *pp = &w->s->e[parent].path;

	return add_entry(w, pp->data, pp->len, name, nlen);
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
	e->target.data =
		over_budget(w, 0, n + 1) ? NULL : alloc_bytes(w, n + 1);
	if (!e->target.data)
		return -ENOMEM;
	memcpy(e->target.data, w->link, n);
	e->target.data[n] = '\0';
	e->target.len = n;
	return 0;
}

static void progress(struct walker *w)
{
	uint64_t seen;

	if (++w->progress_at % PROGRESS_EVERY)
		return;
	seen = __atomic_add_fetch(&w->pool->seen, PROGRESS_EVERY,
				  __ATOMIC_RELAXED);
	/* the caller's thread alone writes to its terminal */
	if (w->o->progress && !w->id)
		w->o->progress(w->o->progress_ctx, seen, 0);
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
	fp_fs_fill_stat(e, &st);
	progress(w);
	if (fp_past(w->o->deadline_ns))
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
		else
			f->dirs++;
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

/* Is fd still the directory with this dev and ino? */
static bool same_dir(int fd, uint64_t dev, uint64_t ino)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISDIR(st.st_mode) && st.st_dev == dev &&
	       st.st_ino == ino;
}

/*
 * Back from a child to a parent whose fd was closed: ".." of the child
 * is the parent unless something moved meanwhile, and then the rest of
 * the parent is marked, never looked up by a path that may lead elsewhere.
 */
static void pop(struct walker *w)
{
	struct frame *f = &w->stack[--w->depth], *up;
	const struct fp_fentry *e;
	int fd;

	if (w->depth) {
		up = &w->stack[w->depth - 1];
		e = &w->s->e[up->dir];
		if (up->fd < 0 && !up->err) {
			fd = f->fd < 0 ? -1 :
					 openat(f->fd, "..",
						O_RDONLY | O_DIRECTORY |
							O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0 && same_dir(fd, e->dev, e->ino)) {
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

/* Child directory c of frame f, opened and checked; -1 if it is not to
 * be read (why is in its entry). */
static int open_child(struct walker *w, struct frame *f, size_t c)
{
	struct fp_fentry *e = &w->s->e[c];
	int fd;

	if (f->fd < 0) {
		e->err = f->err;
		return -1;
	}
	fd = openat(f->fd, base_name(e),
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC |
			    O_NONBLOCK);
	if (fd < 0) {
		e->err = errno;
		return -1;
	}
	if (!same_dir(fd, e->dev, e->ino)) {
		/* replaced since its stat: not the directory the walk saw */
		e->err = ESTALE;
		e->unstable = true;
		close(fd);
		return -1;
	}
	return fd;
}

static void *helper(void *arg);

/*
 * Queue the directory at c (fd, opened and checked) for another walker,
 * if the queue is short; start one for it if none waits. false: walk it
 * here.
 */
static bool hand_off(struct walker *w, size_t c, int fd)
{
	struct walk_pool *p = w->pool;
	const struct fp_fentry *e = &w->s->e[c];
	bool queued = false;

	pthread_mutex_lock(&p->lock);
	if (!p->done && p->qn < (size_t)p->threads - 1) {
		p->q[p->qn] = (struct walk_item){
			.fd = fd,
			.root_dev = w->root_dev,
			.path = e->path,
			.dev = e->dev,
			.ino = e->ino,
		};
		/* atomic: descend() reads it without the lock */
		__atomic_store_n(&p->qn, p->qn + 1, __ATOMIC_RELAXED);
		queued = true;
		if (p->idle)
			pthread_cond_signal(&p->more);
		else if (p->members < p->threads &&
			 !pthread_create(&p->tids[p->members], NULL, helper,
					 &p->w[p->members]))
			p->members++;
	}
	pthread_mutex_unlock(&p->lock);
	return queued;
}

static int descend(struct walker *w, struct frame *f, size_t c)
{
	struct walk_pool *p = w->pool;
	int fd = open_child(w, f, c);

	if (fd < 0)
		return 0;
	/* only while it keeps a directory of its own: a chain is not split */
	if (f->dirs && p->threads > 1 &&
	    __atomic_load_n(&p->qn, __ATOMIC_RELAXED) <
		    (size_t)p->threads - 1 &&
	    hand_off(w, c, fd))
		return 0;
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
		if (!e) {
			pop(w);
			continue;
		}
		if (f->dirs)
			f->dirs--;
		ret = descend(w, f, e - w->s->e);
		/* another walker failed: the snapshot is lost anyway */
		if (!ret && __atomic_load_n(&w->pool->err, __ATOMIC_RELAXED))
			ret = -ECANCELED;
	}
	return ret;
}

static void fail(struct walk_pool *p, int err)
{
	int none = 0;

	__atomic_compare_exchange_n(&p->err, &none, err, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	pthread_mutex_lock(&p->lock);
	p->done = true;
	pthread_cond_broadcast(&p->more);
	pthread_mutex_unlock(&p->lock);
}

/* The next queued directory; false once every walker waits for one. */
static bool take(struct walk_pool *p, struct walk_item *it)
{
	bool got = false;

	pthread_mutex_lock(&p->lock);
	while (!p->qn && !p->done) {
		if (++p->idle == p->members) {
			p->done = true;
			pthread_cond_broadcast(&p->more);
		} else {
			pthread_cond_wait(&p->more, &p->lock);
		}
		p->idle--;
	}
	if (p->qn && !p->done) {
		*it = p->q[p->qn - 1];
		__atomic_store_n(&p->qn, p->qn - 1, __ATOMIC_RELAXED);
		got = true;
	}
	pthread_mutex_unlock(&p->lock);
	return got;
}

/*
 * An item's directory, entered again in this walker's table as a copy
 * (its path borrowed: the entry it comes from outlives the walk), and
 * walked. The copy meets its entry in the merge, by their path.
 */
static int walk_item(struct walker *w, const struct walk_item *it)
{
	struct fp_fentry *e = add_slot(w);

	if (!e) {
		close(it->fd);
		return -ENOMEM;
	}
	e->path = it->path;
	e->type = 'd';
	e->dev = it->dev;
	e->ino = it->ino;
	e->copy = true;
	w->root_dev = it->root_dev;
	return push(w, w->s->n - 1, it->fd) ?: walk(w);
}

/* an error leaves frames behind */
static void unwind(struct walker *w)
{
	while (w->depth) {
		struct frame *f = &w->stack[--w->depth];

		if (f->fd >= 0)
			close(f->fd);
	}
}

static void serve(struct walker *w)
{
	struct walk_item it;
	int ret;

	while (take(w->pool, &it)) {
		ret = walk_item(w, &it);
		unwind(w);
		if (ret)
			fail(w->pool, ret);
	}
	/* every walker is done: the sorts run side by side, as the walks */
	if (!__atomic_load_n(&w->pool->err, __ATOMIC_RELAXED))
		fp_fs_sort(w->s);
}

static void *helper(void *arg)
{
	struct walker *w = arg;
	int ret;

	/* its buffer only now: a walker starts when there is work for it */
	w->dents = malloc(DENTS_BUF);
	/* per thread: a walker reads with the user's rights or not at all */
	ret = w->dents ? fp_creds_enter(w->o->creds) : -ENOMEM;
	if (ret) {
		fail(w->pool, ret);
		return NULL;
	}
	serve(w);
	fp_creds_leave(w->o->creds);
	return NULL;
}

static int snapshot_root(struct walker *w, struct fp_fs_root *r)
{
	struct fp_fentry *e = add_entry(w, r->path, r->len, NULL, 0);
	struct stat st;
	int fd;

	if (!e)
		return -ENOMEM;
	if (r->via >= 0 ? fstat(r->via, &st) : lstat(r->path, &st)) {
		e->type = '?';
		e->err = errno;
		return 0;
	}
	fp_fs_fill_stat(e, &st);
	if (!S_ISDIR(st.st_mode))
		return 0;
	if (r->via >= 0)
		fd = openat(r->via, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	else
		fd = open(r->path,
			  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !same_dir(fd, e->dev, e->ino)) {
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

/* A walk done: the sorted tables merged into walker 0's. 0, or -ENOMEM. */
static int merge_tables(struct walk_pool *p, struct fp_fs_todo *todo)
{
	struct fp_fs_snapshot *more[FP_FS_THREADS_MAX];
	int t;

	for (t = 1; t < p->members; t++)
		more[t - 1] = p->w[t].s;
	return fp_fs_merge(p->w[0].s, p->w[0].cap, more, p->members - 1, todo);
}

static void pool_free(struct walk_pool *p)
{
	int t;

	while (p->qn)
		close(p->q[--p->qn].fd);
	for (t = 0; t < p->threads; t++) {
		struct walker *w = &p->w[t];

		/* entries borrow their paths from the chunks: the caller's now */
		if (t)
			free(w->own.e);
		while (w->chunks) {
			struct fp_fs_chunk *c = w->chunks;

			w->chunks = c->next;
			c->next = p->w[0].s->chunks;
			p->w[0].s->chunks = c;
		}
		free(w->dents);
		free(w->link);
		free(w->stack);
	}
	pthread_cond_destroy(&p->more);
	pthread_mutex_destroy(&p->lock);
}

static int pool_init(struct walk_pool *p, struct fp_fs_snapshot *s,
		     const struct fp_fs_opts *o)
{
	int t;

	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->more, NULL);
	p->o = o;
	p->threads = fp_fs_threads(o);
	p->members = 1;
	for (t = 0; t < p->threads; t++) {
		struct walker *w = &p->w[t];

		w->s = t ? &w->own : s;
		w->pool = p;
		w->o = o;
		w->id = t;
	}
	p->w[0].dents = malloc(DENTS_BUF);
	return p->w[0].dents ? 0 : -ENOMEM;
}

int fp_fs_walk(struct fp_fs_snapshot *s, const struct fp_fs_opts *o,
	       struct fp_fs_root *roots, size_t nroots, struct fp_fs_todo *todo)
{
	struct walk_pool *p = malloc(sizeof(*p));
	size_t i;
	int ret, t;

	if (!p)
		return -ENOMEM;
	ret = pool_init(p, s, o);
	for (i = 0; i < nroots && !ret; i++)
		ret = snapshot_root(&p->w[0], &roots[i]);
	unwind(&p->w[0]);
	if (ret)
		fail(p, ret);
	else
		serve(&p->w[0]);
	for (t = 1; t < p->members; t++)
		pthread_join(p->tids[t], NULL);
	ret = __atomic_load_n(&p->err, __ATOMIC_RELAXED);
	for (t = 0; t < p->members; t++) {
		p->entries += p->w[t].pend_entries;
		p->bytes += p->w[t].pend_bytes;
	}
	/* the last entries a walker added were not yet looked at */
	if ((!ret || ret == -ENOMEM) && o->max_bytes &&
	    budget_used(p->entries, p->bytes) > o->max_bytes)
		ret = -E2BIG;
	/* a failed walk's tables go with their walkers (walker 0's is the
	 * caller's to free): its paths are in the chunks either way */
	if (!ret)
		ret = merge_tables(p, todo);
	pool_free(p);
	free(p);
	return ret;
}
