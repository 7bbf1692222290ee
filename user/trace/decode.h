/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FP_DECODE_H
#define FP_DECODE_H

#include <stddef.h>

#include "event.h"

/*
 * Decode one ring-buffer record (anything but FP_EV_ARGV, which the
 * collector appends to its exec). Returns 0, -EINVAL for a record whose
 * sizes do not add up, -ENOTSUP for an unknown type, -ENOMEM.
 */
int fp_decode(const void *rec, size_t size, struct fp_event *ev);

/* Check an FP_EV_ARGV record; on success *arg points at the fixed part. */
int fp_decode_argv(const void *rec, size_t size, const struct fp_argv **arg);

#endif
