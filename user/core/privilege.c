// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stddef.h>

#include "privilege.h"

#define CAP_SETGID_BIT 6
#define CAP_SETUID_BIT 7

const char *fp_priv_bit_name(unsigned int bit)
{
	static const char *const names[FP_PRIV_NBITS] = { "ids", "caps",
							  "secure_exec" };

	return bit < FP_PRIV_NBITS ? names[bit] : "other";
}

static bool in3(uint32_t id, uint32_t a, uint32_t b, uint32_t c)
{
	return id == a || id == b || id == c;
}

/*
 * A process may switch among its real, effective and saved ids; one
 * holding CAP_SETUID (CAP_SETGID) may take any uid (gid). Anything else
 * came from the exec: a set-id bit.
 */
static bool ids_rose(const struct fp_privs *b, const struct fp_privs *n)
{
	bool any_uid = b->cap_prm & (1ULL << CAP_SETUID_BIT);
	bool any_gid = b->cap_prm & (1ULL << CAP_SETGID_BIT);

	if (!any_uid && (!in3(n->uid, b->uid, b->euid, b->suid) ||
			 !in3(n->euid, b->uid, b->euid, b->suid) ||
			 !in3(n->suid, b->uid, b->euid, b->suid)))
		return true;
	return !any_gid && (!in3(n->gid, b->gid, b->egid, b->sgid) ||
			    !in3(n->egid, b->gid, b->egid, b->sgid) ||
			    !in3(n->sgid, b->gid, b->egid, b->sgid));
}

unsigned int fp_privs_rose(const struct fp_privs *base,
			   const struct fp_privs *now)
{
	unsigned int rose = 0;

	if (!now->known)
		return 0;
	if (!base || !base->known)
		return now->secure_exec ? FP_PRIV_SECURE : 0;
	if (ids_rose(base, now))
		rose |= FP_PRIV_IDS;
	/*
	 * A permitted capability can be made effective at will. Those of a
	 * user namespace the process entered grant nothing over the host's
	 * (unshare -r): they are compared only in the same namespace depth.
	 */
	if (now->userns_level <= base->userns_level &&
	    (now->cap_prm | now->cap_eff) & ~base->cap_prm)
		rose |= FP_PRIV_CAPS;
	return rose;
}
