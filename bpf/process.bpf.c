// SPDX-License-Identifier: GPL-2.0
/*
 * Processes: exec (with its argv and, under a CI runner, the step name),
 * fork and exit of the traced tasks, the upkeep of the traced process
 * trees at fork and exit, and tamper evidence: signals to the tracer here,
 * bpf() and ptrace() through fp_tamper_enter(), which the syscall programs
 * of file.bpf.c call at the syscall's exit.
 */
#include "common.bpf.h"
#include "path.bpf.h"
#include "scope.bpf.h"

#define SIGNAL_GROUP_EXIT 0x00000004
#define PTRACE_TRACEME 0

__u32 step_parent; /* tgid whose children's execs carry a step name */

static __always_inline void emit_tamper(__u32 kind, __s32 sig, __u32 target,
					__s64 arg)
{
	struct fp_tamper e = {};

	fill_hdr(&e.hdr, FP_EV_TAMPER);
	e.hdr.size = sizeof(e);
	e.kind = kind;
	e.sig = sig;
	e.target_pid = target;
	e.arg = arg;
	emit(&e, sizeof(e));
}

/*
 * Kernel functions of 6.2 and later. Weak, so that an older kernel still
 * loads the object: libbpf leaves them unresolved there, and the verifier
 * drops their calls as dead code behind the version test below (a
 * constant of the read-only .kconfig map). libbpf 1.1 has no
 * bpf_ksym_exists(), and taking a kfunc's address needs kernel 6.4.
 */
extern struct task_struct *bpf_task_from_pid(s32 pid) __weak __ksym;
extern void bpf_task_release(struct task_struct *p) __weak __ksym;
extern int LINUX_KERNEL_VERSION __kconfig;

#include "signal.bpf.h"

/*
 * pidfd_getfd, process_vm_readv or process_vm_writev aimed at one of the
 * tracer's processes: what ptrace of them is (FP_TAMPER_PTRACE), with the
 * call in arg as -(enum fp_sys).
 */
__noinline int fp_crossproc_tamper(__u32 sys, __u64 a0)
{
	struct task_struct *t;
	__u32 target;

	if (!nself || !traced())
		return 0;
	t = sys == FP_SYS_PIDFD_GETFD ? task_of_pidfd((int)a0) :
					task_of((__s32)a0);
	if (!t)
		return 0;
	target = BPF_CORE_READ(t, tgid);
	bpf_task_release(t);
	if (is_self(target))
		emit_tamper(FP_TAMPER_PTRACE, 0, target, -(__s64)sys);
	return 0;
}

/* Up to FP_PROCOP_NAME bytes of a name the caller passed, at *pos. */
static __always_inline void procop_name(struct fp_procop *e, __u32 *pos,
					__u64 uptr)
{
	long n;

	__u32 off = *pos;

	if (!uptr || off > FP_PROCOP_NAME)
		return;
	n = bpf_probe_read_user_str(e->data + off, FP_PROCOP_NAME,
				    (void *)uptr);
	if (n > 0)
		*pos += n;
}

/*
 * A mount, unmount, or a namespace made or joined (file.bpf.c chose
 * which): the names as given, read at exit (they only say where; what
 * is judged is that the call was made).
 */
__noinline int fp_procop_exit(long ret, __u32 sys, __u64 u0, __u64 u1,
			      __u64 flags)
{
	struct scratch *s = scratch_get();
	struct fp_procop *e;
	__u32 pos = 0;

	if (!s)
		return 0;
	e = (struct fp_procop *)s->buf;
	fill_hdr(&e->hdr, FP_EV_PROCOP);
	e->ret = ret;
	e->sys = sys;
	e->flags = flags;
	e->arg = 0;
	if (sys == FP_SYS_SETNS) {
		e->arg = (__s64)u0;
		u0 = 0;
	}
	procop_name(e, &pos, u0);
	if (u1 && !pos) /* an empty first name: keep the second's place */
		e->data[pos++] = 0;
	procop_name(e, &pos, u1);
	e->names_len = pos;
	e->hdr.size = sizeof(*e) - sizeof(e->data) + pos;
	emit(e, (sizeof(*e) - sizeof(e->data) + pos) & 1023);
	return 0;
}

/*
 * The process a ptrace request names: it may name any of its threads.
 * Before 6.2 there is no way to look a task up by pid here, so the pid is
 * taken for a tgid, and a request aimed at another thread is missed.
 */
static __always_inline __u32 tgid_of(__s32 pid)
{
	struct task_struct *t;
	__u32 tgid;

	if (pid <= 0)
		return 0;
	if (LINUX_KERNEL_VERSION < KERNEL_VERSION(6, 2, 0))
		return pid;
	t = bpf_task_from_pid(pid);
	if (!t)
		return 0;
	tgid = t->tgid;
	bpf_task_release(t);
	return tgid;
}

/*
 * A traced process reaching for the tracer: bpf() of any kind (it can
 * detach or overwrite footprint's programs and maps), and ptrace of the
 * tracer's processes. Reported at entry, so a call that detaches the
 * programs is still seen, and only while the tracer has named itself.
 * A global function: only these two rare syscalls pay for the call.
 */
__noinline int fp_tamper_enter(__u32 sys, __u64 a0, __u64 a1)
{
	__u32 target;

	if (!nself || !traced())
		return 0;
	if (sys == FP_SYS_BPF) {
		emit_tamper(FP_TAMPER_BPF, 0, 0, (__s64)a0);
		return 0;
	}
	if (a0 == PTRACE_TRACEME)
		return 0;
	target = tgid_of((__s32)a1);
	if (target && is_self(target))
		emit_tamper(FP_TAMPER_PTRACE, 0, target, (__s64)a0);
	return 0;
}

struct argv_ctx {
	__u64 start;
	__u32 total;
	__u32 hdr_pid;
};

static long argv_step(__u32 i, struct argv_ctx *c)
{
	char *buf = scratch_buf();
	struct fp_argv *e = (struct fp_argv *)buf;
	__u32 off = i * FP_ARGV_CHUNK;
	__u32 len;

	if (!buf || off >= c->total)
		return 1;
	len = c->total - off;
	if (len > FP_ARGV_CHUNK)
		len = FP_ARGV_CHUNK;
	barrier_var(len);
	len &= 2 * FP_ARGV_CHUNK - 1;
	fill_hdr(&e->hdr, FP_EV_ARGV);
	e->seq = i;
	e->offset = off;
	e->len = len;
	e->_pad = 0;
	if (bpf_probe_read_user(e->data, len, (void *)(c->start + off)))
		e->len = 0;
	e->hdr.size = sizeof(*e) + e->len;
	emit(e, sizeof(*e) + (e->len & (FP_ARGV_CHUNK * 2 - 1)));
	return 0;
}

/* compared with bpf_strncmp(), which wants a read-only map value */
const char github_action[] = "GITHUB_ACTION=";
#define GITHUB_ACTION_LEN (sizeof(github_action) - 1)

/*
 * One environment variable, or FP_ENV_CHUNK bytes of a longer one, per
 * iteration: a string read tells where the next variable starts, and only
 * a variable's start is compared.
 */
static long env_step(__u32 i, void *unused)
{
	struct scratch *s = scratch_get();
	struct env_state *st;
	__u32 size, step;
	long n;

	if (!s)
		return 1;
	st = &s->env;
	if (st->addr >= st->end)
		return 1;
	size = st->end - st->addr < FP_ENV_CHUNK ? st->end - st->addr :
						   FP_ENV_CHUNK;
	n = bpf_probe_read_user_str(s->envbuf, size, (void *)st->addr);
	if (n <= 0)
		return 1;
	if (!st->mid && n > GITHUB_ACTION_LEN &&
	    !bpf_strncmp(s->envbuf, GITHUB_ACTION_LEN, github_action)) {
		st->found = st->addr + GITHUB_ACTION_LEN;
		return 1;
	}
	/* n == size: no NUL within the chunk, or exactly at its end */
	step = n == size ? n - 1 : n;
	st->mid = n == size;
	if (!step)
		return 1;
	st->addr += step;
	return 0;
}

/*
 * A step's first process is a child of the step parent (the CI runner's
 * worker); its new environment names the step. The image is fresh, so its
 * environment pages are present. Returns the bytes written at pos.
 */
static __always_inline __u32 step_name(struct scratch *s, struct task_struct *p,
				       __u32 pos)
{
	struct env_state *st = &s->env;
	__u64 start = BPF_CORE_READ(p, mm, env_start);
	__u64 end = BPF_CORE_READ(p, mm, env_end);
	long n;

	if (end <= start)
		return 0;
	if (end - start > FP_ENV_MAX)
		end = start + FP_ENV_MAX;
	st->addr = start;
	st->end = end;
	st->found = 0;
	st->mid = 0;
	bpf_loop(FP_ENV_MAX, env_step, NULL, 0);
	if (!st->found)
		return 0;
	n = bpf_probe_read_user_str(s->buf + (pos & FP_BUF_MASK),
				    FP_STEP_NAME_MAX, (void *)st->found);
	return n > 0 ? n : 0;
}

#define PFA_NO_NEW_PRIVS 0

/*
 * kernel_cap_t is a u64 since 6.3 and two u32 before: the same 8 bytes
 * in little-endian order either way, so read as bytes.
 */
static __always_inline __u64 cap_bits(const kernel_cap_t *c)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), c);
	return v;
}

/* committed by exec before this tracepoint: the new image's own */
static __always_inline void exec_creds(struct fp_exec_creds *c,
				       struct task_struct *p,
				       struct linux_binprm *bprm)
{
	const struct cred *cr = untrusted(p)->cred;

	/* plain loads through the tracepoint's BTF pointers, not helpers */
	c->uid = cr->uid.val;
	c->euid = cr->euid.val;
	c->suid = cr->suid.val;
	c->gid = cr->gid.val;
	c->egid = cr->egid.val;
	c->sgid = cr->sgid.val;
	c->cap_eff = cap_bits(&cr->cap_effective);
	c->cap_prm = cap_bits(&cr->cap_permitted);
	c->no_new_privs = (p->atomic_flags >> PFA_NO_NEW_PRIVS) & 1;
	c->secureexec = BPF_CORE_READ_BITFIELD(bprm, secureexec);
	c->userns_level = cr->user_ns->level;
	c->_pad = 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(handle_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	struct scratch *s;
	char *buf;
	struct fp_exec *e;
	struct argv_ctx ac = {};
	struct file *exe;
	struct mm_struct *mm;
	__u64 arg_start, arg_end, shown;
	__u32 pos;
	long n;

	/* a read-only open the task held back comes before its exec */
	fp_open_flush();
	if (!traced())
		return 0;
	s = scratch_get();
	if (!s)
		return 0;
	buf = s->buf;
	e = (struct fp_exec *)buf;
	fill_hdr(&e->hdr, FP_EV_EXEC);
	e->old_pid = old_pid;
	e->exe_flags = 0;
	e->step_len = 0;
	e->_pad = 0;
	exec_creds(&e->creds, p, bprm);
	pos = sizeof(*e);

	exe = untrusted(bprm)->file;
	e->exe_uid = exe->f_inode->i_uid.val;
	e->exe_mode = exe->f_inode->i_mode;
	e->exe_len = walk_from(s, exe->f_path.dentry, exe->f_path.mnt, pos,
			       pos + FP_PATH_MAX, &e->exe_flags);
	/*
	 * No name on any mount (a memfd, an unlinked O_TMPFILE's fd): the
	 * file's own dentry name, "memfd:NAME", marked FP_PATH_ANON
	 */
	if (!e->exe_len && (e->exe_flags & FP_PATH_BASE_DETACHED)) {
		n = bpf_probe_read_kernel_str(buf + (pos & FP_BUF_MASK),
					      FP_NAME_MAX,
					      exe->f_path.dentry->d_name.name);
		if (n > 0) {
			e->exe_len = n;
			e->exe_flags |= FP_PATH_ANON;
		}
	}
	pos += e->exe_len;
	n = bpf_probe_read_kernel_str(buf + (pos & FP_BUF_MASK), FP_PATH_MAX,
				      bprm->filename);
	e->filename_len = n > 0 ? n : 0;
	pos += e->filename_len;
	if (step_parent && e->hdr.ppid == step_parent) {
		e->step_len = step_name(s, p, pos);
		pos += e->step_len;
	}

	mm = untrusted(p)->mm;
	arg_start = mm->arg_start;
	arg_end = mm->arg_end;
	e->argv_len = arg_end > arg_start ? arg_end - arg_start : 0;
	shown = e->argv_len;
	if (shown > max_argv_bytes)
		shown = max_argv_bytes;
	if (shown > FP_ARGV_CHUNK * FP_ARGV_MAX_CHUNKS)
		shown = FP_ARGV_CHUNK * FP_ARGV_MAX_CHUNKS;
	e->argv_chunks = (shown + FP_ARGV_CHUNK - 1) / FP_ARGV_CHUNK;
	e->hdr.size = pos;
	emit(e, pos);

	ac.start = arg_start;
	ac.total = shown;
	bpf_loop(FP_ARGV_MAX_CHUNKS, argv_step, &ac, 0);
	return 0;
}

/*
 * A child is in a traced tree when the process that forked it is: the
 * forker, not the parent, so that CLONE_PARENT does not step out of the
 * tree. The tracer's own processes never add theirs. A full table is
 * counted as lost, so the trace is not called complete.
 */
static __always_inline void inherit_tree(__u32 parent, __u32 child)
{
	__u32 *root;
	struct fp_stats *st;

	if (!pid_tree_on || is_self(parent))
		return;
	root = bpf_map_lookup_elem(&traced_pids, &parent);
	if (!root)
		return;
	if (!bpf_map_update_elem(&traced_pids, &child, root, BPF_ANY))
		return;
	st = stats_cpu();
	if (st)
		__sync_fetch_and_add(&st->scope_full, 1);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(handle_fork, struct task_struct *parent, struct task_struct *child)
{
	struct fp_fork e = {};
	__u32 child_pid = child->pid;
	__u32 child_tgid = child->tgid;
	__u32 forker = bpf_get_current_pid_tgid() >> 32;

	if (heartbeat_tgid && forker == heartbeat_tgid)
		heartbeat_bump(FP_HB_FORK);
	/* a new thread is not a new process */
	if (child_pid != child_tgid)
		return 0;
	/* before the child can run: it is not runnable until this returns */
	inherit_tree(forker, child_tgid);
	if (!traced())
		return 0;
	fill_hdr(&e.hdr, FP_EV_FORK);
	e.hdr.size = sizeof(e);
	e.parent_tid = e.hdr.tid;
	e.hdr.ppid = e.hdr.pid;
	e.hdr.pid = child_tgid;
	e.hdr.tid = child_pid;
	emit(&e, sizeof(e));
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_exit, struct task_struct *p)
{
	struct task_struct *t = untrusted(p);
	struct signal_struct *sig = t->signal;
	struct fp_exit e = {};
	__u32 tgid;

	/* before its exit, and before the tid can be reused */
	fp_open_flush();
	fp_net_task_exit();
	/* p is the exiting task, the current one */
	if (heartbeat_tgid && fp_cur_ppid() == heartbeat_tgid)
		heartbeat_bump(FP_HB_EXIT);
	/* only the last thread of the group reports the process exit */
	if (sig->live.counter != 0)
		return 0;
	tgid = p->tgid;
	if (traced()) {
		fill_hdr(&e.hdr, FP_EV_EXIT);
		e.hdr.size = sizeof(e);
		if (sig->flags & SIGNAL_GROUP_EXIT)
			e.status = sig->group_exit_code;
		else
			e.status = p->exit_code;
		e.start_ns = t->group_leader->start_time;
		emit(&e, sizeof(e));
	}
	/* the pid may be reused by a process outside the tree */
	if (pid_tree_on)
		bpf_map_delete_elem(&traced_pids, &tgid);
	return 0;
}

/*
 * Every signal, whatever the path (kill, tgkill, sigqueue, pidfd, a
 * process group, SIGIO). One sent by a traced process to the tracer is
 * tamper evidence. One sent by a child of the tracer is its heartbeat.
 */
SEC("tp_btf/signal_generate")
int BPF_PROG(handle_signal, int sig, struct kernel_siginfo *info,
	     struct task_struct *task, int group, int result)
{
	__u32 target;

	if (!nself && !heartbeat_tgid)
		return 0;
	target = task->tgid;
	if (heartbeat_tgid && fp_cur_ppid() == heartbeat_tgid)
		heartbeat_bump(FP_HB_SIGNAL);
	if (!nself || !is_self(target) || !traced())
		return 0;
	emit_tamper(FP_TAMPER_SIGNAL, sig, target, result);
	return 0;
}
