// SPDX-License-Identifier: GPL-2.0
/*
 * Where the store is and who footprint is there. A command line is
 * visible to every user of the machine (ps, /proc/PID/cmdline), so the
 * URL given there may hold no credentials: they come from a file the
 * user alone can read (--credentials FILE, FOOTPRINT_CLICKHOUSE_CREDENTIALS,
 * or ~/.config/footprint/clickhouse) or from the environment
 * (FOOTPRINT_CLICKHOUSE_USER, FOOTPRINT_CLICKHOUSE_PASSWORD, or a URL in
 * FOOTPRINT_CLICKHOUSE).
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "curl_dl.h"
#include "fleet.h"
#include "fleet_conf.h"
#include "userfile.h"

#define CRED_FILE_MAX (64 << 10)

char *fp_fleet_home(const struct fp_creds *c)
{
	const char *home = c && c->active ? NULL : getenv("HOME");
	struct passwd *pw;
	struct stat st;

	/* $HOME, when it is this user's: under sudo it may still be root's
	 * for a command that dropped to the invoking user */
	if (home && *home == '/' && !stat(home, &st) && st.st_uid == getuid())
		return strdup(home);
	pw = getpwuid(c && c->active ? c->uid : getuid());
	return pw && pw->pw_dir && *pw->pw_dir == '/' ? strdup(pw->pw_dir) :
							NULL;
}

static void wipe(char **s)
{
	if (*s)
		explicit_bzero(*s, strlen(*s));
	free(*s);
	*s = NULL;
}

void fp_fleet_conf_free(struct fp_fleet_conf *k)
{
	free(k->url);
	wipe(&k->user);
	wipe(&k->password);
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* "key = value" lines; # comments */
static int parse_file(char *text, const char *path, struct fp_fleet_conf *k)
{
	char *line, *save = NULL, *eq, *key, *val, **slot;
	unsigned int n = 0;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		n++;
		line = trim(line);
		if (!*line || *line == '#')
			continue;
		eq = strchr(line, '=');
		if (!eq) {
			fprintf(stderr,
				"footprint: fleet: %s line %u: not key = value; write url = ..., user = ... or password = ...\n",
				path, n);
			return -1;
		}
		*eq = '\0';
		key = trim(line);
		val = trim(eq + 1);
		slot = !strcmp(key, "url")	? &k->url :
		       !strcmp(key, "user")	? &k->user :
		       !strcmp(key, "password") ? &k->password :
						  NULL;
		if (!slot) {
			fprintf(stderr,
				"footprint: fleet: %s line %u: unknown key '%s'; say url, user or password\n",
				path, n, key);
			return -1;
		}
		wipe(slot);
		*slot = strdup(val);
		if (!*slot)
			return -1;
	}
	return 0;
}

/* the credentials file: the user's only, never through a link */
static int read_file(const char *path, bool must, const struct fp_creds *c,
		     struct fp_fleet_conf *k)
{
	char err[PATH_MAX + 256], *text;
	struct stat st;
	ssize_t n;
	int fd, ret;

	fd = fp_input_open(c, "the credentials file", path, CRED_FILE_MAX, err,
			   sizeof(err));
	if (fd == -ENOENT && !must)
		return 0;
	if (fd < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	if (fstat(fd, &st) || (st.st_mode & 077)) {
		fprintf(stderr,
			"footprint: fleet: %s can be read by others (mode %04o); chmod 600 %s\n",
			path, (unsigned int)(st.st_mode & 07777), path);
		close(fd);
		return -1;
	}
	text = calloc(1, CRED_FILE_MAX + 1);
	n = text ? read(fd, text, CRED_FILE_MAX) : -1;
	close(fd);
	ret = n < 0 ? -1 : parse_file(text, path, k);
	if (n < 0)
		fprintf(stderr, "footprint: fleet: cannot read %s: %s\n", path,
			strerror(errno));
	if (text)
		explicit_bzero(text, CRED_FILE_MAX);
	free(text);
	return ret;
}

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/* Take the user and password out of the URL; refuse them when it came
 * from the command line. */
static int url_credentials(struct fp_fleet_conf *k, bool given)
{
	char *user = NULL, *pass = NULL, *query = NULL, *clean = NULL;
	char err[300];
	const struct fp_curl *cu = fp_curl_load(err, sizeof(err));
	CURLU *u;
	int ret = 0;

	if (!cu) {
		fprintf(stderr, "footprint: fleet: cannot load libcurl: %s\n",
			err);
		return -1;
	}
	u = cu->url();
	if (!u || cu->url_set(u, CURLUPART_URL, k->url, 0)) {
		fprintf(stderr,
			"footprint: fleet: '%s' is not a URL; give http://HOST:8123/ or https://HOST:8443/\n",
			given ? k->url : "the URL of the environment");
		cu->url_cleanup(u);
		return -1;
	}
	cu->url_get(u, CURLUPART_USER, &user, CURLU_URLDECODE);
	cu->url_get(u, CURLUPART_PASSWORD, &pass, CURLU_URLDECODE);
	cu->url_get(u, CURLUPART_QUERY, &query, 0);
	if (given && (user || pass ||
		      (query && (strstr(query, "password=") ||
				 strstr(query, "user="))))) {
		fprintf(stderr,
			"footprint: fleet: the URL holds credentials, and every user of this machine can read a command line; put them in a credentials file (--credentials FILE, mode 0600) or in FOOTPRINT_CLICKHOUSE_USER and FOOTPRINT_CLICKHOUSE_PASSWORD\n");
		ret = -1;
	} else if (user || pass) {
		if (!k->user && user)
			k->user = strdup(user);
		if (!k->password && pass)
			k->password = strdup(pass);
		cu->url_set(u, CURLUPART_USER, NULL, 0);
		cu->url_set(u, CURLUPART_PASSWORD, NULL, 0);
		if (!cu->url_get(u, CURLUPART_URL, &clean, 0)) {
			free(k->url);
			k->url = strdup(clean);
		}
	}
	if (pass)
		explicit_bzero(pass, strlen(pass));
	cu->free(user);
	cu->free(pass);
	cu->free(query);
	cu->free(clean);
	cu->url_cleanup(u);
	return ret;
}

int fp_fleet_conf(const struct fp_fleet_opts *o, struct fp_fleet_conf *k)
{
	const char *file =
		o->credentials ?: env("FOOTPRINT_CLICKHOUSE_CREDENTIALS");
	char *home = NULL, *def = NULL;
	bool given = o->url != NULL;
	int ret;

	memset(k, 0, sizeof(*k));
	if (!file && (home = fp_fleet_home(o->creds)) &&
	    asprintf(&def, "%s/.config/footprint/clickhouse", home) < 0)
		def = NULL;
	ret = file || def ?
		      read_file(file ? file : def, file != NULL, o->creds, k) :
		      0;
	free(home);
	free(def);
	if (!ret && !k->user && env("FOOTPRINT_CLICKHOUSE_USER"))
		k->user = strdup(env("FOOTPRINT_CLICKHOUSE_USER"));
	if (!ret && !k->password && env("FOOTPRINT_CLICKHOUSE_PASSWORD"))
		k->password = strdup(env("FOOTPRINT_CLICKHOUSE_PASSWORD"));
	if (!ret && (o->url || env("FOOTPRINT_CLICKHOUSE"))) {
		free(k->url);
		k->url = strdup(o->url ? o->url : env("FOOTPRINT_CLICKHOUSE"));
	}
	if (!ret && !k->url) {
		fprintf(stderr,
			"footprint: fleet: no server; give --clickhouse URL (e.g. http://localhost:8123/) or set FOOTPRINT_CLICKHOUSE\n");
		ret = -1;
	}
	if (!ret)
		ret = url_credentials(k, given);
	if (ret)
		fp_fleet_conf_free(k);
	return ret ? FP_EXIT_USAGE : 0;
}
