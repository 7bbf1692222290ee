/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bounded parser of DNS messages (RFC 1035) as the kernel copied them:
 * at most FP_DNS_MAX bytes, possibly cut, possibly hostile. Pure: no
 * allocation, no I/O; every read is checked against the length, every
 * compression pointer must point backwards, and a name is at most 255
 * bytes, so a message cannot make it loop or overrun.
 */
#ifndef FP_DNS_H
#define FP_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FP_DNS_NAME_MAX 256 /* printable, NUL included: 253 + escapes cut */
#define FP_DNS_ANSWERS_MAX 16

#define FP_DNS_T_A 1
#define FP_DNS_T_CNAME 5
#define FP_DNS_T_AAAA 28

struct fp_dns_rr {
	uint16_t type;
	/* A, AAAA: the printable address; CNAME: the target name */
	char data[FP_DNS_NAME_MAX];
	char owner[FP_DNS_NAME_MAX];
};

struct fp_dns_msg {
	uint16_t id;
	bool response;
	uint8_t rcode;
	char qname[FP_DNS_NAME_MAX]; /* lower case, no trailing dot */
	uint16_t qtype;
	unsigned int nanswers; /* A, AAAA and CNAME records kept */
	struct fp_dns_rr an[FP_DNS_ANSWERS_MAX];
	bool cut; /* the message ended early: what was read is kept */
};

/*
 * Parse len bytes at p. tcp: the message may start with its two-byte
 * length (RFC 1035 4.2.2). 0 when at least the question was read, else
 * -EINVAL.
 */
int fp_dns_parse(const uint8_t *p, size_t len, bool tcp, struct fp_dns_msg *m);
/* "A", "AAAA", "CNAME", "MX", ... or "TYPE<n>" into buf */
const char *fp_dns_type_name(uint16_t type, char *buf, size_t len);

#endif
