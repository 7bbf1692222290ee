// SPDX-License-Identifier: GPL-2.0
/* fleet init and push: what the commands call (fleet.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "fleet.h"
#include "fleet_conf.h"
#include "fleet_push.h"
#include "fleet_schema.h"
#include "userfile.h"

/* the most entries one spool flush looks at */
#define SPOOL_MAX 100000

static int open_ch(struct fp_ch *ch, const struct fp_fleet_opts *o)
{
	struct fp_fleet_conf k;
	int ret = fp_fleet_conf(o, &k);

	if (ret)
		return ret;
	ret = fp_ch_open(ch, k.url, k.user, k.password);
	if (ret)
		fprintf(stderr, "footprint: fleet: %s\n", ch->err);
	fp_fleet_conf_free(&k);
	return ret ? FP_EXIT_USAGE : 0;
}

static void fleet_init(struct fp_fleet *fl, const struct fp_fleet_opts *o)
{
	memset(fl, 0, sizeof(*fl));
	fl->creds = o->creds;
	fl->job = o->job;
	fl->events = o->events;
	fl->quiet = o->quiet;
	fl->batch_bytes = 8u << 20;
	fl->spool = fp_fleet_spool_default(o->creds);
}

int fp_fleet_open(struct fp_fleet *fl, const struct fp_fleet_opts *o)
{
	int ret;

	fleet_init(fl, o);
	ret = open_ch(&fl->ch, o);
	if (ret)
		fp_fleet_close(fl);
	return ret;
}

void fp_fleet_close(struct fp_fleet *fl)
{
	if (fl->ch.curl)
		fp_ch_close(&fl->ch);
	free(fl->spool);
	fl->spool = NULL;
}

static bool cluster_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && !strchr("_-.", *s))
			return false;
	return true;
}

int fp_fleet_init(const struct fp_fleet_opts *o, const char *const *urls,
		  size_t n, const char *cluster, bool events)
{
	struct fp_fleet_opts one = *o;
	int rc = 0, ret;
	struct fp_ch ch;
	size_t i;

	if (cluster && !cluster_name_ok(cluster))
		return fp_usage_error(
			"fleet",
			"--cluster '%s': a cluster name is letters, digits, '_', '-' and '.'",
			cluster);
	for (i = 0; i < (n ? n : 1); i++) {
		one.url = n ? urls[i] : NULL;
		ret = open_ch(&ch, &one);
		if (ret)
			return ret;
		if (fp_fleet_init_node(&ch, cluster, events)) {
			fprintf(stderr, "footprint: fleet init: %s\n", ch.err);
			rc = FP_EXIT_FLEET_DOWN;
		} else if (!o->quiet) {
			fprintf(stderr,
				"footprint: fleet init: %s: footprint_runs, footprint_findings%s ready%s%s%s\n",
				ch.shown, events ? ", footprint_events" : "",
				cluster ? " (Distributed over cluster " : "",
				cluster ? cluster : "", cluster ? ")" : "");
		}
		fp_ch_close(&ch);
	}
	return rc;
}

static void say(const struct fp_fleet *fl, const char *fmt, const char *name,
		const char *id, unsigned int a, unsigned int b)
{
	if (!fl->quiet)
		fprintf(stderr, fmt, name, id, a, b);
}

/* a push the store did not take: into the spool, unless it is there */
static void spool(struct fp_fleet *fl, struct fp_fleet_doc *d,
		  struct fp_fleet_run *run, const char *why)
{
	char where[PATH_MAX + 64];
	struct fp_fleet_meta m;

	if (d->spool_name) {
		fprintf(stderr,
			"footprint: fleet: %s: %s; it stays in the spool\n",
			d->name, why);
		fl->failed++;
		return;
	}
	if (fp_fleet_meta(fl, d, run, &m) ||
	    fp_fleet_spool_put(fl, d, run, &m, where, sizeof(where))) {
		fprintf(stderr,
			"footprint: fleet: %s: %s; it was not pushed, and not spooled either\n",
			d->name, why);
		fl->failed++;
	} else {
		fprintf(stderr,
			"footprint: fleet: %s: %s; spooled as %s: send it later with 'footprint fleet push --spool %s'\n",
			d->name, why, where, fl->spool);
		fl->spooled++;
	}
	fp_fleet_meta_free(&m);
}

/*
 * One document: pushed, there already, or spooled. *down: the server was
 * not reached, so the ones after are spooled without trying.
 */
static enum fp_push_result push_one(struct fp_fleet *fl, struct fp_fleet_doc *d,
				    bool *down)
{
	struct fp_fleet_run run;
	enum fp_push_result r;
	char err[256];

	if (fp_fleet_receipt_run(d->receipt, d->len, &run, err, sizeof(err))) {
		fprintf(stderr, "footprint: fleet: %s: %s\n", d->name, err);
		return FP_PUSH_BAD;
	}
	fl->events_pushed = 0;
	r = *down ? FP_PUSH_FAILED : fp_fleet_push_doc(fl, d, &run);
	/* ClickHouse's UNKNOWN_TABLE: say what makes them */
	if ((r == FP_PUSH_FAILED || r == FP_PUSH_NO_EVENTS) &&
	    strstr(fl->ch.err, "Code: 60,") &&
	    strlen(fl->ch.err) + 80 < sizeof(fl->ch.err))
		strcat(fl->ch.err,
		       "; make the tables with footprint fleet init (--events for the events)");
	if (r == FP_PUSHED) {
		fl->pushed++;
		say(fl,
		    "footprint: fleet: %s: run %s pushed (%u findings, %u failing)",
		    d->name, run.id, run.findings, run.failing);
	} else if (r == FP_PUSHED_ALREADY) {
		fl->already++;
		say(fl, "footprint: fleet: %s: run %s is in the store already",
		    d->name, run.id, 0, 0);
	} else if (r == FP_PUSH_FAILED) {
		if (!*down && !fl->ch.http)
			*down = true;
		else if (*down)
			snprintf(fl->ch.err, sizeof(fl->ch.err),
				 "%s was not reached (see above)",
				 fl->ch.shown);
		spool(fl, d, &run, fl->ch.err);
	}
	if (r == FP_PUSH_NO_EVENTS) {
		fprintf(stderr,
			"footprint: fleet: %s: run %s is in the store, its events are not: %s; then push the log again with --events\n",
			d->name, run.id, fl->ch.err);
		fl->failed++;
		if (!fl->ch.http)
			*down = true;
	}
	if ((r == FP_PUSHED || r == FP_PUSHED_ALREADY) && !fl->quiet)
		fprintf(stderr,
			fl->events_pushed ? "; %llu events pushed\n" : "\n",
			(unsigned long long)fl->events_pushed);
	fp_fleet_run_free(&run);
	return r;
}

static int exit_code(const struct fp_fleet *fl, bool bad)
{
	if (bad)
		return FP_EXIT_USAGE;
	return fl->spooled || fl->failed ? FP_EXIT_FLEET_DOWN : FP_EXIT_OK;
}

int fp_fleet_push_files(struct fp_fleet *fl, char *const *files, size_t n)
{
	struct fp_fleet_doc d;
	bool down = false, bad = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (fp_fleet_doc_file(&d, files[i], fl->creds))
			bad = true;
		else if (push_one(fl, &d, &down) == FP_PUSH_BAD)
			bad = true;
		fp_fleet_doc_free(&d);
	}
	return exit_code(fl, bad);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool spool_name(const char *n)
{
	size_t l = strlen(n);

	return n[0] != '.' && l > 8 && !strcmp(n + l - 8, ".fpspool");
}

/* the entries' names, sorted; NULL on ENOMEM or an unreadable dir */
static char **list_spool(int dirfd, size_t *n)
{
	int fd = dup(dirfd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	char **v = NULL, **nv;
	struct dirent *e;
	size_t cap = 0;

	*n = 0;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((e = readdir(dir)) && *n < SPOOL_MAX) {
		if (!spool_name(e->d_name))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[*n] = strdup(e->d_name);
		if (!v[*n])
			break;
		(*n)++;
	}
	closedir(dir);
	if (v)
		qsort(v, *n, sizeof(*v), name_cmp);
	return v ? v : calloc(1, sizeof(*v));
}

static int open_entry(struct fp_fleet *fl, int dirfd, const char *name)
{
	int fd, e = fp_creds_enter(fl->creds);

	if (e)
		return e;
	fd = openat(dirfd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	e = fd < 0 ? -errno : fd;
	fp_creds_leave(fl->creds);
	return e;
}

static void remove_entry(struct fp_fleet *fl, int dirfd, const char *name)
{
	if (fp_creds_enter(fl->creds))
		return;
	unlinkat(dirfd, name, 0);
	fp_creds_leave(fl->creds);
}

int fp_fleet_push_spool(struct fp_fleet *fl, const char *dir)
{
	char err[PATH_MAX + 256], shown[PATH_MAX + 256];
	struct fp_fleet_doc d;
	enum fp_push_result r;
	bool down = false, bad = false;
	size_t i, n, sent = 0;
	char **names;
	int dirfd, fd;

	dirfd = fp_userdir_open(fl->creds, "the spool directory", dir, false,
				err, sizeof(err));
	if (dirfd < 0) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_USAGE;
	}
	names = list_spool(dirfd, &n);
	if (!names) {
		fprintf(stderr, "footprint: fleet: cannot list %s: %s\n", dir,
			strerror(errno));
		close(dirfd);
		return FP_EXIT_USAGE;
	}
	for (i = 0; i < n && !down; i++) {
		snprintf(shown, sizeof(shown), "%s/%s", dir, names[i]);
		fd = open_entry(fl, dirfd, names[i]);
		if (fd < 0) {
			fprintf(stderr,
				"footprint: fleet: cannot read %s: %s\n", shown,
				strerror(-fd));
			bad = true;
			continue;
		}
		r = fp_fleet_doc_spooled(&d, fd, shown) ?
			    FP_PUSH_BAD :
			    (d.spool_name = strdup(names[i]),
			     push_one(fl, &d, &down));
		if (r == FP_PUSHED || r == FP_PUSHED_ALREADY) {
			remove_entry(fl, dirfd, names[i]);
			sent++;
		}
		bad |= r == FP_PUSH_BAD;
		fp_fleet_doc_free(&d);
	}
	if (!fl->quiet || n > sent)
		fprintf(stderr,
			"footprint: fleet: %zu of %zu spooled receipts sent from %s%s\n",
			sent, n, dir,
			n > sent ? "; the rest stay there: try again later" :
				   "");
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	close(dirfd);
	if (n > sent && !bad)
		return FP_EXIT_FLEET_DOWN;
	return exit_code(fl, bad);
}

/* --push of run and replay, sidecar stop: pushed or spooled; -1 neither */
static int push_after(const struct fp_fleet_opts *o, struct fp_fleet_doc *d)
{
	struct fp_fleet fl;
	enum fp_push_result r;
	bool down = false;
	int ret;

	fleet_init(&fl, o);
	ret = open_ch(&fl.ch, o);
	if (ret) {
		/* misconfigured: the receipt is kept all the same */
		struct fp_fleet_run run;
		char err[256];

		if (!fp_fleet_receipt_run(d->receipt, d->len, &run, err,
					  sizeof(err))) {
			spool(&fl, d, &run, "not pushed (see above)");
			fp_fleet_run_free(&run);
		}
		ret = fl.spooled ? 0 : -1;
		fp_fleet_close(&fl);
		return ret;
	}
	r = push_one(&fl, d, &down);
	ret = r == FP_PUSHED || r == FP_PUSHED_ALREADY || fl.spooled ? 0 : -1;
	fp_fleet_close(&fl);
	return ret;
}

int fp_fleet_push_judged(const struct fp_fleet_opts *o,
			 const struct fp_run *run, const struct fp_findings *f,
			 const struct fp_verdict *v,
			 const struct fp_outcome *out)
{
	struct fp_fleet_doc d;
	int ret = fp_fleet_doc_judged(&d, "the receipt", run, f, v, out);

	if (!ret)
		ret = push_after(o, &d);
	fp_fleet_doc_free(&d);
	return ret;
}

int fp_fleet_push_receipt_fd(const struct fp_fleet_opts *o, int fd,
			     const char *user)
{
	struct fp_fleet_doc d;
	struct utsname u;
	struct timespec now;
	int ret = fp_fleet_doc_fd(&d, fd, "the job's receipt");

	if (!ret) {
		/* the daemon judged it just now, here */
		clock_gettime(CLOCK_REALTIME, &now);
		d.origin.end_ns =
			(int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
		snprintf(d.origin.from, sizeof(d.origin.from), "push");
		if (!uname(&u))
			d.origin.host = strdup(u.nodename);
		d.origin.user = user ? strdup(user) : NULL;
		ret = push_after(o, &d);
	}
	fp_fleet_doc_free(&d);
	return ret;
}
