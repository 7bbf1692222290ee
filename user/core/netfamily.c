// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <sys/socket.h>

#include "netfamily.h"

const char *fp_net_family_name(int family)
{
	switch (family) {
	case AF_NETLINK:
		return "netlink";
	case AF_PACKET:
		return "packet";
	case AF_VSOCK:
		return "vsock";
	case AF_BLUETOOTH:
		return "bluetooth";
	case AF_CAN:
		return "can";
	case AF_TIPC:
		return "tipc";
	case AF_ALG:
		return "alg";
	case AF_XDP:
		return "xdp";
	case AF_QIPCRTR:
		return "qipcrtr";
	}
	return NULL;
}

void fp_net_family_subject(int family, char *buf, size_t len)
{
	const char *name = fp_net_family_name(family);

	if (name)
		snprintf(buf, len, "%s/", name);
	else
		snprintf(buf, len, "family-%d/", family);
}
