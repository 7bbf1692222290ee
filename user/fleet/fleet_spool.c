// SPDX-License-Identifier: GPL-2.0
/*
 * The spool: receipts a push could not deliver, one file each
 * (RUNID.fpspool: a header line with what the push had resolved, the job
 * and the run's origin, then the receipt's bytes), in a directory of the
 * invoking user's, written with that user's rights and never through a
 * link. `fleet push --spool DIR` sends them and removes each once the
 * store has it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "fleet_conf.h"
#include "fleet_push.h"
#include "json.h"
#include "userfile.h"

char *fp_fleet_spool_default(const struct fp_creds *c)
{
	const char *env = getenv("FOOTPRINT_SPOOL");
	char *home, *s = NULL;

	if (env && *env)
		return strdup(env);
	home = fp_fleet_home(c);
	if (home && asprintf(&s, "%s/.local/state/footprint/spool", home) < 0)
		s = NULL;
	free(home);
	return s;
}

static void header(FILE *f, const struct fp_fleet_doc *d,
		   const struct fp_fleet_meta *m)
{
	struct json_out j = { .f = f };

	fputs(FP_FLEET_SPOOL_MAGIC, f);
	json_begin_object(&j);
	json_field_bytes(&j, "job", m->job, strlen(m->job));
	json_field_bytes(&j, "name", d->name, strlen(d->name));
	json_field_bytes(&j, "host", m->host, strlen(m->host));
	json_field_bytes(&j, "user", m->user, strlen(m->user));
	json_field_u64(&j, "uid", m->uid);
	json_field_bytes(&j, "version", m->version, strlen(m->version));
	json_field_bytes(&j, "kernel", m->kernel, strlen(m->kernel));
	json_field_i64(&j, "start_ns", m->start_ns);
	json_field_i64(&j, "end_ns", m->end_ns);
	json_field_str(&j, "from", m->origin);
	json_end_object(&j);
	fputc('\n', f);
}

/* a new file in dirfd, as the user: name it when it is whole */
static int write_entry(int dirfd, const char *name,
		       const struct fp_fleet_doc *d,
		       const struct fp_fleet_meta *m)
{
	char tmp[64];
	unsigned int r = 0;
	FILE *f;
	int fd, ret = 0;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (unsigned int)getpid();
	snprintf(tmp, sizeof(tmp), ".%08x.tmp", r);
	fd = openat(dirfd, tmp,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		unlinkat(dirfd, tmp, 0);
		return ret;
	}
	header(f, d, m);
	fwrite(d->receipt, 1, d->len, f);
	if (fflush(f) || fsync(fileno(f)))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && renameat(dirfd, tmp, dirfd, name))
		ret = -errno;
	if (ret)
		unlinkat(dirfd, tmp, 0);
	return ret;
}

int fp_fleet_spool_put(struct fp_fleet *fl, const struct fp_fleet_doc *d,
		       const struct fp_fleet_run *run,
		       const struct fp_fleet_meta *m, char *where, size_t wlen)
{
	char err[PATH_MAX + 256], name[64];
	int dirfd, ret;

	if (!fl->spool) {
		fprintf(stderr,
			"footprint: fleet: no spool directory (no home directory); set FOOTPRINT_SPOOL\n");
		return -1;
	}
	dirfd = fp_userdir_open(fl->creds, "the spool directory", fl->spool,
				true, err, sizeof(err));
	if (dirfd < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	snprintf(name, sizeof(name), "%s.fpspool", run->id);
	ret = fp_creds_enter(fl->creds);
	if (!ret) {
		ret = write_entry(dirfd, name, d, m);
		fp_creds_leave(fl->creds);
	}
	close(dirfd);
	if (ret) {
		fprintf(stderr, "footprint: fleet: cannot spool %s to %s: %s\n",
			d->name, fl->spool, strerror(-ret));
		return -1;
	}
	snprintf(where, wlen, "%s/%s", fl->spool, name);
	return 0;
}
