// SPDX-License-Identifier: GPL-2.0
/*
 * The UDP workload of scripts/bench/udpflood: N sendto()s of one byte to
 * one destination (127.0.0.1:PORT, a socket of its own that never reads,
 * so the kernel drops what does not fit). Prints the loop's time in
 * nanoseconds on stdout.
 *
 *   udpflood N PORT
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	long i, n;
	long long t0;
	int s, sink;

	if (argc != 3) {
		fprintf(stderr, "usage: udpflood N PORT\n");
		return 2;
	}
	n = atol(argv[1]);
	to.sin_port = htons(atoi(argv[2]));
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sink = socket(AF_INET, SOCK_DGRAM, 0);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (sink < 0 || s < 0 ||
	    bind(sink, (struct sockaddr *)&to, sizeof(to))) {
		perror("udpflood: socket");
		return 1;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (sendto(s, "x", 1, 0, (struct sockaddr *)&to, sizeof(to)) <
		    0) {
			perror("udpflood: sendto");
			return 1;
		}
	printf("%lld\n", now_ns() - t0);
	close(s);
	close(sink);
	return 0;
}
