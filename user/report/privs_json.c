// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "privilege.h"
#include "capnames.h"
#include "privs_json.h"

/* capability names in bit order, so that two receipts diff cleanly */
static void caps_array(FILE *f, uint64_t set)
{
	struct json_out j = { .f = f };
	char other[16];
	unsigned int i;

	json_begin_array(&j);
	for (i = 0; i < 64; i++)
		if (set & (1ULL << i))
			json_elem_str(&j, fp_cap_name(i, other, sizeof(other)));
	json_end_array(&j);
}

/*
 * A set's array, rendered once: every exec record carries two sets, nearly
 * always the same one or two (root's full set, or none), and naming forty
 * capabilities one string at a time was a third of the collector's time in
 * an exec loop. Per thread, so without a lock; a few entries, reused in
 * turn. 64 names of at most 25 bytes with quotes and comma fit the text.
 */
#define CAP_MEMO 4
struct cap_text {
	uint64_t set;
	size_t len; /* 0: unused */
	char text[64 * 32];
};
static __thread struct cap_text cap_memo[CAP_MEMO];
static __thread unsigned int cap_memo_next;

static const struct cap_text *caps_rendered(uint64_t set)
{
	struct cap_text *e;
	unsigned int i;
	FILE *m;
	long len;

	for (i = 0; i < CAP_MEMO; i++)
		if (cap_memo[i].len && cap_memo[i].set == set)
			return &cap_memo[i];
	e = &cap_memo[cap_memo_next++ % CAP_MEMO];
	e->len = 0;
	m = fmemopen(e->text, sizeof(e->text), "w");
	if (!m)
		return NULL;
	caps_array(m, set);
	len = ftell(m);
	fclose(m);
	/* a full buffer may have cut the text: not kept */
	if (len <= 0 || (size_t)len >= sizeof(e->text))
		return NULL;
	e->set = set;
	e->len = len;
	return e;
}

static void write_caps(struct json_out *j, const char *key, uint64_t set)
{
	const struct cap_text *e = caps_rendered(set);

	json_key(j, key);
	if (e)
		fwrite(e->text, 1, e->len, j->f);
	else
		caps_array(j->f, set);
}

void fp_json_privs(struct json_out *j, const char *key,
		   const struct fp_privs *c)
{
	json_key(j, key);
	if (!c->known) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_field_u64(j, "uid", c->uid);
	json_field_u64(j, "euid", c->euid);
	json_field_u64(j, "suid", c->suid);
	json_field_u64(j, "gid", c->gid);
	json_field_u64(j, "egid", c->egid);
	json_field_u64(j, "sgid", c->sgid);
	write_caps(j, "cap_eff", c->cap_eff);
	write_caps(j, "cap_prm", c->cap_prm);
	json_field_bool(j, "no_new_privs", c->no_new_privs);
	json_field_bool(j, "secure_exec", c->secure_exec);
	json_field_u64(j, "userns_level", c->userns_level);
	json_end_object(j);
}

void fp_json_priv_rose(struct json_out *j, const char *key, unsigned int rose)
{
	unsigned int i;

	json_field_array(j, key);
	for (i = 0; i < FP_PRIV_NBITS; i++)
		if (rose & (1U << i))
			json_elem_str(j, fp_priv_bit_name(i));
	json_end_array(j);
}
