// SPDX-License-Identifier: GPL-2.0
/* The option loop of every subcommand and the values they share. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "evlog.h"
#include "receipt.h"
#include "run_args.h"

/*
 * getopt_long, with *at set to the argument it works on: optind has
 * already moved past it when an error comes back, except inside a cluster
 * of short options ("-qZ"), so argv[optind - 1] would name the wrong one.
 */
int fp_next_opt(int argc, char **argv, const char *optstring,
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
		c = fp_next_opt(argc, argv, optstring, longopts, at);
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
