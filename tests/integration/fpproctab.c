// SPDX-License-Identifier: GPL-2.0
/*
 * fpproctab: the process table read both ways on the live machine, for
 * test_proc_fresh.py: from /proc alone (fp_proc_snapshot) and with the
 * tracer's task iterator (fp_proc_snapshot_tasks_fresh), one NDJSON line
 * a process, byte fields in hex. Test-only: it is not installed.
 *
 * Usage: fpproctab [ROUNDS]   (default 1; each round reads both ways,
 *                              the iterator's first)
 * Prints {"opens":N} after each round: the iterator fds it read.
 * Exits 1 with a "footprint:" line on stderr when either read fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "snapshot_proc.h"
#include "tracer.h"

static int opens;

static int tasks_open(void *tracer)
{
	opens++;
	return fp_tracer_tasks_fd(tracer);
}

static int no_event(void *ctx, const struct fp_event *ev)
{
	return 0;
}

static void hex(const char *key, const struct fp_bytes *b)
{
	size_t i;

	printf(",\"%s\":\"", key);
	for (i = 0; i < b->len; i++)
		printf("%02x", (unsigned char)b->data[i]);
	putchar('"');
}

static void print_table(const char *way, const struct fp_proc_table *t)
{
	struct fp_bytes comm;
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct fp_proc *p = &t->procs[i];

		printf("{\"way\":\"%s\",\"pid\":%d,\"ppid\":%d,\"start\":%llu,"
		       "\"uid\":%u,\"cap_eff\":%llu,\"nnp\":%d,\"kthread\":%d",
		       way, (int)p->pid, (int)p->ppid,
		       (unsigned long long)p->start_ticks, p->uid,
		       (unsigned long long)p->cap_eff, p->no_new_privs,
		       p->kernel_thread);
		comm = (struct fp_bytes){ (char *)p->comm, strlen(p->comm) };
		hex("comm", &comm);
		hex("exe", &p->exe);
		hex("cwd", &p->cwd);
		hex("argv", &p->argv);
		hex("cgroup", &p->cgroup);
		puts("}");
	}
}

int main(int argc, char **argv)
{
	struct fp_tracer_opts o = { .ring_bytes = 1 << 20,
				    .max_argv_bytes = 1 << 20 };
	static struct fp_collector col;
	struct fp_proc_table a, b;
	struct fp_tasks_src src;
	struct fp_tracer *t;
	int rounds = argc > 1 ? atoi(argv[1]) : 1, r, ret;
	char err[512];

	fp_collector_init(&col, no_event, NULL);
	if (fp_tracer_open(&t, &o, &col, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	src = (struct fp_tasks_src){ tasks_open, t };
	for (r = 0; r < rounds; r++) {
		opens = 0;
		ret = fp_proc_snapshot_tasks_fresh(&a, &src);
		if (!ret)
			ret = fp_proc_snapshot(&b);
		if (ret) {
			fprintf(stderr,
				"footprint: cannot read the table: %s\n",
				strerror(-ret));
			fp_tracer_close(t);
			return 1;
		}
		print_table("tasks", &a);
		print_table("proc", &b);
		printf("{\"opens\":%d}\n", opens);
		fflush(stdout);
		fp_proc_table_free(&a);
		fp_proc_table_free(&b);
	}
	fp_tracer_close(t);
	return 0;
}
