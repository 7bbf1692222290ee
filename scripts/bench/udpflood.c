// SPDX-License-Identifier: GPL-2.0
/*
 * The UDP workload of scripts/bench/udpflood: N sendto()s of one byte to
 * one destination (127.0.0.1:PORT, a socket of its own that never reads,
 * so the kernel drops what does not fit). Prints the loop's time in
 * nanoseconds on stdout, then the CPU time (user + system) it took: on a
 * shared machine the CPU time is the steadier of the two.
 *
 *   udpflood N PORT
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	long i, n;
	long long t0, c0;
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
	c0 = cpu_ns();
	for (i = 0; i < n; i++)
		if (sendto(s, "x", 1, 0, (struct sockaddr *)&to, sizeof(to)) <
		    0) {
			perror("udpflood: sendto");
			return 1;
		}
	printf("%lld %lld\n", now_ns() - t0, cpu_ns() - c0);
	close(s);
	close(sink);
	return 0;
}
