// SPDX-License-Identifier: GPL-2.0
/* A log's events as Trace Event JSON (chrome_trace.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_trace.h"
#include "json.h"

#define SLOTS (2 * FP_CT_LIVE)

static struct fp_ct_proc *find(struct fp_chrome_trace *t, uint32_t pid)
{
	size_t i = (pid * 2654435761u) & (SLOTS - 1);

	for (; t->slots[i].pid; i = (i + 1) & (SLOTS - 1))
		if (t->slots[i].pid == pid)
			return &t->slots[i];
	return NULL;
}

static struct fp_ct_proc *insert(struct fp_chrome_trace *t, uint32_t pid)
{
	size_t i = (pid * 2654435761u) & (SLOTS - 1);

	if (!pid || t->live >= FP_CT_LIVE)
		return NULL;
	while (t->slots[i].pid)
		i = (i + 1) & (SLOTS - 1);
	t->live++;
	t->slots[i].pid = pid;
	return &t->slots[i];
}

/* linear probing's delete: move back what the hole would hide */
static void drop(struct fp_chrome_trace *t, struct fp_ct_proc *p)
{
	size_t hole = (size_t)(p - t->slots), i = hole, want;

	for (;;) {
		i = (i + 1) & (SLOTS - 1);
		if (!t->slots[i].pid)
			break;
		want = (t->slots[i].pid * 2654435761u) & (SLOTS - 1);
		/* it may fill the hole if the hole is on its probe path */
		if (((i - want) & (SLOTS - 1)) >= ((i - hole) & (SLOTS - 1))) {
			t->slots[hole] = t->slots[i];
			hole = i;
		}
	}
	t->slots[hole].pid = 0;
	t->live--;
}

static void sep(struct fp_chrome_trace *t)
{
	fputs(t->events++ ? ",\n" : "\n", t->out);
}

static void ts(struct fp_chrome_trace *t, uint64_t ns)
{
	uint64_t d = ns > t->t0 ? ns - t->t0 : 0;

	fprintf(t->out, "%" PRIu64 ".%03" PRIu64, d / 1000, d % 1000);
}

/* the common fields of an event of pid at ns */
static void head(struct fp_chrome_trace *t, const char *ph, uint32_t pid,
		 uint64_t ns)
{
	sep(t);
	fprintf(t->out,
		"{\"ph\":\"%s\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
		",\"ts\":",
		ph, pid, pid);
	ts(t, ns);
}

static void set_name(struct fp_ct_proc *p, const char *s, size_t len)
{
	const char *slash = memrchr(s, '/', len);

	if (slash) {
		len -= (size_t)(slash + 1 - s);
		s = slash + 1;
	}
	p->name_len = len < FP_CT_NAME ? len : FP_CT_NAME;
	memcpy(p->name, s, p->name_len);
}

static void meta(struct fp_chrome_trace *t, const struct fp_ct_proc *p)
{
	static const char *const kinds[] = { "process_name", "thread_name" };
	int i;

	for (i = 0; i < 2; i++) {
		sep(t);
		fprintf(t->out,
			"{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
			",\"name\":\"%s\",\"args\":{\"name\":",
			p->pid, p->pid, kinds[i]);
		json_string(t->out, p->name, p->name_len);
		fputs("}}", t->out);
	}
}

/* the image p ran from its start to ns, as a complete event */
static void close_slice(struct fp_chrome_trace *t, struct fp_ct_proc *p,
			uint64_t ns, const char *args)
{
	uint64_t d = ns > p->start_ns ? ns - p->start_ns : 0;

	head(t, "X", p->pid, p->start_ns);
	fprintf(t->out,
		",\"dur\":%" PRIu64 ".%03" PRIu64 ",\"cat\":\"process\","
		"\"name\":",
		d / 1000, d % 1000);
	json_string(t->out, p->name, p->name_len);
	fprintf(t->out, ",\"args\":{%s}}", args);
}

/* an instant event: its name and the start of its args, left open */
static void instant(struct fp_chrome_trace *t, const struct fp_event *ev,
		    const char *cat, const char *name)
{
	head(t, "i", ev->pid, ev->ts_ns);
	fprintf(t->out,
		",\"s\":\"t\",\"cat\":\"%s\",\"name\":\"%s\",\"args\":{", cat,
		name);
}

static void start(struct fp_chrome_trace *t, const struct fp_event *ev,
		  const char *name, size_t len)
{
	struct fp_ct_proc *p = find(t, ev->pid);

	if (p) {
		close_slice(t, p, ev->ts_ns, "\"then\":\"exec\"");
	} else if (!(p = insert(t, ev->pid))) {
		t->untracked++;
		return;
	}
	p->start_ns = ev->ts_ns;
	set_name(p, name, len);
	meta(t, p);
}

static void exec_args(struct fp_chrome_trace *t, const struct fp_event *ev)
{
	size_t i, n = ev->exec.argv.len < 1024 ? ev->exec.argv.len : 1024;
	char *s = malloc(n + 1);

	instant(t, ev, "process", "exec");
	fputs("\"exe\":", t->out);
	json_string(t->out, ev->exec.exe.data ?: "", ev->exec.exe.len);
	if (s) {
		/* NUL-separated: shown space-separated */
		for (i = 0; i < n; i++)
			s[i] = ev->exec.argv.data[i] ? ev->exec.argv.data[i] :
						       ' ';
		while (n && s[n - 1] == ' ')
			n--;
		fputs(",\"argv\":", t->out);
		json_string(t->out, s, n);
		free(s);
	}
	fputs("}}", t->out);
}

static void on_exec_ev(struct fp_chrome_trace *t, const struct fp_event *ev)
{
	if (ev->exec.exe.len)
		start(t, ev, ev->exec.exe.data, ev->exec.exe.len);
	else
		start(t, ev, ev->comm, strlen(ev->comm));
	exec_args(t, ev);
}

static void on_fork_ev(struct fp_chrome_trace *t, const struct fp_event *ev)
{
	const struct fp_ct_proc *parent = find(t, ev->ppid);

	/* the child runs its parent's image until it execs */
	if (parent) {
		char name[FP_CT_NAME];
		size_t len = parent->name_len;

		memcpy(name, parent->name, len);
		start(t, ev, name, len);
	} else {
		start(t, ev, ev->comm, strlen(ev->comm));
	}
}

static void on_exit_ev(struct fp_chrome_trace *t, const struct fp_event *ev)
{
	struct fp_ct_proc *p = find(t, ev->pid);
	char args[64];

	if (ev->exit.signal)
		snprintf(args, sizeof(args), "\"signal\":%d", ev->exit.signal);
	else
		snprintf(args, sizeof(args), "\"exit_code\":%d", ev->exit.code);
	if (p) {
		close_slice(t, p, ev->ts_ns, args);
		drop(t, p);
		return;
	}
	instant(t, ev, "process", "exit");
	fprintf(t->out, "%s}}", args);
}

/* "key": the bytes, and "key_b64" when they are not UTF-8 (lossless,
 * as the NDJSON events are) */
static void bytes_arg(FILE *f, const char *key, const struct fp_bytes *b)
{
	fprintf(f, "\"%s\":", key);
	if (json_string(f, b->data ?: "", b->len))
		return;
	fprintf(f, ",\"%s_b64\":", key);
	json_base64(f, b->data, b->len);
}

static void on_file(struct fp_chrome_trace *t, const struct fp_event *ev)
{
	instant(t, ev, "file", fp_event_kind(ev));
	bytes_arg(t->out, "path", &ev->file.path[0].path);
	if (ev->file.npaths > 1) {
		fputc(',', t->out);
		bytes_arg(t->out, "path2", &ev->file.path[1].path);
	}
	fprintf(t->out, ",\"ret\":%" PRId64 "}}", ev->file.ret);
}

/* an address of 112 printable bytes at most, NUL-terminated or not */
static void address(FILE *f, const char *a, size_t max,
		    const struct fp_bytes *unix_path)
{
	if (unix_path->len)
		json_string(f, unix_path->data, unix_path->len);
	else
		json_string(f, a, strnlen(a, max));
}

static void on_net(struct fp_chrome_trace *t, const struct fp_event *ev)
{
	instant(t, ev, "net", fp_event_kind(ev));
	fputs("\"address\":", t->out);
	if (ev->type == FP_EV_BIND) {
		address(t->out, ev->bind.address, sizeof(ev->bind.address),
			&ev->bind.unix_path);
		fprintf(t->out, ",\"port\":%u,\"ret\":%" PRId64 "}}",
			ev->bind.bound_port ?: ev->bind.port, ev->bind.ret);
	} else if (ev->type == FP_EV_DNS) {
		json_string(t->out, ev->dns.server,
			    strnlen(ev->dns.server, sizeof(ev->dns.server)));
		fprintf(t->out, ",\"port\":%u}}", ev->dns.port);
	} else {
		address(t->out, ev->net.address, sizeof(ev->net.address),
			&ev->net.unix_path);
		fprintf(t->out, ",\"port\":%u,\"ret\":%" PRId64 "}}",
			ev->net.port, ev->net.ret);
	}
}

static void on_mark(struct fp_chrome_trace *t, const struct fp_event *ev)
{
	head(t, "i", ev->pid, ev->ts_ns);
	fputs(",\"s\":\"g\",\"cat\":\"step\",\"name\":", t->out);
	json_string(t->out, ev->mark.name.data ?: "", ev->mark.name.len);
	fputs("}", t->out);
}

int fp_chrome_trace_begin(struct fp_chrome_trace *t, FILE *out)
{
	*t = (struct fp_chrome_trace){ .out = out };
	t->slots = calloc(SLOTS, sizeof(*t->slots));
	if (!t->slots)
		return -1;
	fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", out);
	return 0;
}

void fp_chrome_trace_event(struct fp_chrome_trace *t, const struct fp_event *ev)
{
	if (!t->started) {
		t->t0 = ev->ts_ns;
		t->started = true;
	}
	if (ev->ts_ns > t->last_ns)
		t->last_ns = ev->ts_ns;
	switch (ev->type) {
	case FP_EV_EXEC:
		on_exec_ev(t, ev);
		break;
	case FP_EV_FORK:
		on_fork_ev(t, ev);
		break;
	case FP_EV_EXIT:
		on_exit_ev(t, ev);
		break;
	case FP_EV_FILE:
		on_file(t, ev);
		break;
	case FP_EV_BIND:
	case FP_EV_NET:
	case FP_EV_DNS:
		on_net(t, ev);
		break;
	case FP_EV_NET_COUNT: /* a count of events already shown */
		break;
	case FP_EV_MARK:
		on_mark(t, ev);
		break;
	default:
		instant(t, ev, "other", fp_event_kind(ev));
		fputs("}}", t->out);
	}
}

void fp_chrome_trace_end(struct fp_chrome_trace *t, uint64_t lost)
{
	size_t i;

	for (i = 0; i < SLOTS; i++)
		if (t->slots[i].pid)
			close_slice(t, &t->slots[i], t->last_ns,
				    "\"running_at_end\":true");
	fprintf(t->out,
		"\n],\"otherData\":{\"producer\":\"footprint events --format "
		"chrome-trace\",\"lost_events\":%" PRIu64
		",\"untracked_processes\":%" PRIu64 "}}\n",
		lost, t->untracked);
	free(t->slots);
	t->slots = NULL;
}
