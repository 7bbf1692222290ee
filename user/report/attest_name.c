// SPDX-License-Identifier: GPL-2.0
/* A step's name and a format's, as the command lines give them. */
#include <string.h>

#include "attest.h"
#include "attest_doc.h"

int fp_attest_format_parse(const char *s, enum fp_attest_format *f)
{
	if (!strcmp(s, "link"))
		*f = FP_ATTEST_LINK;
	else if (!strcmp(s, "statement"))
		*f = FP_ATTEST_STATEMENT;
	else
		return -1;
	return 0;
}

bool fp_attest_name_ok(const char *name)
{
	size_t len = strlen(name);

	return len && len <= 200 && !strchr(name, '/') && name[0] != '.' &&
	       fp_ad_text_ok(name, len);
}
