// SPDX-License-Identifier: GPL-2.0
/*
 * rename32 OLD NEW: rename(2) through the i386 int $0x80 entry, for the
 * walk cache test of 32-bit callers. No libc, so that it builds with a
 * compiler that can emit i386 code but has no 32-bit C library:
 * cc -m32 -static -nostdlib -ffreestanding -fno-pie -no-pie. Exits 0 when
 * the rename succeeded, 1 when it failed, 2 on a usage error.
 */
#define NR32_EXIT 1
#define NR32_RENAME 38

static long sys2(long nr, long a, long b)
{
	long r;

	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "a"(nr), "b"(a), "c"(b)
			 : "memory");
	return r;
}

__attribute__((noreturn)) static void sys_exit(long code)
{
	__asm__ volatile("int $0x80" : : "a"(NR32_EXIT), "b"(code));
	__builtin_unreachable();
}

__attribute__((used)) void rename32_main(long *sp)
{
	char **argv = (char **)(sp + 1);

	if (*sp != 3)
		sys_exit(2);
	sys_exit(sys2(NR32_RENAME, (long)argv[1], (long)argv[2]) ? 1 : 0);
}

/* the stack holds argc, then argv: hand its address to C, 16-aligned */
__asm__(".globl _start\n"
	"_start:\n"
	"\tmovl %esp, %eax\n"
	"\tandl $-16, %esp\n"
	"\tsubl $12, %esp\n"
	"\tpushl %eax\n"
	"\tcall rename32_main\n");
