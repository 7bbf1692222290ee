/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Policy rules: allow, forbid, expect and ignore, for paths, processes and
 * binds. Forbid wins over everything; then ignore; then allow.
 *
 * A path pattern is an exact path, a directory prefix ending in "/", or a
 * glob ("*" and "?" stay within one component, "**" crosses them, "[...]"
 * a class, "\" escapes). Relative patterns are relative to each root.
 * A read rule may be scoped to a program: "allow read PATH by EXE".
 */
#ifndef FP_POLICY_H
#define FP_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "severity.h"

enum fp_rule_kind { FP_ALLOW, FP_FORBID, FP_EXPECT, FP_IGNORE };
enum fp_rule_target {
	FP_T_PATH,
	FP_T_PROCESS,
	FP_T_BIND,
	FP_T_CONNECT, /* PROTO/HOST:PORT, HOST a name or an address */
	FP_T_DNS, /* a name looked up */
	FP_T_READ, /* a path opened for reading: matched as paths are */
	FP_T_SIGNAL, /* the executable of a process signalled outside the run */
	FP_T_PTRACE, /* the executable of a process ptraced outside the run */
	FP_T_PRIV, /* an exe whose exec may raise privileges (allow privileged) */
	/* procops.h: a path made set-ID, a mount's target, a namespace's
	 * call ("unshare", "clone", "setns"...), a fileless exe "memfd:NAME" */
	FP_T_SETUID,
	FP_T_MOUNT,
	FP_T_NAMESPACE,
	FP_T_FILELESS,
};

struct fp_rule {
	enum fp_rule_kind kind;
	enum fp_rule_target target;
	char *pattern; /* absolute for paths; may hold any byte but NUL */
	size_t len;
	char *text; /* the rule as the user wrote it, for messages */
	/* read rules: "by EXE", a process pattern the reader's executable
	 * must match (NULL: any reader) */
	char *by;
	size_t bylen;
};

struct fp_policy {
	struct fp_rule *rules;
	size_t n;
	bool report_noise; /* do not drop the default noise paths */
	size_t nby; /* rules scoped "by EXE" */
	/* "severity KIND LEVEL" lines: a kind's level (severity.h) */
	struct fp_sevmap sev;
};

enum fp_decision { FP_DEC_NONE, FP_DEC_ALLOW, FP_DEC_FORBID, FP_DEC_IGNORE };

/* pattern as given on the command line or in a file (after unquoting) */
int fp_policy_add(struct fp_policy *p, enum fp_rule_kind kind,
		  enum fp_rule_target target, const char *pattern, size_t len,
		  char *const *roots, size_t nroots, char *err, size_t errlen);
/* The same, scoped to the readers whose executable matches by (a process
 * pattern; read rules only, "allow read /etc/shadow by /usr/sbin/x"). */
int fp_policy_add_by(struct fp_policy *p, enum fp_rule_kind kind,
		     enum fp_rule_target target, const char *pattern,
		     size_t len, const char *by, size_t bylen,
		     char *const *roots, size_t nroots, char *err,
		     size_t errlen);
/* One rule per line; see docs/policy.md. */
struct fp_creds;
/* largest policy file read */
#define FP_POLICY_MAX_BYTES (1 << 20)
/* file is opened as creds (NULL: as footprint itself), never via a link */
int fp_policy_load(struct fp_policy *p, const struct fp_creds *creds,
		   const char *file, char *const *roots, size_t nroots,
		   char *err, size_t errlen);
int fp_policy_parse_line(struct fp_policy *p, const char *line, size_t len,
			 char *const *roots, size_t nroots, char *err,
			 size_t errlen);
void fp_policy_free(struct fp_policy *p);

bool fp_glob_match(const char *pat, size_t plen, const char *s, size_t slen,
		   bool slash_special);
bool fp_rule_matches(const struct fp_rule *r, const char *s, size_t len);
/* The decision for a subject; *rule gets the deciding rule, if any. */
enum fp_decision fp_policy_decide(const struct fp_policy *p,
				  enum fp_rule_target target, const char *s,
				  size_t len, const struct fp_rule **rule);
/*
 * The same for a subject done by a process of executable by: a rule
 * scoped "by EXE" decides only where by matches it (fp_policy_decide
 * leaves such rules out: it knows no process).
 */
enum fp_decision fp_policy_decide_by(const struct fp_policy *p,
				     enum fp_rule_target target, const char *s,
				     size_t len, const char *by, size_t bylen,
				     const struct fp_rule **rule);
/* Does any allow, forbid or ignore rule match s, whoever it is by? *by
 * set: one of them is scoped to a process. */
bool fp_policy_names(const struct fp_policy *p, enum fp_rule_target target,
		     const char *s, size_t len, bool *by);
/*
 * Only the forbid rules: FP_DEC_FORBID or FP_DEC_NONE. For subjects that
 * no rule may allow or ignore (a cut path, a path through a magic link).
 */
enum fp_decision fp_policy_forbids(const struct fp_policy *p,
				   enum fp_rule_target target, const char *s,
				   size_t len, const struct fp_rule **rule);
/*
 * Is path one of the default noise paths (/dev/null, /dev/tty*,
 * /proc/self/...)? Never one that goes through a /proc magic link.
 */
bool fp_policy_is_noise(const char *path, size_t len);
/* "setuid ", "mount ", "namespace ", "fileless " for those targets (the
 * word a rule spells them with, and a space); NULL for the others */
const char *fp_policy_procop_word(enum fp_rule_target t);
/* Write s as a policy-file token: bare if safe, else quoted and escaped. */
void fp_policy_quote(char *out, size_t outlen, const char *s, size_t len,
		     bool escape_glob);
/* The same, into a malloc'd string that always fits. */
char *fp_policy_quote_dup(const char *s, size_t len, bool escape_glob);

#endif
