// SPDX-License-Identifier: GPL-2.0
/*
 * The sidecar's control socket, both sides (sidecar_proto.h): what the
 * client encodes, the daemon decodes, fds and answer included.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "receipt.h"
#include "sidecar_proto.h"

static void pair(int sv[2])
{
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv),
		     0);
}

/* the stop request and its four fds, from the client to the daemon */
Test(sidecar_proto, stop_request_round_trip)
{
	struct fp_sc_stop_req r = { .annotations = true,
				    .summary_max = 25,
				    .expect = "1234:5678" },
			      back;
	int sv[2], fds[FP_SC_STOP_FDS], i, rc;
	struct fp_sc_msg m;
	struct stat a, b;

	pair(sv);
	for (i = 0; i < FP_SC_STOP_FDS; i++)
		fds[i] = open("/dev/null", O_WRONLY | O_CLOEXEC);
	/* the answer is queued first: the client reads it after it sends */
	fp_sc_reply_code(sv[1], 124);
	rc = fp_sc_ask_stop(sv[0], &r, fds);
	cr_assert_eq(rc, 124);
	cr_assert_gt(fp_sc_recv(sv[1], &m), 0);
	cr_assert_eq(m.buf[0], FP_SC_STOP);
	cr_assert(m.fds_ok);
	cr_assert_eq(fstat(m.fds[FP_SC_FD_STDERR], &a), 0);
	cr_assert_eq(fstat(fds[FP_SC_FD_STDERR], &b), 0);
	cr_assert_eq(a.st_ino, b.st_ino);
	fp_sc_stop_decode(&m, &back);
	cr_assert(back.annotations);
	cr_assert(!back.quiet);
	cr_assert_eq(back.summary_max, 25);
	cr_assert_str_eq(back.expect, "1234:5678");
	fp_sc_msg_close_fds(&m);
	for (i = 0; i < FP_SC_STOP_FDS; i++) {
		cr_assert_eq(m.fds[i], -1);
		close(fds[i]);
	}
	close(sv[0]);
	close(sv[1]);
}

/* no daemon expected, quiet, and a --summary-max past the limit */
Test(sidecar_proto, stop_request_bounds)
{
	struct fp_sc_stop_req r = { .quiet = true,
				    .summary_max = FP_SUMMARY_MAX_LIMIT + 1 },
			      back;
	int sv[2], fds[FP_SC_STOP_FDS] = { 0, 0, 1, 2 };
	struct fp_sc_msg m;

	pair(sv);
	fp_sc_reply(sv[1], "E refused");
	cr_assert_eq(fp_sc_ask_stop(sv[0], &r, fds), -1);
	cr_assert_gt(fp_sc_recv(sv[1], &m), 0);
	fp_sc_stop_decode(&m, &back);
	cr_assert(back.quiet && !back.annotations);
	cr_assert_eq(back.summary_max, FP_SUMMARY_MAX_LIMIT);
	cr_assert_str_eq(back.expect, "");
	fp_sc_msg_close_fds(&m);
	close(sv[0]);
	close(sv[1]);
}

/* a request without fds, and one that is not there yet */
Test(sidecar_proto, mark_and_nothing_yet)
{
	char req[] = { FP_SC_MARK, 'b', 'u', 'i', 'l', 'd' }, ans[8];
	int sv[2];
	struct fp_sc_msg m;

	pair(sv);
	cr_assert_eq(fp_sc_recv(sv[1], &m), -EAGAIN);
	fp_sc_reply(sv[1], "K");
	cr_assert_eq(fp_sc_ask(sv[0], req, sizeof(req), ans, sizeof(ans), 5),
		     1);
	cr_assert_eq(ans[0], 'K');
	cr_assert_eq(fp_sc_recv(sv[1], &m), (ssize_t)sizeof(req));
	cr_assert_eq(m.buf[0], FP_SC_MARK);
	cr_assert_str_eq(m.buf + 1, "build");
	cr_assert(!m.fds_ok);
	cr_assert_eq(m.fds[0], -1);
	close(sv[0]);
	close(sv[1]);
}
