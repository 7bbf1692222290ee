// SPDX-License-Identifier: GPL-2.0
/* run --unit: the unit's shape, as JSON, into the run and so the log. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "session.h"
#include "shape.h"
#include "shape_json.h"
#include "shape_report.h"

static int shape_text(const struct fp_shape *sh, struct fp_bytes *out)
{
	FILE *m = open_memstream(&out->data, &out->len);

	if (!m)
		return -ENOMEM;
	fp_shape_json(m, sh);
	return fclose(m) ? -ENOMEM : 0;
}

int fp_session_shape(struct fp_session *s, unsigned int phase)
{
	struct fp_run *run = &s->run;
	struct fp_shape sh;
	int ret;

	if (!s->o.unit)
		return 0;
	if (phase == 0) {
		run->unit = strdup(s->o.unit);
		run->shape_policy = strdup(s->o.shape_policy ?: "");
		if (!run->unit || !run->shape_policy)
			return FP_EXIT_NOTRACE;
	}
	ret = fp_shape_unit(&sh, s->o.unit);
	if (!ret)
		ret = shape_text(&sh, &run->shape[phase]);
	if (ret && phase == 0)
		fprintf(stderr,
			"footprint: run: cannot read unit '%s' from systemd (%s); check it with `systemctl status`; the command was not run\n",
			s->o.unit, sh.nnotes ? sh.notes[0] : strerror(-ret));
	else if (ret)
		/* no after shape: fp_run_shape_verdict fails the run */
		fprintf(stderr,
			"footprint: run: cannot read unit '%s' after the command (%s); the verdict fails\n",
			s->o.unit, sh.nnotes ? sh.notes[0] : strerror(-ret));
	fp_shape_free(&sh);
	if (ret == -ENOMEM)
		return FP_EXIT_NOTRACE;
	return ret && phase == 0 ? FP_EXIT_USAGE : 0;
}

void fp_session_shape_summary(struct fp_session *s)
{
	struct fp_shape_policy pol;
	struct fp_shape_diff d;
	const char *why;

	if (!s->run.unit || fp_run_shape_diff(&s->run, &pol, &d, &why))
		return;
	fprintf(stderr, "unit %s:\n", s->run.unit);
	if (why)
		fprintf(stderr, "footprint: shape diff: %s\n", why);
	else
		fp_shape_diff_summary(stderr, &d, &pol);
	fp_shape_diff_free(&d);
	fp_shape_policy_free(&pol);
}
