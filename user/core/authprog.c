// SPDX-License-Identifier: GPL-2.0
/* The system's authentication programs and their configuration (see
 * authprog.h, docs/policy.md "Authentication programs"). */
#include <string.h>
#include <sys/stat.h>

#include "authprog.h"

/* what each reads of the secret classes: a name ending in '/' is the
 * directory and everything below it */
static const char *const sudo_config[] = { "/etc/sudoers", "/etc/sudoers.d/",
					   "/etc/shadow", "/etc/gshadow",
					   NULL };
static const char *const su_config[] = { "/etc/shadow", "/etc/gshadow", NULL };
static const char *const shadow_only[] = { "/etc/shadow", NULL };

static const struct {
	const char *exe; /* as the kernel walked it: /usr merged or not */
	const char *const *config;
} progs[] = {
	{ "/usr/bin/sudo", sudo_config },
	{ "/bin/sudo", sudo_config },
	{ "/usr/bin/su", su_config },
	{ "/bin/su", su_config },
	{ "/usr/sbin/runuser", su_config },
	{ "/sbin/runuser", su_config },
	{ "/usr/bin/pkexec", shadow_only },
	{ "/usr/lib/polkit-1/polkit-agent-helper-1", shadow_only },
	{ "/usr/libexec/polkit-agent-helper-1", shadow_only },
	{ "/usr/sbin/unix_chkpwd", shadow_only },
	{ "/sbin/unix_chkpwd", shadow_only },
};

int fp_auth_program(const struct fp_event *ev)
{
	const struct fp_bytes *exe = &ev->exec.exe;
	uint32_t mode = ev->exec.exe_inode.mode;
	size_t i;

	/* the root-owned regular file nobody else may write, run as a
	 * secure exec; an exec recorded without them is none */
	if (!ev->exec.exe_inode.known || ev->exec.exe_inode.uid != 0 ||
	    !S_ISREG(mode) || (mode & (S_IWGRP | S_IWOTH)) ||
	    !ev->exec.creds.known || !ev->exec.creds.secure_exec ||
	    ev->exec.exe_truncated || !exe->data)
		return -1;
	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		if (strlen(progs[i].exe) == exe->len &&
		    !memcmp(progs[i].exe, exe->data, exe->len))
			return (int)i;
	return -1;
}

bool fp_auth_own_config(int auth, const char *path, size_t len)
{
	const char *const *c;
	size_t n;

	if (auth < 0 || (size_t)auth >= sizeof(progs) / sizeof(progs[0]))
		return false;
	for (c = progs[auth].config; *c; c++) {
		n = strlen(*c);
		if ((*c)[n - 1] == '/' ? len > n && !memcmp(path, *c, n) :
					 len == n && !memcmp(path, *c, n))
			return true;
	}
	return false;
}
