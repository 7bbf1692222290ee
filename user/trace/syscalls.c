// SPDX-License-Identifier: GPL-2.0
#include <linux/types.h>
#include <sys/syscall.h>

#include "footprint.h"
#include "syscalls.h"

/* Numbers come from this build's <sys/syscall.h>: the target's own. */
const struct fp_syscall_nr fp_native_syscalls[] = {
#ifdef SYS_open
	{ SYS_open, FP_SYS_OPEN },
#endif
#ifdef SYS_creat
	{ SYS_creat, FP_SYS_CREAT },
#endif
#ifdef SYS_unlink
	{ SYS_unlink, FP_SYS_UNLINK },
#endif
#ifdef SYS_rename
	{ SYS_rename, FP_SYS_RENAME | FP_SYS_GEN },
#endif
#ifdef SYS_mkdir
	{ SYS_mkdir, FP_SYS_MKDIR },
#endif
#ifdef SYS_rmdir
	{ SYS_rmdir, FP_SYS_RMDIR | FP_SYS_GEN },
#endif
#ifdef SYS_mknod
	{ SYS_mknod, FP_SYS_MKNOD },
#endif
#ifdef SYS_symlink
	{ SYS_symlink, FP_SYS_SYMLINK },
#endif
#ifdef SYS_link
	{ SYS_link, FP_SYS_LINK },
#endif
#ifdef SYS_chmod
	{ SYS_chmod, FP_SYS_CHMOD },
#endif
#ifdef SYS_chown
	{ SYS_chown, FP_SYS_CHOWN },
#endif
#ifdef SYS_lchown
	{ SYS_lchown, FP_SYS_LCHOWN },
#endif
#ifdef SYS_fchmodat2
	{ SYS_fchmodat2, FP_SYS_FCHMODAT2 },
#else
	{ 452, FP_SYS_FCHMODAT2 }, /* same number on every architecture */
#endif
	{ SYS_openat, FP_SYS_OPENAT },
	{ SYS_openat2, FP_SYS_OPENAT2 },
	{ SYS_unlinkat, FP_SYS_UNLINKAT | FP_SYS_GEN },
	{ SYS_renameat, FP_SYS_RENAMEAT | FP_SYS_GEN },
	{ SYS_renameat2, FP_SYS_RENAMEAT2 | FP_SYS_GEN },
	{ SYS_bind, FP_SYS_BIND },
	{ SYS_connect, FP_SYS_CONNECT },
	{ SYS_sendto, FP_SYS_SENDTO },
	{ SYS_sendmsg, FP_SYS_SENDMSG },
#ifdef SYS_accept
	{ SYS_accept, FP_SYS_ACCEPT },
#endif
	{ SYS_accept4, FP_SYS_ACCEPT4 },
	{ SYS_recvfrom, FP_SYS_RECVFROM },
	{ SYS_recvmsg, FP_SYS_RECVMSG },
	{ SYS_read, FP_SYS_READ },
	{ SYS_mkdirat, FP_SYS_MKDIRAT },
	{ SYS_mknodat, FP_SYS_MKNODAT },
	{ SYS_symlinkat, FP_SYS_SYMLINKAT },
	{ SYS_linkat, FP_SYS_LINKAT },
	{ SYS_fchmod, FP_SYS_FCHMOD },
	{ SYS_fchmodat, FP_SYS_FCHMODAT },
	{ SYS_fchown, FP_SYS_FCHOWN },
	{ SYS_fchownat, FP_SYS_FCHOWNAT },
	{ SYS_truncate, FP_SYS_TRUNCATE },
	{ SYS_ftruncate, FP_SYS_FTRUNCATE },
	{ SYS_bpf, FP_SYS_BPF },
	{ SYS_ptrace, FP_SYS_PTRACE },
	{ SYS_getppid, FP_SYS_HEARTBEAT },
	/* io_uring_setup: same number on every architecture */
	{ 425, FP_SYS_URING_SETUP },
	{ SYS_kill, FP_SYS_KILL },
	{ SYS_tkill, FP_SYS_TKILL },
	{ SYS_tgkill, FP_SYS_TGKILL },
#ifdef SYS_pidfd_send_signal
	{ SYS_pidfd_send_signal, FP_SYS_PIDFD_SEND_SIGNAL },
#else
	{ 424, FP_SYS_PIDFD_SEND_SIGNAL }, /* same number everywhere */
#endif
/* these also move directories (FP_SYS_GEN) */
#ifdef SYS_umount2
	{ SYS_umount2, FP_SYS_UMOUNT2 | FP_SYS_GEN },
#endif
	{ 429, FP_SYS_MOVE_MOUNT | FP_SYS_GEN }, /* same number everywhere */
	{ SYS_mount, FP_SYS_MOUNT | FP_SYS_GEN },
	{ SYS_pivot_root, FP_SYS_PIVOT_ROOT | FP_SYS_GEN },
	{ SYS_setns, FP_SYS_SETNS | FP_SYS_GEN },
	{ SYS_unshare, FP_SYS_UNSHARE | FP_SYS_GEN },
	/* not traced: they only move directories or the cwd (FP_SYS_GEN) */
	{ SYS_chroot, FP_SYS_GEN },
	{ SYS_chdir, FP_SYS_GEN },
	{ SYS_fchdir, FP_SYS_GEN },
	/* numbers of 5.x calls, the same on every architecture */
	{ 428, FP_SYS_OPEN_TREE },
	{ 432, FP_SYS_FSMOUNT },
	{ 435, FP_SYS_CLONE3 },
	{ 438, FP_SYS_PIDFD_GETFD },
	{ 442, FP_SYS_MOUNT_SETATTR },
	{ SYS_clone, FP_SYS_CLONE },
	{ SYS_process_vm_readv, FP_SYS_PROCESS_VM_READV },
	{ SYS_process_vm_writev, FP_SYS_PROCESS_VM_WRITEV },
	{ SYS_open_by_handle_at, FP_SYS_OPEN_BY_HANDLE_AT },
	{ -1, 0 },
};

/* i386 numbers, for 32-bit programs on x86_64 (arch/x86/entry/syscalls) */
const struct fp_syscall_nr fp_compat_syscalls[] = {
#if defined(__x86_64__)
	{ 5, FP_SYS_OPEN },
	{ 8, FP_SYS_CREAT },
	{ 9, FP_SYS_LINK },
	{ 10, FP_SYS_UNLINK },
	{ 14, FP_SYS_MKNOD },
	{ 15, FP_SYS_CHMOD },
	{ 16, FP_SYS_LCHOWN },
	{ 38, FP_SYS_RENAME | FP_SYS_GEN },
	{ 39, FP_SYS_MKDIR },
	{ 40, FP_SYS_RMDIR | FP_SYS_GEN },
	{ 83, FP_SYS_SYMLINK },
	{ 92, FP_SYS_TRUNCATE },
	{ 93, FP_SYS_FTRUNCATE },
	{ 94, FP_SYS_FCHMOD },
	{ 95, FP_SYS_FCHOWN },
	{ 102, FP_SYS_BIND }, /* socketcall */
	{ 182, FP_SYS_CHOWN },
	{ 198, FP_SYS_LCHOWN },
	{ 207, FP_SYS_FCHOWN },
	{ 212, FP_SYS_CHOWN },
	{ 295, FP_SYS_OPENAT },
	{ 296, FP_SYS_MKDIRAT },
	{ 297, FP_SYS_MKNODAT },
	{ 298, FP_SYS_FCHOWNAT },
	{ 301, FP_SYS_UNLINKAT | FP_SYS_GEN },
	{ 302, FP_SYS_RENAMEAT | FP_SYS_GEN },
	{ 303, FP_SYS_LINKAT },
	{ 304, FP_SYS_SYMLINKAT },
	{ 306, FP_SYS_FCHMODAT },
	{ 353, FP_SYS_RENAMEAT2 | FP_SYS_GEN },
	{ 361, FP_SYS_BIND },
	{ 437, FP_SYS_OPENAT2 },
	{ 452, FP_SYS_FCHMODAT2 },
	{ 26, FP_SYS_PTRACE },
	{ 357, FP_SYS_BPF },
	{ 425, FP_SYS_URING_SETUP },
	{ 12, FP_SYS_GEN }, /* chdir */
	/* counted as lost (compat_exit), as the 32-bit file calls are */
	{ 21, FP_SYS_MOUNT | FP_SYS_GEN },
	{ 22, FP_SYS_UMOUNT2 | FP_SYS_GEN }, /* umount */
	{ 52, FP_SYS_UMOUNT2 | FP_SYS_GEN },
	{ 61, FP_SYS_GEN }, /* chroot */
	{ 133, FP_SYS_GEN }, /* fchdir */
	{ 217, FP_SYS_PIVOT_ROOT | FP_SYS_GEN },
	{ 310, FP_SYS_UNSHARE | FP_SYS_GEN },
	{ 346, FP_SYS_SETNS | FP_SYS_GEN },
	{ 429, FP_SYS_MOVE_MOUNT | FP_SYS_GEN },
	{ 428, FP_SYS_OPEN_TREE },
	{ 432, FP_SYS_FSMOUNT },
	{ 442, FP_SYS_MOUNT_SETATTR },
	{ 342, FP_SYS_OPEN_BY_HANDLE_AT },
	{ 347, FP_SYS_PROCESS_VM_READV },
	{ 348, FP_SYS_PROCESS_VM_WRITEV },
	{ 438, FP_SYS_PIDFD_GETFD },
#endif
	{ -1, 0 },
};
