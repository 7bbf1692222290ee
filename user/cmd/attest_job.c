// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attest_job.h"
#include "cli.h"
#include "evlog.h"
#include "userfile.h"

/* the key file, read as c into a buffer wiped after */
static int read_key(struct fp_attest_job *j, char *err, size_t errlen)
{
	char *buf = malloc(FP_ATTEST_KEY_MAX + 1);
	size_t len = 0;
	ssize_t n;
	int fd, ret = -1;

	fd = fp_input_open(j->c, "the key", j->a.key, FP_ATTEST_KEY_MAX, err,
			   errlen);
	if (fd < 0 || !buf) {
		if (!buf)
			snprintf(err, errlen, "footprint: out of memory");
		goto out;
	}
	while ((n = read(fd, buf + len, FP_ATTEST_KEY_MAX + 1 - len)) > 0 &&
	       len < FP_ATTEST_KEY_MAX)
		len += n;
	if (n < 0 || len > FP_ATTEST_KEY_MAX) {
		snprintf(err, errlen, "footprint: cannot read the key %s: %s",
			 j->a.key, n < 0 ? strerror(errno) : "too large");
		goto out;
	}
	ret = fp_attest_key_parse(buf, len, &j->key, err, errlen);
out:
	if (fd >= 0)
		close(fd);
	if (buf)
		OPENSSL_cleanse(buf, FP_ATTEST_KEY_MAX + 1);
	free(buf);
	return ret;
}

int fp_attest_job_prepare(struct fp_attest_job *j,
			  const struct fp_attest_args *a,
			  const struct fp_creds *c)
{
	struct fp_attest_opts o = { .name = a->name, .format = a->format };
	char err[PATH_MAX + 256];

	memset(j, 0, sizeof(*j));
	j->a = *a;
	j->c = c;
	j->out = (struct fp_output)FP_OUTPUT_INIT(
		a->format == FP_ATTEST_LINK ? "the link" : "the statement");
	if (!a->key)
		return 0;
	if (read_key(j, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_USAGE;
	}
	j->path = a->out ? strdup(a->out) : fp_attest_default_name(&o, j->key);
	if (!j->path) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_USAGE;
	}
	j->out.path = j->path;
	/* written once the run is over, after its after snapshot: it may
	 * go into a root, where in-toto-verify looks for it */
	return fp_output_prepare(&j->out, c, NULL, 0);
}

/* the file, as c's: stdout for "-" */
static FILE *open_out(struct fp_attest_job *j)
{
	FILE *f;

	if (!strcmp(j->path, "-"))
		return stdout;
	if (fp_output_create(&j->out, j->c, true) < 0)
		return NULL;
	f = fdopen(dup(j->out.fd), "w");
	if (!f)
		fprintf(stderr, "footprint: out of memory\n");
	return f;
}

int fp_attest_job_receipt(struct fp_attest_job *j, const char *receipt,
			  size_t len, const struct fp_fs_snapshot *before)
{
	struct fp_attest_opts o = {
		.name = j->a.name,
		.format = j->a.format,
		.only_ok = j->a.only_ok,
		.materials_all = j->a.materials_all,
		.before = before,
	};
	char err[PATH_MAX + 256], *doc;
	size_t doclen;
	bool bad;
	FILE *f;
	int rc;

	/* made before the file is: a refusal leaves none behind */
	rc = fp_attest_make(receipt, len, j->key, &o, &doc, &doclen, err,
			    sizeof(err));
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return rc;
	}
	f = open_out(j);
	if (!f) {
		free(doc);
		return FP_EXIT_NOTRACE;
	}
	bad = fwrite(doc, 1, doclen, f) != doclen;
	bad = fflush(f) || bad;
	bad = (f != stdout && fclose(f)) || bad;
	free(doc);
	if (bad) {
		fprintf(stderr, "footprint: writing %s to %s failed: %s\n",
			j->out.what, j->path, strerror(errno));
		fp_output_discard(&j->out, j->c);
		return FP_EXIT_NOTRACE;
	}
	if (j->c && j->c->active)
		fp_output_hand_over(&j->out, 1, j->c->uid, j->c->gid,
				    j->c->name);
	if (!j->a.quiet && f != stdout)
		fprintf(stderr, "footprint: %s of step %s (key %.8s): %s\n",
			j->out.what, j->a.name, fp_attest_key_id(j->key),
			j->path);
	return 0;
}

int fp_attest_job_run(struct fp_attest_job *j, const struct fp_run *run,
		      const struct fp_findings *f, const struct fp_verdict *v,
		      const struct fp_outcome *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int rc;

	if (!mem) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_NOTRACE;
	}
	fp_run_receipt(mem, run, f, v, o);
	if (fclose(mem) || !buf) {
		fprintf(stderr, "footprint: out of memory\n");
		free(buf);
		return FP_EXIT_NOTRACE;
	}
	rc = fp_attest_job_receipt(j, buf, len,
				   run->have_snap[FP_PHASE_BEFORE] ?
					   &run->fs[FP_PHASE_BEFORE] :
					   NULL);
	free(buf);
	return rc;
}

int fp_attest_after_run(struct fp_attest_job *j, const struct fp_session *s,
			int rc)
{
	int ret;

	if (!j->key)
		return rc;
	/* no verdict: the command never ran, or footprint could not trace */
	if (!s->run.have_trailer || rc == FP_EXIT_NOTRACE ||
	    rc == FP_EXIT_USAGE) {
		fprintf(stderr,
			"footprint: the run has no verdict; no %s was written\n",
			j->a.format == FP_ATTEST_LINK ? "link" : "statement");
		return rc;
	}
	ret = fp_attest_job_run(j, &s->run, &s->findings, &s->verdict, &s->out);
	return rc == FP_EXIT_OK ? ret : rc;
}

void fp_attest_job_free(struct fp_attest_job *j)
{
	if (j->out.fd >= 0)
		close(j->out.fd);
	fp_output_close(&j->out);
	fp_attest_key_free(j->key);
	free(j->path);
	*j = (struct fp_attest_job)FP_ATTEST_JOB_INIT;
}
