// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "dns.h"
#include "netflow.h"
#include "receipt_net.h"
#include "receipt_parts.h"

static void write_who(struct json_out *j, const struct fp_findings *fi,
		      const struct fp_actor *a)
{
	const struct fp_step *st = fp_findings_step(fi, a->step);

	fp_receipt_actor_fields(j, fi, a);
	if (st) {
		json_field_bytes(j, "step", st->name.data, st->name.len);
		json_field_u64(j, "step_index", st->index);
	}
}

static void write_judged(struct json_out *j, bool allowed, bool forbidden,
			 bool failing, const char *rule)
{
	json_field_bool(j, "allowed", allowed);
	if (forbidden)
		json_field_bool(j, "forbidden", true);
	json_field_bool(j, "failing", failing);
	if (rule)
		json_field_str(j, "rule", rule);
}

static const char *proto_of(const struct fp_conn_finding *x)
{
	char s[16];

	/* the subject's first word is the protocol */
	fp_conn_subject(x, NULL, 0, s, sizeof(s));
	return !strncmp(s, "tcp/", 4) ? "tcp" :
	       !strncmp(s, "udp/", 4) ? "udp" :
	       !strncmp(s, "unix", 4) ? "unix" :
					"other";
}

/* "outcomes" of a connection whose attempts ended differently, by name */
static void write_outcomes(struct json_out *j, const struct fp_conn_finding *x)
{
	const char *name[FP_CONN_OUTCOMES + 1];
	uint64_t n[FP_CONN_OUTCOMES + 1];
	unsigned int i, k, nn = 0;

	for (i = 0; i <= x->noutcomes && i <= FP_CONN_OUTCOMES; i++) {
		const char *s =
			i < x->noutcomes ?
				fp_conn_outcome_name(x->outcome_ret[i]) :
				"unknown";
		uint64_t c = i < x->noutcomes ? x->outcome_n[i] :
						fp_conn_outcome_unknown(x);

		for (k = 0; k < nn && strcmp(name[k], s); k++)
			;
		if (k == nn) {
			name[nn] = s;
			n[nn++] = 0;
		}
		n[k] += c;
	}
	json_key(j, "outcomes");
	json_begin_object(j);
	for (k = 0; k < nn; k++)
		if (n[k])
			json_field_u64(j, name[k], n[k]);
	json_end_object(j);
}

/*
 * ok, errno and, for a TCP connect, how it ended ("outcome"): a connect
 * that returned EINPROGRESS is ok only if it was established (or its end
 * was not seen: attempted), and its errno is the connection's.
 */
static void write_result(struct json_out *j, const struct fp_conn_finding *x)
{
	int64_t res;
	const char *outcome = fp_conn_outcome(x, &res);
	bool mixed = outcome && !strcmp(outcome, "mixed");
	bool ok = res == 0 || res == -EINPROGRESS;
	const char *err;
	unsigned int i;

	if (mixed) {
		ok = fp_conn_outcome_unknown(x) > 0;
		for (i = 0; i < x->noutcomes && i < FP_CONN_OUTCOMES; i++)
			ok |= !x->outcome_ret[i] && x->outcome_n[i];
	}
	json_field_bool(j, "ok", ok);
	err = res < 0 ? strerrorname_np(-res) : NULL;
	if (res < 0)
		json_field_str(j, "errno", err ?: "unknown");
	if (!outcome)
		return;
	json_field_str(j, "outcome", outcome);
	if (x->ret == -EINPROGRESS)
		json_field_bool(j, "nonblocking", true);
	if (mixed)
		write_outcomes(j, x);
}

/*
 * Names of answers that held the address but may not name it, each with
 * why (dns_trust.h): [{"name": ..., "why": "own_server"}, ...]. DNS names
 * are printable (dns.c escapes the rest), so plain strings.
 */
static void write_unverified(struct json_out *j, const struct fp_bytes *l)
{
	size_t i = 0;

	if (!l->len)
		return;
	json_field_array(j, "names_unverified");
	while (l->data && i < l->len) {
		const char *name = l->data + i, *why = name + strlen(name) + 1;

		json_begin_object(j);
		json_field_str(j, "name", name);
		json_field_str(j, "why", why);
		json_end_object(j);
		i += strlen(name) + strlen(why) + 2;
	}
	json_end_array(j);
}

static void write_conn(struct json_out *j, const struct fp_findings *fi,
		       const char *list, const struct fp_conn_finding *x)
{
	static const char *const ops[] = { "", "connect", "sendto", "accept" };

	json_begin_object(j);
	write_who(j, fi, &x->who);
	json_field_str(j, "via", x->op < 4 ? ops[x->op] : "other");
	json_field_str(j, "family",
		       x->family == AF_INET  ? "inet" :
		       x->family == AF_INET6 ? "inet6" :
		       x->family == AF_UNIX  ? "unix" :
					       "other");
	if (x->family == AF_UNIX) {
		bool abstract = x->unix_path.len && !x->unix_path.data[0];

		json_field_bytes(j, "address",
				 (x->unix_path.data ?: "") + abstract,
				 x->unix_path.len - abstract);
		if (abstract)
			json_field_bool(j, "abstract", true);
	} else {
		json_field_str(j, "address", x->address);
		json_field_u64(j, "port", x->port);
	}
	json_field_str(j, "protocol", proto_of(x));
	json_field_strv(j, "names", x->names.data ?: "", x->names.len);
	write_unverified(j, &x->unverified);
	if (x->resolver) {
		json_field_str(j, "resolver", x->resolver);
		json_field_bool(j, "names_not_seen", true);
	}
	json_field_u64(j, "count", x->count);
	write_result(j, x);
	json_field_bool(j, "loopback", x->loopback);
	write_judged(j, x->allowed, x->forbidden, x->failing, x->rule);
	fp_receipt_severity(j, "network", list,
			    x->failing || x->allowed || x->forbidden);
	json_end_object(j);
}

static void write_lookup(struct json_out *j, const struct fp_findings *fi,
			 const struct fp_dns_finding *x)
{
	char tb[16];

	json_begin_object(j);
	json_field_str(j, "name", x->name);
	json_field_str(j, "qtype", fp_dns_type_name(x->qtype, tb, sizeof(tb)));
	json_field_strv(j, "answers", x->answers.data ?: "", x->answers.len);
	json_field_bool(j, "answered", x->answered);
	if (x->answered)
		json_field_u64(j, "rcode", x->rcode);
	json_field_str(j, "server", x->server);
	json_field_u64(j, "server_port", x->port);
	json_field_u64(j, "count", x->count);
	json_key(j, "asked_by");
	json_begin_object(j);
	write_who(j, fi, &x->who);
	json_end_object(j);
	write_judged(j, x->allowed, x->forbidden, x->failing, x->rule);
	fp_receipt_severity(j, "network", "dns",
			    x->failing || x->allowed || x->forbidden);
	json_end_object(j);
}

static void conn_list(struct json_out *j, const struct fp_findings *fi,
		      const char *key, const struct fp_vec *v)
{
	size_t i;

	json_field_array(j, key);
	for (i = 0; i < v->n; i++)
		write_conn(j, fi, key,
			   fp_vec_at(v, const struct fp_conn_finding, i));
	json_end_array(j);
}

void fp_receipt_netflow(struct json_out *j, const struct fp_findings *fi)
{
	size_t i;

	if (!fi->connected.n && !fi->accepted.n && !fi->dns.n)
		return;
	conn_list(j, fi, "connected", &fi->connected);
	conn_list(j, fi, "accepted", &fi->accepted);
	json_field_array(j, "dns");
	for (i = 0; i < fi->dns.n; i++)
		write_lookup(
			j, fi,
			fp_vec_at(&fi->dns, const struct fp_dns_finding, i));
	json_end_array(j);
}
