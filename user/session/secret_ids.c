// SPDX-License-Identifier: GPL-2.0
/*
 * The secrets by device and inode (docs/security.md, "Secrets under
 * other names"): at the start of a run, the files of the secret class
 * (core/secrets.c) in every home and in /etc are stat'ed, and the
 * tracer's kernel side marks an open of any of them whatever name
 * reached it: a hard link, a bind mount, /proc/self/fd, or a name buffer
 * another thread rewrote. Metadata only: nothing is opened but the
 * directories listed, and those never through a symlink. Bounded: a
 * directory gives at most FP_DIR_ENTRIES names, the whole at most
 * FP_MAX_SECRET_IDS files after FP_STAT_MAX stat calls.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "secrets.h"
#include "session.h"
#include "tracer.h"

#define FP_DIR_ENTRIES 256
#define FP_STAT_MAX 16384

struct ids {
	struct fp_secret_id id[FP_MAX_SECRET_IDS];
	uint32_t cls[FP_MAX_SECRET_IDS];
	size_t n;
	size_t stats;
	char *const *homes;
	size_t nhomes;
};

/* one file, if it is of the secret class and a regular file */
static void add_at(struct ids *s, int dfd, const char *name, const char *path)
{
	const char *cls =
		fp_secret_class(path, strlen(path), s->homes, s->nhomes);
	struct stat st;

	if (!cls || s->n >= FP_MAX_SECRET_IDS || s->stats >= FP_STAT_MAX)
		return;
	s->stats++;
	if (fstatat(dfd, name, &st, AT_NO_AUTOMOUNT) || !S_ISREG(st.st_mode))
		return;
	/* the kernel's dev_t: MKDEV(major, minor) = major << 20 | minor */
	s->id[s->n].dev = (uint64_t)major(st.st_dev) << 20 | minor(st.st_dev);
	s->id[s->n].ino = st.st_ino;
	s->cls[s->n] = fp_secret_class_number(cls);
	s->n++;
}

/* the files of one directory, opened without following a link; 0 or
 * why it could not be opened */
static int add_dir(struct ids *s, const char *dir)
{
	char path[4096];
	struct dirent *d;
	unsigned int seen = 0;
	DIR *dp;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK |
				   O_CLOEXEC);

	if (fd < 0)
		return -errno;
	dp = fdopendir(fd);
	if (!dp) {
		close(fd);
		return 0;
	}
	while (seen++ < FP_DIR_ENTRIES && (d = readdir(dp))) {
		if (d->d_name[0] == '.' &&
		    (!d->d_name[1] || (d->d_name[1] == '.' && !d->d_name[2])))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, d->d_name) >=
		    (int)sizeof(path))
			continue;
		add_at(s, dirfd(dp), d->d_name, path);
	}
	closedir(dp);
	return 0;
}

/* nothing under a path that is not there (a link is followed below) */
static bool absent(int err)
{
	return err == -ENOENT || err == -ENOTDIR;
}

static void add_home(struct ids *s, const char *home)
{
	static const char *const files[] = { ".aws/credentials", ".kube/config",
					     ".docker/config.json", ".netrc",
					     ".git-credentials" };
	static const char *const dirs[] = { ".ssh", ".gnupg",
					    ".gnupg/private-keys-v1.d",
					    ".config/gcloud" };
	char path[4096];
	struct stat st;
	size_t i;
	int e = 0;

	/* most accounts' homes do not exist (/nonexistent): 9 calls saved */
	if (stat(home, &st) && absent(-errno))
		return;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (snprintf(path, sizeof(path), "%s/%s", home, files[i]) <
		    (int)sizeof(path))
			add_at(s, AT_FDCWD, path, path);
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		/* .gnupg/private-keys-v1.d is not there without .gnupg */
		if (i == 2 && absent(e))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", home, dirs[i]) <
		    (int)sizeof(path))
			e = add_dir(s, path);
	}
}

/*
 * The stat calls alone, before the tracer is there: a run makes them
 * while the loader loads (session.c), off the path to the launch.
 */
void fp_session_secret_ids_read(struct fp_session *s)
{
	static const char *const etc[] = { "/etc/shadow", "/etc/shadow-",
					   "/etc/gshadow", "/etc/gshadow-",
					   "/etc/sudoers" };
	struct ids *ids;
	size_t i;

	if (s->secret_ids)
		return;
	ids = calloc(1, sizeof(*ids));
	if (!ids)
		return;
	ids->homes = s->run.homes;
	ids->nhomes = s->run.nhomes;
	for (i = 0; i < sizeof(etc) / sizeof(etc[0]); i++)
		add_at(ids, AT_FDCWD, etc[i], etc[i]);
	add_dir(ids, "/etc/sudoers.d");
	add_home(ids, "/root");
	for (i = 0; i < ids->nhomes; i++)
		if (strcmp(ids->homes[i], "/root"))
			add_home(ids, ids->homes[i]);
	s->secret_ids = ids;
}

int fp_session_secret_ids(struct fp_session *s, char *err, size_t errlen)
{
	struct ids *ids;
	int ret;

	fp_session_secret_ids_read(s);
	ids = s->secret_ids;
	if (!ids) {
		snprintf(err, errlen, "footprint: out of memory");
		return -ENOMEM;
	}
	ret = fp_tracer_set_secret_ids(s->tracer, ids->id, ids->cls, ids->n);
	if (ret)
		snprintf(
			err, errlen,
			"footprint: cannot hand the secrets' inodes to the kernel side (%s); rerun, or report it",
			strerror(-ret));
	free(ids);
	s->secret_ids = NULL;
	return ret;
}
