/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A child that borrows footprint's memory until it execs, as glibc's
 * posix_spawn makes one: clone3 with CLONE_VM | CLONE_VFORK, on a stack
 * of its own. fork() would copy the page tables of a large threaded
 * process, and every page footprint then wrote would take a
 * copy-on-write fault while the child lived (~1.5 ms and hundreds of
 * faults a run on a VM with dear faults).
 *
 * The child runs fn(arg) while the calling thread is suspended; it may
 * make system calls and call functions that take no lock and allocate
 * nothing (footprint's other threads run on), and it must end by exec
 * or _exit. glibc's set*id() would stop footprint's threads to change
 * theirs too: only raw system calls for credentials.
 */
#ifndef FP_SPAWN_H
#define FP_SPAWN_H

#include <linux/sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Whether this build can (x86-64 and arm64); else callers fork. */
bool fp_spawn_supported(void);

/*
 * clone3(args) with CLONE_VM | CLONE_VFORK and a stack of stack_size
 * bytes added; returns once the child has exec'ed or exited: its pid,
 * or -1 and errno. Every signal is blocked in the child until fn
 * unblocks them (after fp_spawn_child_signals()).
 */
pid_t fp_spawn(struct clone_args *args, size_t stack_size, int (*fn)(void *),
	       void *arg);

/*
 * In the child, first: the handlers footprint set back to the default,
 * so that a signal between the unblocking and the exec runs none of
 * footprint's code in its memory.
 */
void fp_spawn_child_signals(void);

#endif
