// SPDX-License-Identifier: GPL-2.0
/*
 * Integration-test helper: does one thing through an io_uring ring, never
 * through the matching system call, for test_sec_uring.py.
 *
 *   fpuring [OPTIONS] OP ARGS...
 *
 * OP is one of:
 *   read PATH               OPENAT read-only, READ, CLOSE; prints the bytes
 *   append PATH TEXT        OPENAT O_WRONLY|O_APPEND|O_CREAT, WRITE, CLOSE
 *   create PATH TEXT        OPENAT2 O_WRONLY|O_CREAT|O_TRUNC, WRITE, CLOSE
 *   unlink PATH             UNLINKAT
 *   rmdir PATH              UNLINKAT AT_REMOVEDIR
 *   rename OLD NEW          RENAMEAT
 *   mkdir PATH              MKDIRAT
 *   symlink TARGET PATH     SYMLINKAT
 *   link OLD NEW            LINKAT
 *   truncate PATH           OPENAT O_RDWR, FTRUNCATE to 0 (6.9 and later)
 *   connect IP PORT TEXT    a TCP socket, CONNECT and SEND
 *   sendto IP PORT TEXT     a UDP socket, SEND with a destination
 *   sendmsg IP PORT TEXT    a UDP socket, SENDMSG with msg_name
 *   sendzc IP PORT TEXT     a UDP socket, SEND_ZC with a destination
 *   bind IP PORT            a TCP socket, BIND and LISTEN (6.11 and later)
 *   accept IP PORT N        a listener on IP:PORT (bind and listen by
 *                           syscall), N connections to it, each accepted
 *                           by one multishot ACCEPT
 *   xattr PATH              SETXATTR user.fp=1
 *   sockcmd                 URING_CMD SOCKET_URING_OP_SIOCINQ on a socket
 *   nop                     NOP
 *
 * OPTIONS:
 *   --sqpoll        a ring with IORING_SETUP_SQPOLL: a kernel thread submits
 *   --async         IOSQE_ASYNC: an io-wq worker runs the request
 *   --direct        opens install a direct descriptor (a fixed file), not
 *                   an fd; the file is then used as a fixed file
 *   --skip-success  IOSQE_CQE_SKIP_SUCCESS on the request that matters
 *
 * Prints "ok OP res=N" per request to stdout and exits 0 when all
 * succeeded; otherwise one line on stderr and exit 1. Exit 77 when this
 * kernel lacks the opcode or the ring option.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define UNSUPPORTED 77

#ifndef IORING_OP_FTRUNCATE
#define IORING_OP_FTRUNCATE 55
#endif
#ifndef IORING_OP_BIND
#define IORING_OP_BIND 56
#endif
#ifndef IORING_OP_LISTEN
#define IORING_OP_LISTEN 57
#endif
#ifndef SOCKET_URING_OP_SIOCINQ
#define SOCKET_URING_OP_SIOCINQ 0
#endif

static struct io_uring ring;
static bool opt_async, opt_direct, opt_skip;
static const char *op_name;

static struct io_uring_sqe *sqe_get(void)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

	if (!sqe) {
		fprintf(stderr, "fpuring: no sqe\n");
		exit(1);
	}
	return sqe;
}

/* Submit the one prepared request and wait for its completion. */
static int run_one(struct io_uring_sqe *sqe, const char *what, bool skip)
{
	struct io_uring_cqe *cqe;
	int res, ret;

	if (opt_async)
		sqe->flags |= IOSQE_ASYNC;
	if (skip)
		sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	sqe->user_data = 1;
	ret = io_uring_submit(&ring);
	if (ret != 1) {
		fprintf(stderr, "fpuring: %s: submit: %s\n", what,
			strerror(ret < 0 ? -ret : EIO));
		exit(1);
	}
	if (skip) {
		/* a success posts nothing: a NOP behind it tells when it ran */
		struct io_uring_sqe *nop = sqe_get();

		io_uring_prep_nop(nop);
		nop->user_data = 2;
		io_uring_submit(&ring);
	}
	ret = io_uring_wait_cqe(&ring, &cqe);
	if (ret) {
		fprintf(stderr, "fpuring: %s: wait: %s\n", what,
			strerror(-ret));
		exit(1);
	}
	res = cqe->res;
	if (skip && cqe->user_data == 2)
		res = 0; /* the request succeeded: its completion was skipped */
	io_uring_cqe_seen(&ring, cqe);
	if (res == -EINVAL || res == -EOPNOTSUPP) {
		fprintf(stderr, "fpuring: %s: %s: this kernel lacks it\n", what,
			strerror(-res));
		exit(UNSUPPORTED);
	}
	if (res < 0) {
		fprintf(stderr, "fpuring: %s: %s\n", what, strerror(-res));
		exit(1);
	}
	printf("ok %s res=%d\n", what, res);
	fflush(stdout);
	return res;
}

/* the request that op_name is about: the one --skip-success marks */
static int run_main(struct io_uring_sqe *sqe, const char *what)
{
	return run_one(sqe, what, opt_skip);
}

/* An open through the ring: an fd, or with --direct a fixed-file slot. */
static int ring_open(const char *path, int flags, bool two)
{
	struct io_uring_sqe *sqe = sqe_get();
	struct open_how how = { .flags = flags, .mode = 0644 };
	int res;

	if (two)
		io_uring_prep_openat2(sqe, AT_FDCWD, path, &how);
	else
		io_uring_prep_openat(sqe, AT_FDCWD, path, flags, 0644);
	if (opt_direct)
		sqe->file_index = IORING_FILE_INDEX_ALLOC;
	/* with --skip-success the open's slot is not known: ask for 0 */
	if (opt_direct && opt_skip)
		sqe->file_index = 1;
	res = run_main(sqe, two ? "openat2" : "openat");
	return opt_direct && opt_skip ? 0 : res;
}

static void fixed(struct io_uring_sqe *sqe)
{
	if (opt_direct)
		sqe->flags |= IOSQE_FIXED_FILE;
}

static void ring_close(int fd)
{
	struct io_uring_sqe *sqe = sqe_get();

	if (opt_direct)
		io_uring_prep_close_direct(sqe, fd);
	else
		io_uring_prep_close(sqe, fd);
	run_one(sqe, "close", false);
}

static int op_read(char **a)
{
	char buf[4096];
	struct io_uring_sqe *sqe;
	int fd = ring_open(a[0], O_RDONLY, false), n;

	sqe = sqe_get();
	io_uring_prep_read(sqe, fd, buf, sizeof(buf), 0);
	fixed(sqe);
	n = run_one(sqe, "read", false);
	fwrite(buf, 1, n, stdout);
	ring_close(fd);
	return 0;
}

static int write_text(int fd, const char *text)
{
	struct io_uring_sqe *sqe = sqe_get();

	io_uring_prep_write(sqe, fd, text, strlen(text), -1);
	fixed(sqe);
	run_one(sqe, "write", false);
	ring_close(fd);
	return 0;
}

static int op_append(char **a)
{
	return write_text(ring_open(a[0], O_WRONLY | O_APPEND | O_CREAT, false),
			  a[1]);
}

static int op_create(char **a)
{
	return write_text(ring_open(a[0], O_WRONLY | O_CREAT | O_TRUNC, true),
			  a[1]);
}

static int op_unlink(char **a, int flags)
{
	struct io_uring_sqe *sqe = sqe_get();

	io_uring_prep_unlinkat(sqe, AT_FDCWD, a[0], flags);
	run_main(sqe, "unlinkat");
	return 0;
}

static int op_rename(char **a)
{
	struct io_uring_sqe *sqe = sqe_get();

	io_uring_prep_renameat(sqe, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
	run_main(sqe, "renameat");
	return 0;
}

static int op_mkdir(char **a)
{
	struct io_uring_sqe *sqe = sqe_get();

	io_uring_prep_mkdirat(sqe, AT_FDCWD, a[0], 0755);
	run_main(sqe, "mkdirat");
	return 0;
}

static int op_symlink(char **a)
{
	struct io_uring_sqe *sqe = sqe_get();

	io_uring_prep_symlinkat(sqe, a[0], AT_FDCWD, a[1]);
	run_main(sqe, "symlinkat");
	return 0;
}

static int op_link(char **a)
{
	struct io_uring_sqe *sqe = sqe_get();

	io_uring_prep_linkat(sqe, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
	run_main(sqe, "linkat");
	return 0;
}

static int op_truncate(char **a)
{
	bool skip = opt_skip;
	struct io_uring_sqe *sqe;
	int fd;

	opt_skip = false;
	fd = ring_open(a[0], O_RDWR, false);
	opt_skip = skip;
	sqe = sqe_get();
	io_uring_prep_rw(IORING_OP_FTRUNCATE, sqe, fd, NULL, 0, 0);
	fixed(sqe);
	run_main(sqe, "ftruncate");
	ring_close(fd);
	return 0;
}

static void sockaddr_of(struct sockaddr_in *sin, char **a)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(atoi(a[1]));
	if (inet_pton(AF_INET, a[0], &sin->sin_addr) != 1) {
		fprintf(stderr, "fpuring: %s is not an IPv4 address\n", a[0]);
		exit(2);
	}
}

static int op_connect(char **a)
{
	struct sockaddr_in sin;
	struct io_uring_sqe *sqe;
	int s = socket(AF_INET, SOCK_STREAM, 0);

	sockaddr_of(&sin, a);
	sqe = sqe_get();
	io_uring_prep_connect(sqe, s, (struct sockaddr *)&sin, sizeof(sin));
	run_main(sqe, "connect");
	sqe = sqe_get();
	io_uring_prep_send(sqe, s, a[2], strlen(a[2]), 0);
	run_one(sqe, "send", false);
	close(s);
	return 0;
}

static int op_sendto(char **a, int opcode)
{
	struct sockaddr_in sin;
	struct iovec iov = { a[2], strlen(a[2]) };
	struct msghdr msg = { .msg_name = &sin,
			      .msg_namelen = sizeof(sin),
			      .msg_iov = &iov,
			      .msg_iovlen = 1 };
	struct io_uring_sqe *sqe;
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	sockaddr_of(&sin, a);
	sqe = sqe_get();
	if (opcode == IORING_OP_SENDMSG) {
		io_uring_prep_sendmsg(sqe, s, &msg, 0);
	} else {
		io_uring_prep_send(sqe, s, a[2], strlen(a[2]), 0);
		sqe->opcode = opcode;
		/* sendto: the destination in addr2 and addr_len */
		sqe->addr2 = (unsigned long)&sin;
		sqe->addr_len = sizeof(sin);
	}
	run_main(sqe, opcode == IORING_OP_SENDMSG ? "sendmsg" :
		      opcode == IORING_OP_SEND	  ? "send" :
						    "send_zc");
	if (opcode == IORING_OP_SEND_ZC) {
		/* the notification that the buffer is free again */
		struct io_uring_cqe *cqe;

		if (!io_uring_wait_cqe(&ring, &cqe))
			io_uring_cqe_seen(&ring, cqe);
	}
	close(s);
	return 0;
}

static int op_bind(char **a)
{
	struct sockaddr_in sin;
	struct io_uring_sqe *sqe;
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sockaddr_of(&sin, a);
	sqe = sqe_get();
	io_uring_prep_rw(IORING_OP_BIND, sqe, s, &sin, 0, sizeof(sin));
	run_main(sqe, "bind");
	sqe = sqe_get();
	io_uring_prep_rw(IORING_OP_LISTEN, sqe, s, NULL, 16, 0);
	run_one(sqe, "listen", false);
	close(s);
	return 0;
}

static int op_accept(char **a)
{
	struct sockaddr_in sin;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1, n = atoi(a[2]), i;
	int c[16];

	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sockaddr_of(&sin, a);
	if (n < 1 || n > 16 || bind(l, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(l, 16)) {
		fprintf(stderr, "fpuring: listen: %s\n", strerror(errno));
		exit(1);
	}
	sqe = sqe_get();
	io_uring_prep_multishot_accept(sqe, l, NULL, NULL, 0);
	sqe->user_data = 1;
	io_uring_submit(&ring);
	for (i = 0; i < n; i++) {
		c[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c[i], (struct sockaddr *)&sin, sizeof(sin))) {
			fprintf(stderr, "fpuring: connect: %s\n",
				strerror(errno));
			exit(1);
		}
	}
	for (i = 0; i < n; i++) {
		int ret = io_uring_wait_cqe(&ring, &cqe);

		if (ret || cqe->res < 0) {
			ret = ret ? ret : cqe->res;
			fprintf(stderr, "fpuring: accept: %s\n",
				strerror(-ret));
			exit(ret == -EINVAL ? UNSUPPORTED : 1);
		}
		printf("ok accept res=%d\n", cqe->res);
		close(cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
	for (i = 0; i < n; i++)
		close(c[i]);
	close(l);
	return 0;
}

static int op_xattr(char **a)
{
	struct io_uring_sqe *sqe = sqe_get();

	io_uring_prep_setxattr(sqe, "user.fp", "1", a[0], 0, 1);
	run_main(sqe, "setxattr");
	return 0;
}

static int op_sockcmd(void)
{
	struct io_uring_sqe *sqe = sqe_get();
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, s, NULL, 0, 0);
	sqe->cmd_op = SOCKET_URING_OP_SIOCINQ;
	run_main(sqe, "uring_cmd");
	close(s);
	return 0;
}

static int op_nop(void)
{
	struct io_uring_sqe *sqe = sqe_get();

	io_uring_prep_nop(sqe);
	run_main(sqe, "nop");
	return 0;
}

struct op {
	const char *name;
	int nargs;
};

static const struct op ops[] = {
	{ "read", 1 },	  { "append", 2 },   { "create", 2 },  { "unlink", 1 },
	{ "rmdir", 1 },	  { "rename", 2 },   { "mkdir", 1 },   { "symlink", 2 },
	{ "link", 2 },	  { "truncate", 1 }, { "connect", 3 }, { "sendto", 3 },
	{ "sendmsg", 3 }, { "sendzc", 3 },   { "bind", 2 },    { "xattr", 1 },
	{ "sockcmd", 0 }, { "nop", 0 },	     { "accept", 3 },  { NULL, 0 },
};

static int dispatch(const char *name, char **a)
{
	if (!strcmp(name, "read"))
		return op_read(a);
	if (!strcmp(name, "append"))
		return op_append(a);
	if (!strcmp(name, "create"))
		return op_create(a);
	if (!strcmp(name, "unlink"))
		return op_unlink(a, 0);
	if (!strcmp(name, "rmdir"))
		return op_unlink(a, AT_REMOVEDIR);
	if (!strcmp(name, "rename"))
		return op_rename(a);
	if (!strcmp(name, "mkdir"))
		return op_mkdir(a);
	if (!strcmp(name, "symlink"))
		return op_symlink(a);
	if (!strcmp(name, "link"))
		return op_link(a);
	if (!strcmp(name, "truncate"))
		return op_truncate(a);
	if (!strcmp(name, "connect"))
		return op_connect(a);
	if (!strcmp(name, "sendto"))
		return op_sendto(a, IORING_OP_SEND);
	if (!strcmp(name, "sendmsg"))
		return op_sendto(a, IORING_OP_SENDMSG);
	if (!strcmp(name, "sendzc"))
		return op_sendto(a, IORING_OP_SEND_ZC);
	if (!strcmp(name, "bind"))
		return op_bind(a);
	if (!strcmp(name, "xattr"))
		return op_xattr(a);
	if (!strcmp(name, "accept"))
		return op_accept(a);
	if (!strcmp(name, "sockcmd"))
		return op_sockcmd();
	return op_nop();
}

int main(int argc, char **argv)
{
	struct io_uring_params p = { 0 };
	const struct op *o;
	int i = 1, ret;

	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--sqpoll")) {
			p.flags |= IORING_SETUP_SQPOLL;
			p.sq_thread_idle = 2000;
		} else if (!strcmp(argv[i], "--async")) {
			opt_async = true;
		} else if (!strcmp(argv[i], "--direct")) {
			opt_direct = true;
		} else if (!strcmp(argv[i], "--skip-success")) {
			opt_skip = true;
		} else {
			fprintf(stderr, "fpuring: unknown option %s\n",
				argv[i]);
			return 2;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "usage: fpuring [OPTIONS] OP ARGS...\n");
		return 2;
	}
	op_name = argv[i];
	for (o = ops; o->name && strcmp(o->name, op_name); o++)
		;
	if (!o->name || argc - i - 1 != o->nargs) {
		fprintf(stderr, "fpuring: bad operation or arguments: %s\n",
			op_name);
		return 2;
	}
	ret = io_uring_queue_init_params(8, &ring, &p);
	if (ret) {
		fprintf(stderr, "fpuring: io_uring_setup: %s\n",
			strerror(-ret));
		return ret == -ENOSYS || ret == -EPERM ? UNSUPPORTED : 1;
	}
	if (opt_direct) {
		ret = io_uring_register_files_sparse(&ring, 4);
		if (ret) {
			fprintf(stderr, "fpuring: register files: %s\n",
				strerror(-ret));
			return 1;
		}
	}
	ret = dispatch(op_name, argv + i + 1);
	io_uring_queue_exit(&ring);
	return ret;
}
