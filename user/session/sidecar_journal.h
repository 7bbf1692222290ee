/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sidecar's journal: one line per start, per message on the control
 * socket (hello, mark, status, stop, whether done or refused) and per
 * end, appended to `journal` in the state directory (root's, 0600) and
 * never truncated by a later start. It is the evidence that outlives a
 * daemon: a start reads it to refuse a state directory whose sidecar no
 * stop ended cleanly, and to see a restart (the job the last sidecar
 * traced still runs); stop reads it to know which daemon it should find.
 *
 *   start time=2025-01-02T03:04:05Z daemon=PID:TICKS exe=DEV:INO uid=U
 *         scope=PID:TICKS,... step=PID action=NAME restart=PID:TICKS
 *   control time=... op=mark peer=PID:TICKS uid=U result=ok own=P,P name=N
 *   stopped time=... daemon=PID:TICKS rc=N by=PID:TICKS
 *   dead time=... by=PID:TICKS why=TEXT
 *
 * Values are bytes, %XX-escaped outside printable ASCII and for '%',
 * '=' and ','. The file is bounded: past FP_SC_JOURNAL_MAX a session's
 * status and mark lines are counted, not written; start and end lines
 * always are.
 */
#ifndef FP_SIDECAR_JOURNAL_H
#define FP_SIDECAR_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FP_SC_JOURNAL "journal"
#define FP_SC_JOURNAL_OLD "journal.1"
#define FP_SC_JOURNAL_MAX (1 << 20) /* lines of one session, in bytes */
#define FP_SC_JOURNAL_ROTATE (4 << 20) /* a start moves it to journal.1 */
#define FP_SC_MAX_SCOPE 17 /* the pid trees and the step parent */

struct fp_sc_journal {
	int fd;
	size_t written; /* this session's */
	uint64_t dropped; /* lines not written past the bound */
};

/* What the journal says of the last sidecar started in its directory. */
struct fp_sc_last {
	bool any; /* a start is recorded */
	bool stopped; /* a stop ended it cleanly after its start */
	bool dead; /* a stop judged it after it died */
	pid_t daemon;
	uint64_t ticks;
	unsigned int nscope;
	pid_t scope[FP_SC_MAX_SCOPE];
	uint64_t scope_ticks[FP_SC_MAX_SCOPE];
	char end[160]; /* the end line's time= and by=, for messages */
};

/* Open (make) the journal in statefd for appending; 0 or -errno. */
int fp_sc_journal_open(struct fp_sc_journal *j, int statefd);
void fp_sc_journal_close(struct fp_sc_journal *j);
/*
 * One line: kind, the time, then fields, a printf format of key=value
 * pairs whose values went through fp_sc_esc. must: written even past
 * the bound.
 */
void fp_sc_journal_line(struct fp_sc_journal *j, bool must, const char *kind,
			const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* len bytes of s escaped into out (cap bytes, NUL-terminated, cut) */
void fp_sc_esc(char *out, size_t cap, const char *s, size_t len);
/* What the journal in statefd says; 0 (last->any false: none) or -errno */
int fp_sc_journal_last(int statefd, struct fp_sc_last *last);
/* A start with nothing to keep from before: journal.1 takes a big one */
void fp_sc_journal_rotate(int statefd);

#endif
