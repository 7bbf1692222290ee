// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "snapshot_net.h"
#include "sock_diag.h"

/* include/net/tcp_states.h */
#define ST_CLOSE 0x07
#define ST_LISTEN 0x0A

struct net_file {
	const char *path;
	int family;
	int protocol;
	bool optional; /* absent when IPv6 is not built in or disabled */
};

static const struct net_file net_files[] = {
	{ "/proc/net/tcp", AF_INET, IPPROTO_TCP, false },
	{ "/proc/net/tcp6", AF_INET6, IPPROTO_TCP, true },
	{ "/proc/net/udp", AF_INET, IPPROTO_UDP, false },
	{ "/proc/net/udp6", AF_INET6, IPPROTO_UDP, true },
};

/*
 * The kernel prints each 32-bit word of the address (network byte order in
 * memory) as a host-endian integer with %08X, so parsing a word as an
 * integer and storing it back in host order restores the original bytes.
 */
static int parse_hex_addr(const char *hex, int family, void *out)
{
	size_t words = family == AF_INET ? 1 : 4, i, j;
	unsigned char *o = out;
	uint32_t w;
	int c;

	if (strlen(hex) != words * 8)
		return -EINVAL;
	for (i = 0; i < words; i++) {
		w = 0;
		for (j = 0; j < 8; j++) {
			c = hex[i * 8 + j];
			if (c >= '0' && c <= '9')
				c -= '0';
			else if (c >= 'A' && c <= 'F')
				c -= 'A' - 10;
			else if (c >= 'a' && c <= 'f')
				c -= 'a' - 10;
			else
				return -EINVAL;
			w = w << 4 | c;
		}
		memcpy(o + i * 4, &w, 4);
	}
	return 0;
}

/* Returns 1 and fills s when the line is a socket we report. */
static int parse_line(const char *line, const struct net_file *nf,
		      struct fp_sock *s)
{
	unsigned char laddr[16], raddr[16], zero[16] = { 0 };
	char lhex[40], rhex[40];
	unsigned int lport, rport, st;
	unsigned long long inode;
	size_t alen = nf->family == AF_INET ? 4 : 16;

	/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
	if (sscanf(line,
		   " %*u: %39[0-9A-Fa-f]:%x %39[0-9A-Fa-f]:%x %x %*s %*s %*s %*s %*s %llu",
		   lhex, &lport, rhex, &rport, &st, &inode) != 6)
		return 0;
	if (parse_hex_addr(lhex, nf->family, laddr) ||
	    parse_hex_addr(rhex, nf->family, raddr) || lport > 0xffff)
		return 0;
	if (nf->protocol == IPPROTO_TCP) {
		if (st != ST_LISTEN)
			return 0;
	} else {
		/* connected UDP sockets are ESTABLISHED; only bound ones */
		if (st != ST_CLOSE || !lport || rport ||
		    memcmp(raddr, zero, alen))
			return 0;
	}
	memset(s, 0, sizeof(*s));
	s->family = nf->family;
	s->protocol = nf->protocol;
	if (!inet_ntop(nf->family, laddr, s->address, sizeof(s->address)))
		return 0;
	s->port = lport;
	s->inode = inode;
	s->pid = -1;
	return 1;
}

struct grow {
	struct fp_sock_table *t;
	size_t *cap;
};

static int push(void *ctx, const struct fp_sock *s)
{
	struct grow *g = ctx;
	struct fp_sock *ns;
	size_t nc;

	if (g->t->n == *g->cap) {
		nc = *g->cap ? *g->cap * 2 : 64;
		ns = realloc(g->t->socks, nc * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		g->t->socks = ns;
		*g->cap = nc;
	}
	g->t->socks[g->t->n++] = *s;
	return 0;
}

static int read_net_file(const struct net_file *nf, struct fp_sock_table *t,
			 size_t *cap)
{
	struct grow g = { t, cap };
	size_t had = t->n;
	struct fp_sock s;
	char *line = NULL;
	size_t linecap = 0;
	FILE *f;
	int ret = 0;

	if (nf->protocol == IPPROTO_TCP &&
	    !fp_sock_diag_tcp_listen(nf->family, push, &g))
		return 0;
	/* no inet_diag here (or it failed part way): the text it replaces */
	t->n = had;
	f = fopen(nf->path, "re");
	if (!f)
		return errno == ENOENT && nf->optional ? 0 : -errno;
	while (getline(&line, &linecap, f) > 0) {
		if (!parse_line(line, nf, &s))
			continue;
		ret = push(&g, &s);
		if (ret)
			goto cleanup;
	}
	if (ferror(f))
		ret = errno ? -errno : -EIO;
cleanup:
	free(line);
	fclose(f);
	return ret;
}

static int cmp_sock(const void *a, const void *b)
{
	const struct fp_sock *x = a, *y = b;
	int c;

	if (x->protocol != y->protocol)
		return x->protocol < y->protocol ? -1 : 1;
	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	c = strcmp(x->address, y->address);
	if (c)
		return c;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return (x->inode > y->inode) - (x->inode < y->inode);
}

static int cmp_inode(const void *a, const void *b)
{
	const struct fp_sock *const *x = a, *const *y = b;

	return ((*x)->inode > (*y)->inode) - ((*x)->inode < (*y)->inode);
}

/* index of the first entry of by_inode whose inode is >= inode */
static size_t lower_bound(struct fp_sock **by_inode, size_t n, uint64_t inode)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (by_inode[mid]->inode < inode)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void claim_fds(int procfd, pid_t pid, struct fp_sock **by_inode,
		      size_t n)
{
	char path[64], link[64];
	unsigned long long inode;
	struct dirent *de;
	DIR *d;
	ssize_t len;
	size_t i;
	int fd;

	snprintf(path, sizeof(path), "%d/fd", (int)pid);
	fd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		len = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);
		if (len < 0)
			continue;
		link[len] = '\0';
		if (sscanf(link, "socket:[%llu]", &inode) != 1)
			continue;
		i = lower_bound(by_inode, n, inode);
		for (; i < n && by_inode[i]->inode == inode; i++) {
			/* a socket shared after fork goes to the oldest pid */
			if (by_inode[i]->pid < 0 || pid < by_inode[i]->pid)
				by_inode[i]->pid = pid;
		}
	}
	closedir(d);
}

/* One pass over /proc/PID/fd; unreadable processes are left unclaimed. */
/* Owners of the sockets not in known (all, if known is NULL). */
static int find_owners(struct fp_sock_table *t,
		       const struct fp_sock_table *known)
{
	struct fp_sock **by_inode;
	struct dirent *de;
	size_t i, n = 0;
	char *end;
	long pid;
	DIR *d;
	int ret = 0;

	if (!t->n)
		return 0;
	by_inode = malloc(t->n * sizeof(*by_inode));
	if (!by_inode)
		return -ENOMEM;
	for (i = 0; i < t->n; i++)
		if (!known || !fp_sock_find(known, &t->socks[i]))
			by_inode[n++] = &t->socks[i];
	/* scanning every fd of every process is the cost: skip it if idle */
	if (!n)
		goto cleanup;
	qsort(by_inode, n, sizeof(*by_inode), cmp_inode);
	d = opendir("/proc");
	if (!d) {
		ret = -errno;
		goto cleanup;
	}
	while ((de = readdir(d))) {
		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		claim_fds(dirfd(d), pid, by_inode, n);
	}
	closedir(d);
cleanup:
	free(by_inode);
	return ret;
}

/* the listening sockets, sorted, without repeats; no owners yet */
static int read_table(struct fp_sock_table *nt)
{
	size_t cap = 0, i, j;
	int ret;

	for (i = 0; i < sizeof(net_files) / sizeof(net_files[0]); i++) {
		ret = read_net_file(&net_files[i], nt, &cap);
		if (ret)
			return ret;
	}
	qsort(nt->socks, nt->n, sizeof(*nt->socks), cmp_sock);
	/* a table that changes under the reader can repeat a line */
	for (i = j = 0; i < nt->n; i++) {
		if (j && !cmp_sock(&nt->socks[j - 1], &nt->socks[i]))
			continue;
		nt->socks[j++] = nt->socks[i];
	}
	nt->n = j;
	return 0;
}

/*
 * A new socket whose owner no fd showed was closed between the table and
 * the scan of /proc (another process's listener that ended meanwhile), or
 * is held by no process (in flight in a unix socket's queue). Read the
 * table again: one that is gone was not listening at the end, and an
 * unowned one that is still there stays, unowned (the run's, to judging).
 */
static int drop_closed(struct fp_sock_table *t,
		       const struct fp_sock_table *known)
{
	struct fp_sock_table again = { 0 };
	size_t i, j;
	int ret;

	for (i = 0; i < t->n; i++)
		if (t->socks[i].pid < 0 &&
		    !(known && fp_sock_find(known, &t->socks[i])))
			break;
	if (i == t->n)
		return 0;
	ret = read_table(&again);
	for (i = j = 0; !ret && i < t->n; i++) {
		if (t->socks[i].pid < 0 &&
		    !(known && fp_sock_find(known, &t->socks[i])) &&
		    !fp_sock_find(&again, &t->socks[i]))
			continue;
		t->socks[j++] = t->socks[i];
	}
	if (!ret)
		t->n = j;
	free(again.socks);
	return ret;
}

static int snapshot(struct fp_sock_table *t, bool owners,
		    const struct fp_sock_table *known)
{
	struct fp_sock_table nt = { 0 };
	int ret = 0;

	t->socks = NULL;
	t->n = 0;
	ret = read_table(&nt);
	if (ret)
		goto cleanup;
	ret = owners ? find_owners(&nt, known) : 0;
	if (!ret && owners)
		ret = drop_closed(&nt, known);
	if (ret)
		goto cleanup;
	*t = nt;
	nt.socks = NULL;
cleanup:
	free(nt.socks);
	return ret;
}

int fp_sock_snapshot(struct fp_sock_table *t)
{
	return snapshot(t, true, NULL);
}

int fp_sock_snapshot_new(struct fp_sock_table *t,
			 const struct fp_sock_table *known)
{
	return snapshot(t, known != NULL, known);
}

void fp_sock_table_free(struct fp_sock_table *t)
{
	free(t->socks);
	t->socks = NULL;
	t->n = 0;
}

const struct fp_sock *fp_sock_find(const struct fp_sock_table *t,
				   const struct fp_sock *s)
{
	const struct fp_sock *r;
	size_t i;

	if (!t->n)
		return NULL;
	r = bsearch(s, t->socks, t->n, sizeof(*t->socks), cmp_sock);
	if (r)
		return r;
	/* the inode alone is the identity; the address is only the sort key */
	for (i = 0; i < t->n; i++) {
		r = &t->socks[i];
		if (s->inode && r->inode == s->inode &&
		    r->protocol == s->protocol && r->family == s->family)
			return r;
	}
	return NULL;
}
