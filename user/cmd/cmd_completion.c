// SPDX-License-Identifier: GPL-2.0
/*
 * footprint completion bash: print a bash completion script, made from
 * the option tables the parsers use (longopts.h), so that what it offers
 * cannot drift from what footprint takes. The build installs its output
 * as share/bash-completion/completions/footprint.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "run_args.h"
#include "session_args.h"
#include "version.h"
#include "longopts.h"

struct completed_cmd {
	const char *name; /* "shape diff": a verb with options of its own */
	const struct option *opts;
	const char *verbs; /* its first positional argument, or NULL */
	unsigned int shared; /* FP_SUB_*: it takes session_args.c's too */
};

/* every subcommand of main.c, in its order */
static const struct completed_cmd completed[] = {
	{ "run", fp_run_longopts, NULL, FP_SUB_RUN },
	{ "replay", fp_replay_longopts, NULL, FP_SUB_REPLAY },
	{ "events", fp_events_longopts, NULL, 0 },
	{ "report", fp_report_longopts, NULL, 0 },
	{ "sidecar", fp_sidecar_longopts, "start status mark stop",
	  FP_SUB_SIDECAR },
	{ "policy", fp_policy_longopts, "learn suggest check", 0 },
	{ "lock", fp_lock_longopts, NULL, 0 },
	{ "promote", fp_promote_longopts, NULL, 0 },
	{ "shape", fp_shape_longopts, "diff", 0 },
	{ "shape diff", fp_shape_diff_longopts, NULL, 0 },
	{ "completion", fp_completion_longopts, "bash", 0 },
	{ "attest", fp_attest_longopts, NULL, 0 },
	{ "fleet", fp_fleet_longopts, "init push learn new", 0 },
};

const struct option fp_completion_longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void completion_usage(FILE *f)
{
	fprintf(f,
		"Usage: footprint completion bash\n"
		"\n"
		"Print a bash completion script for footprint's subcommands and\n"
		"options, made from the option tables footprint parses with. The\n"
		"installed footprint has it in\n"
		"share/bash-completion/completions/footprint already.\n"
		"\n"
		"Options:\n"
		"  -h, --help           show this help\n"
		"\n"
		"Examples:\n"
		"  source <(footprint completion bash)\n"
		"  footprint completion bash > ~/.local/share/bash-completion/completions/footprint\n"
		"\n"
		"Exit status: 0; 2 for a usage error (a shell other than bash).\n");
}

/* "shape diff" -> "shape_diff": a shell variable's name */
static void put_var(FILE *f, const char *name, const char *what)
{
	fputs("_footprint_", f);
	for (; *name; name++)
		fputc(*name == ' ' ? '_' : *name, f);
	fprintf(f, "_%s", what);
}

/* The options of one table; with_arg: only those that take a value. */
static void put_opts(FILE *f, const struct completed_cmd *c, bool with_arg)
{
	struct option all[FP_LONGOPTS_MAX];
	const struct option *o;

	put_var(f, c->name, with_arg ? "args" : "opts");
	fputs("=' ", f);
	for (o = fp_longopts_build(all, c->shared, c->opts); o->name; o++)
		if (!with_arg || o->has_arg != no_argument)
			fprintf(f, "--%s ", o->name);
	fputs("'\n", f);
}

/*
 * The part of the script that is not data: find the subcommand (and its
 * verb) among the words before the cursor, skip the values of options
 * that take one, and offer options, verbs or files. run's options end at
 * "--" or at COMMAND, whose own words are completed as a command line.
 */
static const char script_body[] =
	"_footprint_value() {\n"
	"\tcase $1 in\n"
	"\t--root | --scratch | --state | --inputs)\n"
	"\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\tCOMPREPLY=($(compgen -d -- \"$cur\")) ;;\n"
	"\t--user) COMPREPLY=($(compgen -u -- \"$cur\")) ;;\n"
	"\t--leftovers) COMPREPLY=($(compgen -W 'fail kill allow' -- \"$cur\")) ;;\n"
	"\t*)\n"
	"\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\tCOMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
	"\tesac\n"
	"}\n"
	"\n"
	"# run's COMMAND and its words: a command line of their own when\n"
	"# bash-completion is loaded; else command names, then files\n"
	"_footprint_command() {\n"
	"\tif declare -F _command_offset >/dev/null; then\n"
	"\t\t_command_offset \"$1\"\n"
	"\telif [ \"$1\" = \"$COMP_CWORD\" ]; then\n"
	"\t\tCOMPREPLY=($(compgen -c -- \"$cur\"))\n"
	"\telse\n"
	"\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	"\tfi\n"
	"}\n"
	"\n"
	"_footprint() {\n"
	"\tlocal cur=${COMP_WORDS[COMP_CWORD]} cmd= var= n i w npos=0 dashdash=\n"
	"\tCOMPREPLY=()\n"
	"\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	"\t\tw=${COMP_WORDS[i]}\n"
	"\t\tif [ -z \"$cmd\" ]; then\n"
	"\t\t\tcase \" $_footprint_cmds \" in\n"
	"\t\t\t*\" $w \"*) cmd=$w var=$w ;;\n"
	"\t\t\t*) return 0 ;;\n"
	"\t\t\tesac\n"
	"\t\t\tcontinue\n"
	"\t\tfi\n"
	"\t\tif [ -z \"$dashdash\" ]; then\n"
	"\t\t\tcase $w in\n"
	"\t\t\t--) dashdash=1; continue ;;\n"
	"\t\t\t--*=*) continue ;;\n"
	"\t\t\t--*)\n"
	"\t\t\t\tn=_footprint_${var}_args\n"
	"\t\t\t\t# --opt=value: bash splits it at the =\n"
	"\t\t\t\tif [ \"${COMP_WORDS[i + 1]}\" = = ]; then\n"
	"\t\t\t\t\ti=$((i + 2))\n"
	"\t\t\t\telif [[ ${!n} == *\" $w \"* ]]; then\n"
	"\t\t\t\t\ti=$((i + 1))\n"
	"\t\t\t\tfi\n"
	"\t\t\t\tcontinue ;;\n"
	"\t\t\t-?*) continue ;;\n"
	"\t\t\tesac\n"
	"\t\tfi\n"
	"\t\tif [ \"$cmd\" = run ]; then\n"
	"\t\t\t_footprint_command \"$i\"\n"
	"\t\t\treturn 0\n"
	"\t\tfi\n"
	"\t\t# a verb with options of its own (shape diff)\n"
	"\t\tn=_footprint_${var}_${w}_opts\n"
	"\t\tif [ $npos = 0 ] && [[ $w =~ ^[a-z]+$ ]] && [ -n \"${!n}\" ]; then\n"
	"\t\t\tvar=${var}_$w\n"
	"\t\tfi\n"
	"\t\tnpos=$((npos + 1))\n"
	"\tdone\n"
	"\tif [ -z \"$cmd\" ]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"$_footprint_cmds --help --version\" -- \"$cur\"))\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tif [ -n \"$dashdash\" ]; then\n"
	"\t\t[ \"$cmd\" = run ] && _footprint_command \"$COMP_CWORD\" && return 0\n"
	"\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tw=${COMP_WORDS[COMP_CWORD - 1]}\n"
	"\tif [ \"$cur\" = = ]; then\n"
	"\t\tcur=\n"
	"\telif [ \"$w\" = = ]; then\n"
	"\t\tw=${COMP_WORDS[COMP_CWORD - 2]}\n"
	"\tfi\n"
	"\tn=_footprint_${var}_args\n"
	"\tif [[ $w == --* && ${!n} == *\" $w \"* ]]; then\n"
	"\t\t_footprint_value \"$w\"\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tif [[ $cur == -* ]]; then\n"
	"\t\tn=_footprint_${var}_opts\n"
	"\t\tCOMPREPLY=($(compgen -W \"${!n}\" -- \"$cur\"))\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tn=_footprint_${var}_verbs\n"
	"\tif [ $npos = 0 ] && [ -n \"${!n}\" ]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"${!n}\" -- \"$cur\"))\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tif [ \"$cmd\" = run ]; then\n"
	"\t\t_footprint_command \"$COMP_CWORD\"\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tcompopt -o filenames 2>/dev/null\n"
	"\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	"}\n"
	"\n"
	"complete -F _footprint footprint\n";

static void completion_bash(FILE *f)
{
	size_t i, n = sizeof(completed) / sizeof(completed[0]);

	fprintf(f,
		"# bash completion for footprint %s, made by `footprint completion bash`\n"
		"# from the option tables footprint parses with: do not edit.\n"
		"_footprint_cmds='",
		fp_version());
	for (i = 0; i < n; i++)
		if (!strchr(completed[i].name, ' '))
			fprintf(f, "%s%s", i ? " " : "", completed[i].name);
	fputs("'\n", f);
	for (i = 0; i < n; i++) {
		put_opts(f, &completed[i], false);
		put_opts(f, &completed[i], true);
		if (completed[i].verbs) {
			put_var(f, completed[i].name, "verbs");
			fprintf(f, "='%s'\n", completed[i].verbs);
		}
	}
	fputs(script_body, f);
}

int cmd_completion(int argc, char **argv)
{
	struct fp_positionals pos = { 0 };
	int c, at;

	fp_opts_start();
	while ((c = fp_next_opt_any_order(argc, argv, "-:h",
					  fp_completion_longopts, &at, &pos)) !=
	       -1) {
		if (c == 'h') {
			completion_usage(stdout);
			return FP_EXIT_OK;
		}
		return fp_bad_option("completion", c, argv[at]);
	}
	if (pos.n != 1)
		return fp_usage_error("completion", "say which shell: bash");
	if (strcmp(pos.v[0], "bash"))
		return fp_usage_error(
			"completion",
			"no completion for '%s'; only bash is supported",
			pos.v[0]);
	completion_bash(stdout);
	return fflush(stdout) ? FP_EXIT_USAGE : FP_EXIT_OK;
}
