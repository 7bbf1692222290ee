// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "evlog.h"
#include "fleet_doc.h"
#include "fleet_jv.h"
#include "jsonin.h"
#include "logrun.h"
#include "run.h"
#include "userfile.h"

/* a receipt (or a log) larger than this is refused, not mapped */
#define DOC_MAX (4ull << 30)

static void doc_init(struct fp_fleet_doc *d)
{
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->spool_dirfd = -1;
}

void fp_fleet_origin_free(struct fp_fleet_origin *o)
{
	free(o->host);
	free(o->user);
	free(o->version);
	free(o->kernel);
	memset(o, 0, sizeof(*o));
}

void fp_fleet_doc_free(struct fp_fleet_doc *d)
{
	if (d->map)
		munmap(d->map, d->maplen);
	if (d->fd >= 0)
		close(d->fd);
	free(d->name);
	free(d->job);
	free(d->log);
	free(d->spool_name);
	fp_fleet_origin_free(&d->origin);
	doc_init(d);
}

/* map what fd holds; the receipt is all of it */
static int map_fd(struct fp_fleet_doc *d)
{
	struct stat st;

	if (fstat(d->fd, &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "footprint: fleet: %s is not a regular file\n",
			d->name);
		return -1;
	}
	if (st.st_size == 0 || (uint64_t)st.st_size > DOC_MAX) {
		fprintf(stderr,
			"footprint: fleet: %s is %s; a receipt is a JSON object of at most 4 GiB\n",
			d->name, st.st_size ? "too large" : "empty");
		return -1;
	}
	d->maplen = st.st_size;
	d->map = mmap(NULL, d->maplen, PROT_READ, MAP_PRIVATE, d->fd, 0);
	if (d->map == MAP_FAILED) {
		d->map = NULL;
		fprintf(stderr, "footprint: fleet: cannot map %s: %s\n",
			d->name, strerror(errno));
		return -1;
	}
	d->receipt = d->map;
	d->len = d->maplen;
	if (!d->origin.end_ns) {
		/* a receipt that does not say when: when it was written */
		d->origin.end_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
				   st.st_mtim.tv_nsec;
		snprintf(d->origin.from, sizeof(d->origin.from), "file");
	}
	return 0;
}

/* an unnamed file for a rendered receipt: on disk, not in memory */
static int tmp_fd(void)
{
	const char *dir = getenv("TMPDIR");
	int fd = -1;

	if (dir && *dir == '/')
		fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		fd = memfd_create("footprint-receipt", MFD_CLOEXEC);
	return fd;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int fp_fleet_doc_judged(struct fp_fleet_doc *d, const char *name,
			const struct fp_run *run, const struct fp_findings *f,
			const struct fp_verdict *v,
			const struct fp_outcome *out)
{
	FILE *w;
	int fd;

	doc_init(d);
	d->name = strdup(name);
	fd = tmp_fd();
	w = fd >= 0 ? fdopen(fd, "w+") : NULL;
	if (!w || !d->name) {
		fprintf(stderr,
			"footprint: fleet: no room for the receipt of %s: %s\n",
			name, strerror(errno));
		if (w)
			fclose(w);
		else if (fd >= 0)
			close(fd);
		return -1;
	}
	fp_run_receipt(w, run, f, v, out);
	if (fflush(w)) {
		fprintf(stderr,
			"footprint: fleet: writing the receipt of %s failed: %s\n",
			name, strerror(errno));
		fclose(w);
		return -1;
	}
	d->fd = dup(fileno(w));
	fclose(w);
	d->origin.host = dup_or_null(run->hostname);
	d->origin.user = dup_or_null(run->user);
	d->origin.version = dup_or_null(run->version);
	d->origin.kernel = dup_or_null(run->kernel);
	d->origin.uid = run->uid;
	d->origin.start_ns = run->start_ns;
	d->origin.end_ns = run->end_ns;
	snprintf(d->origin.from, sizeof(d->origin.from), "log");
	return d->fd < 0 ? -1 : map_fd(d);
}

int fp_fleet_doc_fd(struct fp_fleet_doc *d, int fd, const char *name)
{
	doc_init(d);
	d->fd = fd;
	d->name = strdup(name);
	return d->name ? map_fd(d) : -1;
}

/* the header line of a spooled entry: the push as it was resolved */
static int read_spool_header(struct fp_fleet_doc *d)
{
	const char *p = d->receipt, *nl;
	size_t m = strlen(FP_FLEET_SPOOL_MAGIC), n;
	struct fp_fleet_origin *o = &d->origin;
	char err[128], *from = NULL;
	struct fp_jv h;
	int ret = 0;

	nl = memchr(p, '\n', d->len);
	if (!nl || fp_json_parse(p + m, nl - p - m, &h, err, sizeof(err))) {
		fprintf(stderr,
			"footprint: fleet: %s: a damaged spool entry (%s); push its receipt by hand, or remove it\n",
			d->name, nl ? err : "no header");
		return -1;
	}
	fp_fleet_origin_free(o);
	if (fp_fleet_jv_bytes(&h, "job", &d->job, &n) == -ENOMEM ||
	    fp_fleet_jv_bytes(&h, "host", &o->host, &n) == -ENOMEM ||
	    fp_fleet_jv_bytes(&h, "user", &o->user, &n) == -ENOMEM ||
	    fp_fleet_jv_bytes(&h, "version", &o->version, &n) == -ENOMEM ||
	    fp_fleet_jv_bytes(&h, "kernel", &o->kernel, &n) == -ENOMEM ||
	    fp_fleet_jv_bytes(&h, "from", &from, &n) == -ENOMEM)
		ret = -1;
	o->uid = (uint32_t)fp_jv_int(&h, "uid", 0);
	o->start_ns = fp_jv_int(&h, "start_ns", 0);
	o->end_ns = fp_jv_int(&h, "end_ns", 0);
	snprintf(o->from, sizeof(o->from), "%s", from ? from : "file");
	free(from);
	fp_jv_free(&h);
	d->len -= nl + 1 - d->receipt;
	d->receipt = nl + 1;
	if (ret)
		fprintf(stderr, "footprint: fleet: out of memory\n");
	return ret;
}

int fp_fleet_doc_spooled(struct fp_fleet_doc *d, int fd, const char *name)
{
	int ret = fp_fleet_doc_fd(d, fd, name);

	if (!ret && (d->len < strlen(FP_FLEET_SPOOL_MAGIC) ||
		     memcmp(d->receipt, FP_FLEET_SPOOL_MAGIC,
			    strlen(FP_FLEET_SPOOL_MAGIC)))) {
		fprintf(stderr,
			"footprint: fleet: %s is not a spooled entry (no header line)\n",
			name);
		return -1;
	}
	return ret ? ret : read_spool_header(d);
}

/* judge the log as replay does, by the policy it recorded */
static int judge_log(struct fp_fleet_doc *d, int fd, int dirfd,
		     const char *base, const char *path)
{
	struct fp_run run;
	struct fp_policy pol = { 0 };
	struct fp_findings f = { 0 };
	struct fp_verdict v = { 0 };
	struct fp_outcome o;
	char err[PATH_MAX + 600];
	int ret, rc = FP_EXIT_USAGE;

	if (fp_run_init(&run)) {
		close(fd);
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_USAGE;
	}
	ret = fp_log_load_fd(fd, dirfd, base, path, &run, NULL, NULL, err,
			     sizeof(err));
	if (ret && ret != -ENODATA)
		fprintf(stderr, "%s\n", err);
	else if (fp_run_policy(&run, &pol, err, sizeof(err)))
		fprintf(stderr, "footprint: %s: the recorded policy: %s\n",
			path, err);
	else if (fp_run_judge(&run, &pol, &f, &v, &o))
		fprintf(stderr,
			"footprint: %s: out of memory while reconciling\n",
			path);
	else if (!fp_fleet_doc_judged(d, path, &run, &f, &v, &o))
		rc = 0;
	fp_verdict_free(&v);
	fp_findings_free(&f);
	fp_policy_free(&pol);
	fp_run_free(&run);
	return rc;
}

int fp_fleet_doc_file(struct fp_fleet_doc *d, const char *path,
		      const struct fp_creds *c)
{
	char err[PATH_MAX + 256], head[FP_LOG_FILE_HDR];
	struct fp_outdir dir;
	ssize_t n;
	int fd, ret;

	doc_init(d);
	/* the directory too: a log's segments are found beside it */
	if (fp_outdir_open(&dir, c, "the file", path, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_USAGE;
	}
	fd = fp_input_open(c, "the file", path, DOC_MAX, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "%s\n", err);
		fp_outdir_close(&dir);
		return FP_EXIT_USAGE;
	}
	n = pread(fd, head, sizeof(head), 0);
	if (n >= 8 && !memcmp(head, FP_LOG_MAGIC, 8)) {
		ret = judge_log(d, fd, dir.dirfd, dir.base, path);
		d->log = ret ? NULL : strdup(path);
		if (!ret && !d->log)
			ret = FP_EXIT_USAGE;
	} else if (n >= (ssize_t)strlen(FP_FLEET_SPOOL_MAGIC) &&
		   !memcmp(head, FP_FLEET_SPOOL_MAGIC,
			   strlen(FP_FLEET_SPOOL_MAGIC))) {
		ret = fp_fleet_doc_spooled(d, fd, path) ? FP_EXIT_USAGE : 0;
	} else {
		ret = fp_fleet_doc_fd(d, fd, path) ? FP_EXIT_USAGE : 0;
	}
	fp_outdir_close(&dir);
	return ret;
}
