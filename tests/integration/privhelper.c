// SPDX-License-Identifier: GPL-2.0
/*
 * What a test makes setuid-root or gives file capabilities: prints its
 * own credentials as the kernel reports them, one line, for the test to
 * compare with the exec event footprint recorded:
 * "uid euid suid gid egid sgid capeff capprm nnp" (caps in hex).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static unsigned long long status_hex(const char *key)
{
	char line[256];
	unsigned long long v = ~0ULL;
	size_t n = strlen(key);
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n))
			sscanf(line + n, "%llx", &v);
	fclose(f);
	return v;
}

int main(void)
{
	uid_t r, e, s;
	gid_t gr, ge, gs;

	if (getresuid(&r, &e, &s) || getresgid(&gr, &ge, &gs))
		return 1;
	printf("%u %u %u %u %u %u %llx %llx %llu\n", r, e, s, gr, ge, gs,
	       status_hex("CapEff:"), status_hex("CapPrm:"),
	       status_hex("NoNewPrivs:"));
	return 0;
}
