// SPDX-License-Identifier: GPL-2.0
/* What build of footprint this is (version.h). */
#include <bpf/libbpf.h>

#include "version.h"
#include "version_gen.h"

const char *fp_version(void)
{
	return FP_VERSION_STRING;
}

const char *fp_version_commit(void)
{
	return FP_VERSION_COMMIT;
}

const char *fp_version_libbpf(void)
{
	return libbpf_version_string();
}

void fp_version_print(FILE *f)
{
	fprintf(f, "footprint %s\ncommit %s\nlibbpf %s\n", fp_version(),
		fp_version_commit(), fp_version_libbpf());
}
