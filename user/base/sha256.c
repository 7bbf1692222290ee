// SPDX-License-Identifier: GPL-2.0
/*
 * OpenSSL 3 marks these calls deprecated in favour of EVP, whose set-up
 * is what sha256.h avoids; they are kept in 3.x, and this file is the
 * one place to change should a release drop them.
 */
#define OPENSSL_SUPPRESS_DEPRECATED

#include <errno.h>
#include <unistd.h>

#include <openssl/sha.h>

#include "sha256.h"

_Static_assert(sizeof(SHA256_CTX) <= sizeof(struct fp_sha256) &&
		       _Alignof(SHA256_CTX) <= _Alignof(struct fp_sha256),
	       "struct fp_sha256 cannot hold a SHA256_CTX");

static SHA256_CTX *ctx(struct fp_sha256 *h)
{
	return (SHA256_CTX *)h->state;
}

void fp_sha256_init(struct fp_sha256 *h)
{
	SHA256_Init(ctx(h));
}

void fp_sha256_update(struct fp_sha256 *h, const void *data, size_t len)
{
	SHA256_Update(ctx(h), data, len);
}

void fp_sha256_final(struct fp_sha256 *h, unsigned char out[FP_SHA256_LEN])
{
	SHA256_Final(out, ctx(h));
}

int fp_sha256_fd(int fd, unsigned char out[FP_SHA256_LEN])
{
	unsigned char buf[65536];
	struct fp_sha256 h;
	ssize_t n;

	fp_sha256_init(&h);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		fp_sha256_update(&h, buf, n);
	}
	fp_sha256_final(&h, out);
	return 0;
}
