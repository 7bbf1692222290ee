// SPDX-License-Identifier: GPL-2.0
/*
 * A hostile command for test_procev.py: one thread opens a name buffer
 * that another thread rewrites while the open is under way.
 *
 *   openrace SECRET HARMLESS MARKER N [DELAY]
 *
 * N times: the buffer holds SECRET (made slow to resolve by "./"
 * components), the opener starts open(), and the flipper writes HARMLESS
 * over it at once, so that the name in memory when the open returns is
 * HARMLESS whichever file the kernel opened (DELAY spins after the
 * open starts, so that the kernel has copied the name by then). The opener reads the file it
 * got: it starts with MARKER when the kernel opened SECRET. Prints
 * "won N" (opens that reached SECRET) and "lost N".
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char name[4096];
static char slow[4096];
static const char *harmless;
static atomic_int go, flipped;
static long delay; /* spins before the rewrite: past the kernel's copy */

static void *flipper(void *unused)
{
	(void)unused;
	for (;;) {
		while (!atomic_load(&go))
			;
		atomic_store(&go, 0);
		for (volatile long k = 0; k < delay; k++)
			;
		strcpy(name, harmless);
		atomic_store(&flipped, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *secret, *marker;
	char buf[64];
	pthread_t t;
	long i, n, won = 0, lost = 0;
	size_t at, len;
	int fd;

	if (argc != 5 && argc != 6) {
		fprintf(stderr,
			"usage: openrace SECRET HARMLESS MARKER N [DELAY]\n");
		return 2;
	}
	secret = argv[1];
	harmless = argv[2];
	marker = argv[3];
	n = atol(argv[4]);
	delay = argc == 6 ? atol(argv[5]) : 1000;
	/* DIR/./././.../LEAF: the same file, a long walk for the kernel */
	at = strrchr(secret, '/') - secret + 1;
	memcpy(slow, secret, at);
	len = strlen(secret + at);
	while (at + 2 + len + 1 < sizeof(slow) - 64) {
		memcpy(slow + at, "./", 2);
		at += 2;
	}
	strcpy(slow + at, secret + strlen(secret) - len);
	if (strlen(slow) < strlen(harmless)) {
		fprintf(stderr, "openrace: HARMLESS is longer than SECRET\n");
		return 2;
	}
	pthread_create(&t, NULL, flipper, NULL);
	for (i = 0; i < n; i++) {
		strcpy(name, slow);
		atomic_store(&flipped, 0);
		atomic_store(&go, 1);
		fd = open(name, O_RDONLY);
		while (!atomic_load(&flipped))
			;
		if (fd < 0)
			continue;
		memset(buf, 0, sizeof(buf));
		if (read(fd, buf, sizeof(buf) - 1) > 0 &&
		    !strncmp(buf, marker, strlen(marker)))
			won++;
		else
			lost++;
		close(fd);
	}
	printf("won %ld\nlost %ld\n", won, lost);
	return 0;
}
