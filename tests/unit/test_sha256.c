// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>
#include <errno.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "sha256.h"

static void hex_of(const void *data, size_t len, char out[65])
{
	unsigned char md[FP_SHA256_LEN];
	struct fp_sha256 h;

	fp_sha256_init(&h);
	fp_sha256_update(&h, data, len);
	fp_sha256_final(&h, md);
	fp_hex(out, md, sizeof(md));
}

/* FIPS 180-2, appendix B, and the empty message */
Test(sha256, known_answers)
{
	char hex[65];

	hex_of("", 0, hex);
	cr_assert_str_eq(
		hex,
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	hex_of("abc", 3, hex);
	cr_assert_str_eq(
		hex,
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
	       hex);
	cr_assert_str_eq(
		hex,
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* Pieces of any size, across block boundaries, give EVP's digest of the
 * whole: the snapshot feeds files in chunks, the warm key in fields. */
Test(sha256, pieces_match_evp_of_the_whole)
{
	static const size_t cuts[] = { 0, 1, 55, 56, 63, 64, 65, 4096, 100003 };
	size_t len = 300007, i, pos;
	unsigned char *buf = malloc(len), md[FP_SHA256_LEN], want[32];
	struct fp_sha256 h;
	unsigned int n;

	cr_assert_not_null(buf);
	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(i * 2654435761u >> 13);
	cr_assert(EVP_Digest(buf, len, want, &n, EVP_sha256(), NULL));
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		size_t step = cuts[i] ? cuts[i] : len;

		fp_sha256_init(&h);
		for (pos = 0; pos < len; pos += step)
			fp_sha256_update(&h, buf + pos,
					 len - pos < step ? len - pos : step);
		fp_sha256_final(&h, md);
		cr_assert_arr_eq(md, want, sizeof(want), "pieces of %zu", step);
	}
	free(buf);
}

/* A file, from where its fd stands to its end, in reads of 64 KiB */
Test(sha256, fd_from_its_offset_to_the_end)
{
	size_t len = 300007, i;
	unsigned char *buf = malloc(len), md[FP_SHA256_LEN], want[32];
	char path[] = "/tmp/test_sha256.XXXXXX";
	unsigned int n;
	int fd = mkstemp(path);

	cr_assert_not_null(buf);
	cr_assert_geq(fd, 0);
	unlink(path);
	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(i * 40503u >> 7);
	cr_assert_eq(write(fd, buf, len), (ssize_t)len);
	cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
	cr_assert_eq(fp_sha256_fd(fd, md), 0);
	cr_assert(EVP_Digest(buf, len, want, &n, EVP_sha256(), NULL));
	cr_assert_arr_eq(md, want, sizeof(want));
	cr_assert_eq(lseek(fd, 1000, SEEK_SET), 1000);
	cr_assert_eq(fp_sha256_fd(fd, md), 0);
	cr_assert(EVP_Digest(buf + 1000, len - 1000, want, &n, EVP_sha256(),
			     NULL));
	cr_assert_arr_eq(md, want, sizeof(want));
	close(fd);
	/* a closed fd reads nothing: its error, not a digest */
	cr_assert_eq(fp_sha256_fd(fd, md), -EBADF);
	free(buf);
}
