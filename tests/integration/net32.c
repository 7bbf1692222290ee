// SPDX-License-Identifier: GPL-2.0
/*
 * net32 IP UDPPORT TCPPORT CLOSEDPORT: the socket calls of a 32-bit
 * program, through the i386 int $0x80 entry, both ways it has: the
 * socketcall(2) multiplexer and the direct syscalls (issue 28, High 1),
 * for test_net32.py. With UDP port P it sends one datagram each:
 *
 *   P     socketcall SENDTO          P+1  sendto (369)
 *   P+2   sendmsg (370)              P+3  socketcall SENDMSG
 *   P+4, P+5  sendmmsg (345), two messages
 *   P+6, P+7  socketcall SENDMMSG, two messages
 *   P+8   socketcall CONNECT of a UDP socket, then SEND on it
 *
 * from a socket bound to IP, port 0, through socketcall BIND; then
 * connects TCP to IP:TCPPORT with connect (362) and writes to it,
 * and to IP:CLOSEDPORT through socketcall CONNECT, which is refused.
 * Prints one line a call, "NAME RET", and exits 0 if every call did what
 * it should, 1 if not, 2 on a usage error. No libc, so that it builds with
 * a compiler that can emit i386 code but has no 32-bit C library (as
 * rename32.c): cc -m32 -static -nostdlib -ffreestanding -fno-pie -no-pie
 * -fno-stack-protector.
 */
#define NR32_EXIT 1
#define NR32_WRITE 4
#define NR32_SOCKETCALL 102
#define NR32_SENDMMSG 345
#define NR32_SOCKET 359
#define NR32_CONNECT 362
#define NR32_SENDTO 369
#define NR32_SENDMSG 370

/* socketcall(2) calls */
#define SC_SOCKET 1
#define SC_BIND 2
#define SC_CONNECT 3
#define SC_SEND 9
#define SC_SENDTO 11
#define SC_SENDMSG 16
#define SC_SENDMMSG 20

#define AF_INET 2
#define SOCK_STREAM 1
#define SOCK_DGRAM 2

typedef unsigned int u32;

struct sockaddr_in32 {
	unsigned short family;
	unsigned short port; /* network order */
	u32 addr; /* network order */
	unsigned char zero[8];
};

struct iovec32 {
	u32 base, len;
};

struct msghdr32 {
	u32 name;
	int namelen;
	u32 iov;
	u32 iovlen;
	u32 control, controllen, flags;
};

struct mmsghdr32 {
	struct msghdr32 hdr;
	u32 len;
};

/* six arguments: ebp is the sixth, loaded from memory eax points to */
static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	long args[2] = { f, nr };
	long r;

	__asm__ volatile("push %%ebp\n\t"
			 "movl 0(%%eax), %%ebp\n\t"
			 "movl 4(%%eax), %%eax\n\t"
			 "int $0x80\n\t"
			 "pop %%ebp"
			 : "=a"(r)
			 : "a"(args), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
			 : "memory");
	return r;
}

static long sys3(long nr, long a, long b, long c)
{
	return sys6(nr, a, b, c, 0, 0, 0);
}

static long socketcall(long call, u32 *args)
{
	return sys3(NR32_SOCKETCALL, call, (long)args, 0);
}

__attribute__((noreturn)) static void sys_exit(long code)
{
	__asm__ volatile("int $0x80" : : "a"(NR32_EXIT), "b"(code));
	__builtin_unreachable();
}

static unsigned long slen(const char *s)
{
	unsigned long n = 0;

	while (s[n])
		n++;
	return n;
}

static void say(const char *name, long ret)
{
	char buf[64], num[16];
	unsigned long n = 0, k = 0, v = ret < 0 ? -ret : ret;

	while (name[k] && n < 40)
		buf[n++] = name[k++];
	buf[n++] = ' ';
	if (ret < 0)
		buf[n++] = '-';
	k = 0;
	do {
		num[k++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (k)
		buf[n++] = num[--k];
	buf[n++] = '\n';
	sys3(NR32_WRITE, 1, (long)buf, n);
}

static long num(const char *s)
{
	long v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return *s ? -1 : v;
}

/* dotted quad, in network order; 0 if it is not one */
static u32 ip(const char *s)
{
	u32 a = 0, part = 0, dots = 0;

	for (; *s; s++) {
		if (*s == '.') {
			a = a | part << (dots * 8);
			part = 0;
			if (++dots > 3)
				return 0;
		} else if (*s >= '0' && *s <= '9') {
			part = part * 10 + (*s - '0');
		} else {
			return 0;
		}
	}
	return dots == 3 ? a | part << 24 : 0;
}

static struct sockaddr_in32 to(u32 addr, long port)
{
	struct sockaddr_in32 s;
	int i;

	s.family = AF_INET;
	s.port = (unsigned short)((port & 0xff) << 8 | (port >> 8 & 0xff));
	s.addr = addr;
	for (i = 0; i < 8; i++)
		s.zero[i] = 0;
	return s;
}

static long udp_socket(void)
{
	u32 a[3] = { AF_INET, SOCK_DGRAM, 0 };

	return socketcall(SC_SOCKET, a);
}

static int sends(u32 addr, long port)
{
	struct sockaddr_in32 d[9];
	struct iovec32 iov = { (u32) "x", 1 };
	struct msghdr32 m = { 0, sizeof(d[0]), (u32)&iov, 1, 0, 0, 0 };
	struct mmsghdr32 mm[2];
	u32 a[6];
	long fd = udp_socket(), r;
	int i, bad = fd < 0;

	for (i = 0; i < 9; i++)
		d[i] = to(addr, port + i);
	a[0] = fd;
	d[8] = to(addr, 0); /* for a moment: the address to bind to */
	a[1] = (u32)&d[8];
	a[2] = sizeof(d[8]);
	say("socketcall-bind", r = socketcall(SC_BIND, a));
	bad |= r != 0;
	d[8] = to(addr, port + 8);
	a[1] = (u32) "x";
	a[2] = 1;
	a[3] = 0;
	a[4] = (u32)&d[0];
	a[5] = sizeof(d[0]);
	say("socketcall-sendto", r = socketcall(SC_SENDTO, a));
	bad |= r != 1;
	say("sendto", r = sys6(NR32_SENDTO, fd, (long)"x", 1, 0, (long)&d[1],
			       sizeof(d[1])));
	bad |= r != 1;
	m.name = (u32)&d[2];
	say("sendmsg", r = sys3(NR32_SENDMSG, fd, (long)&m, 0));
	bad |= r != 1;
	m.name = (u32)&d[3];
	a[1] = (u32)&m;
	a[2] = 0;
	say("socketcall-sendmsg", r = socketcall(SC_SENDMSG, a));
	bad |= r != 1;
	for (i = 0; i < 2; i++) {
		mm[i].hdr = m;
		mm[i].hdr.name = (u32)&d[4 + i];
		mm[i].len = 0;
	}
	say("sendmmsg", r = sys6(NR32_SENDMMSG, fd, (long)mm, 2, 0, 0, 0));
	bad |= r != 2;
	for (i = 0; i < 2; i++)
		mm[i].hdr.name = (u32)&d[6 + i];
	a[1] = (u32)mm;
	a[2] = 2;
	a[3] = 0;
	say("socketcall-sendmmsg", r = socketcall(SC_SENDMMSG, a));
	bad |= r != 2;
	a[1] = (u32)&d[8];
	a[2] = sizeof(d[8]);
	say("socketcall-connect-udp", r = socketcall(SC_CONNECT, a));
	bad |= r != 0;
	a[1] = (u32) "x";
	a[2] = 1;
	a[3] = 0;
	say("socketcall-send", r = socketcall(SC_SEND, a));
	bad |= r != 1;
	return bad;
}

static int connects(u32 addr, long open, long closed)
{
	struct sockaddr_in32 o = to(addr, open), c = to(addr, closed);
	u32 a[3] = { AF_INET, SOCK_STREAM, 0 };
	long fd = sys3(NR32_SOCKET, AF_INET, SOCK_STREAM, 0), r;
	int bad = fd < 0;

	say("connect", r = sys3(NR32_CONNECT, fd, (long)&o, sizeof(o)));
	bad |= r != 0;
	say("write", r = sys3(NR32_WRITE, fd, (long)"GET / HTTP/1.0\r\n\r\n",
			      slen("GET / HTTP/1.0\r\n\r\n")));
	bad |= r <= 0;
	a[0] = socketcall(SC_SOCKET, a);
	a[1] = (u32)&c;
	a[2] = sizeof(c);
	say("socketcall-connect-closed", r = socketcall(SC_CONNECT, a));
	bad |= r != -111; /* ECONNREFUSED */
	return bad;
}

__attribute__((used)) void net32_main(long *sp)
{
	char **argv = (char **)(sp + 1);
	u32 addr;
	long udp, tcp, closed;

	if (*sp != 5)
		sys_exit(2);
	addr = ip(argv[1]);
	udp = num(argv[2]);
	tcp = num(argv[3]);
	closed = num(argv[4]);
	if (!addr || udp <= 0 || udp > 65526 || tcp <= 0 || tcp > 65535 ||
	    closed <= 0 || closed > 65535)
		sys_exit(2);
	sys_exit(sends(addr, udp) | connects(addr, tcp, closed));
}

/* the stack holds argc, then argv: hand its address to C, 16-aligned */
__asm__(".globl _start\n"
	"_start:\n"
	"\tmovl %esp, %eax\n"
	"\tandl $-16, %esp\n"
	"\tsubl $12, %esp\n"
	"\tpushl %eax\n"
	"\tcall net32_main\n");
