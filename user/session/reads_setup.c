// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

/* a passwd database from a directory service can be huge */
#define FP_HOMES_MAX 4096

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* absolute, not "/" alone (that would make every "/.x" a home's) */
static bool usable_home(const char *h)
{
	return h && h[0] == '/' && h[1];
}

static int add_home(struct fp_run *run, const char *h)
{
	if (!usable_home(h) || run->nhomes >= FP_HOMES_MAX)
		return 0;
	return fp_run_add_str(&run->homes, &run->nhomes, h);
}

int fp_run_collect_homes(struct fp_run *run)
{
	struct passwd *pw;
	size_t i, n = 0;
	int ret = add_home(run, getenv("HOME"));

	setpwent();
	while (!ret && (pw = getpwent()))
		ret = add_home(run, pw->pw_dir);
	endpwent();
	if (ret || !run->nhomes)
		return ret;
	/* sorted and unique: the header is the same for the same machine */
	qsort(run->homes, run->nhomes, sizeof(char *), str_cmp);
	for (i = 0; i < run->nhomes; i++) {
		if (n && !strcmp(run->homes[n - 1], run->homes[i])) {
			free(run->homes[i]);
			continue;
		}
		run->homes[n++] = run->homes[i];
	}
	run->homes[n] = NULL;
	run->nhomes = n;
	return 0;
}

int fp_run_reads_ready(struct fp_run *run)
{
	char err[512];
	size_t i;
	int ret;

	/* only the read rules decide what is kept */
	for (i = 0; i < run->npolicy; i++) {
		if (strncmp(run->policy[i], "allow read ", 11) &&
		    strncmp(run->policy[i], "forbid read ", 12) &&
		    strncmp(run->policy[i], "ignore read ", 12))
			continue;
		ret = fp_policy_parse_line(&run->read_pol, run->policy[i],
					   strlen(run->policy[i]), run->roots,
					   run->nroots, err, sizeof(err));
		if (ret)
			return ret;
	}
	run->rconf = (struct fp_reads_conf){
		.roots = run->roots,
		.nroots = run->nroots,
		.homes = run->homes,
		.nhomes = run->nhomes,
		.pol = &run->read_pol,
		.report_all = run->report_reads,
	};
	fp_recon_set_reads(run->recon, &run->rconf);
	return 0;
}
