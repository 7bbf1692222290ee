// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "dns_trust.h"
#include "netflow.h"
#include "summary_md.h"
#include "summary_net.h"

/* connections an answer held but could not name (dns_trust.h) */
static void untrusted_note(FILE *f, const struct fp_findings *fi)
{
	const struct fp_conn_finding *first = NULL;
	size_t i, n = 0;
	char subj[300];

	for (i = 0; i < fi->connected.n; i++) {
		const struct fp_conn_finding *x = fp_vec_at(
			&fi->connected, const struct fp_conn_finding, i);

		if (!x->unverified.len)
			continue;
		if (!n++)
			first = x;
	}
	if (!first)
		return;
	fp_conn_subject(first, NULL, 0, subj, sizeof(subj));
	fprintf(f,
		"  note: %s is judged by its address: the answer that named it %s is not trusted (%s)",
		subj, first->unverified.data,
		fp_dns_why_text(first->unverified.data +
				strlen(first->unverified.data) + 1));
	if (n > 1)
		fprintf(f, "; and %zu more connections", n - 1);
	fputc('\n', f);
}

void fp_summary_net(FILE *f, const struct fp_findings *fi)
{
	const char *resolver = NULL;
	size_t i;

	untrusted_note(f, fi);
	for (i = 0; i < fi->connected.n && !resolver; i++)
		resolver = fp_vec_at(&fi->connected,
				     const struct fp_conn_finding, i)
				   ->resolver;
	if (resolver)
		fprintf(f,
			"  note: lookups went through %s's socket: their names were not seen\n",
			resolver);
}

static const char *exe_base(const struct fp_actor *a)
{
	const char *s =
		a->exe.len ? memrchr(a->exe.data, '/', a->exe.len) : NULL;

	return s ? s + 1 : a->exe.len ? a->exe.data : "?";
}

void fp_md_conn_row(struct fp_sbuf *l, const struct fp_conn_finding *x)
{
	const char *e = exe_base(&x->who);
	char what[700];

	fp_conn_display(x, what, sizeof(what));
	fp_sbuf_str(l, "| ");
	fp_md_code(l, what, strlen(what), true);
	fp_sbuf_str(l, " | ");
	fp_md_escape(l, e, strnlen(e, 100));
	fp_sbuf_printf(l, " | %llu | %s |\n", (unsigned long long)x->count,
		       x->failing ? "**failing**" :
		       x->allowed ? "allowed" :
				    "ok");
}
