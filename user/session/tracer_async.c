// SPDX-License-Identifier: GPL-2.0
/*
 * The tracer's load (libbpf's BTF parse, map creation, the verifier: most
 * of a short run's time) on a thread of its own, while the main thread
 * takes the before snapshot on the other CPU. Nothing is attached until
 * both are done: an attach made as soon as the programs were loaded took
 * its text patching off the main thread, but the first tracepoint a run
 * attaches waits for an RCU grace period after the machine's last
 * detach (tracepoint_add_func(), 8-20 ms at HZ=250), and the earlier the
 * attach, the likelier that wait: back to back, runs were slower.
 * The snapshot's fs credentials are per thread (creds.c), so the loader
 * keeps root's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "session.h"

struct fp_loader {
	pthread_t thread;
	struct fp_session *s;
	struct fp_tracer *tracer;
	int ret;
	char err[512];
};

static void *load(void *arg)
{
	struct fp_loader *l = arg;
	struct fp_session *s = l->s;

	l->ret = fp_tracer_open(&l->tracer, &s->o.tracer, s->col, l->err,
				sizeof(l->err));
	return NULL;
}

int fp_session_start_tracer(struct fp_session *s, char *err, size_t errlen)
{
	struct fp_loader *l = calloc(1, sizeof(*l));

	s->col = calloc(1, sizeof(*s->col));
	if (!l || !s->col) {
		free(l);
		snprintf(err, errlen, "footprint: out of memory");
		return -ENOMEM;
	}
	fp_collector_init(s->col, fp_session_sink, s);
	l->s = s;
	/* no thread to be had: load here, as fp_session_open_tracer does */
	if (pthread_create(&l->thread, NULL, load, l)) {
		load(l);
		s->tracer = l->tracer;
		snprintf(err, errlen, "%s", l->err);
		free(l);
		return s->tracer ? 0 : -EINVAL;
	}
	s->loader = l;
	s->close_async = true;
	return 0;
}

/* the loader's thread ended (joined): its tracer taken, its error said */
static int joined(struct fp_session *s, bool quiet)
{
	struct fp_loader *l = s->loader;
	int ret;

	s->loader = NULL;
	s->tracer = l->tracer;
	ret = l->ret;
	if (ret && !quiet)
		fprintf(stderr, "%s\n", l->err);
	free(l);
	return ret;
}

int fp_session_join_tracer(struct fp_session *s, bool quiet)
{
	if (!s->loader)
		return 0;
	pthread_join(s->loader->thread, NULL);
	return joined(s, quiet);
}

int fp_session_join_tracer_within(struct fp_session *s, unsigned int ms)
{
	struct timespec until;
	int ret;

	if (!s->loader)
		return 0;
	/* pthread_timedjoin_np() waits until a CLOCK_REALTIME time */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	until.tv_sec += ms / 1000 + until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	if (pthread_timedjoin_np(s->loader->thread, NULL, &until))
		return 1;
	ret = joined(s, false);
	/* never 1, which would read as still loading */
	return ret > 0 ? -ret : ret;
}

/*
 * The close of a drained tracer: its links' detach (a text patch and an
 * IPI to every CPU per tracepoint, ~4 ms in all) unless the watchdog
 * holds them too, the ring's unmap and the warm set's release, beside
 * the after snapshot of the files and the verdict. The drain stopped the
 * programs first (fp_tracer_stop), so nothing of the run is read after
 * this starts.
 */
struct fp_closer {
	pthread_t thread;
	struct fp_tracer *tracer;
};

static void *close_tracer(void *arg)
{
	struct fp_closer *c = arg;

	/*
	 * Not the collector's boost it inherits (fp_tracer_boost_collector):
	 * on a busy CPU the main thread's verdict goes first.
	 */
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 0);
	fp_tracer_close(c->tracer);
	return NULL;
}

void fp_session_close_tracer(struct fp_session *s)
{
	struct fp_closer *c = calloc(1, sizeof(*c));

	if (c && s->tracer && !s->closer) {
		c->tracer = s->tracer;
		if (!pthread_create(&c->thread, NULL, close_tracer, c)) {
			s->tracer = NULL;
			s->closer = c;
			return;
		}
	}
	/* no thread to be had: closed here */
	free(c);
	fp_tracer_close(s->tracer);
	s->tracer = NULL;
}

void fp_session_join_closer(struct fp_session *s)
{
	struct fp_closer *c = s->closer;

	if (!c)
		return;
	pthread_join(c->thread, NULL);
	s->closer = NULL;
	free(c);
}
