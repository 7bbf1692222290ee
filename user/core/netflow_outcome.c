// SPDX-License-Identifier: GPL-2.0
/*
 * How a TCP connect ended. A blocking connect's result says it; one that
 * returned EINPROGRESS (curl, every event loop) ends later, and the kernel
 * side reports how (FP_NET_OUTCOME, from sock:inet_sock_set_state), which
 * netflow.c keeps with its connection.
 */
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "netflow.h"

const char *fp_conn_outcome_name(int64_t ret)
{
	switch (-ret) {
	case 0:
		return "established";
	case ECONNREFUSED:
		return "refused";
	case ETIMEDOUT:
		return "timed_out";
	case ECONNRESET:
		return "reset";
	case EHOSTUNREACH:
	case ENETUNREACH:
		return "unreachable";
	case ECONNABORTED:
		return "closed";
	}
	return "failed";
}

static bool tcp_connect(const struct fp_conn_finding *x)
{
	return x->op == FP_NET_CONNECT &&
	       (x->family == AF_INET || x->family == AF_INET6) &&
	       (x->protocol == IPPROTO_TCP ||
		(!x->protocol && x->sock_type == SOCK_STREAM));
}

uint64_t fp_conn_outcome_unknown(const struct fp_conn_finding *x)
{
	uint64_t seen = 0;
	unsigned int i;

	for (i = 0; i < x->noutcomes && i < FP_CONN_OUTCOMES; i++)
		seen += x->outcome_n[i];
	return seen < x->count ? x->count - seen : 0;
}

const char *fp_conn_outcome(const struct fp_conn_finding *x, int64_t *ret)
{
	*ret = x->ret;
	if (!tcp_connect(x))
		return NULL;
	if (x->ret != -EINPROGRESS)
		return fp_conn_outcome_name(x->ret);
	if (!x->noutcomes)
		return "unknown";
	if (x->noutcomes > 1 || fp_conn_outcome_unknown(x))
		return "mixed";
	*ret = x->outcome_ret[0];
	return fp_conn_outcome_name(x->outcome_ret[0]);
}
