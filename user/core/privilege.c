// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stddef.h>

#include "privilege.h"

#define CAP_SETGID_BIT 6
#define CAP_SETUID_BIT 7

static const char *const cap_names[] = {
	"CAP_CHOWN",
	"CAP_DAC_OVERRIDE",
	"CAP_DAC_READ_SEARCH",
	"CAP_FOWNER",
	"CAP_FSETID",
	"CAP_KILL",
	"CAP_SETGID",
	"CAP_SETUID",
	"CAP_SETPCAP",
	"CAP_LINUX_IMMUTABLE",
	"CAP_NET_BIND_SERVICE",
	"CAP_NET_BROADCAST",
	"CAP_NET_ADMIN",
	"CAP_NET_RAW",
	"CAP_IPC_LOCK",
	"CAP_IPC_OWNER",
	"CAP_SYS_MODULE",
	"CAP_SYS_RAWIO",
	"CAP_SYS_CHROOT",
	"CAP_SYS_PTRACE",
	"CAP_SYS_PACCT",
	"CAP_SYS_ADMIN",
	"CAP_SYS_BOOT",
	"CAP_SYS_NICE",
	"CAP_SYS_RESOURCE",
	"CAP_SYS_TIME",
	"CAP_SYS_TTY_CONFIG",
	"CAP_MKNOD",
	"CAP_LEASE",
	"CAP_AUDIT_WRITE",
	"CAP_AUDIT_CONTROL",
	"CAP_SETFCAP",
	"CAP_MAC_OVERRIDE",
	"CAP_MAC_ADMIN",
	"CAP_SYSLOG",
	"CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND",
	"CAP_AUDIT_READ",
	"CAP_PERFMON",
	"CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
};

const char *fp_cap_name(unsigned int cap)
{
	return cap < sizeof(cap_names) / sizeof(cap_names[0]) ? cap_names[cap] :
								NULL;
}

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
