// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <string.h>

#include "netflow.h"
#include "summary_net.h"

/* text from the traced command goes to a terminal: nothing but printable */
static void put_clean(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(isprint((unsigned char)*s) ? *s : '?', f);
}

static const char *exe_base(const struct fp_actor *a)
{
	const char *s = a->exe.data ? strrchr(a->exe.data, '/') : NULL;

	return s ? s + 1 : a->exe.data && a->exe.len ? a->exe.data : "?";
}

static size_t conn_lines(FILE *f, const struct fp_vec *v, const char *list,
			 size_t max, size_t *more)
{
	size_t i, shown = 0;
	char what[700];

	for (i = 0; i < v->n; i++) {
		const struct fp_conn_finding *x =
			&((const struct fp_conn_finding *)v->v)[i];

		if (!x->failing)
			continue;
		if (shown == max) {
			(*more)++;
			continue;
		}
		fp_conn_display(x, what, sizeof(what));
		fprintf(f, "  network.%s: ", list);
		put_clean(f, what);
		fputs(" by ", f);
		put_clean(f, exe_base(&x->who));
		fprintf(f, " (pid %d)%s\n", (int)x->who.pid,
			x->forbidden ? " forbidden" : "");
		shown++;
	}
	return shown;
}

void fp_summary_net(FILE *f, const struct fp_findings *fi, size_t max)
{
	size_t i, shown, more = 0;
	const char *resolver = NULL;

	shown = conn_lines(f, &fi->connected, "connected", max, &more);
	shown += conn_lines(f, &fi->accepted, "accepted", max - shown, &more);
	for (i = 0; i < fi->dns.n; i++) {
		const struct fp_dns_finding *x =
			&((const struct fp_dns_finding *)fi->dns.v)[i];

		if (!x->failing)
			continue;
		if (shown == max) {
			more++;
			continue;
		}
		fputs("  network.dns: ", f);
		put_clean(f, x->name);
		fputs(" looked up by ", f);
		put_clean(f, exe_base(&x->who));
		fprintf(f, " (pid %d)\n", (int)x->who.pid);
		shown++;
	}
	if (more)
		fprintf(f,
			"  and %zu more network findings (see the receipt)\n",
			more);
	for (i = 0; i < fi->connected.n && !resolver; i++)
		resolver = ((const struct fp_conn_finding *)fi->connected.v)[i]
				   .resolver;
	if (resolver)
		fprintf(f,
			"  note: lookups went through %s's socket: their names were not seen\n",
			resolver);
}
