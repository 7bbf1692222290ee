/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FP_SHA256_H
#define FP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define FP_SHA256_LEN 32

/*
 * SHA-256 of libcrypto, through its digest-only calls rather than EVP.
 * EVP's first digest of a process fetches the algorithm from a provider,
 * which builds libcrypto's whole table of algorithm names: 0.9-1.1 ms
 * here, on the loader's path of every run (the key of a warm set) and
 * the snapshot's. These calls reach the same code (SHA-NI where the CPU
 * has it) with no set-up. They cannot fail.
 */
struct fp_sha256 {
	/* a SHA256_CTX (sha256.c): its type is as deprecated as its calls */
	uint32_t state[28];
};

void fp_sha256_init(struct fp_sha256 *h);
void fp_sha256_update(struct fp_sha256 *h, const void *data, size_t len);
void fp_sha256_final(struct fp_sha256 *h, unsigned char out[FP_SHA256_LEN]);
/* the digest of what fd reads from where it is to its end: 0, or -errno */
int fp_sha256_fd(int fd, unsigned char out[FP_SHA256_LEN]);

#endif
