// SPDX-License-Identifier: GPL-2.0
/* A warm tracer (warm.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>

#include "bpf_digest.h"
#include "footprint.skel.h"
#include "hooks.h"
#include "json.h"
#include "knobs.h"
#include "sha256.h"
#include "skel_index.h"
#include "warm.h"
#include "warm_reset.h"

#define WARM_FORMAT "footprint-warm-2"
/* pinned last: a set without it was cut short and is made again */
#define WARM_READY "ready"
/* sets kept pinned, runs at once included once they end */
#define FP_WARM_KEEP 2
/* directories looked at: more than a few are none of footprint's */
#define FP_WARM_SCAN 1024
/* how long a run waits for another's choice of sets: 5 s at most */
#define FP_WARM_LOCK_TRIES 500
#define FP_WARM_LOCK_WAIT_US 10000
/* how long a run waits for a set whose links are being closed: 200 ms */
#define FP_WARM_LETGO_TRIES 400
#define FP_WARM_LETGO_WAIT_US 500

static const struct bpf_object_skeleton *sk_of(struct footprint_bpf *skel)
{
	return skel->skeleton;
}

void fp_warm_init(struct fp_warm *w)
{
	int i;

	memset(w, 0, sizeof(*w));
	w->mode = FP_WARM_OFF;
	w->dirfd = -1;
	w->basefd = -1;
	for (i = 0; i < FP_WARM_MAX_PROGS; i++)
		w->prog_fd[i] = w->link_fd[i] = -1;
	for (i = 0; i < FP_WARM_MAX_MAPS; i++)
		w->map_fd[i] = -1;
}

/* As bpftool does: a system without bpffs at its usual place gets one. */
static int ensure_bpffs(void)
{
	struct statfs sf;

	if (!statfs(FP_WARM_BPFFS, &sf) && sf.f_type == BPF_FS_MAGIC)
		return 0;
	if (mount("bpf", FP_WARM_BPFFS, "bpf", 0, "mode=0700"))
		return -errno;
	return 0;
}

/* A directory only root can reach into, never through a symlink. */
static int open_private_dir(int at, const char *name)
{
	struct stat st;
	int fd;

	if (mkdirat(at, name, 0700) && errno != EEXIST)
		return -errno;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_uid != 0 || (st.st_mode & 077)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* what open_private_dir() returns for a directory it refused */
static bool not_ours(int err)
{
	return err == -EPERM || err == -ELOOP || err == -ENOTDIR;
}

static void pin_path(char *buf, size_t len, int dirfd, char kind, int i)
{
	if (i < 0)
		snprintf(buf, len, "/proc/self/fd/%d/" WARM_READY, dirfd);
	else
		snprintf(buf, len, "/proc/self/fd/%d/%c%d", dirfd, kind, i);
}

/*
 * Every program and map the skeleton has fits a set, by construction: one
 * more would turn the warm path off for good, and the tracer's check of
 * its links (tracer.c, links_intact()) covers FP_WARM_MAX_PROGS of them.
 */
_Static_assert(sizeof(((struct footprint_bpf *)0)->progs) /
			       sizeof(struct bpf_program *) <=
		       FP_WARM_MAX_PROGS,
	       "more BPF programs than FP_WARM_MAX_PROGS: raise it");
_Static_assert(sizeof(((struct footprint_bpf *)0)->maps) /
			       sizeof(struct bpf_map *) <=
		       FP_WARM_MAX_MAPS,
	       "more BPF maps than FP_WARM_MAX_MAPS: raise it");

static bool skeleton_fits(const struct bpf_object_skeleton *sk)
{
	struct fp_map_shape shape;
	int i;

	if (sk->prog_cnt > FP_WARM_MAX_PROGS || sk->map_cnt > FP_WARM_MAX_MAPS)
		return false;
	for (i = 0; i < sk->map_cnt; i++) {
		fp_map_shape_of(*sk->maps[i].map, sk->maps[i].mmaped, &shape);
		if (!fp_warm_map_resettable(&shape))
			return false;
	}
	/* attached as the skeleton would: a raw tracepoint link each, but
	 * for the task iterator */
	for (i = 0; i < sk->prog_cnt; i++)
		if (bpf_program__type(*sk->progs[i].prog) !=
			    BPF_PROG_TYPE_TRACING ||
		    bpf_program__expected_attach_type(*sk->progs[i].prog) !=
			    (fp_skel_prog_is_iter(i) ? BPF_TRACE_ITER :
						       BPF_TRACE_RAW_TP))
			return false;
	return true;
}

static void feed_u32(struct fp_sha256 *h, __u32 v)
{
	fp_sha256_update(h, &v, sizeof(v));
}

/*
 * Everything that decides what a load makes, and so whether a set fits:
 * the object (its maps, programs and first images), the options that
 * become its knobs and sizes (knobs.h, the only place they are set), the
 * syscall table, the kernel. No libbpf open is needed to make it.
 */
static void make_key(const struct bpf_object_skeleton *sk,
		     const struct fp_load_knobs *k, const __u32 *sys_table,
		     size_t n, char *out)
{
	unsigned char md[FP_SHA256_LEN];
	struct fp_sha256 h;
	struct utsname u;
	struct stat st;

	fp_sha256_init(&h);
	fp_sha256_update(&h, WARM_FORMAT, sizeof(WARM_FORMAT));
	/* the object the skeleton embeds, hashed at build time: hashing its
	 * bytes here took ~0.5 ms of every run's load (test_bpf_digest.c
	 * checks that the two agree) */
	fp_sha256_update(&h, FP_BPF_OBJ_SHA256, sizeof(FP_BPF_OBJ_SHA256));
	feed_u32(&h, sk->map_cnt);
	feed_u32(&h, sk->prog_cnt);
	fp_sha256_update(&h, k, sizeof(*k));
	fp_sha256_update(&h, sys_table, n * sizeof(*sys_table));
	/*
	 * What fp_hooks_choose() makes of the kernel's BTF is not hashed
	 * (it takes a scan of it): the kernel is, and a set keeps the choice
	 * in its .rodata and in which programs it pinned.
	 */
	if (!uname(&u)) {
		fp_sha256_update(&h, u.release, strlen(u.release));
		fp_sha256_update(&h, u.version, strlen(u.version));
	}
	if (!stat("/sys/kernel/btf/vmlinux", &st))
		feed_u32(&h, (__u32)st.st_size);
	fp_sha256_final(&h, md);
	fp_hex(out, md, 16);
}

/*
 * A listing of dirfd's directory that leaves dirfd itself open. From the
 * start: the copy shares its position with dirfd, where an earlier
 * listing may have left it at the end.
 */
static DIR *list_dir(int dirfd)
{
	int fd = dup(dirfd);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d)
		close(fd);
	else
		rewinddir(d);
	return d;
}

/* Unpins all a set holds; what is still open elsewhere lives on there. */
static void clear_set(int dirfd)
{
	struct dirent *de;
	DIR *d = list_dir(dirfd);

	if (!d)
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(dirfd, de->d_name, 0);
	closedir(d);
}

struct other_set {
	int fd; /* flocked */
	bool ready; /* complete: not a set cut short */
	struct timespec used;
	char name[64];
};

/* complete sets first, then the one used last first */
static int newest_first(const void *a, const void *b)
{
	const struct other_set *x = a, *y = b;

	if (x->ready != y->ready)
		return x->ready ? -1 : 1;
	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? 1 : -1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? 1 : -1;
	return 0;
}

/*
 * FP_WARM_DIR's flock, which the choice, making and eviction of sets are
 * made under. Waited for a while, not for ever: a footprint stopped while
 * it held it must not stop every other run. 0, or -EWOULDBLOCK.
 */
static int lock_base(int base)
{
	int tries;

	for (tries = 0; tries < FP_WARM_LOCK_TRIES; tries++) {
		if (!flock(base, LOCK_EX | LOCK_NB))
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		usleep(FP_WARM_LOCK_WAIT_US);
	}
	return -EWOULDBLOCK;
}

/*
 * The sets of base but skip that no other run holds, each flocked, into
 * *out (newest first); how many others hold into *busy. Bounded: a
 * directory only root can write holds few.
 */
static size_t free_sets(int base, const char *skip, struct other_set **out,
			int *busy)
{
	struct other_set *o = NULL, *grown;
	size_t n = 0, cap = 0;
	DIR *d = list_dir(base);
	struct dirent *de;
	struct stat st;
	int fd;

	*busy = 0;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    (skip && !strcmp(de->d_name, skip)) ||
		    strlen(de->d_name) >= sizeof(o->name))
			continue;
		fd = openat(base, de->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			(*busy)++;
			close(fd);
			continue;
		}
		if (n == cap && cap < FP_WARM_SCAN) {
			grown = realloc(o, (cap ? cap * 2 : 8) * sizeof(*o));
			if (grown) {
				o = grown;
				cap = cap ? cap * 2 : 8;
			}
		}
		if (n == cap || fstat(fd, &st)) {
			close(fd);
			continue;
		}
		o[n].fd = fd;
		o[n].ready =
			!faccessat(fd, WARM_READY, F_OK, AT_SYMLINK_NOFOLLOW);
		o[n].used = st.st_mtim;
		strcpy(o[n].name, de->d_name);
		n++;
	}
	if (d)
		closedir(d);
	if (n)
		qsort(o, n, sizeof(o[0]), newest_first);
	*out = o;
	return n;
}

/*
 * At most keep sets besides skip (this run's; NULL: none), under the
 * base's flock: each holds a ring buffer and tables of kernel memory.
 * Sets other runs hold count, as they stay; of the rest, the set used
 * longest ago goes first. Runs that alternate two option sets (say with
 * and without --every-open) keep both warm.
 */
static void evict_sets(int base, const char *skip, int keep)
{
	struct other_set *o;
	size_t n, i;
	int busy;

	n = free_sets(base, skip, &o, &busy);
	for (i = 0; i < n; i++) {
		if ((int)i >= keep - busy) {
			clear_set(o[i].fd);
			unlinkat(base, o[i].name, AT_REMOVEDIR);
		}
		close(o[i].fd);
	}
	free(o);
}

static void close_fds(int *fd, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (fd[i] >= 0)
			close(fd[i]);
		fd[i] = -1;
	}
}

/* the first BPF_OBJ_NAME_LEN - 1 bytes of a name are what the kernel keeps */
static bool same_name(const char *kernel, const char *ours)
{
	return !strncmp(kernel, ours, BPF_OBJ_NAME_LEN - 1);
}

/* The size the skeleton's struct gives a map of global data; 0: none. */
static size_t global_size(int i)
{
	if (i == (int)FP_SKEL_MAP(rodata))
		return sizeof(struct footprint_bpf__rodata);
	if (i == (int)FP_SKEL_MAP(bss))
		return sizeof(struct footprint_bpf__bss);
	if (i == (int)FP_SKEL_MAP(kconfig))
		return sizeof(struct footprint_bpf__kconfig);
	return 0;
}

/*
 * The i-th pinned map, if it is the one the skeleton names there, of the
 * size the knobs make it, and of a kind a reset handles.
 */
static bool take_map(struct fp_warm *w, const struct bpf_object_skeleton *sk,
		     int i, const struct fp_load_knobs *k)
{
	struct fp_map_shape *s = &w->map_shape[i];
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	char path[64];

	pin_path(path, sizeof(path), w->dirfd, 'm', i);
	w->map_fd[i] = bpf_obj_get(path);
	if (w->map_fd[i] < 0 ||
	    bpf_obj_get_info_by_fd(w->map_fd[i], &info, &len) ||
	    !same_name(info.name, sk->maps[i].name) ||
	    !fp_knobs_sized(i, info.max_entries, k))
		return false;
	fp_map_shape_info(&info, sk->maps[i].mmaped, s);
	/* the struct may end in padding the section does not have */
	if (s->global_data &&
	    ((s->value_size + 7) / 8 != (global_size(i) + 7) / 8 ||
	     s->max_entries != 1))
		return false;
	return fp_warm_map_resettable(s);
}

/* The set's .rodata holds the knobs this run asks for. */
static bool knobs_kept(const struct fp_warm *w, const struct fp_load_knobs *k)
{
	struct footprint_bpf__rodata ro;
	__u32 key = 0;

	return !bpf_map_lookup_elem(w->map_fd[FP_SKEL_MAP(rodata)], &key,
				    &ro) &&
	       fp_knobs_in(&ro, k);
}

/*
 * The set's pins, each checked against what the skeleton names at its
 * place: found without libbpf's open of the object (the most of a warm
 * start's time it was), by the kernel's word on each.
 */
static bool take_pins(struct fp_warm *w, const struct bpf_object_skeleton *sk,
		      const struct fp_load_knobs *k)
{
	char path[64];
	int i, fd;

	pin_path(path, sizeof(path), w->dirfd, 0, -1);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return false;
	close(fd);
	for (i = 0; i < sk->map_cnt; i++)
		if (!take_map(w, sk, i, k))
			goto stale;
	if (!knobs_kept(w, k))
		goto stale;
	for (i = 0; i < sk->prog_cnt; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		pin_path(path, sizeof(path), w->dirfd, 'p', i);
		fd = bpf_obj_get(path);
		/* only a program fp_hooks_choose() may leave out can be missing */
		if (fd < 0 && fp_hooks_optional(i))
			continue;
		w->prog_fd[i] = fd;
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) ||
		    info.type != BPF_PROG_TYPE_TRACING ||
		    !same_name(info.name, sk->progs[i].name))
			goto stale;
	}
	return true;
stale:
	close_fds(w->map_fd, FP_WARM_MAX_MAPS);
	close_fds(w->prog_fd, FP_WARM_MAX_PROGS);
	return false;
}

/*
 * A set another process holds shared is one whose run has ended, its
 * links being closed (fp_warm_detaching): waited for, a few ms, under
 * the base's flock, rather than loaded afresh (~250 ms). One held
 * exclusive is a run's. true once this run holds it.
 */
static bool let_go(int dirfd)
{
	int tries;

	if (flock(dirfd, LOCK_SH | LOCK_NB))
		return false;
	flock(dirfd, LOCK_UN);
	for (tries = 0; tries < FP_WARM_LETGO_TRIES; tries++) {
		if (!flock(dirfd, LOCK_EX | LOCK_NB))
			return true;
		usleep(FP_WARM_LETGO_WAIT_US);
	}
	return false;
}

enum fp_warm_mode fp_warm_begin(struct fp_warm *w, struct footprint_bpf *skel,
				const struct fp_load_knobs *k,
				const __u32 *sys_table, size_t n)
{
	const struct bpf_object_skeleton *sk = sk_of(skel);
	int bpffs = -1, base = -1;

	fp_warm_init(w);
	w->why = "it has more maps or programs than a set holds";
	if (sk->prog_cnt > FP_WARM_MAX_PROGS || sk->map_cnt > FP_WARM_MAX_MAPS)
		goto cleanup;
	make_key(sk, k, sys_table, n, w->key);
	w->why = "no bpffs at " FP_WARM_BPFFS;
	if (ensure_bpffs())
		goto cleanup;
	bpffs = open(FP_WARM_BPFFS, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (bpffs < 0)
		goto cleanup;
	w->why = FP_WARM_DIR " is not a directory root's alone";
	base = open_private_dir(bpffs, "footprint");
	if (base < 0) {
		w->foreign = not_ours(base);
		goto cleanup;
	}
	w->why = "another run kept " FP_WARM_DIR " locked";
	if (lock_base(base))
		goto cleanup;
	w->dirfd = open_private_dir(base, w->key);
	if (w->dirfd < 0) {
		w->foreign = not_ours(w->dirfd);
		goto cleanup;
	}
	/* busy: another run has it, and this one loads its own */
	w->why = "the set is another run's";
	if (flock(w->dirfd, LOCK_EX | LOCK_NB) && !let_go(w->dirfd)) {
		close(w->dirfd);
		w->dirfd = -1;
		goto cleanup;
	}
	w->why = NULL;
	/* its mtime says when it was last used, for evict_sets() */
	futimens(w->dirfd, NULL);
	if (take_pins(w, sk, k)) {
		w->mode = FP_WARM_REUSE;
	} else {
		clear_set(w->dirfd);
		evict_sets(base, w->key, FP_WARM_KEEP - 1);
		w->mode = FP_WARM_SAVE;
	}
	/* kept for fp_warm_end(), which bounds the sets again */
	w->basefd = base;
	base = -1;
cleanup:
	if (w->basefd >= 0)
		flock(w->basefd, LOCK_UN);
	else if (base >= 0)
		flock(base, LOCK_UN);
	if (base >= 0)
		close(base);
	if (bpffs >= 0)
		close(bpffs);
	return w->mode;
}

int fp_warm_reuse(struct fp_warm *w, struct footprint_bpf *skel)
{
	const struct bpf_object_skeleton *sk = sk_of(skel);
	int i, ret = 0;

	/* where the skeleton's code looks for the global data, as a load
	 * would have mapped it */
	for (i = 0; i < sk->map_cnt && !ret; i++) {
		if (!sk->maps[i].mmaped)
			continue;
		w->mapped[i] = fp_warm_map_global_data(
			w->map_fd[i], &w->map_shape[i], &w->mapped_len[i]);
		if (!w->mapped[i])
			ret = -errno;
		else
			*sk->maps[i].mmaped = w->mapped[i];
		w->mapped_at[i] = sk->maps[i].mmaped;
	}
	if (!ret)
		ret = fp_warm_reset_state(w->map_fd, w->map_shape, sk->map_cnt,
					  skel->bss);
	/* whatever went wrong, the next run makes the set again */
	if (ret)
		clear_set(w->dirfd);
	return ret > 0 ? -ret : ret;
}

void fp_warm_save(struct fp_warm *w, struct footprint_bpf *skel)
{
	const struct bpf_object_skeleton *sk = sk_of(skel);
	char path[64];
	int i, ret = 0;

	/* a set this run could not reset or attach as it would: none */
	if (!skeleton_fits(sk)) {
		clear_set(w->dirfd);
		fp_warm_end(w);
		w->why =
			"its maps or programs are of a kind a reset cannot handle";
		return;
	}
	for (i = 0; i < sk->map_cnt && !ret; i++) {
		pin_path(path, sizeof(path), w->dirfd, 'm', i);
		ret = bpf_obj_pin(bpf_map__fd(*sk->maps[i].map), path);
	}
	for (i = 0; i < sk->prog_cnt && !ret; i++) {
		if (!bpf_program__autoload(*sk->progs[i].prog))
			continue;
		pin_path(path, sizeof(path), w->dirfd, 'p', i);
		ret = bpf_obj_pin(bpf_program__fd(*sk->progs[i].prog), path);
	}
	if (!ret) {
		pin_path(path, sizeof(path), w->dirfd, 0, -1);
		ret = bpf_obj_pin(bpf_map__fd(skel->maps.events), path);
	}
	if (ret) {
		clear_set(w->dirfd);
		fp_warm_end(w);
		w->why = "pinning failed";
	}
}

void fp_warm_report(const struct fp_warm *w)
{
	static const char *const what[] = {
		[FP_WARM_OFF] = "loaded afresh, none kept",
		[FP_WARM_SAVE] = "loaded afresh, kept in",
		[FP_WARM_REUSE] = "reused the programs kept in",
	};

	/* someone else's directory where root keeps programs: worth a look */
	if (w->foreign)
		fprintf(stderr,
			"footprint: note: %s is not a directory root's alone (or not one); the programs are loaded afresh and none kept: remove it to keep them loaded\n",
			FP_WARM_DIR);
	if (!getenv("FOOTPRINT_DEBUG"))
		return;
	if (w->mode == FP_WARM_OFF)
		fprintf(stderr, "footprint: debug: tracer: %s%s%s\n",
			what[w->mode], w->why ? ": " : "",
			w->why ? w->why : "");
	else
		fprintf(stderr, "footprint: debug: tracer: %s %s/%s\n",
			what[w->mode], FP_WARM_DIR, w->key);
}

int fp_warm_attach(struct fp_warm *w)
{
	int i, ret = 0;

	for (i = 0; i < FP_WARM_MAX_PROGS && !ret; i++) {
		if (w->prog_fd[i] < 0 || fp_skel_prog_is_iter(i))
			continue;
		w->link_fd[i] = bpf_link_create(w->prog_fd[i], 0,
						BPF_TRACE_RAW_TP, NULL);
		if (w->link_fd[i] < 0)
			ret = -errno;
	}
	if (ret)
		fp_warm_detach(w);
	return ret;
}

void fp_warm_detach(struct fp_warm *w)
{
	close_fds(w->link_fd, FP_WARM_MAX_PROGS);
}

int fp_warm_detaching(struct fp_warm *w)
{
	int ret;

	if (w->dirfd < 0 || w->basefd < 0 || lock_base(w->basefd))
		return -1;
	/* flock() lets go of the old lock before it takes the new one:
	 * under the base's flock, no run takes the set between */
	ret = flock(w->dirfd, LOCK_SH);
	if (ret)
		flock(w->dirfd, LOCK_EX | LOCK_NB);
	flock(w->basefd, LOCK_UN);
	return ret ? -1 : w->dirfd;
}

static void unmap_global_data(struct fp_warm *w)
{
	int i;

	for (i = 0; i < FP_WARM_MAX_MAPS; i++) {
		if (w->mapped[i])
			munmap(w->mapped[i], w->mapped_len[i]);
		if (w->mapped_at[i])
			*w->mapped_at[i] = NULL;
		w->mapped[i] = NULL;
		w->mapped_at[i] = NULL;
	}
}

void fp_warm_end(struct fp_warm *w)
{
	close_fds(w->link_fd, FP_WARM_MAX_PROGS);
	unmap_global_data(w);
	close_fds(w->prog_fd, FP_WARM_MAX_PROGS);
	close_fds(w->map_fd, FP_WARM_MAX_MAPS);
	/*
	 * Runs at once each made a set, and none could evict another's:
	 * the last of them to end leaves no more than the bound. This one's
	 * set is let go under the base's flock, so no run takes it between.
	 */
	if (w->dirfd >= 0 && w->basefd >= 0 && !lock_base(w->basefd)) {
		close(w->dirfd);
		w->dirfd = -1;
		evict_sets(w->basefd, NULL, FP_WARM_KEEP);
		flock(w->basefd, LOCK_UN);
	}
	if (w->dirfd >= 0)
		close(w->dirfd);
	w->dirfd = -1;
	if (w->basefd >= 0)
		close(w->basefd);
	w->basefd = -1;
	w->mode = FP_WARM_OFF;
}
