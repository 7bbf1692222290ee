// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logcodec.h"
#include "netcodec.h"

static bool reserve(struct fp_enc *e, size_t n)
{
	if (e->err)
		return false;
	if (e->len + n > e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 256;
		unsigned char *p;

		while (cap < e->len + n)
			cap *= 2;
		p = realloc(e->p, cap);
		if (!p) {
			e->err = -ENOMEM;
			return false;
		}
		e->p = p;
		e->cap = cap;
	}
	return true;
}

void fp_enc_reset(struct fp_enc *e)
{
	e->len = 0;
	e->err = 0;
}

void fp_enc_free(struct fp_enc *e)
{
	free(e->p);
	memset(e, 0, sizeof(*e));
}

void fp_enc_u64(struct fp_enc *e, uint64_t v)
{
	if (!reserve(e, 10))
		return;
	while (v >= 0x80) {
		e->p[e->len++] = (v & 0x7f) | 0x80;
		v >>= 7;
	}
	e->p[e->len++] = v;
}

void fp_enc_i64(struct fp_enc *e, int64_t v)
{
	fp_enc_u64(e, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void fp_enc_bytes(struct fp_enc *e, const void *s, size_t len)
{
	fp_enc_u64(e, len);
	if (!len || !reserve(e, len))
		return;
	memcpy(e->p + e->len, s, len);
	e->len += len;
}

void fp_enc_str(struct fp_enc *e, const char *s)
{
	fp_enc_bytes(e, s ? s : "", s ? strlen(s) : 0);
}

uint64_t fp_dec_u64_long(struct fp_dec *d)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (!d->err && d->pos < d->len && shift < 64) {
		unsigned char c = d->p[d->pos++];

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
		shift += 7;
	}
	d->err = -EBADMSG;
	return 0;
}

int64_t fp_dec_i64(struct fp_dec *d)
{
	uint64_t v = fp_dec_u64(d);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

void fp_dec_bytes(struct fp_dec *d, struct fp_bytes *out)
{
	uint64_t n = fp_dec_u64(d);

	out->data = NULL;
	out->len = 0;
	if (d->err || n > d->len - d->pos) {
		d->err = -EBADMSG;
		n = 0;
	}
	if (fp_bytes_dup(out, (const char *)d->p + d->pos, n)) {
		d->err = -ENOMEM;
		return;
	}
	d->pos += n;
}

char *fp_dec_str(struct fp_dec *d)
{
	struct fp_bytes b;

	fp_dec_bytes(d, &b);
	/* a NUL inside would cut the string: not something we wrote */
	if (b.data && memchr(b.data, '\0', b.len))
		d->err = -EBADMSG;
	return b.data;
}

static void enc_path(struct fp_enc *e, const struct fp_event_path *p)
{
	fp_enc_bytes(e, p->path.data, p->path.len);
	fp_enc_i64(e, p->dirfd);
	fp_enc_u64(e, p->truncated | p->base_unknown << 1 | p->from_fd << 2 |
			      p->unresolved << 3 | p->magic << 4 |
			      p->anonymous << 5 | p->named << 6 |
			      p->secret_id << 7);
}

static void dec_path(struct fp_dec *d, struct fp_event_path *p)
{
	uint64_t f;

	fp_dec_bytes(d, &p->path);
	p->dirfd = fp_dec_i64(d);
	f = fp_dec_u64(d);
	p->truncated = f & 1;
	p->base_unknown = f & 2;
	p->from_fd = f & 4;
	p->unresolved = f & 8;
	p->magic = f & 16;
	p->anonymous = f & 32;
	p->named = f & 64;
	p->secret_id = f & 128;
}

/* Version 3: appended to an exec, so that older logs read the same way. */
static void enc_step_name(struct fp_enc *e, const struct fp_event *ev)
{
	fp_enc_bytes(e, ev->exec.step_name.data, ev->exec.step_name.len);
}

static void dec_step_name(struct fp_dec *d, struct fp_event *ev)
{
	if (d->pos < d->len && !d->err)
		fp_dec_bytes(d, &ev->exec.step_name);
	if (!d->err && !ev->exec.step_name.len) {
		free(ev->exec.step_name.data);
		ev->exec.step_name.data = NULL;
	}
}

/*
 * Version 5: after the step name, a flag (0: unknown, 1: known), then
 * uid, euid, suid, gid, egid, sgid, cap_eff, cap_prm, bits (1 no new
 * privs, 2 secure exec) and the user namespace's level. An older exec has
 * no bytes left: unknown.
 */
static void enc_creds(struct fp_enc *e, const struct fp_privs *c)
{
	fp_enc_u64(e, c->known);
	if (!c->known)
		return;
	fp_enc_u64(e, c->uid);
	fp_enc_u64(e, c->euid);
	fp_enc_u64(e, c->suid);
	fp_enc_u64(e, c->gid);
	fp_enc_u64(e, c->egid);
	fp_enc_u64(e, c->sgid);
	fp_enc_u64(e, c->cap_eff);
	fp_enc_u64(e, c->cap_prm);
	fp_enc_u64(e, c->no_new_privs | c->secure_exec << 1);
	fp_enc_u64(e, c->userns_level);
}

static void dec_creds(struct fp_dec *d, struct fp_privs *c)
{
	uint64_t known, bits;

	if (d->pos >= d->len || d->err)
		return;
	known = fp_dec_u64(d);
	if (known > 1) {
		d->err = -EBADMSG;
		return;
	}
	if (!known)
		return;
	c->uid = fp_dec_u64(d);
	c->euid = fp_dec_u64(d);
	c->suid = fp_dec_u64(d);
	c->gid = fp_dec_u64(d);
	c->egid = fp_dec_u64(d);
	c->sgid = fp_dec_u64(d);
	c->cap_eff = fp_dec_u64(d);
	c->cap_prm = fp_dec_u64(d);
	bits = fp_dec_u64(d);
	c->no_new_privs = bits & 1;
	c->secure_exec = bits & 2;
	c->userns_level = fp_dec_u64(d);
	if (bits > 3)
		d->err = -EBADMSG;
	c->known = !d->err;
}

/*
 * After the credentials, appended as they were: a flag (0: unknown,
 * 1: known), then the executable's owner and mode. An older exec has no
 * bytes left: unknown, and no program is trusted by its file.
 */
static void enc_exe_inode(struct fp_enc *e, const struct fp_event *ev)
{
	fp_enc_u64(e, ev->exec.exe_inode.known);
	if (!ev->exec.exe_inode.known)
		return;
	fp_enc_u64(e, ev->exec.exe_inode.uid);
	fp_enc_u64(e, ev->exec.exe_inode.mode);
}

static void dec_exe_inode(struct fp_dec *d, struct fp_event *ev)
{
	uint64_t known, uid, mode;

	if (d->pos >= d->len || d->err)
		return;
	known = fp_dec_u64(d);
	if (known > 1) {
		d->err = -EBADMSG;
		return;
	}
	if (!known)
		return;
	uid = fp_dec_u64(d);
	mode = fp_dec_u64(d);
	if (uid > UINT32_MAX || mode > 0xffff)
		d->err = -EBADMSG;
	ev->exec.exe_inode.uid = uid;
	ev->exec.exe_inode.mode = mode;
	ev->exec.exe_inode.known = !d->err;
}

static void enc_tamper(struct fp_enc *e, const struct fp_event *ev)
{
	fp_enc_u64(e, ev->tamper.kind);
	fp_enc_i64(e, ev->tamper.sig);
	fp_enc_u64(e, ev->tamper.target_pid);
	fp_enc_i64(e, ev->tamper.arg);
}

static void dec_tamper(struct fp_dec *d, struct fp_event *ev)
{
	ev->tamper.kind = fp_dec_u64(d);
	ev->tamper.sig = fp_dec_i64(d);
	ev->tamper.target_pid = fp_dec_u64(d);
	ev->tamper.arg = fp_dec_i64(d);
	if (ev->tamper.kind < FP_TAMPER_SIGNAL ||
	    ev->tamper.kind > FP_TAMPER_REPLACED)
		d->err = -EBADMSG;
}

static void enc_control(struct fp_enc *e, const struct fp_event *ev)
{
	uint32_t i;

	fp_enc_u64(e, ev->control.op);
	fp_enc_u64(e, ev->control.result);
	fp_enc_u64(e, ev->control.start_ticks);
	fp_enc_u64(e, ev->control.step_pid);
	fp_enc_u64(e, ev->control.nown);
	for (i = 0; i < ev->control.nown && i < FP_CTL_MAX_OWN; i++)
		fp_enc_u64(e, ev->control.own[i]);
	fp_enc_bytes(e, ev->control.name.data, ev->control.name.len);
}

static void dec_control(struct fp_dec *d, struct fp_event *ev)
{
	uint32_t i;

	ev->control.op = fp_dec_u64(d);
	ev->control.result = fp_dec_u64(d);
	ev->control.start_ticks = fp_dec_u64(d);
	ev->control.step_pid = fp_dec_u64(d);
	ev->control.nown = fp_dec_u64(d);
	if (ev->control.op < FP_CTL_START || ev->control.op > FP_CTL_STOP ||
	    ev->control.result > FP_CTL_FOREIGN ||
	    ev->control.nown > FP_CTL_MAX_OWN) {
		ev->control.nown = 0;
		d->err = -EBADMSG;
		return;
	}
	for (i = 0; i < ev->control.nown; i++)
		ev->control.own[i] = fp_dec_u64(d);
	fp_dec_bytes(d, &ev->control.name);
}

static void enc_signal(struct fp_enc *e, const struct fp_event *ev)
{
	fp_enc_u64(e, ev->signal.sys);
	fp_enc_i64(e, ev->signal.sig);
	fp_enc_i64(e, ev->signal.ret);
	fp_enc_i64(e, ev->signal.target);
	fp_enc_u64(e, ev->signal.target_tgid);
	fp_enc_i64(e, ev->signal.request);
}

static void dec_signal(struct fp_dec *d, struct fp_event *ev)
{
	ev->signal.sys = fp_dec_u64(d);
	ev->signal.sig = fp_dec_i64(d);
	ev->signal.ret = fp_dec_i64(d);
	ev->signal.target = fp_dec_i64(d);
	ev->signal.target_tgid = fp_dec_u64(d);
	ev->signal.request = fp_dec_i64(d);
	if (!fp_sys_crossproc(ev->signal.sys) &&
	    !fp_sys_is_signal(ev->signal.sys))
		d->err = -EBADMSG;
}

static void enc_procop(struct fp_enc *e, const struct fp_event *ev)
{
	fp_enc_u64(e, ev->procop.sys);
	fp_enc_i64(e, ev->procop.ret);
	fp_enc_u64(e, ev->procop.flags);
	fp_enc_i64(e, ev->procop.arg);
	fp_enc_bytes(e, ev->procop.target.data, ev->procop.target.len);
	fp_enc_bytes(e, ev->procop.source.data, ev->procop.source.len);
}

static void dec_procop(struct fp_dec *d, struct fp_event *ev)
{
	ev->procop.sys = fp_dec_u64(d);
	ev->procop.ret = fp_dec_i64(d);
	ev->procop.flags = fp_dec_u64(d);
	ev->procop.arg = fp_dec_i64(d);
	fp_dec_bytes(d, &ev->procop.target);
	fp_dec_bytes(d, &ev->procop.source);
	if (!fp_sys_is_procop(ev->procop.sys))
		d->err = -EBADMSG;
}

void fp_enc_event(struct fp_enc *e, const struct fp_event *ev,
		  uint64_t *prev_ts)
{
	unsigned int i;

	/* an event that came through io_uring has its FP_VIA_* above the
	 * type's byte, so that the events of other logs encode as ever */
	fp_enc_u64(e, ev->type | (uint64_t)ev->via << 8);
	fp_enc_i64(e, (int64_t)(ev->ts_ns - *prev_ts));
	*prev_ts = ev->ts_ns;
	fp_enc_u64(e, ev->pid);
	fp_enc_i64(e, (int64_t)ev->tid - ev->pid);
	fp_enc_u64(e, ev->ppid);
	fp_enc_u64(e, ev->uid);
	fp_enc_u64(e, ev->gid);
	fp_enc_u64(e, ev->cgroup_id);
	fp_enc_str(e, ev->comm);
	switch (ev->type) {
	case FP_EV_EXEC:
		fp_enc_bytes(e, ev->exec.exe.data, ev->exec.exe.len);
		fp_enc_u64(e, ev->exec.exe_truncated);
		fp_enc_bytes(e, ev->exec.filename.data, ev->exec.filename.len);
		fp_enc_bytes(e, ev->exec.argv.data, ev->exec.argv.len);
		fp_enc_u64(e, ev->exec.argv_total);
		fp_enc_u64(e, ev->exec.argv_dropped);
		fp_enc_u64(e, ev->exec.old_pid);
		enc_step_name(e, ev);
		enc_creds(e, &ev->exec.creds);
		enc_exe_inode(e, ev);
		break;
	case FP_EV_FORK:
		fp_enc_u64(e, ev->fork.parent_tid);
		break;
	case FP_EV_EXIT:
		fp_enc_i64(e, ev->exit.code);
		fp_enc_u64(e, ev->exit.signal);
		fp_enc_u64(e, ev->exit.core_dumped);
		fp_enc_u64(e, ev->exit.start_ns);
		break;
	case FP_EV_FILE:
		fp_enc_u64(e, ev->file.sys);
		fp_enc_i64(e, ev->file.ret);
		fp_enc_u64(e, ev->file.created);
		fp_enc_u64(e, ev->file.flags);
		fp_enc_u64(e, ev->file.mode);
		fp_enc_u64(e, ev->file.resolve);
		fp_enc_u64(e, ev->file.arg[0]);
		fp_enc_u64(e, ev->file.arg[1]);
		fp_enc_u64(e, ev->file.npaths);
		for (i = 0; i < ev->file.npaths && i < 2; i++)
			enc_path(e, &ev->file.path[i]);
		/* only when collapsed: older logs end here (count 1) */
		if (ev->file.count > 1)
			fp_enc_u64(e, ev->file.count);
		break;
	case FP_EV_BIND:
		fp_enc_i64(e, ev->bind.ret);
		fp_enc_i64(e, ev->bind.fd);
		fp_enc_u64(e, ev->bind.family);
		fp_enc_str(e, ev->bind.address);
		fp_enc_bytes(e, ev->bind.unix_path.data,
			     ev->bind.unix_path.len);
		fp_enc_u64(e, ev->bind.port);
		fp_enc_u64(e, ev->bind.bound_port);
		fp_enc_u64(e, ev->bind.sock_type);
		fp_enc_u64(e, ev->bind.protocol);
		break;
	case FP_EV_TAMPER:
		enc_tamper(e, ev);
		break;
	case FP_EV_MARK:
		fp_enc_bytes(e, ev->mark.name.data, ev->mark.name.len);
		break;
	case FP_EV_NET:
	case FP_EV_NET_COUNT:
	case FP_EV_DNS:
		fp_enc_net_event(e, ev);
		break;
	case FP_EV_SIGNAL:
		enc_signal(e, ev);
		break;
	case FP_EV_PROCOP:
		enc_procop(e, ev);
		break;
	case FP_EV_URING:
		fp_enc_u64(e, ev->uring.kind);
		fp_enc_u64(e, ev->uring.opcode);
		fp_enc_i64(e, ev->uring.arg);
		break;
	case FP_EV_CONTROL:
		enc_control(e, ev);
		break;
	}
}

/* A comm as fp_dec_bytes() reads it, with no copy made on the way */
static void dec_comm(struct fp_dec *d, char *comm)
{
	uint64_t n = fp_dec_u64(d);

	if (d->err || n > d->len - d->pos) {
		d->err = -EBADMSG;
		return;
	}
	memcpy(comm, d->p + d->pos, n < FP_COMM_LEN ? n : FP_COMM_LEN);
	d->pos += n;
}

/* Only a file, bind or network event can come through io_uring. */
static bool via_ok(const struct fp_event *ev)
{
	if (!ev->via)
		return true;
	if (ev->via & ~(FP_VIA_URING | FP_VIA_UNSEEN) ||
	    !(ev->via & FP_VIA_URING))
		return false;
	return ev->type == FP_EV_FILE || ev->type == FP_EV_BIND ||
	       ev->type == FP_EV_NET;
}

static void dec_exec(struct fp_dec *d, struct fp_event *ev)
{
	fp_dec_bytes(d, &ev->exec.exe);
	ev->exec.exe_truncated = fp_dec_u64(d);
	fp_dec_bytes(d, &ev->exec.filename);
	fp_dec_bytes(d, &ev->exec.argv);
	ev->exec.argv_total = fp_dec_u64(d);
	ev->exec.argv_dropped = fp_dec_u64(d);
	ev->exec.old_pid = fp_dec_u64(d);
	dec_step_name(d, ev);
	dec_creds(d, &ev->exec.creds);
	dec_exe_inode(d, ev);
}

static void dec_exit(struct fp_dec *d, struct fp_event *ev)
{
	ev->exit.code = fp_dec_i64(d);
	ev->exit.signal = fp_dec_u64(d);
	ev->exit.core_dumped = fp_dec_u64(d);
	ev->exit.start_ns = fp_dec_u64(d);
}

static void dec_file(struct fp_dec *d, struct fp_event *ev)
{
	unsigned int i;

	ev->file.sys = fp_dec_u64(d);
	ev->file.ret = fp_dec_i64(d);
	ev->file.created = fp_dec_u64(d);
	ev->file.flags = fp_dec_u64(d);
	ev->file.mode = fp_dec_u64(d);
	ev->file.resolve = fp_dec_u64(d);
	ev->file.arg[0] = fp_dec_u64(d);
	ev->file.arg[1] = fp_dec_u64(d);
	ev->file.npaths = fp_dec_u64(d);
	if (ev->file.npaths < 1 || ev->file.npaths > 2) {
		ev->file.npaths = 0;
		d->err = -EBADMSG;
	}
	for (i = 0; i < ev->file.npaths && !d->err; i++)
		dec_path(d, &ev->file.path[i]);
	ev->file.count = 1;
	if (d->pos < d->len && !d->err) {
		uint64_t n = fp_dec_u64(d);

		if (n < 2 || n > UINT32_MAX)
			d->err = -EBADMSG;
		ev->file.count = n;
	}
}

static void dec_bind(struct fp_dec *d, struct fp_event *ev)
{
	char *addr;

	ev->bind.ret = fp_dec_i64(d);
	ev->bind.fd = fp_dec_i64(d);
	ev->bind.family = fp_dec_u64(d);
	addr = fp_dec_str(d);
	if (addr)
		snprintf(ev->bind.address, sizeof(ev->bind.address), "%s",
			 addr);
	free(addr);
	fp_dec_bytes(d, &ev->bind.unix_path);
	ev->bind.port = fp_dec_u64(d);
	ev->bind.bound_port = fp_dec_u64(d);
	ev->bind.sock_type = fp_dec_u64(d);
	ev->bind.protocol = fp_dec_u64(d);
}

static void dec_uring(struct fp_dec *d, struct fp_event *ev)
{
	ev->uring.kind = fp_dec_u64(d);
	ev->uring.opcode = fp_dec_u64(d);
	ev->uring.arg = fp_dec_i64(d);
	if (ev->uring.kind < FP_URING_UNSUPPORTED ||
	    ev->uring.kind > FP_URING_UNTRACEABLE || ev->uring.opcode > 255)
		d->err = -EBADMSG;
}

/* a type a log may hold: not an argv piece, which the collector joins */
static bool type_ok(uint32_t type)
{
	return ((type >= FP_EV_EXEC && type <= FP_EV_DNS &&
		 type != FP_EV_ARGV) ||
		type == FP_EV_SIGNAL || type == FP_EV_URING ||
		type == FP_EV_PROCOP || type == FP_EV_CONTROL);
}

/* the header every event has, after its type */
static void dec_header(struct fp_dec *d, struct fp_event *ev, uint64_t *prev_ts)
{
	ev->ts_ns = *prev_ts + fp_dec_i64(d);
	*prev_ts = ev->ts_ns;
	ev->pid = fp_dec_u64(d);
	ev->tid = ev->pid + fp_dec_i64(d);
	ev->ppid = fp_dec_u64(d);
	ev->uid = fp_dec_u64(d);
	ev->gid = fp_dec_u64(d);
	ev->cgroup_id = fp_dec_u64(d);
	dec_comm(d, ev->comm);
}

int fp_dec_event(struct fp_dec *d, struct fp_event *ev, uint64_t *prev_ts)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = fp_dec_u64(d);
	ev->via = ev->type >> 8;
	ev->type &= 0xff;
	if (!type_ok(ev->type) || !via_ok(ev)) {
		d->err = -EBADMSG;
		ev->type = 0;
		return d->err;
	}
	dec_header(d, ev, prev_ts);
	switch (ev->type) {
	case FP_EV_EXEC:
		dec_exec(d, ev);
		break;
	case FP_EV_FORK:
		ev->fork.parent_tid = fp_dec_u64(d);
		break;
	case FP_EV_EXIT:
		dec_exit(d, ev);
		break;
	case FP_EV_FILE:
		dec_file(d, ev);
		break;
	case FP_EV_BIND:
		dec_bind(d, ev);
		break;
	case FP_EV_TAMPER:
		dec_tamper(d, ev);
		break;
	case FP_EV_MARK:
		fp_dec_bytes(d, &ev->mark.name);
		break;
	case FP_EV_NET:
	case FP_EV_NET_COUNT:
	case FP_EV_DNS:
		fp_dec_net_event(d, ev);
		break;
	case FP_EV_SIGNAL:
		dec_signal(d, ev);
		break;
	case FP_EV_PROCOP:
		dec_procop(d, ev);
		break;
	case FP_EV_URING:
		dec_uring(d, ev);
		break;
	case FP_EV_CONTROL:
		dec_control(d, ev);
		break;
	}
	if (d->err)
		fp_event_free(ev);
	return d->err;
}

void fp_enc_fentry(struct fp_enc *e, unsigned int phase,
		   const struct fp_fentry *f)
{
	fp_enc_u64(e, phase);
	fp_enc_bytes(e, f->path.data, f->path.len);
	fp_enc_u64(e, (unsigned char)f->type);
	fp_enc_u64(e, f->mode);
	fp_enc_u64(e, f->uid);
	fp_enc_u64(e, f->gid);
	fp_enc_u64(e, f->size);
	fp_enc_i64(e, f->mtime_ns);
	fp_enc_i64(e, f->ctime_ns);
	fp_enc_u64(e, f->dev);
	fp_enc_u64(e, f->ino);
	fp_enc_bytes(e, f->target.data, f->target.len);
	fp_enc_u64(e, f->hashed | f->reused << 1 | f->unstable << 2 |
			      f->mount << 3);
	if (f->hashed)
		fp_enc_bytes(e, f->sha256, sizeof(f->sha256));
	fp_enc_u64(e, f->err);
}

int fp_dec_fentry(struct fp_dec *d, unsigned int *phase, struct fp_fentry *f)
{
	uint64_t flags;

	memset(f, 0, sizeof(*f));
	*phase = fp_dec_u64(d);
	fp_dec_bytes(d, &f->path);
	f->type = fp_dec_u64(d);
	f->mode = fp_dec_u64(d);
	f->uid = fp_dec_u64(d);
	f->gid = fp_dec_u64(d);
	f->size = fp_dec_u64(d);
	f->mtime_ns = fp_dec_i64(d);
	f->ctime_ns = fp_dec_i64(d);
	f->dev = fp_dec_u64(d);
	f->ino = fp_dec_u64(d);
	fp_dec_bytes(d, &f->target);
	flags = fp_dec_u64(d);
	f->hashed = flags & 1;
	f->reused = flags & 2;
	f->unstable = flags & 4;
	f->mount = flags & 8;
	if (f->hashed) {
		struct fp_bytes h;

		fp_dec_bytes(d, &h);
		if (h.len != sizeof(f->sha256))
			d->err = -EBADMSG;
		else
			memcpy(f->sha256, h.data, sizeof(f->sha256));
		free(h.data);
	}
	f->err = fp_dec_u64(d);
	if (*phase > 1 || !f->path.len || f->path.data[0] != '/')
		d->err = -EBADMSG;
	if (d->err) {
		free(f->path.data);
		free(f->target.data);
		memset(f, 0, sizeof(*f));
	}
	return d->err;
}

void fp_enc_proc(struct fp_enc *e, unsigned int phase, const struct fp_proc *p)
{
	fp_enc_u64(e, phase);
	fp_enc_u64(e, p->pid);
	fp_enc_u64(e, p->ppid);
	fp_enc_u64(e, p->start_ticks);
	fp_enc_u64(e, p->uid);
	fp_enc_bytes(e, p->exe.data, p->exe.len);
	fp_enc_bytes(e, p->cwd.data, p->cwd.len);
	fp_enc_bytes(e, p->argv.data, p->argv.len);
	fp_enc_bytes(e, p->cgroup.data, p->cgroup.len);
	fp_enc_str(e, p->comm);
	fp_enc_u64(e, p->cap_eff);
	fp_enc_i64(e, p->no_new_privs);
	fp_enc_u64(e, p->kernel_thread);
}

int fp_dec_proc(struct fp_dec *d, unsigned int *phase, struct fp_proc *p)
{
	char *comm;

	memset(p, 0, sizeof(*p));
	*phase = fp_dec_u64(d);
	p->pid = fp_dec_u64(d);
	p->ppid = fp_dec_u64(d);
	p->start_ticks = fp_dec_u64(d);
	p->uid = fp_dec_u64(d);
	fp_dec_bytes(d, &p->exe);
	fp_dec_bytes(d, &p->cwd);
	fp_dec_bytes(d, &p->argv);
	fp_dec_bytes(d, &p->cgroup);
	comm = fp_dec_str(d);
	if (comm)
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
	free(comm);
	p->cap_eff = fp_dec_u64(d);
	p->no_new_privs = fp_dec_i64(d);
	p->kernel_thread = fp_dec_u64(d);
	if (*phase > 1)
		d->err = -EBADMSG;
	if (d->err) {
		free(p->exe.data);
		free(p->cwd.data);
		free(p->argv.data);
		free(p->cgroup.data);
		memset(p, 0, sizeof(*p));
	}
	return d->err;
}

void fp_enc_sock(struct fp_enc *e, unsigned int phase, const struct fp_sock *s)
{
	fp_enc_u64(e, phase);
	fp_enc_u64(e, s->family);
	fp_enc_u64(e, s->protocol);
	fp_enc_str(e, s->address);
	fp_enc_u64(e, s->port);
	fp_enc_u64(e, s->inode);
	fp_enc_i64(e, s->pid);
}

int fp_dec_sock(struct fp_dec *d, unsigned int *phase, struct fp_sock *s)
{
	char *addr;

	memset(s, 0, sizeof(*s));
	*phase = fp_dec_u64(d);
	s->family = fp_dec_u64(d);
	s->protocol = fp_dec_u64(d);
	addr = fp_dec_str(d);
	if (addr)
		snprintf(s->address, sizeof(s->address), "%s", addr);
	free(addr);
	s->port = fp_dec_u64(d);
	s->inode = fp_dec_u64(d);
	s->pid = fp_dec_i64(d);
	if (*phase > 1)
		d->err = -EBADMSG;
	return d->err;
}
