/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A log's events as the Trace Event JSON that Perfetto and
 * chrome://tracing open: one track per process (pid = tid = the
 * process), its images from fork or exec to the next exec or its exit as
 * complete events ("ph":"X") named after the executable, its file,
 * network and other events as instant events. Streamed: memory holds
 * only the processes alive, at most FP_CT_LIVE of them (the others get
 * instant events for their exec and exit, and are counted).
 */
#ifndef FP_CHROME_TRACE_H
#define FP_CHROME_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "event.h"

#define FP_CT_LIVE 65536
#define FP_CT_NAME 48

struct fp_ct_proc {
	uint32_t pid; /* 0: a free slot */
	uint64_t start_ns;
	char name[FP_CT_NAME]; /* the image's short name */
	uint32_t name_len;
};

struct fp_chrome_trace {
	FILE *out;
	struct fp_ct_proc *slots; /* open addressing, 2 * FP_CT_LIVE */
	size_t live;
	uint64_t t0, last_ns; /* the first event's time, the latest */
	uint64_t events, untracked;
	bool started;
};

int fp_chrome_trace_begin(struct fp_chrome_trace *t, FILE *out);
/* one event of the log, in the log's order */
void fp_chrome_trace_event(struct fp_chrome_trace *t,
			   const struct fp_event *ev);
/* close what is still open at the last event's time, end the document;
 * lost: the events the run lost, said in the document's metadata */
void fp_chrome_trace_end(struct fp_chrome_trace *t, uint64_t lost);

#endif
