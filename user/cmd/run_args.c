// SPDX-License-Identifier: GPL-2.0
/* The argument parsers of run, replay and events (see run_args.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "evlog.h"
#include "receipt.h"
#include "reconcile.h"
#include "run_args.h"
#include "longopts.h"

/*
 * getopt_long, with *at set to the argument it works on: optind has
 * already moved past it when an error comes back, except inside a cluster
 * of short options ("-qZ"), so argv[optind - 1] would name the wrong one.
 */
static int next_opt(int argc, char **argv, const char *optstring,
		    const struct option *longopts, int *at)
{
	*at = optind ? optind : 1;
	return getopt_long(argc, argv, optstring, longopts, NULL);
}

void fp_positional_add(struct fp_positionals *pos, char *arg)
{
	if (pos->n < FP_POSITIONALS_MAX)
		pos->v[pos->n] = arg;
	pos->n++;
}

int fp_bad_option(const char *sub, int c, const char *arg)
{
	if (c == ':')
		return fp_usage_error(sub, "option '%s' needs a value", arg);
	return fp_usage_error(sub, "unknown option '%s'", arg);
}

/*
 * optind = 0, not 1: glibc then forgets where it was inside a cluster of
 * short options of the previous argv, which a caller may have freed.
 */
void fp_opts_start(void)
{
	optind = 0;
	opterr = 0;
}

/*
 * glibc's own permuting mode is not used: POSIXLY_CORRECT in the
 * environment (sudo passes it on) would silently turn it off, and it
 * reorders argv. With a leading '-' getopt hands each positional argument
 * back as option 1, in order, whatever the environment says.
 */
int fp_next_opt_any_order(int argc, char **argv, const char *optstring,
			  const struct option *longopts, int *at,
			  struct fp_positionals *pos)
{
	int c;

	for (;;) {
		c = next_opt(argc, argv, optstring, longopts, at);
		if (c != 1)
			break;
		fp_positional_add(pos, optarg);
	}
	/* what follows "--" is positional, even "-weird-name" */
	if (c == -1)
		while (optind < argc)
			fp_positional_add(pos, argv[optind++]);
	return c;
}

int fp_parse_ring_size(const char *sub, const char *arg, size_t *out)
{
	uint64_t v;

	if (fp_parse_size(arg, &v) || v < 4096 || (v & (v - 1)) ||
	    v > (1ULL << 30))
		return fp_usage_error(
			sub,
			"--ring-size wants a power of two between 4K and 1G, got '%s'",
			arg);
	*out = v;
	return 0;
}

int fp_parse_budget(const char *sub, const char *arg, uint64_t *out)
{
	uint64_t v;

	if (fp_parse_size(arg, &v) || v < (1 << 20))
		return fp_usage_error(
			sub,
			"--memory-budget wants a size of at least 1M, such as 512M, got '%s'",
			arg);
	*out = v;
	return 0;
}

int fp_parse_dns_port(const char *sub, const char *arg, uint16_t *ports)
{
	char *end;
	unsigned long v;
	int i;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || !v || v > 65535 || arg[0] == '-')
		return fp_usage_error(
			sub,
			"--dns-port wants a port from 1 to 65535, got '%s'",
			arg);
	ports[0] = 53;
	for (i = 1; i < FP_MAX_DNS_PORTS && ports[i] && ports[i] != v; i++)
		;
	if (i == FP_MAX_DNS_PORTS)
		return fp_usage_error(
			sub, "--dns-port may be given at most %d times",
			FP_MAX_DNS_PORTS - 1);
	ports[i] = v;
	return 0;
}

int fp_parse_record_max(const char *sub, const char *arg, uint64_t *out)
{
	uint64_t v;

	if (fp_parse_size(arg, &v) || v < FP_LOG_SEG_MIN)
		return fp_usage_error(
			sub,
			"--record-max wants a segment size of at least 1M, such as 10M, got '%s'",
			arg);
	*out = v;
	return 0;
}

int fp_parse_summary_max(const char *sub, const char *arg, size_t *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (!*arg || *end || errno || *arg == '-' || v < 1 ||
	    v > FP_SUMMARY_MAX_LIMIT)
		return fp_usage_error(
			sub,
			"--summary-max wants a number of examples from 1 to %d, got '%s'",
			FP_SUMMARY_MAX_LIMIT, arg);
	*out = v;
	return 0;
}

void fp_run_usage(FILE *f)
{
	fprintf(f,
		"Usage: footprint run [OPTIONS] -- COMMAND [ARG...]\n"
		"\n"
		"Snapshot the watched trees, the process table and the listening\n"
		"sockets; run COMMAND in a new cgroup and trace, in the kernel, what\n"
		"it and its descendants do; snapshot again; reconcile, and judge the\n"
		"result against a policy. By default everything unexpected fails.\n"
		"COMMAND's stdin, stdout and stderr pass through untouched.\n"
		"\n"
		"Traced (docs/events.md):\n"
		"  processes  exec (with its credentials), fork, exit\n"
		"  files      open, creat, unlink, rename, mkdir, rmdir, mknod, symlink,\n"
		"             link, chmod, chown, truncate (and their *at/f* forms)\n"
		"  network    bind, connect, sendto/sendmsg with a destination, accept,\n"
		"             DNS queries and answers (they name the connections)\n"
		"  others     kill/tkill/tgkill/pidfd_send_signal and ptrace aimed\n"
		"             outside the run, reads of secrets (~/.ssh, /etc/shadow...)\n"
		"Not traced: writes through an fd opened before the run, mmap; what\n"
		"they change shows as unexplained.\n"
		"\n"
		"Options:\n"
		"  -r, --root DIR       watch DIR (repeatable; default: the current directory)\n"
		"  -a, --allow PATTERN  a change to PATTERN is expected and fine\n"
		"  -f, --forbid PATTERN a change to PATTERN always fails (wins over allow)\n"
		"  -x, --expect PATTERN PATTERN must change, or the run fails\n"
		"      --ignore PATTERN do not even report changes to PATTERN\n"
		"  -p, --policy FILE    read rules from FILE (docs/policy.md)\n"
		"                       PATTERN: exact path, DIR/ prefix, or glob (* ? ** [..]),\n"
		"                       relative to each root unless absolute; ./ is the\n"
		"                       root and everything in it\n"
		"  -o, --receipt FILE   write the JSON receipt (docs/receipt.schema.json)\n"
		"      --push URL       push the receipt to the ClickHouse at URL once the\n"
		"                       verdict is in (docs/fleet.md; spooled when it\n"
		"                       cannot be); credentials never in URL: from\n"
		"                       ~/.config/footprint/clickhouse (0600)\n"
		"      --job NAME       the job's name there (default: $FOOTPRINT_JOB,\n"
		"                       else the command line)\n"
		"  -e, --events FILE    write every event as NDJSON to FILE (- for stdout);\n"
		"                       fields are described in docs/events.md\n"
		"  -w, --record FILE    record snapshots and events to a compressed log\n"
		"                       (0600) that 'footprint replay' re-judges offline\n"
		"      --record-max SIZE  cut the log into segments of at most SIZE\n"
		"                       (at least 1M): FILE, FILE.1, FILE.2, ...; replay\n"
		"                       and events read them all from FILE\n"
		"      --force          overwrite an existing --record FILE\n"
		"  -u, --user NAME      run COMMAND as NAME; root login only: under sudo\n"
		"                       COMMAND always runs as the invoking user (SUDO_UID)\n"
		"      --as-root        run COMMAND as root; root login only (the default\n"
		"                       there)\n"
		"  -t, --timeout DUR    bound the whole run, snapshots included, to DUR\n"
		"                       (30s, 5m, 1h): the command is killed DUR after\n"
		"                       footprint started, a snapshot still hashing stops\n"
		"                       (the after snapshot gets at least min(DUR, 5s));\n"
		"                       exit 124\n"
		"      --leftovers MODE processes still running when COMMAND exits:\n"
		"                       fail (default: reported, verdict fails, then killed),\n"
		"                       kill (killed before the after-snapshot, still fail\n"
		"                       unless allowed), allow (allowed and left running)\n"
		"      --cross-mounts   descend into other filesystems under a root\n"
		"      --rehash-all     re-hash every file after the run\n"
		"      --report-noise   report /dev/null, /dev/tty*, /proc/self/... too\n"
		"      --report-reads   list every file read in files.read (deduplicated,\n"
		"                       at most 100000, the rest counted); by default\n"
		"                       only secrets and files read inside the roots\n"
		"      --ring-size SIZE ring buffer size, a power of two (default 16M)\n"
		"      --every-open     one event per read-only open; by default repeated\n"
		"                       identical ones of a file are one event with a count\n"
		"      --cold           load the BPF programs afresh and keep none loaded\n"
		"                       afterwards; by default they stay loaded, not\n"
		"                       attached, under /sys/fs/bpf/footprint for the\n"
		"                       next run (docs/security.md)\n"
		"      --max-argv SIZE  argv bytes recorded per exec (default 1M); the rest\n"
		"                       is counted in argv_dropped\n"
		"      --dns-port N     traffic to port N is DNS too (besides 53): its\n"
		"                       queries and answers name the run's connections\n"
		"                       (repeatable, up to 7)\n"
		"      --memory-budget SIZE  memory for what the events leave to judge,\n"
		"                       and for each snapshot of the watched trees\n"
		"                       (default 128M, at least 1M); past it the run is\n"
		"                       incomplete and fails, and footprint goes on (a\n"
		"                       before snapshot past it: exit 2, nothing runs)\n"
		"  -q, --quiet          no summary on stderr\n"
		"      --summary-max N  at most N examples per category in the summary\n"
		"                       (default 10); many files under one directory\n"
		"                       show as one \"N under DIR/\" line\n"
		"      --scratch DIR    run COMMAND on a copy-on-write view of each root\n"
		"                       (overlayfs in a private mount namespace, upper\n"
		"                       layers under DIR); the real trees stay untouched\n"
		"                       and the receipt lists the proposed changes\n"
		"      --hide PATH      with --scratch: an empty, unreadable PATH (repeatable)\n"
		"      --no-network     with --scratch: only a loopback network; host unix\n"
		"                       sockets (ssh-agent, docker.sock) stay reachable\n"
		"                       as files, and a connect to one fails the verdict\n"
		"                       unless allowed (allow connect unix/PATH)\n"
		"      --scratch-also PATH  with --scratch: overlay PATH too, unwatched\n"
		"      --inputs-lock FILE  refuse to start (exit 2) if a root drifted from\n"
		"                       the input lock FILE (footprint lock --inputs)\n"
		"      --unit NAME      take the systemd unit's shape before and after the\n"
		"                       command; drift fails the verdict (footprint shape)\n"
		"      --shape-policy FILE  drift --unit allows (footprint shape diff --help)\n"
		"      --attest KEY     sign an in-toto link of the run with KEY (an\n"
		"                       in-toto-keygen private key, read with your\n"
		"                       rights) once it is judged, failed or not\n"
		"                       (docs/attest.md); with --attest-name STEP\n"
		"      --attest-name STEP  the step's name in the in-toto layout\n"
		"      --attest-out FILE  where (default: STEP.KEYID8.link here)\n"
		"      --attest-format link|statement  statement: a SLSA provenance\n"
		"                       Statement in a DSSE envelope\n"
		"      --attest-only-ok sign nothing if the verdict failed\n"
		"      --attest-materials-all  every file of the before snapshot is\n"
		"                       a material, not only those the run read\n"
		"  -h, --help           show this help\n"
		"\n"
		"Examples:\n"
		"  sudo footprint run -- ./generated_script.sh\n"
		"  sudo footprint run --scratch /tmp/s --hide ~/.ssh --no-network -- ./agent\n"
		"  sudo footprint run --allow .cache/ --allow logs/run.log -- ./gen.sh\n"
		"  sudo footprint run --root /srv/app --expect build/app --receipt r.json -- make\n"
		"  sudo footprint run --policy ci.policy --events trace.ndjson -- ./job.sh\n"
		"  sudo footprint run --dns-port 5353 --policy egress.policy -- ./fetch.sh\n"
		"  sudo footprint run --report-reads --receipt r.json -- make\n"
		"  sudo footprint run --unit web --shape-policy web.policy -- systemctl restart web\n"
		"  sudo footprint run --attest builder.key --attest-name build -- make\n"
		"\n"
		"Under sudo, outputs and policy files are opened with the invoking\n"
		"user's rights and never through a symbolic link; an existing output\n"
		"file is replaced, not written into (docs/security.md).\n"
		"\n"
		"Signals: SIGINT, SIGTERM, SIGHUP and SIGQUIT are passed to COMMAND; a\n"
		"second one kills the whole run. The receipt is still written, marked\n"
		"interrupted.\n"
		"\n"
		"Exit status: 0 ok; 1 the verdict failed (including a command that\n"
		"exited non-zero or an interrupted run); 2 usage or input error; 124\n"
		"timed out; 125 footprint could not trace (COMMAND is then never run);\n"
		"126 COMMAND is not executable; 127 COMMAND was not found.\n");
}

/* The scratch box's options (docs/scratch.md); 0 or FP_EXIT_USAGE. */
static int fp_scratch_arg(struct run_opts *o, int c, const char *arg)
{
	if (c == 'S' + 512)
		o->scratch_dir = arg;
	else if (c == 'n' + 512)
		o->no_network = true;
	else if (c == 'i' + 512)
		o->inputs_lock = arg;
	else if (c == 'h' + 512 && o->nhide < FP_SCRATCH_MAX)
		o->hide[o->nhide++] = arg;
	else if (c == 'a' + 512 && o->nalso < FP_SCRATCH_MAX)
		o->also[o->nalso++] = arg;
	else
		return fp_usage_error("run",
				      "at most %d --hide and %d --scratch-also",
				      FP_SCRATCH_MAX, FP_SCRATCH_MAX);
	if (arg && !*arg)
		return fp_usage_error("run",
				      "an empty path is no path; give one");
	return 0;
}

const struct option fp_run_longopts[] = {
	{ "root", required_argument, NULL, 'r' },
	{ "allow", required_argument, NULL, 'a' },
	{ "forbid", required_argument, NULL, 'f' },
	{ "expect", required_argument, NULL, 'x' },
	{ "ignore", required_argument, NULL, FP_OPT_IGNORE },
	{ "policy", required_argument, NULL, 'p' },
	{ "receipt", required_argument, NULL, 'o' },
	{ "cross-mounts", no_argument, NULL, 'C' },
	{ "rehash-all", no_argument, NULL, 'H' },
	{ "report-noise", no_argument, NULL, FP_OPT_REPORT_NOISE },
	{ "report-reads", no_argument, NULL, 'D' + 256 },
	{ "events", required_argument, NULL, 'e' },
	{ "record", required_argument, NULL, 'w' },
	{ "user", required_argument, NULL, 'u' },
	{ "as-root", no_argument, NULL, 'R' + 256 },
	{ "timeout", required_argument, NULL, 't' },
	{ "leftovers", required_argument, NULL, 'L' },
	{ "force", no_argument, NULL, 'F' },
	{ "record-max", required_argument, NULL, 'W' + 256 },
	{ "ring-size", required_argument, NULL, 'R' },
	{ "every-open", no_argument, NULL, 'O' + 256 },
	{ "cold", no_argument, NULL, 'C' + 512 },
	{ "max-argv", required_argument, NULL, 'A' },
	{ "dns-port", required_argument, NULL, 'N' + 256 },
	{ "memory-budget", required_argument, NULL, 'B' + 256 },
	{ "quiet", no_argument, NULL, 'q' },
	{ "summary-max", required_argument, NULL, 'S' + 256 },
	{ "scratch", required_argument, NULL, 'S' + 512 },
	{ "hide", required_argument, NULL, 'h' + 512 },
	{ "no-network", no_argument, NULL, 'n' + 512 },
	{ "scratch-also", required_argument, NULL, 'a' + 512 },
	{ "inputs-lock", required_argument, NULL, 'i' + 512 },
	{ "unit", required_argument, NULL, 'U' + 256 },
	{ "shape-policy", required_argument, NULL, 'P' + 256 },
	FP_ATTEST_LONGOPTS,
	FP_ATTEST_MATERIALS_LONGOPT,
	{ "push", required_argument, NULL, 'p' + 768 },
	{ "job", required_argument, NULL, 'j' + 768 },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* --push URL and --job NAME of run and replay (docs/fleet.md) */
static int push_arg(const char *sub, int c, const char *arg, const char **url,
		    const char **job)
{
	if (!*arg)
		return fp_usage_error(sub, "%s wants a value",
				      c == 'p' + 768 ? "--push" : "--job");
	*(c == 'p' + 768 ? url : job) = arg;
	return 0;
}

int fp_run_args_parse(int argc, char **argv, struct run_opts *o)
{
	uint64_t v;
	int c, taken, at;

	o->ring_bytes = 16 << 20;
	o->max_argv_bytes = 1 << 20;
	o->mem_budget = FP_RECON_BUDGET_DEFAULT;
	o->summary_max = FP_SUMMARY_MAX_DEFAULT;
	fp_opts_start();
	/* "+": the first non-option is COMMAND, and its options are its own */
	while ((c = next_opt(argc, argv, "+:r:a:f:x:p:o:e:w:u:t:qh",
			     fp_run_longopts, &at)) != -1) {
		taken = fp_rule_args_take(&o->rules, "run", c, optarg);
		if (!taken)
			taken = fp_attest_args_take(&o->attest, "run", c,
						    optarg);
		if (taken < 0)
			return -taken;
		if (taken)
			continue;
		switch (c) {
		case 'r':
			if (o->nroots == 64)
				return fp_usage_error("run", "too many --root");
			o->roots_arg[o->nroots++] = optarg;
			break;
		case 'o':
			o->receipt_path = optarg;
			break;
		case 'C':
			o->cross_mounts = true;
			break;
		case 'w':
			o->record_path = optarg;
			break;
		case 'W' + 256:
			if (fp_parse_record_max("run", optarg, &o->record_max))
				return FP_EXIT_USAGE;
			break;
		case 'u':
			/* getpwnam("") fails, and "" then read as uid 0 is root */
			if (!*optarg)
				return fp_usage_error(
					"run",
					"--user wants a user name or uid; leave it out to run as the invoking user");
			o->user = optarg;
			break;
		case 'R' + 256:
			o->as_root = true;
			break;
		case 't':
			o->timeout_ms = fp_parse_duration_ms(optarg);
			if (o->timeout_ms <= 0)
				return fp_usage_error(
					"run",
					"--timeout wants a duration such as 30s, 5m or 1h, got '%s'",
					optarg);
			break;
		case 'L':
			if (!strcmp(optarg, "fail"))
				o->leftovers = LEFTOVERS_FAIL;
			else if (!strcmp(optarg, "kill"))
				o->leftovers = LEFTOVERS_KILL;
			else if (!strcmp(optarg, "allow"))
				o->leftovers = LEFTOVERS_ALLOW;
			else
				return fp_usage_error(
					"run",
					"--leftovers wants fail, kill or allow, got '%s'",
					optarg);
			break;
		case 'F':
			o->force = true;
			break;
		case 'U' + 256:
			o->unit = optarg;
			break;
		case 'P' + 256:
			o->shape_policy = optarg;
			break;
		case 'H':
			o->rehash_all = true;
			break;
		case 'D' + 256:
			o->report_reads = true;
			break;
		case 'e':
			o->events_path = optarg;
			break;
		case 'R':
			if (fp_parse_ring_size("run", optarg, &o->ring_bytes))
				return FP_EXIT_USAGE;
			break;
		case 'O' + 256:
			o->every_open = true;
			break;
		case 'C' + 512:
			o->cold = true;
			break;
		case 'A':
			if (fp_parse_size(optarg, &v))
				return fp_usage_error(
					"run",
					"--max-argv wants a size such as 64K, got '%s'",
					optarg);
			o->max_argv_bytes = v;
			break;
		case 'N' + 256:
			if (fp_parse_dns_port("run", optarg, o->dns_ports))
				return FP_EXIT_USAGE;
			break;
		case 'B' + 256:
			if (fp_parse_budget("run", optarg, &o->mem_budget))
				return FP_EXIT_USAGE;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'S' + 256:
			if (fp_parse_summary_max("run", optarg,
						 &o->summary_max))
				return FP_EXIT_USAGE;
			break;
		case 'h':
			return FP_ARGS_HELP;
		case 'S' + 512:
		case 'h' + 512:
		case 'n' + 512:
		case 'a' + 512:
		case 'i' + 512:
			if (fp_scratch_arg(o, c, optarg))
				return FP_EXIT_USAGE;
			break;
		case 'p' + 768:
		case 'j' + 768:
			if (push_arg("run", c, optarg, &o->push_url,
				     &o->push_job))
				return FP_EXIT_USAGE;
			break;
		case ':':
		default:
			return fp_bad_option("run", c, argv[at]);
		}
	}
	if (optind >= argc)
		return fp_usage_error("run",
				      "no command given; put it after '--'");
	if (!o->scratch_dir && (o->nhide || o->nalso || o->no_network))
		return fp_usage_error(
			"run",
			"--hide, --no-network and --scratch-also work in a scratch box; add --scratch DIR");
	if (o->record_max && !o->record_path)
		return fp_usage_error(
			"run", "--record-max cuts the --record FILE; give one");
	if (fp_attest_args_check(&o->attest, "run"))
		return FP_EXIT_USAGE;
	if (o->push_job && !o->push_url)
		return fp_usage_error(
			"run",
			"--job names the job --push sends; add --push URL");
	o->argv = argv + optind;
	return 0;
}

const struct option fp_replay_longopts[] = {
	{ "allow", required_argument, NULL, 'a' },
	{ "forbid", required_argument, NULL, 'f' },
	{ "expect", required_argument, NULL, 'x' },
	{ "ignore", required_argument, NULL, FP_OPT_IGNORE },
	{ "policy", required_argument, NULL, 'p' },
	{ "report-noise", no_argument, NULL, FP_OPT_REPORT_NOISE },
	{ "receipt", required_argument, NULL, 'o' },
	{ "memory-budget", required_argument, NULL, 'B' + 256 },
	{ "quiet", no_argument, NULL, 'q' },
	{ "summary-max", required_argument, NULL, 'S' + 256 },
	{ "push", required_argument, NULL, 'p' + 768 },
	{ "job", required_argument, NULL, 'j' + 768 },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int fp_replay_args_parse(int argc, char **argv, struct fp_replay_opts *o)
{
	struct fp_positionals pos = { 0 };
	int c, ret, at;

	o->summary_max = FP_SUMMARY_MAX_DEFAULT;
	fp_opts_start();
	while ((c = fp_next_opt_any_order(argc, argv, "-:a:f:x:p:o:qh",
					  fp_replay_longopts, &at, &pos)) !=
	       -1) {
		ret = fp_rule_args_take(&o->rules, "replay", c, optarg);
		if (ret < 0)
			return -ret;
		if (ret)
			continue;
		switch (c) {
		case 'o':
			o->receipt_path = optarg;
			break;
		case 'B' + 256:
			if (fp_parse_budget("replay", optarg, &o->mem_budget))
				return FP_EXIT_USAGE;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'S' + 256:
			if (fp_parse_summary_max("replay", optarg,
						 &o->summary_max))
				return FP_EXIT_USAGE;
			break;
		case 'p' + 768:
		case 'j' + 768:
			if (push_arg("replay", c, optarg, &o->push_url,
				     &o->push_job))
				return FP_EXIT_USAGE;
			break;
		case 'h':
			return FP_ARGS_HELP;
		case ':':
		default:
			return fp_bad_option("replay", c, argv[at]);
		}
	}
	if (o->push_job && !o->push_url)
		return fp_usage_error(
			"replay",
			"--job names the job --push sends; add --push URL");
	if (pos.n != 1)
		return fp_usage_error("replay", "give exactly one LOG file");
	o->log = pos.v[0];
	return 0;
}

const struct option fp_events_longopts[] = {
	{ "pid", required_argument, NULL, 'P' },
	{ "type", required_argument, NULL, 'T' },
	{ "path-prefix", required_argument, NULL, 'X' },
	{ "format", required_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int fp_events_args_parse(int argc, char **argv, struct fp_events_opts *o)
{
	struct fp_positionals pos = { 0 };
	char *end;
	int c, at;

	o->pid = -1;
	fp_opts_start();
	while ((c = fp_next_opt_any_order(argc, argv, "-:h", fp_events_longopts,
					  &at, &pos)) != -1) {
		switch (c) {
		case 'P':
			errno = 0;
			o->pid = strtol(optarg, &end, 10);
			if (errno || *end || o->pid < 0)
				return fp_usage_error(
					"events",
					"--pid wants a number, got '%s'",
					optarg);
			break;
		case 'T':
			o->type = optarg;
			break;
		case 'X':
			o->prefix = optarg;
			break;
		case 'F':
			o->format = optarg;
			break;
		case 'h':
			return FP_ARGS_HELP;
		case ':':
		default:
			return fp_bad_option("events", c, argv[at]);
		}
	}
	if (pos.n != 1)
		return fp_usage_error("events", "give exactly one LOG file");
	o->log = pos.v[0];
	return 0;
}
