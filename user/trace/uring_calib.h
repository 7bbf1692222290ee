/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FP_URING_CALIB_H
#define FP_URING_CALIB_H

struct footprint_bpf;

/*
 * Once attached, before the command runs: learn where this kernel keeps
 * the address of an io_uring CONNECT (uring_calib.c). Without it, an
 * io_uring CONNECT or BIND is a request footprint does not understand.
 * 0, or -errno (the run goes on; those requests then fail it).
 */
int fp_uring_calibrate(struct footprint_bpf *skel);

#endif
