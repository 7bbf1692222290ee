// SPDX-License-Identifier: GPL-2.0
/* logcodec.c: the event body of the log, for the sidecar's additions */
#include <criterion/criterion.h>
#include <string.h>

#include "codec_fixture.h"
#include "logcodec.h"

static struct fp_event base(uint32_t type)
{
	struct fp_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.ts_ns = 5000;
	ev.pid = 42;
	ev.tid = 42;
	strcpy(ev.comm, "sh");
	return ev;
}

Test(logcodec, exec_step_name_roundtrip)
{
	struct fp_event in = base(FP_EV_EXEC), out;

	in.exec.exe = (struct fp_bytes){ "/bin/sh", 7 };
	in.exec.filename = (struct fp_bytes){ "sh", 2 };
	in.exec.step_name = (struct fp_bytes){ "build", 5 };
	roundtrip(&in, &out);
	cr_assert_eq(out.exec.step_name.len, 5);
	cr_assert(!memcmp(out.exec.step_name.data, "build", 5));
	fp_event_free(&out);
	in.exec.step_name = (struct fp_bytes){ NULL, 0 };
	roundtrip(&in, &out);
	cr_assert_null(out.exec.step_name.data);
	fp_event_free(&out);
}

/* A version 2 exec ends at old_pid: it reads with no step name. */
Test(logcodec, exec_of_version_2_reads)
{
	struct fp_event in = base(FP_EV_EXEC), out;
	struct fp_enc e = { 0 };
	struct fp_dec d;
	uint64_t ts = 0;

	in.exec.exe = (struct fp_bytes){ "/bin/sh", 7 };
	in.exec.filename = (struct fp_bytes){ "sh", 2 };
	fp_enc_event(&e, &in, &ts);
	/* drop the step name (one byte: its empty length) */
	cr_assert_eq(e.p[e.len - 1], 0);
	d = (struct fp_dec){ .p = e.p, .len = e.len - 1 };
	ts = 0;
	cr_assert_eq(fp_dec_event(&d, &out, &ts), 0);
	cr_assert_eq(out.exec.filename.len, 2);
	cr_assert_null(out.exec.step_name.data);
	fp_event_free(&out);
	fp_enc_free(&e);
}

Test(logcodec, tamper_roundtrip)
{
	struct fp_event in = base(FP_EV_TAMPER), out;
	uint32_t kinds[] = { FP_TAMPER_SIGNAL, FP_TAMPER_BPF, FP_TAMPER_PTRACE,
			     FP_TAMPER_HEARTBEAT };
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		in.tamper.kind = kinds[i];
		in.tamper.sig = 15;
		in.tamper.target_pid = 4000000;
		in.tamper.arg = -5;
		roundtrip(&in, &out);
		cr_assert_eq(out.type, FP_EV_TAMPER);
		cr_assert_eq(out.tamper.kind, kinds[i]);
		cr_assert_eq(out.tamper.sig, 15);
		cr_assert_eq(out.tamper.target_pid, 4000000);
		cr_assert_eq(out.tamper.arg, -5);
		fp_event_free(&out);
	}
}

Test(logcodec, tamper_bad_kind_refused)
{
	struct fp_event in = base(FP_EV_TAMPER), out;
	struct fp_enc e = { 0 };
	struct fp_dec d;
	uint64_t ts = 0;

	in.tamper.kind = 9;
	fp_enc_event(&e, &in, &ts);
	d = (struct fp_dec){ .p = e.p, .len = e.len };
	ts = 0;
	cr_assert_neq(fp_dec_event(&d, &out, &ts), 0);
	/* and a body cut short */
	in.tamper.kind = FP_TAMPER_BPF;
	fp_enc_reset(&e);
	ts = 0;
	fp_enc_event(&e, &in, &ts);
	d = (struct fp_dec){ .p = e.p, .len = e.len - 1 };
	ts = 0;
	cr_assert_neq(fp_dec_event(&d, &out, &ts), 0);
	fp_enc_free(&e);
}

static struct fp_event open_event(uint32_t count)
{
	struct fp_event ev = base(FP_EV_FILE);

	ev.file.sys = FP_SYS_OPENAT;
	ev.file.ret = 3;
	ev.file.npaths = 1;
	ev.file.path[0].path = (struct fp_bytes){ "/etc/hosts", 10 };
	ev.file.path[0].dirfd = -100;
	ev.file.count = count;
	return ev;
}

/* A collapsed open keeps its count; one of count 1 is a version 4 record. */
Test(logcodec, open_count_roundtrip)
{
	struct fp_event in = open_event(1234), one = open_event(1), out;
	struct fp_enc a = { 0 }, b = { 0 };
	uint64_t ts = 0;

	roundtrip(&in, &out);
	cr_assert_eq(out.file.count, 1234);
	fp_event_free(&out);
	roundtrip(&one, &out);
	cr_assert_eq(out.file.count, 1);
	fp_event_free(&out);
	fp_enc_event(&a, &in, &ts);
	ts = 0;
	fp_enc_event(&b, &one, &ts);
	cr_assert_gt(a.len, b.len, "the count is a trailing field");
	cr_assert(!memcmp(a.p, b.p, b.len));
	fp_enc_free(&a);
	fp_enc_free(&b);
}

/* A count of 0 or 1 is never written: reading one is damage. */
Test(logcodec, open_count_below_two_refused)
{
	struct fp_event in = open_event(1), out;
	struct fp_enc e = { 0 };
	struct fp_dec d;
	uint64_t ts = 0;

	fp_enc_event(&e, &in, &ts);
	fp_enc_u64(&e, 1);
	d = (struct fp_dec){ .p = e.p, .len = e.len };
	ts = 0;
	cr_assert_neq(fp_dec_event(&d, &out, &ts), 0);
	fp_event_free(&out);
	fp_enc_free(&e);
}

static struct fp_event dns_event(uint32_t dir)
{
	struct fp_event ev = base(FP_EV_DNS);

	ev.dns.dir = dir;
	ev.dns.fd = 3;
	ev.dns.sock_type = 2;
	ev.dns.port = 53;
	ev.dns.family = 2;
	strcpy(ev.dns.server, "127.0.0.1");
	ev.dns.total = 4;
	ev.dns.data = (struct fp_bytes){ "\x12\x34\x81\x80", 4 };
	ev.dns.sock = 123456;
	ev.dns.flags = FP_DNS_F_USERNS;
	return ev;
}

Test(logcodec, dns_socket_and_kernel_copy_roundtrip)
{
	struct fp_event in = dns_event(FP_DNS_DELIVERED), out;

	roundtrip(&in, &out);
	cr_assert_eq(out.dns.dir, FP_DNS_DELIVERED);
	cr_assert_eq(out.dns.sock, 123456);
	cr_assert_eq(out.dns.flags, FP_DNS_F_USERNS);
	cr_assert_eq(out.dns.data.len, 4);
	fp_event_free(&out);
}

/* An older footprint's dns record ends at its data: socket unknown. */
Test(logcodec, dns_of_an_older_log_reads)
{
	struct fp_event in = dns_event(FP_DNS_ANSWER), out;
	struct fp_enc e = { 0 };
	struct fp_dec d;
	uint64_t ts = 0;

	in.dns.sock = 5; /* one byte, as flags 0 is */
	in.dns.flags = 0;
	fp_enc_event(&e, &in, &ts);
	d = (struct fp_dec){ .p = e.p, .len = e.len - 2 };
	ts = 0;
	cr_assert_eq(fp_dec_event(&d, &out, &ts), 0);
	cr_assert_eq(out.dns.dir, FP_DNS_ANSWER);
	cr_assert_eq(out.dns.sock, 0);
	cr_assert_eq(out.dns.data.len, 4);
	fp_event_free(&out);
	fp_enc_free(&e);
}

Test(logcodec, dns_bad_dir_or_flags_refused)
{
	struct fp_event in = dns_event(4), out;
	struct fp_enc e = { 0 };
	struct fp_dec d;
	uint64_t ts = 0;

	fp_enc_event(&e, &in, &ts);
	d = (struct fp_dec){ .p = e.p, .len = e.len };
	cr_assert_neq(fp_dec_event(&d, &out, &ts), 0);
	fp_enc_free(&e);
	in = dns_event(FP_DNS_QUERY);
	in.dns.flags = 0x8000;
	e = (struct fp_enc){ 0 };
	ts = 0;
	fp_enc_event(&e, &in, &ts);
	d = (struct fp_dec){ .p = e.p, .len = e.len };
	cr_assert_neq(fp_dec_event(&d, &out, &ts), 0);
	fp_enc_free(&e);
}
