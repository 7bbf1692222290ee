// SPDX-License-Identifier: GPL-2.0
/*
 * The key of a warm set (user/trace/warm.c) names the BPF object by the
 * digest the build wrote (cmake/bpf_digest.cmake) rather than by hashing
 * the skeleton's embedded bytes at every start: the two must agree, or a
 * changed object could reuse the programs of an older one.
 */
#include <criterion/criterion.h>

#include "bpf_digest.h"
#include "footprint.skel.h"
#include "json.h"
#include "sha256.h"

Test(bpf_digest, is_the_embedded_objects)
{
	unsigned char md[FP_SHA256_LEN];
	char hex[2 * FP_SHA256_LEN + 1];
	struct fp_sha256 h;
	const void *p;
	size_t sz;

	p = footprint_bpf__elf_bytes(&sz);
	cr_assert(sz > 0);
	fp_sha256_init(&h);
	fp_sha256_update(&h, p, sz);
	fp_sha256_final(&h, md);
	fp_hex(hex, md, sizeof(md));
	cr_assert_str_eq(hex, FP_BPF_OBJ_SHA256);
}
