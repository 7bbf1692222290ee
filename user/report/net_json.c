// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <sys/socket.h>

#include "event_json.h"
#include "net_json.h"
#include "netflow.h"

static void write_net(struct json_out *j, const struct fp_event *ev)
{
	const struct fp_bytes *p = &ev->net.unix_path;

	json_field_i64(j, "fd", ev->net.fd);
	json_field_i64(j, "ret", ev->net.ret);
	if (ev->net.ret < 0)
		json_field_str(j, "errno",
			       strerrorname_np(-ev->net.ret) ?: "unknown");
	/* how a non-blocking TCP connect ended (netflow_outcome.c) */
	if (ev->net.op == FP_NET_OUTCOME)
		json_field_str(j, "outcome", fp_conn_outcome_name(ev->net.ret));
	json_field_str(j, "family", fp_family_name(ev->net.family) ?: "other");
	if (ev->net.family == AF_UNIX) {
		json_field_bool(j, "abstract", p->len && p->data[0] == '\0');
		if (p->len && p->data[0] == '\0')
			json_field_bytes(j, "address", p->data + 1, p->len - 1);
		else
			json_field_bytes(j, "address", p->data ?: "", p->len);
	} else {
		json_field_str(j, "address", ev->net.address);
		json_field_u64(j, "port", ev->net.port);
	}
	json_field_u64(j, "sock_type", ev->net.sock_type);
	json_field_u64(j, "protocol", ev->net.protocol);
	json_field_u64(j, "count", ev->net.count);
}

void fp_net_event_json(struct json_out *j, const struct fp_event *ev)
{
	if (ev->type != FP_EV_DNS) {
		write_net(j, ev);
		return;
	}
	json_field_str(j, "dir",
		       ev->dns.dir == FP_DNS_QUERY  ? "query" :
		       ev->dns.dir == FP_DNS_ANSWER ? "answer" :
						      "delivered");
	json_field_i64(j, "fd", ev->dns.fd);
	if (ev->dns.sock)
		json_field_u64(j, "sock", ev->dns.sock);
	if (ev->dns.flags & FP_DNS_F_USERNS)
		json_field_bool(j, "user_netns", true);
	json_field_str(j, "server", ev->dns.server);
	json_field_u64(j, "port", ev->dns.port);
	json_field_u64(j, "sock_type", ev->dns.sock_type);
	json_field_u64(j, "bytes", ev->dns.total);
	json_key(j, "data_b64");
	json_base64(j->f, ev->dns.data.data ?: "", ev->dns.data.len);
}
