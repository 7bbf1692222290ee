// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the command line: the argument parsers of run,
 * replay and events (user/cmd/run_args.c) and the rule options they share
 * (user/cmd/rule_args.c), which then become a policy. The first byte picks
 * the subcommand; the rest, split on NUL, is its argv, each argument in a
 * heap block of its own so that reading past one is caught. A usage error
 * must be one line on stderr starting "footprint: "; a success says
 * nothing. Build and run it with scripts/fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "policy.h"
#include "rule_args.h"
#include "run_args.h"

#define MAX_ARGS 512

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_cli: %s\n", what);
		abort();
	}
}

/* The rules as run and replay build them, without --policy files. */
static void build_policy(const struct fp_rule_args *a)
{
	static char root_a[] = "/srv/app", root_b[] = "/";
	static char *roots[] = { root_a, root_b };
	struct fp_policy pol = { 0 };
	FILE *saved = stderr;

	if (a->npolicies)
		return;
	stderr = fopen("/dev/null", "w");
	if (stderr) {
		fp_rule_args_policy(a, &pol, NULL, roots, 2);
		fclose(stderr);
	}
	stderr = saved;
	fp_policy_decide(&pol, FP_T_PATH, "/srv/app/x", 10, NULL);
	fp_policy_free(&pol);
}

static int parse(int sub, int argc, char **argv)
{
	struct run_opts run = { 0 };
	struct fp_replay_opts replay = { 0 };
	struct fp_events_opts events = { 0 };
	int ret;

	switch (sub) {
	case 0:
		ret = fp_run_args_parse(argc, argv, &run);
		if (!ret) {
			check(run.argv && run.argv[0], "run without a command");
			check(!run.user || *run.user, "run --user ''");
			check(run.args.nroots <= 64 &&
				      run.args.rules.nrules <= 256,
			      "run: too many roots or rules");
			build_policy(&run.args.rules);
		}
		return ret;
	case 1:
		ret = fp_replay_args_parse(argc, argv, &replay);
		if (!ret) {
			check(replay.log != NULL, "replay without a log");
			build_policy(&replay.args.rules);
		}
		return ret;
	default:
		ret = fp_events_args_parse(argc, argv, &events);
		if (!ret)
			check(events.log && events.pid >= -1,
			      "events without a log");
		return ret;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const subs[] = { "run", "replay", "events" };
	char *argv[MAX_ARGS + 2], *err = NULL;
	const char *s, *end = (const char *)data + size, *z;
	size_t errlen = 0, i;
	int argc = 0, sub, ret;
	bool newline = false;
	FILE *saved = stderr;

	if (!size)
		return 0;
	sub = data[0] % 3;
	argv[argc++] = strdup(subs[sub]);
	for (s = (const char *)data + 1; s < end && argc <= MAX_ARGS;) {
		z = memchr(s, '\0', end - s);
		if (!z)
			z = end;
		argv[argc] = strndup(s, z - s);
		newline |= memchr(s, '\n', z - s) != NULL;
		argc++;
		s = z + 1;
	}
	argv[argc] = NULL;
	stderr = open_memstream(&err, &errlen);
	check(stderr != NULL, "out of memory");
	ret = parse(sub, argc, argv);
	fclose(stderr);
	stderr = saved;
	if (ret == FP_EXIT_USAGE) {
		check(errlen > 11 && !memcmp(err, "footprint: ", 11) &&
			      err[errlen - 1] == '\n',
		      "a usage error that is not a footprint: line");
		check(newline || memchr(err, '\n', errlen) == err + errlen - 1,
		      "a usage error of more than one line");
	} else {
		check(ret == 0 || ret == FP_ARGS_HELP,
		      "an unexpected return code");
		check(errlen == 0, "a message without an error");
	}
	free(err);
	for (i = 0; i < (size_t)argc; i++)
		free(argv[i]);
	return 0;
}
