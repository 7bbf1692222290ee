/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bodies of event-log records: varints (LEB128; signed ones zigzag) and
 * length-prefixed byte strings, so most events take a few dozen bytes
 * before zlib. Decoding checks every length against the record.
 */
#ifndef FP_LOGCODEC_H
#define FP_LOGCODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "snapshot_fs.h"
#include "snapshot_net.h"
#include "snapshot_proc.h"

struct fp_enc {
	unsigned char *p;
	size_t len, cap;
	int err;
};

struct fp_dec {
	const unsigned char *p;
	size_t len, pos;
	int err; /* -EBADMSG once anything did not fit */
};

void fp_enc_reset(struct fp_enc *e);
void fp_enc_free(struct fp_enc *e);
void fp_enc_u64(struct fp_enc *e, uint64_t v);
void fp_enc_i64(struct fp_enc *e, int64_t v);
void fp_enc_bytes(struct fp_enc *e, const void *s, size_t len);
void fp_enc_str(struct fp_enc *e, const char *s);

/* fp_dec_u64()'s whole decoder; call that one */
uint64_t fp_dec_u64_long(struct fp_dec *d);

/*
 * Most varints of a record are one byte: told inline, as a replay decodes
 * some twenty an event, and the call was a seventh of its time
 */
static inline uint64_t fp_dec_u64(struct fp_dec *d)
{
	if (!d->err && d->pos < d->len && d->p[d->pos] < 0x80)
		return d->p[d->pos++];
	return fp_dec_u64_long(d);
}

int64_t fp_dec_i64(struct fp_dec *d);
/* a malloc'd, NUL-terminated copy */
void fp_dec_bytes(struct fp_dec *d, struct fp_bytes *out);
char *fp_dec_str(struct fp_dec *d);

/* ts_ns is stored as a difference from *prev_ts, which both sides update */
void fp_enc_event(struct fp_enc *e, const struct fp_event *ev,
		  uint64_t *prev_ts);
int fp_dec_event(struct fp_dec *d, struct fp_event *ev, uint64_t *prev_ts);

void fp_enc_fentry(struct fp_enc *e, unsigned int phase,
		   const struct fp_fentry *f);
int fp_dec_fentry(struct fp_dec *d, unsigned int *phase, struct fp_fentry *f);
void fp_enc_proc(struct fp_enc *e, unsigned int phase, const struct fp_proc *p);
int fp_dec_proc(struct fp_dec *d, unsigned int *phase, struct fp_proc *p);
void fp_enc_sock(struct fp_enc *e, unsigned int phase, const struct fp_sock *s);
int fp_dec_sock(struct fp_dec *d, unsigned int *phase, struct fp_sock *s);

#endif
