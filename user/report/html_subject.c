// SPDX-License-Identifier: GPL-2.0
/* What a receipt entry is about, in a few words of HTML. */
#include <inttypes.h>
#include <string.h>

#include "html_int.h"

static void address(FILE *f, const struct fp_jv *e)
{
	const struct fp_jv *names = fp_jv_get(e, "names");
	const char *fam = fp_jv_str(e, "family");

	if (names && names->type == FP_JV_ARR && names->n &&
	    names->items[0].type == FP_JV_STR) {
		fp_html_text(f, names->items[0].s, names->items[0].len);
		fputs(" = ", f);
	}
	if (fam && !strcmp(fam, "unix"))
		fputs("unix:", f);
	fp_html_field(f, e, "address", "");
	if (fp_jv_get(e, "port"))
		fprintf(f, ":%" PRId64, fp_jv_int(e, "port", 0));
}

void fp_html_subject(FILE *f, const struct fp_jv *e)
{
	const char *kind = fp_jv_str(e, "kind");

	if (kind) {
		fp_html_str(f, kind);
		fputs(": ", f);
	}
	if (fp_jv_str(e, "path"))
		fp_html_field(f, e, "path", "");
	else if (fp_jv_str(e, "address"))
		address(f, e);
	else if (fp_jv_str(e, "name") && fp_jv_str(e, "qtype")) {
		fp_html_field(f, e, "name", "");
		fputs(" ", f);
		fp_html_field(f, e, "qtype", "");
	} else if (fp_jv_str(e, "target")) {
		fp_html_field(f, e, "target", "");
	} else if (fp_jv_str(e, "target_exe")) {
		fp_html_field(f, e, "syscall", "");
		fputs(" ", f);
		fp_html_field(f, e, "target_exe", "");
		fprintf(f, " (pid %" PRId64 ")", fp_jv_int(e, "target_pid", 0));
	} else if (fp_jv_str(e, "exe")) {
		fp_html_field(f, e, "exe", "");
		fprintf(f, " (pid %" PRId64 ")", fp_jv_int(e, "pid", 0));
	} else if (!kind) {
		fputs("?", f);
	}
}
