// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "privilege.h"
#include "privs_json.h"

/* capability names in bit order, so that two receipts diff cleanly */
static void write_caps(struct json_out *j, const char *key, uint64_t set)
{
	char other[16];
	const char *name;
	unsigned int i;
	bool first = true;

	json_key(j, key);
	fputc('[', j->f);
	for (i = 0; i < 64; i++) {
		if (!(set & (1ULL << i)))
			continue;
		name = fp_cap_name(i);
		if (!name) {
			snprintf(other, sizeof(other), "CAP_%u", i);
			name = other;
		}
		if (!first)
			fputc(',', j->f);
		first = false;
		json_string(j->f, name, strlen(name));
	}
	fputc(']', j->f);
}

void fp_json_privs(struct json_out *j, const char *key,
		   const struct fp_privs *c)
{
	struct json_out k = { .f = j->f };

	json_key(j, key);
	if (!c->known) {
		fputs("null", j->f);
		return;
	}
	json_begin_object(&k);
	json_field_u64(&k, "uid", c->uid);
	json_field_u64(&k, "euid", c->euid);
	json_field_u64(&k, "suid", c->suid);
	json_field_u64(&k, "gid", c->gid);
	json_field_u64(&k, "egid", c->egid);
	json_field_u64(&k, "sgid", c->sgid);
	write_caps(&k, "cap_eff", c->cap_eff);
	write_caps(&k, "cap_prm", c->cap_prm);
	json_field_bool(&k, "no_new_privs", c->no_new_privs);
	json_field_bool(&k, "secure_exec", c->secure_exec);
	json_field_u64(&k, "userns_level", c->userns_level);
	json_end_object(&k);
}

void fp_json_priv_rose(struct json_out *j, const char *key, unsigned int rose)
{
	const char *name;
	unsigned int i;
	bool first = true;

	json_key(j, key);
	fputc('[', j->f);
	for (i = 0; i < FP_PRIV_NBITS; i++) {
		if (!(rose & (1U << i)))
			continue;
		name = fp_priv_bit_name(i);
		if (!first)
			fputc(',', j->f);
		first = false;
		json_string(j->f, name, strlen(name));
	}
	fputc(']', j->f);
}
