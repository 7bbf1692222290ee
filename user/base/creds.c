// SPDX-License-Identifier: GPL-2.0
/* Per-thread switch to the invoking user's filesystem rights. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "creds.h"

int fp_creds_invoker(struct fp_creds *c, char *err, size_t errlen)
{
	const char *sudo_uid = getenv("SUDO_UID");
	struct passwd *pw;
	char *end;
	long uid;
	int n = 0;

	memset(c, 0, sizeof(*c));
	if (geteuid() != 0 || !sudo_uid || !*sudo_uid)
		return 0;
	errno = 0;
	uid = strtol(sudo_uid, &end, 10);
	if (*end || errno || uid < 0 || !(pw = getpwuid(uid))) {
		snprintf(
			err, errlen,
			"footprint: SUDO_UID=%s names no user in /etc/passwd; run footprint through sudo as a known user",
			sudo_uid);
		return -ENOENT;
	}
	if (pw->pw_uid == 0)
		return 0;
	c->uid = pw->pw_uid;
	c->gid = pw->pw_gid;
	c->name = strdup(pw->pw_name);
	/* getgrouplist tells how many groups there are when it fails */
	getgrouplist(pw->pw_name, pw->pw_gid, NULL, &n);
	c->groups = calloc(n + 1, sizeof(gid_t));
	if (!c->name || !c->groups ||
	    getgrouplist(pw->pw_name, pw->pw_gid, c->groups, &n) < 0) {
		snprintf(
			err, errlen,
			"footprint: cannot read the groups of %s; check /etc/group",
			pw->pw_name);
		fp_creds_free(c);
		return -ENOMEM;
	}
	c->ngroups = n;
	n = getgroups(0, NULL);
	c->root_groups = calloc(n > 0 ? n : 1, sizeof(gid_t));
	if (n < 0 || !c->root_groups ||
	    (c->nroot_groups = getgroups(n, c->root_groups)) < 0) {
		snprintf(err, errlen, "footprint: cannot read its own groups");
		fp_creds_free(c);
		return -ENOMEM;
	}
	c->active = true;
	return 0;
}

int fp_creds_enter(const struct fp_creds *c)
{
	if (!c || !c->active)
		return 0;
	/* raw syscalls: this thread only */
	if (syscall(SYS_setgroups, c->ngroups, c->groups))
		return -errno;
	syscall(SYS_setfsgid, c->gid);
	syscall(SYS_setfsuid, c->uid);
	/* setfsuid reports the old value, not failure: ask again */
	if ((uid_t)syscall(SYS_setfsuid, -1) != c->uid ||
	    (gid_t)syscall(SYS_setfsgid, -1) != c->gid) {
		fp_creds_leave(c);
		return -EPERM;
	}
	return 0;
}

void fp_creds_leave(const struct fp_creds *c)
{
	if (!c || !c->active)
		return;
	syscall(SYS_setfsuid, 0);
	syscall(SYS_setfsgid, 0);
	if ((uid_t)syscall(SYS_setfsuid, -1) != 0 ||
	    syscall(SYS_setgroups, c->nroot_groups, c->root_groups)) {
		fprintf(stderr,
			"footprint: cannot return to root's rights; giving up\n");
		abort();
	}
}

void fp_creds_free(struct fp_creds *c)
{
	free(c->groups);
	free(c->root_groups);
	free(c->name);
	memset(c, 0, sizeof(*c));
}
