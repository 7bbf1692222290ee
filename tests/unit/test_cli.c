// SPDX-License-Identifier: GPL-2.0
/* cli.c: fp_parse_size; run_args.c: the parsers of run, replay, events */
#include <criterion/criterion.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "longopts.h"
#include "run_args.h"
#include "receipt.h"
#include "reconcile.h"
#include "session_args.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL

static void check_ok(const char *s, uint64_t want)
{
	uint64_t v = SENTINEL;
	int rc = fp_parse_size(s, &v);

	cr_assert_eq(rc, 0, "fp_parse_size(\"%s\") = %d", s, rc);
	cr_assert_eq(v, want, "fp_parse_size(\"%s\") gave %llu, want %llu", s,
		     (unsigned long long)v, (unsigned long long)want);
}

/* rejected, and *out left alone */
static void check_bad(const char *s, int want_rc)
{
	uint64_t v = SENTINEL;
	int rc = fp_parse_size(s, &v);

	cr_assert_eq(rc, want_rc, "fp_parse_size(\"%s\") = %d, want %d", s, rc,
		     want_rc);
	cr_assert_eq(v, SENTINEL, "fp_parse_size(\"%s\") wrote %llu", s,
		     (unsigned long long)v);
}

Test(cli, plain_numbers)
{
	check_ok("4096", 4096);
	check_ok("0", 0);
	check_ok("1", 1);
	check_ok("18446744073709551615", UINT64_MAX);
}

Test(cli, suffixes)
{
	check_ok("64K", 65536);
	check_ok("64k", 65536);
	check_ok("16M", 16777216);
	check_ok("16m", 16777216);
	check_ok("1G", 1073741824);
	check_ok("1g", 1073741824);
	check_ok("3G", 3ULL << 30);
	check_ok("0K", 0);
	/* the largest values that still fit */
	check_ok("17179869183G", 17179869183ULL << 30);
	check_ok("18014398509481983K", 18014398509481983ULL << 10);
}

Test(cli, rejects_malformed)
{
	cr_assert_eq(fp_parse_size(NULL, &(uint64_t){ 0 }), -EINVAL);
	check_bad("", -EINVAL);
	check_bad("K", -EINVAL);
	check_bad("12X", -EINVAL);
	check_bad("-1", -EINVAL);
	check_bad("+1", -EINVAL);
	check_bad(" 1", -EINVAL);
	check_bad("1 ", -EINVAL);
	check_bad("12KB", -EINVAL);
	check_bad("12KK", -EINVAL);
	check_bad("1.5M", -EINVAL);
	check_bad("0x10", -EINVAL);
	check_bad("1T", -EINVAL);
}

Test(cli, rejects_overflow_without_suffix)
{
	check_bad("18446744073709551616", -EINVAL);
	check_bad("99999999999999999999999", -EINVAL);
}

/*
 * A value that fits in 64 bits but not once scaled must be refused, not
 * wrapped: "17179869184G" is 2^64 bytes and would silently become 0.
 */
Test(cli, rejects_overflow_with_suffix)
{
	const char *const bad[] = { "17179869184G", "18014398509481984K",
				    "17592186044416M", "18446744073709551615K",
				    "9999999999999999999G" };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = SENTINEL;
		int rc = fp_parse_size(bad[i], &v);

		cr_expect_lt(rc, 0, "fp_parse_size(\"%s\") = %d, value %llu",
			     bad[i], rc, (unsigned long long)v);
	}
}

/* ---- the argument parsers ---- */

#define ARGC(v) ((int)(sizeof(v) / sizeof((v)[0])) - 1)

/* What a parser said on stderr, caught in memory. */
struct said {
	FILE *saved;
	char *text;
	size_t len;
};

static void catch_stderr(struct said *s)
{
	s->saved = stderr;
	s->text = NULL;
	stderr = open_memstream(&s->text, &s->len);
	cr_assert_not_null(stderr);
}

static void release_stderr(struct said *s)
{
	fclose(stderr);
	stderr = s->saved;
}

/* exactly one line, "footprint: SUB: ..." holding want */
static void assert_one_line(struct said *s, const char *sub, const char *want)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "footprint: %s: ", sub);
	cr_assert(s->len > 0 && s->text[s->len - 1] == '\n' &&
			  strchr(s->text, '\n') == s->text + s->len - 1,
		  "not one line: '%s'", s->text);
	cr_assert(!strncmp(s->text, prefix, strlen(prefix)), "%s", s->text);
	cr_assert(strstr(s->text, want), "'%s' lacks '%s'", s->text, want);
	free(s->text);
}

static int run_parse(int argc, char **argv, struct run_opts *o, struct said *s)
{
	int ret;

	memset(o, 0, sizeof(*o));
	catch_stderr(s);
	ret = fp_run_args_parse(argc, argv, o);
	release_stderr(s);
	return ret;
}

Test(run_args, fills_the_options)
{
	char *argv[] = { "run", "-r", "/a",	     "--root=/b", "--allow",
			 "x/",	"-f", "/etc/",	     "--receipt", "r.json",
			 "-t",	"5m", "--leftovers", "kill",	  "--ring-size",
			 "64K", "-q", "--",	     "make",	  "-q",
			 NULL };
	struct run_opts o;
	struct said s;

	cr_assert_eq(run_parse(ARGC(argv), argv, &o, &s), 0);
	cr_assert_eq(s.len, 0, "%s", s.text);
	free(s.text);
	cr_assert_eq(o.args.nroots, 2);
	cr_assert_str_eq(o.args.roots_arg[1], "/b");
	cr_assert_eq(o.args.rules.nrules, 2);
	cr_assert_eq(o.args.rules.rules[1].kind, FP_FORBID);
	cr_assert_str_eq(o.args.so.receipt_path, "r.json");
	cr_assert_eq(o.timeout_ms, 5 * 60 * 1000);
	cr_assert_eq(o.leftovers, LEFTOVERS_KILL);
	cr_assert_eq(o.args.so.tracer.ring_bytes, 65536);
	cr_assert_eq(o.args.so.tracer.max_argv_bytes, 1 << 20, "the default");
	cr_assert(o.args.so.quiet);
	cr_assert_str_eq(o.argv[0], "make");
	cr_assert_str_eq(o.argv[1], "-q", "COMMAND's own options are its own");
}

/* --help used to exit() from inside the parser */
Test(run_args, help_returns_instead_of_exiting)
{
	char *argv[] = { "run", "-qh", "--", "true", NULL };
	struct run_opts o;
	struct said s;

	cr_assert_eq(run_parse(ARGC(argv), argv, &o, &s), FP_ARGS_HELP);
	cr_assert_eq(s.len, 0, "%s", s.text);
	free(s.text);
}

/* "" was looked up as uid 0, and the command ran as root */
Test(run_args, empty_user_is_a_usage_error)
{
	char *spaced[] = { "run", "--user", "", "--", "id", NULL };
	char *joined[] = { "run", "--user=", "--", "id", NULL };
	char *shortopt[] = { "run", "-u", "", "--", "id", NULL };
	char **cases[] = { spaced, joined, shortopt };
	int argcs[] = { ARGC(spaced), ARGC(joined), ARGC(shortopt) };
	struct run_opts o;
	struct said s;
	size_t i;

	for (i = 0; i < 3; i++) {
		cr_assert_eq(run_parse(argcs[i], cases[i], &o, &s),
			     FP_EXIT_USAGE, "case %zu", i);
		assert_one_line(&s, "run", "--user wants a user name");
	}
}

Test(run_args, bad_values_are_one_line_each)
{
	static char *cases[][5] = {
		{ "run", "--ring-size", "3K", "--", "x" },
		{ "run", "--timeout", "0", "--", "x" },
		{ "run", "--leftovers", "maybe", "--", "x" },
		{ "run", "--max-argv", "1T", "--", "x" },
		{ "run", "-q", "--", NULL, NULL },
		{ "run", "-t", NULL, NULL, NULL },
	};
	static const char *const want[] = {
		"--ring-size", "--timeout",  "--leftovers",
		"--max-argv",  "no command", "'-t' needs a value"
	};
	struct run_opts o;
	struct said s;
	size_t i;
	int argc;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		for (argc = 0; argc < 5 && cases[i][argc]; argc++)
			;
		cr_assert_eq(run_parse(argc, cases[i], &o, &s), FP_EXIT_USAGE,
			     "case %zu", i);
		assert_one_line(&s, "run", want[i]);
	}
}

/*
 * A parse that stops inside "-qZq" must not leak into the next one: with
 * optind = 1 glibc went on in the old cluster and the second parse came
 * back with -q set (or read freed memory).
 */
Test(run_args, a_parse_starts_afresh)
{
	char *first[] = { "run", "-qZq", "--", "x", NULL };
	char *second[] = { "run", "--", "true", NULL };
	struct run_opts o;
	struct said s;

	cr_assert_eq(run_parse(ARGC(first), first, &o, &s), FP_EXIT_USAGE);
	assert_one_line(&s, "run", "unknown option '-qZq'");
	cr_assert_eq(run_parse(ARGC(second), second, &o, &s), 0);
	cr_assert_eq(s.len, 0, "%s", s.text);
	free(s.text);
	cr_assert_not(o.args.so.quiet, "-q of the previous argv");
	cr_assert_str_eq(o.argv[0], "true");
}

Test(run_args, replay)
{
	char *ok[] = { "replay", "--allow", "x",	 "-o",
		       "-",	 "-q",	    "job.fplog", NULL };
	char *two[] = { "replay", "a.fplog", "b.fplog", NULL };
	char *help[] = { "replay", "--help", NULL };
	struct fp_replay_opts o = { 0 };
	struct said s;

	cr_assert_eq(fp_replay_args_parse(ARGC(ok), ok, &o), 0);
	cr_assert_str_eq(o.log, "job.fplog");
	cr_assert_str_eq(o.args.so.receipt_path, "-");
	cr_assert(o.args.so.quiet && o.args.rules.given &&
		  o.args.rules.nrules == 1);
	memset(&o, 0, sizeof(o));
	catch_stderr(&s);
	cr_assert_eq(fp_replay_args_parse(ARGC(two), two, &o), FP_EXIT_USAGE);
	release_stderr(&s);
	assert_one_line(&s, "replay", "exactly one LOG");
	memset(&o, 0, sizeof(o));
	cr_assert_eq(fp_replay_args_parse(ARGC(help), help, &o), FP_ARGS_HELP);
}

Test(run_args, events)
{
	char *ok[] = { "events",	"--pid", "42",	      "--type", "exec",
		       "--path-prefix", "/etc/", "job.fplog", NULL };
	char *all[] = { "events", "job.fplog", NULL };
	char *neg[] = { "events", "--pid", "-3", "job.fplog", NULL };
	struct fp_events_opts o = { 0 };
	struct said s;

	cr_assert_eq(fp_events_args_parse(ARGC(ok), ok, &o), 0);
	cr_assert_eq(o.pid, 42);
	cr_assert_str_eq(o.type, "exec");
	cr_assert_str_eq(o.prefix, "/etc/");
	cr_assert_str_eq(o.log, "job.fplog");
	memset(&o, 0, sizeof(o));
	cr_assert_eq(fp_events_args_parse(ARGC(all), all, &o), 0);
	cr_assert_eq(o.pid, -1, "no --pid is every process");
	memset(&o, 0, sizeof(o));
	catch_stderr(&s);
	cr_assert_eq(fp_events_args_parse(ARGC(neg), neg, &o), FP_EXIT_USAGE);
	release_stderr(&s);
	assert_one_line(&s, "events", "--pid wants a number");
}

/* ---- the option order: anywhere, but run stops at its command ---- */

static int replay_parse(int argc, char **argv, struct fp_replay_opts *o,
			struct said *s)
{
	int ret;

	memset(o, 0, sizeof(*o));
	catch_stderr(s);
	ret = fp_replay_args_parse(argc, argv, o);
	release_stderr(s);
	return ret;
}

static void assert_silent(struct said *s)
{
	cr_assert_eq(s->len, 0, "%s", s->text);
	free(s->text);
}

Test(option_order, replay_options_after_the_log)
{
	char *after[] = { "replay", "job.fplog", "--receipt",
			  "r.json", "-q",	 NULL };
	char *between[] = { "replay",	      "-a", "x/", "job.fplog",
			    "--forbid=/etc/", NULL };
	struct fp_replay_opts o;
	struct said s;

	cr_assert_eq(replay_parse(ARGC(after), after, &o, &s), 0);
	assert_silent(&s);
	cr_assert_str_eq(o.log, "job.fplog");
	cr_assert_str_eq(o.args.so.receipt_path, "r.json");
	cr_assert(o.args.so.quiet);
	cr_assert_eq(replay_parse(ARGC(between), between, &o, &s), 0);
	assert_silent(&s);
	cr_assert_str_eq(o.log, "job.fplog");
	cr_assert_eq(o.args.rules.nrules, 2);
	cr_assert_eq(o.args.rules.rules[0].kind, FP_ALLOW);
	cr_assert_str_eq(o.args.rules.rules[1].pattern, "/etc/");
	cr_assert_str_eq(after[1], "job.fplog", "argv is not reordered");
}

/* a log whose name starts with '-' is reached with "--", and only so */
Test(option_order, replay_double_dash)
{
	char *dashed[] = { "replay", "-o", "r.json", "--", "-weird-name.fplog",
			   NULL };
	char *bare[] = { "replay", "-weird-name.fplog", NULL };
	char *two[] = { "replay", "a.fplog", "--", "-q", NULL };
	struct fp_replay_opts o;
	struct said s;

	cr_assert_eq(replay_parse(ARGC(dashed), dashed, &o, &s), 0);
	assert_silent(&s);
	cr_assert_str_eq(o.log, "-weird-name.fplog");
	cr_assert_str_eq(o.args.so.receipt_path, "r.json");
	cr_assert_eq(replay_parse(ARGC(bare), bare, &o, &s), FP_EXIT_USAGE);
	assert_one_line(&s, "replay", "unknown option '-weird-name.fplog'");
	cr_assert_eq(replay_parse(ARGC(two), two, &o, &s), FP_EXIT_USAGE);
	assert_one_line(&s, "replay", "exactly one LOG");
	cr_assert_not(o.args.so.quiet, "-q after -- is a file name");
}

Test(option_order, replay_errors_after_the_log)
{
	char *novalue[] = { "replay", "job.fplog", "--receipt", NULL };
	char *split[] = { "replay", "a.fplog", "-q", "b.fplog", NULL };
	struct fp_replay_opts o;
	struct said s;

	cr_assert_eq(replay_parse(ARGC(novalue), novalue, &o, &s),
		     FP_EXIT_USAGE);
	assert_one_line(&s, "replay", "'--receipt' needs a value");
	cr_assert_eq(replay_parse(ARGC(split), split, &o, &s), FP_EXIT_USAGE);
	assert_one_line(&s, "replay", "exactly one LOG");
}

Test(option_order, events_options_after_the_log)
{
	char *after[] = { "events", "job.fplog", "--type", "exec",
			  "--pid",  "7",	 NULL };
	char *mixed[] = { "events", "--path-prefix=/etc/", "job.fplog", NULL };
	char *dashed[] = { "events", "--type", "open", "--", "-x.fplog", NULL };
	struct fp_events_opts o = { 0 };

	cr_assert_eq(fp_events_args_parse(ARGC(after), after, &o), 0);
	cr_assert_str_eq(o.log, "job.fplog");
	cr_assert_str_eq(o.type, "exec");
	cr_assert_eq(o.pid, 7);
	memset(&o, 0, sizeof(o));
	cr_assert_eq(fp_events_args_parse(ARGC(mixed), mixed, &o), 0);
	cr_assert_str_eq(o.log, "job.fplog");
	cr_assert_str_eq(o.prefix, "/etc/");
	memset(&o, 0, sizeof(o));
	cr_assert_eq(fp_events_args_parse(ARGC(dashed), dashed, &o), 0);
	cr_assert_str_eq(o.log, "-x.fplog");
	cr_assert_str_eq(o.type, "open");
}

/*
 * sudo passes POSIXLY_CORRECT on, and it turns glibc's permuting mode
 * off: the order must not depend on it.
 */
Test(option_order, posixly_correct_changes_nothing)
{
	char *after[] = { "replay", "job.fplog", "-o", "r.json", NULL };
	struct fp_replay_opts o;
	struct said s;
	int ret;

	setenv("POSIXLY_CORRECT", "1", 1);
	ret = replay_parse(ARGC(after), after, &o, &s);
	unsetenv("POSIXLY_CORRECT");
	cr_assert_eq(ret, 0);
	assert_silent(&s);
	cr_assert_str_eq(o.log, "job.fplog");
	cr_assert_str_eq(o.args.so.receipt_path, "r.json");
}

Test(option_order, run_stops_at_the_command)
{
	char *plain[] = { "run", "ls", "-l", NULL };
	char *later[] = {
		"run", "-q", "make", "--root", "/x", "-o", "y", NULL
	};
	char *dashed[] = { "run", "--", "-weird", "-q", NULL };
	struct run_opts o;
	struct said s;

	cr_assert_eq(run_parse(ARGC(plain), plain, &o, &s), 0);
	assert_silent(&s);
	cr_assert_str_eq(o.argv[0], "ls");
	cr_assert_str_eq(o.argv[1], "-l");
	cr_assert_null(o.argv[2]);
	cr_assert_eq(run_parse(ARGC(later), later, &o, &s), 0);
	assert_silent(&s);
	cr_assert(o.args.so.quiet);
	cr_assert_eq(o.args.nroots, 0,
		     "--root after the command is the command's");
	cr_assert_null(o.args.so.receipt_path);
	cr_assert_str_eq(o.argv[0], "make");
	cr_assert_str_eq(o.argv[1], "--root");
	cr_assert_str_eq(o.argv[4], "y");
	cr_assert_eq(run_parse(ARGC(dashed), dashed, &o, &s), 0);
	assert_silent(&s);
	cr_assert_not(o.args.so.quiet);
	cr_assert_str_eq(o.argv[0], "-weird");
	cr_assert_str_eq(o.argv[1], "-q");
}

/* a permuting parse must not leave run permuting, nor the reverse */
Test(option_order, modes_do_not_leak_between_parses)
{
	char *replay[] = { "replay", "job.fplog", "-q", NULL };
	char *run[] = { "run", "ls", "-q", NULL };
	struct fp_replay_opts ro;
	struct run_opts o;
	struct said s;

	cr_assert_eq(replay_parse(ARGC(replay), replay, &ro, &s), 0);
	assert_silent(&s);
	cr_assert(ro.args.so.quiet);
	cr_assert_eq(run_parse(ARGC(run), run, &o, &s), 0);
	assert_silent(&s);
	cr_assert_not(o.args.so.quiet);
	cr_assert_str_eq(o.argv[1], "-q");
	cr_assert_eq(replay_parse(ARGC(replay), replay, &ro, &s), 0);
	assert_silent(&s);
	cr_assert(ro.args.so.quiet);
}

/* the helper the sidecar subcommands reuse: positionals kept in order */
Test(option_order, helper_keeps_positionals_in_order_and_bounded)
{
	static const struct option longopts[] = {
		{ "state", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	char *argv[] = { "mark", "a",  "--state", "/s",
			 "b",	 "--", "--state", NULL };
	char *many[2 + 2 * FP_POSITIONALS_MAX];
	struct fp_positionals pos = { 0 };
	const char *state = NULL;
	int c, at, i;

	fp_opts_start();
	while ((c = fp_next_opt_any_order(ARGC(argv), argv, "-:", longopts, &at,
					  &pos)) != -1) {
		cr_assert_eq(c, 'S', "got %d at %s", c, argv[at]);
		state = optarg;
	}
	cr_assert_str_eq(state, "/s");
	cr_assert_eq(pos.n, 3);
	cr_assert_str_eq(pos.v[0], "a");
	cr_assert_str_eq(pos.v[1], "b");
	cr_assert_str_eq(pos.v[2], "--state");

	many[0] = "mark";
	for (i = 1; i <= 2 * FP_POSITIONALS_MAX; i++)
		many[i] = "x";
	many[i] = NULL;
	memset(&pos, 0, sizeof(pos));
	fp_opts_start();
	while (fp_next_opt_any_order(i, many, "-:", longopts, &at, &pos) != -1)
		cr_assert_fail("no option was given");
	cr_assert_eq(pos.n, 2 * FP_POSITIONALS_MAX, "all are counted");
}

/* ---- the options run, sidecar and replay share (session_args.c) ---- */

static const struct option *opt_named(const struct option *t, const char *n)
{
	for (; t->name; t++)
		if (!strcmp(t->name, n))
			return t;
	return NULL;
}

/* no name twice and no id twice in one subcommand's table */
static void assert_unique(const struct option *t, const char *sub)
{
	const struct option *a, *b;

	for (a = t; a->name; a++)
		for (b = a + 1; b->name; b++) {
			cr_assert(strcmp(a->name, b->name), "%s: --%s twice",
				  sub, a->name);
			cr_assert_neq(a->val, b->val, "%s: --%s and --%s", sub,
				      a->name, b->name);
		}
}

/* --ring-size had one id in run and another in sidecar */
Test(session_args, one_id_per_option_in_every_subcommand)
{
	static const char *const shared[] = {
		"root",	      "allow",	       "forbid",       "expect",
		"ignore",     "policy",	       "report-noise", "receipt",
		"record",     "record-max",    "report-reads", "ring-size",
		"every-open", "memory-budget", "quiet",	       "summary-max",
		"push",	      "job",	       "help",
	};
	struct option run[FP_LONGOPTS_MAX], sc[FP_LONGOPTS_MAX],
		rp[FP_LONGOPTS_MAX];
	const struct option *tables[] = { run, sc, rp }, *o, *first;
	size_t i, k;

	fp_longopts_build(run, FP_SUB_RUN, fp_run_longopts);
	fp_longopts_build(sc, FP_SUB_SIDECAR, fp_sidecar_longopts);
	fp_longopts_build(rp, FP_SUB_REPLAY, fp_replay_longopts);
	assert_unique(run, "run");
	assert_unique(sc, "sidecar");
	assert_unique(rp, "replay");
	for (i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		first = NULL;
		for (k = 0; k < 3; k++) {
			o = opt_named(tables[k], shared[i]);
			if (!o)
				continue;
			if (!first)
				first = o;
			cr_assert_eq(o->val, first->val, "--%s", shared[i]);
			cr_assert_eq(o->has_arg, first->has_arg, "--%s",
				     shared[i]);
		}
		cr_assert_not_null(first, "--%s is nobody's", shared[i]);
	}
	cr_assert_eq(opt_named(run, "ring-size")->val, FP_OPT_RING_SIZE);
	cr_assert_null(opt_named(rp, "ring-size"), "replay traces nothing");
	cr_assert_null(opt_named(sc, "events"), "sidecar has no --events");
}

/* the parser writes the session's and the tracer's options themselves */
Test(session_args, run_fills_the_session_options)
{
	char *argv[] = { "run",
			 "--ring-size",
			 "64K",
			 "--cold",
			 "--every-open",
			 "--dns-port",
			 "5353",
			 "--max-argv",
			 "4K",
			 "-w",
			 "r.log",
			 "--record-max",
			 "2M",
			 "--memory-budget",
			 "8M",
			 "-e",
			 "e.ndjson",
			 "--force",
			 "--cross-mounts",
			 "--rehash-all",
			 "--report-reads",
			 "--summary-max",
			 "3",
			 "--unit",
			 "web",
			 "--",
			 "true",
			 NULL };
	char *bare[] = { "run", "true", NULL };
	struct run_opts o;
	struct fp_session_opts *so = &o.args.so;
	struct said s;

	cr_assert_eq(run_parse(ARGC(argv), argv, &o, &s), 0);
	assert_silent(&s);
	cr_assert_eq(so->tracer.ring_bytes, 65536);
	cr_assert_not(so->tracer.warm, "--cold");
	cr_assert(so->tracer.every_open);
	cr_assert_eq(so->tracer.dns_ports[0], 53);
	cr_assert_eq(so->tracer.dns_ports[1], 5353);
	cr_assert_eq(so->tracer.max_argv_bytes, 4096);
	cr_assert_str_eq(so->record_path, "r.log");
	cr_assert_eq(so->record_max, 2 << 20);
	cr_assert_eq(so->mem_budget, 8 << 20);
	cr_assert_str_eq(so->events_path, "e.ndjson");
	cr_assert(so->force && so->cross_mounts && so->rehash_all &&
		  so->report_reads);
	cr_assert_eq(so->summary_max, 3);
	cr_assert_str_eq(so->unit, "web");
	cr_assert_eq(so->log_fd, -1);

	cr_assert_eq(run_parse(ARGC(bare), bare, &o, &s), 0);
	assert_silent(&s);
	cr_assert(so->tracer.warm, "run keeps its programs loaded by default");
	cr_assert_eq(so->tracer.ring_bytes, 16 << 20);
	cr_assert_eq(so->tracer.max_argv_bytes, 1 << 20);
	cr_assert_eq(so->mem_budget, FP_RECON_BUDGET_DEFAULT);
	cr_assert_eq(so->summary_max, FP_SUMMARY_MAX_DEFAULT);
}

/* replay's budget is the recorded one unless --memory-budget says */
Test(session_args, replay_budget)
{
	char *plain[] = { "replay", "job.fplog", NULL };
	char *more[] = { "replay", "job.fplog", "--memory-budget", "2M", NULL };
	struct fp_replay_opts o;
	struct said s;

	cr_assert_eq(replay_parse(ARGC(plain), plain, &o, &s), 0);
	assert_silent(&s);
	cr_assert_eq(o.args.so.mem_budget, 0);
	cr_assert_not(o.args.mem_budget_given);
	cr_assert_eq(replay_parse(ARGC(more), more, &o, &s), 0);
	assert_silent(&s);
	cr_assert(o.args.mem_budget_given);
	cr_assert_eq(o.args.so.mem_budget, 2 << 20);
}

/* one parser, its messages in the name of the subcommand that asked */
Test(session_args, errors_name_the_subcommand)
{
	struct fp_session_args a;
	struct said s;
	int ret;

	memset(&a, 0, sizeof(a));
	fp_session_args_init(&a, FP_SUB_SIDECAR);
	cr_assert_not(a.so.tracer.warm, "the sidecar keeps nothing loaded");
	catch_stderr(&s);
	ret = fp_session_args_take(&a, "sidecar", FP_OPT_RING_SIZE, "3K");
	release_stderr(&s);
	cr_assert_eq(ret, -FP_EXIT_USAGE);
	assert_one_line(&s, "sidecar", "--ring-size wants a power of two");
	catch_stderr(&s);
	ret = fp_session_args_take(&a, "sidecar", FP_OPT_PUSH, "");
	release_stderr(&s);
	cr_assert_eq(ret, -FP_EXIT_USAGE);
	assert_one_line(&s, "sidecar", "--push wants a value");
	cr_assert_eq(fp_session_args_take(&a, "sidecar", FP_OPT_STATE, "/x"), 0,
		     "not a shared option");
}
