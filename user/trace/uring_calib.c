// SPDX-License-Identifier: GPL-2.0
/*
 * Where this kernel keeps the address an io_uring CONNECT or BIND copied:
 * not in its BTF (a stable 6.18 kernel moved it from struct
 * io_async_msghdr to a plain sockaddr_storage), so the tracer connects a
 * UDP socket of its own to 127.0.0.1:FP_URING_CALIB_PORT through a ring
 * and the kernel side (bpf/uring.bpf.c, calibrate()) looks for that
 * address at either place. Raw system calls: footprint does not need
 * liburing for one request.
 */
#include <errno.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/types.h>

#include "footprint.h"
#include "footprint.skel.h"
#include "uring_calib.h"

/* One CONNECT of fd to sin through a new ring; 0 once it completed. */
static int ring_connect(int fd, const struct sockaddr_in *sin)
{
	struct io_uring_params p;
	struct io_uring_sqe *sqes = MAP_FAILED;
	unsigned int *tail, *array;
	void *sq = MAP_FAILED;
	size_t sq_len = 0;
	int ring, ret = -EIO;

	memset(&p, 0, sizeof(p));
	ring = syscall(__NR_io_uring_setup, 1, &p);
	if (ring < 0)
		return -errno;
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED, ring,
		  IORING_OFF_SQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || sqes == MAP_FAILED)
		goto cleanup;
	memset(&sqes[0], 0, sizeof(sqes[0]));
	sqes[0].opcode = IORING_OP_CONNECT;
	sqes[0].fd = fd;
	sqes[0].addr = (unsigned long)sin;
	sqes[0].off = sizeof(*sin); /* addr2: the length */
	array = (unsigned int *)((char *)sq + p.sq_off.array);
	tail = (unsigned int *)((char *)sq + p.sq_off.tail);
	array[*tail & *(unsigned int *)((char *)sq + p.sq_off.ring_mask)] = 0;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	ret = syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS,
		      NULL, 0);
	ret = ret == 1 ? 0 : ret < 0 ? -errno : -EIO;
cleanup:
	if (sqes != MAP_FAILED)
		munmap(sqes, p.sq_entries * sizeof(*sqes));
	if (sq != MAP_FAILED)
		munmap(sq, sq_len);
	close(ring);
	return ret;
}

int fp_uring_calibrate(struct footprint_bpf *skel)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(FP_URING_CALIB_PORT),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int fd, ret;

	if (!skel->rodata->uring_traced)
		return 0;
	/* learned at an earlier attach of this run */
	if (skel->bss->uring_addr_at != FP_URING_ADDR_UNKNOWN)
		return 0;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	__atomic_store_n(&skel->bss->uring_calib_tgid, getpid(),
			 __ATOMIC_RELEASE);
	ret = ring_connect(fd, &sin);
	__atomic_store_n(&skel->bss->uring_calib_tgid, 0, __ATOMIC_RELEASE);
	close(fd);
	/* no ring at all (io_uring disabled): the command gets none either */
	return ret == -ENOSYS || ret == -EPERM ? 0 : ret;
}
