// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "decode.h"
#include "decode_net.h"
#include "path.h"

static void decode_hdr(const struct fp_hdr *h, struct fp_event *ev)
{
	ev->type = h->type;
	ev->ts_ns = h->ts_ns;
	ev->pid = h->pid;
	ev->tid = h->tid;
	ev->ppid = h->ppid;
	ev->uid = h->uid;
	ev->gid = h->gid;
	ev->cgroup_id = h->cgroup_id;
	memcpy(ev->comm, h->comm, FP_COMM_LEN);
	ev->comm[FP_COMM_LEN] = '\0';
}

/* A run of leaf-first names must end with a NUL to be split safely. */
static bool names_ok(const char *s, size_t len)
{
	return len == 0 || s[len - 1] == '\0';
}

static int decode_path(struct fp_event_path *out, const struct fp_path *in,
		       const char **data, size_t *left)
{
	const char *raw = *data;
	size_t raw_len = in->raw_len, base_len = in->base_len;

	if (raw_len > *left || base_len > *left - raw_len)
		return -EINVAL;
	if (!names_ok(raw + raw_len, base_len))
		return -EINVAL;
	out->dirfd = in->dirfd;
	out->truncated = in->flags & (FP_PATH_RAW_TRUNC | FP_PATH_BASE_TRUNC |
				      FP_PATH_RAW_FAULT);
	out->base_unknown = in->flags & FP_PATH_BASE_UNKNOWN;
	out->from_fd = in->flags & FP_PATH_FROM_FD;
	out->unresolved = in->dirfd == FP_DIRFD_NONE;
	out->secret_id = in->flags & FP_PATH_SECRET_ID;
	*data += raw_len + base_len;
	*left -= raw_len + base_len;
	/* the string includes its NUL, unless it was cut */
	if (raw_len && raw[raw_len - 1] == '\0')
		raw_len--;
	/* without its directory a relative path stays relative */
	if (out->unresolved || (out->base_unknown && !out->from_fd))
		return fp_bytes_dup(&out->path, raw, raw_len);
	return fp_path_join_magic(&out->path, raw, raw_len, raw + in->raw_len,
				  base_len, &out->magic);
}

static bool is_open(uint32_t sys)
{
	return fp_sys_is_open(sys);
}

/* The file an open reached has a usable name (not a pipe, not lost). */
static bool opened_known(const struct fp_event_path *o, uint32_t kflags)
{
	/* and what it reached is a path from the root: a record that says
	 * otherwise is damaged, and its name stays as given */
	if ((kflags & FP_PATH_ANON) || !o->path.len || o->path.data[0] != '/')
		return false;
	/* a walk that found no name at all did not reach a real path */
	return !(kflags & (FP_PATH_BASE_UNKNOWN | FP_PATH_BASE_DETACHED)) ||
	       o->path.len > 1;
}

/*
 * An open reports the file it reached as path[0] and, when that differs,
 * the name it was given as path[1] ("named"). Kept as named: a pipe or
 * socket (nothing on disk changes through it), a file the walk could not
 * name, and a procfs file named under /proc, so that /proc/self/... keeps
 * the name the default noise rules know.
 */
static void settle_open(struct fp_event *ev, uint32_t kflags)
{
	struct fp_event_path *named = &ev->file.path[0],
			     *got = &ev->file.path[1];
	bool keep = !opened_known(got, kflags) ||
		    ((kflags & FP_PATH_PROCFS) && named->path.len >= 6 &&
		     !memcmp(named->path.data, "/proc/", 6)) ||
		    (named->path.len == got->path.len &&
		     !memcmp(named->path.data, got->path.data, got->path.len));
	struct fp_event_path tmp;

	named->anonymous = kflags & FP_PATH_ANON;
	if (keep) {
		named->secret_id |= got->secret_id;
		free(got->path.data);
		memset(got, 0, sizeof(*got));
		ev->file.npaths = 1;
		return;
	}
	got->from_fd = false;
	got->base_unknown = false;
	got->dirfd = -100; /* AT_FDCWD: absolute, relative to nothing */
	named->named = true;
	tmp = *named;
	*named = *got;
	*got = tmp;
}

static int decode_file(const void *rec, size_t size, struct fp_event *ev)
{
	const struct fp_file *f = rec;
	const char *data = f->data;
	size_t left = size - sizeof(*f);
	unsigned int i;
	int err;

	if (size < sizeof(*f) || f->npaths < 1 || f->npaths > 2)
		return -EINVAL;
	ev->file.sys = f->sys;
	ev->file.ret = f->ret;
	ev->file.created = f->created;
	ev->file.count = f->count ? f->count : 1;
	ev->file.flags = f->flags;
	ev->file.mode = f->mode;
	ev->file.resolve = f->resolve;
	ev->file.arg[0] = f->arg[0];
	ev->file.arg[1] = f->arg[1];
	ev->file.npaths = f->npaths;
	for (i = 0; i < f->npaths; i++) {
		err = decode_path(&ev->file.path[i], &f->path[i], &data, &left);
		if (err)
			return err;
	}
	/* chmod("/proc/self/fd/N") and the like: reported as opens are */
	if (f->npaths == 2 &&
	    (is_open(f->sys) ? f->path[1].flags & FP_PATH_OPENED :
			       f->path[1].flags & FP_PATH_FD_LINK))
		settle_open(ev, f->path[1].flags);
	return 0;
}

/* GITHUB_ACTION's value, up to its NUL (it was read as a string) */
static int decode_step_name(const char *s, size_t len, struct fp_event *ev)
{
	len = strnlen(s, len);
	if (!len)
		return 0;
	return fp_bytes_dup(&ev->exec.step_name, s, len);
}

static int decode_exec(const void *rec, size_t size, struct fp_event *ev)
{
	const struct fp_exec *e = rec;
	const char *data = e->data;
	size_t left = size - sizeof(*e);
	size_t flen;
	int err;

	if (size < sizeof(*e) || e->exe_len > left ||
	    e->filename_len > left - e->exe_len ||
	    e->step_len > left - e->exe_len - e->filename_len ||
	    !names_ok(data, e->exe_len))
		return -EINVAL;
	ev->exec.old_pid = e->old_pid;
	ev->exec.exe_truncated = e->exe_flags & FP_PATH_BASE_TRUNC;
	ev->exec.argv_total = e->argv_len;
	ev->exec.argv_dropped = e->argv_len;
	ev->exec.creds = (struct fp_privs){
		.known = true,
		.no_new_privs = e->creds.no_new_privs,
		.secure_exec = e->creds.secureexec,
		.uid = e->creds.uid,
		.euid = e->creds.euid,
		.suid = e->creds.suid,
		.gid = e->creds.gid,
		.egid = e->creds.egid,
		.sgid = e->creds.sgid,
		.cap_eff = e->creds.cap_eff,
		.cap_prm = e->creds.cap_prm,
		.userns_level = e->creds.userns_level,
	};
	ev->exec.exe_inode.known = true;
	ev->exec.exe_inode.uid = e->exe_uid;
	ev->exec.exe_inode.mode = e->exe_mode;
	/* a file on no mount (a memfd): its own name, "memfd:NAME" */
	if ((e->exe_flags & FP_PATH_ANON) && e->exe_len && data[0] &&
	    !memchr(data, '/', strnlen(data, e->exe_len)))
		err = fp_bytes_dup(&ev->exec.exe, data,
				   strnlen(data, e->exe_len));
	else
		err = fp_path_join(&ev->exec.exe, "", 0, data, e->exe_len);
	if (err)
		return err;
	data += e->exe_len;
	flen = e->filename_len;
	if (flen && data[flen - 1] == '\0')
		flen--;
	err = fp_bytes_dup(&ev->exec.filename, data, flen);
	if (err || !e->step_len)
		return err;
	return decode_step_name(data + e->filename_len, e->step_len, ev);
}

/*
 * The kernel's own name of a unix socket bound by a relative name, made
 * absolute. Without it (cut, or above the process's root) the relative
 * name stays, explains no file, and the socket file stays unexplained.
 */
static int bind_abs_path(const struct fp_bind *b, size_t size,
			 struct fp_event *ev)
{
	size_t n = b->path_len;
	struct fp_bytes abs;

	if (!n || n > size - sizeof(*b) || !names_ok(b->data, n) ||
	    (b->path_flags & (FP_PATH_BASE_TRUNC | FP_PATH_BASE_DETACHED)))
		return 0;
	if (fp_path_join(&abs, "", 0, b->data, n))
		return -ENOMEM;
	free(ev->bind.unix_path.data);
	ev->bind.unix_path = abs;
	return 0;
}

static void decode_bind(const struct fp_bind *b, struct fp_event *ev)
{
	size_t len =
		b->addrlen < sizeof(b->addr) ? b->addrlen : sizeof(b->addr);
	uint16_t family = 0;

	ev->bind.ret = b->ret;
	ev->bind.fd = b->fd;
	ev->bind.sock_type = b->sock_type;
	ev->bind.protocol = b->protocol;
	ev->bind.bound_port = b->bound_port;
	if (len >= sizeof(family))
		memcpy(&family, b->addr, sizeof(family));
	ev->bind.family = family;
	if (family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in sin;

		memcpy(&sin, b->addr, sizeof(sin));
		ev->bind.port = ntohs(sin.sin_port);
		inet_ntop(AF_INET, &sin.sin_addr, ev->bind.address,
			  sizeof(ev->bind.address));
	} else if (family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 sin6;

		memcpy(&sin6, b->addr, sizeof(sin6));
		ev->bind.port = ntohs(sin6.sin6_port);
		inet_ntop(AF_INET6, &sin6.sin6_addr, ev->bind.address,
			  sizeof(ev->bind.address));
	} else if (family == AF_UNIX && len > sizeof(family)) {
		const char *p = (const char *)b->addr + sizeof(family);
		size_t n = len - sizeof(family);

		/* a pathname socket's name ends at its NUL; abstract ones don't */
		if (p[0] != '\0')
			n = strnlen(p, n);
		fp_bytes_dup(&ev->bind.unix_path, p, n);
	}
}

static void decode_exit(const struct fp_exit *x, struct fp_event *ev)
{
	ev->exit.start_ns = x->start_ns;
	if ((x->status & 0x7f) == 0) {
		ev->exit.code = (x->status >> 8) & 0xff;
		ev->exit.signal = 0;
	} else {
		ev->exit.code = -1;
		ev->exit.signal = x->status & 0x7f;
		ev->exit.core_dumped = x->status & 0x80;
	}
}

static int decode_tamper(const void *rec, size_t size, struct fp_event *ev)
{
	const struct fp_tamper *t = rec;

	if (size < sizeof(*t) || t->kind < FP_TAMPER_SIGNAL ||
	    t->kind > FP_TAMPER_PTRACE)
		return -EINVAL;
	ev->tamper.kind = t->kind;
	ev->tamper.sig = t->sig;
	ev->tamper.target_pid = t->target_pid;
	ev->tamper.arg = t->arg;
	return 0;
}

static int decode_signal(const void *rec, size_t size, struct fp_event *ev)
{
	const struct fp_signal *x = rec;

	if (size < sizeof(*x) ||
	    (!fp_sys_crossproc(x->sys) && !fp_sys_is_signal(x->sys)))
		return -EINVAL;
	ev->signal.sys = x->sys;
	ev->signal.sig = x->sig;
	ev->signal.ret = x->ret;
	ev->signal.target = x->target;
	ev->signal.target_tgid = x->target_tgid;
	ev->signal.request = x->request;
	return 0;
}

/* One of the up to two NUL-terminated names of a procop, or empty. */
static int procop_name(const char **p, size_t *left, struct fp_bytes *out)
{
	size_t n;

	if (!*left)
		return fp_bytes_dup(out, "", 0);
	n = strnlen(*p, *left);
	if (fp_bytes_dup(out, *p, n))
		return -ENOMEM;
	n = n < *left ? n + 1 : n;
	*p += n;
	*left -= n;
	return 0;
}

static int decode_procop(const void *rec, size_t size, struct fp_event *ev)
{
	const struct fp_procop *x = rec;
	size_t fixed = sizeof(*x) - sizeof(x->data), left;
	const char *p = x->data;

	if (size < fixed || x->names_len > size - fixed ||
	    x->names_len > sizeof(x->data) || !fp_sys_is_procop(x->sys))
		return -EINVAL;
	ev->procop.sys = x->sys;
	ev->procop.ret = x->ret;
	ev->procop.flags = x->flags;
	ev->procop.arg = x->arg;
	left = x->names_len;
	if (procop_name(&p, &left, &ev->procop.target) ||
	    procop_name(&p, &left, &ev->procop.source))
		return -ENOMEM;
	return 0;
}

static int decode_uring(const void *rec, size_t size, struct fp_event *ev)
{
	const struct fp_uring *u = rec;

	if (size < sizeof(*u) || u->kind < FP_URING_UNSUPPORTED ||
	    u->kind > FP_URING_UNTRACEABLE)
		return -EINVAL;
	ev->uring.kind = u->kind;
	ev->uring.opcode = u->opcode;
	ev->uring.arg = u->arg;
	return 0;
}

int fp_decode(const void *rec, size_t size, struct fp_event *ev)
{
	const struct fp_hdr *h = rec;
	int err = 0;

	memset(ev, 0, sizeof(*ev));
	if (size < sizeof(*h) || h->size > size)
		return -EINVAL;
	size = h->size;
	decode_hdr(h, ev);
	switch (h->type) {
	case FP_EV_EXEC:
		err = decode_exec(rec, size, ev);
		break;
	case FP_EV_FORK:
		if (size < sizeof(struct fp_fork))
			return -EINVAL;
		ev->fork.parent_tid = ((const struct fp_fork *)rec)->parent_tid;
		break;
	case FP_EV_EXIT:
		if (size < sizeof(struct fp_exit))
			return -EINVAL;
		decode_exit(rec, ev);
		break;
	case FP_EV_FILE:
		err = decode_file(rec, size, ev);
		break;
	case FP_EV_BIND:
		if (size < sizeof(struct fp_bind))
			return -EINVAL;
		decode_bind(rec, ev);
		err = bind_abs_path(rec, size, ev);
		break;
	case FP_EV_TAMPER:
		err = decode_tamper(rec, size, ev);
		break;
	case FP_EV_NET:
	case FP_EV_NET_COUNT:
		err = fp_decode_net(rec, size, ev);
		break;
	case FP_EV_DNS:
		err = fp_decode_dns(rec, size, ev);
		break;
	case FP_EV_SIGNAL:
		err = decode_signal(rec, size, ev);
		break;
	case FP_EV_PROCOP:
		err = decode_procop(rec, size, ev);
		break;
	case FP_EV_URING:
		err = decode_uring(rec, size, ev);
		break;
	default:
		return -ENOTSUP;
	}
	if (err)
		fp_event_free(ev);
	return err;
}

int fp_decode_argv(const void *rec, size_t size, const struct fp_argv **arg)
{
	const struct fp_argv *a = rec;

	if (size < sizeof(*a) || a->hdr.size > size ||
	    a->hdr.size < sizeof(*a) || a->len > a->hdr.size - sizeof(*a))
		return -EINVAL;
	*arg = a;
	return 0;
}
