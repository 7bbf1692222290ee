// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "netcodec.h"

void fp_enc_net_event(struct fp_enc *e, const struct fp_event *ev)
{
	if (ev->type == FP_EV_DNS) {
		fp_enc_u64(e, ev->dns.dir);
		fp_enc_i64(e, ev->dns.fd);
		fp_enc_u64(e, ev->dns.sock_type);
		fp_enc_u64(e, ev->dns.port);
		fp_enc_u64(e, ev->dns.family);
		fp_enc_str(e, ev->dns.server);
		fp_enc_u64(e, ev->dns.total);
		fp_enc_bytes(e, ev->dns.data.data, ev->dns.data.len);
		/* after what older logs end with */
		fp_enc_u64(e, ev->dns.sock);
		fp_enc_u64(e, ev->dns.flags);
		return;
	}
	fp_enc_u64(e, ev->net.op);
	fp_enc_i64(e, ev->net.ret);
	fp_enc_i64(e, ev->net.fd);
	fp_enc_u64(e, ev->net.family);
	fp_enc_str(e, ev->net.address);
	fp_enc_bytes(e, ev->net.unix_path.data, ev->net.unix_path.len);
	fp_enc_u64(e, ev->net.port);
	fp_enc_u64(e, ev->net.sock_type);
	fp_enc_u64(e, ev->net.protocol);
	fp_enc_u64(e, ev->net.count);
}

/* a string of at most n - 1 bytes into buf; longer is damage */
static void dec_fixed(struct fp_dec *d, char *buf, size_t n)
{
	char *s = fp_dec_str(d);

	if (s && snprintf(buf, n, "%s", s) >= (int)n)
		d->err = -EBADMSG;
	free(s);
}

void fp_dec_net_event(struct fp_dec *d, struct fp_event *ev)
{
	if (ev->type == FP_EV_DNS) {
		ev->dns.dir = fp_dec_u64(d);
		ev->dns.fd = fp_dec_i64(d);
		ev->dns.sock_type = fp_dec_u64(d);
		ev->dns.port = fp_dec_u64(d);
		ev->dns.family = fp_dec_u64(d);
		dec_fixed(d, ev->dns.server, sizeof(ev->dns.server));
		ev->dns.total = fp_dec_u64(d);
		fp_dec_bytes(d, &ev->dns.data);
		if (ev->dns.data.len > FP_DNS_MAX ||
		    ev->dns.dir < FP_DNS_QUERY ||
		    ev->dns.dir > FP_DNS_DELIVERED)
			d->err = -EBADMSG;
		/* a log of an older footprint ends here: socket unknown */
		if (d->pos < d->len && !d->err) {
			uint64_t sock = fp_dec_u64(d), flags = fp_dec_u64(d);

			if (sock > UINT32_MAX || (flags & ~FP_DNS_F_USERNS))
				d->err = -EBADMSG;
			ev->dns.sock = sock;
			ev->dns.flags = flags;
		}
		return;
	}
	ev->net.op = fp_dec_u64(d);
	ev->net.ret = fp_dec_i64(d);
	ev->net.fd = fp_dec_i64(d);
	ev->net.family = fp_dec_u64(d);
	dec_fixed(d, ev->net.address, sizeof(ev->net.address));
	fp_dec_bytes(d, &ev->net.unix_path);
	ev->net.port = fp_dec_u64(d);
	ev->net.sock_type = fp_dec_u64(d);
	ev->net.protocol = fp_dec_u64(d);
	ev->net.count = fp_dec_u64(d);
	if (ev->net.op < FP_NET_CONNECT || ev->net.op > FP_NET_OUTCOME)
		d->err = -EBADMSG;
}
