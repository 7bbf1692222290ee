// SPDX-License-Identifier: GPL-2.0
/*
 * sidecar stop --attest: the receipt the daemon (or, when it is gone,
 * stop itself) writes goes first into a memfd of stop's, then where the
 * user asked, and the link is made of those very bytes. Two calls around
 * the verdict, until run, replay and sidecar stop share one report path.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "sidecar_cmd.h"

/* the receipt's own path stands in while the verdict goes to the memfd */
static const char to_memfd[] = "(footprint's memfd)";

int sidecar_attest_begin(struct sidecar_attest *sa, struct fp_output *receipt,
			 struct sidecar_opts *o, const struct fp_creds *c)
{
	int rc;

	sa->mfd = -1;
	sa->job = (struct fp_attest_job)FP_ATTEST_JOB_INIT;
	if (!o->attest.key)
		return 0;
	o->attest.quiet = o->args.so.quiet;
	rc = fp_attest_job_prepare(&sa->job, &o->attest, c);
	if (!rc) {
		sa->mfd = memfd_create("footprint-receipt", MFD_CLOEXEC);
		if (sa->mfd < 0) {
			fprintf(stderr, "footprint: memfd_create: %s\n",
				strerror(errno));
			rc = FP_EXIT_NOTRACE;
		}
	}
	if (rc) {
		fp_attest_job_free(&sa->job);
		return rc;
	}
	sa->fd = receipt->fd;
	sa->path = o->args.so.receipt_path;
	receipt->fd = sa->mfd;
	o->args.so.receipt_path = to_memfd;
	return 0;
}

/* the receipt to where it was asked for: stdout, the file, or nowhere */
static int pass_on(const struct sidecar_attest *sa, const char *buf, size_t len)
{
	int fd = sa->path && !strcmp(sa->path, "-") ? STDOUT_FILENO : sa->fd;
	ssize_t n;
	size_t off = 0;

	while (fd >= 0 && off < len) {
		n = write(fd, buf + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr,
				"footprint: writing the receipt to %s failed: %s\n",
				sa->path, strerror(errno));
			return -1;
		}
		off += n;
	}
	return 0;
}

int sidecar_attest_end(struct sidecar_attest *sa, struct fp_output *receipt,
		       struct sidecar_opts *o, int rc)
{
	struct stat st;
	char *buf = NULL;
	int ret = rc;

	if (sa->mfd < 0)
		goto out;
	receipt->fd = sa->fd;
	o->args.so.receipt_path = sa->path;
	if (fstat(sa->mfd, &st) || !st.st_size || !(buf = malloc(st.st_size)) ||
	    pread(sa->mfd, buf, st.st_size, 0) != st.st_size) {
		fprintf(stderr,
			"footprint: the sidecar gave no receipt; no %s was written\n",
			sa->job.a.format == FP_ATTEST_LINK ? "link" :
							     "statement");
		goto out;
	}
	if (pass_on(sa, buf, st.st_size)) {
		ret = rc ? rc : FP_EXIT_NOTRACE;
		goto out;
	}
	ret = fp_attest_job_receipt(&sa->job, buf, st.st_size, NULL);
	ret = rc ? rc : ret;
out:
	free(buf);
	if (sa->mfd >= 0)
		close(sa->mfd);
	sa->mfd = -1;
	fp_attest_job_free(&sa->job);
	return ret;
}
