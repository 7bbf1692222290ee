// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "shape_report.h"

/* seed 002's four booleans first, then what footprint adds */
static const struct {
	const char *key;
	const char *meaning;
	const char *action;
} triage[FP_SF_N] = {
	{ "cap_eff_changed", "The process gained or lost kernel capabilities",
	  "Reject unless a policy owner explicitly approved the change" },
	{ "no_new_privs_changed", "The privilege model changed",
	  "Reject and ask the model to state why it removed the restriction" },
	{ "sockets_changed", "A new listener or bind address appeared",
	  "Review the socket endpoint and firewall rule before continuing" },
	{ "mounts_changed",
	  "A different filesystem path became visible or writable",
	  "Diff the mount tables and confirm the path is necessary" },
	{ "seccomp_changed", "The system call filter changed",
	  "Confirm the new filter is intended" },
	{ "namespaces_changed", "The process left or joined a namespace",
	  "Confirm the isolation change is intended" },
	{ "unit_changed", "A unit property (the promise) changed",
	  "Review the unit file diff against this runtime diff" },
	{ "exe_changed", "A different program image runs",
	  "Confirm the new binary's origin" },
	{ "process_changed", "The main process's identity or command changed",
	  "Confirm the user, groups and command line" },
};

static const char *rule_text(const struct fp_shape_policy *pol, int rule,
			     char *buf, size_t len)
{
	const struct fp_shape_rule *r = &pol->rules[rule];

	snprintf(buf, len, "allow %s%s%s%s", r->kind, r->arg[0] ? " " : "",
		 r->arg, r->rw ? " rw" : "");
	return buf;
}

static void drift_json(struct json_out *j, const struct fp_shape_drift *x,
		       const struct fp_shape_policy *pol)
{
	char buf[512];

	json_begin_object(j);
	json_field_str(j, "field", fp_shape_field_names[x->field]);
	json_field_str(j, "change", x->change);
	json_field_str(j, "subject", x->subject);
	if (x->before)
		json_field_str(j, "before", x->before);
	if (x->after)
		json_field_str(j, "after", x->after);
	json_field_bool(j, "allowed", x->rule >= 0);
	if (x->rule >= 0)
		json_field_str(j, "rule",
			       rule_text(pol, x->rule, buf, sizeof(buf)));
	json_end_object(j);
}

void fp_shape_diff_json_value(struct json_out *j, const struct fp_shape_diff *d,
			      const struct fp_shape_policy *pol)
{
	size_t i;
	int f;

	json_begin_object(j);
	for (f = 0; f < FP_SF_N; f++)
		json_field_bool(j, triage[f].key, d->changed[f]);
	json_field_bool(j, "complete", d->complete);
	json_field_bool(j, "truncated", d->truncated);
	json_field_bool(j, "ok", d->ok);
	json_field_array(j, "drift");
	for (i = 0; i < d->n; i++)
		drift_json(j, &d->drift[i], pol);
	json_end_array(j);
	json_end_object(j);
}

void fp_shape_diff_json(FILE *f, const struct fp_shape_diff *d,
			const struct fp_shape_policy *pol)
{
	struct json_out j = { .f = f };

	fp_shape_diff_json_value(&j, d, pol);
	fputc('\n', f);
}

/* control bytes out of a subject that came from the target */
static void put_safe(FILE *f, const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
}

void fp_shape_diff_summary(FILE *f, const struct fp_shape_diff *d,
			   const struct fp_shape_policy *pol)
{
	char buf[512];
	size_t i;
	int k, any = 0;

	for (k = 0; k < FP_SF_N; k++) {
		if (!d->changed[k])
			continue;
		if (!any++)
			fprintf(f, "%-22s %-56s %s\n", "Changed field",
				"Likely meaning", "Required action");
		fprintf(f, "%-22s %-56s %s\n", triage[k].key, triage[k].meaning,
			triage[k].action);
	}
	if (!any)
		fputs("no drift: the two shapes match\n", f);
	for (i = 0; i < d->n; i++) {
		const struct fp_shape_drift *x = &d->drift[i];

		fprintf(f, "  %s %s: %s ", x->rule >= 0 ? "allowed" : "DENIED ",
			fp_shape_field_names[x->field], x->change);
		put_safe(f, x->subject);
		if (x->before) {
			fputs(" (", f);
			put_safe(f, x->before);
			fputs(" -> ", f);
			put_safe(f, x->after);
			fputc(')', f);
		}
		if (x->rule >= 0)
			fprintf(f, "  [%s]",
				rule_text(pol, x->rule, buf, sizeof(buf)));
		fputc('\n', f);
	}
	if (d->truncated)
		fprintf(f, "  ... more than %d changes; not ok\n",
			FP_SHAPE_DRIFT_MAX);
	if (!d->complete)
		fputs("footprint: shape diff: a shape is incomplete (see its \"incomplete\"); re-take it as root\n",
		      f);
	fprintf(f, "footprint: shape diff: %s\n",
		d->ok ? "ok" : "FAIL: drift the policy does not allow");
}
