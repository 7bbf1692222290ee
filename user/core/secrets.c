// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include <string.h>

#include "secrets.h"

#define LIT(s) s, sizeof(s) - 1

static bool eq(const char *s, size_t len, const char *lit, size_t llen)
{
	return len == llen && !memcmp(s, lit, llen);
}

static bool starts(const char *s, size_t len, const char *lit, size_t llen)
{
	return len >= llen && !memcmp(s, lit, llen);
}

/* public halves, host lists and client settings: nothing secret */
static bool ssh_public(const char *name, size_t n)
{
	return (n >= 4 && !memcmp(name + n - 4, ".pub", 4)) ||
	       eq(name, n, LIT("known_hosts")) ||
	       eq(name, n, LIT("known_hosts.old")) ||
	       eq(name, n, LIT("config")) ||
	       eq(name, n, LIT("authorized_keys")) ||
	       eq(name, n, LIT("authorized_keys2"));
}

/* rel: the path below a home directory, without its leading slash */
static const char *home_class(const char *rel, size_t n)
{
	static const struct {
		const char *prefix;
		size_t len;
		bool tree; /* the prefix is a directory: all below it */
		const char *cls;
	} list[] = {
		{ LIT(".aws/credentials"), false, "aws_credentials" },
		{ LIT(".config/gcloud/"), true, "gcloud" },
		{ LIT(".kube/config"), false, "kube_config" },
		{ LIT(".docker/config.json"), false, "docker_config" },
		{ LIT(".netrc"), false, "netrc" },
		{ LIT(".git-credentials"), false, "git_credentials" },
		{ LIT(".gnupg/"), true, "gnupg" },
		{ LIT(".mozilla/firefox/"), true, "browser_profile" },
		{ LIT(".config/google-chrome/"), true, "browser_profile" },
		{ LIT(".config/chromium/"), true, "browser_profile" },
	};
	const char *slash;
	size_t i;

	if (starts(rel, n, LIT(".ssh/"))) {
		slash = memrchr(rel, '/', n);
		if (slash == rel + n - 1 ||
		    ssh_public(slash + 1, rel + n - slash - 1))
			return NULL;
		return "ssh_key";
	}
	for (i = 0; i < sizeof(list) / sizeof(list[0]); i++)
		if (list[i].tree ?
			    starts(rel, n, list[i].prefix, list[i].len) &&
				    n > list[i].len :
			    eq(rel, n, list[i].prefix, list[i].len))
			return list[i].cls;
	return NULL;
}

/* "/home/NAME/rest": rest, else NULL */
static const char *under_home_dir(const char *p, size_t len, size_t *rlen)
{
	const char *slash;

	if (!starts(p, len, LIT("/home/")))
		return NULL;
	slash = memchr(p + 6, '/', len - 6);
	if (!slash || slash == p + 6)
		return NULL;
	*rlen = p + len - slash - 1;
	return slash + 1;
}

static const char *etc_class(const char *p, size_t len)
{
	if (eq(p, len, LIT("/etc/shadow")) || eq(p, len, LIT("/etc/shadow-")) ||
	    eq(p, len, LIT("/etc/gshadow")) || eq(p, len, LIT("/etc/gshadow-")))
		return "shadow";
	if (starts(p, len, LIT("/etc/sudoers")))
		return "sudoers";
	return NULL;
}

const char *fp_secret_class(const char *path, size_t len, char *const *homes,
			    size_t nhomes)
{
	const char *rel, *cls;
	size_t i, hl, rlen;

	/* every class has a dot-name below a home, or is in /etc */
	if (starts(path, len, LIT("/etc/")))
		return etc_class(path, len);
	if (!memmem(path, len, "/.", 2))
		return NULL;
	if (starts(path, len, LIT("/root/")) &&
	    (cls = home_class(path + 6, len - 6)))
		return cls;
	rel = under_home_dir(path, len, &rlen);
	if (rel && (cls = home_class(rel, rlen)))
		return cls;
	for (i = 0; i < nhomes; i++) {
		hl = strlen(homes[i]);
		while (hl && homes[i][hl - 1] == '/')
			hl--;
		if (len <= hl + 1 || memcmp(path, homes[i], hl) ||
		    path[hl] != '/')
			continue;
		cls = home_class(path + hl + 1, len - hl - 1);
		if (cls)
			return cls;
	}
	return NULL;
}

/* digits only, no leading zero, fits a pid: its value, else 0 */
static pid_t pid_of(const char *s, size_t n)
{
	uint64_t v = 0;
	size_t i;

	if (!n || n > 10 || s[0] == '0')
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	return v <= INT32_MAX ? (pid_t)v : 0;
}

pid_t fp_secret_proc_pid(const char *path, size_t len, const char **cls)
{
	const char *p = path + 6, *end = path + len, *slash, *leaf;
	pid_t pid;

	if (!starts(path, len, LIT("/proc/")))
		return 0;
	slash = memchr(p, '/', end - p);
	if (!slash)
		return 0;
	pid = pid_of(p, slash - p);
	leaf = memrchr(path, '/', len) + 1;
	if (!pid)
		return 0;
	/* /proc/PID/LEAF or /proc/PID/task/TID/LEAF */
	if (leaf != slash + 1) {
		const char *t = slash + 1, *ts;

		if (!starts(t, end - t, LIT("task/")))
			return 0;
		ts = memchr(t + 5, '/', end - t - 5);
		if (!ts || ts + 1 != leaf || !pid_of(t + 5, ts - t - 5))
			return 0;
	}
	if (eq(leaf, end - leaf, LIT("environ")))
		*cls = "proc_environ";
	else if (eq(leaf, end - leaf, LIT("mem")))
		*cls = "proc_mem";
	else
		return 0;
	return pid;
}

static const char *const class_names[] = {
	NULL,	       "ssh_key",	  "aws_credentials", "gcloud",
	"kube_config", "docker_config",	  "netrc",	     "git_credentials",
	"gnupg",       "browser_profile", "shadow",	     "sudoers",
};

#define NCLASSES (sizeof(class_names) / sizeof(class_names[0]))

const char *fp_secret_class_name(uint64_t n)
{
	return n && n < NCLASSES ? class_names[n] : "secret";
}

uint32_t fp_secret_class_number(const char *cls)
{
	uint32_t i;

	for (i = 1; cls && i < NCLASSES; i++)
		if (!strcmp(cls, class_names[i]))
			return i;
	return 0;
}
