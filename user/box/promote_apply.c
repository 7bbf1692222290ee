// SPDX-License-Identifier: GPL-2.0
/*
 * Apply the locked changes of one root. Every step can be undone until
 * every root has succeeded: new content goes to a temporary file in the
 * target's directory (copied from the very scratch file that was verified,
 * checked against its locked hash while it is copied, fsync'd) and is
 * renamed over the target, whose old inode is kept under a backup name; a
 * removal is a rename to a backup name. If a step fails, or a signal
 * comes, the steps done are undone in reverse; once all roots succeed,
 * the backups go.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lock.h"
#include "promote.h"
#include "say_bytes.h"
#include "sha256.h"

/* the scratch file is not the one that was verified */
#define E_SWAPPED ESTALE

struct fp_pstep {
	const struct fp_pchange *c;
	bool backup; /* the old entry is at bak */
	bool made; /* a new entry is at the path */
	char bak[64];
};

static const int held_signals[] = { SIGINT,  SIGTERM, SIGHUP, SIGQUIT,
				    SIGUSR1, SIGUSR2, SIGALRM };

void fp_promote_hold_signals(void)
{
	sigset_t s;
	size_t i;

	sigemptyset(&s);
	for (i = 0; i < sizeof(held_signals) / sizeof(*held_signals); i++)
		sigaddset(&s, held_signals[i]);
	sigprocmask(SIG_BLOCK, &s, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
}

int fp_promote_signalled(void)
{
	sigset_t p;
	size_t i;

	if (sigpending(&p))
		return 0;
	for (i = 0; i < sizeof(held_signals) / sizeof(*held_signals); i++)
		if (sigismember(&p, held_signals[i]))
			return held_signals[i];
	return 0;
}

void fp_promote_end_by(int sig)
{
	sigset_t s;

	signal(sig, SIG_DFL);
	sigemptyset(&s);
	sigaddset(&s, sig);
	/* the pending signal acts as it is let through */
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	raise(sig);
}

static int open_parent(int rootfd, const char *rel, const char **base)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	const char *slash = strrchr(rel, '/');
	char dir[4096];

	*base = slash ? slash + 1 : rel;
	if (!slash)
		return fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
	/* never a cut path: its prefix could be another directory */
	if ((size_t)(slash - rel) >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - rel), rel);
	return syscall(SYS_openat2, rootfd, dir, &how, sizeof(how));
}

/*
 * The scratch file of c, open, if it is still the regular file that was
 * hashed (device, inode, size): never a FIFO or device put in its place,
 * which could hold promote (O_NONBLOCK: not even while it opens).
 */
static int open_source(const struct fp_proot *r, const struct fp_pchange *c)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	struct stat sb;
	int fd = syscall(SYS_openat2, r->upperfd, c->rel, &how, sizeof(how));

	if (fd < 0)
		return errno == ENXIO || errno == ELOOP ? -E_SWAPPED : -errno;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || !c->src.ino ||
	    sb.st_dev != c->src.dev || sb.st_ino != c->src.ino ||
	    sb.st_size != c->src.size) {
		close(fd);
		return -E_SWAPPED;
	}
	return fd;
}

/* copy src into the new fd out, hashing it; -EBADMSG on a hash miss,
 * -EINTR when a held signal comes */
static int copy_checked(int src, int out, const char *want)
{
	unsigned char buf[65536], h[FP_SHA256_LEN];
	struct fp_sha256 md;
	char hex[65];
	ssize_t n, w;
	int e = 0;

	fp_sha256_init(&md);
	while (!e && (n = read(src, buf, sizeof(buf))) > 0) {
		fp_sha256_update(&md, buf, n);
		for (w = 0; !e && w < n;) {
			ssize_t k = write(out, buf + w, n - w);

			if (k < 0)
				e = -errno;
			else
				w += k;
		}
		if (!e && fp_promote_signalled())
			e = -EINTR;
	}
	if (!e && n < 0)
		e = -errno;
	fp_sha256_final(&md, h);
	fp_lock_hex(hex, h);
	if (!e && strcmp(hex, want))
		e = -EBADMSG;
	return e;
}

/* the mode a regular file is written with, said when it is not c's */
static unsigned int file_mode(const struct fp_proot *r,
			      const struct fp_pchange *c)
{
	unsigned int mode = c->now.mode;

	if (!r->drop_setid || !(mode & 07000))
		return mode;
	fprintf(stderr, "footprint: promote: %s/%s: written %04o, not %04o: ",
		fp_said(r->root), fp_said(c->rel), mode & 0777, mode);
	fputs("as root (--as-root) promote writes no set-user-ID, set-group-ID or sticky bit\n",
	      stderr);
	return mode & 0777;
}

/* the new content at tmp in dirfd: a file, a symlink or a directory */
static int make_new(struct fp_proot *r, const struct fp_pchange *c, int dirfd,
		    const char *tmp)
{
	int src, out, e;

	if (c->now.type == 'l')
		return symlinkat(fp_ptarget(&c->now), dirfd, tmp) ? -errno : 0;
	if (c->now.type == 'd')
		return mkdirat(dirfd, tmp, 0700) ||
				       fchmodat(dirfd, tmp, c->now.mode, 0) ?
			       -errno :
			       0;
	src = open_source(r, c);
	if (src < 0)
		return src;
	out = openat(dirfd, tmp,
		     O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
		     0600);
	e = out < 0 ? -errno : copy_checked(src, out, c->now.sha);
	if (!e && (fchmod(out, file_mode(r, c)) || fsync(out)))
		e = -errno;
	if (out >= 0 && close(out) && !e)
		e = -errno;
	close(src);
	if (e && out >= 0)
		unlinkat(dirfd, tmp, 0);
	return e;
}

static int do_step(struct fp_proot *r, struct fp_pstep *s, unsigned int n)
{
	const struct fp_pchange *c = s->c;
	const char *base;
	char tmp[64];
	int dirfd, e = 0;

	if (fp_promote_signalled())
		return -EINTR;
	dirfd = open_parent(r->rootfd, c->rel, &base);
	if (dirfd < 0)
		return -errno;
	snprintf(s->bak, sizeof(s->bak), ".footprint-bak.%d.%u", getpid(), n);
	snprintf(tmp, sizeof(tmp), ".footprint-new.%d.%u", getpid(), n);
	if (c->op == FP_PROMOTE_REMOVED) {
		e = renameat(dirfd, base, dirfd, s->bak) ? -errno : 0;
		s->backup = !e;
	} else if (c->op == FP_PROMOTE_CHANGED && c->now.type == 'd') {
		/* a directory's mode: the only change one can have */
		e = fchmodat(dirfd, base, c->now.mode, 0) ? -errno : 0;
		s->made = !e;
	} else {
		e = make_new(r, c, dirfd, tmp);
		if (!e && c->op == FP_PROMOTE_CHANGED) {
			e = linkat(dirfd, base, dirfd, s->bak, 0) ? -errno : 0;
			s->backup = !e;
		}
		if (!e &&
		    renameat2(dirfd, tmp, dirfd, base,
			      c->op == FP_PROMOTE_ADDED ? RENAME_NOREPLACE : 0))
			e = -errno;
		if (e)
			unlinkat(dirfd, tmp,
				 c->now.type == 'd' ? AT_REMOVEDIR : 0);
		s->made = !e;
	}
	if (!e && fsync(dirfd))
		e = -errno;
	close(dirfd);
	return e;
}

/* put the old entry back (or take the new one away); best effort */
static int undo(struct fp_proot *r, struct fp_pstep *s)
{
	const struct fp_pchange *c = s->c;
	const char *base;
	int dirfd = open_parent(r->rootfd, c->rel, &base), e = 0;

	if (dirfd < 0)
		return -errno;
	if (s->backup) {
		e = renameat(dirfd, s->bak, dirfd, base);
		/* a link to the inode already there is left by rename */
		if (!e)
			unlinkat(dirfd, s->bak, 0);
	} else if (s->made && c->op == FP_PROMOTE_CHANGED)
		e = fchmodat(dirfd, base, c->before.mode, 0);
	else if (s->made)
		e = unlinkat(dirfd, base,
			     c->now.type == 'd' ? AT_REMOVEDIR : 0);
	e = e ? -errno : 0;
	fsync(dirfd);
	close(dirfd);
	return e;
}

/*
 * A removed directory's backup holds the backups of what it held (they
 * were removed first, deepest first): those go with it, and only those.
 * Anything else in it appeared after the check; it is kept, and said.
 */
static int remove_backup(int at, const char *name, const char *ours)
{
	struct dirent *de;
	DIR *d;
	int fd;

	if (!unlinkat(at, name, 0))
		return 0;
	if (errno != EISDIR)
		return errno == ENOENT ? 0 : -errno;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	/* depth: each level is a component of a locked path */
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, ours, strlen(ours)))
			remove_backup(dirfd(d), de->d_name, ours);
	closedir(d);
	return unlinkat(at, name, AT_REMOVEDIR) ? -errno : 0;
}

static void drop_backup(struct fp_proot *r, struct fp_pstep *s)
{
	const char *base;
	char ours[32];
	int dirfd = open_parent(r->rootfd, s->c->rel, &base), e;

	if (dirfd < 0)
		return;
	snprintf(ours, sizeof(ours), ".footprint-bak.%d.", getpid());
	e = remove_backup(dirfd, s->bak, ours);
	if (e)
		fprintf(stderr,
			"footprint: promote: kept %s, the backup of %s/%s, beside it: %s; it holds what appeared there after the check, look at it and remove it\n",
			s->bak, fp_said(r->root), fp_said(s->c->rel),
			strerror(-e));
	fsync(dirfd);
	close(dirfd);
}

/* additions and changes in path order (parents first), then removals
 * deepest first */
static struct fp_pstep *plan(struct fp_pset *l)
{
	struct fp_pstep *st = calloc(l->n ? l->n : 1, sizeof(*st));
	size_t i, k = 0;

	for (i = 0; st && i < l->n; i++)
		if (l->v[i].op != FP_PROMOTE_REMOVED)
			st[k++].c = &l->v[i];
	for (i = l->n; st && i-- > 0;)
		if (l->v[i].op == FP_PROMOTE_REMOVED)
			st[k++].c = &l->v[i];
	return st;
}

void fp_promote_commit(struct fp_proot *r)
{
	size_t i;

	/* parents' backups first: they take their children's */
	for (i = r->done; i-- > 0;)
		if (r->steps[i].backup)
			drop_backup(r, &r->steps[i]);
	free(r->steps);
	r->steps = NULL;
	r->done = 0;
}

int fp_promote_undo(struct fp_proot *r)
{
	size_t bad = 0;

	while (r->done > 0)
		if (undo(r, &r->steps[--r->done]))
			bad++;
	free(r->steps);
	r->steps = NULL;
	if (bad)
		fprintf(stderr,
			"footprint: promote: %zu of the changes already applied could not be undone; %s is NOT as it was (backups are named .footprint-bak.*)\n",
			bad, fp_said(r->root));
	else
		fprintf(stderr,
			"footprint: promote: restored what was already applied; %s is as it was\n",
			fp_said(r->root));
	return bad ? 1 : 0;
}

static const char *step_error(int e)
{
	return e == -EBADMSG ?
		       "its scratch content changed since it was verified" :
	       e == -E_SWAPPED ?
		       "its scratch file is not the regular file that was verified (it was replaced since)" :
		       strerror(-e);
}

int fp_promote_apply(struct fp_proot *r)
{
	const struct fp_pchange *c;
	int e = 0, sig;

	r->done = 0;
	r->steps = plan(&r->locked);
	if (!r->steps) {
		fprintf(stderr,
			"footprint: promote: out of memory planning the changes of %s; nothing of it was applied\n",
			fp_said(r->root));
		return 1;
	}
	while (!e && r->done < r->locked.n) {
		e = do_step(r, &r->steps[r->done], r->done);
		/* a step that failed leaves nothing to undo but its own */
		r->done++;
	}
	if (!e)
		return 0;
	c = r->steps[r->done - 1].c;
	sig = fp_promote_signalled();
	if (e == -EINTR && sig)
		fprintf(stderr,
			"footprint: promote: interrupted by SIG%s while applying %s/%s\n",
			sigabbrev_np(sig) ?: "?", fp_said(r->root),
			fp_said(c->rel));
	else
		fprintf(stderr,
			"footprint: promote: applying %s/%s failed: %s\n",
			fp_said(r->root), fp_said(c->rel), step_error(e));
	fp_promote_undo(r);
	return 1;
}
