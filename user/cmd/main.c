// SPDX-License-Identifier: GPL-2.0
/* footprint: what did this command really do? Subcommand dispatch. */
#include <grp.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "creds.h"
#include "heap.h"
#include "version.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct cmd cmds[] = {
	{ "run", cmd_run,
	  "run a command traced in its own cgroup and judge what it did" },
	{ "replay", cmd_replay,
	  "re-judge a recorded run offline (no root, no BPF)" },
	{ "events", cmd_events,
	  "print the events of a recorded run as NDJSON" },
	{ "report", cmd_report, "an HTML report of a receipt or a log" },
	{ "sidecar", cmd_sidecar,
	  "trace a whole CI job: sidecar start, status, mark, stop" },
	{ "policy", cmd_policy,
	  "learn a policy from recorded runs, check runs against one" },
	{ "lock", cmd_lock,
	  "freeze a tree's inputs, or a scratch run's outputs by hash" },
	{ "promote", cmd_promote,
	  "copy a scratch run's locked outputs into the real tree" },
	{ "shape", cmd_shape,
	  "fingerprint a running unit, process or cgroup; diff two shapes" },
	{ "completion", cmd_completion,
	  "print the bash completion script: completion bash" },
	{ "attest", cmd_attest, "sign an in-toto link of a recorded run" },
	{ "fleet", cmd_fleet,
	  "receipts of many runs in ClickHouse; learn, new" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	const struct cmd *c;

	fprintf(f,
		"Usage: footprint COMMAND [OPTIONS] [ARGS]\n"
		"       footprint help [COMMAND [SUBCOMMAND]]\n"
		"       footprint {-h|--help|-V|--version}\n"
		"\n"
		"What did this command really do? footprint runs a command in its\n"
		"own cgroup, traces in the kernel (eBPF) what it executed, which\n"
		"files it opened, made, changed, removed and renamed, what it bound,\n"
		"connected to and looked up, and whom it signalled, compares\n"
		"snapshots taken before and after, and gives a verdict.\n"
		"\n"
		"Commands:\n");
	for (c = cmds; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f,
		"\n"
		"Examples:\n"
		"  sudo footprint run -- ./generated_script.sh\n"
		"  sudo footprint run --events trace.ndjson -- make install\n"
		"  sudo footprint run --record job.fplog -- ./job.sh\n"
		"  footprint replay --policy today.policy job.fplog\n"
		"  footprint policy learn -o ci.policy run1.fplog run2.fplog\n"
		"  footprint help run                 (= footprint run --help)\n"
		"\n"
		"Exit status:\n"
		"  0       ok: nothing unexpected, the trace is complete\n"
		"  1       the verdict failed (or the command exited non-zero)\n"
		"  2       usage or input error (also a damaged log)\n"
		"  124     the run timed out (--timeout)\n"
		"  125     footprint could not trace; the command was not run\n"
		"  126     the command is not executable\n"
		"  127     the command was not found\n");
}

/*
 * Only run needs root. Run under sudo, every other command becomes the
 * invoking user for good before it reads or writes anything, so that
 * nothing it opens could not have been opened by that user.
 */
static int drop_to_invoker(void)
{
	struct fp_creds c;
	char err[256];
	int ret;

	ret = fp_creds_invoker(&c, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s\n", err);
		return ret;
	}
	if (c.active &&
	    (setgroups(c.ngroups, c.groups) || setresgid(c.gid, c.gid, c.gid) ||
	     setresuid(c.uid, c.uid, c.uid))) {
		fprintf(stderr,
			"footprint: cannot become %s (SUDO_UID): %m; run it without sudo\n",
			c.name);
		ret = -1;
	}
	fp_creds_free(&c);
	return ret;
}

static const struct cmd *find_cmd(const char *name)
{
	const struct cmd *c;

	for (c = cmds; c->name; c++)
		if (!strcmp(name, c->name))
			return c;
	return NULL;
}

/*
 * "footprint help run" is "footprint run --help", as git's help is; so is
 * "footprint help sidecar start". The command prints its own help and
 * nothing else: it stops at --help before it does anything.
 */
static int help(int argc, char **argv)
{
	const struct cmd *c;
	char *args[4];
	int n = 0;

	if (argc < 3) {
		usage(stdout);
		return FP_EXIT_OK;
	}
	c = find_cmd(argv[2]);
	/* a second word only names a subcommand: "help run X" must never
	 * become "run X --help", which would run X */
	if (!c || argc > 4 ||
	    (argc == 4 && !(c->fn == cmd_sidecar || c->fn == cmd_policy ||
			    c->fn == cmd_shape)))
		return fp_usage_error(NULL, "no help for '%s'",
				      c ? argv[3] : argv[2]);
	args[n++] = argv[2];
	if (argc == 4)
		args[n++] = argv[3];
	args[n++] = "--help";
	args[n] = NULL;
	return c->fn(n, args);
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		usage(stderr);
		return FP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return FP_EXIT_OK;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc, argv);
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		fp_version_print(stdout);
		return FP_EXIT_OK;
	}
	fp_heap_init();
	/* no OpenSSL configuration is read: OPENSSL_CONF could name one that
	 * loads a module into this root process, and SHA-256 needs none */
	if (!OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL)) {
		fprintf(stderr,
			"footprint: cannot set up OpenSSL's libcrypto (out of memory?); try again\n");
		return FP_EXIT_NOTRACE;
	}
	for (c = cmds; c->name; c++) {
		if (strcmp(argv[1], c->name))
			continue;
		/* shape reads other users' /proc; it writes as the user */
		if (c->fn != cmd_run && c->fn != cmd_sidecar &&
		    c->fn != cmd_shape && drop_to_invoker())
			return FP_EXIT_USAGE;
		return c->fn(argc - 1, argv + 1);
	}
	return fp_usage_error(NULL, "unknown command '%s'", argv[1]);
}
