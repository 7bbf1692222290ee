// SPDX-License-Identifier: GPL-2.0
/*
 * One receipt entry as a finding row: who, what, how it was judged, and
 * what a rule allowing it would match. The subjects are the ones the
 * judge matches rules against and `policy learn` feeds its suggester
 * (judge.c, judge_net.c, suggest_sensitive.c, judge_procops.c), built
 * from the receipt's fields as docs/policy.md spells them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_jv.h"
#include "fleet_receipt.h"

static bool is(const char *kind, const char *name)
{
	return !strcmp(kind, name);
}

static bool file_list(const char *kind)
{
	return !strncmp(kind, "files.", 6) && !is(kind, "files.read") &&
	       !is(kind, "files.setuid");
}

/* lists whose entries are the process itself */
static bool self_actor(const char *kind)
{
	return is(kind, "processes.short_lived") ||
	       is(kind, "processes.leftover") ||
	       is(kind, "processes.new_outside") ||
	       is(kind, "processes.disappeared") ||
	       is(kind, "processes.privileged") ||
	       is(kind, "network.connected") || is(kind, "network.accepted");
}

/* Whether it fails the verdict, for entries that do not say: as the
 * schema documents each list. */
static bool failing_of(const char *kind, const struct fp_jv *e, bool allowed,
		       bool forbidden)
{
	int b = fp_jv_bool(e, "failing");

	if (b >= 0)
		return b;
	if (is(kind, "tamper") || is(kind, "files.cut") ||
	    is(kind, "files.magic_link"))
		return true;
	if (!strncmp(kind, "files.", 6) || is(kind, "processes.leftover") ||
	    is(kind, "processes.privileged"))
		return !allowed;
	if (is(kind, "network.bound") || is(kind, "network.listening"))
		return forbidden ||
		       (!allowed && fp_jv_bool(e, "owner_outside_run") != 1);
	return forbidden;
}

/* the strings of an array, joined by commas: "content,mode" */
static char *joined(const struct fp_jv *e, const char *key)
{
	const struct fp_jv *a = fp_jv_get(e, key);
	size_t i, n = 1;
	char *s;

	if (!a || a->type != FP_JV_ARR || !a->n)
		return NULL;
	for (i = 0; i < a->n; i++)
		n += a->items[i].len + 1;
	s = calloc(1, n);
	for (i = 0; s && i < a->n; i++) {
		if (a->items[i].type != FP_JV_STR)
			continue;
		if (*s)
			strcat(s, ",");
		strcat(s, a->items[i].s);
	}
	return s;
}

static char *str_or_null(const struct fp_jv *e, const char *key)
{
	const char *s = fp_jv_str(e, key);

	return s ? strdup(s) : NULL;
}

static int actor(struct fp_fleet_finding *f, const struct fp_jv *a)
{
	int r;

	if (!a || a->type != FP_JV_OBJ)
		return 0;
	f->pid = (int32_t)fp_jv_int(a, "pid", 0);
	f->proc = fp_jv_get(a, "argv") ? -1 : fp_jv_int(a, "proc", -1);
	r = fp_fleet_jv_bytes(a, "exe", &f->exe, &f->exe_len);
	if (r == -ENOMEM)
		return r;
	r = fp_fleet_jv_strv(a, "argv", &f->argv, &f->argv_len);
	if (r == -ENOMEM)
		return r;
	if (!f->step && fp_jv_get(a, "step_index")) {
		f->step = (uint32_t)fp_jv_int(a, "step_index", 0);
		r = fp_fleet_jv_bytes(a, "step", &f->step_name,
				      &f->step_name_len);
	}
	return r == -ENOMEM ? r : 0;
}

static const char *proto_word(const char *proto)
{
	return !proto		      ? "ip" :
	       !strcmp(proto, "tcp")  ? "tcp" :
	       !strcmp(proto, "udp")  ? "udp" :
	       !strcmp(proto, "unix") ? "unix" :
					"ip";
}

/* "tcp/1.2.3.4:80", "tcp/[::1]:80", "unix/PATH" (fp_net_subject and
 * fp_conn_subject); NULL for another family */
static char *net_subject(const struct fp_jv *e, const char *name,
			 unsigned int port)
{
	const char *fam = fp_jv_str(e, "family");
	const char *proto = proto_word(fp_jv_str(e, "protocol"));
	char *addr = NULL, *s = NULL;
	size_t n;
	int r;

	if (!fam)
		return NULL;
	if (fp_fleet_jv_bytes(e, "address", &addr, &n))
		return NULL;
	if (!strcmp(fam, "unix"))
		r = asprintf(&s, "unix/%s", addr);
	else if (name)
		r = asprintf(&s, "%s/%s:%u", proto, name, port);
	else if (!strcmp(fam, "inet6"))
		r = asprintf(&s, "%s/[%s]:%u", proto, addr, port);
	else if (!strcmp(fam, "inet"))
		r = asprintf(&s, "%s/%s:%u", proto, addr, port);
	else
		r = -1;
	free(addr);
	return r < 0 ? NULL : s;
}

/* a process rule's subject: the exe, or the command line when the exe
 * is not known (judge.c's cmdline()) */
static char *process_subject(const struct fp_fleet_finding *f, size_t *len)
{
	char *s;
	size_t i, n;

	if (f->exe && f->exe_len) {
		*len = f->exe_len;
		return strndup(f->exe, f->exe_len);
	}
	if (!f->argv || !f->argv_len)
		return NULL;
	s = malloc(f->argv_len + 1);
	if (!s)
		return NULL;
	for (i = 0; i < f->argv_len; i++)
		s[i] = f->argv[i] ? f->argv[i] : ' ';
	n = f->argv_len;
	while (n && s[n - 1] == ' ')
		n--;
	s[n] = '\0';
	*len = n;
	return s;
}

/* a bind the kernel chose the port of is allowed as port 0 (judge.c's
 * any_port): the receipt keeps only the port it got, so port 0 when the
 * rule that allowed it says so, or when no rule decided and the port is
 * one the kernel hands out (Linux's default ip_local_port_range) */
static unsigned int bind_port(const struct fp_fleet_finding *f,
			      unsigned int port)
{
	size_t n = f->rule ? strlen(f->rule) : 0;

	if (n > 2 && !strcmp(f->rule + n - 2, ":0"))
		return 0;
	return !f->rule && port >= 32768 && port <= 60999 ? 0 : port;
}

static void set_target(struct fp_fleet_finding *f, enum fp_rule_target t,
		       char *subject, size_t len)
{
	if (!subject)
		return;
	f->has_target = true;
	f->target = t;
	f->subject = subject;
	f->subject_len = len;
}

static void file_created(struct fp_fleet_finding *f, const struct fp_jv *e)
{
	const struct fp_jv *after = fp_jv_get(e, "after");
	const char *what = fp_jv_str(e, "finding");

	if (is(f->kind, "files.added") || is(f->kind, "files.transient") ||
	    (is(f->kind, "files.unexplained") && what &&
	     !strcmp(what, "added")))
		f->created = true;
	if (is(f->kind, "files.outside_roots") && f->detail &&
	    strstr(f->detail, "created"))
		f->created = true;
	f->dir = after && after->type == FP_JV_OBJ &&
		 fp_jv_str(after, "type") &&
		 !strcmp(fp_jv_str(after, "type"), "d");
}

/* what a rule allowing f would match (fp_judge_needs and its helpers) */
static int need(struct fp_fleet_finding *f, const struct fp_jv *e)
{
	static const struct {
		const char *kind;
		enum fp_rule_target t;
	} by_path[] = {
		{ "files.read", FP_T_READ },
		{ "files.setuid", FP_T_SETUID },
		{ "processes.mounts", FP_T_MOUNT },
		{ "processes.fileless_exec", FP_T_FILELESS },
		{ "processes.signalled_outside", FP_T_SIGNAL },
		{ "processes.ptraced", FP_T_PTRACE },
		{ "processes.privileged", FP_T_PRIV },
	};
	size_t i, n = 0;
	char *s;

	if (file_list(f->kind)) {
		file_created(f, e);
		if (is(f->kind, "files.cut") || is(f->kind, "files.magic_link"))
			return 0; /* no rule can allow them */
		s = f->path ? strndup(f->path, f->path_len) : NULL;
		set_target(f, FP_T_PATH, s, f->path_len);
		return f->path && !s ? -ENOMEM : 0;
	}
	for (i = 0; i < sizeof(by_path) / sizeof(by_path[0]); i++) {
		if (!is(f->kind, by_path[i].kind))
			continue;
		if (!f->path || !f->path_len)
			return 0;
		s = strndup(f->path, f->path_len);
		set_target(f, by_path[i].t, s, f->path_len);
		return s ? 0 : -ENOMEM;
	}
	if (is(f->kind, "processes.short_lived") ||
	    is(f->kind, "processes.leftover") ||
	    is(f->kind, "processes.new_outside") ||
	    is(f->kind, "processes.disappeared")) {
		s = process_subject(f, &n);
		set_target(f, FP_T_PROCESS, s, n);
	} else if (is(f->kind, "network.bound") ||
		   is(f->kind, "network.listening")) {
		s = net_subject(e, NULL, bind_port(f, f->port));
		set_target(f, FP_T_BIND, s, s ? strlen(s) : 0);
	} else if (is(f->kind, "network.connected") && f->destination) {
		s = strdup(f->destination);
		set_target(f, FP_T_CONNECT, s, s ? strlen(s) : 0);
	} else if (is(f->kind, "network.dns") && f->destination) {
		s = strdup(f->destination);
		set_target(f, FP_T_DNS, s, s ? strlen(s) : 0);
	}
	return 0;
}

/* what the entry is about: its path, executable or destination */
static int subject_fields(struct fp_fleet_finding *f, const struct fp_jv *e)
{
	const struct fp_jv *names = fp_jv_get(e, "names");
	const char *name = names && names->type == FP_JV_ARR && names->n &&
					   names->items[0].type == FP_JV_STR ?
				   names->items[0].s :
				   NULL;
	const char *key =
		is(f->kind, "processes.signalled_outside") ||
				is(f->kind, "processes.ptraced") ?
			"target_exe" :
		is(f->kind, "processes.mounts") ||
				is(f->kind, "processes.namespaces") ?
			"target" :
		self_actor(f->kind) || is(f->kind, "processes.fileless_exec") ?
			"exe" :
			"path";
	size_t n;

	if (!strncmp(f->kind, "network.", 8) && !is(f->kind, "network.dns")) {
		f->port = (uint16_t)fp_jv_int(e, "port", 0);
		if (fp_fleet_jv_bytes(e, "address", &f->address, &n) == -ENOMEM)
			return -ENOMEM;
		f->destination = net_subject(
			e, is(f->kind, "network.connected") ? name : NULL,
			f->port);
		return 0;
	}
	if (is(f->kind, "network.dns")) {
		f->destination = str_or_null(e, "name");
		return 0;
	}
	return fp_fleet_jv_bytes(e, key, &f->path, &f->path_len) == -ENOMEM ?
		       -ENOMEM :
		       0;
}

static char *detail_of(const char *kind, const struct fp_jv *e)
{
	if (is(kind, "tamper"))
		return str_or_null(e, "kind");
	if (is(kind, "files.changed") || is(kind, "files.unexplained"))
		return joined(e, "changes") ?: str_or_null(e, "finding");
	if (is(kind, "files.outside_roots"))
		return joined(e, "ops");
	if (is(kind, "processes.privileged"))
		return joined(e, "rose");
	if (is(kind, "network.dns"))
		return str_or_null(e, "qtype");
	if (fp_jv_get(e, "syscall"))
		return str_or_null(e, "syscall");
	return str_or_null(e, "errno");
}

int fp_fleet_finding_of(struct fp_fleet_finding *f, const char *kind,
			const struct fp_jv *e)
{
	const char *sev = fp_jv_str(e, "severity");
	const struct fp_jv *a;
	size_t n;
	int r;

	memset(f, 0, sizeof(*f));
	f->proc = -1;
	snprintf(f->kind, sizeof(f->kind), "%s", kind);
	f->allowed = fp_jv_bool(e, "allowed") == 1;
	f->forbidden = fp_jv_bool(e, "forbidden") == 1;
	f->failing = failing_of(kind, e, f->allowed, f->forbidden);
	/* an entry nothing judged (only reported) is low, whatever its list */
	if (!sev || fp_severity_parse(sev, strlen(sev), &f->severity))
		f->severity = f->failing || f->allowed || f->forbidden ?
				      fp_severity_of(kind) :
				      FP_SEV_LOW;
	f->step = (uint32_t)fp_jv_int(e, "step_index", 0);
	r = fp_fleet_jv_bytes(e, "step", &f->step_name, &f->step_name_len);
	if (r != -ENOMEM)
		r = fp_fleet_jv_bytes(e, "rule", &f->rule, &n);
	if (r == -ENOMEM)
		return r;
	f->secret = is(kind, "files.read") ? str_or_null(e, "secret") : NULL;
	f->detail = detail_of(kind, e);
	a = self_actor(kind)		? e :
	    is(kind, "files.transient") ? fp_jv_get(e, "created_by") :
	    is(kind, "network.dns")	? fp_jv_get(e, "asked_by") :
					  fp_jv_get(e, "by");
	r = actor(f, a);
	if (!r)
		r = subject_fields(f, e);
	return r ? r : need(f, e);
}

void fp_fleet_finding_free(struct fp_fleet_finding *f)
{
	free(f->step_name);
	free(f->path);
	free(f->destination);
	free(f->address);
	free(f->secret);
	free(f->detail);
	free(f->exe);
	free(f->argv);
	free(f->rule);
	free(f->subject);
	memset(f, 0, sizeof(*f));
}

static const char *const target_names[] = {
	[FP_T_PATH] = "path",	      [FP_T_PROCESS] = "process",
	[FP_T_BIND] = "bind",	      [FP_T_CONNECT] = "connect",
	[FP_T_DNS] = "dns",	      [FP_T_READ] = "read",
	[FP_T_SIGNAL] = "signal",     [FP_T_PTRACE] = "ptrace",
	[FP_T_PRIV] = "privileged",   [FP_T_SETUID] = "setuid",
	[FP_T_MOUNT] = "mount",	      [FP_T_NAMESPACE] = "namespace",
	[FP_T_FILELESS] = "fileless",
};

const char *fp_fleet_target_name(enum fp_rule_target t)
{
	return t <= FP_T_FILELESS && target_names[t] ? target_names[t] : "";
}

int fp_fleet_target_parse(const char *s, size_t len, enum fp_rule_target *t)
{
	size_t i;

	for (i = 0; i <= FP_T_FILELESS; i++)
		if (target_names[i] && strlen(target_names[i]) == len &&
		    !memcmp(target_names[i], s, len)) {
			*t = i;
			return 0;
		}
	return -1;
}
