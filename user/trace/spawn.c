// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spawn.h"

/*
 * clone3 that runs fn(arg) in the child on the stack args names: the
 * child cannot return through a C wrapper, whose return address is on
 * the parent's stack. Returns the child's pid or -errno.
 */
long fp_clone3_run(struct clone_args *args, size_t size, int (*fn)(void *),
		   void *arg);

#if defined(__x86_64__)
#define FP_SPAWN_OK 1
__asm__(".text\n"
	".globl fp_clone3_run\n"
	".hidden fp_clone3_run\n"
	".type fp_clone3_run, @function\n"
	"fp_clone3_run:\n"
	"	mov %rdx, %r9\n" /* fn and arg: the syscall keeps r8-r10 */
	"	mov %rcx, %r8\n"
	"	mov $435, %eax\n" /* clone3 */
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jz 1f\n"
	"	ret\n"
	"1:	xor %ebp, %ebp\n"
	"	and $-16, %rsp\n"
	"	mov %r8, %rdi\n"
	"	call *%r9\n"
	"	mov %eax, %edi\n"
	"	mov $60, %eax\n" /* exit */
	"	syscall\n"
	"	hlt\n"
	".size fp_clone3_run, .-fp_clone3_run\n");
#elif defined(__aarch64__)
#define FP_SPAWN_OK 1
__asm__(".text\n"
	".globl fp_clone3_run\n"
	".hidden fp_clone3_run\n"
	".type fp_clone3_run, %function\n"
	"fp_clone3_run:\n"
	"	mov x10, x2\n"
	"	mov x11, x3\n"
	"	mov x8, #435\n" /* clone3 */
	"	svc #0\n"
	"	cbz x0, 1f\n"
	"	ret\n"
	"1:	mov x29, #0\n"
	"	mov x30, #0\n"
	"	mov x0, x11\n"
	"	blr x10\n"
	"	mov x8, #93\n" /* exit */
	"	svc #0\n"
	".size fp_clone3_run, .-fp_clone3_run\n");
#else
#define FP_SPAWN_OK 0
long fp_clone3_run(struct clone_args *args, size_t size, int (*fn)(void *),
		   void *arg)
{
	return -ENOSYS;
}
#endif

bool fp_spawn_supported(void)
{
	return FP_SPAWN_OK;
}

pid_t fp_spawn(struct clone_args *args, size_t stack_size, int (*fn)(void *),
	       void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	sigset_t all, old;
	void *stack;
	long r;

	stack_size = (stack_size + page - 1) & ~(size_t)(page - 1);
	stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -1;
	args->flags |= CLONE_VM | CLONE_VFORK;
	args->stack = (__u64)(uintptr_t)stack;
	args->stack_size = stack_size;
	/* no handler of footprint's may run in the child before it has
	 * set them back to the default */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = fp_clone3_run(args, sizeof(*args), fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* the child has exec'ed or exited: the stack is ours again */
	munmap(stack, stack_size);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (pid_t)r;
}

void fp_spawn_child_signals(void)
{
	struct sigaction sa;
	int sig;

	for (sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP ||
		    sigaction(sig, NULL, &sa))
			continue;
		if (sa.sa_handler == SIG_IGN || sa.sa_handler == SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(sig, &sa, NULL);
	}
}
