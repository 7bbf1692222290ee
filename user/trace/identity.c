// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "identity.h"

extern char **environ;

/* sudo's own variables describe sudo, not the command's environment */
static bool dropped(const char *kv)
{
	static const char *const names[] = {
		"SUDO_COMMAND", "SUDO_USER", "SUDO_UID", "SUDO_GID", "SUDO_PS1",
		"SUDO_HOME",	"HOME",	     "USER",	 "LOGNAME",  "SHELL"
	};
	size_t i, n;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		n = strlen(names[i]);
		if (!strncmp(kv, names[i], n) && kv[n] == '=')
			return true;
	}
	return false;
}

static int build_env(struct fp_identity *id, const struct passwd *pw)
{
	size_t n = 0, i, k = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = calloc(n + 5, sizeof(char *));
	if (!env)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (!dropped(environ[i]))
			env[k++] = strdup(environ[i]);
	if (asprintf(&env[k++], "HOME=%s", pw->pw_dir) < 0 ||
	    asprintf(&env[k++], "USER=%s", pw->pw_name) < 0 ||
	    asprintf(&env[k++], "LOGNAME=%s", pw->pw_name) < 0 ||
	    asprintf(&env[k++], "SHELL=%s",
		     pw->pw_shell && *pw->pw_shell ? pw->pw_shell : "/bin/sh") <
		    0)
		k = 0;
	env[k] = NULL;
	id->envp = env;
	for (i = 0; i < k; i++)
		if (!env[i])
			return -ENOMEM;
	return k ? 0 : -ENOMEM;
}

int fp_identity_resolve(struct fp_identity *id, const char *user_name,
			bool as_root, char *err, size_t errlen)
{
	const char *sudo_uid = getenv("SUDO_UID");
	struct passwd *pw = NULL;
	char *end;
	long uid;
	int n = 0;

	memset(id, 0, sizeof(*id));
	if (as_root)
		return 0;
	if (user_name) {
		pw = getpwnam(user_name);
		if (!pw) {
			errno = 0;
			uid = strtol(user_name, &end, 10);
			if (!*end && !errno && uid >= 0)
				pw = getpwuid(uid);
		}
		if (!pw) {
			snprintf(
				err, errlen,
				"footprint: no user '%s'; give a name or uid from /etc/passwd to --user",
				user_name);
			return -ENOENT;
		}
	} else if (sudo_uid && *sudo_uid) {
		errno = 0;
		uid = strtol(sudo_uid, &end, 10);
		if (*end || errno || uid < 0 || !(pw = getpwuid(uid))) {
			snprintf(
				err, errlen,
				"footprint: SUDO_UID=%s names no user; pass --user NAME or --as-root",
				sudo_uid);
			return -ENOENT;
		}
	} else {
		/* root logged in directly: nobody to drop to */
		return 0;
	}
	if (pw->pw_uid == 0)
		return 0;
	id->drop = true;
	id->uid = pw->pw_uid;
	id->gid = pw->pw_gid;
	id->name = strdup(pw->pw_name);
	/* getgrouplist tells how many groups there are when it fails */
	getgrouplist(pw->pw_name, pw->pw_gid, NULL, &n);
	id->groups = calloc(n + 1, sizeof(gid_t));
	if (!id->name || !id->groups ||
	    getgrouplist(pw->pw_name, pw->pw_gid, id->groups, &n) < 0) {
		snprintf(err, errlen, "footprint: cannot read the groups of %s",
			 pw->pw_name);
		return -ENOMEM;
	}
	id->ngroups = n;
	if (build_env(id, pw)) {
		snprintf(err, errlen, "footprint: out of memory");
		return -ENOMEM;
	}
	return 0;
}

/*
 * Raw system calls: the child that calls this shares footprint's memory
 * (spawn.h), and glibc's wrappers would change the credentials of every
 * thread of footprint's too.
 */
int fp_identity_apply(const struct fp_identity *id)
{
	if (!id->drop)
		return 0;
	if (syscall(SYS_setgroups, id->ngroups, id->groups) ||
	    syscall(SYS_setresgid, id->gid, id->gid, id->gid) ||
	    syscall(SYS_setresuid, id->uid, id->uid, id->uid))
		return -errno;
	return 0;
}

void fp_identity_free(struct fp_identity *id)
{
	size_t i;

	for (i = 0; id->envp && id->envp[i]; i++)
		free(id->envp[i]);
	free(id->envp);
	free(id->groups);
	free(id->name);
	memset(id, 0, sizeof(*id));
}
