// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logcodec.h"
#include "logrun.h"
#include "userfile.h"

/* header keys: unknown ones are skipped by readers */
enum {
	H_VERSION = 1,
	H_KERNEL,
	H_HOSTNAME,
	H_BOOT_ID,
	H_START_NS,
	H_ARG,
	H_CWD,
	H_UID,
	H_GID,
	H_USER,
	H_ROOT,
	H_POLICY,
	H_REPORT_NOISE,
	H_RUN_CGROUP,
	H_MEM_BUDGET,
	H_MODE, /* "sidecar"; a log without it is a run's */
	H_STEP_PARENT,
	H_STATE_DIR,
	H_UNIT, /* run --unit, with the two below */
	H_SHAPE_POLICY,
	H_SHAPE_BEFORE,
	/* version 5: the "~" of the secret class (repeated), --report-reads */
	H_HOME = 23,
	H_REPORT_READS = 24,
	H_SCRATCH_DIR = 25, /* run --scratch DIR (docs/scratch.md) */
	H_NO_NETWORK = 26, /* run --scratch --no-network: 1 */
};

/* trailer keys */
enum {
	T_EVENTS = 1,
	T_LOST,
	T_END_NS,
	T_STATUS,
	T_EXEC_ERRNO,
	T_TIMED_OUT,
	T_INTERRUPTED,
	T_DURATION_MS,
	T_LEFTOVER,
	T_RECON_FAILED,
	T_SHAPE_AFTER,
	T_OWN_PID, /* the scratch box's init (struct fp_run.own_pid) */
};

static int put(struct fp_log_sink *s, unsigned int type)
{
	int ret = s->enc->err;

	if (!ret)
		ret = fp_evlog_put(&s->w, type, s->enc->p, s->enc->len);
	fp_enc_reset(s->enc);
	return ret;
}

static void kv_str(struct fp_enc *e, unsigned int key, const char *v)
{
	fp_enc_u64(e, key);
	fp_enc_str(e, v);
}

static void kv_u64(struct fp_enc *e, unsigned int key, uint64_t v)
{
	struct fp_enc tmp = { 0 };

	fp_enc_u64(&tmp, v);
	fp_enc_u64(e, key);
	fp_enc_bytes(e, tmp.p, tmp.len);
	if (tmp.err)
		e->err = tmp.err;
	fp_enc_free(&tmp);
}

/* only a sidecar's: a run's log stays as it was */
static void header_sidecar(struct fp_enc *e, const struct fp_run *run)
{
	if (run->mode == FP_MODE_RUN)
		return;
	kv_str(e, H_MODE, fp_run_mode_name(run->mode));
	kv_u64(e, H_STEP_PARENT, run->step_parent);
	kv_str(e, H_STATE_DIR, run->state_dir ?: "");
}

int fp_log_header(struct fp_log_sink *s, const struct fp_run *run)
{
	struct fp_enc *e = s->enc;
	size_t i;

	kv_str(e, H_VERSION, run->version);
	kv_str(e, H_KERNEL, run->kernel);
	kv_str(e, H_HOSTNAME, run->hostname);
	kv_str(e, H_BOOT_ID, run->boot_id);
	kv_u64(e, H_START_NS, run->start_ns);
	for (i = 0; run->argv[i]; i++)
		kv_str(e, H_ARG, run->argv[i]);
	kv_str(e, H_CWD, run->cwd);
	kv_u64(e, H_UID, run->uid);
	kv_u64(e, H_GID, run->gid);
	kv_str(e, H_USER, run->user);
	for (i = 0; i < run->nroots; i++)
		kv_str(e, H_ROOT, run->roots[i]);
	for (i = 0; i < run->npolicy; i++)
		kv_str(e, H_POLICY, run->policy[i]);
	kv_u64(e, H_REPORT_NOISE, run->report_noise);
	kv_str(e, H_RUN_CGROUP, run->run_cgroup);
	kv_u64(e, H_MEM_BUDGET, run->mem_budget);
	header_sidecar(e, run);
	for (i = 0; i < run->nhomes; i++)
		kv_str(e, H_HOME, run->homes[i]);
	kv_u64(e, H_REPORT_READS, run->report_reads);
	if (run->scratch_dir)
		kv_str(e, H_SCRATCH_DIR, run->scratch_dir);
	if (run->no_network)
		kv_u64(e, H_NO_NETWORK, 1);
	if (run->unit) {
		kv_str(e, H_UNIT, run->unit);
		kv_str(e, H_SHAPE_POLICY,
		       run->shape_policy ? run->shape_policy : "");
		kv_str(e, H_SHAPE_BEFORE,
		       run->shape[0].data ? run->shape[0].data : "");
	}
	return put(s, FP_REC_HEADER) ?: fp_evlog_flush(&s->w);
}

int fp_log_snapshot(struct fp_log_sink *s, const struct fp_run *run,
		    unsigned int phase, bool fs, bool rest)
{
	size_t i;
	int ret = 0;

	for (i = 0; rest && !ret && i < run->procs[phase].n; i++) {
		fp_enc_proc(s->enc, phase, &run->procs[phase].procs[i]);
		ret = put(s, FP_REC_PROC);
	}
	for (i = 0; rest && !ret && i < run->socks[phase].n; i++) {
		fp_enc_sock(s->enc, phase, &run->socks[phase].socks[i]);
		ret = put(s, FP_REC_SOCK);
	}
	for (i = 0; fs && !ret && i < run->fs[phase].n; i++) {
		fp_enc_fentry(s->enc, phase, &run->fs[phase].e[i]);
		ret = put(s, FP_REC_FS);
	}
	if (!ret && fs) {
		/* the snapshot is whole only once this record is read */
		fp_enc_u64(s->enc, phase);
		fp_enc_i64(s->enc, run->fs[phase].started_ns);
		ret = put(s, FP_REC_SNAP_DONE);
	}
	return ret ?: fp_evlog_flush(&s->w);
}

int fp_log_holders(struct fp_log_sink *s, const struct fp_run *run)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < run->holders.n; i++) {
		fp_enc_u64(s->enc, FP_PHASE_AFTER);
		fp_enc_bytes(s->enc, run->holders.h[i].path.data,
			     run->holders.h[i].path.len);
		fp_enc_u64(s->enc, run->holders.h[i].pid);
		ret = put(s, FP_REC_HOLDER);
	}
	return ret;
}

int fp_log_event(struct fp_log_sink *s, const struct fp_event *ev)
{
	fp_enc_event(s->enc, ev, &s->prev_ts);
	return put(s, FP_REC_EVENT);
}

int fp_log_trailer(struct fp_log_sink *s, const struct fp_run *run)
{
	struct fp_enc *e = s->enc;
	size_t i;

	kv_u64(e, T_EVENTS, run->events);
	kv_u64(e, T_LOST, run->lost);
	kv_u64(e, T_END_NS, run->end_ns);
	kv_u64(e, T_STATUS, run->status);
	kv_u64(e, T_EXEC_ERRNO, run->exec_errno);
	kv_u64(e, T_TIMED_OUT, run->timed_out);
	kv_u64(e, T_INTERRUPTED, run->interrupted);
	kv_u64(e, T_DURATION_MS, run->duration_ms);
	kv_u64(e, T_RECON_FAILED, run->recon_failed);
	for (i = 0; i < run->nleftover; i++)
		kv_u64(e, T_LEFTOVER, run->leftover[i]);
	if (run->own_pid > 0)
		kv_u64(e, T_OWN_PID, run->own_pid);
	if (run->unit)
		kv_str(e, T_SHAPE_AFTER,
		       run->shape[1].data ? run->shape[1].data : "");
	return put(s, FP_REC_TRAILER) ?: fp_evlog_flush(&s->w);
}

/* ---- segments ---- */

static int seg_names(const struct fp_log_where *at, unsigned int n,
		     char name[NAME_MAX + 1], char path[PATH_MAX])
{
	if ((size_t)snprintf(name, NAME_MAX + 1, "%s.%u", at->name, n) >
		    NAME_MAX ||
	    (size_t)snprintf(path, PATH_MAX, "%s.%u", at->path, n) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/* Segment n: a new file in segment 0's directory, made as it was. */
static int make_segment(void *ctx, unsigned int n, char *msg, size_t msglen)
{
	struct fp_log_sink *s = ctx;
	char name[NAME_MAX + 1], path[PATH_MAX];
	struct fp_outdir d = { .dirfd = s->at.dirfd, .base = name };
	struct fp_log_made *m;
	struct stat st;
	int fd;

	if (seg_names(&s->at, n, name, path)) {
		snprintf(
			msg, msglen,
			"footprint: the name of segment %u of the log %s is too long",
			n, s->at.path);
		return -ENAMETOOLONG;
	}
	m = realloc(s->made, (s->nmade + 1) * sizeof(*m));
	if (!m) {
		snprintf(msg, msglen, "footprint: out of memory");
		return -ENOMEM;
	}
	s->made = m;
	fd = fp_outdir_create(&d, s->at.creds, "a segment of the log", path,
			      s->at.replace, msg, msglen);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	m[s->nmade].dev = st.st_dev;
	m[s->nmade++].ino = st.st_ino;
	return fd;
}

/* A segment an earlier log left would stop this one halfway. */
static int earlier_segment(const struct fp_log_where *at, char *err,
			   size_t errlen)
{
	char name[NAME_MAX + 1], path[PATH_MAX];
	struct stat st;
	int ret;

	if (at->replace)
		return 0;
	if (seg_names(at, 1, name, path)) {
		snprintf(
			err, errlen,
			"footprint: the log's name %s is too long for its segments (%s.1, ...); pick a shorter one",
			at->path, at->path);
		return -ENAMETOOLONG;
	}
	ret = fp_creds_enter(at->creds);
	if (ret)
		return ret;
	ret = fstatat(at->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) ? 0 : -EEXIST;
	fp_creds_leave(at->creds);
	if (ret)
		snprintf(
			err, errlen,
			"footprint: %s exists, a segment of an earlier log; remove it and the ones after it, pick another path for the log or add --force",
			path);
	return ret;
}

int fp_log_open(struct fp_log_sink *s, int fd, const struct fp_log_where *at,
		uint64_t max, char *err, size_t errlen)
{
	int ret;

	/* fd is the caller's output too: closed by fp_log_close only */
	memset(&s->w, 0, sizeof(s->w));
	s->w.fd = s->w.fd0 = fd;
	s->made = NULL;
	s->nmade = 0;
	s->at = *at;
	s->at.name = strdup(at->name);
	s->at.path = strdup(at->path);
	if (!s->at.name || !s->at.path) {
		snprintf(err, errlen, "footprint: out of memory");
		return -ENOMEM;
	}
	ret = max ? earlier_segment(&s->at, err, errlen) : 0;
	if (ret)
		return ret;
	return fp_evlog_open_segments(&s->w, fd, at->path, max,
				      max ? make_segment : NULL, s, err,
				      errlen);
}

void fp_log_hand_over(struct fp_log_sink *s, uid_t uid, gid_t gid,
		      const char *who)
{
	char name[NAME_MAX + 1], path[PATH_MAX];
	struct stat st;
	size_t i;
	int fd;

	for (i = 0; i < s->nmade; i++) {
		if (seg_names(&s->at, i + 1, name, path) ||
		    fp_creds_enter(s->at.creds))
			continue;
		fd = openat(s->at.dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		fp_creds_leave(s->at.creds);
		/* the file footprint made, whatever the name holds now */
		if (fd < 0 || fstat(fd, &st) || st.st_dev != s->made[i].dev ||
		    st.st_ino != s->made[i].ino)
			fprintf(stderr,
				"footprint: %s is no longer the segment footprint wrote; that segment stays root's\n",
				path);
		else if (fchownat(fd, "", uid, gid, AT_EMPTY_PATH))
			fprintf(stderr,
				"footprint: cannot give %s to %s: %s; it stays root's\n",
				path, who, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
}

int fp_log_close(struct fp_log_sink *s)
{
	int ret = 0;

	if (s->w.fd >= 0)
		ret = fp_evlog_close(&s->w);
	free((char *)s->at.name);
	free((char *)s->at.path);
	free(s->made);
	s->at.name = s->at.path = NULL;
	s->made = NULL;
	s->nmade = 0;
	return ret;
}

/* ---- reading ---- */

static int kv_next(struct fp_dec *d, uint64_t *key, struct fp_dec *val)
{
	uint64_t n;

	*key = fp_dec_u64(d);
	n = fp_dec_u64(d);
	if (d->err || n > d->len - d->pos)
		return d->err = -EBADMSG;
	/* the value stays inside the record: borrow, don't copy */
	val->p = d->p + d->pos;
	val->len = n;
	val->pos = 0;
	val->err = 0;
	d->pos += n;
	return 0;
}

static char *val_str(struct fp_dec *v)
{
	char *s = malloc(v->len + 1);

	if (!s)
		return NULL;
	memcpy(s, v->p, v->len);
	s[v->len] = '\0';
	if (memchr(s, '\0', v->len))
		v->err = -EBADMSG;
	return s;
}

static void set_str(char **dst, struct fp_dec *v)
{
	free(*dst);
	*dst = val_str(v);
}

static void set_shape(struct fp_bytes *b, struct fp_dec *v)
{
	set_str(&b->data, v);
	b->len = b->data ? strlen(b->data) : 0;
}

static uint64_t val_u64(struct fp_dec *v)
{
	return fp_dec_u64(v);
}

/* a sidecar's header keys; 1 if key is not one */
static int read_header_sidecar(struct fp_run *run, uint64_t key,
			       struct fp_dec *v)
{
	char *s;

	switch (key) {
	case H_MODE:
		s = val_str(v);
		if (!s)
			return -ENOMEM;
		if (!strcmp(s, "sidecar"))
			run->mode = FP_MODE_SIDECAR;
		else if (strcmp(s, "run"))
			v->err = -EBADMSG;
		free(s);
		return 0;
	case H_STEP_PARENT:
		run->step_parent = val_u64(v);
		return 0;
	case H_STATE_DIR:
		set_str(&run->state_dir, v);
		return 0;
	case H_UNIT:
		set_str(&run->unit, v);
		return 0;
	case H_SHAPE_POLICY:
		set_str(&run->shape_policy, v);
		return 0;
	case H_SHAPE_BEFORE:
		set_shape(&run->shape[0], v);
		return 0;
	case H_SCRATCH_DIR:
		set_str(&run->scratch_dir, v);
		return 0;
	case H_NO_NETWORK:
		run->no_network = val_u64(v) != 0;
		return 0;
	}
	return 1;
}

static int read_header_reads(struct fp_run *run, uint64_t key, struct fp_dec *v)
{
	char *s;
	int ret;

	switch (key) {
	case H_HOME:
		s = val_str(v);
		if (!s)
			return -ENOMEM;
		ret = fp_run_add_str(&run->homes, &run->nhomes, s);
		free(s);
		return ret;
	case H_REPORT_READS:
		run->report_reads = val_u64(v);
		return 0;
	}
	return 1;
}

static int read_header(struct fp_run *run, struct fp_dec *d)
{
	size_t argc = 0;
	uint64_t key, n;
	struct fp_dec v;
	char *s;
	int ret = 0;

	while (!ret && d->pos < d->len) {
		if (kv_next(d, &key, &v))
			return -EBADMSG;
		switch (key) {
		case H_VERSION:
			set_str(&run->version, &v);
			break;
		case H_KERNEL:
			set_str(&run->kernel, &v);
			break;
		case H_HOSTNAME:
			set_str(&run->hostname, &v);
			break;
		case H_BOOT_ID:
			set_str(&run->boot_id, &v);
			break;
		case H_START_NS:
			run->start_ns = val_u64(&v);
			break;
		case H_ARG:
		case H_ROOT:
		case H_POLICY:
			s = val_str(&v);
			if (!s)
				return -ENOMEM;
			ret = key == H_ARG ?
				      fp_run_add_str(&run->argv, &argc, s) :
			      key == H_ROOT ? fp_run_add_str(&run->roots,
							     &run->nroots, s) :
					      fp_run_add_str(&run->policy,
							     &run->npolicy, s);
			free(s);
			break;
		case H_CWD:
			set_str(&run->cwd, &v);
			break;
		case H_UID:
			run->uid = val_u64(&v);
			break;
		case H_GID:
			run->gid = val_u64(&v);
			break;
		case H_USER:
			set_str(&run->user, &v);
			break;
		case H_REPORT_NOISE:
			run->report_noise = val_u64(&v);
			break;
		case H_RUN_CGROUP:
			set_str(&run->run_cgroup, &v);
			break;
		case H_MEM_BUDGET:
			n = val_u64(&v);
			/* a log without one had the default; no run has 0 */
			if (!run->mem_budget_given && n)
				run->mem_budget = n;
			break;
		default:
			if (read_header_sidecar(run, key, &v) < 0 ||
			    read_header_reads(run, key, &v) < 0)
				return -ENOMEM;
		}
		if (v.err)
			return -EBADMSG;
	}
	if (!run->argv)
		return -EBADMSG;
	/* the events that follow are folded as the live run folded them */
	fp_run_set_budget(run, run->mem_budget);
	fp_recon_set_step_parent(run->recon, run->step_parent);
	/* a read rule that does not parse is reported with the policy */
	if (!ret && fp_run_reads_ready(run) == -ENOMEM)
		return -ENOMEM;
	return ret;
}

static int read_trailer(struct fp_run *run, struct fp_dec *d)
{
	uint64_t key;
	struct fp_dec v;

	while (d->pos < d->len) {
		if (kv_next(d, &key, &v))
			return -EBADMSG;
		switch (key) {
		case T_SHAPE_AFTER:
			set_shape(&run->shape[1], &v);
			break;
		case T_EVENTS:
			run->events = val_u64(&v);
			break;
		case T_LOST:
			run->lost = val_u64(&v);
			break;
		case T_END_NS:
			run->end_ns = val_u64(&v);
			break;
		case T_STATUS:
			run->status = val_u64(&v);
			break;
		case T_EXEC_ERRNO:
			run->exec_errno = val_u64(&v);
			break;
		case T_TIMED_OUT:
			run->timed_out = val_u64(&v);
			break;
		case T_INTERRUPTED:
			run->interrupted = val_u64(&v);
			break;
		case T_DURATION_MS:
			run->duration_ms = val_u64(&v);
			break;
		case T_RECON_FAILED:
			run->recon_failed = val_u64(&v);
			break;
		case T_OWN_PID:
			run->own_pid = (pid_t)val_u64(&v);
			break;
		case T_LEFTOVER: {
			pid_t *n = realloc(run->leftover, (run->nleftover +
							   1) * sizeof(pid_t));

			if (!n)
				return -ENOMEM;
			run->leftover = n;
			n[run->nleftover++] = val_u64(&v);
			break;
		}
		}
		if (v.err)
			return -EBADMSG;
	}
	run->have_trailer = true;
	return 0;
}

/*
 * Room for one more of elem bytes at *v, which holds n (doubling *cap).
 * On failure *v and *cap are left as they were: what is there is still
 * the run's, to be freed with it.
 */
static int grow(void **v, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 256;
	if (ncap < *cap || ncap > SIZE_MAX / elem)
		return -ENOMEM;
	nv = realloc(*v, ncap * elem);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

/* phase (1), path, pid: a process outside the run that held path open
 * for writing at the after snapshot (docs/event-log.md) */
static int read_holder(struct fp_run *run, struct fp_dec *d)
{
	struct fp_holder_table *t = &run->holders;
	struct fp_holder *h;
	struct fp_bytes p;
	uint64_t phase = fp_dec_u64(d), pid;

	fp_dec_bytes(d, &p);
	pid = fp_dec_u64(d);
	if (d->err || phase != FP_PHASE_AFTER || !p.len || p.data[0] != '/' ||
	    !pid || pid > INT32_MAX) {
		free(p.data);
		return -EBADMSG;
	}
	h = realloc(t->h, (t->n + 1) * sizeof(*h));
	if (!h) {
		free(p.data);
		return -ENOMEM;
	}
	t->h = h;
	t->h[t->n++] = (struct fp_holder){ p, (pid_t)pid };
	return 0;
}

struct loader {
	struct fp_run *run;
	size_t fs_cap[2], proc_cap[2], sock_cap[2];
	uint64_t prev_ts;
	uint64_t events;
	bool seen_header;
	fp_log_event_fn fn;
	void *ctx;
};

static int load_record(struct loader *l, unsigned int type,
		       const unsigned char *body, size_t len)
{
	struct fp_run *run = l->run;
	struct fp_dec d = { .p = body, .len = len };
	unsigned int phase;
	int ret = 0;

	if (!l->seen_header && type != FP_REC_HEADER)
		return -EBADMSG;
	switch (type) {
	case FP_REC_HEADER:
		if (l->seen_header)
			return -EBADMSG;
		l->seen_header = true;
		return read_header(run, &d);
	case FP_REC_FS: {
		struct fp_fentry f;

		if (fp_dec_fentry(&d, &phase, &f))
			return -EBADMSG;
		if (grow((void **)&run->fs[phase].e, &l->fs_cap[phase],
			 run->fs[phase].n, sizeof(f))) {
			free(f.path.data);
			free(f.target.data);
			return -ENOMEM;
		}
		run->fs[phase].e[run->fs[phase].n++] = f;
		return 0;
	}
	case FP_REC_PROC: {
		struct fp_proc p;

		if (fp_dec_proc(&d, &phase, &p))
			return -EBADMSG;
		if (grow((void **)&run->procs[phase].procs, &l->proc_cap[phase],
			 run->procs[phase].n, sizeof(p))) {
			free(p.exe.data);
			free(p.cwd.data);
			free(p.argv.data);
			free(p.cgroup.data);
			return -ENOMEM;
		}
		run->procs[phase].procs[run->procs[phase].n++] = p;
		return 0;
	}
	case FP_REC_SOCK: {
		struct fp_sock s;

		if (fp_dec_sock(&d, &phase, &s))
			return -EBADMSG;
		if (grow((void **)&run->socks[phase].socks, &l->sock_cap[phase],
			 run->socks[phase].n, sizeof(s)))
			return -ENOMEM;
		run->socks[phase].socks[run->socks[phase].n++] = s;
		return 0;
	}
	case FP_REC_SNAP_DONE:
		phase = fp_dec_u64(&d);
		if (d.err || phase > 1)
			return -EBADMSG;
		run->fs[phase].started_ns = fp_dec_i64(&d);
		run->have_snap[phase] = true;
		return d.err;
	case FP_REC_EVENT: {
		struct fp_event ev;

		if (fp_dec_event(&d, &ev, &l->prev_ts))
			return -EBADMSG;
		l->events++;
		if (ev.type == FP_EV_FILE && ev.file.count > 1)
			run->opens_collapsed += ev.file.count - 1;
		if (fp_recon_feed(run->recon, &ev))
			run->recon_failed = true;
		if (l->fn)
			ret = l->fn(l->ctx, &ev);
		fp_event_free(&ev);
		return ret;
	}
	case FP_REC_TRAILER:
		return read_trailer(run, &d);
	case FP_REC_HOLDER:
		return read_holder(run, &d);
	}
	return 0; /* a record type from a later version */
}

static int fentry_cmp(const void *a, const void *b)
{
	const struct fp_fentry *x = a, *y = b;

	return fp_bytes_cmp(x->path.data, x->path.len, y->path.data,
			    y->path.len);
}

static int proc_cmp(const void *a, const void *b)
{
	const struct fp_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* A log from elsewhere need not be sorted; lookups assume it is. */
static void sort_snapshots(struct fp_run *run)
{
	int p;

	for (p = 0; p < 2; p++) {
		if (run->fs[p].n)
			qsort(run->fs[p].e, run->fs[p].n,
			      sizeof(struct fp_fentry), fentry_cmp);
		if (run->procs[p].n)
			qsort(run->procs[p].procs, run->procs[p].n,
			      sizeof(struct fp_proc), proc_cmp);
	}
	fp_holders_sort(&run->holders);
}

/* Why a log that stops early is incomplete: where it stops, and why. */
static int stopped_short(struct fp_run *run, struct fp_evlog_reader *r,
			 const struct loader *l, int ret)
{
	char why[1400], where[PATH_MAX + 8] = "";

	if (r->segmented)
		snprintf(where, sizeof(where), " of %s", r->seg_shown);
	snprintf(why, sizeof(why),
		 "the log stops at offset %llu%s after %llu events: %s",
		 (unsigned long long)r->offset, where,
		 (unsigned long long)l->events,
		 ret ? r->err : "it has no trailer");
	run->incomplete_why = strdup(why);
	if (!run->have_trailer)
		run->events = l->events;
	return -ENODATA;
}

static int load_from(struct fp_evlog_reader *r, struct fp_run *run,
		     fp_log_event_fn fn, void *ctx, char *err, size_t errlen)
{
	struct loader l = { .run = run, .fn = fn, .ctx = ctx };
	const unsigned char *body;
	unsigned int type;
	size_t len;
	int ret;

	for (;;) {
		ret = fp_evlog_next(r, &type, &body, &len);
		if (ret <= 0)
			break;
		ret = load_record(&l, type, body, len);
		/* frame_offset only after next(): it may have read a frame */
		if (ret == -EBADMSG) {
			snprintf(
				err, errlen,
				"footprint: %s: a damaged record in the frame at offset %llu",
				r->seg_shown,
				(unsigned long long)r->frame_offset);
			return ret;
		}
		if (ret < 0) {
			snprintf(err, errlen, "footprint: %s: %s", r->seg_shown,
				 strerror(-ret));
			return ret;
		}
		/* no segment follows the trailer's */
		r->last = run->have_trailer;
	}
	if (ret == -ENODATA || (ret == 0 && !run->have_trailer)) {
		if (!l.seen_header) {
			snprintf(
				err, errlen,
				"footprint: %s: the log ends before its header",
				r->shown);
			return -EBADMSG;
		}
		return stopped_short(run, r, &l, ret);
	}
	if (ret < 0)
		snprintf(err, errlen, "footprint: %s: %s", r->seg_shown,
			 r->err);
	return ret;
}

int fp_log_load_fd(int fd, int dirfd, const char *name, const char *shown,
		   struct fp_run *run, fp_log_event_fn fn, void *ctx, char *err,
		   size_t errlen)
{
	struct fp_evlog_reader r;
	int ret;

	ret = fp_evlog_reader_open_fd(&r, fd, dirfd, name, shown);
	if (ret)
		snprintf(err, errlen, "footprint: %s", r.err);
	else
		ret = load_from(&r, run, fn, ctx, err, errlen);
	if (ret == 0 || ret == -ENODATA)
		sort_snapshots(run);
	fp_evlog_reader_close(&r);
	return ret;
}

int fp_log_load(const char *path, struct fp_run *run, fp_log_event_fn fn,
		void *ctx, char *err, size_t errlen)
{
	struct fp_evlog_reader r;
	int ret;

	ret = fp_evlog_reader_open(&r, path);
	if (ret)
		snprintf(err, errlen, "footprint: %s", r.err);
	else
		ret = load_from(&r, run, fn, ctx, err, errlen);
	if (ret == 0 || ret == -ENODATA)
		sort_snapshots(run);
	fp_evlog_reader_close(&r);
	return ret;
}
