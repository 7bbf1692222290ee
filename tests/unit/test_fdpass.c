// SPDX-License-Identifier: GPL-2.0
/*
 * One message and one descriptor over a unix socket (fdpass.h): the
 * descriptor arrives close-on-exec and names the same file; a message of
 * another size, shorter or longer, is refused and the descriptor sent
 * with it closed.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdpass.h"

struct msg {
	int type;
	int value;
};

static void pair(int sv[2])
{
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
}

Test(fdpass, a_descriptor_arrives_close_on_exec_and_the_same_file)
{
	struct msg out = { 'P', 42 }, in = { 0 };
	struct stat a, b;
	int sv[2], p[2], fd;

	pair(sv);
	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(fp_fdpass_send(sv[0], &out, sizeof(out), p[0]), 0);
	cr_assert_eq(fp_fdpass_recv(sv[1], &in, sizeof(in), &fd), 0);
	cr_assert_eq(in.type, 'P');
	cr_assert_eq(in.value, 42);
	cr_assert_geq(fd, 0);
	cr_assert_neq(fd, p[0]);
	cr_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	cr_assert_eq(fstat(fd, &a), 0);
	cr_assert_eq(fstat(p[0], &b), 0);
	cr_assert_eq(a.st_ino, b.st_ino);
	close(fd);
}

Test(fdpass, no_descriptor_gives_minus_one)
{
	struct msg out = { 'X', 9 }, in = { 0 };
	int sv[2], fd = 5;

	pair(sv);
	cr_assert_eq(fp_fdpass_send(sv[0], &out, sizeof(out), -1), 0);
	cr_assert_eq(fp_fdpass_recv(sv[1], &in, sizeof(in), &fd), 0);
	cr_assert_eq(fd, -1);
	cr_assert_eq(in.value, 9);
}

Test(fdpass, another_size_is_refused_and_its_descriptor_closed)
{
	char shorter = 'P';
	struct msg in;
	int sv[2], p[2], fd, before;

	pair(sv);
	cr_assert_eq(pipe(p), 0);
	before = dup(0);
	close(before);
	cr_assert_eq(fp_fdpass_send(sv[0], &shorter, 1, p[1]), 0);
	cr_assert_eq(fp_fdpass_recv(sv[1], &in, sizeof(in), &fd), -1);
	cr_assert_eq(fd, -1);
	/* the lowest free descriptor is free again: nothing was kept */
	fd = dup(0);
	cr_assert_eq(fd, before);
	close(fd);
}

Test(fdpass, the_end_of_the_stream_is_an_error)
{
	struct msg in;
	int sv[2], fd;

	pair(sv);
	close(sv[0]);
	cr_assert_eq(fp_fdpass_recv(sv[1], &in, sizeof(in), &fd), -1);
	cr_assert_eq(fd, -1);
	cr_assert_eq(fp_fdpass_send(sv[1], &in, sizeof(in), -1), -EPIPE);
}

Test(fdpass, a_longer_message_is_refused_not_cut)
{
	char longer[16] = { 'P' };
	struct msg in;
	int sv[2], fd;

	pair(sv);
	cr_assert_eq(fp_fdpass_send(sv[0], longer, sizeof(longer), -1), 0);
	cr_assert_eq(fp_fdpass_recv(sv[1], &in, sizeof(in), &fd), -1);
	cr_assert_eq(fd, -1);
}
