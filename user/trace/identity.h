/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who the command runs as. Under sudo that is the invoking user, not
 * root: only the tracer needs root. The environment is the caller's, minus
 * sudo's own variables, with HOME, USER, LOGNAME and SHELL of that user.
 */
#ifndef FP_IDENTITY_H
#define FP_IDENTITY_H

#include <stdbool.h>
#include <sys/types.h>

struct fp_identity {
	bool drop; /* false: keep root */
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	int ngroups;
	char *name;
	char **envp; /* NULL-terminated, for execvpe */
};

/*
 * user_name: --user NAME, or NULL for the default (SUDO_UID's user, or
 * root when there is none). as_root: --as-root.
 */
int fp_identity_resolve(struct fp_identity *id, const char *user_name,
			bool as_root, char *err, size_t errlen);
/* In the child, before exec: groups, gid, uid. Returns 0 or -errno. */
int fp_identity_apply(const struct fp_identity *id);
void fp_identity_free(struct fp_identity *id);

#endif
