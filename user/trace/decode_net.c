// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "decode_net.h"

/* family, printable address and port of a sockaddr of len bytes */
static void sockaddr_print(const uint8_t *sa, size_t len, int *family,
			   char *out, size_t outlen, uint16_t *port)
{
	uint16_t fam = 0;

	if (len >= sizeof(fam))
		memcpy(&fam, sa, sizeof(fam));
	*family = fam;
	if (fam == AF_INET && len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in sin;

		memcpy(&sin, sa, sizeof(sin));
		*port = ntohs(sin.sin_port);
		inet_ntop(AF_INET, &sin.sin_addr, out, outlen);
	} else if (fam == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 sin6;

		memcpy(&sin6, sa, sizeof(sin6));
		*port = ntohs(sin6.sin6_port);
		inet_ntop(AF_INET6, &sin6.sin6_addr, out, outlen);
	}
}

int fp_decode_net(const void *rec, size_t size, struct fp_event *ev)
{
	const struct fp_net *n = rec;
	size_t len;

	if (size < sizeof(*n))
		return -EINVAL;
	len = n->key.addrlen < sizeof(n->key.addr) ? n->key.addrlen :
						     sizeof(n->key.addr);
	ev->net.op = n->key.op;
	ev->net.ret = n->key.ret;
	ev->net.fd = n->fd;
	ev->net.sock_type = n->key.sock_type;
	ev->net.protocol = n->key.protocol;
	ev->net.count = n->count;
	sockaddr_print(n->key.addr, len, &ev->net.family, ev->net.address,
		       sizeof(ev->net.address), &ev->net.port);
	if (ev->net.family == AF_UNIX && len > 2) {
		const char *p = (const char *)n->key.addr + 2;
		size_t k = len - 2;

		/* a pathname socket's name ends at its NUL; abstract ones
		 * don't */
		if (p[0] != '\0')
			k = strnlen(p, k);
		return fp_bytes_dup(&ev->net.unix_path, p, k);
	}
	return 0;
}

int fp_decode_dns(const void *rec, size_t size, struct fp_event *ev)
{
	const struct fp_dns *d = rec;
	size_t fixed = sizeof(*d) - FP_DNS_MAX;

	unsigned int dir = d->dir & 0xff;

	if (size < fixed || d->len > FP_DNS_MAX || d->len > size - fixed ||
	    dir < FP_DNS_QUERY || dir > FP_DNS_DELIVERED ||
	    (d->dir & ~(0xff | FP_DNS_F_USERNS)))
		return -EINVAL;
	ev->dns.dir = dir;
	ev->dns.flags = d->dir & FP_DNS_F_USERNS;
	ev->dns.sock = d->sock;
	ev->dns.fd = d->fd;
	ev->dns.sock_type = d->sock_type;
	ev->dns.total = d->total;
	sockaddr_print(d->peer, sizeof(d->peer), &ev->dns.family,
		       ev->dns.server, sizeof(ev->dns.server), &ev->dns.port);
	return fp_bytes_dup(&ev->dns.data, (const char *)d->data, d->len);
}
