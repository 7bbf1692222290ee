// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findref.h"
#include "judge.h"
#include "netflow.h"
#include "procops.h"
#include "sensitive.h"
#include "severity.h"

const struct fp_proc_finding *fp_fref_proc(const struct fp_findings *fi,
					   unsigned int cat, size_t i)
{
	return cat == FP_CAT_PRIV ? &FP_PRIVILEGED(fi)[i] :
				    &FP_PROCS(fi, cat - FP_CAT_PROCS)[i];
}

static const char *const cat_extra[] = {
	[FP_CAT_READ] = "files.read",
	[FP_CAT_PRIV] = "processes.privileged",
	[FP_CAT_SIGNALLED] = "processes.signalled_outside",
	[FP_CAT_PTRACED] = "processes.ptraced",
	[FP_CAT_CONNECTED] = "network.connected",
	[FP_CAT_ACCEPTED] = "network.accepted",
	[FP_CAT_DNS] = "network.dns",
	[FP_NCAT] = NULL,
};

const char *fp_cat_name(unsigned int cat, char *buf, size_t len)
{
	if (fp_cat_is_procop(cat))
		snprintf(buf, len, "%s.%s",
			 cat == FP_CAT_PROCOPS + FP_PO_SETID ? "files" :
							       "processes",
			 fp_procop_list_names[cat - FP_CAT_PROCOPS]);
	else if (cat == FP_CAT_TAMPER)
		snprintf(buf, len, "tamper");
	else if (cat < FP_NCAT && cat_extra[cat])
		snprintf(buf, len, "%s", cat_extra[cat]);
	else if (fp_cat_is_file(cat))
		snprintf(buf, len, "files.%s",
			 fp_file_list_names[cat - FP_CAT_FILES]);
	else if (fp_cat_is_proc(cat))
		snprintf(buf, len, "processes.%s",
			 fp_proc_list_names[cat - FP_CAT_PROCS]);
	else
		snprintf(buf, len, "network.%s",
			 fp_net_list_names[cat - FP_CAT_NET]);
	return buf;
}

/* the list of a category that is not one of files, procs or net */
static const struct fp_vec *cat_vec(const struct fp_findings *fi,
				    unsigned int cat)
{
	switch (cat) {
	case FP_CAT_TAMPER:
		return &fi->tamper;
	case FP_CAT_READ:
		return &fi->reads;
	case FP_CAT_PRIV:
		return &fi->privileged;
	case FP_CAT_SIGNALLED:
		return &fi->signalled;
	case FP_CAT_PTRACED:
		return &fi->ptraced;
	case FP_CAT_CONNECTED:
		return &fi->connected;
	case FP_CAT_ACCEPTED:
		return &fi->accepted;
	default:
		return &fi->dns;
	}
}

size_t fp_cat_len(const struct fp_findings *fi, unsigned int cat)
{
	if (fp_cat_is_procop(cat))
		return fi->procops[cat - FP_CAT_PROCOPS].n;
	if (fp_cat_is_file(cat))
		return fi->files[cat - FP_CAT_FILES].n;
	if (cat != FP_CAT_PRIV && fp_cat_is_proc(cat))
		return fi->procs[cat - FP_CAT_PROCS].n;
	if (fp_cat_is_bind(cat))
		return fi->net[cat - FP_CAT_NET].n;
	return cat_vec(fi, cat)->n;
}

const struct fp_read_finding *fp_fref_read(const struct fp_findings *fi,
					   size_t i)
{
	return &FP_READS(fi)[i];
}

const struct fp_signal_finding *fp_fref_signal(const struct fp_findings *fi,
					       unsigned int cat, size_t i)
{
	return cat == FP_CAT_SIGNALLED ? &FP_SIGNALLED(fi)[i] :
					 &FP_PTRACED(fi)[i];
}

const struct fp_conn_finding *fp_fref_conn(const struct fp_findings *fi,
					   unsigned int cat, size_t i)
{
	return &((const struct fp_conn_finding *)cat_vec(fi, cat)->v)[i];
}

const struct fp_dns_finding *fp_fref_dns(const struct fp_findings *fi, size_t i)
{
	return fp_vec_at(&fi->dns, const struct fp_dns_finding, i);
}

unsigned int fp_fref_step(const struct fp_findings *fi, unsigned int cat,
			  size_t i)
{
	if (fp_cat_is_procop(cat))
		return FP_PROCOPS(fi, cat - FP_CAT_PROCOPS)[i].by.step;
	if (cat == FP_CAT_TAMPER)
		return FP_TAMPER(fi)[i].by.step;
	if (fp_cat_is_file(cat))
		return fp_file_finding_step(
			&FP_FILES(fi, cat - FP_CAT_FILES)[i]);
	if (cat == FP_CAT_READ)
		return fp_fref_read(fi, i)->by.step;
	if (fp_cat_is_proc(cat))
		return fp_fref_proc(fi, cat, i)->p.step;
	if (cat == FP_CAT_SIGNALLED || cat == FP_CAT_PTRACED)
		return fp_fref_signal(fi, cat, i)->by.step;
	if (fp_cat_is_bind(cat))
		return FP_NETS(fi, cat - FP_CAT_NET)[i].step;
	if (cat == FP_CAT_DNS)
		return fp_fref_dns(fi, i)->who.step;
	return fp_fref_conn(fi, cat, i)->who.step;
}

bool fp_fref_failing(const struct fp_findings *fi, unsigned int cat, size_t i)
{
	if (fp_cat_is_procop(cat))
		return FP_PROCOPS(fi, cat - FP_CAT_PROCOPS)[i].failing;
	if (cat == FP_CAT_TAMPER)
		return FP_TAMPER(fi)[i].failing;
	if (fp_cat_is_file(cat))
		return FP_FILES(fi, cat - FP_CAT_FILES)[i].failing;
	if (cat == FP_CAT_READ)
		return fp_fref_read(fi, i)->failing;
	if (fp_cat_is_proc(cat))
		return fp_fref_proc(fi, cat, i)->failing;
	if (cat == FP_CAT_SIGNALLED || cat == FP_CAT_PTRACED)
		return fp_fref_signal(fi, cat, i)->failing;
	if (fp_cat_is_bind(cat))
		return FP_NETS(fi, cat - FP_CAT_NET)[i].failing;
	if (cat == FP_CAT_DNS)
		return fp_fref_dns(fi, i)->failing;
	return fp_fref_conn(fi, cat, i)->failing;
}

/* no step sorts after every step; the rest keeps its order */
static unsigned int step_key(unsigned int step)
{
	return step ? step : ~0U;
}

static int ranked_cmp_flat(const void *x, const void *y)
{
	const struct fp_fref *a = x, *b = y;

	if (a->sev != b->sev)
		return a->sev > b->sev ? -1 : 1;
	if (a->cat != b->cat)
		return a->cat < b->cat ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static int fref_cmp(const void *x, const void *y)
{
	const struct fp_fref *a = x, *b = y;

	if (step_key(a->step) != step_key(b->step))
		return step_key(a->step) < step_key(b->step) ? -1 : 1;
	if (a->cat != b->cat)
		return a->cat < b->cat ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

int fp_frefs_failing(const struct fp_findings *fi, bool by_step,
		     struct fp_vec *out)
{
	struct fp_fref *r;
	unsigned int cat;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (cat = 0; cat < FP_NCAT; cat++)
		for (i = 0; i < fp_cat_len(fi, cat); i++) {
			if (!fp_fref_failing(fi, cat, i))
				continue;
			r = fp_vec_push(out, sizeof(*r));
			if (!r) {
				free(out->v);
				memset(out, 0, sizeof(*out));
				return -ENOMEM;
			}
			r->cat = cat;
			r->i = i;
			r->step = fp_fref_step(fi, cat, i);
		}
	/* (cat, i) is unique, so this is stable */
	if (by_step && out->n)
		qsort(out->v, out->n, sizeof(*r), fref_cmp);
	return 0;
}

static int ranked_cmp(const void *x, const void *y)
{
	const struct fp_fref *a = x, *b = y;

	if (a->step_sev != b->step_sev)
		return a->step_sev > b->step_sev ? -1 : 1;
	if (step_key(a->step) != step_key(b->step))
		return step_key(a->step) < step_key(b->step) ? -1 : 1;
	if (a->sev != b->sev)
		return a->sev > b->sev ? -1 : 1;
	if (a->cat != b->cat)
		return a->cat < b->cat ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

int fp_frefs_ranked(const struct fp_findings *fi, const struct fp_sevmap *m,
		    bool by_step, struct fp_vec *out)
{
	unsigned char *worst = calloc(fi->steps.n + 2, 1);
	struct fp_fref *r;
	char name[64];
	size_t i;
	int ret = worst ? fp_frefs_failing(fi, false, out) : -ENOMEM;

	if (ret) {
		free(worst);
		return ret;
	}
	r = out->v;
	for (i = 0; i < out->n; i++) {
		size_t k = r[i].step <= fi->steps.n ? r[i].step : 0;

		fp_cat_name(r[i].cat, name, sizeof(name));
		r[i].sev = fp_severity_in(m, name, strlen(name));
		if (by_step && r[i].sev > worst[k])
			worst[k] = r[i].sev;
	}
	for (i = 0; by_step && i < out->n; i++)
		r[i].step_sev = worst[r[i].step <= fi->steps.n ? r[i].step : 0];
	free(worst);
	if (out->n)
		qsort(out->v, out->n, sizeof(*r),
		      by_step ? ranked_cmp : ranked_cmp_flat);
	return 0;
}

struct fp_step_count *fp_step_counts(const struct fp_findings *fi)
{
	struct fp_step_count *c = calloc(fi->steps.n + 1, sizeof(*c));
	unsigned int cat, step;
	size_t i;

	if (!c)
		return NULL;
	for (cat = 0; cat < FP_NCAT; cat++)
		for (i = 0; i < fp_cat_len(fi, cat); i++) {
			step = fp_fref_step(fi, cat, i);
			if (step > fi->steps.n)
				step = 0;
			c[step].n[cat]++;
			if (fp_fref_failing(fi, cat, i)) {
				c[step].failing[cat]++;
				c[step].failing_all++;
			}
		}
	return c;
}

/* ---- text ---- */

/* The valid UTF-8 sequence at s: its length and code point; 0 if none. */
size_t fp_utf8_decode(const unsigned char *s, size_t left, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t n, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, *cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, *cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, *cp = c & 0x07;
	else
		return 0;
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && *cp < 0x800) || (n == 4 && *cp < 0x10000) ||
	    *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return n;
}

/* Invisible or layout-changing characters a name could hide behind: C1
 * controls, zero-width ones, bidi overrides, line separators, BOM. */
bool fp_cp_sneaky(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff || cp == 0xad;
}

static bool grow(struct fp_sbuf *b, size_t n)
{
	size_t cap;
	char *p;

	if (b->err)
		return false;
	if (b->len + n + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + n + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->err = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

void fp_sbuf_add(struct fp_sbuf *b, const char *s, size_t len)
{
	if (!grow(b, len))
		return;
	memcpy(b->p + b->len, s, len);
	b->len += len;
	b->p[b->len] = '\0';
}

void fp_sbuf_str(struct fp_sbuf *b, const char *s)
{
	fp_sbuf_add(b, s, strlen(s));
}

void fp_sbuf_printf(struct fp_sbuf *b, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	if (n < 0 || !grow(b, n))
		return;
	va_start(ap, f);
	vsnprintf(b->p + b->len, n + 1, f, ap);
	va_end(ap);
	b->len += n;
}

void fp_sbuf_free(struct fp_sbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* at most max bytes of s, "..." when cut */
void fp_sbuf_cut(struct fp_sbuf *b, const char *s, size_t len, size_t max)
{
	fp_sbuf_add(b, s ?: "", len < max ? len : max);
	if (len > max)
		fp_sbuf_str(b, "...");
}

/* "pid N argv..." with arguments joined by spaces */
void fp_sbuf_actor(struct fp_sbuf *b, const struct fp_actor *a, size_t max)
{
	size_t i, start, n = a->argv.len;

	fp_sbuf_printf(b, "pid %d", (int)a->pid);
	if (!n)
		return;
	fp_sbuf_str(b, " ");
	start = b->len;
	fp_sbuf_cut(b, a->argv.data, n, max);
	for (i = start; i < b->len && !b->err; i++)
		if (b->p[i] == '\0')
			b->p[i] = ' ';
	while (b->len > start && b->p[b->len - 1] == ' ')
		b->p[--b->len] = '\0';
}

/* the kernel's record, in words */
static void tamper_event_text(const struct fp_tamper_finding *t,
			      struct fp_sbuf *b)
{
	switch (t->kind) {
	case FP_TAMPER_SIGNAL:
		fp_sbuf_printf(b, "SIG%s to footprint's pid %u",
			       sigabbrev_np(t->sig) ?: "?", t->target_pid);
		break;
	case FP_TAMPER_HEARTBEAT:
		fp_sbuf_str(b, "footprint's programs stopped answering");
		break;
	case FP_TAMPER_BPF:
		fp_sbuf_printf(b, "bpf() command %lld", (long long)t->arg);
		break;
	case FP_TAMPER_CONTROL:
		fp_sbuf_printf(
			b,
			"a %s on footprint's control socket from a root process that is not footprint",
			fp_control_op_name(t->arg));
		break;
	case FP_TAMPER_RESTART:
		fp_sbuf_printf(
			b,
			"the sidecar was restarted: its state directory was footprint pid %u's, whose job still runs",
			t->target_pid);
		break;
	case FP_TAMPER_REPLACED:
		fp_sbuf_printf(
			b,
			"the sidecar was replaced: the daemon is not pid %u, the one started for this job",
			t->target_pid);
		break;
	default:
		fp_sbuf_printf(b, "%s %lld on pid %u", fp_tamper_name(t),
			       (long long)t->arg, t->target_pid);
		break;
	}
}

static void describe_tamper(const struct fp_tamper_finding *t, size_t max,
			    struct fp_sbuf *b)
{
	if (t->what == FP_TAMPER_STATE_DIR)
		fp_sbuf_cut(b, t->path.data, t->path.len, max);
	else
		tamper_event_text(t, b);
	if (t->by.pid) {
		fp_sbuf_str(b, " by ");
		fp_sbuf_actor(b, &t->by, max);
	}
}

static void describe_file(const struct fp_file_finding *x, unsigned int l,
			  size_t max, struct fp_sbuf *b)
{
	const struct fp_actor *a =
		l == FP_F_TRANSIENT ? fp_ff_actor(x, created_by) : &x->by;

	if (l == FP_F_CUT)
		fp_sbuf_str(b, "...");
	fp_sbuf_cut(b, x->path.data, x->path.len, max);
	if (l == FP_F_UNEXPLAINED || l == FP_F_UNREADABLE)
		return;
	if (!a->pid) {
		fp_sbuf_str(b, " (no event explains it)");
		return;
	}
	fp_sbuf_str(b, l != FP_F_TRANSIENT && x->by_open ?
			       " opened for writing by " :
			       " by ");
	fp_sbuf_actor(b, a, max);
}

void fp_fref_describe(const struct fp_findings *fi, const struct fp_fref *r,
		      size_t max, struct fp_sbuf *out)
{
	unsigned int cat = r->cat;
	char subj[512];

	if (cat == FP_CAT_TAMPER) {
		describe_tamper(&FP_TAMPER(fi)[r->i], max, out);
	} else if (fp_cat_is_file(cat)) {
		describe_file(&FP_FILES(fi, cat - FP_CAT_FILES)[r->i],
			      cat - FP_CAT_FILES, max, out);
	} else if (fp_cat_is_proc(cat)) {
		fp_sbuf_actor(out, &fp_fref_proc(fi, cat, r->i)->p, max);
	} else if (!fp_cat_is_bind(cat)) {
		fp_fref_describe_more(fi, r, max, out);
	} else {
		const struct fp_net_finding *n =
			&FP_NETS(fi, cat - FP_CAT_NET)[r->i];

		fp_net_subject(n, subj, sizeof(subj));
		fp_sbuf_cut(out, subj, strlen(subj), max);
		fp_sbuf_printf(out, " by pid %d", (int)n->pid);
	}
}
