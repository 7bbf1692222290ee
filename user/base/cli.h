/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the subcommands: exit codes and argument helpers. */
#ifndef FP_CLI_H
#define FP_CLI_H

#include <stdint.h>

enum fp_exit_code {
	FP_EXIT_OK = 0,
	FP_EXIT_VERDICT = 1,
	FP_EXIT_USAGE = 2,
	FP_EXIT_TIMEOUT = 124,
	FP_EXIT_NOTRACE = 125,
	FP_EXIT_NOEXEC = 126,
	FP_EXIT_NOTFOUND = 127,
};

/* the most roots (--root) one run watches */
#define FP_ROOTS_MAX 64

/* "4096", "64K", "16M", "1G" */
int fp_parse_size(const char *s, uint64_t *out);
/* "500ms", "30s" or "30", "5m", "1h"; -1 if malformed */
int64_t fp_parse_duration_ms(const char *s);
/* One line, "footprint: SUB: msg", then a hint; returns FP_EXIT_USAGE. */
int fp_usage_error(const char *sub, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

int cmd_run(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_sidecar(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_lock(int argc, char **argv);
int cmd_promote(int argc, char **argv);
int cmd_shape(int argc, char **argv);
int cmd_completion(int argc, char **argv);
int cmd_attest(int argc, char **argv);
int cmd_fleet(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
