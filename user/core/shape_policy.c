// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_diff.h"

/* the kinds a rule may name, and whether each takes an argument */
static const struct {
	const char *kind;
	bool arg;
} kinds[] = {
	{ "cap", true },	   { "listen", true },	 { "mount", true },
	{ "no_new_privs", false }, { "seccomp", false }, { "namespace", true },
	{ "property", true },	   { "exe", false },	 { "process", false },
};

static int rule(struct fp_shape_policy *p, char **tok, int n, char *err,
		size_t errlen, int line)
{
	struct fp_shape_rule *r;
	bool mount4;
	size_t k;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strcmp(tok[1], kinds[k].kind))
			break;
	if (k == sizeof(kinds) / sizeof(kinds[0])) {
		snprintf(
			err, errlen,
			"line %d: unknown kind '%.64s' (cap, listen, mount, no_new_privs, seccomp, namespace, property, exe, process)",
			line, tok[1]);
		return -1;
	}
	mount4 = n == 4 && !strcmp(tok[1], "mount") &&
		 (!strcmp(tok[3], "rw") || !strcmp(tok[3], "ro"));

	if (kinds[k].arg ? !(n == 3 || mount4) : n != 2) {
		snprintf(err, errlen, "line %d: 'allow %s' %s", line, tok[1],
			 kinds[k].arg ?
				 "takes one argument (mount: PATH [rw|ro])" :
				 "takes no argument");
		return -1;
	}
	if (p->n == FP_SHAPE_RULES_MAX) {
		snprintf(err, errlen, "line %d: more than %d rules", line,
			 FP_SHAPE_RULES_MAX);
		return -1;
	}
	r = &p->rules[p->n];
	r->kind = strdup(tok[1]);
	r->arg = strdup(n >= 3 ? tok[2] : "");
	r->rw = n == 4 && !strcmp(tok[3], "rw");
	p->n++;
	if (!r->kind || !r->arg) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static int line_rule(struct fp_shape_policy *p, char *l, int line, char *err,
		     size_t errlen)
{
	char *tok[5], *save;
	int n = 0;

	if (strchr(l, '#'))
		*strchr(l, '#') = '\0';
	for (char *t = strtok_r(l, " \t\r", &save); t;
	     t = strtok_r(NULL, " \t\r", &save)) {
		if (n == 5)
			break;
		tok[n++] = t;
	}
	if (!n)
		return 0;
	if (n < 2 || strcmp(tok[0], "allow") || n == 5) {
		snprintf(
			err, errlen,
			"line %d: a rule is 'allow KIND [ARG]', e.g. 'allow cap CAP_NET_BIND_SERVICE'",
			line);
		return -1;
	}
	return rule(p, tok, n, err, errlen, line);
}

int fp_shape_policy_parse(const char *text, size_t len,
			  struct fp_shape_policy *p, char *err, size_t errlen)
{
	char *buf = malloc(len + 1), *l, *nl;
	int line = 1, ret = 0;

	memset(p, 0, sizeof(*p));
	p->rules = calloc(FP_SHAPE_RULES_MAX, sizeof(*p->rules));
	if (!buf || !p->rules) {
		free(buf);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (strlen(buf) != len) {
		snprintf(err, errlen, "a NUL byte: this is not a policy");
		ret = -1;
	}
	for (l = buf; !ret && l; l = nl ? nl + 1 : NULL, line++) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		ret = line_rule(p, l, line, err, errlen);
	}
	free(buf);
	if (ret)
		fp_shape_policy_free(p);
	return ret;
}

void fp_shape_policy_free(struct fp_shape_policy *p)
{
	size_t i;

	for (i = 0; p->rules && i < p->n; i++) {
		free(p->rules[i].kind);
		free(p->rules[i].arg);
	}
	free(p->rules);
	memset(p, 0, sizeof(*p));
}
