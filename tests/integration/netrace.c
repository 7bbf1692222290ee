// SPDX-License-Identifier: GPL-2.0
/*
 * netrace: a command that rewrites its own sockaddr from a second thread
 * while the first one connects or sends through it (issue 28, High 2),
 * for test_net_race.py. What the kernel copied at the call's start is
 * where the data goes; what the memory holds at the call's exit is what a
 * tracer that reads it then would report.
 *
 *   netrace connect REAL PORT DECOY CTLPORT
 *	A blocking TCP connect to REAL:PORT, whose SYN the server lets wait
 *	(its accept queue is full); meanwhile the other thread writes DECOY
 *	into the sockaddr, then tells the server (a datagram to
 *	DECOY:CTLPORT) to make room. Once connected, sends "hello" and
 *	expects "world". Exit 0 if it got it.
 *   netrace sendto|sendmsg REAL DECOY PORT N
 *	N one-byte datagrams through one sockaddr whose address the other
 *	thread flips between REAL and DECOY all the while. Prints N.
 *   netrace sendmmsg REAL DECOY PORT N
 *	N sendmmsg() calls of two datagrams: to REAL:PORT and DECOY:PORT,
 *	the first message's address flipped as above. Prints 2N.
 *   netrace sendto-fault|sendmsg-fault REAL DECOY PORT N
 *	N datagrams to REAL:PORT whose one byte of payload lies in a page
 *	not yet there (userfaultfd): the kernel has routed the datagram when
 *	it copies the payload and faults, and the other thread, woken by the
 *	fault, writes DECOY into the sockaddr before it lets the copy go on.
 *	Every call exits with DECOY in memory. Prints N.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static struct sockaddr_in sa[2];
static struct in_addr real, decoy;
static atomic_int done;
static int ctl_port;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* connect: once the connect waits, point its sockaddr elsewhere */
static void *rewrite_once(void *unused)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(ctl_port),
				  .sin_addr = decoy };
	int s;

	sleep_ms(300);
	*(volatile in_addr_t *)&sa[0].sin_addr.s_addr = decoy.s_addr;
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 ||
	    sendto(s, "go", 2, 0, (struct sockaddr *)&to, sizeof(to)) != 2)
		perror("netrace: control datagram");
	return NULL;
}

/* the sends: flip the first sockaddr's address until they are done */
static void *flip(void *unused)
{
	volatile in_addr_t *a = &sa[0].sin_addr.s_addr;

	while (!atomic_load_explicit(&done, memory_order_relaxed)) {
		*a = real.s_addr;
		*a = decoy.s_addr;
	}
	return NULL;
}

static char *page;
static long page_size;
static int uffd = -1;

/* each fault on the payload page: rewrite the sockaddr, then fill it */
static void *on_fault(void *unused)
{
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	struct uffdio_zeropage z;
	struct uffd_msg m;

	while (!atomic_load(&done)) {
		if (poll(&p, 1, 100) <= 0 ||
		    read(uffd, &m, sizeof(m)) != sizeof(m) ||
		    m.event != UFFD_EVENT_PAGEFAULT)
			continue;
		*(volatile in_addr_t *)&sa[0].sin_addr.s_addr = decoy.s_addr;
		z.range.start = (unsigned long)page;
		z.range.len = page_size;
		z.mode = 0;
		if (ioctl(uffd, UFFDIO_ZEROPAGE, &z))
			perror("netrace: UFFDIO_ZEROPAGE");
	}
	return NULL;
}

/* the payload page, missing until a fault asks for it */
static int fault_page(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	page_size = sysconf(_SC_PAGESIZE);
	page = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	reg.range.start = (unsigned long)page;
	reg.range.len = page_size;
	if (page == MAP_FAILED || uffd < 0 || ioctl(uffd, UFFDIO_API, &api) ||
	    ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		perror("netrace: userfaultfd");
		return -1;
	}
	return 0;
}

static int do_faults(const char *how, long n)
{
	struct iovec iov;
	struct msghdr m = { .msg_name = &sa[0],
			    .msg_namelen = sizeof(sa[0]),
			    .msg_iov = &iov,
			    .msg_iovlen = 1 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	long i, sent = 0;

	for (i = 0; fd >= 0 && i < n; i++) {
		sa[0].sin_addr = real;
		madvise(page, page_size, MADV_DONTNEED);
		iov.iov_base = page;
		iov.iov_len = 1;
		if (!strcmp(how, "sendto-fault"))
			sent += sendto(fd, page, 1, 0,
				       (struct sockaddr *)&sa[0],
				       sizeof(sa[0])) == 1;
		else
			sent += sendmsg(fd, &m, 0) == 1;
		if (sa[0].sin_addr.s_addr != decoy.s_addr) {
			fprintf(stderr, "netrace: the payload did not fault\n");
			return 1;
		}
	}
	printf("%ld\n", sent);
	return sent == n ? 0 : 1;
}

static int do_connect(void)
{
	char buf[8] = { 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&sa[0], sizeof(sa[0]))) {
		perror("netrace: connect");
		return 1;
	}
	if (write(fd, "hello", 5) != 5 || read(fd, buf, 5) != 5 ||
	    strcmp(buf, "world")) {
		fprintf(stderr, "netrace: no answer\n");
		return 1;
	}
	printf("connected\n");
	return 0;
}

static int do_sends(const char *how, long n)
{
	struct mmsghdr mm[2];
	struct msghdr m = { .msg_name = &sa[0], .msg_namelen = sizeof(sa[0]) };
	struct iovec iov[2] = { { "x", 1 }, { "y", 1 } };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	long i, sent = 0;

	memset(mm, 0, sizeof(mm));
	m.msg_iov = &iov[0];
	m.msg_iovlen = 1;
	for (i = 0; i < 2; i++) {
		mm[i].msg_hdr.msg_name = &sa[i];
		mm[i].msg_hdr.msg_namelen = sizeof(sa[i]);
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	for (i = 0; fd >= 0 && i < n; i++) {
		if (!strcmp(how, "sendto"))
			sent += sendto(fd, "x", 1, 0, (struct sockaddr *)&sa[0],
				       sizeof(sa[0])) == 1;
		else if (!strcmp(how, "sendmsg"))
			sent += sendmsg(fd, &m, 0) == 1;
		else
			sent += sendmmsg(fd, mm, 2, 0) == 2 ? 2 : 0;
	}
	printf("%ld\n", sent);
	return sent == (strcmp(how, "sendmmsg") ? n : 2 * n) ? 0 : 1;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int rc, conn = argc == 6 && !strcmp(argv[1], "connect");

	if (!conn && argc != 6) {
		fprintf(stderr,
			"usage: netrace connect REAL PORT DECOY CTLPORT\n"
			"       netrace sendto|sendmsg|sendmmsg REAL DECOY PORT N\n"
			"       netrace sendto-fault|sendmsg-fault REAL DECOY PORT N\n");
		return 2;
	}
	if (!inet_aton(argv[2], &real) ||
	    !inet_aton(argv[conn ? 4 : 3], &decoy)) {
		fprintf(stderr, "netrace: bad address\n");
		return 2;
	}
	sa[0].sin_family = AF_INET;
	sa[0].sin_port = htons(atoi(argv[conn ? 3 : 4]));
	sa[0].sin_addr = real;
	sa[1] = sa[0];
	sa[1].sin_addr = decoy;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (conn) {
		ctl_port = atoi(argv[5]);
		pthread_create(&t, NULL, rewrite_once, NULL);
		rc = do_connect();
	} else if (strstr(argv[1], "-fault")) {
		if (fault_page())
			return 1;
		pthread_create(&t, NULL, on_fault, NULL);
		rc = do_faults(argv[1], atol(argv[5]));
		atomic_store(&done, 1);
	} else {
		pthread_create(&t, NULL, flip, NULL);
		rc = do_sends(argv[1], atol(argv[5]));
		atomic_store(&done, 1);
	}
	pthread_join(t, NULL);
	return rc;
}
