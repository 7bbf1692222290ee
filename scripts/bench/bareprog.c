// SPDX-License-Identifier: GPL-2.0
/*
 * Loads and attaches bareprog.bpf.o, creates READY once it is attached,
 * and keeps it attached until SIGTERM or SIGINT.
 *
 *   bareprog OBJ READY
 */
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct bpf_program *prog;
	struct bpf_object *obj;
	sigset_t set;
	int sig, fd;

	if (argc != 3) {
		fprintf(stderr, "usage: bareprog OBJ READY\n");
		return 2;
	}
	/* blocked first: a SIGTERM sent once READY exists is not lost */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* libbpf 1.x (Debian 12 has 1.1): NULL on error, not an error pointer */
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "bareprog: cannot load %s\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program (prog, obj) {
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "bareprog: cannot attach %s\n",
				bpf_program__name(prog));
			return 1;
		}
	}
	fd = open(argv[2], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror("bareprog: READY");
		return 1;
	}
	close(fd);
	sigwait(&set, &sig);
	return 0;
}
