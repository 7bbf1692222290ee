// SPDX-License-Identifier: GPL-2.0
/* Binds, connections and DNS (netflow.c); the socket tables compared. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "reconcile_int.h"
#include "netflow.h"

int fp_rc_feed_bind(struct fp_recon *r, const struct fp_event *ev)
{
	struct who w = { ev->pid, exec_of(r, ev->pid), 0 };
	struct fp_net_finding *n;
	int ret;

	/*
	 * A netlink socket talks to the kernel and opens nothing anyone can
	 * reach (glibc's getaddrinfo binds one on every lookup): not a bound
	 * port, as a netlink connect is not a connection. The event stays.
	 */
	if (ev->bind.ret < 0 || ev->bind.family == AF_NETLINK)
		return 0;
	ret = fp_rc_event_group(r, ev, &w.group);
	if (ret)
		return ret;
	/* kept here, and copied into the findings */
	if (charge(r, 2 * (VEC_COST(sizeof(*n)) +
			   ALLOC(ev->bind.unix_path.len + 1))))
		return -EDQUOT;
	n = fp_vec_push(&r->binds, sizeof(*n));
	if (!n || fp_rc_actor_fill(r, &n->by, &w))
		return -ENOMEM;
	n->pid = ev->pid;
	n->step = w.group;
	n->family = ev->bind.family;
	memcpy(n->address, ev->bind.address, sizeof(n->address));
	if (ev->bind.family == AF_INET || ev->bind.family == AF_INET6) {
		/* other families keep no port: skc_num means something else */
		n->port = ev->bind.bound_port ? ev->bind.bound_port :
						ev->bind.port;
		n->protocol = ev->bind.protocol;
		n->any_port = ev->bind.port == 0;
	}
	if (ev->bind.family == AF_UNIX && ev->bind.unix_path.len &&
	    ev->bind.unix_path.data[0] != '\0') {
		struct path_state *ps;

		if (fp_bytes_dup(&n->unix_path, ev->bind.unix_path.data,
				 ev->bind.unix_path.len))
			return -ENOMEM;
		/* the socket file it created; only absolute names are known */
		if (n->unix_path.data[0] == '/') {
			int ret = fp_rc_path_get(r, &n->unix_path, &ps);

			if (ret)
				return ret;
			ps->ops |= FP_OP_CREATED;
			fp_rc_born(ps, &w);
			ps->seq = r->fed;
		}
	}
	return 0;
}

static int charge_cb(void *r, uint64_t cost)
{
	return charge(r, cost);
}

/* connections, accepts and DNS: netflow.c keeps them */
int fp_rc_feed_net(struct fp_recon *r, const struct fp_event *ev)
{
	struct who w = who_now(r, ev->pid);
	struct fp_actor a;
	int ret;

	if (!r->net && !(r->net = fp_netrec_new()))
		return -ENOMEM;
	/* a count comes from userspace at the end, not from the process */
	if (ev->type != FP_EV_NET_COUNT) {
		ret = fp_rc_event_group(r, ev, &w.group);
		if (ret)
			return ret;
	}
	ret = fp_rc_actor_fill(r, &a, &w);
	if (!ret)
		ret = fp_netrec_feed(r->net, ev, &a, charge_cb, r);
	fp_actor_clear(&a);
	return ret;
}

/* a bind: where the run could answer DNS from (netflow.c, dns_trust.h) */
int fp_rc_feed_net_bind(struct fp_recon *r, const struct fp_event *ev)
{
	if (!r->net && !(r->net = fp_netrec_new()))
		return -ENOMEM;
	return fp_netrec_bound(r->net, ev, charge_cb, r);
}

/* Whose is a socket: the run's (as far as can be told), or a process's
 * outside the run's cgroup that predates the run, or that began during it */
enum sock_owner { OWNER_RUN, OWNER_OUTSIDE_OLD, OWNER_OUTSIDE_NEW };

static enum sock_owner sock_owner(const struct fp_recon *r,
				  const struct fp_recon_input *in, pid_t pid)
{
	const struct fp_proc *a, *b;

	if (pid <= 0 || !in->proc_after || !in->proc_before ||
	    fp_rc_is_leftover(in, pid))
		return OWNER_RUN;
	a = fp_proc_find(in->proc_after, pid);
	/*
	 * An owner the process snapshot (taken just before the sockets')
	 * does not hold began after it: the run's if an event of the run
	 * named it, else another's (a concurrent run's listener).
	 */
	if (!a)
		return proc_of(r, pid) ? OWNER_RUN : OWNER_OUTSIDE_NEW;
	if (fp_rc_in_run_cgroup(in, a))
		return OWNER_RUN;
	b = fp_proc_find(in->proc_before, pid);
	if (b && fp_proc_same(a, b))
		return OWNER_OUTSIDE_OLD;
	return a->kernel_thread ? OWNER_RUN : OWNER_OUTSIDE_NEW;
}

/* the owner of a listener: as the run's events know it, else as the
 * process snapshot shows it (an outside process), else by pid alone */
static int sock_owner_actor(const struct fp_recon *r,
			    const struct fp_recon_input *in, pid_t pid,
			    enum sock_owner owner, struct fp_actor *a)
{
	const struct fp_proc *p = pid > 0 && in->proc_after ?
					  fp_proc_find(in->proc_after, pid) :
					  NULL;
	struct who w;

	memset(a, 0, sizeof(*a));
	if (pid <= 0)
		return 0;
	w = who_now(r, pid);
	if (owner == OWNER_RUN && w.exec >= 0)
		return fp_rc_actor_fill(r, a, &w);
	a->pid = pid;
	if (!p)
		return 0;
	a->ppid = p->ppid;
	return fp_actor_own(a, p->exe.data, p->exe.len, p->argv.data,
			    p->argv.len);
}

int fp_rc_compare_net(const struct fp_recon *r, const struct fp_recon_input *in,
		      struct fp_findings *out)
{
	struct fp_net_finding *n;
	enum sock_owner owner;
	size_t i;

	for (i = 0; i < r->binds.n; i++) {
		const struct fp_net_finding *b =
			fp_vec_at(&r->binds, struct fp_net_finding, i);

		n = fp_vec_push(&out->net[FP_N_BOUND], sizeof(*n));
		if (!n)
			return -ENOMEM;
		*n = *b;
		n->unix_path.data = NULL;
		memset(&n->by, 0, sizeof(n->by));
		if (fp_actor_copy(&n->by, &b->by))
			return -ENOMEM;
		if (b->unix_path.data &&
		    fp_bytes_dup(&n->unix_path, b->unix_path.data,
				 b->unix_path.len))
			return -ENOMEM;
	}
	for (i = 0; in->sock_after && in->sock_before && i < in->sock_after->n;
	     i++) {
		const struct fp_sock *s = &in->sock_after->socks[i];

		if (fp_sock_find(in->sock_before, s))
			continue;
		n = fp_vec_push(&out->net[FP_N_LISTENING], sizeof(*n));
		if (!n)
			return -ENOMEM;
		owner = sock_owner(r, in, s->pid);
		n->outside_run = owner == OWNER_OUTSIDE_OLD;
		n->new_outside = owner == OWNER_OUTSIDE_NEW;
		if (sock_owner_actor(r, in, s->pid, owner, &n->by))
			return -ENOMEM;
		n->pid = s->pid;
		n->step = n->outside_run || n->new_outside ?
				  0 :
				  who_now(r, s->pid).group;
		n->family = s->family;
		n->protocol = s->protocol;
		n->port = s->port;
		snprintf(n->address, sizeof(n->address), "%s", s->address);
	}
	return 0;
}
