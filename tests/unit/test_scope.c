// SPDX-License-Identifier: GPL-2.0
/* scope.c: process trees from a /proc, completed whatever the order */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scope.h"

/* a fake /proc: PID/stat for each line of "PID (COMM) S PPID" */
static int fake_proc(char *dir, const char *const *stats, size_t n)
{
	char path[512];
	size_t i;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	for (i = 0; i < n; i++) {
		int pid = atoi(stats[i]);

		snprintf(path, sizeof(path), "%s/%d", dir, pid);
		cr_assert_eq(mkdir(path, 0755), 0);
		strcat(path, "/stat");
		f = fopen(path, "w");
		cr_assert_not_null(f);
		fprintf(f, "%s 0 0 0\n", stats[i]);
		fclose(f);
	}
	/* not processes */
	snprintf(path, sizeof(path), "%s/self", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/12x", dir);
	mkdir(path, 0755);
	return open(dir, O_RDONLY | O_DIRECTORY);
}

static void rm_rf(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(scope, proc_links_parses_odd_comms)
{
	const char *const stats[] = {
		"1 (init) S 0",
		"20 (a) b) S 1", /* a comm with ") " in it */
		"21 ((sd-pam)) S 20",
		"22 (x\nS 99) R 21",
	};
	char dir[] = "/tmp/fpunit-proc-XXXXXX";
	int fd = fake_proc(dir, stats, 4);
	struct fp_proc_link *l;
	long n = fp_proc_links(fd, &l), i;
	pid_t ppid_of[30] = { 0 };

	cr_assert_eq(n, 4);
	for (i = 0; i < n; i++)
		ppid_of[l[i].pid] = l[i].ppid;
	cr_assert_eq(ppid_of[1], 0);
	cr_assert_eq(ppid_of[20], 1);
	cr_assert_eq(ppid_of[21], 20);
	cr_assert_eq(ppid_of[22], 21);
	free(l);
	close(fd);
	rm_rf(dir);
}

struct set {
	bool member[64];
	int added, refused;
	pid_t self;
	int room;
};

static bool has(void *ctx, pid_t pid)
{
	return ((struct set *)ctx)->member[pid];
}

static int add(void *ctx, pid_t pid, pid_t parent)
{
	struct set *s = ctx;

	if (s->room-- <= 0) {
		s->refused++;
		return 0;
	}
	s->member[pid] = true;
	s->added++;
	return 1;
}

static bool excluded(void *ctx, pid_t pid)
{
	return pid == ((struct set *)ctx)->self;
}

Test(scope, tree_closes_in_any_order)
{
	/* 10 <- 11 <- 12 <- 13, listed leaf first; 11 <- 14; 5 <- 6 apart;
	 * 11 <- 15 (self) <- 16 */
	const struct fp_proc_link links[] = {
		{ 13, 12 }, { 12, 11 }, { 16, 15 }, { 15, 11 }, { 11, 10 },
		{ 14, 11 }, { 6, 5 },	{ 10, 1 },  { 7, 7 },
	};
	struct set s = { .self = 15, .room = 100 };
	struct fp_tree_set ts = { has, add, excluded, &s };

	s.member[10] = true;
	cr_assert_eq(fp_tree_close(links, 9, &ts), 4);
	cr_assert(s.member[11] && s.member[12] && s.member[13] && s.member[14]);
	cr_assert(!s.member[15] && !s.member[16], "self or below it");
	cr_assert(!s.member[6] && !s.member[1] && !s.member[7]);
	/* again: nothing new */
	cr_assert_eq(fp_tree_close(links, 9, &ts), 0);
}

Test(scope, tree_full_offers_each_once)
{
	const struct fp_proc_link links[] = {
		{ 2, 1 }, { 3, 1 }, { 4, 1 }, { 5, 4 }
	};
	struct set s = { .room = 1 };
	struct fp_tree_set ts = { has, add, excluded, &s };

	s.member[1] = true;
	cr_assert_eq(fp_tree_close(links, 4, &ts), 1);
	cr_assert_eq(s.refused, 2, "refused %d", s.refused);
}
