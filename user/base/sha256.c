// SPDX-License-Identifier: GPL-2.0
/*
 * OpenSSL 3 marks these calls deprecated in favour of EVP, whose set-up
 * is what sha256.h avoids; they are kept in 3.x, and this file is the
 * one place to change should a release drop them.
 */
#define OPENSSL_SUPPRESS_DEPRECATED

#include "sha256.h"

void fp_sha256_init(struct fp_sha256 *h)
{
	SHA256_Init(&h->ctx);
}

void fp_sha256_update(struct fp_sha256 *h, const void *data, size_t len)
{
	SHA256_Update(&h->ctx, data, len);
}

void fp_sha256_final(struct fp_sha256 *h, unsigned char out[FP_SHA256_LEN])
{
	SHA256_Final(out, &h->ctx);
}
