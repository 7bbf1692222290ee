// SPDX-License-Identifier: GPL-2.0
/* The one report path: a judged run to its outputs (report_path.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "receipt.h"
#include "reconcile.h"
#include "report_path.h"
#include "summary_md.h"

bool fp_report_has_hooks(const struct fp_report_outputs *o)
{
	unsigned int i;

	for (i = 0; i < FP_REPORT_HOOKS; i++)
		if (o->hooks[i].fn)
			return true;
	return false;
}

/* The receipt, rendered once into a memfd the hooks read: -1 after a
 * line when there is no room for it. */
static int receipt_to_memfd(const struct fp_judged *j)
{
	int mfd = memfd_create("footprint-receipt", MFD_CLOEXEC);
	FILE *f = mfd >= 0 ? fdopen(dup(mfd), "w") : NULL;
	bool bad;

	if (!f) {
		fprintf(stderr, "footprint: no memory for the receipt: %s\n",
			strerror(errno));
		if (mfd >= 0)
			close(mfd);
		return -1;
	}
	fp_run_receipt(f, j->run, j->f, j->v, j->o);
	bad = fflush(f) != 0;
	bad = fclose(f) || bad;
	if (bad) {
		fprintf(stderr, "footprint: no memory for the receipt: %s\n",
			strerror(errno));
		close(mfd);
		return -1;
	}
	return mfd;
}

/* r's bytes, mapped from its memfd; 0 or -errno */
static int receipt_map(int fd, const struct fp_judged *j,
		       struct fp_report_receipt *r)
{
	struct stat st;
	void *p;

	*r = (struct fp_report_receipt){ .fd = fd, .buf = "", .j = j };
	if (fstat(fd, &st))
		return -errno;
	if (!st.st_size)
		return 0;
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->buf = p;
	r->len = st.st_size;
	return 0;
}

static void receipt_unmap(struct fp_report_receipt *r)
{
	if (r->len)
		munmap((void *)r->buf, r->len);
	r->len = 0;
}

static int run_hooks(const struct fp_report_receipt *r,
		     const struct fp_report_outputs *o, int rc)
{
	unsigned int i;

	for (i = 0; i < FP_REPORT_HOOKS; i++)
		if (o->hooks[i].fn)
			rc = o->hooks[i].fn(o->hooks[i].ctx, r, rc);
	return rc;
}

/* The held receipt mapped, and written where it was asked for: 0, or -1
 * after a line (nothing of it can be read back). */
static int receipt_take(int fd, const struct fp_judged *j,
			const struct fp_report_outputs *o,
			struct fp_report_receipt *r)
{
	int ret = receipt_map(fd, j, r);

	if (ret) {
		fprintf(stderr, "footprint: cannot read the receipt back: %s\n",
			strerror(-ret));
		return -1;
	}
	/* its errors show when the caller closes it */
	if (o->receipt && r->len)
		fwrite(r->buf, 1, r->len, o->receipt);
	return 0;
}

int fp_report_receipt_fd(int fd, const struct fp_judged *j,
			 const struct fp_report_outputs *o, int rc)
{
	struct fp_report_receipt r;

	if (receipt_take(fd, j, o, &r))
		return rc == FP_EXIT_OK ? FP_EXIT_NOTRACE : rc;
	rc = run_hooks(&r, o, rc);
	receipt_unmap(&r);
	return rc;
}

/*
 * Why the trace is incomplete, one line a cause: a ring too small is
 * the only one a larger --ring-size helps. A log keeps the total only.
 */
static void lost_lines(const struct fp_trace_stats *st, uint64_t lost)
{
	uint64_t compat = st ? st->lost_compat : 0, net = st ? st->lost_net : 0;
	uint64_t rest = lost > compat + net ? lost - compat - net : 0;

	if (compat)
		fprintf(stderr,
			"footprint: %" PRIu64
			" 32-bit (int $0x80) file syscalls could not be decoded; the trace is incomplete (trace a 64-bit build of the program)\n",
			compat);
	if (net)
		fprintf(stderr,
			"footprint: %" PRIu64
			" sends named a destination the kernel did not route, and the sender's memory no longer held it (rewritten during the call); the trace is incomplete and the verdict fails\n",
			net);
	if (rest && st)
		fprintf(stderr,
			"footprint: %" PRIu64
			" events were lost; the trace is incomplete (try a larger --ring-size)\n",
			rest);
	else if (rest)
		fprintf(stderr,
			"footprint: %" PRIu64
			" events were lost when the run was traced; the trace is incomplete\n",
			rest);
}

static void warnings(const struct fp_judged *j, bool quiet)
{
	const struct fp_run *run = j->run;
	const char *uring = fp_recon_uring_why(run->recon);

	if (run->lost)
		lost_lines(j->st, run->lost);
	if (fp_recon_unfolded(run->recon))
		fprintf(stderr,
			"footprint: the memory budget (--memory-budget, %" PRIu64
			" MiB) ran out; the trace is incomplete and the verdict fails\n",
			run->mem_budget >> 20);
	/* the summary's reasons say it otherwise: one line either way */
	if (quiet && uring)
		fprintf(stderr,
			"footprint: trace incomplete: %s; the verdict fails\n",
			uring);
}

static void markdown(const struct fp_judged *j, int fd)
{
	FILE *f = fd >= 0 ? fdopen(dup(fd), "w") : NULL;

	if (!f)
		return;
	fp_summary_md_write(f, j->f, j->v, FP_MD_SUMMARY_MAX);
	fclose(f);
}

static void summary(const struct fp_judged *j,
		    const struct fp_report_outputs *o)
{
	struct fp_summary_opts so = {
		isatty(STDERR_FILENO) && !getenv("NO_COLOR"),
		o->summary_max ?: FP_SUMMARY_MAX_DEFAULT,
	};

	fp_summary_write_roots(stderr, j->f, j->v, &so, j->run->roots,
			       j->run->nroots);
	if (o->summary_more)
		o->summary_more(o->summary_more_ctx);
}

/* the receipt, held in a memfd for the hooks when there are any: 1
 * when it is (r), 0 when it is not, -1 when it should be and is not */
static int receipt_out(const struct fp_judged *j,
		       const struct fp_report_outputs *o,
		       struct fp_report_receipt *r)
{
	int mfd = -1;

	if (fp_report_has_hooks(o)) {
		mfd = receipt_to_memfd(j);
		if (mfd >= 0 && receipt_take(mfd, j, o, r)) {
			close(mfd);
			mfd = -1;
		}
		if (mfd >= 0)
			return 1;
	}
	/* without the hooks' copy, the receipt as ever */
	if (o->receipt)
		fp_run_receipt(o->receipt, j->run, j->f, j->v, j->o);
	return fp_report_has_hooks(o) ? -1 : 0;
}

int fp_report_judged(const struct fp_judged *j,
		     const struct fp_report_outputs *o, int rc)
{
	struct fp_report_receipt r;
	int held = receipt_out(j, o, &r);

	markdown(j, o->markdown_fd);
	if (o->annotations) {
		fp_annotations_write(stdout, j->f, j->v, FP_ANNOTATIONS_MAX);
		fflush(stdout);
	}
	warnings(j, o->quiet);
	if (!o->quiet)
		summary(j, o);
	/* an output asked for and not made: not an ok */
	if (held < 0)
		return rc == FP_EXIT_OK ? FP_EXIT_NOTRACE : rc;
	if (!held)
		return rc;
	rc = run_hooks(&r, o, rc);
	receipt_unmap(&r);
	close(r.fd);
	return rc;
}
