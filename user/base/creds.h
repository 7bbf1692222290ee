/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The invoking user's filesystem rights. Under sudo, footprint is root but
 * acts for a user it does not trust: every path that user names (outputs,
 * policy files, roots) and every file footprint reads for that user's
 * receipt is opened with the user's fsuid, fsgid and groups, so the
 * kernel's own permission checks apply (the sudoedit pattern).
 *
 * The switch is per thread: setfsuid, setfsgid and the raw setgroups
 * syscall act on the calling thread only (glibc's setgroups wrapper would
 * change every thread). A worker thread that reads for the user calls
 * fp_creds_enter itself.
 */
#ifndef FP_CREDS_H
#define FP_CREDS_H

#include <stdbool.h>
#include <sys/types.h>

struct fp_creds {
	bool active; /* false: root acts for root, nothing to switch */
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	int ngroups;
	char *name;
	gid_t *root_groups; /* footprint's own, restored on leave */
	int nroot_groups;
};

/*
 * The invoking user: SUDO_UID (with that user's primary group and groups)
 * when footprint is root under sudo; inactive when root logged in directly
 * or footprint is not root (then the kernel checks the real caller anyway).
 */
int fp_creds_invoker(struct fp_creds *c, char *err, size_t errlen);
/* This thread acts as c from now on. 0 or -errno; inactive c: no-op. */
int fp_creds_enter(const struct fp_creds *c);
/* This thread is root again. Aborts if that fails: never go on half. */
void fp_creds_leave(const struct fp_creds *c);
void fp_creds_free(struct fp_creds *c);

#endif
